#include "autoscaler/scale_down/drainability.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "testing/builders.h"

namespace tidepool::autoscaler::scaledown {
namespace {

using testing::MakeNode;
using testing::MakePod;

constexpr TimePoint kNow = SimulatedClock::kDefaultStart;

api::Pod Annotated(api::Pod p, const std::string& key, const std::string& value) {
  p.meta.annotations[key] = value;
  return p;
}

api::Pod Rs(const std::string& name, const std::string& ns = "default") {
  return MakePod(name, ns).OwnedBy("ReplicaSet", "rs").Req("cpu", "100m").Obj();
}

api::Pod Bare(const std::string& name, const std::string& ns = "default") {
  return MakePod(name, ns).Req("cpu", "100m").Obj();
}

api::Pod WithPhase(api::Pod p, api::PodPhase phase, const std::string& restart) {
  p.status.phase = phase;
  p.spec.restart_policy = restart;
  return p;
}

// A tracker over one budget covering every pod of `ns` that allows `allowed` disruptions.
RemainingPdbTracker Budget(const std::string& ns, int32_t allowed) {
  RemainingPdbTracker t;
  t.SetPdbs({std::make_shared<const api::PodDisruptionBudget>(
      api::PodDisruptionBudget{ns, "pdb", api::LabelSelector{}, allowed})});
  return t;
}

api::Pod DeletedAgo(api::Pod p, Duration ago) {
  p.meta.deletion_timestamp = kNow - ago;
  return p;
}

// CA's 30 s past the grace period shortened to 0 (as --speed would shorten it).
DrainOptions ShortExtra() {
  DrainOptions o;
  o.pod_long_terminating_extra_threshold = Duration::zero();
  return o;
}

TEST(DrainabilityTest, Rules) {
  const std::string safe = std::string(kSafeToEvictAnnotation);
  struct Case {
    std::string name;
    api::Pod pod;
    DrainOutcome want;
    BlockingPodReason reason = BlockingPodReason::kNone;
    std::string message = "";
    DrainOptions options = {};
    RemainingPdbTracker pdb = {};
  };
  std::vector<Case> cases = {
      {"replicaset pod moves", Rs("p"), DrainOutcome::kMove},
      {"statefulset and job pods move", MakePod("s").OwnedBy("StatefulSet", "db").Obj(),
       DrainOutcome::kMove},
      {"bare pod blocks", Bare("p"), DrainOutcome::kBlock, BlockingPodReason::kNotReplicated,
       "default/p is not replicated"},
      {"custom controller blocks by default", MakePod("p").OwnedBy("MyOperator", "x").Obj(),
       DrainOutcome::kBlock, BlockingPodReason::kNotReplicated, "default/p is not replicated"},
      {"custom controller moves without --skip-nodes-with-custom-controller-pods",
       MakePod("p").OwnedBy("MyOperator", "x").Obj(), DrainOutcome::kMove, BlockingPodReason::kNone,
       "", DrainOptions{true, true, false}},
      {"safe-to-evict false blocks", Annotated(Rs("p"), safe, "false"), DrainOutcome::kBlock,
       BlockingPodReason::kNotSafeToEvictAnnotation,
       "pod annotated as not safe to evict present: p"},
      {"safe-to-evict true overrides not replicated", Annotated(Bare("p"), safe, "true"),
       DrainOutcome::kMove},
      {"safe-to-evict true overrides kube-system and local storage",
       Annotated(Annotated(Rs("p", "kube-system"), safe, "true"),
                 std::string(kLocalStorageAnnotation), "true"),
       DrainOutcome::kMove},
      {"kube-system pod without pdb blocks", Rs("dns", "kube-system"), DrainOutcome::kBlock,
       BlockingPodReason::kUnmovableKubeSystemPod,
       "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: dns"},
      {"kube-system pod with pdb moves",
       Rs("dns", "kube-system"),
       DrainOutcome::kMove,
       BlockingPodReason::kNone,
       "",
       DrainOptions{},
       Budget("kube-system", 1)},
      {"kube-system pod with a pdb that allows nothing more",
       Rs("dns", "kube-system"),
       DrainOutcome::kBlock,
       BlockingPodReason::kNotEnoughPdb,
       "not enough pod disruption budget to move kube-system/dns",
       DrainOptions{},
       Budget("kube-system", 0)},
      {"a pod its budget still allows to move", Rs("p"), DrainOutcome::kMove,
       BlockingPodReason::kNone, "", DrainOptions{}, Budget("default", 1)},
      {"a pod whose budget allows no disruption", Rs("p"), DrainOutcome::kBlock,
       BlockingPodReason::kNotEnoughPdb, "not enough pod disruption budget to move default/p",
       DrainOptions{}, Budget("default", 0)},
      {"a budget of another namespace", Rs("p"), DrainOutcome::kMove, BlockingPodReason::kNone,
       "", DrainOptions{}, Budget("other", 0)},
      {"blocking rules before the budget's", Bare("p"), DrainOutcome::kBlock,
       BlockingPodReason::kNotReplicated, "default/p is not replicated", DrainOptions{},
       Budget("default", 0)},
      {"kube-system pod moves without --skip-nodes-with-system-pods", Rs("dns", "kube-system"),
       DrainOutcome::kMove, BlockingPodReason::kNone, "", DrainOptions{false, true, true}},
      {"bare kube-system pod: not replicated comes first", Bare("x", "kube-system"),
       DrainOutcome::kBlock, BlockingPodReason::kNotReplicated, "kube-system/x is not replicated"},
      {"local storage blocks", Annotated(Rs("p"), std::string(kLocalStorageAnnotation), "true"),
       DrainOutcome::kBlock, BlockingPodReason::kLocalStorageRequested,
       "pod with local storage present: p"},
      {"local storage moves without --skip-nodes-with-local-storage",
       Annotated(Rs("p"), std::string(kLocalStorageAnnotation), "true"), DrainOutcome::kMove,
       BlockingPodReason::kNone, "", DrainOptions{true, false, true}},
      {"daemonset pod", MakePod("ds").OwnedBy("DaemonSet", "agent").Obj(),
       DrainOutcome::kDaemonSet},
      {"daemonset-pod annotation",
       Annotated(Bare("ds"), std::string(kDaemonSetPodAnnotation), "true"),
       DrainOutcome::kDaemonSet},
      {"daemonset pod in kube-system", MakePod("ds", "kube-system").OwnedBy("DaemonSet", "a").Obj(),
       DrainOutcome::kDaemonSet},
      {"mirror pod", Annotated(Bare("etcd", "kube-system"), std::string(kMirrorPodAnnotation), "x"),
       DrainOutcome::kIgnore},
      {"succeeded pod with restartPolicy Never",
       WithPhase(Bare("job"), api::PodPhase::kSucceeded, "Never"), DrainOutcome::kIgnore},
      {"failed pod", WithPhase(Bare("job"), api::PodPhase::kFailed, "Always"),
       DrainOutcome::kIgnore},
      {"succeeded pod with restartPolicy Always is not terminal",
       WithPhase(Bare("x"), api::PodPhase::kSucceeded, "Always"), DrainOutcome::kBlock,
       BlockingPodReason::kNotReplicated, "default/x is not replicated"},
      {"long-terminating pod", DeletedAgo(Bare("x"), std::chrono::seconds(61)),
       DrainOutcome::kIgnore},
      {"recently deleted pod still counts", DeletedAgo(Rs("x"), std::chrono::seconds(59)),
       DrainOutcome::kMove},
      {"the extra threshold is an option (--speed divides it)",
       DeletedAgo(Rs("x"), std::chrono::seconds(31)), DrainOutcome::kIgnore,
       BlockingPodReason::kNone, "", ShortExtra()},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PodDrainability d = CheckPodDrainability(*scheduler::MakePodInfo(c.pod), c.options, c.pdb, kNow);
    EXPECT_EQ(d.outcome, c.want);
    EXPECT_EQ(d.reason, c.reason);
    EXPECT_EQ(d.message, c.message);
  }
}

// The cluster's controllers for the replica-count rule: name -> spec.replicas.
class FakeControllers : public ControllerLister {
 public:
  std::map<std::string, std::optional<int32_t>> objects;  // "<Kind>/<ns>/<name>"
  StatusOr<std::optional<int32_t>> Replicas(std::string_view kind, std::string_view ns,
                                            std::string_view name) const override {
    auto it = objects.find(std::string(kind) + "/" + std::string(ns) + "/" + std::string(name));
    if (it == objects.end()) return NotFoundError("x.apps \"" + std::string(name) + "\" not found");
    return it->second;
  }
  uint64_t version() const override { return 1; }
};

TEST(DrainabilityTest, ReplicaCountRuleAsCa) {
  FakeControllers controllers;
  controllers.objects["ReplicaSet/default/rs"] = 3;
  controllers.objects["ReplicaSet/default/one"] = 1;
  controllers.objects["StatefulSet/default/ss"] = 2;
  controllers.objects["DaemonSet/default/ds"] = std::nullopt;
  struct Case {
    std::string name;
    api::Pod pod;
    int min_replicas;
    DrainOutcome want;
    BlockingPodReason reason;
    std::string message;
    bool custom = true;  // --skip-nodes-with-custom-controller-pods
  };
  const std::vector<Case> cases = {
      {"its ReplicaSet exists", Rs("p"), 0, DrainOutcome::kMove, BlockingPodReason::kNone, ""},
      {"its ReplicaSet is gone", MakePod("p", "default").OwnedBy("ReplicaSet", "gone").Obj(), 0,
       DrainOutcome::kBlock, BlockingPodReason::kControllerNotFound,
       "replication controller for default/p is not available, err: x.apps \"gone\" not found"},
      {"fewer replicas than --min-replica-count",
       MakePod("p", "default").OwnedBy("ReplicaSet", "one").Obj(), 2, DrainOutcome::kBlock,
       BlockingPodReason::kMinReplicasReached,
       "replication controller for default/p has too few replicas spec: 1 min: 2"},
      {"enough replicas", Rs("p"), 3, DrainOutcome::kMove, BlockingPodReason::kNone, ""},
      {"its Job is gone", MakePod("p", "default").OwnedBy("Job", "j").Obj(), 0,
       DrainOutcome::kBlock, BlockingPodReason::kControllerNotFound,
       "job for default/p is not available: err: x.apps \"j\" not found"},
      {"its StatefulSet exists", MakePod("p", "default").OwnedBy("StatefulSet", "ss").Obj(), 0,
       DrainOutcome::kMove, BlockingPodReason::kNone, ""},
      {"its StatefulSet is gone", MakePod("p", "default").OwnedBy("StatefulSet", "nope").Obj(), 0,
       DrainOutcome::kBlock, BlockingPodReason::kControllerNotFound,
       "statefulset for default/p is not available: err: x.apps \"nope\" not found"},
      {"a DaemonSet pod whose DaemonSet exists goes with the node",
       MakePod("p", "default").OwnedBy("DaemonSet", "ds").Obj(), 0, DrainOutcome::kDaemonSet,
       BlockingPodReason::kNone, ""},
      {"a DaemonSet pod whose DaemonSet is gone blocks",
       MakePod("p", "default").OwnedBy("DaemonSet", "old").Obj(), 0, DrainOutcome::kBlock,
       BlockingPodReason::kControllerNotFound,
       "daemonset for default/p is not present, err: x.apps \"old\" not found"},
      {"without --skip-nodes-with-custom-controller-pods the rule is off",
       MakePod("p", "default").OwnedBy("ReplicaSet", "gone").Obj(), 0, DrainOutcome::kMove,
       BlockingPodReason::kNone, "", false},
      {"a bare pod is the replicated rule's", Bare("p"), 0, DrainOutcome::kBlock,
       BlockingPodReason::kNotReplicated, "default/p is not replicated"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    DrainOptions o;
    o.min_replica_count = c.min_replicas;
    o.skip_nodes_with_custom_controller_pods = c.custom;
    o.controllers = &controllers;
    PodDrainability d = CheckPodDrainability(*scheduler::MakePodInfo(c.pod), o, RemainingPdbTracker(), kNow);
    EXPECT_EQ(d.outcome, c.want);
    EXPECT_EQ(d.reason, c.reason);
    EXPECT_EQ(d.message, c.message);
  }
  // No listers (the simulator): the rule does not decide.
  PodDrainability d = CheckPodDrainability(
      *scheduler::MakePodInfo(MakePod("p", "default").OwnedBy("ReplicaSet", "gone").Obj()),
      DrainOptions(), RemainingPdbTracker(), kNow);
  EXPECT_EQ(d.outcome, DrainOutcome::kMove);
}

TEST(DrainabilityTest, GetPodsToMoveStopsAtTheFirstBlockingPod) {
  scheduler::ClusterSnapshot snapshot;
  ASSERT_TRUE(
      snapshot.AddNode(MakeNode("n").Capacity({{"cpu", "4"}, {"memory", "4Gi"}}).Ptr()).ok());
  auto add = [&](api::Pod p) {
    ASSERT_TRUE(
        snapshot.AddPod(scheduler::MakePodInfo(std::make_shared<const api::Pod>(p)), "n").ok());
  };
  add(Rs("a"));
  add(MakePod("ds").OwnedBy("DaemonSet", "agent").Obj());
  add(Annotated(Bare("m"), std::string(kMirrorPodAnnotation), "x"));
  PodsToMove ok = GetPodsToMove(*snapshot.GetNodeInfo("n"), DrainOptions{}, {}, kNow);
  ASSERT_FALSE(ok.blocked());
  ASSERT_EQ(ok.pods.size(), 1u);
  EXPECT_EQ(ok.pods[0]->name(), "a");
  ASSERT_EQ(ok.daemonset_pods.size(), 1u);

  add(Bare("b"));
  PodsToMove blocked = GetPodsToMove(*snapshot.GetNodeInfo("n"), DrainOptions{}, {}, kNow);
  ASSERT_TRUE(blocked.blocked());
  EXPECT_EQ(blocked.blocking_pod->name(), "b");
  EXPECT_EQ(blocked.reason, BlockingPodReason::kNotReplicated);
  EXPECT_TRUE(blocked.pods.empty());
}

TEST(DrainabilityTest, NothingToMoveIsGetPodsToMoveFindingNothing) {
  struct Case {
    std::string name;
    std::vector<api::Pod> pods;
    bool want;
  };
  const api::Pod ds = MakePod("ds").OwnedBy("DaemonSet", "agent").Obj();
  const api::Pod mirror = Annotated(Bare("m"), std::string(kMirrorPodAnnotation), "x");
  const api::Pod done = WithPhase(Rs("done"), api::PodPhase::kSucceeded, "Never");
  const api::Pod gone = DeletedAgo(Rs("gone"), std::chrono::minutes(5));
  std::vector<Case> cases = {
      {"no pods", {}, true},
      {"daemonset, mirror, terminal and long-terminating pods only", {ds, mirror, done, gone},
       true},
      {"a pod to move", {ds, Rs("a")}, false},
      {"a pod to move after the ignored ones", {mirror, done, Rs("a")}, false},
      {"a blocking pod", {ds, Bare("b")}, false},
      {"a pod deleted just now still moves", {DeletedAgo(Rs("new"), std::chrono::seconds(10))},
       false},
      {"kube-system pod without a budget blocks", {Rs("k", "kube-system")}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    scheduler::ClusterSnapshot snapshot;
    ASSERT_TRUE(
        snapshot.AddNode(MakeNode("n").Capacity({{"cpu", "4"}, {"memory", "4Gi"}}).Ptr()).ok());
    for (const api::Pod& p : c.pods) {
      ASSERT_TRUE(
          snapshot.AddPod(scheduler::MakePodInfo(std::make_shared<const api::Pod>(p)), "n").ok());
    }
    const scheduler::NodeInfo& node = *snapshot.GetNodeInfo("n");
    const PodsToMove ptm = GetPodsToMove(node, DrainOptions{}, {}, kNow);
    EXPECT_EQ(!ptm.blocked() && ptm.pods.empty(), c.want);
    EXPECT_EQ(NothingToMove(node, DrainOptions{}, {}, kNow), c.want);
  }
}

}  // namespace
}  // namespace tidepool::autoscaler::scaledown
