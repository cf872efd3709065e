#include "apiserver/validation/batch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;

constexpr const char* kJob = R"({
  "apiVersion": "batch/v1", "kind": "Job",
  "metadata": {"name": "pi", "namespace": "default", "uid": "u1"},
  "spec": {"template": {"spec": {"restartPolicy": "Never",
                                 "containers": [{"name": "pi", "image": "perl"}]}}}})";

// A Job as kube-apiserver has it after create: defaults and the generated selector.
json Created(const std::string& patch) {
  json j = Patched(kJob, patch);
  DefaultJob(j);
  PrepareJobForCreate(j);
  return j;
}

TEST(JobTest, DefaultsAndGeneratedSelector) {
  const json j = Created("");
  EXPECT_EQ(j["spec"], json::parse(R"({
    "completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
    "suspend": false, "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": false,
    "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}},
    "template": {"metadata": {"labels": {"batch.kubernetes.io/controller-uid": "u1",
                                         "batch.kubernetes.io/job-name": "pi",
                                         "controller-uid": "u1", "job-name": "pi"}},
                 "spec": {"restartPolicy": "Never",
                          "containers": [{"name": "pi", "image": "perl"}]}}})"));
  EXPECT_EQ(j["metadata"]["labels"], j["spec"]["template"]["metadata"]["labels"]);
  const json parallel = Created(R"({"spec": {"parallelism": 3}})");
  EXPECT_FALSE(parallel["spec"].contains("completions"));
}

TEST(JobTest, RulesAndTexts) {
  struct Case {
    std::string name;
    std::string patch;
    bool manual = false;  // skip PrepareJobForCreate (a manual selector)
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"a valid job", "", false, {}},
      {"restartPolicy Always",
       R"({"spec": {"template": {"spec": {"restartPolicy": "Always"}}}})", false,
       {"spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", "
        "\"Never\""}},
      {"an unknown restartPolicy",
       R"({"spec": {"template": {"spec": {"restartPolicy": "Sometimes"}}}})", false,
       {"spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
        "\"Always\", \"OnFailure\", \"Never\"",
        "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
        "\"OnFailure\", \"Never\""}},
      {"negative counts", R"({"spec": {"parallelism": -1, "backoffLimit": -2}})", false,
       {"spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0"}},
      {"an unknown completionMode", R"({"spec": {"completionMode": "Sometimes"}})", false,
       {"spec.completionMode: Unsupported value: \"Sometimes\": supported values: \"NonIndexed\", "
        "\"Indexed\""}},
      {"backoffLimitPerIndex without Indexed", R"({"spec": {"backoffLimitPerIndex": 1}})", false,
       {"spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"}},
      {"an unknown podReplacementPolicy", R"({"spec": {"podReplacementPolicy": "Never"}})", false,
       {"spec.podReplacementPolicy: Unsupported value: \"Never\": supported values: \"Failed\", "
        "\"TerminatingOrFailed\""}},
      {"a user selector without manualSelector",
       R"({"spec": {"selector": {"matchLabels": {"app": "pi"}},
                    "template": {"metadata": {"labels": {"app": "pi"}}}}})",
       false,
       {"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
        "\"pi\", \"batch.kubernetes.io/controller-uid\":\"u1\"}, "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated"}},
      {"a manual selector that matches",
       R"({"spec": {"manualSelector": true, "selector": {"matchLabels": {"app": "pi"}},
                    "template": {"metadata": {"labels": {"app": "pi"}}}}})",
       true, {}},
      {"a manual selector that does not match",
       R"({"spec": {"manualSelector": true, "selector": {"matchLabels": {"app": "x"}},
                    "template": {"metadata": {"labels": {"app": "pi"}}}}})",
       true,
       {"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"pi\"}: "
        "`selector` does not match template `labels`"}},
      {"an Indexed job whose pod hostnames are not DNS labels",
       R"({"metadata": {"name": "a.b"}, "spec": {"completionMode": "Indexed", "completions": 3}})",
       false,
       {"metadata.name: Invalid value: \"a.b\": will not able to create pod with invalid DNS "
        "label: a.b-2"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    json j = Patched(kJob, tc.patch);
    DefaultJob(j);
    if (!tc.manual) PrepareJobForCreate(j);
    api::FieldErrors errors;
    ASSERT_TRUE(ValidateJob(j, nullptr, &errors).ok());
    EXPECT_THAT(Messages(errors), ElementsAreArray(tc.want));
  }
}

TEST(JobTest, UpdateRules) {
  const json old = Created("");
  json scaled = old;
  scaled["spec"]["parallelism"] = 4;
  scaled["spec"]["suspend"] = true;
  api::FieldErrors errors;
  ASSERT_TRUE(ValidateJob(scaled, &old, &errors).ok());
  EXPECT_THAT(Messages(errors), ::testing::IsEmpty());

  json changed = old;
  changed["spec"]["template"]["spec"]["containers"][0]["image"] = "python";
  changed["spec"]["completions"] = 2;
  ASSERT_TRUE(ValidateJob(changed, &old, &errors).ok());
  EXPECT_THAT(Messages(errors),
              ElementsAreArray({"spec.completions: Invalid value: 2: field is immutable",
                                "spec.template: Invalid value: core.PodTemplateSpec{ObjectMeta:"
                                "v1.ObjectMeta{...}, Spec:core.PodSpec{...}}: field is immutable"}));

  json reselected = old;
  reselected["spec"]["selector"]["matchLabels"]["extra"] = "x";
  ASSERT_TRUE(ValidateJob(reselected, &old, &errors).ok());
  EXPECT_THAT(Messages(errors),
              ElementsAreArray({"spec.template.metadata.labels: Invalid value: map[string]string{"
                                "\"batch.kubernetes.io/controller-uid\":\"u1\", "
                                "\"batch.kubernetes.io/job-name\":\"pi\", \"controller-uid\":"
                                "\"u1\", \"job-name\":\"pi\"}: `selector` does not match "
                                "template `labels`",
                                "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
                                "map[string]string{\"batch.kubernetes.io/controller-uid\":\"u1\", "
                                "\"extra\":\"x\"}, MatchExpressions:[]v1.LabelSelectorRequirement("
                                "nil)}: field is immutable"}));
}

}  // namespace
}  // namespace tidepool::apiserver::validation

namespace tidepool::apiserver::validation {
namespace {

constexpr const char* kCronJob = R"({
  "apiVersion": "batch/v1", "kind": "CronJob",
  "metadata": {"name": "pi", "namespace": "default"},
  "spec": {"schedule": "*/5 * * * *",
           "jobTemplate": {"spec": {"template": {"spec": {
             "restartPolicy": "OnFailure", "containers": [{"name": "pi", "image": "perl"}]}}}}}})";

TEST(CronJobTest, Defaults) {
  json cj = json::parse(kCronJob);
  DefaultCronJob(cj);
  EXPECT_EQ(cj["spec"]["concurrencyPolicy"], "Allow");
  EXPECT_EQ(cj["spec"]["suspend"], false);
  EXPECT_EQ(cj["spec"]["successfulJobsHistoryLimit"], 3);
  EXPECT_EQ(cj["spec"]["failedJobsHistoryLimit"], 1);
  // The JobSpec of the template gets no Job defaults.
  EXPECT_FALSE(cj["spec"]["jobTemplate"]["spec"].contains("backoffLimit"));
}

TEST(CronJobTest, RulesAndTexts) {
  struct Case {
    std::string name;
    std::string patch;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"a valid cronjob", "", {}},
      {"no schedule", R"({"spec": {"schedule": null}})", {"spec.schedule: Required value"}},
      {"four fields",
       R"({"spec": {"schedule": "* * * *"}})",
       {"spec.schedule: Invalid value: \"* * * *\": expected exactly 5 fields, found 4: [* * * "
        "*]"}},
      {"minute 60",
       R"({"spec": {"schedule": "60 * * * *"}})",
       {"spec.schedule: Invalid value: \"60 * * * *\": end of range (60) above maximum (59): 60"}},
      {"TZ in the schedule",
       R"({"spec": {"schedule": "TZ=UTC * * * * *"}})",
       {"spec.schedule: Invalid value: \"TZ=UTC * * * * *\": cannot use TZ or CRON_TZ in "
        "schedule, use timeZone field instead"}},
      {"an unknown zone",
       R"({"spec": {"timeZone": "Mars/Base"}})",
       {"spec.timeZone: Invalid value: \"Mars/Base\": unknown time zone Mars/Base"}},
      {"Local",
       R"({"spec": {"timeZone": "Local"}})",
       {"spec.timeZone: Invalid value: \"Local\": timeZone must be an explicit time zone as "
        "defined in https://www.iana.org/time-zones"}},
      {"a known zone", R"({"spec": {"timeZone": "Europe/Berlin"}})", {}},
      {"concurrencyPolicy",
       R"({"spec": {"concurrencyPolicy": "Sometimes"}})",
       {"spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", "
        "\"Forbid\", \"Replace\""}},
      {"restartPolicy Always",
       R"({"spec": {"jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Always"}}}}}})",
       {"spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "
        "\"OnFailure\", \"Never\""}},
      {"a selector",
       R"({"spec": {"jobTemplate": {"spec": {"selector": {"matchLabels": {"a": "b"}}}}}})",
       {"spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]"
        "string{\"a\":\"b\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` "
        "will be auto-generated"}},
      {"manualSelector",
       R"({"spec": {"jobTemplate": {"spec": {"manualSelector": true}}}})",
       {"spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: \"nil\", "
        "\"false\""}},
      {"negative limits",
       R"({"spec": {"successfulJobsHistoryLimit": -1, "startingDeadlineSeconds": -5}})",
       {"spec.startingDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0",
        "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0"}},
      {"a 53-character name",
       R"({"metadata": {"name": "a2345678901234567890123456789012345678901234567890123"}})",
       {"metadata.name: Invalid value: \"a2345678901234567890123456789012345678901234567890123\": "
        "must be no more than 52 characters"}},
  };
  for (const Case& c : cases) {
    json cj = Patched(kCronJob, c.patch);
    DefaultCronJob(cj);
    api::FieldErrors errors;
    ASSERT_TRUE(ValidateCronJob(cj, nullptr, &errors).ok()) << c.name;
    EXPECT_THAT(Messages(errors), ElementsAreArray(c.want)) << c.name;
  }
}

TEST(CronJobTest, UpdateAllowsAnOldTzScheduleAndLongNames) {
  json old = Patched(
      kCronJob, R"({"metadata": {"name": "a2345678901234567890123456789012345678901234567890123"},
                                   "spec": {"schedule": "TZ=UTC */5 * * * *"}})");
  DefaultCronJob(old);
  json now = old;
  now["spec"]["schedule"] = "CRON_TZ=UTC */10 * * * *";
  api::FieldErrors errors;
  ASSERT_TRUE(ValidateCronJob(now, &old, &errors).ok());
  EXPECT_TRUE(errors.empty()) << Messages(errors)[0];
  now["spec"]["timeZone"] = "UTC";
  errors.clear();
  ASSERT_TRUE(ValidateCronJob(now, &old, &errors).ok());
  EXPECT_THAT(Messages(errors),
              ElementsAreArray({"spec.schedule: Invalid value: \"CRON_TZ=UTC */10 * * * *\": "
                                "cannot use both timeZone field and TZ or CRON_TZ in schedule"}));
}

}  // namespace
}  // namespace tidepool::apiserver::validation
