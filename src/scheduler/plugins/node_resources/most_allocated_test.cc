// File: most_allocated_test.cc
//
// Tests for MostAllocated against kube-scheduler 1.32 (noderesources/most_allocated.go):
// per resource (min(requested, capacity) * 100) / capacity, 0 when capacity is 0; the node
// score is the weighted mean over resources with a non-zero allocatable, int64 division.
#include "scheduler/plugins/node_resources/most_allocated.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool::scheduler::plugins {
namespace {

constexpr int64_t kGi = 1024LL * 1024 * 1024;

TEST(MostAllocatedTest, MostRequestedScore) {
  struct Case {
    std::string name;
    int64_t requested;
    int64_t capacity;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"nothing requested", 0, 4000, 0},
      {"half requested", 2000, 4000, 50},
      {"fully requested", 4000, 4000, 100},
      {"over-requested counts as full", 5000, 4000, 100},
      {"no capacity scores 0", 0, 0, 0},
      {"no capacity with a request scores 0", 100, 0, 0},
      {"the division truncates (33.3)", 1, 3, 33},
      {"the division truncates (66.6)", 2, 3, 66},
      {"the non-zero cpu default on a 4-core node", 100, 4000, 2},
      {"large byte counts do not overflow", 1023 * kGi, 1024 * kGi, 99},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(MostRequestedScore(tc.requested, tc.capacity), tc.want);
  }
}

TEST(MostAllocatedTest, WeightedScore) {
  struct Case {
    std::string name;
    std::vector<ResourceSpec> resources;
    std::vector<int64_t> requested;
    std::vector<int64_t> allocatable;
    int64_t want;
  };
  const std::vector<ResourceSpec> cpu_mem = {{"cpu", 1}, {"memory", 1}};
  const std::vector<Case> cases = {
      {"an empty node", cpu_mem, {0, 0}, {4000, 8 * kGi}, 0},
      {"a full node", cpu_mem, {4000, 8 * kGi}, {4000, 8 * kGi}, 100},
      // cpu 25, memory 12 (12.5): 37 / 2 = 18.
      {"the mean of the per-resource scores truncates",
       cpu_mem,
       {1000, 1 * kGi},
       {4000, 8 * kGi},
       18},
      // cpu 75 (weight 1), memory 25 (weight 2): 125 / 3 = 41.
      {"weights", {{"cpu", 1}, {"memory", 2}}, {3000, 2 * kGi}, {4000, 8 * kGi}, 41},
      // cpu over-requested 100 (weight 1), memory 50 (weight 3): 250 / 4 = 62.
      {"an over-requested resource with weights",
       {{"cpu", 1}, {"memory", 3}},
       {5000, 4 * kGi},
       {4000, 8 * kGi},
       62},
      {"a resource with no allocatable is left out with its weight",
       {{"cpu", 1}, {"nvidia.com/gpu", 5}},
       {2000, 0},
       {4000, 0},
       50},
      // cpu 50, memory 50, gpu 6 of 8 -> 75 (weight 2): (50 + 50 + 150) / 4 = 62.
      {"three resources",
       {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 2}},
       {2000, 4 * kGi, 6},
       {4000, 8 * kGi, 8},
       62},
      {"no resource has allocatable", cpu_mem, {100, 100}, {0, 0}, 0},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(MostAllocatedScore(tc.resources, tc.requested, tc.allocatable), tc.want);
  }
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
