#include "apiserver/validation/batch.h"

#include "api/cron_schedule.h"
#include "api/name_validation.h"
#include "apiserver/validation/defaults.h"
#include "apiserver/validation/object_meta.h"
#include "apiserver/validation/pod.h"
#include "common/go_quote.h"

namespace tidepool::apiserver::validation {
namespace {

using api::FieldError;
using api::FieldErrors;

constexpr const char* kControllerUid = "batch.kubernetes.io/controller-uid";
constexpr const char* kJobName = "batch.kubernetes.io/job-name";
constexpr const char* kLegacyControllerUid = "controller-uid";
constexpr const char* kLegacyJobName = "job-name";
constexpr int64_t kMaxParallelismForIndexedJob = 100000;
constexpr int64_t kMaxFailedIndexesForIndexedJob = 100000;
constexpr int64_t kCompletionsSoftLimit = 100000;
constexpr int64_t kParallelismLimitForHighCompletions = 10000;
constexpr int64_t kMaxFailedIndexesLimitForHighCompletions = 10000;

void CopyTemplateLabels(json& object) {
  const json* labels = At(object, {"spec", "template", "metadata", "labels"});
  if (labels == nullptr || !labels->is_object()) return;
  json* meta = ObjectMember(&object, "metadata");
  if (meta == nullptr || !StringMap(Member(meta, "labels")).empty()) return;
  (*meta)["labels"] = *labels;
}

// apivalidation.ValidateHasLabel at spec.template.metadata.labels[<key>].
void ValidateHasLabel(const json* labels, const std::string& key, const std::string& want,
                      FieldErrors* errors) {
  const std::string path = "spec.template.metadata.labels[" + key + "]";
  const api::Labels set = StringMap(labels);
  auto it = set.find(key);
  if (it == set.end()) {
    errors->push_back(FieldError::Required(path, "must be '" + want + "'"));
  } else if (it->second != want) {
    errors->push_back(FieldError::InvalidRaw(path, GoStringMap(labels), "must be '" + want + "'"));
  }
}

// validateGeneratedSelector (RequirePrefixedLabels: the batch.kubernetes.io labels too).
void ValidateGeneratedSelector(const json& object, FieldErrors* errors) {
  const json* spec = Member(object, "spec");
  const json* selector = Member(spec, "selector");
  if (IsTrue(Member(spec, "manualSelector")) || selector == nullptr) return;
  const std::string uid(Str(At(object, {"metadata", "uid"})));
  const std::string name(Str(At(object, {"metadata", "name"})));
  if (uid.empty()) errors->push_back(FieldError::Required("metadata.uid", ""));
  const json* labels = At(object, {"spec", "template", "metadata", "labels"});
  ValidateHasLabel(labels, kLegacyControllerUid, uid, errors);
  ValidateHasLabel(labels, kLegacyJobName, name, errors);
  ValidateHasLabel(labels, kControllerUid, uid, errors);
  ValidateHasLabel(labels, kJobName, name, errors);
  const api::Labels expected = {{kControllerUid, uid},
                                {kJobName, name},
                                {kLegacyControllerUid, uid},
                                {kLegacyJobName, name}};
  const Selector parsed = AsSelector(selector);
  if (parsed.kind == Selector::Kind::kParsed && !parsed.Matches(expected)) {
    errors->push_back(FieldError::InvalidRaw("spec.selector", GoLabelSelector(selector),
                                             "`selector` not auto-generated"));
  }
}

void ValidateCompletionMode(const json* spec, const std::string& p, FieldErrors* errors) {
  const json* mode_json = Member(spec, "completionMode");
  const std::string mode(Str(mode_json));
  const std::optional<int64_t> completions = Int(Member(spec, "completions"));
  const std::optional<int64_t> parallelism = Int(Member(spec, "parallelism"));
  const std::optional<int64_t> max_failed = Int(Member(spec, "maxFailedIndexes"));
  const bool per_index = Member(spec, "backoffLimitPerIndex") != nullptr;
  if (mode_json != nullptr && mode != "NonIndexed" && mode != "Indexed") {
    errors->push_back(
        FieldError::NotSupported(p + ".completionMode", mode, {"NonIndexed", "Indexed"}));
  }
  if (mode == "Indexed") {
    if (!completions) {
      errors->push_back(
          FieldError::Required(p + ".completions", "when completion mode is Indexed"));
    }
    if (parallelism && *parallelism > kMaxParallelismForIndexedJob) {
      errors->push_back(FieldError::InvalidRaw(
          p + ".parallelism", std::to_string(*parallelism),
          "must be less than or equal to 100000 when completion mode is Indexed"));
    }
    if (completions && max_failed && *max_failed > *completions) {
      errors->push_back(FieldError::InvalidRaw(p + ".maxFailedIndexes", std::to_string(*max_failed),
                                               "must be less than or equal to completions"));
    }
    if (max_failed && *max_failed > kMaxFailedIndexesForIndexedJob) {
      errors->push_back(FieldError::InvalidRaw(p + ".maxFailedIndexes", std::to_string(*max_failed),
                                               "must be less than or equal to 100000"));
    }
    if (completions && *completions > kCompletionsSoftLimit && per_index) {
      const std::string tail = " when completions are above 100000 and used with backoff limit per index";
      if (!max_failed) {
        errors->push_back(FieldError::Required(
            p + ".maxFailedIndexes", "must be specified when completions is above 100000"));
      }
      if (parallelism && *parallelism > kParallelismLimitForHighCompletions) {
        errors->push_back(FieldError::InvalidRaw(p + ".parallelism", std::to_string(*parallelism),
                                                 "must be less than or equal to 10000" + tail));
      }
      if (max_failed && *max_failed > kMaxFailedIndexesLimitForHighCompletions) {
        errors->push_back(FieldError::InvalidRaw(p + ".maxFailedIndexes",
                                                 std::to_string(*max_failed),
                                                 "must be less than or equal to 10000" + tail));
      }
    }
  }
  if (mode_json == nullptr || mode == "NonIndexed") {
    for (const char* k : {"backoffLimitPerIndex", "maxFailedIndexes"}) {
      if (const std::optional<int64_t> v = Int(Member(spec, k))) {
        errors->push_back(FieldError::InvalidRaw(p + "." + k, std::to_string(*v),
                                                 "requires indexed completion mode"));
      }
    }
  }
}

void ValidateRestartPolicy(const json* spec, const std::string& p, FieldErrors* errors) {
  const std::string policy(Str(Member(Member(Member(spec, "template"), "spec"), "restartPolicy")));
  const std::string path = p + ".template.spec.restartPolicy";
  if (policy == "Always" || policy.empty()) {
    errors->push_back(FieldError::Required(path, "valid values: \"OnFailure\", \"Never\""));
  } else if (policy != "OnFailure" && policy != "Never") {
    errors->push_back(FieldError::NotSupported(path, policy, {"OnFailure", "Never"}));
  } else if (Member(spec, "podFailurePolicy") != nullptr && policy != "Never") {
    errors->push_back(FieldError::Invalid(
        path, policy, "only \"Never\" is supported when podFailurePolicy is specified"));
  }
}

// validateJobSpec: the JobSpec at `p` ("spec", or a CronJob's "spec.jobTemplate.spec").
Status ValidateJobSpecFields(const json* spec, const std::string& p, FieldErrors* errors) {
  for (const char* k : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                        "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"}) {
    NonNegative(Member(spec, k), p + "." + k, errors);
  }
  if (Member(spec, "maxFailedIndexes") != nullptr &&
      Member(spec, "backoffLimitPerIndex") == nullptr) {
    errors->push_back(
        FieldError::Required(p + ".backoffLimitPerIndex", "when maxFailedIndexes is specified"));
  }
  ValidateCompletionMode(spec, p, errors);
  if (Member(spec, "successPolicy") != nullptr && Str(Member(spec, "completionMode")) != "Indexed") {
    errors->push_back(FieldError::InvalidRaw(p + ".successPolicy", "batch.SuccessPolicy{...}",
                                             "requires indexed completion mode"));
  }
  if (const json* policy = Member(spec, "podReplacementPolicy")) {
    const std::string v(Str(policy));
    if (Member(spec, "podFailurePolicy") != nullptr) {
      if (v != "Failed") {
        errors->push_back(FieldError::NotSupported(p + ".podReplacementPolicy", v, {"Failed"}));
      }
    } else if (v != "Failed" && v != "TerminatingOrFailed") {
      errors->push_back(FieldError::NotSupported(p + ".podReplacementPolicy", v,
                                                 {"Failed", "TerminatingOrFailed"}));
    }
  }
  TIDEPOOL_RETURN_IF_ERROR(
      ValidatePodTemplate(Member(spec, "template"), p + ".template", "Job", errors));
  ValidateRestartPolicy(spec, p, errors);
  return Status::Ok();
}

// ValidateJobSpec (validateJobSpec, then the selector rules).
Status ValidateJobSpec(const json* spec, FieldErrors* errors) {
  TIDEPOOL_RETURN_IF_ERROR(ValidateJobSpecFields(spec, "spec", errors));
  const json* tmpl = Member(spec, "template");
  const json* selector = Member(spec, "selector");
  if (selector == nullptr) {
    errors->push_back(FieldError::Required("spec.selector", ""));
  } else {
    for (FieldError& e : ValidateLabelSelector(selector, "spec.selector")) errors->push_back(e);
  }
  const Selector parsed = AsSelector(selector);
  const json* labels = Member(Member(tmpl, "metadata"), "labels");
  if (parsed.kind != Selector::Kind::kInvalid && !parsed.Matches(StringMap(labels))) {
    errors->push_back(FieldError::InvalidRaw("spec.template.metadata.labels", GoStringMap(labels),
                                             "`selector` does not match template `labels`"));
  }
  return Status::Ok();
}

// The rendering of an immutable field's new value (Go's %v of the dereferenced pointer).
std::string ImmutableValue(const json* v) {
  if (v == nullptr) return "null";
  if (v->is_string()) return GoQuote(v->get<std::string>());
  if (v->is_number()) return v->dump();
  return "{...}";
}

void Immutable(const json* spec, const json* old_spec, const char* key, FieldErrors* errors) {
  const json* now = Member(spec, key);
  const json* before = Member(old_spec, key);
  if ((now == nullptr) != (before == nullptr) || (now != nullptr && *now != *before)) {
    errors->push_back(FieldError::InvalidRaw(std::string("spec.") + key, ImmutableValue(now),
                                             "field is immutable"));
  }
}

// A template without what a suspended Job that never started may change.
json WithoutSchedulingDirectives(const json* tmpl) {
  json t = tmpl != nullptr ? *tmpl : json::object();
  if (!t.is_object()) return t;
  if (t.contains("metadata") && t["metadata"].is_object()) {
    t["metadata"].erase("labels");
    t["metadata"].erase("annotations");
  }
  if (t.contains("spec") && t["spec"].is_object()) {
    json& s = t["spec"];
    s.erase("nodeSelector");
    s.erase("tolerations");
    s.erase("schedulingGates");
    if (s.contains("affinity") && s["affinity"].is_object()) {
      s["affinity"].erase("nodeAffinity");
      if (s["affinity"].empty()) s.erase("affinity");
    }
  }
  return t;
}

void ValidateJobSpecUpdate(const json& object, const json& old, FieldErrors* errors) {
  const json* spec = Member(object, "spec");
  const json* old_spec = Member(old, "spec");
  // validateCompletions (ElasticIndexedJob: Indexed Jobs may change completions with parallelism).
  const json* completions = Member(spec, "completions");
  const json* old_completions = Member(old_spec, "completions");
  const bool same = (completions == nullptr) == (old_completions == nullptr) &&
                    (completions == nullptr || *completions == *old_completions);
  if (!same) {
    if (Str(Member(spec, "completionMode")) != "Indexed") {
      Immutable(spec, old_spec, "completions", errors);
    } else if (completions != nullptr &&
               Int(completions) != Int(Member(spec, "parallelism"))) {
      errors->push_back(FieldError::InvalidRaw("spec.completions", ImmutableValue(completions),
                                               "can only be modified in tandem with "
                                               "spec.parallelism"));
    }
  }
  const json* selector = Member(spec, "selector");
  const json* old_selector = Member(old_spec, "selector");
  if ((selector == nullptr) != (old_selector == nullptr) ||
      (selector != nullptr && *selector != *old_selector)) {
    errors->push_back(FieldError::InvalidRaw(
        "spec.selector", selector != nullptr ? GoLabelSelector(selector) : "null",
        "field is immutable"));
  }
  const bool mutable_scheduling = IsTrue(Member(old_spec, "suspend")) &&
                                  At(old, {"status", "startTime"}) == nullptr;
  const json* tmpl = Member(spec, "template");
  const json* old_tmpl = Member(old_spec, "template");
  const bool template_same =
      mutable_scheduling
          ? WithoutSchedulingDirectives(tmpl) == WithoutSchedulingDirectives(old_tmpl)
          : (tmpl == nullptr ? json() : *tmpl) == (old_tmpl == nullptr ? json() : *old_tmpl);
  if (!template_same) {
    errors->push_back(FieldError::InvalidRaw(
        "spec.template", "core.PodTemplateSpec{ObjectMeta:v1.ObjectMeta{...}, Spec:core.PodSpec{...}}",
        "field is immutable"));
  }
  for (const char* k : {"completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy",
                        "successPolicy"}) {
    Immutable(spec, old_spec, k, errors);
  }
}

}  // namespace

void DefaultJob(json& object) {
  json* spec = ObjectMember(&object, "spec");
  if (spec == nullptr) return;
  if (Member(spec, "completions") == nullptr && Member(spec, "parallelism") == nullptr) {
    (*spec)["completions"] = 1;
  }
  SetDefault(spec, "parallelism", 1);
  SetDefault(spec, "backoffLimit",
             Member(spec, "backoffLimitPerIndex") != nullptr ? 2147483647 : 6);
  CopyTemplateLabels(object);
  SetDefault(spec, "completionMode", "NonIndexed");
  SetDefault(spec, "suspend", false);
  SetDefault(spec, "podReplacementPolicy",
             Member(spec, "podFailurePolicy") != nullptr ? "Failed" : "TerminatingOrFailed");
  SetDefault(spec, "manualSelector", false);
}

void PrepareJobForCreate(json& object) {
  if (!object.is_object()) return;
  object.erase("status");
  json* spec = ObjectMember(&object, "spec");
  if (spec == nullptr || IsTrue(Member(spec, "manualSelector"))) return;
  const std::string uid(Str(At(object, {"metadata", "uid"})));
  const std::string name(Str(At(object, {"metadata", "name"})));
  json* tmpl = ObjectMember(spec, "template");
  json* labels = ObjectMember(ObjectMember(tmpl, "metadata"), "labels");
  for (const char* k : {kLegacyJobName, kJobName}) SetDefault(labels, k, name);
  for (const char* k : {kLegacyControllerUid, kControllerUid}) SetDefault(labels, k, uid);
  json* match = ObjectMember(ObjectMember(spec, "selector"), "matchLabels");
  SetDefault(match, kControllerUid, uid);
  CopyTemplateLabels(object);
}

Status ValidateJob(const json& object, const json* old, FieldErrors* errors) {
  const json* spec = Member(object, "spec");
  if (old != nullptr) {
    *errors = ValidateObjectMetaUpdate(object, *old);
    TIDEPOOL_RETURN_IF_ERROR(ValidateJobSpec(spec, errors));
    ValidateJobSpecUpdate(object, *old, errors);
    return Status::Ok();
  }
  *errors = ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true);
  ValidateGeneratedSelector(object, errors);
  TIDEPOOL_RETURN_IF_ERROR(ValidateJobSpec(spec, errors));
  const std::optional<int64_t> completions = Int(Member(spec, "completions"));
  if (Str(Member(spec, "completionMode")) == "Indexed" && completions && *completions > 0) {
    const std::string name(Str(At(object, {"metadata", "name"})));
    const std::string hostname = name + "-" + std::to_string(*completions - 1);
    if (!api::IsDns1123Label(hostname).empty()) {
      errors->push_back(FieldError::Invalid(
          "metadata.name", name, "will not able to create pod with invalid DNS label: " + hostname));
    }
  }
  return Status::Ok();
}

namespace {

// validateScheduleFormat.
void ValidateSchedule(const std::string& schedule, bool allow_tz, bool has_time_zone,
                      FieldErrors* errors) {
  if (auto parsed = api::CronSchedule::Parse(schedule); !parsed.ok()) {
    errors->push_back(
        FieldError::Invalid("spec.schedule", schedule, std::string(parsed.status().message())));
  }
  const bool tz = schedule.find("TZ") != std::string::npos;
  if (allow_tz && tz && has_time_zone) {
    errors->push_back(FieldError::Invalid("spec.schedule", schedule,
                                          "cannot use both timeZone field and TZ or CRON_TZ in "
                                          "schedule"));
  } else if (!allow_tz && tz) {
    errors->push_back(
        FieldError::Invalid("spec.schedule", schedule,
                            "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
  }
}

// validateTimeZone: IANA naming rules, then the tz database.
void ValidateTimeZone(const json* zone, FieldErrors* errors) {
  if (zone == nullptr || zone->is_null()) return;
  const std::string name(Str(zone));
  const char* path = "spec.timeZone";
  if (name.empty()) {
    errors->push_back(FieldError::Invalid(path, name, "timeZone must be nil or non-empty string"));
    return;
  }
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string part = name.substr(start, end - start);
    bool ok = !part.empty() && part.size() <= 14 && part != "." && part != ".." && part[0] != '-';
    for (char c : part) {
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
                  c == '+');
    }
    if (!ok) {
      errors->push_back(FieldError::Invalid(path, name, "unknown time zone " + name));
      return;
    }
    start = end + 1;
  }
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "local") {
    errors->push_back(FieldError::Invalid(
        path, name,
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
  }
  // Go's time.LoadLocation knows "Local" (the process's zone); any other name must be in the
  // tz database.
  if (auto z = api::LoadTimeZone(name); name != "Local" && !z.ok()) {
    errors->push_back(FieldError::Invalid(path, name, std::string(z.status().message())));
  }
}

// validateCronJobSpec.
Status ValidateCronJobSpec(const json* spec, const json* old_spec, FieldErrors* errors) {
  const std::string schedule(Str(Member(spec, "schedule")));
  const json* zone = Member(spec, "timeZone");
  if (schedule.empty()) {
    errors->push_back(FieldError::Required("spec.schedule", ""));
  } else {
    const bool allow_tz = old_spec != nullptr &&
                          Str(Member(old_spec, "schedule")).find("TZ") != std::string_view::npos;
    ValidateSchedule(schedule, allow_tz, zone != nullptr && !zone->is_null(), errors);
  }
  NonNegative(Member(spec, "startingDeadlineSeconds"), "spec.startingDeadlineSeconds", errors);
  const json* old_zone = Member(old_spec, "timeZone");
  auto same = [](const json* a, const json* b) {
    const bool a_null = a == nullptr || a->is_null(), b_null = b == nullptr || b->is_null();
    return a_null == b_null && (a_null || *a == *b);
  };
  if (old_spec == nullptr || !same(zone, old_zone)) ValidateTimeZone(zone, errors);
  const std::string policy(Str(Member(spec, "concurrencyPolicy")));
  if (policy.empty()) {
    errors->push_back(FieldError::Required("spec.concurrencyPolicy", ""));
  } else if (policy != "Allow" && policy != "Forbid" && policy != "Replace") {
    errors->push_back(
        FieldError::NotSupported("spec.concurrencyPolicy", policy, {"Allow", "Forbid", "Replace"}));
  }
  // ValidateJobTemplateSpec.
  const json* job_spec = Member(Member(spec, "jobTemplate"), "spec");
  const std::string p = "spec.jobTemplate.spec";
  TIDEPOOL_RETURN_IF_ERROR(ValidateJobSpecFields(job_spec, p, errors));
  if (const json* selector = Member(job_spec, "selector");
      selector != nullptr && !selector->is_null()) {
    errors->push_back(FieldError::InvalidRaw(p + ".selector", GoLabelSelector(selector),
                                             "`selector` will be auto-generated"));
  }
  if (IsTrue(Member(job_spec, "manualSelector"))) {
    errors->push_back(FieldError::NotSupportedRaw(p + ".manualSelector", "true", {"nil", "false"}));
  }
  for (const char* k : {"successfulJobsHistoryLimit", "failedJobsHistoryLimit"}) {
    NonNegative(Member(spec, k), std::string("spec.") + k, errors);
  }
  return Status::Ok();
}

}  // namespace

void DefaultCronJob(json& object) {
  json* spec = ObjectMember(&object, "spec");
  if (spec == nullptr) return;
  if (StrOf(spec, "concurrencyPolicy").empty()) (*spec)["concurrencyPolicy"] = "Allow";
  SetDefault(spec, "suspend", false);
  SetDefault(spec, "successfulJobsHistoryLimit", 3);
  SetDefault(spec, "failedJobsHistoryLimit", 1);
}

Status ValidateCronJob(const json& object, const json* old, FieldErrors* errors) {
  const json* spec = Member(object, "spec");
  if (old != nullptr) {
    // The 52-character name limit is not checked on update (older CronJobs keep working).
    *errors = ValidateObjectMetaUpdate(object, *old);
    return ValidateCronJobSpec(spec, Member(*old, "spec"), errors);
  }
  *errors = ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true);
  TIDEPOOL_RETURN_IF_ERROR(ValidateCronJobSpec(spec, nullptr, errors));
  // The controller names Jobs "<name>-<minutes since the epoch>": 11 more characters within a
  // label's 63.
  const std::string name(Str(At(object, {"metadata", "name"})));
  if (name.size() > 52) {
    errors->push_back(
        FieldError::Invalid("metadata.name", name, "must be no more than 52 characters"));
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
