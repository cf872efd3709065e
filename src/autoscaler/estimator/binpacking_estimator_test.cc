#include "autoscaler/estimator/binpacking_estimator.h"

#include <gtest/gtest.h>

#include "scheduler/scheduler.h"
#include "testing/builders.h"

namespace tidepool::autoscaler {
namespace {

using testing::MakeNode;
using testing::MakePod;

api::Node GpuTemplate(const std::string& gpus, const std::string& cpu, const std::string& mem) {
  return MakeNode("template")
      .Capacity({{"cpu", cpu}, {"memory", mem}, {"nvidia.com/gpu", gpus}})
      .Label("cloud.google.com/gke-nodepool", "gpu-pool")
      .Taint("nvidia.com/gpu", "present")
      .Obj();
}

std::vector<PodEquivalenceGroup> Pods(int n, const std::string& gpus, const std::string& cpu,
                                      bool tolerate = true, const std::string& owner = "rs") {
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  for (int i = 0; i < n; ++i) {
    auto b = MakePod(owner + "-" + std::to_string(i)).OwnedBy("ReplicaSet", owner).Req("cpu", cpu);
    if (gpus != "0") {
      b.Req("nvidia.com/gpu", gpus);
    }
    if (tolerate) {
      b.TolerationExists("nvidia.com/gpu", api::TaintEffect::kNoSchedule);
    }
    pods.push_back(scheduler::MakePodInfo(b.Ptr()));
  }
  return BuildPodEquivalenceGroups(pods);
}

TEST(BinpackingEstimatorTest, CountsNodesLikeFirstFitDecreasing) {
  auto sched = scheduler::Scheduler::Create();
  ASSERT_TRUE(sched.ok());
  BinpackingEstimator est((*sched)->framework());
  struct Case {
    std::string name;
    std::vector<PodEquivalenceGroup> groups;
    api::Node tmpl;
    int limit;
    int want_nodes;
    size_t want_pods;
    bool want_capped;
  };
  auto mixed = Pods(5, "1", "1", true, "one");
  auto two = Pods(3, "2", "1", true, "two");
  mixed.insert(mixed.end(), two.begin(), two.end());
  std::vector<Case> cases = {
      {"1-GPU pods on 1-GPU nodes need one node each", Pods(10, "1", "500m"),
       GpuTemplate("1", "4", "15Gi"), 1000, 10, 10, false},
      {"1-GPU pods on 4-GPU nodes pack four to a node", Pods(10, "1", "500m"),
       GpuTemplate("4", "48", "180Gi"), 1000, 3, 10, false},
      {"cpu can bind before GPUs do", Pods(8, "1", "20"), GpuTemplate("4", "48", "180Gi"), 1000, 4,
       8, false},
      {"pods that do not tolerate the taint need no node", Pods(3, "1", "1", false),
       GpuTemplate("1", "4", "15Gi"), 1000, 0, 0, false},
      {"a pod bigger than a node needs no node", Pods(2, "8", "1"), GpuTemplate("4", "48", "180Gi"),
       1000, 0, 0, false},
      {"the limiter caps the node count", Pods(10, "1", "500m"), GpuTemplate("1", "4", "15Gi"), 5,
       5, 5, true},
      {"a later group fills the space an earlier one left", mixed, GpuTemplate("4", "48", "180Gi"),
       1000, 3, 8, false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    scheduler::ClusterSnapshot snapshot;
    ASSERT_TRUE(snapshot.AddNode(MakeNode("existing").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Ptr()).ok());
    EstimateResult r = est.Estimate(tc.groups, tc.tmpl, "gpu-pool", tc.limit, snapshot);
    EXPECT_EQ(r.node_count, tc.want_nodes);
    EXPECT_EQ(r.scheduled.size(), tc.want_pods);
    EXPECT_EQ(r.capped, tc.want_capped);
    // The shared snapshot is unchanged.
    EXPECT_EQ(snapshot.NumNodes(), 1u);
    EXPECT_EQ(snapshot.NumPods(), 0u);
    EXPECT_EQ(snapshot.fork_depth(), 0);
  }
}

TEST(BinpackingEstimatorTest, ReplicatedNodesMatchPodByPodPacking) {
  // 1,000 pods of 3 GPUs on 8-GPU nodes: 2 per node by GPUs -> 500 nodes; checked against the
  // arithmetic a pod-by-pod first fit gives.
  auto sched = scheduler::Scheduler::Create();
  BinpackingEstimator est((*sched)->framework());
  scheduler::ClusterSnapshot snapshot;
  EstimateResult r = est.Estimate(Pods(1001, "3", "1"), GpuTemplate("8", "96", "680Gi"), "a100",
                                  100000, snapshot);
  EXPECT_EQ(r.node_count, 501);
  EXPECT_EQ(r.scheduled.size(), 1001u);
}

}  // namespace
}  // namespace tidepool::autoscaler
