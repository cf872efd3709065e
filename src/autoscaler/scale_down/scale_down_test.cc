#include "autoscaler/scale_down/scale_down.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "autoscaler/scale_down/drainability.h"
#include "autoscaler/scale_down/go_format.h"
#include "common/random.h"
#include "scheduler/scheduler.h"
#include "testing/builders.h"
#include "testing/autoscaler_fakes.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler::scaledown {
namespace {

// A budget covering every pod of `ns` that allows `allowed` more disruptions.
api::PodDisruptionBudgetConstSharedPtr Budget(const std::string& ns, int32_t allowed) {
  return std::make_shared<const api::PodDisruptionBudget>(
      api::PodDisruptionBudget{ns, "pdb", api::LabelSelector{}, allowed});
}

using testing::MakeNode;
using testing::MakePod;

constexpr const char* kPool = "cloud.google.com/gke-nodepool";
constexpr const char* kAccel = "cloud.google.com/gke-accelerator";

api::Node CpuNode(const std::string& name, const std::string& pool, const std::string& cpu = "4",
                  const std::string& mem = "16Gi") {
  auto b = MakeNode(name).Capacity({{"cpu", cpu}, {"memory", mem}});
  if (!pool.empty()) {
    b.Label(kPool, pool);
  }
  return b.Obj();
}

api::Node GpuNode(const std::string& name, const std::string& pool, const std::string& gpus = "1") {
  return MakeNode(name)
      .Capacity({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", gpus}})
      .Label(kPool, pool)
      .Label(kAccel, "nvidia-tesla-t4")
      .Taint("nvidia.com/gpu", "present")
      .Obj();
}

api::Pod RsPod(const std::string& name, const std::string& cpu, const std::string& mem = "1Gi",
               const std::string& ns = "default") {
  return MakePod(name, ns)
      .OwnedBy("ReplicaSet", "rs")
      .Req("cpu", cpu)
      .Req("memory", mem)
      .Toleration("nvidia.com/gpu", "present")
      .Obj();
}

api::Pod Annotated(api::Pod p, const std::string& key, const std::string& value) {
  p.meta.annotations[key] = value;
  return p;
}
api::Node Annotated(api::Node n, const std::string& key, const std::string& value) {
  n.meta.annotations[key] = value;
  return n;
}

using RecordedEvent = testing::RecordedEvent;
using VectorRecorder = testing::RecordingEventRecorder;
using FakeWriter = testing::FakeClusterWriter;

class ScaleDownTest : public ::testing::Test {
 protected:
  // A node with no place for its pod is unremovable; room appears, but CA does not look again
  // before --unremovable-node-recheck-timeout (`timeout`, printed `go`) has passed.
  void ExpectRecheckAfter(Duration timeout, const std::string& recheck_at, const std::string& go) {
    Group("cpu-pool", 0, 5, 1);
    AddNode(CpuNode("n1", "cpu-pool"));
    AddPod(RsPod("p1", "1"), "n1");
    Update();
    EXPECT_EQ(ReasonOf("n1"), UnremovableReason::kNoPlaceToMovePods);
    EXPECT_TRUE(Logged("] 1 nodes found to be unremovable in simulation, will re-check them at " +
                       recheck_at));
    AddBigDestination();
    clock_.Advance(timeout - std::chrono::seconds(1));
    Update();
    EXPECT_EQ(ReasonOf("n1"), UnremovableReason::kNoPlaceToMovePods);
    EXPECT_EQ(Unneeded("n1"), nullptr);
    EXPECT_TRUE(Logged("] Scale-down calculation: ignoring 1 nodes unremovable in the last " + go));
    clock_.Advance(std::chrono::seconds(1));
    Update();
    EXPECT_NE(Unneeded("n1"), nullptr);
  }

  void SetUp() override {
    auto s = scheduler::Scheduler::Create();
    ASSERT_TRUE(s.ok());
    sched_ = std::move(*s);
    logger_.AddSink([this](std::string_view l) { log_.emplace_back(l); });
    logger_.SetVerbosity(4);
    Reset();
  }

  void Reset() {
    options_ = AutoscalingOptions{};
    cloud_ = std::make_unique<testing::FakeCloudProvider>();
    snapshot_.Clear();
    nodes_.clear();
    planner_.reset();
    log_.clear();
  }

  testing::FakeNodeGroup& Group(const std::string& id, int min, int max, int target) {
    return cloud_->AddGroup(id, min, max, target, CpuNode("t", ""));
  }
  void AddNode(api::Node n) {
    auto p = std::make_shared<const api::Node>(std::move(n));
    ASSERT_TRUE(snapshot_.AddNode(p).ok());
    nodes_.push_back(p);
  }
  void AddPod(api::Pod p, const std::string& node) {
    p.spec.node_name = node;
    p.status.phase = api::PodPhase::kRunning;
    auto info = scheduler::MakePodInfo(std::make_shared<const api::Pod>(std::move(p)));
    ASSERT_TRUE(snapshot_.AddPod(info, node).ok());
  }
  // A large node outside any autoscaled group: a destination for moved pods, never a candidate.
  void AddBigDestination(const std::string& cpu = "32") {
    AddNode(CpuNode("big", "", cpu, "128Gi"));
  }

  Planner& planner() {
    if (!planner_) {
      planner_ = std::make_unique<Planner>(options_, *cloud_, sched_->framework(), logger_);
    }
    return *planner_;
  }
  void Update(const std::vector<api::PodDisruptionBudgetConstSharedPtr>& pdb = {}) {
    const size_t forks = static_cast<size_t>(snapshot_.fork_depth());
    const size_t pods = snapshot_.NumPods();
    planner().Update(clock_.Now(), snapshot_, nodes_, pdb);
    // The snapshot is left as it was found.
    EXPECT_EQ(static_cast<size_t>(snapshot_.fork_depth()), forks);
    EXPECT_EQ(snapshot_.NumPods(), pods);
  }
  const UnneededNode* Unneeded(const std::string& name) {
    for (const UnneededNode& u : planner().unneeded()) {
      if (u.node == name) {
        return &u;
      }
    }
    return nullptr;
  }
  UnremovableReason ReasonOf(const std::string& name) {
    const auto unremovable = planner().unremovable();
    auto it = unremovable.find(name);
    return it == unremovable.end() ? UnremovableReason::kNone : it->second;
  }
  std::vector<std::string> Names(const std::vector<NodeToRemove>& nodes) {
    std::vector<std::string> out;
    for (const auto& n : nodes) {
      out.push_back(n.node);
    }
    return out;
  }
  bool Logged(const std::string& text) const {
    for (const auto& l : log_) {
      if (l.find(text) != std::string::npos) {
        return true;
      }
    }
    return false;
  }

  AutoscalingOptions options_;
  SimulatedClock clock_;
  log::Logger logger_{"cluster-autoscaler", clock_, false};
  std::vector<std::string> log_;
  std::unique_ptr<testing::FakeCloudProvider> cloud_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  scheduler::ClusterSnapshot snapshot_;
  std::vector<api::NodeConstSharedPtr> nodes_;
  std::unique_ptr<Planner> planner_;
};

// One candidate node "n1" next to a big non-autoscaled destination; is n1 unneeded, and if not,
// why?
TEST_F(ScaleDownTest, WhichNodesAreUnneeded) {
  const std::string safe = std::string(kSafeToEvictAnnotation);
  struct Case {
    std::string name;
    std::function<void()> setup;
    UnremovableReason want;  // kNone: unneeded
    bool want_empty = false;
    std::vector<api::PodDisruptionBudgetConstSharedPtr> pdb = {};
  };
  std::vector<Case> cases = {
      {"gpu node with an idle gpu and busy cpu is removable (gpu utilisation alone)",
       [&] {
         Group("gpu-pool", 0, 5, 1);
         AddNode(GpuNode("n1", "gpu-pool"));
         AddPod(RsPod("busy", "7", "30Gi"), "n1");
       },
       UnremovableReason::kNone},
      {"gpu node running a gpu pod is not underutilised",
       [&] {
         Group("gpu-pool", 0, 5, 1);
         AddNode(GpuNode("n1", "gpu-pool"));
         api::Pod p = RsPod("train", "1");
         p.spec.containers[0].resources.requests["nvidia.com/gpu"] = testing::Q("1");
         p.spec.containers[0].resources.limits["nvidia.com/gpu"] = testing::Q("1");
         AddPod(p, "n1");
       },
       UnremovableReason::kNotUnderutilized},
      {"cpu node above the threshold",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(RsPod("a", "2"), "n1");  // exactly 0.5: >= threshold
       },
       UnremovableReason::kNotUnderutilized},
      {"safe-to-evict false blocks",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(Annotated(RsPod("a", "100m"), safe, "false"), "n1");
       },
       UnremovableReason::kBlockedByPod},
      {"kube-system pod without a pdb blocks",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(RsPod("coredns", "100m", "70Mi", "kube-system"), "n1");
       },
       UnremovableReason::kBlockedByPod},
      {"kube-system pod with a pdb moves",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(RsPod("coredns", "100m", "70Mi", "kube-system"), "n1");
       },
       UnremovableReason::kNone,
       false,
       {Budget("kube-system", 1)}},
      {"a pod whose budget allows no disruption keeps the node",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(RsPod("web", "100m"), "n1");
       },
       UnremovableReason::kBlockedByPod,
       false,
       {Budget("default", 0)}},
      {"bare pod blocks",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(MakePod("bare").Req("cpu", "100m").Obj(), "n1");
       },
       UnremovableReason::kBlockedByPod},
      {"bare pod with safe-to-evict true moves",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(Annotated(MakePod("bare").Req("cpu", "100m").Obj(), safe, "true"), "n1");
       },
       UnremovableReason::kNone},
      {"local storage blocks",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(Annotated(RsPod("a", "100m"), std::string(kLocalStorageAnnotation), "true"), "n1");
       },
       UnremovableReason::kBlockedByPod},
      {"daemonset pods do not block and need no move",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(MakePod("agent", "kube-system").OwnedBy("DaemonSet", "agent").Req("cpu", "1").Obj(),
                "n1");
       },
       UnremovableReason::kNone, true},
      {"pods that fit no other node keep the node",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
         api::Pod p = RsPod("ssd", "100m");
         p.spec.node_selector["disk"] = "ssd";
         AddPod(p, "n1");
       },
       UnremovableReason::kNoPlaceToMovePods},
      {"scale-down-disabled annotation",
       [&] {
         Group("cpu-pool", 0, 5, 1);
         AddNode(Annotated(CpuNode("n1", "cpu-pool"), std::string(kScaleDownDisabledAnnotation),
                           "true"));
       },
       UnremovableReason::kScaleDownDisabledAnnotation},
      {"node outside autoscaled groups", [&] { AddNode(CpuNode("n1", "")); },
       UnremovableReason::kNotAutoscaled},
      {"group at its min size",
       [&] {
         Group("cpu-pool", 1, 5, 1);
         AddNode(CpuNode("n1", "cpu-pool"));
       },
       UnremovableReason::kNodeGroupMinSizeReached},
      {"gpu driver not ready yet: not a candidate",
       [&] {
         Group("gpu-pool", 0, 5, 1);
         api::Node n = GpuNode("n1", "gpu-pool", "0");
         n.meta.creation_timestamp = clock_.Now() - std::chrono::minutes(3);
         AddNode(n);
       },
       UnremovableReason::kNotUnreadyLongEnough},
      {"gpu that never came up: unready, gpu utilisation 0",
       [&] {
         Group("gpu-pool", 0, 5, 1);
         api::Node n = GpuNode("n1", "gpu-pool", "0");
         n.meta.creation_timestamp = clock_.Now() - std::chrono::minutes(16);
         AddNode(n);
       },
       UnremovableReason::kNone, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    AddBigDestination();
    c.setup();
    Update(c.pdb);
    EXPECT_EQ(ReasonOf("n1"), c.want) << UnremovableReasonName(ReasonOf("n1"));
    const UnneededNode* u = Unneeded("n1");
    ASSERT_EQ(u != nullptr, c.want == UnremovableReason::kNone);
    EXPECT_EQ(ReasonOf("big"), UnremovableReason::kNotAutoscaled);
    if (u != nullptr) {
      EXPECT_EQ(u->since, clock_.Now());
      clock_.Advance(std::chrono::minutes(21));
      std::vector<NodeToRemove> del = planner().NodesToDelete(clock_.Now());
      ASSERT_EQ(Names(del), std::vector<std::string>{"n1"});
      EXPECT_EQ(del[0].empty, c.want_empty);
      EXPECT_EQ(del[0].node_group, cloud_->NodeGroupForNode(*nodes_.back())->Id());
    }
  }
}

// CA's RemainingPdbTracker: a pass takes from a budget what the nodes it finds removable
// need, so a budget that allows one disruption lets one of its two nodes go.
TEST_F(ScaleDownTest, ABudgetIsSharedByTheNodesOfOnePass) {
  Group("cpu-pool", 0, 5, 2);
  AddBigDestination();
  AddNode(CpuNode("n1", "cpu-pool"));
  AddNode(CpuNode("n2", "cpu-pool"));
  AddPod(RsPod("web-1", "100m"), "n1");
  AddPod(RsPod("web-2", "100m"), "n2");
  Update({Budget("default", 1)});
  EXPECT_NE(Unneeded("n1"), nullptr);
  EXPECT_EQ(Unneeded("n2"), nullptr);
  EXPECT_EQ(ReasonOf("n2"), UnremovableReason::kBlockedByPod);
  EXPECT_TRUE(Logged("] node n2 cannot be removed: not enough pod disruption budget to move "
                     "default/web-2"));
}

TEST_F(ScaleDownTest, GpuNodeUtilizationIsReportedAndLogged) {
  Group("gpu-pool", 0, 5, 2);
  AddBigDestination();
  AddNode(GpuNode("g1", "gpu-pool", "2"));
  AddPod(RsPod("busy", "7", "30Gi"), "g1");
  Update();
  ASSERT_NE(Unneeded("g1"), nullptr);
  auto del = planner().NodesToDelete(clock_.Now() + std::chrono::minutes(11));
  ASSERT_EQ(del.size(), 1u);
  EXPECT_EQ(del[0].utilization.resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(del[0].utilization.value, 0);
  EXPECT_DOUBLE_EQ(del[0].utilization.cpu, 0);  // CA computes nothing else for GPU nodes
  ASSERT_EQ(del[0].pods_to_move.size(), 1u);
  EXPECT_EQ(del[0].pods_to_move[0]->name(), "busy");
  EXPECT_TRUE(Logged("] Node g1 - nvidia.com/gpu requested is 0% of allocatable"));
  EXPECT_TRUE(Logged("] Simulating node g1 removal"));
  EXPECT_TRUE(Logged("] node g1 may be removed"));
  EXPECT_TRUE(Logged("] g1 was unneeded for 11m0s"));
}

TEST_F(ScaleDownTest, LogsWhyNodesStay) {
  Group("cpu-pool", 0, 5, 3);
  AddNode(CpuNode("busy", "cpu-pool"));
  AddPod(RsPod("a", "3"), "busy");
  AddNode(CpuNode("blocked", "cpu-pool"));
  AddPod(MakePod("bare").Req("cpu", "100m").Obj(), "blocked");
  Update();
  EXPECT_TRUE(
      Logged("] Node busy unremovable: cpu requested (75% of allocatable) is above the scale-down "
             "utilization threshold"));
  EXPECT_TRUE(Logged("] node blocked cannot be removed: default/bare is not replicated"));
  EXPECT_EQ(ReasonOf("blocked"), UnremovableReason::kBlockedByPod);
}

TEST_F(ScaleDownTest, MovedPodsUseUpTheCapacityTheyTake) {
  // "dest" has 3 free cpu; n1 and n2 (25% used) each need 2 cpu moved. Only the first fits,
  // and n1 cannot take n2's pod because n1 itself goes.
  Group("cpu-pool", 0, 5, 2);
  AddNode(CpuNode("dest", "", "4"));
  AddPod(RsPod("filler", "1"), "dest");
  AddNode(CpuNode("n1", "cpu-pool", "8", "32Gi"));
  AddPod(RsPod("p1", "2"), "n1");
  AddNode(CpuNode("n2", "cpu-pool", "8", "32Gi"));
  AddPod(RsPod("p2", "2"), "n2");
  Update();
  EXPECT_NE(Unneeded("n1"), nullptr);
  EXPECT_EQ(Unneeded("n2"), nullptr);
  EXPECT_EQ(ReasonOf("n2"), UnremovableReason::kNoPlaceToMovePods);
  EXPECT_TRUE(Logged("] node n2 is not suitable for removal: can reschedule only 0 out of 1 pods"));

  // With room for both, both go.
  Reset();
  Group("cpu-pool", 0, 5, 2);
  AddNode(CpuNode("dest", "", "8", "32Gi"));
  AddNode(CpuNode("n1", "cpu-pool", "8", "32Gi"));
  AddPod(RsPod("p1", "2"), "n1");
  AddNode(CpuNode("n2", "cpu-pool", "8", "32Gi"));
  AddPod(RsPod("p2", "2"), "n2");
  Update();
  EXPECT_NE(Unneeded("n1"), nullptr);
  EXPECT_NE(Unneeded("n2"), nullptr);
}

TEST_F(ScaleDownTest, PodsFindRoomPastManyFullNodes) {
  // More full destinations than are filtered one by one: the grouped filtering finds the room.
  struct Case {
    std::string name;
    bool room;
    UnremovableReason want;
  };
  for (const Case& c :
       std::vector<Case>{{"room on the last node", true, UnremovableReason::kNone},
                         {"no room anywhere", false, UnremovableReason::kNoPlaceToMovePods}}) {
    SCOPED_TRACE(c.name);
    Reset();
    Group("cpu-pool", 0, 5, 1);
    for (int i = 0; i < 40; ++i) {
      const std::string name = "full-" + std::to_string(100 + i);
      AddNode(CpuNode(name, ""));
      AddPod(RsPod("hog-" + std::to_string(i), "3800m"), name);
    }
    AddNode(CpuNode("n1", "cpu-pool"));
    AddPod(RsPod("p1", "500m"), "n1");
    AddPod(RsPod("p2", "500m"), "n1");
    if (c.room) {
      AddNode(CpuNode("room", "", "4"));
    }
    Update();
    EXPECT_EQ(ReasonOf("n1"), c.want);
    EXPECT_EQ(Unneeded("n1") != nullptr, c.want == UnremovableReason::kNone);
  }
}

// Until when a pass's answer stands with time alone (Planner::SettledUntil): what lets the
// simulator skip loops whose inputs did not change.
TEST_F(ScaleDownTest, SettledUntilTheFirstRecheck) {
  struct Case {
    std::string name;
    std::function<void()> build;
    std::optional<Duration> want;  // after now; nullopt: not settled
  };
  const std::vector<Case> cases = {
      {"no node", [] {}, Duration::max()},
      {"a full node is no candidate",
       [this] {
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(RsPod("p1", "3800m"), "n1");  // above the utilisation threshold
       },
       Duration::max()},
      {"an empty node is unneeded", [this] { AddNode(CpuNode("n1", "cpu-pool")); }, std::nullopt},
      {"a node whose pod fits nowhere waits for its recheck",
       [this] {
         AddNode(CpuNode("n1", "cpu-pool"));
         AddPod(RsPod("p1", "1"), "n1");
       },
       std::chrono::minutes(5)},
      {"a node being deleted is skipped for a while",
       [this] {
         api::Node n = CpuNode("n1", "cpu-pool");
         n.spec.taints.push_back(api::Taint{std::string(kToBeDeletedTaint),
                                            std::to_string(UnixSeconds(clock_.Now())),
                                            api::TaintEffect::kNoSchedule, std::nullopt});
         AddNode(std::move(n));
         AddPod(RsPod("p1", "3800m"), "n1");
       },
       std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    logger_.SetVerbosity(0);
    Group("cpu-pool", 0, 5, 2);
    c.build();
    Update();
    const std::optional<TimePoint> until = planner().SettledUntil();
    ASSERT_EQ(until.has_value(), c.want.has_value());
    if (c.want == Duration::max()) {
      EXPECT_EQ(*until, TimePoint::max());
    } else if (c.want.has_value()) {
      EXPECT_EQ(*until, clock_.Now() + *c.want);
      // Until then the next pass, with the same inputs, says the same.
      clock_.Advance(*c.want - std::chrono::seconds(10));
      Update();
      ASSERT_TRUE(planner().SettledUntil().has_value());
      EXPECT_EQ(*planner().SettledUntil(), *until);
    }
  }
}

TEST_F(ScaleDownTest, UnremovableNodesAreRecheckedAfterFiveMinutes) {
  ExpectRecheckAfter(std::chrono::minutes(5), "2026-01-01 00:05:00 +0000 UTC", "5m0s");
}

// Issue 15: under `tidepool up --speed 60` the recheck waited 5 real minutes; it is an option
// (--unremovable-node-recheck-timeout), which --speed divides like every other.
TEST_F(ScaleDownTest, TheRecheckTimeoutIsAnOption) {
  options_.unremovable_node_recheck_timeout = std::chrono::seconds(5);
  ExpectRecheckAfter(std::chrono::seconds(5), "2026-01-01 00:00:05 +0000 UTC", "5s");
}

TEST_F(ScaleDownTest, PodsDoNotMoveToNodesBeingDeletedOrUpcoming) {
  Group("cpu-pool", 0, 5, 2);
  // A node tainted by a scale-down a minute ago: skipped, and no destination.
  api::Node deleting = CpuNode("deleting", "cpu-pool", "8", "32Gi");
  deleting.spec.taints.push_back(api::Taint{std::string(kToBeDeletedTaint),
                                            std::to_string(UnixSeconds(clock_.Now()) - 60),
                                            api::TaintEffect::kNoSchedule, std::nullopt});
  AddNode(deleting);
  AddNode(CpuNode("n1", "cpu-pool"));
  api::Pod tolerant = RsPod("p1", "1");
  tolerant.spec.tolerations.push_back(api::Toleration{"", api::TolerationOperator::kExists, "",
                                                      api::TaintEffect::kNone, std::nullopt});
  AddPod(tolerant, "n1");
  // An upcoming node: in the snapshot, not in the node list.
  ASSERT_TRUE(
      snapshot_
          .AddNode(std::make_shared<const api::Node>(CpuNode("upcoming", "cpu-pool", "8", "32Gi")))
          .ok());
  Update();
  EXPECT_EQ(ReasonOf("deleting"), UnremovableReason::kNone);
  EXPECT_EQ(Unneeded("deleting"), nullptr);
  EXPECT_TRUE(Logged(
      "] Skipping deleting from delete consideration - the node is currently being deleted"));
  EXPECT_EQ(ReasonOf("n1"), UnremovableReason::kNoPlaceToMovePods);

  // Five minutes after the taint the deletion is presumed failed: a candidate again.
  clock_.Advance(std::chrono::minutes(5));
  Update();
  EXPECT_NE(Unneeded("deleting"), nullptr);
}

TEST_F(ScaleDownTest, TheDeletionTimeIsAnOption) {
  options_.max_cloud_provider_node_deletion_time = std::chrono::seconds(30);
  Group("cpu-pool", 0, 5, 2);
  AddBigDestination();
  // Tainted a minute ago: past the (shortened) deletion time, so a candidate again.
  api::Node deleting = CpuNode("deleting", "cpu-pool");
  deleting.spec.taints.push_back(api::Taint{std::string(kToBeDeletedTaint),
                                            std::to_string(UnixSeconds(clock_.Now()) - 60),
                                            api::TaintEffect::kNoSchedule, std::nullopt});
  AddNode(deleting);
  Update();
  EXPECT_FALSE(Logged("currently being deleted"));
  EXPECT_NE(Unneeded("deleting"), nullptr);
}

TEST_F(ScaleDownTest, UnneededTimeIsRespected) {
  Group("cpu-pool", 0, 5, 2);
  AddBigDestination();
  AddNode(CpuNode("n1", "cpu-pool"));
  AddPod(RsPod("p1", "500m"), "n1");
  const TimePoint t0 = clock_.Now();
  Update();
  ASSERT_NE(Unneeded("n1"), nullptr);
  EXPECT_TRUE(planner().NodesToDelete(clock_.Now()).empty());
  EXPECT_EQ(ReasonOf("n1"), UnremovableReason::kNotUnneededLongEnough);

  clock_.Advance(std::chrono::minutes(5));
  Update();
  EXPECT_EQ(Unneeded("n1")->since, t0);  // kept while unneeded
  EXPECT_TRUE(planner().NodesToDelete(clock_.Now()).empty());

  // CA removes a node once since + unneeded time is strictly before now.
  clock_.Advance(std::chrono::minutes(5));
  Update();
  EXPECT_TRUE(planner().NodesToDelete(clock_.Now()).empty());
  EXPECT_TRUE(Logged("] n1 was unneeded for 10m0s"));
  clock_.Advance(std::chrono::seconds(10));
  Update();
  EXPECT_EQ(Names(planner().NodesToDelete(clock_.Now())), std::vector<std::string>{"n1"});
  EXPECT_TRUE(Logged("] n1 was unneeded for 10m10s"));

  // A node that stops being unneeded forgets its time.
  AddPod(RsPod("p2", "3"), "n1");
  Update();
  EXPECT_EQ(Unneeded("n1"), nullptr);
  EXPECT_EQ(ReasonOf("n1"), UnremovableReason::kNotUnderutilized);
  ASSERT_TRUE(snapshot_.RemovePod("default/p2", "n1").ok());
  clock_.Advance(std::chrono::seconds(10));
  Update();
  EXPECT_EQ(Unneeded("n1")->since, clock_.Now());
}

TEST_F(ScaleDownTest, UnneededTimeComesFromTheOptions) {
  struct Case {
    Duration unneeded_time;
    Duration after;
    bool removed;
  };
  std::vector<Case> cases = {
      {std::chrono::minutes(2), std::chrono::minutes(1), false},
      {std::chrono::minutes(2), std::chrono::minutes(2), false},
      {std::chrono::minutes(2), std::chrono::minutes(2) + std::chrono::seconds(10), true},
      {std::chrono::minutes(30), std::chrono::minutes(20), false},
      {Duration::zero(), std::chrono::seconds(10), true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("unneeded time " + GoDuration(c.unneeded_time) + ", after " + GoDuration(c.after));
    Reset();
    options_.scale_down_unneeded_time = c.unneeded_time;
    Group("cpu-pool", 0, 5, 2);
    AddNode(CpuNode("n1", "cpu-pool"));
    Update();
    clock_.Advance(c.after);
    Update();
    EXPECT_EQ(planner().NodesToDelete(clock_.Now()).size(), c.removed ? 1u : 0u);
  }
}

TEST_F(ScaleDownTest, UnreadyNodesUseTheUnreadyTime) {
  Group("cpu-pool", 0, 5, 2);
  AddNode(MakeNode("n1")
              .Capacity({{"cpu", "4"}, {"memory", "16Gi"}})
              .Label(kPool, "cpu-pool")
              .Ready(false)
              .Obj());
  Update();
  ASSERT_NE(Unneeded("n1"), nullptr);
  clock_.Advance(std::chrono::minutes(11));
  Update();
  EXPECT_TRUE(planner().NodesToDelete(clock_.Now()).empty());
  EXPECT_EQ(ReasonOf("n1"), UnremovableReason::kNotUnreadyLongEnough);
  clock_.Advance(std::chrono::minutes(10));
  Update();
  EXPECT_EQ(Names(planner().NodesToDelete(clock_.Now())), std::vector<std::string>{"n1"});
}

TEST_F(ScaleDownTest, NeverBelowMinSize) {
  struct Case {
    int min, target;
    size_t want_deleted;
  };
  std::vector<Case> cases = {{0, 4, 4}, {2, 4, 2}, {3, 4, 1}, {4, 4, 0}, {5, 4, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE("min " + std::to_string(c.min) + " target " + std::to_string(c.target));
    Reset();
    Group("cpu-pool", c.min, 10, c.target);
    for (int i = 1; i <= 4; ++i) {
      AddNode(CpuNode("n" + std::to_string(i), "cpu-pool"));
    }
    Update();
    std::vector<NodeToRemove> del =
        planner().NodesToDelete(clock_.Now() + std::chrono::minutes(11));
    EXPECT_EQ(del.size(), c.want_deleted);
    size_t at_min = 0;
    for (const auto& [node, reason] : planner().unremovable()) {
      at_min += reason == UnremovableReason::kNodeGroupMinSizeReached ? 1 : 0;
    }
    EXPECT_EQ(at_min, 4 - c.want_deleted);
  }
}

TEST_F(ScaleDownTest, EmptyNodesGoInBulkDrainsOneAtATime) {
  struct Case {
    int parallelism, drain_parallelism;
    size_t want_empty, want_drain;
  };
  std::vector<Case> cases = {
      {10, 1, 5, 1}, {4, 1, 4, 0}, {6, 1, 5, 1}, {10, 2, 5, 2}, {10, 0, 5, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE("parallelism " + std::to_string(c.parallelism) + " drain " +
                 std::to_string(c.drain_parallelism));
    Reset();
    options_.max_scale_down_parallelism = c.parallelism;
    options_.max_drain_parallelism = c.drain_parallelism;
    Group("cpu-pool", 0, 20, 8);
    AddBigDestination();
    for (int i = 1; i <= 5; ++i) {
      AddNode(CpuNode("e" + std::to_string(i), "cpu-pool"));
    }
    for (int i = 1; i <= 3; ++i) {
      AddNode(CpuNode("d" + std::to_string(i), "cpu-pool"));
      AddPod(RsPod("p" + std::to_string(i), "500m"), "d" + std::to_string(i));
    }
    // Two loops, so that every candidate is found (CA's unneeded-nodes limit grows per loop).
    Update();
    clock_.Advance(std::chrono::seconds(10));
    Update();
    ASSERT_EQ(planner().unneeded().size(), 8u);
    std::vector<NodeToRemove> del =
        planner().NodesToDelete(clock_.Now() + std::chrono::minutes(11));
    size_t empty = 0;
    size_t drain = 0;
    for (const auto& n : del) {
      (n.empty ? empty : drain) += 1;
      if (drain > 0) {
        EXPECT_FALSE(n.empty) << "empty nodes come first";
      }
    }
    EXPECT_EQ(empty, c.want_empty);
    EXPECT_EQ(drain, c.want_drain);
  }
}

TEST_F(ScaleDownTest, SimulationStopsAtTheUnneededNodesLimit) {
  // CA's unneededNodesLimit(): with N = 2, the first loop looks for 2N = 4 removable nodes.
  options_.max_scale_down_parallelism = 2;
  Group("cpu-pool", 0, 20, 10);
  for (int i = 0; i < 10; ++i) {
    AddNode(CpuNode("n" + std::to_string(i), "cpu-pool"));
  }
  Update();
  EXPECT_EQ(planner().unneeded().size(), 4u);
  EXPECT_TRUE(Logged(
      "] 6 out of 10 nodes skipped in scale down simulation: there are already 4 unneeded nodes "
      "so no point in looking for more."));
  // The next loop (10s later): |unneeded| + 2N = 8, under N * (10m / 10s) + N.
  clock_.Advance(std::chrono::seconds(10));
  Update();
  EXPECT_EQ(planner().unneeded().size(), 8u);
  // Nodes unneeded before are simulated first and keep their time.
  EXPECT_EQ(Unneeded("n0")->since, clock_.Now() - std::chrono::seconds(10));
}

// ---------------------------------------------------------------------------------------------
// Actuator.

class ActuatorTest : public ScaleDownTest {
 protected:
  NodeToRemove Empty(const std::string& node, const std::string& group) {
    NodeToRemove n;
    n.node = node;
    n.node_group = group;
    n.empty = true;
    return n;
  }
  // A node to drain whose `pods` the planner found to move; they are on it when the actuator
  // reads it again too.
  NodeToRemove Drain(const std::string& node, const std::string& group,
                     std::vector<std::string> pods) {
    NodeToRemove n;
    n.node = node;
    n.node_group = group;
    for (const auto& p : pods) {
      n.pods_to_move.push_back(OnNode(RsPod(p, "100m"), node));
    }
    writer_.pods_on[node] = n.pods_to_move;
    n.utilization = Utilization{0.25, 0.125, 0, 0.25, "cpu"};
    return n;
  }
  static scheduler::PodInfoConstSharedPtr OnNode(api::Pod p, const std::string& node) {
    p.spec.node_name = node;
    p.status.phase = api::PodPhase::kRunning;
    return scheduler::MakePodInfo(std::make_shared<const api::Pod>(std::move(p)));
  }
  std::vector<std::string> Run(const std::vector<NodeToRemove>& nodes,
                               const ClusterView& view = ClusterView()) {
    Actuator a(options_, *cloud_, writer_, recorder_, logger_);
    return a.StartDeletion(clock_.Now(), nodes, view);
  }
  // A new case of a table: the fixture, writer and events reset; the group cpu-pool (0..5, 3).
  testing::FakeNodeGroup& Fresh() {
    Reset();
    writer_ = FakeWriter();
    recorder_.events.clear();
    return Group("cpu-pool", 0, 5, 3);
  }
  std::vector<std::string> Evictions() const {
    std::vector<std::string> out;
    for (const std::string& c : writer_.calls) {
      if (c.rfind("evict ", 0) == 0) out.push_back(c);
    }
    return out;
  }
  std::string TaintOf(const std::string& node) {
    return "taint " + node +
           " ToBeDeletedByClusterAutoscaler=" + std::to_string(UnixSeconds(clock_.Now())) +
           ":NoSchedule";
  }

  FakeWriter writer_;
  VectorRecorder recorder_;
  const std::string cm_ = "ConfigMap/kube-system/cluster-autoscaler-status";
};

TEST_F(ActuatorTest, DeletesEmptyNodesInBulk) {
  testing::FakeNodeGroup& g = Group("cpu-pool", 0, 5, 3);
  auto deleted = Run({Empty("n1", "cpu-pool"), Empty("n2", "cpu-pool")});
  EXPECT_EQ(deleted, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(g.deleted, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(writer_.calls, (std::vector<std::string>{TaintOf("n1"), TaintOf("n2"), "pods n1,n2"}));
  std::vector<RecordedEvent> want = {
      {"Node/n1", "Normal", "ScaleDown", "marked the node as toBeDeleted/unschedulable"},
      {"Node/n2", "Normal", "ScaleDown", "marked the node as toBeDeleted/unschedulable"},
      {cm_, "Normal", "ScaleDownEmpty", "Scale-down: removing empty node \"n1\""},
      {cm_, "Normal", "ScaleDownEmpty", "Scale-down: removing empty node \"n2\""},
      {"Node/n1", "Normal", "ScaleDown", "nodes removed by cluster autoscaler"},
      {cm_, "Normal", "ScaleDownEmpty", "Scale-down: empty node n1 removed"},
      {"Node/n2", "Normal", "ScaleDown", "nodes removed by cluster autoscaler"},
      {cm_, "Normal", "ScaleDownEmpty", "Scale-down: empty node n2 removed"},
  };
  EXPECT_EQ(recorder_.events, want);
  EXPECT_TRUE(Logged("] Scale-down: removing empty node \"n1\""));
}

// CA's deleteNodesAsync: after the taints, an empty node's pods are read again; a pod that
// landed there since the loop's view keeps the node (must move: "node is not empty"; blocks:
// "failed to get pods to move on node"), with ScaleDownFailed and the taint removed. DaemonSet,
// mirror and expendable pods go with the node. The other empty node is deleted either way.
TEST_F(ActuatorTest, AnEmptyNodeAPodLandedOnIsKept) {
  const std::string ds = std::string(kDaemonSetPodAnnotation);
  api::Pod expendable = RsPod("filler", "100m");  // under --expendable-pods-priority-cutoff
  expendable.spec.priority = -20;
  struct Case {
    const char* name;
    api::Pod landed;
    std::string err_msg;  // empty: n1 is still empty and goes
    std::string err;
  };
  const Case cases[] = {
      {"replicated", RsPod("late", "100m"), "node is not empty",
       "failed to delete empty node \"n1\", new pods scheduled"},
      {"bare", MakePod("bare").Req("cpu", "100m").Obj(), "failed to get pods to move on node",
       "GetPodsToMove for \"n1\" returned error: default/bare is not replicated"},
      {"daemonset", Annotated(MakePod("agent").Req("cpu", "100m").Obj(), ds, "true"), "", ""},
      {"mirror",
       Annotated(MakePod("static").Req("cpu", "100m").Obj(), std::string(kMirrorPodAnnotation),
                 "ignored"),
       "", ""},
      {"expendable", expendable, "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::FakeNodeGroup& g = Fresh();
    writer_.pods_on["n1"] = {scheduler::MakePodInfo(std::make_shared<const api::Pod>(c.landed))};
    const bool kept = !c.err.empty();
    auto deleted = Run({Empty("n1", "cpu-pool"), Empty("n2", "cpu-pool")});
    const std::vector<std::string> want =
        kept ? std::vector<std::string>{"n2"} : std::vector<std::string>{"n1", "n2"};
    EXPECT_EQ(deleted, want);
    EXPECT_EQ(g.deleted, deleted);
    if (!kept) continue;
    EXPECT_EQ(writer_.calls,
              (std::vector<std::string>{TaintOf("n1"), TaintOf("n2"), "pods n1,n2",
                                        "untaint n1 ToBeDeletedByClusterAutoscaler"}));
    ASSERT_GE(recorder_.events.size(), 5u);
    EXPECT_EQ(recorder_.events[4], (RecordedEvent{"Node/n1", "Warning", "ScaleDownFailed",
                                                  "failed to delete empty node: " + c.err}));
    EXPECT_TRUE(Logged("] Scale-down: couldn't delete empty node, " + c.err_msg +
                       ", status error: " + c.err));
  }
}

TEST_F(ActuatorTest, DrainsThenDeletes) {
  testing::FakeNodeGroup& g = Group("cpu-pool", 0, 5, 3);
  auto deleted = Run({Drain("n1", "cpu-pool", {"a", "b"})});
  EXPECT_EQ(deleted, std::vector<std::string>{"n1"});
  EXPECT_EQ(g.deleted, std::vector<std::string>{"n1"});
  EXPECT_EQ(writer_.calls,
            (std::vector<std::string>{TaintOf("n1"), "pods n1", "evict default/a grace 30",
                                      "evict default/b grace 30"}));
  const std::string removing =
      "Scale-down: removing node n1, utilization: {0.25 0.125 0 0 cpu 0.25}, pods to "
      "reschedule: a,b";
  std::vector<RecordedEvent> want = {
      {"Node/n1", "Normal", "ScaleDown", "marked the node as toBeDeleted/unschedulable"},
      {cm_, "Normal", "ScaleDown", removing},
      {"Pod/default/a", "Normal", "ScaleDown", "deleting pod for node scale down"},
      {"Pod/default/b", "Normal", "ScaleDown", "deleting pod for node scale down"},
      {"Node/n1", "Normal", "ScaleDown", "nodes removed by cluster autoscaler"},
      {cm_, "Normal", "ScaleDown", "Scale-down: node n1 removed with drain"},
  };
  EXPECT_EQ(recorder_.events, want);
  EXPECT_TRUE(Logged("] " + removing));
}

TEST_F(ActuatorTest, FailedEvictionKeepsTheNodeAndRemovesTheTaint) {
  testing::FakeNodeGroup& g = Group("cpu-pool", 0, 5, 3);
  writer_.fail_evict = {"default/b"};
  auto deleted = Run({Drain("n1", "cpu-pool", {"a", "b"})});
  EXPECT_TRUE(deleted.empty());
  EXPECT_TRUE(g.deleted.empty());
  EXPECT_EQ(writer_.calls.back(), "untaint n1 ToBeDeletedByClusterAutoscaler");
  const std::string err =
      "Failed to drain node /n1, due to following errors: [failed to evict pod default/b within "
      "allowed timeout (last error: Cannot evict pod as it would violate the pod's disruption "
      "budget.)]";
  ASSERT_GE(recorder_.events.size(), 2u);
  EXPECT_EQ(recorder_.events[recorder_.events.size() - 2],
            (RecordedEvent{"Pod/default/b", "Warning", "ScaleDownFailed",
                           "failed to delete pod for ScaleDown"}));
  EXPECT_EQ(recorder_.events.back(), (RecordedEvent{"Node/n1", "Warning", "ScaleDownFailed",
                                                    "failed to drain and delete node: " + err}));
  EXPECT_TRUE(
      Logged("] Scale-down: couldn't delete node \"n1\" with drain, prepareNodeForDeletion "
             "failed, status error: " +
             err));
}

// CA's podsToEvict on the pods read after the taints: every pod there but mirror and expendable
// pods (a pod that landed since the loop's view too), the DaemonSet pods after them as their
// flag and annotation say, each eviction's grace period the pod's capped at
// --max-graceful-termination-sec.
TEST_F(ActuatorTest, ADrainedNodeEvictsThePodsFoundAfterTheTaint) {
  const std::string ds = std::string(kDaemonSetPodAnnotation);
  const std::string enable = std::string(kEnableDsEvictionAnnotation);
  auto ds_pod = [&](const std::string& name, const std::string& enabled) {
    api::Pod p = Annotated(MakePod(name).Req("cpu", "10m").Obj(), ds, "true");
    if (!enabled.empty()) p = Annotated(p, enable, enabled);
    return p;
  };
  api::Pod slow = RsPod("slow", "100m");
  slow.spec.termination_grace_period_seconds = 900;
  api::Pod quick = RsPod("quick", "100m");
  quick.spec.termination_grace_period_seconds = 5;
  api::Pod expendable = RsPod("filler", "100m");
  expendable.spec.priority = -20;
  const api::Pod mirror =
      Annotated(MakePod("static").Req("cpu", "10m").Obj(), std::string(kMirrorPodAnnotation), "x");
  struct Case {
    const char* name;
    std::vector<api::Pod> also_there;  // besides the planner's "a"
    bool ds_flag;
    std::vector<std::string> evicted;
  };
  const Case cases[] = {
      {"a pod landed since",
       {RsPod("late", "100m")},
       true,
       {"evict default/a grace 30", "evict default/late grace 30"}},
      {"grace periods",
       {slow, quick},
       true,
       {"evict default/a grace 30", "evict default/slow grace 600", "evict default/quick grace 5"}},
      {"mirror and expendable pods stay", {mirror, expendable}, true, {"evict default/a grace 30"}},
      {"daemonset pods last",
       {ds_pod("agent", ""), RsPod("b", "100m")},
       true,
       {"evict default/a grace 30", "evict default/b grace 30", "evict default/agent grace 30"}},
      {"annotation false keeps it", {ds_pod("agent", "false")}, true, {"evict default/a grace 30"}},
      {"flag off", {ds_pod("agent", "")}, false, {"evict default/a grace 30"}},
      {"flag off, annotation true",
       {ds_pod("agent", "true")},
       false,
       {"evict default/a grace 30", "evict default/agent grace 30"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::FakeNodeGroup& g = Fresh();
    options_.daemonset_eviction_for_occupied_nodes = c.ds_flag;
    NodeToRemove n = Drain("n1", "cpu-pool", {"a"});
    for (const api::Pod& p : c.also_there) writer_.pods_on["n1"].push_back(OnNode(p, "n1"));
    EXPECT_EQ(Run({n}), std::vector<std::string>{"n1"});
    EXPECT_EQ(g.deleted, std::vector<std::string>{"n1"});
    EXPECT_EQ(Evictions(), c.evicted);
  }
}

// A DaemonSet pod's eviction is best effort: its failure neither fails the drain nor is an
// event; an empty node's DaemonSet pods go only with --daemonset-eviction-for-empty-nodes.
TEST_F(ActuatorTest, DaemonSetPodsAreEvictedBestEffort) {
  const api::Pod agent = Annotated(MakePod("agent").Req("cpu", "10m").Obj(),
                                   std::string(kDaemonSetPodAnnotation), "true");
  testing::FakeNodeGroup& g = Fresh();
  NodeToRemove n = Drain("n1", "cpu-pool", {"a"});
  writer_.pods_on["n1"].push_back(OnNode(agent, "n1"));
  writer_.fail_evict = {"default/agent"};
  EXPECT_EQ(Run({n}), std::vector<std::string>{"n1"});
  EXPECT_EQ(Evictions(),
            (std::vector<std::string>{"evict default/a grace 30", "evict default/agent grace 30"}));
  EXPECT_EQ(recorder_.Count("ScaleDownFailed"), 0);

  for (bool flag : {false, true}) {
    SCOPED_TRACE(flag);
    writer_ = FakeWriter();
    recorder_.events.clear();
    options_.daemonset_eviction_for_empty_nodes = flag;
    writer_.pods_on["n2"] = {OnNode(agent, "n2")};
    EXPECT_EQ(Run({Empty("n2", "cpu-pool")}), std::vector<std::string>{"n2"});
    EXPECT_EQ(Evictions(), flag ? std::vector<std::string>{"evict default/agent grace 30"}
                                : std::vector<std::string>{});
  }
  EXPECT_EQ(g.deleted, (std::vector<std::string>{"n1", "n2", "n2"}));
}

// What blocks now keeps a drained node: the rules see the loop's budgets (whole for each node)
// and controllers, as CA's deleteNodesAsync gives them to drained nodes. Nothing is evicted.
TEST_F(ActuatorTest, ADrainedNodeABlockingPodKeeps) {
  class NoControllers : public ControllerLister {
   public:
    StatusOr<std::optional<int32_t>> Replicas(std::string_view, std::string_view,
                                              std::string_view name) const override {
      return NotFoundError("replicaset.apps \"" + std::string(name) + "\" not found");
    }
    uint64_t version() const override { return 1; }
  };
  struct Case {
    const char* name;
    ClusterView view;
    std::string err;  // empty: deleted
  };
  ClusterView no_budget;
  no_budget.pdbs = {Budget("default", 0)};
  ClusterView budget;
  budget.pdbs = {Budget("default", 1)};
  ClusterView no_controller;
  no_controller.controllers = std::make_shared<NoControllers>();
  const Case cases[] = {
      {"budget allows none", no_budget, "not enough pod disruption budget to move default/a"},
      // Each pod is checked against the whole budget, as CA's fresh tracker does (the API's
      // eviction would then refuse the second pod: FailedEvictionKeepsTheNode... shows that).
      {"budget allows one per pod", budget, ""},
      {"controller gone", no_controller,
       "replication controller for default/a is not available, err: replicaset.apps \"rs\" not "
       "found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::FakeNodeGroup& g = Fresh();
    NodeToRemove n = Drain("n1", "cpu-pool", {"a", "b"});
    const std::vector<std::string> deleted = Run({n}, c.view);
    if (c.err.empty()) {
      EXPECT_EQ(deleted, std::vector<std::string>{"n1"});
      continue;
    }
    EXPECT_TRUE(deleted.empty());
    EXPECT_TRUE(g.deleted.empty());
    EXPECT_EQ(writer_.calls,
              (std::vector<std::string>{TaintOf("n1"), "pods n1",
                                        "untaint n1 ToBeDeletedByClusterAutoscaler"}));
    const std::string err = "GetPodsToMove for \"n1\" returned error: " + c.err;
    EXPECT_EQ(recorder_.events.back(), (RecordedEvent{"Node/n1", "Warning", "ScaleDownFailed",
                                                      "failed to drain and delete node: " + err}));
    EXPECT_TRUE(Logged("] Scale-down: couldn't delete node \"n1\", err: " + c.err));
    EXPECT_TRUE(
        Logged("] Scale-down: couldn't delete node \"n1\" with drain, failed to get pods "
               "to move on node, status error: " +
               err));
  }
}

TEST_F(ActuatorTest, FailedCloudDeletionRemovesTheTaint) {
  Group("cpu-pool", 3, 5, 3);  // DeleteNodes refuses below min size
  auto deleted = Run({Empty("n1", "cpu-pool")});
  EXPECT_TRUE(deleted.empty());
  EXPECT_EQ(writer_.calls, (std::vector<std::string>{TaintOf("n1"), "pods n1",
                                                     "untaint n1 ToBeDeletedByClusterAutoscaler"}));
  EXPECT_EQ(recorder_.events.back(),
            (RecordedEvent{"Node/n1", "Warning", "ScaleDownFailed",
                           "failed to delete empty node: failed to delete nodes from group "
                           "cpu-pool: min size reached, nodes will not be deleted"}));
}

TEST_F(ActuatorTest, FailedTaintRollsBackAndDeletesNothing) {
  testing::FakeNodeGroup& g = Group("cpu-pool", 0, 5, 3);
  writer_.fail_taint = {"n2"};
  auto deleted = Run({Empty("n1", "cpu-pool"), Empty("n2", "cpu-pool")});
  EXPECT_TRUE(deleted.empty());
  EXPECT_TRUE(g.deleted.empty());
  EXPECT_EQ(writer_.calls, (std::vector<std::string>{TaintOf("n1"), TaintOf("n2"),
                                                     "untaint n1 ToBeDeletedByClusterAutoscaler"}));
  EXPECT_EQ(recorder_.events.back(),
            (RecordedEvent{"Node/n2", "Warning", "ScaleDownFailed",
                           "failed to mark the node as toBeDeleted/unschedulable: the server is "
                           "currently unable to handle the request"}));
}

TEST_F(ActuatorTest, PlannerAndActuatorEndToEnd) {
  testing::FakeNodeGroup& gpu = Group("gpu-pool", 0, 5, 2);
  AddBigDestination();
  AddNode(GpuNode("g1", "gpu-pool"));  // idle gpu, a cpu pod to move
  AddPod(RsPod("web", "2"), "g1");
  AddNode(GpuNode("g2", "gpu-pool"));  // empty
  Update();
  clock_.Advance(std::chrono::minutes(10) + std::chrono::seconds(10));
  Update();
  std::vector<NodeToRemove> del = planner().NodesToDelete(clock_.Now());
  ASSERT_EQ(Names(del), (std::vector<std::string>{"g2", "g1"}));
  writer_.pods_on["g1"] = del[1].pods_to_move;
  auto deleted = Run(del);
  EXPECT_EQ(deleted, (std::vector<std::string>{"g2", "g1"}));
  EXPECT_EQ(gpu.deleted, (std::vector<std::string>{"g2", "g1"}));
  EXPECT_EQ(*gpu.TargetSize(), 0);
  EXPECT_EQ(writer_.calls, (std::vector<std::string>{TaintOf("g2"), "pods g2", TaintOf("g1"),
                                                     "pods g1", "evict default/web grace 30"}));
  bool saw = false;
  for (const auto& e : recorder_.events) {
    saw = saw || e.message ==
                     "Scale-down: removing node g1, utilization: {0 0 0 0 nvidia.com/gpu 0}, pods "
                     "to reschedule: web";
  }
  EXPECT_TRUE(saw);
}

// The answer is reused only while nothing changed: a pod added to the node the candidate's pods
// would move to (not a candidate itself) makes the next pass simulate again and see it full.
TEST_F(ScaleDownTest, AnAnswerIsReusedUntilAnyNodeChanges) {
  logger_.SetVerbosity(1);  // V(2) lines off: reuse allowed
  Group("cpu-pool", 0, 5, 1);
  AddNode(CpuNode("n1", "cpu-pool"));
  AddPod(RsPod("a", "1"), "n1");
  AddNode(CpuNode("dest", "", "4"));
  AddPod(RsPod("busy", "2500m"), "dest");
  Update();
  ASSERT_NE(Unneeded("n1"), nullptr);
  EXPECT_EQ(planner().simulated(), 1u);
  clock_.Advance(std::chrono::seconds(10));
  Update();
  ASSERT_NE(Unneeded("n1"), nullptr);
  EXPECT_EQ(planner().simulated(), 0u);  // same inputs: the last answer

  AddPod(RsPod("more", "1"), "dest");  // 3.5 of 4 cores: no room for n1's pod
  clock_.Advance(std::chrono::seconds(10));
  Update();
  EXPECT_EQ(planner().simulated(), 1u);
  EXPECT_EQ(Unneeded("n1"), nullptr);
  EXPECT_EQ(ReasonOf("n1"), UnremovableReason::kNoPlaceToMovePods);
}

// A pass with the same inputs as the last one reuses its answer (Planner::Update). That must
// change no answer: two planners see the same cluster change, or not, pass after pass - one
// logs the V(2) simulation lines, so it simulates every time, the other reuses - and must agree
// on everything they answer.
TEST(PlannerReuseTest, ReusedAnswersAreTheSimulationsAnswers) {
  auto sched = scheduler::Scheduler::Create();
  ASSERT_TRUE(sched.ok());
  SimulatedClock clock;
  log::Logger quiet("cluster-autoscaler", clock, false);
  quiet.SetVerbosity(1);
  log::Logger verbose("cluster-autoscaler", clock, false);
  verbose.SetVerbosity(2);
  testing::FakeCloudProvider cloud;
  cloud.AddGroup("cpu", 0, 100, 16, CpuNode("t", ""));
  cloud.AddGroup("gpu", 0, 100, 4, GpuNode("t", "gpu"));
  scheduler::ClusterSnapshot snapshot;
  std::vector<api::NodeConstSharedPtr> nodes;
  Random rnd(7);
  std::vector<std::pair<std::string, std::string>> pods;  // (key, node)
  int next_pod = 0;
  auto add_pod = [&](const std::string& node, bool gpu, bool deleting) {
    api::Pod p = RsPod("p" + std::to_string(next_pod++),
                       std::to_string(100 + 100 * rnd.Uniform(12)) + "m", "512Mi");
    if (gpu) {
      p = MakePod(p.meta.name).OwnedBy("ReplicaSet", "rs").Req("nvidia.com/gpu", "1")
              .Toleration("nvidia.com/gpu", "present").Obj();
    }
    if (deleting) {
      p.meta.deletion_timestamp = clock.Now();
    }
    p.spec.node_name = node;
    p.status.phase = api::PodPhase::kRunning;
    const std::string key = "default/" + p.meta.name;
    ASSERT_TRUE(
        snapshot.AddPod(scheduler::MakePodInfo(std::make_shared<const api::Pod>(std::move(p))), node)
            .ok());
    pods.emplace_back(key, node);
  };
  for (int i = 0; i < 20; ++i) {
    const bool gpu = i >= 16;
    const std::string name = (gpu ? "gpu-" : "cpu-") + std::to_string(i);
    auto n = std::make_shared<const api::Node>(gpu ? GpuNode(name, "gpu") : CpuNode(name, "cpu"));
    ASSERT_TRUE(snapshot.AddNode(n).ok());
    nodes.push_back(n);
    const int count = static_cast<int>(rnd.Uniform(gpu ? 2 : 6));
    for (int j = 0; j < count; ++j) {
      add_pod(name, gpu, false);
    }
  }
  AutoscalingOptions options;
  options.max_scale_down_parallelism = 2;  // the limit grows over the first passes
  Planner reusing(options, cloud, sched->get()->framework(), quiet);
  Planner simulating(options, cloud, sched->get()->framework(), verbose);
  int reused = 0;
  int changes = 0;
  for (int pass = 0; pass < 80; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    clock.Advance(std::chrono::seconds(10));
    switch (rnd.Uniform(9)) {
      case 0: {  // a pod more
        const api::NodeConstSharedPtr& n = nodes[rnd.Uniform(nodes.size())];
        add_pod(n->meta.name, n->meta.name.starts_with("gpu"), false);
        ++changes;
        break;
      }
      case 1:  // a pod fewer
        if (!pods.empty()) {
          const size_t k = rnd.Uniform(pods.size());
          ASSERT_TRUE(snapshot.RemovePod(pods[k].first, pods[k].second).ok());
          pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(k));
          ++changes;
        }
        break;
      case 2: {  // a pod being deleted (what must move then depends on the time)
        const api::NodeConstSharedPtr& n = nodes[rnd.Uniform(16)];
        add_pod(n->meta.name, false, rnd.Uniform(4) == 0);
        ++changes;
        break;
      }
      case 3: {  // a node fills up: the pods moved to it must go elsewhere
        const std::string node = nodes[rnd.Uniform(16)]->meta.name;
        api::Pod p = RsPod("big" + std::to_string(next_pod++), "3");
        p.spec.node_name = node;
        ASSERT_TRUE(
            snapshot.AddPod(scheduler::MakePodInfo(std::make_shared<const api::Pod>(p)), node).ok());
        pods.emplace_back("default/" + p.meta.name, node);
        ++changes;
        break;
      }
      default:
        break;
    }
    reusing.Update(clock.Now(), snapshot, nodes);
    simulating.Update(clock.Now(), snapshot, nodes);
    ASSERT_EQ(reusing.unneeded().size(), simulating.unneeded().size());
    for (size_t i = 0; i < reusing.unneeded().size(); ++i) {
      EXPECT_EQ(reusing.unneeded()[i].node, simulating.unneeded()[i].node);
      EXPECT_EQ(reusing.unneeded()[i].since, simulating.unneeded()[i].since);
    }
    using Reasons = std::map<std::string, UnremovableReason>;
    const auto reusing_reasons = reusing.unremovable();
    const auto simulating_reasons = simulating.unremovable();
    EXPECT_EQ(Reasons(reusing_reasons.begin(), reusing_reasons.end()),
              Reasons(simulating_reasons.begin(), simulating_reasons.end()));
    EXPECT_GT(simulating.simulated() + (simulating.unneeded().empty() ? 1 : 0), 0u);
    if (reusing.simulated() == 0 && !reusing.unneeded().empty()) {
      ++reused;
    }
    if (pass % 5 == 4) {
      auto names = [](const std::vector<NodeToRemove>& v) {
        std::vector<std::pair<std::string, size_t>> out;
        for (const NodeToRemove& r : v) {
          out.emplace_back(r.node, r.pods_to_move.size());
        }
        return out;
      };
      EXPECT_EQ(names(reusing.NodesToDelete(clock.Now())),
                names(simulating.NodesToDelete(clock.Now())));
    }
  }
  // Both happened: answers reused, and clusters changed under them.
  EXPECT_GT(reused, 10);
  EXPECT_GT(changes, 10);
}

}  // namespace
}  // namespace tidepool::autoscaler::scaledown
