#include "controllers/job/job_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"

namespace tidepool::controllers::job {
namespace {

using nlohmann::json;

constexpr char kJobsPath[] = "/apis/batch/v1/jobs";
constexpr char kJobControllerName[] = "kubernetes.io/job-controller";
// How often the queues look again while the informers have not synced.
constexpr Duration kPoll = std::chrono::milliseconds(20);
// MaxUncountedPods, MaxPodCreateDeletePerSync.
constexpr size_t kMaxUncountedPods = 500;
constexpr int32_t kMaxPodCreateDeletePerSync = 500;
// names.MaxGeneratedNameLength: 63 less 5 random characters.
constexpr size_t kMaxGeneratedNameLength = 58;

const json& Field(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}
std::string Str(const json& obj, const char* key) {
  const json& v = Field(obj, key);
  return v.is_string() ? v.get<std::string>() : "";
}
std::optional<int64_t> Int(const json& obj, const char* key) {
  const json& v = Field(obj, key);
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<int64_t>();
}
bool Bool(const json& obj, const char* key) {
  const json& v = Field(obj, key);
  return v.is_boolean() && v.get<bool>();
}

const json& Spec(const json& job) { return Field(job, "spec"); }
bool Suspended(const json& job) { return Bool(Spec(job), "suspend"); }
bool Indexed(const json& job) { return Str(Spec(job), "completionMode") == "Indexed"; }
std::optional<int64_t> Completions(const json& job) { return Int(Spec(job), "completions"); }
bool HasPodFailurePolicy(const json& job) { return Field(Spec(job), "podFailurePolicy").is_object(); }

// onlyReplaceFailedPods: podReplacementPolicy Failed, or a podFailurePolicy.
bool OnlyReplaceFailedPods(const json& job) {
  return Str(Spec(job), "podReplacementPolicy") == "Failed" || HasPodFailurePolicy(job);
}

// isPodFailed: phase Failed; or, unless only failed pods are replaced, being deleted before
// it succeeded.
bool IsPodFailed(const JobPod& p, const json& job) {
  if (p.phase == "Failed") return true;
  if (OnlyReplaceFailedPods(job)) return false;
  return p.deletion_timestamp.has_value() && p.phase != "Succeeded";
}

json NewCondition(const std::string& type, const std::string& status, const std::string& reason,
                  const std::string& message, TimePoint now) {
  json c = {{"type", type},
            {"status", status},
            {"lastProbeTime", FormatRfc3339(now)},
            {"lastTransitionTime", FormatRfc3339(now)}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

const json* FindCondition(const json& status, const std::string& type) {
  const json& conds = Field(status, "conditions");
  if (!conds.is_array()) return nullptr;
  for (const json& c : conds) {
    if (Str(c, "type") == type) return &c;
  }
  return nullptr;
}
bool ConditionTrue(const json& status, const std::string& type) {
  const json* c = FindCondition(status, type);
  return c != nullptr && Str(*c, "status") == "True";
}
bool IsFinished(const json& job) {
  const json& st = Field(job, "status");
  return ConditionTrue(st, "Complete") || ConditionTrue(st, "Failed");
}

// ensureJobConditionStatus: replaces the condition of `type` when it differs, appends it when
// absent (unless its status is False); true when the list changed.
bool EnsureCondition(json& status, const std::string& type, const std::string& cstatus,
                     const std::string& reason, const std::string& message, TimePoint now) {
  json& conds = status["conditions"];
  if (!conds.is_array()) conds = json::array();
  for (json& c : conds) {
    if (Str(c, "type") != type) continue;
    if (Str(c, "status") != cstatus || Str(c, "reason") != reason || Str(c, "message") != message) {
      c = NewCondition(type, cstatus, reason, message, now);
      return true;
    }
    return false;
  }
  if (cstatus != "False") {
    conds.push_back(NewCondition(type, cstatus, reason, message, now));
    return true;
  }
  if (conds.empty()) status.erase("conditions");
  return false;
}

std::set<std::string> UidSet(const json& list) {
  std::set<std::string> out;
  if (!list.is_array()) return out;
  for (const json& u : list) {
    if (u.is_string()) out.insert(u.get<std::string>());
  }
  return out;
}

// Sets an omitempty int32 field of the status.
void SetCount(json& status, const char* key, int64_t v) {
  if (v == 0) {
    status.erase(key);
  } else {
    status[key] = v;
  }
}

// podGenerateNameWithIndex.
std::string GenerateNameWithIndex(const std::string& job, int64_t index) {
  const std::string append = "-" + std::to_string(index) + "-";
  std::string prefix = job + append;
  if (prefix.size() > kMaxGeneratedNameLength) {
    prefix = job.substr(0, kMaxGeneratedNameLength - append.size()) + append;
  }
  return prefix;
}

std::string ErrorText(const Status& s) { return std::string(s.message()); }

}  // namespace

// One sync's working set (kcm's syncJobCtx).
struct JobController::SyncState {
  std::string key, ns, name, uid;
  json job;  // the working copy; its status is what gets written
  TimePoint now;
  std::vector<JobPod> pods;
  std::vector<const JobPod*> active_pods;
  bool indexed = false;
  std::optional<int64_t> completions;
  int64_t parallelism = 1;
  int64_t backoff_limit = 6;
  // The condition the Job is heading for (FailureTarget / SuccessCriteriaMet / Failed /
  // Complete), or null.
  json finished;
  int32_t succeeded = 0;
  int32_t failed = 0;
  Indexes prev_succeeded_indexes;
  Indexes succeeded_indexes;
  BackoffRecord new_backoff;
  std::set<std::string> expected_rm_finalizers;
  std::set<std::string> uncounted_succeeded;
  std::set<std::string> uncounted_failed;
  int32_t terminating = 0;
  int32_t ready = 0;

  json& status() { return job["status"]; }
};

JobController::JobController(const client::RestClient& client, const Clock& clock,
                             JobControllerOptions options, autoscaler::EventRecorder* recorder,
                             log::Logger* logger, client::SharedInformerFactory* informers,
                             TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  if (executor == nullptr) own_timers_ = std::make_unique<ThreadTimerService>(clock_);
  TimerService* timers = executor != nullptr ? executor : own_timers_.get();
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return SyncWithBackoff(key); },
      [this] { return HasSynced(); }, kPoll, timers);
  orphan_queue_ = std::make_unique<WorkQueue>(
      clock_,
      [this](const std::string& pod_key) {
        SyncOrphanPod(pod_key);
        return std::optional<TimePoint>();
      },
      [this] { return HasSynced(); }, kPoll, timers);
  client::InformerOptions jobs;
  jobs.path = kJobsPath;
  jobs.name = "jobs";
  jobs.seed = options.seed;
  jobs.transform = client::StripManagedFields;
  jobs.transform_name = client::kStripManagedFieldsName;
  jobs.drop_managed_fields = true;
  jobs_ = client::MakeInformer(informers, client_, clock_, jobs, logger);
  auto mark_now = [this](const client::ObjectRef& o) {
    Mark(client::Informer::KeyOf(*o), clock_.Now());
  };
  jobs_->AddEventHandlers(
      {[mark_now](const client::ObjectRef& o, bool) { mark_now(o); },
       [this](const client::ObjectRef& old_obj, const client::ObjectRef& o) {
         // A spec change syncs at once; a status change (usually ours) after the batch period.
         const bool spec_changed =
             Int(Field(*old_obj, "metadata"), "generation") != Int(Field(*o, "metadata"), "generation");
         Mark(client::Informer::KeyOf(*o),
              clock_.Now() + (spec_changed ? Duration::zero() : options_.sync_batch_period));
         // A finished Job's pods should have lost the finalizer already: a backup.
         if (IsFinished(*o)) {
           CleanupPodFinalizers(Str(Field(*o, "metadata"), "namespace"),
                                Str(Field(*o, "metadata"), "uid"));
         }
       },
       [this, mark_now](const client::ObjectRef& o, bool) {
         mark_now(o);
         CleanupPodFinalizers(Str(Field(*o, "metadata"), "namespace"),
                              Str(Field(*o, "metadata"), "uid"));
       }});
  // What the controller needs is kept as JobPod: the decoding informer of pods (shared with the
  // other controllers when they share a factory).
  const client::InformerOptions pods =
      client::DecodingInformerOptions("pods", "/api/v1/pods", options.seed + 1);
  pods_ = client::MakeInformer(informers, client_, clock_, pods, logger);
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPodAdd(o); },
       [this](const client::ObjectRef& old_obj, const client::ObjectRef& o) { OnPodUpdate(old_obj, o); },
       [this](const client::ObjectRef& o, bool unknown) { OnPodDelete(o, unknown); }});
}

JobController::~JobController() { Stop(); }

void JobController::Start() {
  if (own_timers_ != nullptr) {  // with an executor, a driver feeds the informers
    jobs_->Start();
    pods_->Start();
  }
  queue_->Start();
  orphan_queue_->Start();
  if (own_timers_ != nullptr) own_timers_->Start();
}

void JobController::Stop() {
  queue_->Stop();
  orphan_queue_->Stop();
  // A sync in progress finishes; then the worker is joined.
  if (own_timers_ != nullptr) own_timers_->Stop();
  // Both informers at once: an open watch takes a moment to notice.
  client::StopAll({jobs_.get(), pods_.get()});
}

bool JobController::HasSynced() const { return jobs_->HasSynced() && pods_->HasSynced(); }

uint64_t JobController::pods_created() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_created_;
}

uint64_t JobController::status_writes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_writes_;
}

// ---- Informer handlers ---------------------------------------------------------------------

std::optional<std::string> JobController::JobKeyOf(const JobPod& pod) const {
  if (pod.controller_kind != "Job" || pod.controller_name.empty()) return std::nullopt;
  const std::string key = pod.namespace_ + "/" + pod.controller_name;
  client::ObjectRef job = jobs_->Get(key);
  if (job == nullptr || Str(Field(*job, "metadata"), "uid") != pod.controller_uid) {
    return std::nullopt;
  }
  return key;
}

void JobController::OnPodAdd(const client::ObjectRef& obj) {
  JobPod p = JobPodFromJson(*obj);
  {
    std::lock_guard<std::mutex> lock(mu_);
    pods_by_ns_[p.namespace_][p.name] = p;
  }
  if (p.deletion_timestamp.has_value()) {
    // A pod already being deleted (a restart of the controller) is not a creation.
    PodDeleted(p, false);
    return;
  }
  if (std::optional<std::string> key = JobKeyOf(p)) {
    CreationObserved(*key);
    Mark(*key, clock_.Now() + options_.sync_batch_period);
  } else if (p.controller_uid.empty() && p.has_tracking_finalizer) {
    EnqueueOrphan(p);
  }
}

void JobController::OnPodUpdate(const client::ObjectRef&, const client::ObjectRef& obj) {
  JobPod p = JobPodFromJson(*obj);
  std::optional<JobPod> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    JobPod& slot = pods_by_ns_[p.namespace_][p.name];
    if (!slot.uid.empty()) old = slot;
    slot = p;
  }
  if (old.has_value() && old->resource_version == p.resource_version) return;
  if (p.deletion_timestamp.has_value()) {
    PodDeleted(p, false);
    return;
  }
  if (old.has_value() && old->controller_uid != p.controller_uid) {
    if (std::optional<std::string> old_key = JobKeyOf(*old)) {
      Mark(*old_key, clock_.Now() + options_.sync_batch_period);
    }
  }
  if (std::optional<std::string> key = JobKeyOf(p)) {
    if (!p.has_tracking_finalizer) {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = finalizer_expectations_.find(*key); it != finalizer_expectations_.end()) {
        it->second.erase(p.uid);
      }
    }
    Mark(*key, clock_.Now() + options_.sync_batch_period);
  } else if (p.controller_uid.empty() && p.has_tracking_finalizer) {
    EnqueueOrphan(p);
  }
}

void JobController::OnPodDelete(const client::ObjectRef& obj, bool) {
  const json& m = Field(*obj, "metadata");
  const std::string ns = Str(m, "namespace"), name = Str(m, "name");
  std::optional<JobPod> last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = pods_by_ns_.find(ns); it != pods_by_ns_.end()) {
      if (auto p = it->second.find(name); p != it->second.end()) {
        last = std::move(p->second);
        it->second.erase(p);
      }
      if (it->second.empty()) pods_by_ns_.erase(it);
    }
  }
  // An observed deletion carries the last state; an inferred one only a stub (use ours).
  JobPod p = Field(*obj, "status").is_object() ? JobPodFromJson(*obj) : last.value_or(JobPod{});
  if (p.uid.empty()) return;
  PodDeleted(p, true);
}

void JobController::PodDeleted(const JobPod& pod, bool final) {
  std::optional<std::string> key = JobKeyOf(pod);
  client::ObjectRef job = key.has_value() ? jobs_->Get(*key) : nullptr;
  if (job == nullptr || IsFinished(*job)) {
    // No Job will remove this finalizer.
    if (!final && pod.has_tracking_finalizer) EnqueueOrphan(pod);
    return;
  }
  DeletionObserved(*key);
  {
    std::lock_guard<std::mutex> lock(mu_);
    bool removal_expected = false;
    if (auto it = finalizer_expectations_.find(*key); it != finalizer_expectations_.end()) {
      removal_expected = it->second.count(pod.uid) > 0;
      if (final || !pod.has_tracking_finalizer) it->second.erase(pod.uid);
    }
    if (final && pod.has_tracking_finalizer && !removal_expected) {
      // Gone before it was counted: kcm would still see it (the file comment).
      JobPod kept = pod;
      if (!kept.deletion_timestamp.has_value()) kept.deletion_timestamp = clock_.Now();
      if (!kept.Terminal()) kept.phase = "Failed";
      tombstones_[*key][kept.uid] = std::move(kept);
    }
  }
  Mark(*key, clock_.Now() + options_.sync_batch_period);
}

// ---- Expectations --------------------------------------------------------------------------

bool JobController::SatisfiedExpectations(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = expectations_.find(key);
  if (it == expectations_.end()) return true;
  const Expectations& e = it->second;
  return (e.adds <= 0 && e.dels <= 0) || clock_.Now() - e.at > options_.expectations.get();
}

void JobController::ExpectCreations(const std::string& key, int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  expectations_[key] = {n, 0, clock_.Now()};
}

void JobController::ExpectDeletions(const std::string& key, int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  expectations_[key] = {0, n, clock_.Now()};
}

void JobController::CreationObserved(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = expectations_.find(key); it != expectations_.end()) --it->second.adds;
}

void JobController::DeletionObserved(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = expectations_.find(key); it != expectations_.end()) --it->second.dels;
}

// ---- The work queue ------------------------------------------------------------------------

void JobController::Mark(const std::string& key, TimePoint at) { queue_->AddAt(key, at); }

std::optional<TimePoint> JobController::SyncWithBackoff(const std::string& key) {
  Status s = Sync(key);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    failures_.erase(key);
    return std::nullopt;
  }
  // The API back-off: 1 s doubling to 1 min per Job.
  Duration delay = options_.api_backoff;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int n = ++failures_[key];
    for (int i = 1; i < n && delay < options_.api_backoff_max; ++i) delay *= 2;
  }
  delay = std::min(delay, options_.api_backoff_max);
  if (log_ != nullptr && s.code() != StatusCode::kAborted) {
    log_->Warning("syncing job", {{"job", key}, {"err", s.ToString()}});
  }
  return clock_.Now() + delay;
}

// ---- Orphan pods -----------------------------------------------------------------------------

void JobController::EnqueueOrphan(const JobPod& pod) {
  orphan_queue_->Add(pod.namespace_ + "/" + pod.name);
}

void JobController::CleanupPodFinalizers(const std::string& ns, const std::string& uid) {
  std::vector<JobPod> pods;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = pods_by_ns_.find(ns); it != pods_by_ns_.end()) {
      for (const auto& [name, p] : it->second) {
        if (p.controller_uid == uid && p.has_tracking_finalizer) pods.push_back(p);
      }
    }
  }
  for (const JobPod& p : pods) EnqueueOrphan(p);
}

// syncOrphanPod: removes the finalizer unless a live, unfinished Job (or another kind of
// controller) owns the pod.
void JobController::SyncOrphanPod(const std::string& pod_key) {
  std::optional<JobPod> pod;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t slash = pod_key.find('/');
    auto it = pods_by_ns_.find(pod_key.substr(0, slash));
    if (it != pods_by_ns_.end()) {
      if (auto p = it->second.find(pod_key.substr(slash + 1)); p != it->second.end()) pod = p->second;
    }
  }
  if (!pod.has_value() || !pod->has_tracking_finalizer) return;
  if (!pod->controller_uid.empty()) {
    if (pod->controller_kind != "Job" || pod->controller_api_version != "batch/v1") return;
    if (std::optional<std::string> key = JobKeyOf(*pod)) {
      client::ObjectRef job = jobs_->Get(*key);
      if (job != nullptr && !IsFinished(*job)) return;  // still the Job's to count
    }
  }
  Status error;
  if (!RemoveFinalizer("", *pod, error) && log_ != nullptr) {
    log_->Warning("removing the tracking finalizer of an orphan pod",
                  {{"pod", pod_key}, {"err", error.ToString()}});
  }
}

// ---- syncJob -------------------------------------------------------------------------------

Status JobController::Sync(const std::string& key) {
  const client::ObjectRef shared = jobs_->Get(key);
  if (shared == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    expectations_.erase(key);
    finalizer_expectations_.erase(key);
    backoff_.erase(key);
    tombstones_.erase(key);
    return Status::Ok();
  }
  const json& spec = Spec(*shared);
  if (const std::string managed_by = Str(spec, "managedBy");
      !managed_by.empty() && managed_by != kJobControllerName) {
    return Status::Ok();
  }
  if (IsFinished(*shared)) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      backoff_.erase(key);
      tombstones_.erase(key);
    }
    HandleTtl(key, *shared);
    return Status::Ok();
  }
  if (const std::string mode = Str(spec, "completionMode");
      !mode.empty() && mode != "NonIndexed" && mode != "Indexed") {
    Event(*shared, "Warning", "UnknownCompletionMode",
          "Skipped Job sync because completion mode is unknown");
    return Status::Ok();
  }

  SyncState s;
  s.key = key;
  s.job = *shared;
  s.now = clock_.Now();
  const json& meta = Field(s.job, "metadata");
  s.ns = Str(meta, "namespace");
  s.name = Str(meta, "name");
  s.uid = Str(meta, "uid");
  s.indexed = Indexed(s.job);
  s.completions = Completions(s.job);
  s.parallelism = Int(spec, "parallelism").value_or(1);
  s.backoff_limit = Int(spec, "backoffLimit").value_or(6);
  if (!s.status().is_object()) s.status() = json::object();
  json& status = s.status();
  if (!Field(status, "uncountedTerminatedPods").is_object()) {
    status["uncountedTerminatedPods"] = json::object();
  }
  s.uncounted_succeeded = UidSet(Field(status["uncountedTerminatedPods"], "succeeded"));
  s.uncounted_failed = UidSet(Field(status["uncountedTerminatedPods"], "failed"));

  // Expectations before the pods: a pod that arrives in between defers to the next sync.
  const bool satisfied = SatisfiedExpectations(key);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = pods_by_ns_.find(s.ns); it != pods_by_ns_.end()) {
      for (const auto& [name, p] : it->second) {
        if (p.controller_uid == s.uid) s.pods.push_back(p);
      }
    }
    if (auto it = tombstones_.find(key); it != tombstones_.end()) {
      for (const auto& [uid, p] : it->second) s.pods.push_back(p);
    }
    if (auto it = finalizer_expectations_.find(key); it != finalizer_expectations_.end()) {
      s.expected_rm_finalizers = it->second;
    }
    if (auto it = backoff_.find(key); it != backoff_.end()) s.new_backoff = it->second;
  }
  for (const JobPod& p : s.pods) {
    if (p.Active()) {
      s.active_pods.push_back(&p);
      if (p.ready) ++s.ready;
    }
    if (p.Terminating()) ++s.terminating;
  }
  int32_t active = static_cast<int32_t>(s.active_pods.size());

  // getNewFinishedPods: pods with the finalizer, not yet in the uncounted lists.
  std::vector<const JobPod*> new_succeeded, new_failed;
  for (const JobPod& p : s.pods) {
    if (!p.has_tracking_finalizer || s.expected_rm_finalizers.count(p.uid) > 0) continue;
    if (s.indexed && (p.completion_index < 0 || p.completion_index >= s.completions.value_or(0))) {
      continue;
    }
    if (p.phase == "Succeeded" && s.uncounted_succeeded.count(p.uid) == 0) {
      new_succeeded.push_back(&p);
    } else if (IsPodFailed(p, s.job) && s.uncounted_failed.count(p.uid) == 0) {
      new_failed.push_back(&p);
    }
  }
  int32_t counted_new_failed = 0;
  for (const JobPod* p : new_failed) {
    if (MatchPodFailurePolicy(Field(spec, "podFailurePolicy"), *p).count_failed) ++counted_new_failed;
  }
  s.succeeded = static_cast<int32_t>(Int(status, "succeeded").value_or(0) + new_succeeded.size() +
                                     s.uncounted_succeeded.size());
  s.failed = static_cast<int32_t>(Int(status, "failed").value_or(0) + counted_new_failed +
                                  s.uncounted_failed.size());

  // Job first start (not while suspended).
  if (!Field(status, "startTime").is_string() && !Suspended(s.job)) {
    status["startTime"] = FormatRfc3339(s.now);
  }
  s.new_backoff = s.new_backoff.Next(new_succeeded, new_failed);

  const bool exceeds_backoff_limit = s.failed > s.backoff_limit;
  if (const json* c = FindCondition(status, "SuccessCriteriaMet");
      c != nullptr && Str(*c, "status") == "True") {
    s.finished = *c;
  }
  if (s.finished.is_null()) {
    if (const json* c = FindCondition(status, "FailureTarget");
        c != nullptr && Str(*c, "status") == "True") {
      s.finished = NewCondition("Failed", "True", Str(*c, "reason"), Str(*c, "message"), s.now);
    } else if (HasPodFailurePolicy(s.job)) {
      for (const JobPod& p : s.pods) {
        if (!IsPodFailed(p, s.job)) continue;
        PolicyMatch m = MatchPodFailurePolicy(spec["podFailurePolicy"], p);
        if (m.fail_job_message.has_value()) {
          s.finished = NewCondition("FailureTarget", "True", "PodFailurePolicy",
                                    *m.fail_job_message, s.now);
          break;
        }
      }
    }
  }
  const std::optional<TimePoint> start_time = [&]() -> std::optional<TimePoint> {
    if (!Field(status, "startTime").is_string()) return std::nullopt;
    StatusOr<TimePoint> t = ParseRfc3339(status["startTime"].get<std::string>());
    return t.ok() ? std::optional<TimePoint>(*t) : std::nullopt;
  }();
  const std::optional<int64_t> ads = Int(spec, "activeDeadlineSeconds");
  if (s.finished.is_null()) {
    // pastBackoffLimitOnFailure: restarts of running and pending pods (restartPolicy OnFailure).
    bool past_on_failure = false;
    if (Str(Field(Field(spec, "template"), "spec"), "restartPolicy") == "OnFailure") {
      int64_t restarts = 0;
      for (const JobPod& p : s.pods) {
        if (p.phase == "Running" || p.phase == "Pending") restarts += p.restarts;
      }
      past_on_failure = s.backoff_limit == 0 ? restarts > 0 : restarts >= s.backoff_limit;
    }
    if (exceeds_backoff_limit || past_on_failure) {
      s.finished = NewCondition("FailureTarget", "True", "BackoffLimitExceeded",
                                "Job has reached the specified backoff limit", s.now);
    } else if (ads.has_value() && start_time.has_value() && !Suspended(s.job) &&
               s.now - *start_time >= std::chrono::seconds(*ads)) {
      s.finished = NewCondition("FailureTarget", "True", "DeadlineExceeded",
                                "Job was active longer than specified deadline", s.now);
    } else if (ads.has_value() && start_time.has_value() && !Suspended(s.job)) {
      Mark(key, *start_time + std::chrono::seconds(*ads));
    }
  }

  if (s.indexed) {
    // calculateSucceededIndexes.
    const int64_t completions = s.completions.value_or(0);
    s.prev_succeeded_indexes = Indexes::Parse(Str(status, "completedIndexes"), completions);
    std::vector<int64_t> fresh;
    for (const JobPod& p : s.pods) {
      if (p.phase == "Succeeded" && p.completion_index >= 0 && p.completion_index < completions &&
          p.has_tracking_finalizer) {
        fresh.push_back(p.completion_index);
      }
    }
    std::sort(fresh.begin(), fresh.end());
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    s.succeeded_indexes = s.prev_succeeded_indexes.With(fresh);
    s.succeeded = static_cast<int32_t>(s.succeeded_indexes.Total());
    if (s.finished.is_null()) {
      if (std::optional<std::string> msg = MatchSuccessPolicy(Field(spec, "successPolicy"),
                                                              completions, s.succeeded_indexes)) {
        s.finished = NewCondition("SuccessCriteriaMet", "True", "SuccessPolicy", *msg, s.now);
      }
    }
  }

  Status manage_error;
  bool suspend_changed = false;
  if (!s.finished.is_null()) {
    // deleteActivePods: the finalizers stay; the pods are counted as they terminate.
    int32_t deleted_ready = 0;
    const int32_t deleted = DeletePods(s, s.active_pods, false, deleted_ready, manage_error);
    if (deleted != active || !satisfied) s.finished = nullptr;
    active -= deleted;
    s.terminating += deleted;
    s.ready -= deleted_ready;
  } else {
    bool manage_called = false;
    if (satisfied && !Field(meta, "deletionTimestamp").is_string()) {
      manage_error = ManageJob(s, active, s.terminating, s.ready);
      manage_called = true;
    }
    const bool complete = s.completions.has_value()
                              ? s.succeeded >= *s.completions && active == 0
                              : s.succeeded > 0 && active == 0;
    if (complete) {
      s.finished = NewCondition("SuccessCriteriaMet", "True", "CompletionsReached",
                                "Reached expected number of succeeded pods", s.now);
    } else if (manage_called) {
      if (Suspended(s.job)) {
        if (EnsureCondition(status, "Suspended", "True", "JobSuspended", "Job suspended", s.now)) {
          suspend_changed = true;
          Event(s.job, "Normal", "Suspended", "Job suspended");
        }
      } else if (EnsureCondition(status, "Suspended", "False", "JobResumed", "Job resumed", s.now)) {
        suspend_changed = true;
        Event(s.job, "Normal", "Resumed", "Job resumed");
        // A resumed Job's activeDeadlineSeconds counts from now.
        status["startTime"] = FormatRfc3339(s.now);
      }
    }
  }

  const bool needs_update = suspend_changed || active != Int(status, "active").value_or(0) ||
                            Int(status, "ready") != std::optional<int64_t>(s.ready) ||
                            Int(status, "terminating") != std::optional<int64_t>(s.terminating);
  SetCount(status, "active", active);
  status["ready"] = s.ready;
  status["terminating"] = s.terminating;
  TIDEPOOL_RETURN_IF_ERROR(TrackStatusAndRemoveFinalizers(s, needs_update));
  return manage_error;
}

// ---- manageJob -----------------------------------------------------------------------------

Status JobController::ManageJob(SyncState& s, int32_t& active, int32_t& terminating,
                                int32_t& ready) {
  if (Suspended(s.job)) {
    std::vector<const JobPod*> to_delete = s.active_pods;
    ExpectDeletions(s.key, static_cast<int64_t>(to_delete.size()));
    int32_t removed_ready = 0;
    Status error;
    const int32_t removed = DeletePods(s, to_delete, true, removed_ready, error);
    active -= removed;
    terminating += removed;
    ready -= removed_ready;
    return error;
  }
  int32_t want_active = 0;
  if (!s.completions.has_value()) {
    want_active = s.succeeded > 0 ? active : static_cast<int32_t>(s.parallelism);
  } else {
    want_active = static_cast<int32_t>(
        std::clamp<int64_t>(*s.completions - s.succeeded, 0, s.parallelism));
  }

  // activePodsForRemoval: for Indexed Jobs, pods with an unknown or out-of-range index and
  // all but one pod of a repeated index first; then the first in ActivePods order.
  const int32_t rm_at_least = std::max(0, active - want_active);
  std::vector<const JobPod*> rm, left;
  if (s.indexed) {
    std::map<int64_t, std::vector<const JobPod*>> by_index;
    for (const JobPod* p : s.active_pods) {
      if (p->completion_index < 0 || p->completion_index >= s.completions.value_or(0)) {
        rm.push_back(p);
      } else {
        by_index[p->completion_index].push_back(p);
      }
    }
    for (auto& [ix, group] : by_index) {
      std::sort(group.begin(), group.end(),
                [](const JobPod* a, const JobPod* b) { return ActivePodsLess(*a, *b); });
      rm.insert(rm.end(), group.begin(), group.end() - 1);
      left.push_back(group.back());
    }
  } else {
    left = s.active_pods;
  }
  if (static_cast<int32_t>(rm.size()) < rm_at_least) {
    std::sort(left.begin(), left.end(),
              [](const JobPod* a, const JobPod* b) { return ActivePodsLess(*a, *b); });
    rm.insert(rm.end(), left.begin(), left.begin() + (rm_at_least - static_cast<int32_t>(rm.size())));
  }
  if (static_cast<int32_t>(rm.size()) > kMaxPodCreateDeletePerSync) rm.resize(kMaxPodCreateDeletePerSync);
  if (!rm.empty()) {
    // Deletion or creation in one sync, never both; deletion first.
    ExpectDeletions(s.key, static_cast<int64_t>(rm.size()));
    int32_t removed_ready = 0;
    Status error;
    const int32_t removed = DeletePods(s, rm, true, removed_ready, error);
    active -= removed;
    terminating += removed;
    ready -= removed_ready;
    return error;
  }

  const int32_t waiting = OnlyReplaceFailedPods(s.job) ? terminating : 0;
  int32_t diff = want_active - waiting - active;
  if (diff <= 0) return Status::Ok();
  const Duration remaining = s.new_backoff.RemainingTime(s.now, options_.pod_failure_backoff,
                                                         options_.pod_failure_backoff_max);
  if (remaining > Duration::zero()) {
    Mark(s.key, s.now + std::max(remaining, options_.sync_batch_period));
    return Status::Ok();
  }
  diff = std::min(diff, kMaxPodCreateDeletePerSync);
  std::vector<int64_t> indexes;
  if (s.indexed) {
    // firstPendingIndexes: neither succeeded nor held by an active pod, lowest first.
    std::set<int64_t> held;
    for (const JobPod* p : s.active_pods) held.insert(p->completion_index);
    for (int64_t ix = 0; ix < s.completions.value_or(0) && static_cast<int32_t>(indexes.size()) < diff; ++ix) {
      if (!s.succeeded_indexes.Has(ix) && held.count(ix) == 0) indexes.push_back(ix);
    }
    diff = static_cast<int32_t>(indexes.size());
  }
  return CreatePods(s, diff, std::move(indexes), active);
}

Status JobController::CreatePods(SyncState& s, int32_t diff, std::vector<int64_t> indexes,
                                 int32_t& active) {
  if (diff <= 0) return Status::Ok();
  ExpectCreations(s.key, diff);
  const json& tmpl = Field(Spec(s.job), "template");
  json pod_meta = json::object();
  const json& tmeta = Field(tmpl, "metadata");
  for (const char* k : {"labels", "annotations", "finalizers"}) {
    if (tmeta.is_object() && tmeta.contains(k)) pod_meta[k] = tmeta[k];
  }
  if (!pod_meta["finalizers"].is_array()) pod_meta["finalizers"] = json::array();
  bool has_finalizer = false;
  for (const json& f : pod_meta["finalizers"]) has_finalizer = has_finalizer || f == kJobTrackingFinalizer;
  if (!has_finalizer) pod_meta["finalizers"].push_back(kJobTrackingFinalizer);
  pod_meta["namespace"] = s.ns;
  pod_meta["ownerReferences"] = json::array({{{"apiVersion", "batch/v1"},
                                              {"kind", "Job"},
                                              {"name", s.name},
                                              {"uid", s.uid},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}});
  json pod_spec = Field(tmpl, "spec").is_object() ? tmpl["spec"] : json::object();
  if (s.indexed) {
    // addCompletionIndexEnvVariables.
    for (const char* list : {"initContainers", "containers"}) {
      if (!pod_spec[list].is_array()) {
        if (pod_spec[list].is_null()) pod_spec.erase(list);
        continue;
      }
      for (json& c : pod_spec[list]) {
        if (!c.is_object()) continue;
        bool present = false;
        if (c["env"].is_array()) {
          for (const json& e : c["env"]) present = present || Str(e, "name") == kJobCompletionIndexEnv;
        } else {
          c["env"] = json::array();
        }
        if (!present) {
          c["env"].push_back(
              {{"name", kJobCompletionIndexEnv},
               {"valueFrom",
                {{"fieldRef",
                  {{"apiVersion", "v1"},
                   {"fieldPath", std::string("metadata.annotations['") +
                                     kJobCompletionIndexAnnotation + "']"}}}}}});
        }
      }
    }
  }
  const std::string path = "/api/v1/namespaces/" + s.ns + "/pods";
  auto create_one = [&](int64_t index) -> Status {
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", pod_meta}, {"spec", pod_spec}};
    if (index >= 0) {
      const std::string ix = std::to_string(index);
      pod["metadata"]["annotations"][kJobCompletionIndexAnnotation] = ix;
      pod["metadata"]["labels"][kJobCompletionIndexAnnotation] = ix;
      pod["spec"]["hostname"] = s.name + "-" + ix;
      pod["metadata"]["generateName"] = GenerateNameWithIndex(s.name, index);
    } else {
      pod["metadata"]["generateName"] = s.name + "-";
    }
    StatusOr<json> created = client_.Create(path, pod);
    if (!created.ok()) {
      Event(s.job, "Warning", "FailedCreate", "Error creating: " + ErrorText(created.status()));
      return created.status();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++pods_created_;
    }
    Event(s.job, "Normal", "SuccessfulCreate",
          "Created pod: " + Str(Field(*created, "metadata"), "name"));
    return Status::Ok();
  };
  active += diff;
  Status first_error;
  size_t next_index = 0;
  // Slow start: batches of 1, 2, 4, ...; after a failing batch the rest is not tried.
  for (int32_t batch = std::min(diff, 1); diff > 0; batch = std::min(2 * batch, diff)) {
    bool failed = false;
    for (int32_t i = 0; i < batch; ++i) {
      const int64_t index = next_index < indexes.size() ? indexes[next_index++] : -1;
      Status st = create_one(index);
      if (!st.ok()) {
        CreationObserved(s.key);
        --active;
        failed = true;
        if (first_error.ok()) first_error = st;
      }
    }
    const int32_t skipped = diff - batch;
    if (failed && skipped > 0) {
      active -= skipped;
      for (int32_t i = 0; i < skipped; ++i) CreationObserved(s.key);
      break;
    }
    diff -= batch;
  }
  return first_error;
}

int32_t JobController::DeletePods(SyncState& s, const std::vector<const JobPod*>& pods,
                                  bool remove_finalizer, int32_t& deleted_ready, Status& error) {
  int32_t deleted = 0;
  for (const JobPod* p : pods) {
    const std::string path = "/api/v1/namespaces/" + p->namespace_ + "/pods/" + p->name;
    if (remove_finalizer && p->has_tracking_finalizer) {
      Status rm;
      if (!RemoveFinalizer("", *p, rm)) {
        if (remove_finalizer) DeletionObserved(s.key);
        Event(s.job, "Warning", "FailedDelete", "Error deleting: " + ErrorText(rm));
        if (error.ok()) error = rm;
        continue;
      }
    }
    StatusOr<json> r = client_.Delete(path);
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
      if (remove_finalizer) DeletionObserved(s.key);  // the informer will not see it
      Event(s.job, "Warning", "FailedDelete", "Error deleting: " + ErrorText(r.status()));
      if (error.ok()) error = r.status();
      continue;
    }
    if (!r.ok() && remove_finalizer) DeletionObserved(s.key);
    if (r.ok()) Event(s.job, "Normal", "SuccessfulDelete", "Deleted pod: " + p->name);
    ++deleted;
    if (p->ready) ++deleted_ready;
  }
  return deleted;
}

// ---- Counting and finalizers ---------------------------------------------------------------

bool JobController::RemoveFinalizer(const std::string& key, const JobPod& pod, Status& error) {
  if (!key.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto t = tombstones_.find(key); t != tombstones_.end() && t->second.erase(pod.uid) > 0) {
      return true;  // gone already: nothing left to patch
    }
  }
  const json patch = {{"metadata", {{"$deleteFromPrimitiveList/finalizers",
                                     json::array({kJobTrackingFinalizer})}}}};
  const Status r = client_.PatchUnread("/api/v1/namespaces/" + pod.namespace_ + "/pods/" + pod.name,
                                       client::PatchType::kStrategicMerge, patch);
  if (r.ok() || r.code() == StatusCode::kNotFound) return true;
  if (!key.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    finalizer_expectations_[key].erase(pod.uid);
  }
  error = r;
  return false;
}

// cleanUncountedPodsWithoutFinalizers: uncounted uids whose pods lost the finalizer (or are
// gone) move to the counters.
static bool CleanUncounted(json& status, const std::set<std::string>& with_finalizer) {
  bool updated = false;
  json& uncounted = status["uncountedTerminatedPods"];
  for (const char* list : {"succeeded", "failed"}) {
    if (!uncounted[list].is_array()) {
      uncounted.erase(list);
      continue;
    }
    json keep = json::array();
    for (const json& u : uncounted[list]) {
      if (u.is_string() && with_finalizer.count(u.get<std::string>()) > 0) keep.push_back(u);
    }
    const int64_t moved = static_cast<int64_t>(uncounted[list].size() - keep.size());
    if (moved > 0) {
      updated = true;
      SetCount(status, list, Int(status, list).value_or(0) + moved);
    }
    if (keep.empty()) {
      uncounted.erase(list);
    } else {
      uncounted[list] = keep;
    }
  }
  return updated;
}

Status JobController::TrackStatusAndRemoveFinalizers(SyncState& s, bool needs_flush) {
  const json& spec = Spec(s.job);
  std::set<std::string> with_finalizer;
  for (const JobPod& p : s.pods) {
    if (p.has_tracking_finalizer && s.expected_rm_finalizers.count(p.uid) == 0) {
      with_finalizer.insert(p.uid);
    }
  }
  if (CleanUncounted(s.status(), with_finalizer)) needs_flush = true;
  json& uncounted = s.status()["uncountedTerminatedPods"];
  std::vector<const JobPod*> to_remove;
  std::vector<int64_t> new_succeeded_indexes;
  bool reached_max_uncounted = false;
  const bool job_deleting = Field(Field(s.job, "metadata"), "deletionTimestamp").is_string();
  const bool failing = !s.finished.is_null() && Str(s.finished, "type") != "SuccessCriteriaMet";
  auto uncounted_size = [&](const char* list) {
    return uncounted.contains(list) && uncounted[list].is_array() ? uncounted[list].size() : 0;
  };
  // Indexed Jobs introduce completed indexes in order.
  std::vector<const JobPod*> ordered;
  for (const JobPod& p : s.pods) ordered.push_back(&p);
  if (s.indexed) {
    std::stable_sort(ordered.begin(), ordered.end(), [](const JobPod* a, const JobPod* b) {
      return a->completion_index < b->completion_index;
    });
  }
  for (const JobPod* pp : ordered) {
    const JobPod& p = *pp;
    if (!p.has_tracking_finalizer || s.expected_rm_finalizers.count(p.uid) > 0) continue;
    const bool considered_failed = IsPodFailed(p, s.job);
    // canRemoveFinalizer.
    if (!(job_deleting || !s.finished.is_null() || p.phase == "Succeeded" || considered_failed)) {
      continue;
    }
    to_remove.push_back(&p);
    const bool valid_index =
        p.completion_index >= 0 && p.completion_index < s.completions.value_or(0);
    if (p.phase == "Succeeded" && s.uncounted_failed.count(p.uid) == 0) {
      if (s.indexed) {
        if (valid_index && !s.prev_succeeded_indexes.Has(p.completion_index)) {
          new_succeeded_indexes.push_back(p.completion_index);
          needs_flush = true;
        }
      } else if (s.uncounted_succeeded.insert(p.uid).second) {
        needs_flush = true;
        uncounted["succeeded"].push_back(p.uid);
      }
    } else if (considered_failed || failing) {
      // A finishing (failed) Job counts every pod still running as failed.
      if (s.uncounted_failed.count(p.uid) == 0 && (!s.indexed || valid_index)) {
        if (MatchPodFailurePolicy(Field(spec, "podFailurePolicy"), p).count_failed) {
          needs_flush = true;
          s.uncounted_failed.insert(p.uid);
          uncounted["failed"].push_back(p.uid);
        }
      }
    }
    if (new_succeeded_indexes.size() + uncounted_size("succeeded") + uncounted_size("failed") >=
        kMaxUncountedPods) {
      reached_max_uncounted = true;
      break;
    }
  }
  json& status = s.status();
  if (s.indexed) {
    s.succeeded_indexes = s.succeeded_indexes.With(new_succeeded_indexes);
    const std::string text = s.succeeded_indexes.String();
    if (text != Str(status, "completedIndexes")) needs_flush = true;
    SetCount(status, "succeeded", s.succeeded_indexes.Total());
    if (text.empty()) {
      status.erase("completedIndexes");
    } else {
      status["completedIndexes"] = text;
    }
  }
  if (!s.finished.is_null() && Str(s.finished, "type") == "FailureTarget") {
    // The interim FailureTarget first; Failed once the pods are counted.
    status["conditions"].push_back(s.finished);
    needs_flush = true;
    s.finished = NewCondition("Failed", "True", Str(s.finished, "reason"),
                              Str(s.finished, "message"), s.now);
  }
  if (!s.finished.is_null() && Str(s.finished, "type") == "SuccessCriteriaMet") {
    if (FindCondition(status, "SuccessCriteriaMet") == nullptr) {
      status["conditions"].push_back(s.finished);
      needs_flush = true;
    }
    s.finished = NewCondition("Complete", "True", Str(s.finished, "reason"),
                              Str(s.finished, "message"), s.now);
  }

  // flushUncountedAndRemoveFinalizers.
  if (needs_flush) {
    TIDEPOOL_RETURN_IF_ERROR(UpdateStatus(s));
    {
      std::lock_guard<std::mutex> lock(mu_);
      backoff_[s.key] = s.new_backoff;
    }
    needs_flush = false;
  }
  Status rm_error;
  if (!to_remove.empty()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const JobPod* p : to_remove) finalizer_expectations_[s.key].insert(p->uid);
    }
    for (const JobPod* p : to_remove) {
      if (RemoveFinalizer(s.key, *p, rm_error)) with_finalizer.erase(p->uid);
    }
  }
  if (CleanUncounted(s.status(), with_finalizer)) needs_flush = true;
  if (!rm_error.ok()) {
    if (needs_flush) TIDEPOOL_RETURN_IF_ERROR(UpdateStatus(s));
    return rm_error;
  }

  // enactJobFinished: the terminal condition once nothing is uncounted or terminating.
  bool job_finished = false;
  if (!reached_max_uncounted && !s.finished.is_null()) {
    const json& u = s.status()["uncountedTerminatedPods"];
    const size_t pending = (u.contains("succeeded") ? u["succeeded"].size() : 0) +
                           (u.contains("failed") ? u["failed"].size() : 0);
    if (pending == 0 && s.terminating == 0) {
      EnsureCondition(s.status(), Str(s.finished, "type"), Str(s.finished, "status"),
                      Str(s.finished, "reason"), Str(s.finished, "message"), s.now);
      if (Str(s.finished, "type") == "Complete") {
        s.status()["completionTime"] = FormatRfc3339(s.now);
      }
      job_finished = true;
      needs_flush = true;
    }
  }
  if (needs_flush) {
    TIDEPOOL_RETURN_IF_ERROR(UpdateStatus(s));
    if (job_finished) {
      const json& st = s.status();
      if (Str(s.finished, "type") == "Complete") {
        if (s.completions.has_value() && Int(st, "succeeded").value_or(0) > *s.completions) {
          Event(s.job, "Warning", "TooManySucceededPods",
                "Too many succeeded pods running after completion count reached");
        }
        Event(s.job, "Normal", "Completed", "Job completed");
      } else {
        Event(s.job, "Warning", Str(s.finished, "reason"), Str(s.finished, "message"));
      }
    }
  }
  return Status::Ok();
}

Status JobController::UpdateStatus(SyncState& s) {
  const std::string path = "/apis/batch/v1/namespaces/" + s.ns + "/jobs/" + s.name + "/status";
  StatusOr<json> r = client_.Update(path, s.job);
  if (!r.ok()) return r.status();
  s.job = std::move(r).value();
  if (!s.status().is_object()) s.status() = json::object();
  if (!s.status()["uncountedTerminatedPods"].is_object()) {
    s.status()["uncountedTerminatedPods"] = json::object();
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++status_writes_;
  return Status::Ok();
}

// ---- TTL after finished --------------------------------------------------------------------

void JobController::HandleTtl(const std::string& key, const json& job) {
  const std::optional<int64_t> ttl = Int(Spec(job), "ttlSecondsAfterFinished");
  if (!ttl.has_value()) return;
  std::optional<TimePoint> finished_at;
  for (const char* type : {"Complete", "Failed"}) {
    const json* c = FindCondition(Field(job, "status"), type);
    if (c == nullptr || Str(*c, "status") != "True") continue;
    StatusOr<TimePoint> t = ParseRfc3339(Str(*c, "lastTransitionTime"));
    if (t.ok()) finished_at = *t;
  }
  if (!finished_at.has_value()) return;
  const TimePoint expire = *finished_at + std::chrono::seconds(*ttl);
  if (clock_.Now() < expire) {
    Mark(key, expire);
    return;
  }
  const json& m = Field(job, "metadata");
  const json options = {{"kind", "DeleteOptions"},
                        {"apiVersion", "batch/v1"},
                        {"propagationPolicy", "Foreground"},
                        {"preconditions", {{"uid", Str(m, "uid")}}}};
  StatusOr<json> r = client_.Delete(
      "/apis/batch/v1/namespaces/" + Str(m, "namespace") + "/jobs/" + Str(m, "name"), options);
  if (!r.ok() && r.status().code() != StatusCode::kNotFound && log_ != nullptr) {
    log_->Warning("deleting finished job", {{"job", key}, {"err", r.status().ToString()}});
  }
}

void JobController::Event(const json& job, std::string_view type, std::string_view reason,
                          std::string message) {
  if (recorder_ == nullptr) return;
  const json& m = Field(job, "metadata");
  recorder_->Event({"Job", Str(m, "namespace"), Str(m, "name"), Str(m, "uid")}, type, reason,
                   std::move(message));
}

}  // namespace tidepool::controllers::job
