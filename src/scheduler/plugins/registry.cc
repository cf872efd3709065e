#include "scheduler/plugins/registry.h"

#include "scheduler/plugins/default_preemption/default_preemption.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_name/node_name.h"
#include "scheduler/plugins/node_resources/balanced_allocation.h"
#include "scheduler/plugins/node_resources/fit.h"
#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"
#include "scheduler/plugins/taint_toleration/taint_toleration.h"

namespace tidepool::scheduler::plugins {
namespace {

template <typename T>
PluginFactory Simple() {
  return [](const PluginArgs&) -> StatusOr<PluginPtr> { return PluginPtr(new T()); };
}

}  // namespace

Registry NewInTreeRegistry() {
  return Registry{
      {std::string(NodeUnschedulable::kName), Simple<NodeUnschedulable>()},
      {std::string(NodeName::kName), Simple<NodeName>()},
      {std::string(TaintToleration::kName), Simple<TaintToleration>()},
      {std::string(NodeAffinity::kName), Simple<NodeAffinity>()},
      {std::string(Fit::kName),
       [](const PluginArgs& a) -> StatusOr<PluginPtr> {
         if (a.node_resources_fit.resources.empty()) {
           return InvalidArgumentError("NodeResourcesFit: resources must not be empty");
         }
         return PluginPtr(new Fit(a.node_resources_fit));
       }},
      {std::string(BalancedAllocation::kName),
       [](const PluginArgs& a) -> StatusOr<PluginPtr> {
         if (a.balanced_allocation.resources.empty()) {
           return InvalidArgumentError(
               "NodeResourcesBalancedAllocation: resources must not be empty");
         }
         return PluginPtr(new BalancedAllocation(a.balanced_allocation));
       }},
      {std::string(DefaultPreemption::kName), Simple<DefaultPreemption>()},
  };
}

}  // namespace tidepool::scheduler::plugins
