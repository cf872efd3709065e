// File: balanced_allocation_test.cc
//
// Tests for NodeResourcesBalancedAllocation against kube-scheduler 1.32
// (noderesources/balanced_allocation.go): for resources with a non-zero allocatable, fraction =
// requested / allocatable capped at 1; with two fractions std = |f1 - f2| / 2, with more the
// population standard deviation, otherwise 0; score = int64((1 - std) * 100). Requests are the
// actual ones (no 100m / 200Mi defaults), and in 1.32 best-effort pods are scored, not skipped.
#include "scheduler/plugins/node_resources/balanced_allocation.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "scheduler/snapshot/cluster_snapshot.h"
#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;
using ::tidepool::testing::NodeBuilder;

constexpr int64_t kGi = 1024LL * 1024 * 1024;

TEST(BalancedAllocationTest, BalancedResourceScore) {
  struct Case {
    std::string name;
    std::vector<int64_t> requested;
    std::vector<int64_t> allocatable;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"equal fractions are perfectly balanced", {2000, 4 * kGi}, {4000, 8 * kGi}, 100},
      {"an empty node is balanced", {0, 0}, {4000, 8 * kGi}, 100},
      // f = 0.25, 0.125: std = 0.0625, (1 - 0.0625) * 100 = 93.75.
      {"two resources: |f1 - f2| / 2", {1000, 1 * kGi}, {4000, 8 * kGi}, 93},
      // f = 1, 0: std = 0.5.
      {"one full and one empty resource", {4000, 0}, {4000, 8 * kGi}, 50},
      // f = 2 capped to 1, 0.5: std = 0.25 (uncapped it would be 0.75, score 25).
      {"a fraction above 1 is capped", {8000, 4 * kGi}, {4000, 8 * kGi}, 75},
      {"both fractions above 1 are capped to 1", {8000, 16 * kGi}, {4000, 8 * kGi}, 100},
      // f = 0.2, 0.5, 0.8: mean 0.5, variance 0.06, std 0.2449: 75.5.
      {"three resources: the standard deviation", {2, 5, 8}, {10, 10, 10}, 75},
      // f = 0, 0, 1: mean 1/3, variance 2/9, std 0.4714: 52.9.
      {"three resources with one full", {0, 0, 8}, {4000, 8 * kGi, 8}, 52},
      // The middle resource has no allocatable: two fractions 0.25 and 0.125 remain.
      {"a resource without allocatable is left out", {1000, 3, 1 * kGi}, {4000, 0, 8 * kGi}, 93},
      {"a single fraction has no deviation", {1000, 0}, {4000, 0}, 100},
      {"no fractions at all", {5, 5}, {0, 0}, 100},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(BalancedResourceScore(tc.requested, tc.allocatable), tc.want);
  }
}

class OneNodeCluster {
 public:
  OneNodeCluster(const NodeBuilder& node, const std::vector<api::Pod>& pods) {
    api::NodeConstSharedPtr n = node.Ptr();
    name_ = n->Name();
    EXPECT_TRUE(snapshot_.AddNode(n).ok());
    for (const api::Pod& p : pods) {
      Status s = snapshot_.AddPod(MakePodInfo(std::make_shared<const api::Pod>(p)), name_);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
  }
  const NodeInfo& node() const { return *snapshot_.GetNodeInfo(name_); }

 private:
  ClusterSnapshot snapshot_;
  std::string name_;
};

TEST(BalancedAllocationTest, Score) {
  struct Case {
    std::string name;
    api::Pod pod;
    NodeBuilder node;
    std::vector<api::Pod> existing;
    BalancedAllocationArgs args;
    int64_t want;
  };
  BalancedAllocationArgs with_gpu;
  with_gpu.resources = {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}};
  const NodeBuilder node = MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}});
  const NodeBuilder small = MakeNode("n1").Capacity({{"cpu", "1"}, {"memory", "1Gi"}});
  const NodeBuilder gpu_node =
      MakeNode("n1").Capacity({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "8"}});
  const std::vector<Case> cases = {
      {"a best-effort pod on an empty node is scored, not skipped",
       MakePod("p").Obj(),
       node,
       {},
       {},
       100},
      // 0.25 and 0.125.
      {"the pod's requests",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(),
       node,
       {},
       {},
       93},
      // cpu (1 + 1) / 4 = 0.5, memory (3 + 1) / 8 = 0.5.
      {"the node's requested resources count",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(),
       node,
       {MakePod("e").Container({{"cpu", "1"}, {"memory", "3Gi"}}).Obj()},
       {},
       100},
      // Actual requests: 0.5 and 0.5. With the non-zero defaults it would be 0.6 and 0.695
      // (score 95).
      {"pods without requests add nothing (no 100m / 200Mi defaults)",
       MakePod("p").Container({{"cpu", "500m"}, {"memory", "512Mi"}}).Obj(),
       small,
       {MakePod("e").Obj()},
       {},
       100},
      // cpu 6 / 4 capped at 1, memory 4 / 8 = 0.5.
      {"an over-requested node caps the fraction",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "2Gi"}}).Obj(),
       node,
       {MakePod("e").Container({{"cpu", "4"}, {"memory", "2Gi"}}).Obj()},
       {},
       75},
      // cpu 0.5, memory 0.5, gpu 6 / 8 = 0.75: std 0.1179, 88.2.
      {"three resources when the pod requests a GPU",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "2"}}).Obj(),
       gpu_node,
       {MakePod("e").Container({{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "4"}}).Obj()},
       with_gpu,
       88},
      // cpu 0.5, memory 0.5; the node's 6 used GPUs are not looked at.
      {"a GPU the pod does not request is left out",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "8Gi"}}).Obj(),
       gpu_node,
       {MakePod("e").Container({{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "6"}}).Obj()},
       with_gpu,
       100},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    BalancedAllocation plugin(tc.args);
    OneNodeCluster cluster(tc.node, tc.existing);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    ASSERT_TRUE(plugin.PreScore(state, *pod).IsSuccess());
    EXPECT_EQ(plugin.ScoreScope(state, *pod), NodeScope::kUsage);
    EXPECT_EQ(plugin.Score(state, *pod, cluster.node()), tc.want);
    CycleState empty;
    EXPECT_EQ(plugin.Score(empty, *pod, cluster.node()), tc.want);
  }
}

TEST(BalancedAllocationTest, NoNormalizeScore) {
  BalancedAllocation plugin{BalancedAllocationArgs{}};
  CycleState state;
  std::vector<int64_t> scores = {40, 93};
  plugin.NormalizeScore(state, *MakePodInfo(MakePod("p").Ptr()), scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{40, 93}));
  EXPECT_EQ(plugin.Name(), "NodeResourcesBalancedAllocation");
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
