// File: fit.h
//
// NodeResourcesFit (kube-scheduler 1.32, noderesources/fit.go).
//   Filter: the node must have room for the pod: "Too many pods" when the pod count would
//     exceed allocatable pods; then "Insufficient cpu", "Insufficient memory",
//     "Insufficient ephemeral-storage" and "Insufficient <name>" for every scalar resource
//     (nvidia.com/gpu, hugepages) the pod requests beyond what is free, including one the node
//     does not have at all. Every shortfall is a reason; the status is Unschedulable (preemption
//     may help).
//   Score: the configured strategy (LeastAllocated by default, or MostAllocated) over the
//     configured resources.
#pragma once

#include <string>
#include <vector>

#include "scheduler/framework/plugin.h"
#include "scheduler/framework/plugin_args.h"

namespace tidepool::scheduler::plugins {

// One resource the node lacks for the pod (noderesources.InsufficientResource).
struct InsufficientResource {
  std::string resource_name;
  std::string reason;
  int64_t requested = 0;
  int64_t used = 0;
  int64_t capacity = 0;
};

// fitsRequest: what `node` lacks to take a pod requesting `request`. Empty if it fits.
std::vector<InsufficientResource> FitsRequest(const Resource& request, const NodeInfo& node,
                                              const std::vector<std::string>& ignored);
// FitsRequest(...).empty(), without building the list.
bool RequestFits(const Resource& request, const NodeInfo& node,
                 const std::vector<std::string>& ignored);

class Fit final : public PreFilterPlugin,
                  public FilterPlugin,
                  public PreScorePlugin,
                  public ScorePlugin,
                  public EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "NodeResourcesFit";

  explicit Fit(NodeResourcesFitArgs args) : args_(std::move(args)) {}

  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod,
                         PreFilterResult& result) const override;
  // Node/Add | UpdateNodeAllocatable (1.32's registration with hints on): kQueue when the
  // pod's request fits the node's allocatable (as if it ran nothing) and the node is new or
  // has more of a resource the pod requests (isSchedulableAfterNodeChange). A pod bound to a
  // node that was deleted or finished: kQueue (isSchedulableAfterPodEvent).
  std::optional<QueueingHint> Hint(const ClusterEvent& event, const PodInfo& pod) const override;
  NodeScope FilterScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kUsage;
  }
  PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                      const NodeInfo& node) const override;
  bool HasFits() const override { return true; }
  bool Fits(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override {
    return RequestFits(pod.request(), node, args_.ignored_resources);
  }
  PluginStatus PreScore(CycleState& state, const PodInfo& pod) const override;
  NodeScope ScoreScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kUsage;
  }
  int64_t Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;

 private:
  NodeResourcesFitArgs args_;
};

}  // namespace tidepool::scheduler::plugins
