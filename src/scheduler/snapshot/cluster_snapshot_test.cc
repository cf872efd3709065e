#include "scheduler/snapshot/cluster_snapshot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;

api::NodeConstSharedPtr GpuNode(const std::string& name, const std::string& gpus = "1") {
  return MakeNode(name)
      .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", gpus}})
      .Label("cloud.google.com/gke-nodepool", "gpu-pool")
      .Taint("nvidia.com/gpu", "present")
      .Ptr();
}

api::NodeConstSharedPtr CpuNode(const std::string& name) {
  return MakeNode(name)
      .Capacity({{"cpu", "4"}, {"memory", "15Gi"}})
      .Label("cloud.google.com/gke-nodepool", "default-pool")
      .Ptr();
}

PodInfoConstSharedPtr Pod(const std::string& name, const std::string& cpu = "1") {
  return MakePodInfo(MakePod(name).Req("cpu", cpu).Req("memory", "1Gi").Ptr());
}

// Everything observable about a snapshot, for before/after comparisons.
std::string Dump(const ClusterSnapshot& s) {
  std::string out = std::to_string(s.NumNodes()) + " nodes, " + std::to_string(s.NumPods()) +
                    " pods, " + std::to_string(s.NumClasses()) + " classes\n";
  s.ForEachNodeByName([&](const NodeInfo& n) {
    out += n.name() + " [" + n.requested().DebugString() + "]:";
    for (const auto& p : n.pods()) {
      out += " " + p->Key();
    }
    out += "\n";
  });
  s.ForEachClass([&](const NodeClass& c) {
    out += "class " + std::to_string(c.id()) + " size " + std::to_string(c.size()) + " buckets " +
           std::to_string(c.buckets().size()) + "\n";
  });
  return out;
}

TEST(ClusterSnapshotTest, AddsNodesAndPodsAndAccountsRequests) {
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(CpuNode("cpu-1")).ok());
  ASSERT_TRUE(s.AddNode(GpuNode("gpu-1")).ok());
  EXPECT_EQ(s.AddNode(CpuNode("cpu-1")).code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(s.AddPod(Pod("a", "500m"), "cpu-1").ok());
  ASSERT_TRUE(s.AddPod(Pod("b", "1"), "cpu-1").ok());
  EXPECT_EQ(s.AddPod(Pod("c"), "missing").code(), StatusCode::kNotFound);
  const NodeInfo* n = s.GetNodeInfo("cpu-1");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->requested().milli_cpu, 1500);
  EXPECT_EQ(n->requested().memory, 2LL << 30);
  EXPECT_EQ(n->pods().size(), 2u);
  EXPECT_EQ(s.NumPods(), 2u);
  ASSERT_TRUE(s.RemovePod("default/a", "cpu-1").ok());
  EXPECT_EQ(s.RemovePod("default/a", "cpu-1").code(), StatusCode::kNotFound);
  EXPECT_EQ(n->requested().milli_cpu, 1000);
  EXPECT_EQ(s.NumPods(), 1u);
}

TEST(ClusterSnapshotTest, GroupsIdenticalNodesIntoOneClassWhateverTheirHostname) {
  ClusterSnapshot s;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(s.AddNode(GpuNode("gpu-" + std::to_string(i))).ok());
  }
  ASSERT_TRUE(s.AddNode(CpuNode("cpu-0")).ok());
  ASSERT_TRUE(s.AddNode(GpuNode("gpu8-0", "8")).ok());  // other allocatable: other class
  EXPECT_EQ(s.NumClasses(), 3u);
  // Empty identical nodes share one bucket; a pod moves its node to another bucket.
  const NodeClass& gpu_class = s.ClassOf(s.IdOf(*s.GetNodeInfo("gpu-0")));
  EXPECT_EQ(gpu_class.size(), 5u);
  EXPECT_EQ(gpu_class.buckets().size(), 1u);
  ASSERT_TRUE(s.AddPod(Pod("p"), "gpu-3").ok());
  EXPECT_EQ(gpu_class.buckets().size(), 2u);
  ASSERT_TRUE(s.RemovePod("default/p", "gpu-3").ok());
  EXPECT_EQ(gpu_class.buckets().size(), 1u);
}

TEST(ClusterSnapshotTest, BucketsListNodesInNameOrder) {
  ClusterSnapshot s;
  for (const char* name : {"n-c", "n-a", "n-b"}) {
    ASSERT_TRUE(s.AddNode(CpuNode(name)).ok());
  }
  const NodeClass& c = s.ClassOf(s.IdOf(*s.GetNodeInfo("n-a")));
  ASSERT_EQ(c.buckets().size(), 1u);
  std::vector<std::string> names;
  for (NodeId id : c.buckets().begin()->second.members) {
    names.push_back(s.node_info(id).name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"n-a", "n-b", "n-c"}));
}

TEST(ClusterSnapshotTest, RevertUndoesEveryKindOfChange) {
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(CpuNode("cpu-1")).ok());
  ASSERT_TRUE(s.AddNode(CpuNode("cpu-2")).ok());
  ASSERT_TRUE(s.AddNode(GpuNode("gpu-1")).ok());
  ASSERT_TRUE(s.AddPod(Pod("a"), "cpu-1").ok());
  ASSERT_TRUE(s.AddPod(Pod("b"), "cpu-1").ok());
  ASSERT_TRUE(s.AddPod(Pod("c"), "cpu-1").ok());
  const std::string before = Dump(s);

  s.Fork();
  ASSERT_TRUE(s.AddPod(Pod("d"), "cpu-2").ok());
  ASSERT_TRUE(s.RemovePod("default/a", "cpu-1").ok());  // moves "c" into a's place
  ASSERT_TRUE(s.AddNode(GpuNode("gpu-2")).ok());
  ASSERT_TRUE(s.AddPod(Pod("e"), "gpu-2").ok());
  ASSERT_TRUE(s.RemoveNode("cpu-1").ok());
  ASSERT_TRUE(s.AddNode(CpuNode("cpu-3")).ok());  // may reuse cpu-1's slot
  ASSERT_TRUE(s.UpdateNode(MakeNode("cpu-2").Capacity({{"cpu", "8"}}).Unschedulable().Ptr()).ok());
  EXPECT_NE(Dump(s), before);
  s.Revert();

  EXPECT_EQ(Dump(s), before);
  // Pod order on the node is restored exactly.
  const NodeInfo* n = s.GetNodeInfo("cpu-1");
  ASSERT_NE(n, nullptr);
  ASSERT_EQ(n->pods().size(), 3u);
  EXPECT_EQ(n->pods()[0]->name(), "a");
  EXPECT_EQ(n->pods()[2]->name(), "c");
  EXPECT_EQ(s.fork_depth(), 0);
}

TEST(ClusterSnapshotTest, CommitKeepsChangesAndNestedForksRevertToTheirOwnPoint) {
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(CpuNode("cpu-1")).ok());
  const std::string base = Dump(s);
  s.Fork();
  ASSERT_TRUE(s.AddPod(Pod("a"), "cpu-1").ok());
  const std::string after_a = Dump(s);
  s.Fork();
  ASSERT_TRUE(s.AddPod(Pod("b"), "cpu-1").ok());
  s.Fork();
  ASSERT_TRUE(s.AddPod(Pod("c"), "cpu-1").ok());
  s.Commit();  // c merges into the fork that added b
  EXPECT_EQ(s.fork_depth(), 2);
  s.Revert();  // undoes b and c
  EXPECT_EQ(Dump(s), after_a);
  s.Revert();
  EXPECT_EQ(Dump(s), base);

  s.Fork();
  ASSERT_TRUE(s.AddPod(Pod("kept"), "cpu-1").ok());
  s.Commit();
  EXPECT_EQ(s.fork_depth(), 0);
  EXPECT_EQ(s.GetNodeInfo("cpu-1")->pods().size(), 1u);
}

TEST(ClusterSnapshotTest, TracksLowerPriorityPods) {
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(CpuNode("cpu-1")).ok());
  EXPECT_FALSE(s.HasPodWithPriorityBelow(0));
  ASSERT_TRUE(
      s.AddPod(MakePodInfo(MakePod("low").Priority(-5).Req("cpu", "1").Ptr()), "cpu-1").ok());
  EXPECT_TRUE(s.HasPodWithPriorityBelow(0));
  EXPECT_FALSE(s.HasPodWithPriorityBelow(-5));
  EXPECT_TRUE(s.GetNodeInfo("cpu-1")->HasPodWithPriorityBelow(0));
  s.Fork();
  ASSERT_TRUE(s.RemoveNode("cpu-1").ok());
  EXPECT_FALSE(s.HasPodWithPriorityBelow(0));
  s.Revert();
  EXPECT_TRUE(s.HasPodWithPriorityBelow(0));
}

TEST(ClusterSnapshotDeathTest, RevertWithoutForkIsAProgrammingError) {
  ClusterSnapshot s;
  EXPECT_DEATH(s.Revert(), "check failed");
}

}  // namespace
}  // namespace tidepool::scheduler
