#include "scheduler/plugins/taint_toleration/taint_toleration.h"

namespace tidepool::scheduler::plugins {
namespace {

struct PreScoreState : CycleState::Data {
  std::vector<api::Toleration> tolerations_prefer_no_schedule;
};

std::vector<api::Toleration> PreferNoScheduleTolerations(const api::PodSpec& spec) {
  std::vector<api::Toleration> out;
  for (const auto& t : spec.tolerations) {
    if (t.effect == api::TaintEffect::kNone || t.effect == api::TaintEffect::kPreferNoSchedule) {
      out.push_back(t);
    }
  }
  return out;
}

// The first NoSchedule or NoExecute taint of `taints` the pod does not tolerate, or null.
const api::Taint* UntoleratedTaint(const std::vector<api::Taint>& taints, const PodInfo& pod) {
  return api::UntoleratedDoNotScheduleTaint(taints, pod.spec().tolerations);
}

}  // namespace

PluginStatus TaintToleration::Filter(const CycleState&, const PodInfo& pod,
                                     const NodeInfo& node) const {
  const api::Taint* taint = UntoleratedTaint(node.taints(), pod);
  if (taint == nullptr) {
    return PluginStatus::Success();
  }
  return PluginStatus::Unresolvable("node(s) had untolerated taint {" + taint->key + ": " +
                                    taint->value + "}");
}

std::optional<QueueingHint> TaintToleration::Hint(const ClusterEvent& event,
                                                  const PodInfo& pod) const {
  // isSchedulableAfterPodTolerationChange: the pod's own new tolerations may do.
  if (event.kind == ClusterEvent::Kind::kPodTolerationUpdate) return QueueingHint::kQueue;
  if (!event.IsNodeChange(ClusterEvent::kUpdateNodeTaint)) return std::nullopt;
  const bool was =
      event.old_node == nullptr || UntoleratedTaint(event.old_node->spec.taints, pod) != nullptr;
  return was && UntoleratedTaint(event.node->spec.taints, pod) == nullptr ? QueueingHint::kQueue
                                                                          : QueueingHint::kSkip;
}

PluginStatus TaintToleration::PreScore(CycleState& state, const PodInfo& pod) const {
  auto s = std::make_unique<PreScoreState>();
  s->tolerations_prefer_no_schedule = PreferNoScheduleTolerations(pod.spec());
  state.Write(std::move(s));
  return PluginStatus::Success();
}

int64_t TaintToleration::Score(const CycleState& state, const PodInfo& pod,
                               const NodeInfo& node) const {
  const PreScoreState* s = state.Read<PreScoreState>();
  std::vector<api::Toleration> computed;
  if (s == nullptr) {
    computed = PreferNoScheduleTolerations(pod.spec());
  }
  const auto& tolerations = s != nullptr ? s->tolerations_prefer_no_schedule : computed;
  int64_t count = 0;
  for (const api::Taint& taint : node.taints()) {
    if (taint.effect != api::TaintEffect::kPreferNoSchedule) {
      continue;
    }
    if (!api::TolerationsTolerateTaint(tolerations, taint)) {
      ++count;
    }
  }
  return count;
}

void TaintToleration::NormalizeScore(const CycleState&, const PodInfo&,
                                     std::span<int64_t> scores) const {
  DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/true, scores);
}

}  // namespace tidepool::scheduler::plugins
