#include "controllers/daemonset/node_pods.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "controllers/daemonset/daemon_pods.h"

namespace tidepool::controllers::daemonset {
namespace {

const TimePoint kT0 = TimePoint() + std::chrono::hours(1000);

DaemonPodPtr Pod(const std::string& name, const std::string& node, api::Labels labels,
                 bool bound = true, int created_s = 0) {
  auto p = std::make_shared<DaemonPod>();
  p->ns = "kube-system";
  p->name = name;
  p->uid = "uid-" + name;
  p->labels = std::move(labels);
  p->controller_uid = "ds-uid";
  p->node_name = node;
  p->bound = bound;
  p->created = kT0 + std::chrono::seconds(created_s);
  return p;
}

NodePods::Params Params() { return {"ds-uid", api::LabelSelector{{{"app", "dp"}}, {}}, "2", "h2"}; }

std::vector<std::string> Names(const NodePods::Group& g) {
  std::vector<std::string> out;
  for (const DaemonPodPtr& p : g) out.push_back(p->name);
  return out;
}

// kcm's getNodesToDaemonPods over every pod, as the controller grouped them before NodePods.
std::map<std::string, std::vector<std::string>> Regroup(
    const NodePods::Params& params, const std::map<std::string, DaemonPodPtr>& pods) {
  std::map<std::string, NodePods::Group> groups;
  for (const auto& [key, p] : pods) {
    if (params.selector->Matches(p->labels)) groups[p->node_name].push_back(p);
  }
  std::map<std::string, std::vector<std::string>> out;
  for (auto& [node, g] : groups) {
    std::sort(g.begin(), g.end(), OlderFirst);
    out[node] = Names(g);
  }
  return out;
}

std::map<std::string, std::vector<std::string>> Grouped(const NodePods& pods) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [node, g] : pods.by_node()) out[node] = Names(g);
  return out;
}

TEST(NodePodsTest, GroupsByNodeInKcmsOrder) {
  struct Case {
    const char* name;
    std::vector<DaemonPodPtr> pods;
    std::map<std::string, std::vector<std::string>> want;
    std::vector<std::string> unmatched;
  };
  const api::Labels dp = {{"app", "dp"}};
  const std::vector<Case> cases = {
      {"one per node",
       {Pod("a", "n1", dp), Pod("b", "n2", dp)},
       {{"n1", {"a"}}, {"n2", {"b"}}},
       {}},
      {"bound before unbound, then older first, then by name",
       {Pod("new", "n1", dp, true, 5), Pod("pending", "n1", dp, false, 0),
        Pod("old", "n1", dp, true, 1), Pod("old2", "n1", dp, true, 1)},
       {{"n1", {"old", "old2", "new", "pending"}}},
       {}},
      {"neither bound nor pinned: under the empty name",
       {Pod("x", "", dp, false)},
       {{"", {"x"}}},
       {}},
      {"the selector no longer matches: kept apart",
       {Pod("a", "n1", dp), Pod("b", "n1", {{"app", "other"}})},
       {{"n1", {"a"}}},
       {"b"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodePods pods(Params());
    for (const DaemonPodPtr& p : c.pods) pods.Set(p->ns + "/" + p->name, p);
    EXPECT_EQ(Grouped(pods), c.want);
    std::vector<std::string> unmatched;
    for (const DaemonPodPtr& p : pods.Unmatched()) unmatched.push_back(p->name);
    EXPECT_EQ(unmatched, c.unmatched);
  }
}

TEST(NodePodsTest, FollowsBindingsRelabelsAndDeletions) {
  NodePods pods(Params());
  const api::Labels dp = {{"app", "dp"}};
  pods.Set("kube-system/a", Pod("a", "n1", dp, false));
  pods.Set("kube-system/b", Pod("b", "n1", dp, true));
  EXPECT_EQ(Grouped(pods), (std::map<std::string, std::vector<std::string>>{{"n1", {"b", "a"}}}));
  pods.Set("kube-system/a", Pod("a", "n2", dp, true));  // bound elsewhere
  EXPECT_EQ(Grouped(pods),
            (std::map<std::string, std::vector<std::string>>{{"n1", {"b"}}, {"n2", {"a"}}}));
  pods.Set("kube-system/b", Pod("b", "n1", {{"app", "x"}}));  // relabelled
  EXPECT_EQ(Grouped(pods), (std::map<std::string, std::vector<std::string>>{{"n2", {"a"}}}));
  EXPECT_EQ(pods.Unmatched().size(), 1u);
  EXPECT_EQ(pods.outdated(), 1u);  // a: no revision labels
  pods.Set("kube-system/a", Pod("a", "n2", {{"app", "dp"}, {kRevisionHashLabel, "h2"}}));
  EXPECT_EQ(pods.outdated(), 0u);
  pods.Set("kube-system/b", nullptr);  // released or gone
  pods.Set("kube-system/a", nullptr);
  EXPECT_TRUE(pods.by_node().empty());
  EXPECT_TRUE(pods.Unmatched().empty());
  EXPECT_EQ(pods.grouped(), 0u);
}

TEST(NodePodsTest, AgreesWithARegroupThroughRandomChanges) {
  std::mt19937_64 rng(7);
  const NodePods::Params params = Params();
  NodePods pods(params);
  std::map<std::string, DaemonPodPtr> truth;
  for (int step = 0; step < 3000; ++step) {
    const std::string name = "p" + std::to_string(rng() % 60);
    const std::string key = "kube-system/" + name;
    if (rng() % 5 == 0) {
      truth.erase(key);
      pods.Set(key, nullptr);
    } else {
      api::Labels labels =
          rng() % 6 == 0 ? api::Labels{{"app", "other"}} : api::Labels{{"app", "dp"}};
      if (rng() % 2 == 0) labels[kTemplateGenerationLabel] = std::to_string(1 + rng() % 2);
      if (rng() % 2 == 0) labels[kRevisionHashLabel] = rng() % 2 == 0 ? "h1" : "h2";
      const std::string node = rng() % 10 == 0 ? "" : "n" + std::to_string(rng() % 8);
      DaemonPodPtr p = Pod(name, node, labels, rng() % 3 != 0, static_cast<int>(rng() % 4));
      truth[key] = p;
      pods.Set(key, p);
    }
    ASSERT_EQ(Grouped(pods), Regroup(params, truth)) << "step " << step;
    size_t matching = 0, outdated = 0;
    for (const auto& [key, p] : truth) {
      if (!params.selector->Matches(p->labels)) continue;
      ++matching;
      if (!IsUpdated(p->labels, params.generation, params.hash)) ++outdated;
    }
    ASSERT_EQ(pods.grouped(), matching);
    ASSERT_EQ(pods.outdated(), outdated);
    ASSERT_EQ(pods.Unmatched().size(), truth.size() - matching);
  }
}

}  // namespace
}  // namespace tidepool::controllers::daemonset
