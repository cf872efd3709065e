#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"

namespace tidepool::scheduler::plugins {
namespace {

// A pod that tolerates the unschedulable taint also tolerates spec.unschedulable.
bool ToleratesUnschedulable(const std::vector<api::Toleration>& tolerations) {
  const api::Taint taint{std::string(api::kTaintNodeUnschedulable), "",
                         api::TaintEffect::kNoSchedule};
  return api::TolerationsTolerateTaint(tolerations, taint);
}

}  // namespace

PluginStatus NodeUnschedulable::Filter(const CycleState&, const PodInfo& pod,
                                       const NodeInfo& node) const {
  if (!node.unschedulable() || ToleratesUnschedulable(pod.spec().tolerations)) {
    return PluginStatus::Success();
  }
  return PluginStatus::Unresolvable(kErrReasonUnschedulable);
}

std::optional<QueueingHint> NodeUnschedulable::Hint(const ClusterEvent& event,
                                                    const PodInfo&) const {
  if (event.kind == ClusterEvent::Kind::kPodTolerationUpdate) {
    // isSchedulableAfterPodTolerationChange: it now tolerates node.kubernetes.io/unschedulable.
    return ToleratesUnschedulable(event.pod->spec.tolerations) ? QueueingHint::kQueue
                                                               : QueueingHint::kSkip;
  }
  if (!event.IsNodeChange(ClusterEvent::kUpdateNodeTaint)) return std::nullopt;
  const bool was_unschedulable = event.old_node == nullptr || event.old_node->spec.unschedulable;
  return was_unschedulable && !event.node->spec.unschedulable ? QueueingHint::kQueue
                                                              : QueueingHint::kSkip;
}

}  // namespace tidepool::scheduler::plugins
