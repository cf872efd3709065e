// File: node_unschedulable.h
//
// NodeUnschedulable (kube-scheduler 1.32, plugins/nodeunschedulable): rejects nodes with
// spec.unschedulable unless the pod tolerates the node.kubernetes.io/unschedulable:NoSchedule
// taint.
#pragma once

#include "scheduler/framework/plugin.h"

namespace tidepool::scheduler::plugins {

class NodeUnschedulable final : public FilterPlugin, public EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "NodeUnschedulable";
  static constexpr const char* kErrReasonUnschedulable = "node(s) were unschedulable";

  std::string_view Name() const override { return kName; }
  NodeScope FilterScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kClass;
  }
  PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                      const NodeInfo& node) const override;
  // Node/Add | UpdateNodeTaint: kQueue for a schedulable node that is new or was
  // unschedulable. Pod/UpdatePodToleration of the pod itself: kQueue when it now tolerates
  // node.kubernetes.io/unschedulable:NoSchedule.
  std::optional<QueueingHint> Hint(const ClusterEvent& event, const PodInfo& pod) const override;
};

}  // namespace tidepool::scheduler::plugins
