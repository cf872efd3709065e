#include "scheduler/snapshot/cluster_snapshot.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <set>
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
    out += n.name() + " uid=" + std::string(n.uid()) + " unsched=" +
           (n.unschedulable() ? "1" : "0") + " taints=" + std::to_string(n.taints().size()) +
           " labels={";
    for (const auto& [k, v] : n.AllLabels()) {
      out += k + "=" + v + ",";
    }
    out += "} [" + n.requested().DebugString() + "]:";
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

TEST(ClusterSnapshotTest, FindsNodesByNameAndListsThemInNameOrder) {
  ClusterSnapshot s;
  for (const char* name : {"n-c", "n-a", "gpu-1", "n-b"}) {
    ASSERT_TRUE(s.AddNode(std::string(name) == "gpu-1" ? GpuNode(name) : CpuNode(name)).ok());
  }
  const NodeId c = *s.FindNode("n-c");
  ASSERT_TRUE(s.RemoveNode("n-c").ok());
  for (const char* name : {"n-a", "n-b", "gpu-1"}) {
    std::optional<NodeId> id = s.FindNode(name);
    ASSERT_TRUE(id.has_value()) << name;
    EXPECT_EQ(s.node_info(*id).name(), name);
    EXPECT_EQ(*id, s.IdOf(s.node_info(*id)));
  }
  EXPECT_FALSE(s.FindNode("n-c").has_value());
  EXPECT_FALSE(s.FindNode("n").has_value());
  // With a hint: right, another node's, a freed slot (n-c's), out of range.
  const NodeId a = *s.FindNode("n-a");
  const NodeId b = *s.FindNode("n-b");
  EXPECT_EQ(s.FindNode("n-a", a), a);
  EXPECT_EQ(s.FindNode("n-a", b), a);
  EXPECT_EQ(s.FindNode("n-b", c), b);  // n-c's slot, free since its removal
  EXPECT_EQ(s.FindNode("n-b", 1000), b);
  EXPECT_FALSE(s.FindNode("n-c", c).has_value());
  std::vector<std::string> names;
  s.ForEachNodeByName([&](const NodeInfo& n) { names.push_back(n.name()); });
  EXPECT_EQ(names, (std::vector<std::string>{"gpu-1", "n-a", "n-b"}));
}

TEST(ClusterSnapshotTest, CountsDeletingAndFinishedPodsThroughForks) {
  auto with = [](api::Pod p) { return MakePodInfo(std::make_shared<const api::Pod>(p)); };
  api::Pod deleting = MakePod("deleting").Req("cpu", "1").Obj();
  deleting.meta.deletion_timestamp = TimePoint{};
  api::Pod failed = MakePod("failed").Req("cpu", "1").Obj();
  failed.status.phase = api::PodPhase::kFailed;
  api::Pod succeeded = MakePod("succeeded").Req("cpu", "1").Obj();
  succeeded.status.phase = api::PodPhase::kSucceeded;
  api::Pod running = MakePod("running").Req("cpu", "1").Obj();
  running.status.phase = api::PodPhase::kRunning;

  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(CpuNode("n")).ok());
  auto count = [&] { return s.GetNodeInfo("n")->num_deleting_or_finished_pods(); };
  ASSERT_TRUE(s.AddPod(with(running), "n").ok());
  EXPECT_EQ(count(), 0);
  ASSERT_TRUE(s.AddPod(with(deleting), "n").ok());
  ASSERT_TRUE(s.AddPod(with(failed), "n").ok());
  EXPECT_EQ(count(), 2);
  s.Fork();
  ASSERT_TRUE(s.AddPod(with(succeeded), "n").ok());
  EXPECT_EQ(count(), 3);
  ASSERT_TRUE(s.RemovePod("default/deleting", "n").ok());
  ASSERT_TRUE(s.RemovePod("default/failed", "n").ok());
  EXPECT_EQ(count(), 1);
  s.Revert();
  EXPECT_EQ(count(), 2);
  ASSERT_TRUE(s.RemovePod("default/deleting", "n").ok());
  ASSERT_TRUE(s.RemovePod("default/failed", "n").ok());
  EXPECT_EQ(count(), 0);
}

TEST(ClusterSnapshotTest, VersionNamesTheContent) {
  ClusterSnapshot s;
  ClusterSnapshot other;
  EXPECT_NE(s.version(), other.version());
  std::set<uint64_t> seen = {s.version(), other.version()};
  // Every change gives a version never seen before.
  auto changed = [&](const char* what) {
    SCOPED_TRACE(what);
    EXPECT_TRUE(seen.insert(s.version()).second);
  };
  ASSERT_TRUE(s.AddNode(CpuNode("a")).ok());
  changed("AddNode");
  ASSERT_TRUE(s.AddPod(Pod("p"), "a").ok());
  changed("AddPod");
  const uint64_t before_fork = s.version();
  s.Fork();
  EXPECT_EQ(s.version(), before_fork);  // forking changes nothing
  ASSERT_TRUE(s.AddNode(CpuNode("b")).ok());
  changed("AddNode in a fork");
  s.Fork();
  const uint64_t inner = s.version();
  ASSERT_TRUE(s.RemovePod("default/p", "a").ok());
  changed("RemovePod in a nested fork");
  s.Revert();
  EXPECT_EQ(s.version(), inner);
  ASSERT_TRUE(s.UpdateNode(MakeNode("b").Capacity({{"cpu", "8"}}).Ptr()).ok());
  changed("UpdateNode in a fork");
  s.Fork();
  ASSERT_TRUE(s.RemoveNode("b").ok());
  changed("RemoveNode in a nested fork");
  s.Commit();
  const uint64_t committed = s.version();
  s.Revert();
  EXPECT_EQ(s.version(), before_fork);  // the content of the Fork, its version
  EXPECT_NE(committed, before_fork);
  // The same change again is still a new version: equal versions mean equal content, not the
  // reverse.
  ASSERT_TRUE(s.AddNode(CpuNode("b")).ok());
  changed("AddNode after Revert");
  EXPECT_FALSE(s.AddNode(CpuNode("b")).ok());
  EXPECT_EQ(s.version(), *seen.rbegin());  // a failed change changes nothing
  s.Clear();
  changed("Clear");
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

// A GKE-like node of `pool`: the shape is shared by the pool's nodes, the identity is the node's.
api::Node PoolNode(const std::string& name, const std::string& pool) {
  api::Node n = MakeNode(name)
                    .Capacity({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "1"}})
                    .Label("cloud.google.com/gke-nodepool", pool)
                    .Label("topology.kubernetes.io/zone", "us-central1-a")
                    .Taint("nvidia.com/gpu", "present")
                    .Obj();
  n.meta.uid = "uid-" + name;
  n.meta.annotations["container.googleapis.com/instance_id"] = "id-" + name;
  n.spec.provider_id = "gce://p/us-central1-a/" + name;
  n.meta.creation_timestamp = TimePoint(std::chrono::seconds(1000));
  return n;
}

TEST(ClusterSnapshotTest, NodesOfAPoolShareAShapeAndKeepTheirIdentity) {
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(PoolNode("n1", "gpu")).ok());
  ASSERT_TRUE(s.AddNode(PoolNode("n2", "gpu")).ok());
  api::Node other = PoolNode("n3", "gpu");
  other.meta.labels["kubernetes.io/hostname"] = "custom-host";
  other.meta.deletion_timestamp = TimePoint(std::chrono::seconds(2000));
  ASSERT_TRUE(s.AddNode(other).ok());
  const NodeInfo& n1 = *s.GetNodeInfo("n1");
  const NodeInfo& n2 = *s.GetNodeInfo("n2");
  const NodeInfo& n3 = *s.GetNodeInfo("n3");
  EXPECT_EQ(n1.shape(), n2.shape());
  EXPECT_EQ(n1.shape(), n3.shape());
  EXPECT_EQ(s.NumClasses(), 1u);
  EXPECT_EQ(n2.name(), "n2");
  EXPECT_EQ(n2.uid(), "uid-n2");
  EXPECT_EQ(n2.provider_id(), "gce://p/us-central1-a/n2");
  EXPECT_EQ(n2.Label("kubernetes.io/hostname"), "n2");
  EXPECT_EQ(n3.Label("kubernetes.io/hostname"), "custom-host");
  EXPECT_EQ(n2.Label("cloud.google.com/gke-nodepool"), "gpu");
  EXPECT_EQ(n2.Label("missing"), std::nullopt);
  EXPECT_EQ(n2.creation_timestamp(), TimePoint(std::chrono::seconds(1000)));
  EXPECT_EQ(n2.deletion_timestamp(), std::nullopt);
  EXPECT_EQ(n3.deletion_timestamp(), TimePoint(std::chrono::seconds(2000)));
  EXPECT_TRUE(n2.ready());
  EXPECT_EQ(n2.labels_without_hostname().count("kubernetes.io/hostname"), 0u);
  EXPECT_EQ(n2.allocatable().Scalar("nvidia.com/gpu"), 1);
  EXPECT_EQ(n2.allocatable_quantities().at("memory").ToString(), "32Gi");
  // ToNode: what the snapshot keeps, with the node's own identity (no annotations).
  api::Node back = n3.ToNode();
  EXPECT_EQ(back.meta.name, "n3");
  EXPECT_EQ(back.meta.uid, "uid-n3");
  EXPECT_EQ(back.meta.labels, other.meta.labels);
  EXPECT_EQ(back.spec.taints, other.spec.taints);
  EXPECT_EQ(back.spec.provider_id, other.spec.provider_id);
  EXPECT_EQ(back.status.allocatable, other.status.allocatable);
  EXPECT_TRUE(back.IsReady());
  EXPECT_TRUE(back.meta.annotations.empty());
}

TEST(ClusterSnapshotTest, ShapesSplitOnAnySharedField) {
  struct Case {
    std::string name;
    std::function<void(api::Node&)> change;
    bool same_class;  // the snapshot's class (Resource-level allocatable) stays the same
  };
  const std::vector<Case> cases = {
      {"a label", [](api::Node& n) { n.meta.labels["extra"] = "1"; }, false},
      {"a label value", [](api::Node& n) { n.meta.labels["topology.kubernetes.io/zone"] = "b"; },
       false},
      {"a taint's value", [](api::Node& n) { n.spec.taints[0].value = "x"; }, false},
      {"a taint's timeAdded",
       [](api::Node& n) { n.spec.taints[0].time_added = TimePoint(std::chrono::seconds(5)); },
       true},
      {"unschedulable", [](api::Node& n) { n.spec.unschedulable = true; }, false},
      {"an allocatable value",
       [](api::Node& n) { n.status.allocatable["cpu"] = testing::Q("7"); }, false},
      {"the format of an equal quantity (32Gi as a decimal number)",
       [](api::Node& n) { n.status.allocatable["memory"] = testing::Q("34359738368"); }, true},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    ClusterSnapshot s;
    api::Node changed = PoolNode("b", "gpu");
    tc.change(changed);
    ASSERT_TRUE(s.AddNode(PoolNode("a", "gpu")).ok());
    ASSERT_TRUE(s.AddNode(changed).ok());
    EXPECT_NE(s.GetNodeInfo("a")->shape(), s.GetNodeInfo("b")->shape());
    EXPECT_EQ(s.NumClasses(), tc.same_class ? 1u : 2u);
    for (const auto& [name, q] : changed.status.allocatable) {
      EXPECT_EQ(s.GetNodeInfo("b")->allocatable_quantities().at(name).ToString(), q.ToString());
    }
  }
}

TEST(ClusterSnapshotTest, UpdateNodeInsideAForkIsReverted) {
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(PoolNode("n1", "gpu")).ok());
  ASSERT_TRUE(s.AddNode(PoolNode("n2", "gpu")).ok());
  ASSERT_TRUE(s.AddPod(Pod("a"), "n1").ok());
  const std::string before = Dump(s);
  s.Fork();
  api::Node cordoned = PoolNode("n1", "gpu");
  cordoned.meta.uid = "uid-n1-recreated";
  cordoned.spec.unschedulable = true;
  cordoned.meta.labels["kubernetes.io/hostname"] = "elsewhere";
  ASSERT_TRUE(s.UpdateNode(cordoned).ok());
  EXPECT_EQ(s.GetNodeInfo("n1")->uid(), "uid-n1-recreated");
  EXPECT_TRUE(s.GetNodeInfo("n1")->unschedulable());
  EXPECT_EQ(s.GetNodeInfo("n1")->hostname_label(), "elsewhere");
  EXPECT_EQ(s.GetNodeInfo("n1")->pods().size(), 1u);
  EXPECT_EQ(s.NumClasses(), 2u);
  EXPECT_NE(Dump(s), before);
  s.Revert();
  EXPECT_EQ(Dump(s), before);
  EXPECT_EQ(s.GetNodeInfo("n1")->uid(), "uid-n1");
  EXPECT_EQ(s.GetNodeInfo("n1")->shape(), s.GetNodeInfo("n2")->shape());
}

TEST(ClusterSnapshotTest, ShapesLiveAsLongAsTheirHolders) {
  const size_t base = NodeInfo::NumLiveShapes();
  {
    ClusterSnapshot s;
    ASSERT_TRUE(s.AddNode(PoolNode("n1", "shape-test-pool")).ok());
    ASSERT_TRUE(s.AddNode(PoolNode("n2", "shape-test-pool")).ok());
    EXPECT_EQ(NodeInfo::NumLiveShapes(), base + 1);
    ClusterSnapshot t;  // another snapshot finds the same shape
    ASSERT_TRUE(t.AddNode(PoolNode("n1", "shape-test-pool")).ok());
    EXPECT_EQ(t.GetNodeInfo("n1")->shape(), s.GetNodeInfo("n1")->shape());
    EXPECT_EQ(NodeInfo::NumLiveShapes(), base + 1);
  }
  EXPECT_EQ(NodeInfo::NumLiveShapes(), base);
}

}  // namespace
}  // namespace tidepool::scheduler
