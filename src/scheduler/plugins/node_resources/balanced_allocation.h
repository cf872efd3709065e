// File: balanced_allocation.h
//
// NodeResourcesBalancedAllocation (kube-scheduler 1.32, noderesources/balanced_allocation.go):
// favours nodes whose resource fractions (requested/allocatable, capped at 1, with the pod)
// are even: score = (1 - standard deviation of the fractions) * 100. With two resources the
// deviation is |f1 - f2| / 2. Uses actual requests (not the non-zero defaults).
#pragma once

#include "scheduler/framework/plugin.h"
#include "scheduler/framework/plugin_args.h"

namespace tidepool::scheduler::plugins {

int64_t BalancedResourceScore(const std::vector<int64_t>& requested,
                              const std::vector<int64_t>& allocatable);

class BalancedAllocation final : public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr std::string_view kName = "NodeResourcesBalancedAllocation";

  explicit BalancedAllocation(BalancedAllocationArgs args) : args_(std::move(args)) {}

  std::string_view Name() const override { return kName; }
  PluginStatus PreScore(CycleState& state, const PodInfo& pod) const override;
  NodeScope ScoreScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kUsage;
  }
  int64_t Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;

 private:
  BalancedAllocationArgs args_;
};

}  // namespace tidepool::scheduler::plugins
