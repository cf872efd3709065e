#include "scheduler/plugins/node_name/node_name.h"

namespace tidepool::scheduler::plugins {

PluginStatus NodeName::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  if (pod.node_name().empty() || pod.node_name() == node.name()) {
    return PluginStatus::Success();
  }
  return PluginStatus::Unresolvable(kErrReason);
}

std::optional<QueueingHint> NodeName::Hint(const ClusterEvent& event, const PodInfo& pod) const {
  if (event.kind != ClusterEvent::Kind::kNodeAdd) return std::nullopt;
  return pod.node_name().empty() || pod.node_name() == event.node->meta.name ? QueueingHint::kQueue
                                                                             : QueueingHint::kSkip;
}

}  // namespace tidepool::scheduler::plugins
