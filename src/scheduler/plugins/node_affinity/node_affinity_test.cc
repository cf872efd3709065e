// File: node_affinity_test.cc
//
// Tests for NodeAffinity against kube-scheduler 1.32 (plugins/nodeaffinity):
//   PreFilter: Skip without nodeSelector and required affinity; a PreFilterResult with the
//     node names when every required term pins metadata.name (In); "pod affinity terms
//     conflict" (UnschedulableAndUnresolvable) when those names cancel out;
//   Filter: nodeSelector AND required terms (ORed; requirements ANDed), else
//     UnschedulableAndUnresolvable "node(s) didn't match Pod's node affinity/selector";
//   PreScore/Score/NormalizeScore: Skip without preferred terms; the sum of matching weights,
//     scaled so the best node gets 100.
#include "scheduler/plugins/node_affinity/node_affinity.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::FieldTerm;
using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;
using ::tidepool::testing::Term;

constexpr api::SelectorOperator kIn = api::SelectorOperator::kIn;
constexpr api::SelectorOperator kNotIn = api::SelectorOperator::kNotIn;
constexpr api::SelectorOperator kExists = api::SelectorOperator::kExists;
constexpr api::SelectorOperator kDoesNotExist = api::SelectorOperator::kDoesNotExist;
constexpr api::SelectorOperator kGt = api::SelectorOperator::kGt;
constexpr api::SelectorOperator kLt = api::SelectorOperator::kLt;

// The node every Filter case runs against.
api::NodeConstSharedPtr GpuNode() {
  return MakeNode("gpu-node-1")
      .Label("zone", "z1")
      .Label("accelerator", "a100")
      .Label("gpu-count", "8")
      .Ptr();
}

// A term with two requirements.
api::NodeSelectorTerm Term2(api::NodeSelectorTerm a, const api::NodeSelectorTerm& b) {
  a.match_expressions.insert(a.match_expressions.end(), b.match_expressions.begin(),
                             b.match_expressions.end());
  a.match_fields.insert(a.match_fields.end(), b.match_fields.begin(), b.match_fields.end());
  return a;
}

TEST(NodeAffinityTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    bool want_fit;
  };
  const std::vector<Case> cases = {
      {"a pod without constraints fits", MakePod("p").Obj(), true},
      {"a matching nodeSelector", MakePod("p").NodeSelector("zone", "z1").Obj(), true},
      {"a nodeSelector with another value", MakePod("p").NodeSelector("zone", "z2").Obj(), false},
      {"a nodeSelector on a missing label", MakePod("p").NodeSelector("pool", "gpu").Obj(), false},
      {"every nodeSelector pair must match",
       MakePod("p").NodeSelector("zone", "z1").NodeSelector("accelerator", "h100").Obj(), false},
      {"a matching required term",
       MakePod("p").RequiredAffinity(Term("zone", kIn, {"z1", "z2"})).Obj(), true},
      {"a failing required term", MakePod("p").RequiredAffinity(Term("zone", kNotIn, {"z1"})).Obj(),
       false},
      {"required terms are ORed",
       MakePod("p")
           .RequiredAffinity(Term("zone", kIn, {"z9"}))
           .RequiredAffinity(Term("accelerator", kExists))
           .Obj(),
       true},
      {"no required term matches",
       MakePod("p")
           .RequiredAffinity(Term("zone", kIn, {"z9"}))
           .RequiredAffinity(Term("accelerator", kDoesNotExist))
           .Obj(),
       false},
      {"requirements within a term are ANDed",
       MakePod("p")
           .RequiredAffinity(Term2(Term("zone", kIn, {"z1"}), Term("accelerator", kIn, {"h100"})))
           .Obj(),
       false},
      {"Gt on the GPU count", MakePod("p").RequiredAffinity(Term("gpu-count", kGt, {"4"})).Obj(),
       true},
      {"Gt is strict", MakePod("p").RequiredAffinity(Term("gpu-count", kGt, {"8"})).Obj(), false},
      {"Lt on the GPU count", MakePod("p").RequiredAffinity(Term("gpu-count", kLt, {"16"})).Obj(),
       true},
      {"Lt on a non-integer label fails",
       MakePod("p").RequiredAffinity(Term("accelerator", kLt, {"16"})).Obj(), false},
      {"nodeSelector and required affinity are ANDed",
       MakePod("p").NodeSelector("zone", "z2").RequiredAffinity(Term("accelerator", kExists)).Obj(),
       false},
      {"nodeSelector and required affinity both match",
       MakePod("p").NodeSelector("zone", "z1").RequiredAffinity(Term("accelerator", kExists)).Obj(),
       true},
      {"matchFields on the node's name",
       MakePod("p").RequiredAffinity(FieldTerm(kIn, {"gpu-node-1"})).Obj(), true},
      {"matchFields on another name",
       MakePod("p").RequiredAffinity(FieldTerm(kIn, {"gpu-node-2"})).Obj(), false},
      {"matchFields NotIn the node's name",
       MakePod("p").RequiredAffinity(FieldTerm(kNotIn, {"gpu-node-1"})).Obj(), false},
      {"an empty required term matches nothing",
       MakePod("p").RequiredAffinity(api::NodeSelectorTerm{}).Obj(), false},
      {"nodeSelector on the node's own hostname label",
       MakePod("p").NodeSelector("kubernetes.io/hostname", "gpu-node-1").Obj(), true},
      {"nodeSelector on another hostname",
       MakePod("p").NodeSelector("kubernetes.io/hostname", "gpu-node-2").Obj(), false},
      {"required term on the hostname label",
       MakePod("p").RequiredAffinity(Term("kubernetes.io/hostname", kIn, {"gpu-node-1"})).Obj(),
       true},
      {"required term: hostname DoesNotExist",
       MakePod("p").RequiredAffinity(Term("kubernetes.io/hostname", kDoesNotExist)).Obj(), false},
      {"required term: hostname NotIn another and zone In z1",
       MakePod("p")
           .RequiredAffinity(Term2(Term("kubernetes.io/hostname", kNotIn, {"gpu-node-2"}),
                                   Term("zone", kIn, {"z1"})))
           .Obj(),
       true},
      {"preferred terms do not filter",
       MakePod("p").PreferredAffinity(50, Term("zone", kIn, {"z9"})).Obj(), true},
  };
  NodeAffinity plugin;
  NodeInfo node(GpuNode());
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    PreFilterResult result;
    PluginStatus pre = plugin.PreFilter(state, *pod, result);
    ASSERT_TRUE(pre.IsSuccess() || pre.IsSkip()) << pre.Message();
    EXPECT_EQ(RequiredNodeAffinityMatches(tc.pod, *GpuNode()), tc.want_fit);
    EXPECT_EQ(RequiredNodeAffinityMatches(tc.pod.spec, node), tc.want_fit);
    if (pre.IsSkip()) {
      // The framework skips Filter; the pod has no constraint.
      EXPECT_TRUE(tc.want_fit);
      continue;
    }
    PluginStatus status = plugin.Filter(state, *pod, node);
    if (tc.want_fit) {
      EXPECT_TRUE(status.IsSuccess()) << status.Message();
    } else {
      EXPECT_EQ(status.code(), PluginCode::kUnschedulableAndUnresolvable);
      EXPECT_EQ(status.reasons(),
                std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
    }
  }
}

TEST(NodeAffinityTest, PreFilter) {
  struct Case {
    std::string name;
    api::Pod pod;
    PluginCode want_code;
    std::optional<std::set<std::string>> want_nodes;
  };
  api::Pod empty_required = MakePod("p").Obj();
  empty_required.spec.affinity.emplace().node_affinity.emplace().required.emplace();
  const std::vector<Case> cases = {
      {"no nodeSelector and no affinity skip", MakePod("p").Obj(), PluginCode::kSkip, std::nullopt},
      {"only preferred affinity skips",
       MakePod("p").PreferredAffinity(10, Term("zone", kIn, {"z1"})).Obj(), PluginCode::kSkip,
       std::nullopt},
      {"a nodeSelector alone keeps every node", MakePod("p").NodeSelector("zone", "z1").Obj(),
       PluginCode::kSuccess, std::nullopt},
      {"required affinity without terms keeps every node (Filter rejects)", empty_required,
       PluginCode::kSuccess, std::nullopt},
      {"label terms keep every node",
       MakePod("p").RequiredAffinity(Term("zone", kIn, {"z1"})).Obj(), PluginCode::kSuccess,
       std::nullopt},
      {"metadata.name In narrows to those nodes",
       MakePod("p").RequiredAffinity(FieldTerm(kIn, {"node-a"})).Obj(), PluginCode::kSuccess,
       std::set<std::string>{"node-a"}},
      {"the names of several terms are unioned",
       MakePod("p")
           .RequiredAffinity(FieldTerm(kIn, {"node-a"}))
           .RequiredAffinity(FieldTerm(kIn, {"node-b", "node-c"}))
           .Obj(),
       PluginCode::kSuccess, std::set<std::string>{"node-a", "node-b", "node-c"}},
      {"the names within a term are intersected",
       MakePod("p")
           .RequiredAffinity(
               Term2(FieldTerm(kIn, {"node-a", "node-b"}), FieldTerm(kIn, {"node-b", "node-c"})))
           .Obj(),
       PluginCode::kSuccess, std::set<std::string>{"node-b"}},
      {"a term without a name requirement keeps every node",
       MakePod("p")
           .RequiredAffinity(FieldTerm(kIn, {"node-a"}))
           .RequiredAffinity(Term("zone", kIn, {"z1"}))
           .Obj(),
       PluginCode::kSuccess, std::nullopt},
      {"metadata.name NotIn does not narrow",
       MakePod("p").RequiredAffinity(FieldTerm(kNotIn, {"node-a"})).Obj(), PluginCode::kSuccess,
       std::nullopt},
      {"a label requirement beside the name still narrows",
       MakePod("p")
           .RequiredAffinity(Term2(Term("zone", kIn, {"z1"}), FieldTerm(kIn, {"node-a"})))
           .Obj(),
       PluginCode::kSuccess, std::set<std::string>{"node-a"}},
      {"names that cancel out within a term conflict",
       MakePod("p")
           .RequiredAffinity(Term2(FieldTerm(kIn, {"node-a"}), FieldTerm(kIn, {"node-b"})))
           .Obj(),
       PluginCode::kUnschedulableAndUnresolvable, std::nullopt},
  };
  NodeAffinity plugin;
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    PreFilterResult result;
    PluginStatus status = plugin.PreFilter(state, *pod, result);
    EXPECT_EQ(status.code(), tc.want_code) << status.Message();
    if (tc.want_code == PluginCode::kUnschedulableAndUnresolvable) {
      EXPECT_EQ(status.reasons(), std::vector<std::string>{"pod affinity terms conflict"});
    }
    EXPECT_EQ(result.node_names, tc.want_nodes);
  }
}

TEST(NodeAffinityTest, FilterScope) {
  struct Case {
    std::string name;
    api::Pod pod;
    NodeScope want_filter;
    NodeScope want_score;
  };
  const std::string hostname(api::kLabelHostname);
  const std::vector<Case> cases = {
      {"label terms depend on the node class",
       MakePod("p").NodeSelector("zone", "z1").RequiredAffinity(Term("gpu", kExists)).Obj(),
       NodeScope::kClass, NodeScope::kClass},
      {"a hostname nodeSelector reads the individual node",
       MakePod("p").NodeSelector(hostname, "n1").Obj(), NodeScope::kNode, NodeScope::kClass},
      {"a hostname expression reads the individual node",
       MakePod("p").RequiredAffinity(Term(hostname, kIn, {"n1"})).Obj(), NodeScope::kNode,
       NodeScope::kClass},
      {"matchFields reads the individual node",
       MakePod("p").RequiredAffinity(FieldTerm(kNotIn, {"n1"})).Obj(), NodeScope::kNode,
       NodeScope::kClass},
      {"one identity term among others is enough",
       MakePod("p")
           .RequiredAffinity(Term("zone", kIn, {"z1"}))
           .RequiredAffinity(FieldTerm(kIn, {"n1"}))
           .Obj(),
       NodeScope::kNode, NodeScope::kClass},
      {"a preferred hostname term makes only the score per node",
       MakePod("p")
           .NodeSelector("zone", "z1")
           .PreferredAffinity(10, Term(hostname, kIn, {"n1"}))
           .Obj(),
       NodeScope::kClass, NodeScope::kNode},
      {"a preferred matchFields term makes only the score per node",
       MakePod("p").NodeSelector("zone", "z1").PreferredAffinity(10, FieldTerm(kIn, {"n1"})).Obj(),
       NodeScope::kClass, NodeScope::kNode},
  };
  NodeAffinity plugin;
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    // Without cycle state (computed on the fly) ...
    CycleState empty;
    EXPECT_EQ(plugin.FilterScope(empty, *pod), tc.want_filter);
    EXPECT_EQ(plugin.ScoreScope(empty, *pod), tc.want_score);
    // ... and after PreFilter / PreScore, as the framework calls it.
    CycleState state;
    PreFilterResult result;
    ASSERT_FALSE(plugin.PreFilter(state, *pod, result).IsRejected());
    plugin.PreScore(state, *pod);
    EXPECT_EQ(plugin.FilterScope(state, *pod), tc.want_filter);
    EXPECT_EQ(plugin.ScoreScope(state, *pod), tc.want_score);
  }
}

TEST(NodeAffinityTest, Score) {
  struct Case {
    std::string name;
    api::Pod pod;
    PluginCode want_prescore;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"no preferred terms skip scoring", MakePod("p").NodeSelector("zone", "z1").Obj(),
       PluginCode::kSkip, 0},
      {"one matching term scores its weight",
       MakePod("p").PreferredAffinity(30, Term("zone", kIn, {"z1"})).Obj(), PluginCode::kSuccess,
       30},
      {"a failing term scores nothing",
       MakePod("p").PreferredAffinity(30, Term("zone", kIn, {"z2"})).Obj(), PluginCode::kSuccess,
       0},
      {"matching weights are summed",
       MakePod("p")
           .PreferredAffinity(10, Term("zone", kIn, {"z1"}))
           .PreferredAffinity(20, Term("gpu-count", kGt, {"4"}))
           .PreferredAffinity(40, Term("accelerator", kIn, {"h100"}))
           .PreferredAffinity(5, FieldTerm(kIn, {"gpu-node-1"}))
           .Obj(),
       PluginCode::kSuccess, 35},
      {"a zero-weight term is skipped",
       MakePod("p")
           .PreferredAffinity(0, Term("zone", kIn, {"z1"}))
           .PreferredAffinity(7, Term("accelerator", kExists))
           .Obj(),
       PluginCode::kSuccess, 7},
      {"an empty preference matches nothing",
       MakePod("p").PreferredAffinity(50, api::NodeSelectorTerm{}).Obj(), PluginCode::kSuccess, 0},
  };
  NodeAffinity plugin;
  NodeInfo node(GpuNode());
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    PluginStatus pre = plugin.PreScore(state, *pod);
    EXPECT_EQ(pre.code(), tc.want_prescore);
    EXPECT_EQ(plugin.Score(state, *pod, node), tc.want);
  }
}

TEST(NodeAffinityTest, NormalizeScore) {
  struct Case {
    std::string name;
    std::vector<int64_t> raw;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"the best node gets 100", {0, 10, 30}, {0, 33, 100}},
      {"all zero stays zero", {0, 0}, {0, 0}},
      {"equal scores all get 100", {42, 42}, {100, 100}},
      {"scores above 100 are scaled down", {150, 300}, {50, 100}},
  };
  NodeAffinity plugin;
  PodInfoConstSharedPtr pod = MakePodInfo(MakePod("p").Ptr());
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    CycleState state;
    std::vector<int64_t> scores = tc.raw;
    plugin.NormalizeScore(state, *pod, scores);
    EXPECT_EQ(scores, tc.want);
  }
}

TEST(NodeAffinityTest, ScoreAndNormalizeAcrossNodes) {
  NodeAffinity plugin;
  PodInfoConstSharedPtr pod = MakePodInfo(MakePod("p")
                                              .PreferredAffinity(30, Term("zone", kIn, {"z1"}))
                                              .PreferredAffinity(10, Term("ssd", kExists))
                                              .Ptr());
  std::vector<NodeInfo> nodes = {
      NodeInfo(MakeNode("a").Label("zone", "z1").Label("ssd", "true").Ptr()),
      NodeInfo(MakeNode("b").Label("zone", "z1").Ptr()),
      NodeInfo(MakeNode("c").Label("ssd", "true").Ptr()),
      NodeInfo(MakeNode("d").Ptr()),
  };
  CycleState state;
  ASSERT_TRUE(plugin.PreScore(state, *pod).IsSuccess());
  std::vector<int64_t> scores;
  for (const NodeInfo& n : nodes) {
    scores.push_back(plugin.Score(state, *pod, n));
  }
  EXPECT_EQ(scores, (std::vector<int64_t>{40, 30, 10, 0}));
  plugin.NormalizeScore(state, *pod, scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 75, 25, 0}));
}

// Nodes of one shape share their labels but the hostname label: each node answers with its own.
TEST(NodeAffinityTest, HostnameLabelIsTheNodesOwn) {
  NodeAffinity plugin;
  PodInfoConstSharedPtr pod =
      MakePodInfo(MakePod("p")
                      .PreferredAffinity(20, Term("kubernetes.io/hostname", kIn, {"a", "custom"}))
                      .PreferredAffinity(5, Term("zone", kIn, {"z1"}))
                      .Ptr());
  std::vector<NodeInfo> nodes = {
      NodeInfo(MakeNode("a").Label("zone", "z1").Ptr()),
      NodeInfo(MakeNode("b").Label("zone", "z1").Ptr()),
      NodeInfo(MakeNode("c").Label("zone", "z1").Label("kubernetes.io/hostname", "custom").Ptr()),
  };
  EXPECT_EQ(nodes[0].shape(), nodes[1].shape());
  EXPECT_EQ(nodes[0].shape(), nodes[2].shape());
  CycleState state;
  ASSERT_TRUE(plugin.PreScore(state, *pod).IsSuccess());
  std::vector<int64_t> scores;
  for (const NodeInfo& n : nodes) {
    scores.push_back(plugin.Score(state, *pod, n));
  }
  EXPECT_EQ(scores, (std::vector<int64_t>{25, 5, 25}));
  api::PodSpec pinned = MakePod("p").NodeSelector("kubernetes.io/hostname", "custom").Obj().spec;
  EXPECT_FALSE(RequiredNodeAffinityMatches(pinned, nodes[0]));
  EXPECT_FALSE(RequiredNodeAffinityMatches(pinned, nodes[1]));
  EXPECT_TRUE(RequiredNodeAffinityMatches(pinned, nodes[2]));
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
