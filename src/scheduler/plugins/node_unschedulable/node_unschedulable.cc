#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"

namespace tidepool::scheduler::plugins {

PluginStatus NodeUnschedulable::Filter(const CycleState&, const PodInfo& pod,
                                       const NodeInfo& node) const {
  if (!node.unschedulable()) {
    return PluginStatus::Success();
  }
  // A pod that tolerates the unschedulable taint also tolerates spec.unschedulable.
  api::Taint taint{std::string(api::kTaintNodeUnschedulable), "", api::TaintEffect::kNoSchedule};
  if (api::TolerationsTolerateTaint(pod.spec().tolerations, taint)) {
    return PluginStatus::Success();
  }
  return PluginStatus::Unresolvable(kErrReasonUnschedulable);
}

std::optional<QueueingHint> NodeUnschedulable::Hint(const ClusterEvent& event,
                                                    const PodInfo&) const {
  if (event.kind == ClusterEvent::Kind::kPodTolerationUpdate) {
    // isSchedulableAfterPodTolerationChange: it now tolerates node.kubernetes.io/unschedulable.
    const api::Taint unschedulable{
        "node.kubernetes.io/unschedulable", "", api::TaintEffect::kNoSchedule, {}};
    for (const api::Toleration& t : event.pod->spec.tolerations) {
      if (t.ToleratesTaint(unschedulable)) return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  if (!event.IsNodeChange(ClusterEvent::kUpdateNodeTaint)) return std::nullopt;
  const bool was_unschedulable = event.old_node == nullptr || event.old_node->spec.unschedulable;
  return was_unschedulable && !event.node->spec.unschedulable ? QueueingHint::kQueue
                                                              : QueueingHint::kSkip;
}

}  // namespace tidepool::scheduler::plugins
