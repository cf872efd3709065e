// File: taint_toleration.h
//
// TaintToleration (kube-scheduler 1.32, plugins/tainttoleration):
//   Filter: the first NoSchedule or NoExecute taint the pod does not tolerate rejects the node,
//     UnschedulableAndUnresolvable, "node(s) had untolerated taint {<key>: <value>}" (the 1.32
//     text; 1.34 changed it to "node(s) had untolerated taint(s)");
//   Score: the number of PreferNoSchedule taints not tolerated by the pod's tolerations with an
//     empty or PreferNoSchedule effect, normalized in reverse (fewer is better).
#pragma once

#include "scheduler/framework/plugin.h"

namespace tidepool::scheduler::plugins {

class TaintToleration final : public FilterPlugin,
                              public PreScorePlugin,
                              public ScorePlugin,
                              public EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "TaintToleration";

  std::string_view Name() const override { return kName; }
  NodeScope FilterScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kClass;
  }
  PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                      const NodeInfo& node) const override;
  PluginStatus PreScore(CycleState& state, const PodInfo& pod) const override;
  NodeScope ScoreScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kClass;
  }
  int64_t Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  void NormalizeScore(const CycleState& state, const PodInfo& pod,
                      std::span<int64_t> scores) const override;
  // Pod/UpdatePodToleration of the pod itself: kQueue.
  // Node/Add | UpdateNodeTaint: kQueue when the node had a NoSchedule or
  // NoExecute taint the pod did not tolerate (or is new) and has none now
  // (isSchedulableAfterNodeChange).
  std::optional<QueueingHint> Hint(const ClusterEvent& event, const PodInfo& pod) const override;
};

}  // namespace tidepool::scheduler::plugins
