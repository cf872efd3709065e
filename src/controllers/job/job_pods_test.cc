#include "controllers/job/job_pods.h"

#include <gtest/gtest.h>

namespace tidepool::controllers::job {
namespace {

using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kT0 = TimePoint(std::chrono::seconds(1767225600));

TEST(IndexesTest, ParsesAndFormatsAsKcm) {
  struct Case {
    std::string name, text;
    int64_t completions;
    std::vector<int64_t> more;
    std::string want;
    int64_t total;
  };
  const std::vector<Case> cases = {
      {"empty", "", 5, {}, "", 0},
      {"single indexes", "1,3", 5, {}, "1,3", 2},
      {"intervals", "0-2,4", 10, {}, "0-2,4", 4},
      {"two adjacent indexes form an interval", "3", 10, {4}, "3-4", 2},
      {"added indexes merge", "1,5", 10, {2, 3, 4}, "1-5", 5},
      {"indexes beyond completions dropped", "1,3-8", 5, {}, "1,3-4", 3},
      {"malformed parts skipped", "x,2,4-3,6", 10, {}, "2,6", 2},
      {"adjacent intervals joined", "0-1,2-3", 10, {}, "0-3", 4},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Indexes ix = Indexes::Parse(tc.text, tc.completions).With(tc.more);
    EXPECT_EQ(ix.String(), tc.want);
    EXPECT_EQ(ix.Total(), tc.total);
  }
  Indexes ix = Indexes::Parse("1,3-5", 10);
  EXPECT_TRUE(ix.Has(4));
  EXPECT_FALSE(ix.Has(2));
}

JobPod FailedPod(std::vector<JobPod::Exit> exits,
                 std::vector<std::pair<std::string, std::string>> conditions = {}) {
  JobPod p;
  p.namespace_ = "default";
  p.name = "p";
  p.phase = "Failed";
  p.exits = std::move(exits);
  p.conditions = std::move(conditions);
  return p;
}

TEST(PodFailurePolicyTest, MatchesRulesInOrder) {
  const json policy = json::parse(R"({"rules": [
      {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}},
      {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [3, 4]}},
      {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [5]}},
      {"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]})");
  struct Case {
    std::string name;
    JobPod pod;
    std::string want_action;
    bool want_count;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"FailJob on the named container", FailedPod({{"main", 42}}), "FailJob", true,
       "Container main for pod default/p failed with exit code 42 matching FailJob rule at "
       "index 0"},
      {"another container's 42 is not FailJob", FailedPod({{"side", 42}}), "Count", true, ""},
      {"Ignore is not counted", FailedPod({{"main", 3}}), "Ignore", false, ""},
      {"exit code 0 never matches", FailedPod({{"main", 0}}), "", true, ""},
      {"NotIn's excluded code matches nothing", FailedPod({{"main", 5}}), "", true, ""},
      {"a pod condition", FailedPod({}, {{"DisruptionTarget", "True"}}), "FailJob", true,
       "Pod default/p has condition DisruptionTarget matching FailJob rule at index 3"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    PolicyMatch m = MatchPodFailurePolicy(policy, tc.pod);
    EXPECT_EQ(m.action, tc.want_action);
    EXPECT_EQ(m.count_failed, tc.want_count);
    EXPECT_EQ(m.fail_job_message.value_or(""), tc.want_message);
  }
  EXPECT_TRUE(MatchPodFailurePolicy(nullptr, FailedPod({{"main", 42}})).count_failed);
}

TEST(SuccessPolicyTest, MatchesAsKcm) {
  struct Case {
    std::string name, rules, succeeded;
    std::string want;  // "" when no rule is met
  };
  const std::vector<Case> cases = {
      {"all of succeededIndexes", R"([{"succeededIndexes": "0,2"}])", "0,2", "Matched rules at index 0"},
      {"not all of them", R"([{"succeededIndexes": "0-2"}])", "0,2", ""},
      {"succeededCount of succeededIndexes", R"([{"succeededIndexes": "0-3", "succeededCount": 2}])",
       "1,3", "Matched rules at index 0"},
      {"succeededCount alone", R"([{"succeededCount": 3}, {"succeededCount": 2}])", "4-5",
       "Matched rules at index 1"},
      {"an unparsable rule is skipped", R"([{"succeededIndexes": "x"}, {"succeededCount": 1}])", "0",
       "Matched rules at index 1"},
      {"nothing succeeded", R"([{"succeededCount": 0}])", "", ""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const json policy = {{"rules", json::parse(tc.rules)}};
    EXPECT_EQ(MatchSuccessPolicy(policy, 10, Indexes::Parse(tc.succeeded, 10)).value_or(""), tc.want);
  }
}

JobPod FinishedAt(TimePoint t) {
  JobPod p;
  p.containers_finished = t;
  return p;
}

TEST(BackoffRecordTest, DoublesFromTenSecondsToTheCap) {
  struct Case {
    std::string name;
    int32_t failures;
    Duration since_last;
    Duration want;
  };
  const std::vector<Case> cases = {
      {"no failures", 0, seconds(0), seconds(0)},
      {"one failure: 10 s", 1, seconds(0), seconds(10)},
      {"one failure, 4 s ago", 1, seconds(4), seconds(6)},
      {"three failures: 40 s", 3, seconds(0), seconds(40)},
      {"past the back-off", 2, seconds(25), seconds(0)},
      {"capped", 20, seconds(0), minutes(10)},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    BackoffRecord r;
    r.failures_after_last_success = tc.failures;
    r.last_failure_time = kT0;
    EXPECT_EQ(r.RemainingTime(kT0 + tc.since_last, seconds(10), minutes(10)), tc.want);
  }
}

TEST(BackoffRecordTest, ASuccessResetsTheFailuresBeforeIt) {
  const JobPod f1 = FinishedAt(kT0), f2 = FinishedAt(kT0 + seconds(5)),
               ok = FinishedAt(kT0 + seconds(7)), f3 = FinishedAt(kT0 + seconds(9));
  BackoffRecord r = BackoffRecord{}.Next({}, {&f2, &f1});
  EXPECT_EQ(r.failures_after_last_success, 2);
  EXPECT_EQ(r.last_failure_time, kT0 + seconds(5));
  r = r.Next({&ok}, {&f3});
  EXPECT_EQ(r.failures_after_last_success, 1);
  EXPECT_EQ(r.last_failure_time, kT0 + seconds(9));
  r = r.Next({&ok}, {});
  EXPECT_EQ(r.failures_after_last_success, 0);
  EXPECT_FALSE(r.last_failure_time.has_value());
}

TEST(JobPodTest, DecodesWhatTheControllerReads) {
  const json pod = json::parse(R"({
    "metadata": {"name": "x-0-abc", "namespace": "ns", "uid": "u", "resourceVersion": "7",
      "creationTimestamp": "2026-01-01T00:00:00Z",
      "finalizers": ["batch.kubernetes.io/job-tracking"],
      "annotations": {"batch.kubernetes.io/job-completion-index": "0"},
      "ownerReferences": [{"kind": "Job", "name": "x", "uid": "j", "controller": true}]},
    "spec": {"nodeName": "n1"},
    "status": {"phase": "Failed",
      "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-01-01T00:00:09Z"}],
      "containerStatuses": [{"name": "c", "restartCount": 2,
        "state": {"terminated": {"exitCode": 3, "finishedAt": "2026-01-01T00:00:08Z"}}}]}})");
  JobPod p = JobPodFromJson(pod);
  EXPECT_EQ(p.name, "x-0-abc");
  EXPECT_EQ(p.controller_kind, "Job");
  EXPECT_EQ(p.controller_name, "x");
  EXPECT_EQ(p.controller_uid, "j");
  EXPECT_TRUE(p.has_tracking_finalizer);
  EXPECT_EQ(p.completion_index, 0);
  EXPECT_EQ(p.restarts, 2);
  ASSERT_EQ(p.exits.size(), 1u);
  EXPECT_EQ(p.exits[0].exit_code, 3);
  EXPECT_FALSE(p.Active());
  // The containers' finish time wins over Ready=False's.
  EXPECT_EQ(p.FinishedTime(), kT0 + seconds(8));
}

TEST(ActivePodsLessTest, PutsTheLeastProgressedFirst) {
  JobPod unscheduled, pending, running, ready;
  unscheduled.name = "a";
  unscheduled.phase = "Pending";
  pending.name = "b";
  pending.node_name = "n";
  pending.phase = "Pending";
  running.name = "c";
  running.node_name = "n";
  running.phase = "Running";
  ready = running;
  ready.name = "d";
  ready.ready = true;
  EXPECT_TRUE(ActivePodsLess(unscheduled, pending));
  EXPECT_TRUE(ActivePodsLess(pending, running));
  EXPECT_TRUE(ActivePodsLess(running, ready));
  EXPECT_FALSE(ActivePodsLess(ready, unscheduled));
}

}  // namespace
}  // namespace tidepool::controllers::job
