#include "scheduler/plugins/node_name/node_name.h"

namespace tidepool::scheduler::plugins {

PluginStatus NodeName::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  if (pod->spec.node_name.empty() || pod->spec.node_name == node.name()) {
    return PluginStatus::Success();
  }
  return PluginStatus::Unresolvable(kErrReason);
}

}  // namespace tidepool::scheduler::plugins
