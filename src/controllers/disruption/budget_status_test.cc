#include "controllers/disruption/budget_status.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tidepool::controllers::disruption {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const TimePoint kNow = TimePoint(seconds(1796180000));

PodFacts Pod(const std::string& name, bool ready = true, const std::string& rs = "rs") {
  PodFacts p;
  p.name = name;
  p.ready = ready;
  if (!rs.empty()) {
    p.controller_kind = "ReplicaSet";
    p.controller_api_version = "apps/v1";
    p.controller_name = rs;
    p.controller_uid = "uid-" + rs;
  }
  return p;
}

json Pdb(json spec, json status = nullptr) {
  json pdb = {{"metadata", {{"name", "b"}, {"namespace", "default"}, {"generation", 3}}},
              {"spec", std::move(spec)}};
  if (!status.is_null()) pdb["status"] = std::move(status);
  return pdb;
}

struct Case {
  std::string name;
  json pdb;
  std::vector<PodFacts> pods;
  int64_t expected, desired, healthy, allowed;
  std::string condition_status, condition_reason, condition_message = "";
};

TEST(BudgetStatusTest, KcmArithmetic) {
  PodFacts unready = Pod("u", false);
  PodFacts deleting = Pod("d");
  deleting.deleting = true;
  PodFacts orphan = Pod("o", true, "");
  const std::vector<Case> cases = {
      {"minAvailable 2 of 2 ready: none may go", Pdb({{"minAvailable", 2}}),
       {Pod("a"), Pod("b")}, 2, 2, 2, 0, "False", "InsufficientPods"},
      {"minAvailable 1 of 2 ready: one may go", Pdb({{"minAvailable", 1}}),
       {Pod("a"), Pod("b")}, 2, 1, 2, 1, "True", "SufficientPods"},
      {"unready and deleting pods are not healthy", Pdb({{"minAvailable", 1}}),
       {Pod("a"), unready, deleting}, 3, 1, 1, 0, "False", "InsufficientPods"},
      {"maxUnavailable counts the controller's replicas", Pdb({{"maxUnavailable", 1}}),
       {Pod("a"), Pod("b")}, 3, 2, 2, 0, "False", "InsufficientPods"},
      {"a percentage is rounded up", Pdb({{"minAvailable", "50%"}}),
       {Pod("a"), Pod("b"), Pod("c")}, 3, 2, 3, 1, "True", "SufficientPods"},
      {"maxUnavailable percentage", Pdb({{"maxUnavailable", "34%"}}),
       {Pod("a"), Pod("b"), Pod("c")}, 3, 1, 3, 2, "True", "SufficientPods"},
      {"no pods: nothing may go", Pdb({{"minAvailable", 0}}), {}, 0, 0, 0, 0, "False",
       "InsufficientPods"},
      {"unmanaged pods are left out of the scale", Pdb({{"maxUnavailable", 1}}),
       {Pod("a"), orphan}, 3, 2, 2, 0, "False", "InsufficientPods"},
      {"a controller nobody finds: failSafe", Pdb({{"maxUnavailable", 1}}),
       {Pod("a", true, "gone")}, 0, 0, 0, 0, "False", "SyncFailed",
       "found no controllers for pod \"a\""},
      {"a string that is not a percentage: failSafe", Pdb({{"minAvailable", "2"}}),
       {Pod("a")}, 0, 0, 0, 0, "False", "SyncFailed",
       "invalid value for IntOrString: invalid type: string is not a percentage"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    BudgetInputs in;
    in.pdb = &c.pdb;
    for (const PodFacts& p : c.pods) in.pods.push_back(&p);
    in.scale = [](const PodFacts& p) -> StatusOr<int32_t> {
      if (p.controller_name == "rs") return 3;
      return NotFoundError(p.name);
    };
    in.now = kNow;
    const BudgetResult r = ComputeBudgetStatus(in);
    EXPECT_TRUE(r.changed);
    ASSERT_EQ(r.status["conditions"].size(), 1u) << r.status.dump();
    const json& cond = r.status["conditions"][0];
    EXPECT_EQ(cond["type"], "DisruptionAllowed");
    EXPECT_EQ(cond["status"], c.condition_status);
    EXPECT_EQ(cond["reason"], c.condition_reason);
    EXPECT_EQ(cond["message"], c.condition_message);
    EXPECT_EQ(cond["lastTransitionTime"], "2026-12-02T02:53:20Z");
    EXPECT_EQ(r.status["disruptionsAllowed"], c.allowed);
    if (c.condition_reason == "SyncFailed") continue;
    EXPECT_EQ(r.status["expectedPods"], c.expected);
    EXPECT_EQ(r.status["desiredHealthy"], c.desired);
    EXPECT_EQ(r.status["currentHealthy"], c.healthy);
    EXPECT_EQ(r.status["observedGeneration"], 3);
    EXPECT_EQ(cond["observedGeneration"], 3);
    EXPECT_EQ(r.unmanaged_warning.empty(), c.name.find("unmanaged") == std::string::npos);
  }
}

TEST(BudgetStatusTest, AnUnchangedStatusIsNotWrittenAgain) {
  json pdb = Pdb({{"minAvailable", 1}});
  PodFacts a = Pod("a"), b = Pod("b");
  BudgetInputs in;
  in.pdb = &pdb;
  in.pods = {&a, &b};
  in.now = kNow;
  BudgetResult first = ComputeBudgetStatus(in);
  ASSERT_TRUE(first.changed);
  pdb["status"] = first.status;
  in.now = kNow + seconds(30);
  BudgetResult second = ComputeBudgetStatus(in);
  EXPECT_FALSE(second.changed);
  // A pod turning unready changes it; the condition's transition time moves with its status.
  b.ready = false;
  BudgetResult third = ComputeBudgetStatus(in);
  ASSERT_TRUE(third.changed);
  EXPECT_EQ(third.status["disruptionsAllowed"], 0);
  EXPECT_EQ(third.status["conditions"][0]["status"], "False");
  EXPECT_EQ(third.status["conditions"][0]["lastTransitionTime"], "2026-12-02T02:53:50Z");
}

TEST(BudgetStatusTest, DisruptedPodsCountUntilTheirDeletionTimeout) {
  json pdb = Pdb({{"minAvailable", 1}},
                 {{"disruptedPods", {{"a", "2026-12-02T02:52:20Z"}, {"b", "2026-12-02T02:50:00Z"}}}});
  PodFacts a = Pod("a"), b = Pod("b"), c = Pod("c");
  BudgetInputs in;
  in.pdb = &pdb;
  in.pods = {&a, &b, &c};
  in.now = kNow;  // 02:53:20: a was evicted 60 s ago, b 200 s ago (past the 2-min timeout)
  BudgetResult r = ComputeBudgetStatus(in);
  EXPECT_EQ(r.status["disruptedPods"], json({{"a", "2026-12-02T02:52:20Z"}}));
  EXPECT_EQ(r.status["currentHealthy"], 2);  // b and c
  EXPECT_EQ(r.status["disruptionsAllowed"], 1);
  ASSERT_TRUE(r.recheck.has_value());
  EXPECT_EQ(*r.recheck, TimePoint(seconds(1796180000 - 60 + 120)));
  EXPECT_EQ(r.not_deleted, std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace tidepool::controllers::disruption
