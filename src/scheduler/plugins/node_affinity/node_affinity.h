// File: node_affinity.h
//
// NodeAffinity (kube-scheduler 1.32, plugins/nodeaffinity):
//   PreFilter: Skip for pods with neither nodeSelector nor required node affinity; when every
//     required term pins metadata.name (In), only those nodes are candidates (a
//     PreFilterResult), and if that set is empty the pod is rejected with
//     "pod affinity terms conflict";
//   Filter: the node must match spec.nodeSelector (every label) and the required node
//     affinity (any term); otherwise UnschedulableAndUnresolvable,
//     "node(s) didn't match Pod's node affinity/selector";
//   Score: the sum of the weights of the preferred terms the node matches, normalized so the
//     best node gets 100.
// The answer depends only on the node's class unless the pod's terms read the node's own name
// (matchFields metadata.name) or kubernetes.io/hostname label.
#pragma once

#include "scheduler/framework/plugin.h"

namespace tidepool::scheduler::plugins {

class NodeAffinity final : public PreFilterPlugin,
                           public FilterPlugin,
                           public PreScorePlugin,
                           public ScorePlugin,
                           public EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "NodeAffinity";
  static constexpr const char* kErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
  static constexpr const char* kErrReasonConflict = "pod affinity terms conflict";

  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod,
                         PreFilterResult& result) const override;
  NodeScope FilterScope(const CycleState& state, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                      const NodeInfo& node) const override;
  PluginStatus PreScore(CycleState& state, const PodInfo& pod) const override;
  NodeScope ScoreScope(const CycleState& state, const PodInfo& pod) const override;
  int64_t Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  void NormalizeScore(const CycleState& state, const PodInfo& pod,
                      std::span<int64_t> scores) const override;
  // Node/Add | UpdateNodeLabel: kQueue when the pod's nodeSelector and
  // required affinity admit the node and did not admit it before (or it is new).
  std::optional<QueueingHint> Hint(const ClusterEvent& event, const PodInfo& pod) const override;
};

// True if the pod's nodeSelector and required node affinity admit the node
// (nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)).
bool RequiredNodeAffinityMatches(const api::Pod& pod, const api::Node& node);
bool RequiredNodeAffinityMatches(const api::PodSpec& spec, const api::Node& node);
// The same on the snapshot's view of the node (its own hostname label included).
bool RequiredNodeAffinityMatches(const api::PodSpec& spec, const NodeInfo& node);

}  // namespace tidepool::scheduler::plugins
