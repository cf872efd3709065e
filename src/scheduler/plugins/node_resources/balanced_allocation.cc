#include "scheduler/plugins/node_resources/balanced_allocation.h"

#include <cmath>

#include "scheduler/plugins/node_resources/resource_allocation.h"

namespace tidepool::scheduler::plugins {
int64_t BalancedResourceScore(const std::vector<int64_t>& requested,
                              const std::vector<int64_t>& allocatable) {
  std::vector<double> fractions;
  double total = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) {
      continue;
    }
    double f = static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    if (f > 1) {
      f = 1;
    }
    total += f;
    fractions.push_back(f);
  }
  double std_dev = 0;
  if (fractions.size() == 2) {
    std_dev = std::abs((fractions[0] - fractions[1]) / 2);
  } else if (fractions.size() > 2) {
    double mean = total / static_cast<double>(fractions.size());
    double sum = 0;
    for (double f : fractions) {
      sum += (f - mean) * (f - mean);
    }
    std_dev = std::sqrt(sum / static_cast<double>(fractions.size()));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

PluginStatus BalancedAllocation::PreScore(CycleState& state, const PodInfo& pod) const {
  StorePodRequestList<BalancedAllocation>(state, pod, args_.resources, /*use_requested=*/true);
  return PluginStatus::Success();
}

int64_t BalancedAllocation::Score(const CycleState& state, const PodInfo& pod,
                                  const NodeInfo& node) const {
  AllocationVectors v =
      AllocationForScore<BalancedAllocation>(state, pod, node, args_.resources, true);
  return BalancedResourceScore(v.requested, v.allocatable);
}

}  // namespace tidepool::scheduler::plugins
