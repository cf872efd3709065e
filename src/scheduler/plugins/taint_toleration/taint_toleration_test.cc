// File: taint_toleration_test.cc
//
// Tests for TaintToleration against kube-scheduler 1.32 (plugins/tainttoleration):
//   Filter: the first NoSchedule/NoExecute taint (in node order) the pod does not tolerate,
//     UnschedulableAndUnresolvable "node(s) had untolerated taint {<key>: <value>}";
//     PreferNoSchedule taints are ignored;
//   Score: the number of PreferNoSchedule taints not tolerated by the tolerations whose effect
//     is empty or PreferNoSchedule; NormalizeScore is DefaultNormalizeScore reversed.
#include "scheduler/plugins/taint_toleration/taint_toleration.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;
using ::tidepool::testing::NodeBuilder;

constexpr api::TaintEffect kNone = api::TaintEffect::kNone;
constexpr api::TaintEffect kNoSchedule = api::TaintEffect::kNoSchedule;
constexpr api::TaintEffect kPreferNoSchedule = api::TaintEffect::kPreferNoSchedule;
constexpr api::TaintEffect kNoExecute = api::TaintEffect::kNoExecute;

TEST(TaintTolerationTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    NodeBuilder node;
    // Empty if the pod fits.
    std::string want_reason;
  };
  const std::vector<Case> cases = {
      {"a node without taints admits any pod", MakePod("p").Obj(), MakeNode("n"), ""},
      {"an untolerated GPU taint rejects the pod", MakePod("p").Obj(),
       MakeNode("n").Taint("nvidia.com/gpu", "present"),
       "node(s) had untolerated taint {nvidia.com/gpu: present}"},
      {"a matching toleration admits the pod",
       MakePod("p").Toleration("nvidia.com/gpu", "present").Obj(),
       MakeNode("n").Taint("nvidia.com/gpu", "present"), ""},
      {"an Exists toleration admits the pod", MakePod("p").TolerationExists("nvidia.com/gpu").Obj(),
       MakeNode("n").Taint("nvidia.com/gpu", "present"), ""},
      {"a toleration with another value does not help",
       MakePod("p").Toleration("nvidia.com/gpu", "absent").Obj(),
       MakeNode("n").Taint("nvidia.com/gpu", "present"),
       "node(s) had untolerated taint {nvidia.com/gpu: present}"},
      {"a toleration with another effect does not help",
       MakePod("p").Toleration("nvidia.com/gpu", "present", kNoExecute).Obj(),
       MakeNode("n").Taint("nvidia.com/gpu", "present", kNoSchedule),
       "node(s) had untolerated taint {nvidia.com/gpu: present}"},
      {"an untolerated NoExecute taint rejects the pod", MakePod("p").Obj(),
       MakeNode("n").Taint("node.kubernetes.io/not-ready", "", kNoExecute),
       "node(s) had untolerated taint {node.kubernetes.io/not-ready: }"},
      {"a PreferNoSchedule taint is ignored by Filter", MakePod("p").Obj(),
       MakeNode("n").Taint("dedicated", "batch", kPreferNoSchedule), ""},
      {"an empty value prints as {k: }", MakePod("p").Obj(), MakeNode("n").Taint("k", ""),
       "node(s) had untolerated taint {k: }"},
      {"the first untolerated taint in node order is reported", MakePod("p").Obj(),
       MakeNode("n").Taint("zeta", "1").Taint("alpha", "2", kNoExecute),
       "node(s) had untolerated taint {zeta: 1}"},
      {"a tolerated first taint is skipped", MakePod("p").TolerationExists("zeta").Obj(),
       MakeNode("n").Taint("zeta", "1").Taint("alpha", "2", kNoExecute).Taint("beta", "3"),
       "node(s) had untolerated taint {alpha: 2}"},
      {"a leading PreferNoSchedule taint is not reported", MakePod("p").Obj(),
       MakeNode("n").Taint("soft", "1", kPreferNoSchedule).Taint("hard", "2"),
       "node(s) had untolerated taint {hard: 2}"},
      {"a match-all toleration admits the pod", MakePod("p").TolerationExists("").Obj(),
       MakeNode("n").Taint("a", "1").Taint("b", "2", kNoExecute), ""},
      {"tolerating every hard taint is enough",
       MakePod("p").TolerationExists("a", kNoSchedule).Toleration("b", "2", kNoExecute).Obj(),
       MakeNode("n").Taint("a", "1").Taint("b", "2", kNoExecute).Taint("c", "3", kPreferNoSchedule),
       ""},
  };
  TaintToleration plugin;
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeInfo node(tc.node.Ptr());
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    EXPECT_EQ(plugin.FilterScope(state, *pod), NodeScope::kClass);
    PluginStatus status = plugin.Filter(state, *pod, node);
    if (tc.want_reason.empty()) {
      EXPECT_TRUE(status.IsSuccess()) << status.Message();
    } else {
      EXPECT_EQ(status.code(), PluginCode::kUnschedulableAndUnresolvable);
      EXPECT_EQ(status.reasons(), std::vector<std::string>{tc.want_reason});
    }
  }
}

TEST(TaintTolerationTest, Score) {
  struct Case {
    std::string name;
    api::Pod pod;
    NodeBuilder node;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"no taints score 0", MakePod("p").Obj(), MakeNode("n"), 0},
      {"each untolerated PreferNoSchedule taint counts", MakePod("p").Obj(),
       MakeNode("n").Taint("a", "1", kPreferNoSchedule).Taint("b", "2", kPreferNoSchedule), 2},
      {"NoSchedule and NoExecute taints do not count", MakePod("p").Obj(),
       MakeNode("n").Taint("a", "1", kNoSchedule).Taint("b", "2", kNoExecute), 0},
      {"a PreferNoSchedule toleration removes its taint",
       MakePod("p").Toleration("a", "1", kPreferNoSchedule).Obj(),
       MakeNode("n").Taint("a", "1", kPreferNoSchedule).Taint("b", "2", kPreferNoSchedule), 1},
      {"a toleration with no effect removes its taint",
       MakePod("p").TolerationExists("b", kNone).Obj(),
       MakeNode("n").Taint("a", "1", kPreferNoSchedule).Taint("b", "2", kPreferNoSchedule), 1},
      {"a NoSchedule toleration is not used for scoring",
       MakePod("p").TolerationExists("a", kNoSchedule).Obj(),
       MakeNode("n").Taint("a", "1", kPreferNoSchedule), 1},
      {"a match-all toleration removes every taint", MakePod("p").TolerationExists("").Obj(),
       MakeNode("n").Taint("a", "1", kPreferNoSchedule).Taint("b", "2", kPreferNoSchedule), 0},
  };
  TaintToleration plugin;
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeInfo node(tc.node.Ptr());
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    ASSERT_TRUE(plugin.PreScore(state, *pod).IsSuccess());
    EXPECT_EQ(plugin.ScoreScope(state, *pod), NodeScope::kClass);
    EXPECT_EQ(plugin.Score(state, *pod, node), tc.want);
  }
}

TEST(TaintTolerationTest, NormalizeScoreIsReversed) {
  struct Case {
    std::string name;
    std::vector<int64_t> raw;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"all zero becomes all 100", {0, 0, 0}, {100, 100, 100}},
      {"the most tainted node gets 0", {0, 1, 2, 4}, {100, 75, 50, 0}},
      {"integer division truncates before reversing", {1, 3}, {67, 0}},
      {"a single tainted node gets 0", {5}, {0}},
      {"no scores", {}, {}},
  };
  TaintToleration plugin;
  PodInfoConstSharedPtr pod = MakePodInfo(MakePod("p").Ptr());
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    CycleState state;
    std::vector<int64_t> scores = tc.raw;
    plugin.NormalizeScore(state, *pod, scores);
    EXPECT_EQ(scores, tc.want);
  }
}

TEST(TaintTolerationTest, ScoreAndNormalizeAcrossNodes) {
  TaintToleration plugin;
  PodInfoConstSharedPtr pod =
      MakePodInfo(MakePod("p").Toleration("tolerated", "yes", kPreferNoSchedule).Ptr());
  std::vector<NodeInfo> nodes = {
      NodeInfo(MakeNode("clean").Ptr()),
      NodeInfo(MakeNode("tolerated").Taint("tolerated", "yes", kPreferNoSchedule).Ptr()),
      NodeInfo(MakeNode("one").Taint("x", "1", kPreferNoSchedule).Ptr()),
      NodeInfo(MakeNode("three")
                   .Taint("x", "1", kPreferNoSchedule)
                   .Taint("y", "1", kPreferNoSchedule)
                   .Taint("z", "1", kPreferNoSchedule)
                   .Ptr()),
  };
  CycleState state;
  ASSERT_TRUE(plugin.PreScore(state, *pod).IsSuccess());
  std::vector<int64_t> scores;
  for (const NodeInfo& n : nodes) {
    scores.push_back(plugin.Score(state, *pod, n));
  }
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 0, 1, 3}));
  plugin.NormalizeScore(state, *pod, scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 100, 67, 0}));
}

// Queueing hints (isSchedulableAfterNodeChange, isSchedulableAfterPodTolerationChange): a
// node added or whose taints changed queues the pod when it had an untolerated NoSchedule or
// NoExecute taint (or is new) and has none now; the pod's own new tolerations queue it; other
// events are not registered.
TEST(TaintTolerationTest, Hint) {
  const api::Node tainted = MakeNode("n").Taint("gpu", "present", kNoSchedule).Obj();
  const api::Node preferred = MakeNode("n").Taint("gpu", "present", kPreferNoSchedule).Obj();
  const api::Node bare = MakeNode("n").Obj();
  const api::Pod pod = MakePod("p").Obj();
  using Kind = ClusterEvent::Kind;
  struct Case {
    std::string name;
    ClusterEvent event;
    std::optional<QueueingHint> want;
  };
  const std::vector<Case> cases = {
      {"a new node it tolerates",
       {Kind::kNodeAdd, 0, nullptr, &bare, nullptr},
       QueueingHint::kQueue},
      {"a new node with an untolerated taint",
       {Kind::kNodeAdd, 0, nullptr, &tainted, nullptr},
       QueueingHint::kSkip},
      {"a PreferNoSchedule taint does not count",
       {Kind::kNodeAdd, 0, nullptr, &preferred, nullptr},
       QueueingHint::kQueue},
      {"the untolerated taint removed",
       {Kind::kNodeUpdate, ClusterEvent::kUpdateNodeTaint, &tainted, &bare, nullptr},
       QueueingHint::kQueue},
      {"an untolerated taint added",
       {Kind::kNodeUpdate, ClusterEvent::kUpdateNodeTaint, &bare, &tainted, nullptr},
       QueueingHint::kSkip},
      {"a label change is not registered",
       {Kind::kNodeUpdate, ClusterEvent::kUpdateNodeLabel, &tainted, &bare, nullptr},
       std::nullopt},
      {"its own tolerations",
       {Kind::kPodTolerationUpdate, 0, nullptr, nullptr, &pod},
       QueueingHint::kQueue},
      {"a bound pod gone is not registered",
       {Kind::kAssignedPodDelete, 0, nullptr, nullptr, &pod},
       std::nullopt},
  };
  TaintToleration plugin;
  const PodInfoConstSharedPtr info = MakePodInfo(std::make_shared<const api::Pod>(pod));
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(plugin.Hint(tc.event, *info), tc.want);
  }
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
