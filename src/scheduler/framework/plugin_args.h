// File: plugin_args.h
//
// Plugin arguments, with kube-scheduler 1.32's defaults (pkg/scheduler/apis/config/v1/
// defaults.go): NodeResourcesFit scores with LeastAllocated over cpu and memory, weight 1 each;
// BalancedAllocation balances cpu and memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tidepool::scheduler {

struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
};

enum class ScoringStrategy { kLeastAllocated, kMostAllocated };

struct NodeResourcesFitArgs {
  ScoringStrategy strategy = ScoringStrategy::kLeastAllocated;
  std::vector<ResourceSpec> resources = {{"cpu", 1}, {"memory", 1}};
  // Extended resources the Filter ignores (ignoredResources).
  std::vector<std::string> ignored_resources;
};

struct BalancedAllocationArgs {
  std::vector<ResourceSpec> resources = {{"cpu", 1}, {"memory", 1}};
};

struct PluginArgs {
  NodeResourcesFitArgs node_resources_fit;
  BalancedAllocationArgs balanced_allocation;
};

}  // namespace tidepool::scheduler
