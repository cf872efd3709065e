// File: cronjob_controller_test.cc
//
// The CronJob controller on a driven cluster (one EventQueue: the real API server and store,
// informers fed in revision order, emulated minutes in microseconds): Jobs on the schedule with
// kcm's names, owner reference and annotation; status.active / lastScheduleTime /
// lastSuccessfulTime; concurrencyPolicy Forbid and Replace; the history limits; suspend; kcm's
// events for a schedule that never fires.
#include "controllers/cronjob/cronjob_controller.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::cronjob {
namespace {

using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

class RecordingEvents final : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& object, std::string_view type, std::string_view reason,
             std::string message) override {
    events.push_back(object.name + " " + std::string(type) + " " + std::string(reason) + ": " +
                     message);
  }
  size_t Count(const std::string& reason) const {
    size_t n = 0;
    for (const std::string& e : events) n += e.find(" " + reason + ": ") != std::string::npos;
    return n;
  }
  std::vector<std::string> events;
};

constexpr char kCronJobs[] = "/apis/batch/v1/namespaces/default/cronjobs";
constexpr char kJobs[] = "/apis/batch/v1/namespaces/default/jobs";

json CronJob(const std::string& name, const json& spec_patch) {
  json cj = {
      {"apiVersion", "batch/v1"},
      {"kind", "CronJob"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec",
       {{"schedule", "*/1 * * * *"},
        {"jobTemplate",
         {{"metadata", {{"labels", {{"team", "ml"}}}}},
          {"spec",
           {{"template",
             {{"spec",
               {{"restartPolicy", "OnFailure"},
                {"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}}}}}}}}}};
  cj["spec"].merge_patch(spec_patch);
  return cj;
}

class CronJobControllerTest : public ::testing::Test {
 protected:
  CronJobControllerTest()
      : controller_(c_.client, c_.events.clock(), {}, &events_, nullptr, &c_.informers,
                    &c_.events) {
    controller_.Start();
    // Start just after a minute boundary, so "*/1" fires at known times.
    const TimePoint now = c_.events.Now();
    c_.RunUntil(std::chrono::ceil<minutes>(now) + seconds(5));
  }

  // Minutes since the epoch of the clock's current minute.
  int64_t MinuteNow() {
    return std::chrono::floor<minutes>(c_.events.Now().time_since_epoch()).count();
  }
  json Get(const std::string& name) {
    auto r = c_.client.Get(std::string(kCronJobs) + "/" + name);
    return r.ok() ? *r : json();
  }
  std::vector<std::string> JobNames() {
    std::vector<std::string> out;
    for (const json& j : c_.List(kJobs)) out.push_back(j["metadata"]["name"]);
    return out;
  }
  std::vector<std::string> ActiveNames(const std::string& cj) {
    std::vector<std::string> out;
    for (const json& ref : Get(cj)["status"].value("active", json::array())) {
      out.push_back(ref["name"]);
    }
    return out;
  }
  // The Job controller's part: the Job ended (Complete or Failed) now.
  void Finish(const std::string& job, const std::string& condition) {
    auto got = c_.client.Get(std::string(kJobs) + "/" + job);
    ASSERT_TRUE(got.ok());
    json j = *got;
    const std::string now = FormatRfc3339(c_.events.Now());
    j["status"]["startTime"] = now;
    j["status"]["conditions"] =
        json::array({{{"type", condition}, {"status", "True"}, {"lastTransitionTime", now}}});
    if (condition == "Complete") j["status"]["completionTime"] = now;
    ASSERT_TRUE(c_.client.Update(std::string(kJobs) + "/" + job + "/status", j).ok());
  }

  testing::DrivenCluster c_;
  RecordingEvents events_;
  CronJobController controller_;
};

TEST_F(CronJobControllerTest, CreatesAJobEveryScheduledMinute) {
  c_.Create(kCronJobs, CronJob("pi", json::object()));
  const int64_t m0 = MinuteNow();
  c_.RunFor(minutes(3));
  const std::vector<std::string> want = {"pi-" + std::to_string(m0 + 1),
                                         "pi-" + std::to_string(m0 + 2),
                                         "pi-" + std::to_string(m0 + 3)};
  EXPECT_EQ(JobNames(), want);
  EXPECT_EQ(ActiveNames("pi"), want);
  const json cj = Get("pi");
  EXPECT_EQ(cj["status"]["lastScheduleTime"], FormatRfc3339(TimePoint(minutes(m0 + 3))));
  EXPECT_FALSE(cj["status"].contains("lastSuccessfulTime"));

  const json job = c_.List(kJobs)[0];
  EXPECT_EQ(job["metadata"]["labels"]["team"], "ml");
  EXPECT_EQ(job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"],
            FormatRfc3339(TimePoint(minutes(m0 + 1))));
  const json& owner = job["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "CronJob");
  EXPECT_EQ(owner["uid"], cj["metadata"]["uid"]);
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(owner["blockOwnerDeletion"], true);
  // The Job has the API's Job defaults and the template's pod.
  EXPECT_EQ(job["spec"]["backoffLimit"], 6);
  EXPECT_EQ(job["spec"]["template"]["spec"]["containers"][0]["image"], "busybox");
  EXPECT_EQ(events_.Count("SuccessfulCreate"), 3u);
  EXPECT_EQ(controller_.jobs_created(), 3u);
}

TEST_F(CronJobControllerTest, ForbidWaitsForTheActiveJobAndReplaceDeletesIt) {
  c_.Create(kCronJobs, CronJob("forbid", {{"concurrencyPolicy", "Forbid"}}));
  c_.Create(kCronJobs, CronJob("replace", {{"concurrencyPolicy", "Replace"}}));
  const int64_t m0 = MinuteNow();
  c_.RunFor(minutes(3));
  // Forbid: the first Job never ends, so no second one.
  EXPECT_EQ(ActiveNames("forbid"), std::vector<std::string>{"forbid-" + std::to_string(m0 + 1)});
  EXPECT_GE(events_.Count("JobAlreadyActive"), 2u);
  // Replace: each minute's Job replaces the last one.
  EXPECT_EQ(ActiveNames("replace"), std::vector<std::string>{"replace-" + std::to_string(m0 + 3)});
  EXPECT_EQ(events_.Count("SuccessfulDelete"), 2u);
  // Once the active Job ends, Forbid starts the most recent missed time's Job at once (kcm's
  // behaviour without startingDeadlineSeconds), then the next minute's.
  Finish("forbid-" + std::to_string(m0 + 1), "Complete");
  c_.RunFor(seconds(1));
  EXPECT_EQ(ActiveNames("forbid"), std::vector<std::string>{"forbid-" + std::to_string(m0 + 3)});
  EXPECT_EQ(events_.Count("SawCompletedJob"), 1u);
  EXPECT_TRUE(Get("forbid")["status"].contains("lastSuccessfulTime"));
}

TEST_F(CronJobControllerTest, KeepsTheHistoryLimits) {
  c_.Create(kCronJobs,
            CronJob("h", {{"successfulJobsHistoryLimit", 1}, {"failedJobsHistoryLimit", 1}}));
  const int64_t m0 = MinuteNow();
  c_.RunFor(minutes(4));
  auto name = [&](int i) { return "h-" + std::to_string(m0 + i); };
  Finish(name(1), "Complete");
  Finish(name(2), "Complete");
  Finish(name(3), "Failed");
  Finish(name(4), "Failed");
  c_.RunFor(seconds(10));
  // The newest of each kind stays (the two ended at the same time: by name). The cleanup runs
  // first and takes the deleted ones out of status.active, so only the kept ones are "seen".
  EXPECT_EQ(JobNames(), (std::vector<std::string>{name(2), name(4)}));
  EXPECT_TRUE(ActiveNames("h").empty());
  EXPECT_EQ(events_.Count("SawCompletedJob"), 2u);
  EXPECT_EQ(events_.Count("SuccessfulDelete"), 2u);
}

TEST_F(CronJobControllerTest, SuspendedOrNeverDueMakesNoJob) {
  c_.Create(kCronJobs, CronJob("paused", {{"suspend", true}}));
  c_.Create(kCronJobs, CronJob("never", {{"schedule", "59 23 31 2 *"}}));
  c_.RunFor(minutes(3));
  EXPECT_TRUE(JobNames().empty());
  // kcm's answer for a schedule that parses but has no time: InvalidSchedule.
  ASSERT_GE(events_.Count("InvalidSchedule"), 1u);
  bool found = false;
  for (const std::string& e : events_.events) {
    found = found || e == "never Warning InvalidSchedule: invalid schedule: 59 23 31 2 * : time "
                          "difference between two schedules is less than 1 second";
  }
  EXPECT_TRUE(found);
  // Resumed without startingDeadlineSeconds: the missed time's Job at once (Kubernetes' documented
  // behaviour), then the next minute's.
  json cj = Get("paused");
  cj["spec"]["suspend"] = false;
  ASSERT_TRUE(c_.client.Update(std::string(kCronJobs) + "/paused", cj).ok());
  const int64_t m = MinuteNow();
  c_.RunFor(minutes(1));
  EXPECT_EQ(JobNames(), (std::vector<std::string>{"paused-" + std::to_string(m),
                                                  "paused-" + std::to_string(m + 1)}));
}

TEST_F(CronJobControllerTest, ATimeZoneSchedulesInItsLocalTime) {
  // 1 minute past the hour in Kolkata (UTC+05:30) is 31 minutes past in UTC.
  c_.Create(kCronJobs, CronJob("tz", {{"schedule", "1 * * * *"}, {"timeZone", "Asia/Kolkata"}}));
  c_.RunFor(minutes(61));
  const std::vector<json> jobs = c_.List(kJobs);
  ASSERT_EQ(jobs.size(), 1u);
  const std::string stamp =
      jobs[0]["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"];
  EXPECT_EQ(stamp.substr(13), ":01:00+05:30") << stamp;
}

}  // namespace
}  // namespace tidepool::controllers::cronjob
