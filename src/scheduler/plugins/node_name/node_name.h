// File: node_name.h
//
// NodeName (kube-scheduler 1.32, plugins/nodename): a pod with spec.nodeName fits only that
// node.
#pragma once

#include "scheduler/framework/plugin.h"

namespace tidepool::scheduler::plugins {

class NodeName final : public FilterPlugin, public EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "NodeName";
  static constexpr const char* kErrReason = "node(s) didn't match the requested node name";

  std::string_view Name() const override { return kName; }
  // Only pods that name a node depend on the individual node.
  NodeScope FilterScope(const CycleState&, const PodInfo& pod) const override {
    return pod.node_name().empty() ? NodeScope::kClass : NodeScope::kNode;
  }
  PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                      const NodeInfo& node) const override;
  // Node/Add: kQueue when the node is the one the pod names (or it names
  // none).
  std::optional<QueueingHint> Hint(const ClusterEvent& event, const PodInfo& pod) const override;
};

}  // namespace tidepool::scheduler::plugins
