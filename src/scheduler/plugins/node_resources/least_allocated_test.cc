// File: least_allocated_test.cc
//
// Tests for LeastAllocated against kube-scheduler 1.32 (noderesources/least_allocated.go):
// per resource ((capacity - requested) * 100) / capacity, 0 when capacity is 0 or the resource
// is over-requested; the node score is the weighted mean over resources with a non-zero
// allocatable, int64 division throughout.
#include "scheduler/plugins/node_resources/least_allocated.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool::scheduler::plugins {
namespace {

constexpr int64_t kGi = 1024LL * 1024 * 1024;

TEST(LeastAllocatedTest, LeastRequestedScore) {
  struct Case {
    std::string name;
    int64_t requested;
    int64_t capacity;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"nothing requested", 0, 4000, 100},
      {"half requested", 2000, 4000, 50},
      {"fully requested", 4000, 4000, 0},
      {"over-requested scores 0", 5000, 4000, 0},
      {"no capacity scores 0", 0, 0, 0},
      {"no capacity with a request scores 0", 100, 0, 0},
      {"the division truncates (66.6)", 1, 3, 66},
      {"the division truncates (33.3)", 2, 3, 33},
      {"the non-zero cpu default on a 4-core node", 100, 4000, 97},
      {"large byte counts do not overflow", 3 * kGi, 1024 * kGi, 99},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(LeastRequestedScore(tc.requested, tc.capacity), tc.want);
  }
}

TEST(LeastAllocatedTest, WeightedScore) {
  struct Case {
    std::string name;
    std::vector<ResourceSpec> resources;
    std::vector<int64_t> requested;
    std::vector<int64_t> allocatable;
    int64_t want;
  };
  const std::vector<ResourceSpec> cpu_mem = {{"cpu", 1}, {"memory", 1}};
  const std::vector<Case> cases = {
      {"an empty node", cpu_mem, {0, 0}, {4000, 8 * kGi}, 100},
      // cpu 75, memory 87 (87.5): 162 / 2 = 81.
      {"the mean of the per-resource scores truncates",
       cpu_mem,
       {1000, 1 * kGi},
       {4000, 8 * kGi},
       81},
      // cpu 25 (weight 1), memory 75 (weight 2): 175 / 3 = 58.
      {"weights", {{"cpu", 1}, {"memory", 2}}, {3000, 2 * kGi}, {4000, 8 * kGi}, 58},
      // cpu over-requested 0 (weight 1), memory 50 (weight 3): 150 / 4 = 37.
      {"an over-requested resource with weights",
       {{"cpu", 1}, {"memory", 3}},
       {5000, 4 * kGi},
       {4000, 8 * kGi},
       37},
      {"every resource over-requested", cpu_mem, {5000, 9 * kGi}, {4000, 8 * kGi}, 0},
      // The GPU's allocatable is 0 (left out): only cpu 50 counts, its weight alone.
      {"a resource with no allocatable is left out with its weight",
       {{"cpu", 1}, {"nvidia.com/gpu", 5}},
       {2000, 0},
       {4000, 0},
       50},
      // cpu 50, memory 50, gpu 8-6 of 8 -> 25 (weight 2): (50 + 50 + 50) / 4 = 37.
      {"three resources",
       {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 2}},
       {2000, 4 * kGi, 6},
       {4000, 8 * kGi, 8},
       37},
      {"no resource has allocatable", cpu_mem, {100, 100}, {0, 0}, 0},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(LeastAllocatedScore(tc.resources, tc.requested, tc.allocatable), tc.want);
  }
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
