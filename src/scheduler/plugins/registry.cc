#include "scheduler/plugins/registry.h"

#include "scheduler/plugins/default_preemption/default_preemption.h"
#include "scheduler/plugins/gpu_share/gpu_share.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_name/node_name.h"
#include "scheduler/plugins/node_resources/balanced_allocation.h"
#include "scheduler/plugins/node_resources/fit.h"
#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"
#include "scheduler/plugins/packing/fgd.h"
#include "scheduler/plugins/packing/packing.h"
#include "scheduler/plugins/taint_toleration/taint_toleration.h"
#include "scheduler/plugins/volume_binding/volume_binding.h"

namespace tidepool::scheduler::plugins {
namespace {

template <typename T>
PluginFactory Simple() {
  return [](const PluginArgs&) -> StatusOr<PluginPtr> { return PluginPtr(new T()); };
}

// A packing policy that is a formula (packing.h).
PluginFactory Formula(std::string_view name, NodeScope scope, FormulaScore::Formula formula) {
  return [=](const PluginArgs& a) -> StatusOr<PluginPtr> {
    return PluginPtr(new FormulaScore(name, scope, formula, a.packing));
  };
}

// A packing policy built from PackingArgs.
template <typename T>
PluginFactory Packing() {
  return [](const PluginArgs& a) -> StatusOr<PluginPtr> { return PluginPtr(new T(a.packing)); };
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
      {std::string(VolumeBinding::kName),
       [](const PluginArgs& a) -> StatusOr<PluginPtr> {
         return PluginPtr(new VolumeBinding(a.volumes));
       }},
      {std::string(DefaultPreemption::kName), Simple<DefaultPreemption>()},
      {std::string(GpuShare::kName),
       [](const PluginArgs& a) -> StatusOr<PluginPtr> {
         const std::string& s = a.packing.gpu_selection;
         if (s != "best" && s != "random") {
           return InvalidArgumentError("GpuShare: gpuSelection must be best or random, not \"" + s +
                                       "\"");
         }
         return PluginPtr(new GpuShare(s == "best" ? GpuSelection::kBest : GpuSelection::kRandom,
                                       a.packing.seed));
       }},
      {"BestFit", Formula("BestFit", NodeScope::kUsage, BestFitScore)},
      {"DotProd", Formula("DotProd", NodeScope::kUsage, DotProdScore)},
      {"GpuClustering", Formula("GpuClustering", NodeScope::kNode, GpuClusteringScore)},
      {"GpuPacking", Formula("GpuPacking", NodeScope::kUsage, GpuPackingScore)},
      {std::string(RandomScore::kName), Packing<RandomScore>()},
      {std::string(Fgd::kName), Packing<Fgd>()},
  };
}

}  // namespace tidepool::scheduler::plugins
