#include "controllers/cronjob/cronjob_controller.h"

#include <algorithm>
#include <ctime>
#include <vector>

#include "api/cron_schedule.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::cronjob {
namespace {

using nlohmann::json;

constexpr char kCronJobsPath[] = "/apis/batch/v1/cronjobs";
constexpr char kJobsPath[] = "/apis/batch/v1/jobs";
constexpr char kScheduledTimestamp[] = "batch.kubernetes.io/cronjob-scheduled-timestamp";
constexpr Duration kPoll = std::chrono::milliseconds(20);

std::string CronJobPath(const std::string& ns, const std::string& name) {
  return client::ResourcePath("batch", "v1", "cronjobs", ns, name);
}
std::string JobPath(const std::string& ns, const std::string& name = "") {
  return client::ResourcePath("batch", "v1", "jobs", ns, name);
}

// "<ns>/<name>" of the CronJob controlling `job`, or "".
std::string OwnerKey(const json& job) {
  const json* ref = ControllerOf(job);
  if (ref == nullptr || Str(Member(*ref, "kind")) != "CronJob") return "";
  return Key(Str(Member(Meta(job), "namespace")), Str(Member(*ref, "name")));
}

// jobutil.FinishedCondition: the type of the first true Complete or Failed condition.
std::string FinishedCondition(const json& job) {
  const json& conds = Member(Member(job, "status"), "conditions");
  if (!conds.is_array()) return "";
  for (const json& c : conds) {
    const std::string type = Str(Member(c, "type"));
    if ((type == "Complete" || type == "Failed") && Str(Member(c, "status")) == "True") return type;
  }
  return "";
}

std::string Uid(const json& obj) { return Str(Member(Meta(obj), "uid")); }
std::string Name(const json& obj) { return Str(Member(Meta(obj), "name")); }

// Go's t.UTC().Format(time.RFC1123Z): "Thu, 03 Dec 2026 17:00:00 +0000".
std::string FormatRfc1123Z(TimePoint t) {
  const std::time_t secs = std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

enum class Missed { kNone, kFew, kMany };

struct MostRecent {
  TimePoint earliest;
  std::optional<TimePoint> most_recent;
  Missed missed = Missed::kNone;
  Status error;
};

// kcm's mostRecentScheduleTime.
MostRecent MostRecentScheduleTime(const json& cj, TimePoint now, const api::CronSchedule& sched,
                                  bool include_deadline) {
  MostRecent r;
  r.earliest = TimeOf(Member(Meta(cj), "creationTimestamp")).value_or(TimePoint{});
  if (auto last = TimeOf(Member(Member(cj, "status"), "lastScheduleTime"))) r.earliest = *last;
  const json& deadline = Member(Member(cj, "spec"), "startingDeadlineSeconds");
  if (include_deadline && deadline.is_number_integer()) {
    const TimePoint limit = now - std::chrono::seconds(deadline.get<int64_t>());
    if (limit > r.earliest) r.earliest = limit;
  }
  const std::optional<TimePoint> t1 = sched.Next(r.earliest);
  const std::optional<TimePoint> t2 = t1 ? sched.Next(*t1) : std::nullopt;
  if (t1 && now < *t1) return r;
  if (t1 && t2 && now < *t2) {
    r.most_recent = t1;
    return r;
  }
  // Both absent (robfig's zero time) is kcm's zero difference.
  const int64_t between =
      t1 && t2 ? std::chrono::round<std::chrono::seconds>(*t2 - *t1).count() : 0;
  if (between < 1) {
    r.error = InvalidArgumentError("time difference between two schedules is less than 1 second");
    return r;
  }
  const int64_t elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - *t1).count();
  const int64_t missed = elapsed / between + 1;
  std::optional<TimePoint> most_recent;
  const TimePoint potential = *t1 + std::chrono::seconds((missed - 2) * between);
  for (std::optional<TimePoint> t = sched.Next(potential); t && *t <= now; t = sched.Next(*t)) {
    most_recent = t;
  }
  r.missed = missed > 100 ? Missed::kMany : missed > 0 ? Missed::kFew : Missed::kNone;
  r.most_recent = most_recent;
  return r;
}

// kcm's nextScheduleTimeDuration.
Duration NextScheduleDuration(const json& cj, TimePoint now, const api::CronSchedule& sched,
                              Duration delta) {
  MostRecent r = MostRecentScheduleTime(cj, now, sched, false);
  TimePoint from = now;
  if (r.error.ok()) {
    if (r.most_recent) {
      from = *r.most_recent;
    } else if (r.missed == Missed::kNone) {
      from = r.earliest;
    }
  }
  const std::optional<TimePoint> next = sched.Next(from);
  // No next time within five years: look again in a day (kcm would compute from the zero time).
  if (!next) return std::chrono::hours(24);
  return *next + delta - now;
}

// formatSchedule: the schedule with the CronJob's zone in front (unless it has its own TZ, or
// the zone is unknown).
std::string FormatSchedule(const json& cj) {
  const json& spec = Member(cj, "spec");
  const std::string schedule = Str(Member(spec, "schedule"));
  if (schedule.find("TZ") != std::string::npos) return schedule;
  const json& zone = Member(spec, "timeZone");
  if (zone.is_string() && api::LoadTimeZone(zone.get<std::string>()).ok()) {
    return "TZ=" + zone.get<std::string>() + " " + schedule;
  }
  return schedule;
}

bool InActiveList(const json& cj, const std::string& uid) {
  const json& active = Member(Member(cj, "status"), "active");
  if (!active.is_array()) return false;
  for (const json& ref : active) {
    if (Str(Member(ref, "uid")) == uid) return true;
  }
  return false;
}

void DeleteFromActiveList(json& cj, const std::string& uid) {
  json& active = cj["status"]["active"];
  if (!active.is_array()) return;
  json kept = json::array();
  for (json& ref : active) {
    if (Str(Member(ref, "uid")) != uid) kept.push_back(std::move(ref));
  }
  if (kept.empty()) {
    cj["status"].erase("active");
  } else {
    active = std::move(kept);
  }
}

// getJobFromTemplate2.
json JobFromTemplate(const json& cj, TimePoint scheduled, const api::TimeZone& zone) {
  const json& tmpl = Member(Member(cj, "spec"), "jobTemplate");
  const json& tmeta = Member(tmpl, "metadata");
  json meta = {
      {"name",
       Name(cj) + "-" +
           std::to_string(
               std::chrono::floor<std::chrono::minutes>(scheduled.time_since_epoch()).count())},
      {"creationTimestamp", FormatRfc3339(scheduled)},
      {"ownerReferences", json::array({{{"apiVersion", "batch/v1"},
                                        {"kind", "CronJob"},
                                        {"name", Name(cj)},
                                        {"uid", Uid(cj)},
                                        {"controller", true},
                                        {"blockOwnerDeletion", true}}})}};
  if (const json& labels = Member(tmeta, "labels"); labels.is_object() && !labels.empty()) {
    meta["labels"] = labels;
  }
  json annotations =
      Member(tmeta, "annotations").is_object() ? Member(tmeta, "annotations") : json::object();
  annotations[kScheduledTimestamp] = api::FormatRfc3339In(scheduled, zone);
  meta["annotations"] = std::move(annotations);
  json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", std::move(meta)}};
  const json& spec = Member(tmpl, "spec");
  job["spec"] = spec.is_object() ? spec : json::object();
  return job;
}

// byJobStartTime: started ones first, by start time, then name.
bool ByStartTime(const json* a, const json* b) {
  const auto sa = TimeOf(Member(Member(*a, "status"), "startTime"));
  const auto sb = TimeOf(Member(Member(*b, "status"), "startTime"));
  if (!sa && sb) return false;
  if (sa && !sb) return true;
  if (sa == sb) return Name(*a) < Name(*b);
  return *sa < *sb;
}

}  // namespace

struct CronJobController::SyncState {
  std::string key, ns, name;
  json cj;  // the working copy; its status is what gets written
  std::vector<client::ObjectRef> jobs;
  TimePoint now;
};

CronJobController::CronJobController(const client::RestClient& client, const Clock& clock,
                                     CronJobControllerOptions options,
                                     autoscaler::EventRecorder* recorder, log::Logger* logger,
                                     client::SharedInformerFactory* informers,
                                     TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  if (executor == nullptr) own_timers_ = std::make_unique<ThreadTimerService>(clock_);
  TimerService* timers = executor != nullptr ? executor : own_timers_.get();
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return SyncWithBackoff(key); },
      [this] { return HasSynced(); }, kPoll, timers);
  auto make = [&](const char* name, const char* path, uint64_t seed) {
    client::InformerOptions o;
    o.path = path;
    o.name = name;
    o.seed = seed;
    o.transform = client::StripManagedFields;
    o.transform_name = client::kStripManagedFieldsName;
    o.drop_managed_fields = true;
    return client::MakeInformer(informers, client_, clock_, o, logger);
  };
  cronjobs_ = make("cronjobs", kCronJobsPath, options.seed);
  jobs_ = make("jobs", kJobsPath, options.seed + 1);
  auto mark = [this](const client::ObjectRef& o) { queue_->Add(client::Informer::KeyOf(*o)); };
  cronjobs_->AddEventHandlers({[mark](const client::ObjectRef& o, bool) { mark(o); },
                               [this](const client::ObjectRef& old_obj,
                                      const client::ObjectRef& o) { OnCronJobUpdate(old_obj, o); },
                               [mark](const client::ObjectRef& o, bool) { mark(o); }});
  jobs_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnJob(o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnJob(o, false); },
       [this](const client::ObjectRef& o, bool) { OnJob(o, true); }});
}

CronJobController::~CronJobController() { Stop(); }

void CronJobController::Start() {
  if (own_timers_ != nullptr) {
    cronjobs_->Start();
    jobs_->Start();
  }
  queue_->Start();
  if (own_timers_ != nullptr) own_timers_->Start();
}

void CronJobController::Stop() {
  queue_->Stop();
  if (own_timers_ != nullptr) own_timers_->Stop();
  client::StopAll({cronjobs_.get(), jobs_.get()});
}

bool CronJobController::HasSynced() const { return cronjobs_->HasSynced() && jobs_->HasSynced(); }

uint64_t CronJobController::jobs_created() const {
  std::lock_guard<std::mutex> lock(mu_);
  return jobs_created_;
}

// ---- Informer handlers ---------------------------------------------------------------------

void CronJobController::OnJob(const client::ObjectRef& obj, bool deleted) {
  const std::string key = client::Informer::KeyOf(*obj);
  const std::string owner = deleted ? "" : OwnerKey(*obj);
  std::string previous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = owner_of_.find(key); it != owner_of_.end()) {
      previous = it->second;
      if (previous != owner) {
        auto& set = jobs_by_owner_[previous];
        set.erase(key);
        if (set.empty()) jobs_by_owner_.erase(previous);
        owner_of_.erase(it);
      }
    }
    if (!owner.empty()) {
      jobs_by_owner_[owner].insert(key);
      owner_of_[key] = owner;
    }
  }
  // The old and the new controller CronJob (resolveControllerRef: a CronJob the informer has).
  for (const std::string& k : {previous, owner}) {
    if (!k.empty() && cronjobs_->Get(k) != nullptr) queue_->Add(k);
  }
}

void CronJobController::OnCronJobUpdate(const client::ObjectRef& old_obj,
                                        const client::ObjectRef& obj) {
  const std::string key = client::Informer::KeyOf(*obj);
  const json& old_spec = Member(*old_obj, "spec");
  const json& spec = Member(*obj, "spec");
  if (Member(old_spec, "schedule") == Member(spec, "schedule") &&
      Member(old_spec, "timeZone") == Member(spec, "timeZone")) {
    queue_->Add(key);
    return;
  }
  // The schedule changed: requeue at its next time.
  auto sched = api::CronSchedule::Parse(FormatSchedule(*obj));
  if (!sched.ok()) {
    Event(*obj, "Warning", "UnParseableCronJobSchedule",
          "unparseable schedule for cronjob: " + Str(Member(spec, "schedule")));
    return;
  }
  const TimePoint now = clock_.Now();
  queue_->AddAt(key, now + NextScheduleDuration(*obj, now, *sched, options_.next_schedule_delta));
}

// ---- sync ----------------------------------------------------------------------------------

std::optional<TimePoint> CronJobController::SyncWithBackoff(const std::string& key) {
  StatusOr<std::optional<TimePoint>> r = Sync(key);
  std::lock_guard<std::mutex> lock(mu_);
  if (r.ok()) {
    failures_.erase(key);
    return *r;
  }
  const int n = failures_[key]++;
  Duration wait = options_.api_backoff;
  for (int i = 0; i < n && wait < options_.api_backoff_max; ++i) wait *= 2;
  if (log_ != nullptr) {
    log_->Warning("error syncing CronJobController, requeuing",
                  {{"cronjob", key}, {"err", r.status().ToString()}});
  }
  return clock_.Now() + std::min(wait, options_.api_backoff_max);
}

StatusOr<std::optional<TimePoint>> CronJobController::Sync(const std::string& key) {
  const client::ObjectRef cj = cronjobs_->Get(key);
  if (cj == nullptr) return std::optional<TimePoint>();
  SyncState s;
  s.key = key;
  s.cj = *cj;
  s.ns = Str(Member(Meta(s.cj), "namespace"));
  s.name = Name(s.cj);
  s.now = clock_.Now();
  if (!s.cj["status"].is_object()) s.cj["status"] = json::object();
  std::set<std::string> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = jobs_by_owner_.find(key); it != jobs_by_owner_.end()) keys = it->second;
  }
  for (const std::string& k : keys) {
    if (client::ObjectRef job = jobs_->Get(k)) s.jobs.push_back(std::move(job));
  }
  const bool cleaned = CleanupFinishedJobs(s);
  StatusOr<std::optional<Duration>> requeue = SyncCronJob(s);
  const json& before = Member(*cj, "status");
  const bool changed = s.cj["status"] != (before.is_object() ? before : json::object());
  if (cleaned || changed) {
    auto r = client_.Update(CronJobPath(s.ns, s.name) + "/status", s.cj);
    if (!r.ok()) return r.status();
  }
  if (!requeue.ok()) return requeue.status();
  if (!requeue->has_value()) return std::optional<TimePoint>();
  return std::optional<TimePoint>(s.now + **requeue);
}

bool CronJobController::CleanupFinishedJobs(SyncState& s) {
  const json& spec = Member(s.cj, "spec");
  const json& keep_ok = Member(spec, "successfulJobsHistoryLimit");
  const json& keep_failed = Member(spec, "failedJobsHistoryLimit");
  if (!keep_ok.is_number_integer() && !keep_failed.is_number_integer()) return false;
  std::vector<const json*> succeeded, failed;
  for (const client::ObjectRef& j : s.jobs) {
    const std::string c = FinishedCondition(*j);
    if (c == "Complete") succeeded.push_back(j.get());
    if (c == "Failed") failed.push_back(j.get());
  }
  bool changed = false;
  auto remove_oldest = [&](std::vector<const json*>& jobs, const json& limit) {
    if (!limit.is_number_integer()) return;
    const int64_t excess = static_cast<int64_t>(jobs.size()) - limit.get<int64_t>();
    if (excess <= 0) return;
    std::sort(jobs.begin(), jobs.end(), ByStartTime);
    for (int64_t i = 0; i < excess; ++i) changed = DeleteJob(s, *jobs[i]) || changed;
  };
  remove_oldest(succeeded, keep_ok);
  remove_oldest(failed, keep_failed);
  return changed;
}

bool CronJobController::DeleteJob(SyncState& s, const json& job) {
  const json options = {
      {"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}};
  auto r = client_.Delete(JobPath(s.ns, Name(job)), options);
  if (!r.ok()) {
    Event(s.cj, "Warning", "FailedDelete", "Deleted job: " + std::string(r.status().message()));
    return false;
  }
  DeleteFromActiveList(s.cj, Uid(job));
  Event(s.cj, "Normal", "SuccessfulDelete", "Deleted job " + Name(job));
  return true;
}

StatusOr<std::optional<Duration>> CronJobController::SyncCronJob(SyncState& s) {
  using Requeue = std::optional<Duration>;
  std::set<std::string> children;
  for (const client::ObjectRef& j : s.jobs) {
    const std::string uid = Uid(*j);
    children.insert(uid);
    const bool found = InActiveList(s.cj, uid);
    const std::string finished = FinishedCondition(*j);
    if (!found && finished.empty()) {
      auto fresh = client_.Get(CronJobPath(s.ns, s.name));
      if (!fresh.ok()) return fresh.status();
      if (InActiveList(*fresh, uid)) {
        s.cj = std::move(fresh).value();
        continue;
      }
      Event(s.cj, "Warning", "UnexpectedJob",
            "Saw a job that the controller did not create or forgot: " + Name(*j));
    } else if (!finished.empty()) {
      if (found) {
        DeleteFromActiveList(s.cj, uid);
        Event(s.cj, "Normal", "SawCompletedJob",
              "Saw completed job: " + Name(*j) + ", condition: " + finished);
      }
      if (finished == "Complete") {
        const json& done = Member(Member(*j, "status"), "completionTime");
        const auto done_at = TimeOf(done);
        const auto last = TimeOf(Member(s.cj["status"], "lastSuccessfulTime"));
        if (done_at && (!last || *done_at > *last)) s.cj["status"]["lastSuccessfulTime"] = done;
      }
    }
  }
  // Active Jobs the informer does not have: gone, if the API says so.
  const json active = Member(s.cj["status"], "active");
  if (active.is_array()) {
    for (const json& ref : active) {
      if (children.count(Str(Member(ref, "uid"))) > 0) continue;
      const std::string job = Str(Member(ref, "name"));
      auto got = client_.Get(JobPath(Str(Member(ref, "namespace")), job));
      if (got.ok()) continue;
      if (got.status().code() != StatusCode::kNotFound) return got.status();
      Event(s.cj, "Normal", "MissingJob", "Active job went missing: " + job);
      DeleteFromActiveList(s.cj, Str(Member(ref, "uid")));
    }
  }
  const json& meta = Meta(s.cj);
  if (!Member(meta, "deletionTimestamp").is_null()) return Requeue();
  const json& spec = Member(s.cj, "spec");
  api::TimeZone zone;
  if (const json& tz = Member(spec, "timeZone"); tz.is_string()) {
    auto z = api::LoadTimeZone(tz.get<std::string>());
    if (!z.ok()) {
      Event(s.cj, "Warning", "UnknownTimeZone",
            "invalid timeZone: \"" + tz.get<std::string>() +
                "\": " + std::string(z.status().message()));
      return Requeue();
    }
    zone = *z;
  }
  const json& suspend = Member(spec, "suspend");
  if (suspend.is_boolean() && suspend.get<bool>()) return Requeue();
  const std::string schedule = Str(Member(spec, "schedule"));
  if (schedule.find("TZ") != std::string::npos) {
    Event(s.cj, "Warning", "UnsupportedSchedule",
          "CRON_TZ or TZ used in schedule \"" + schedule +
              "\" is not officially supported, see "
              "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more "
              "details");
  }
  auto sched = api::CronSchedule::Parse(FormatSchedule(s.cj));
  if (!sched.ok()) {
    Event(s.cj, "Warning", "UnparseableSchedule",
          "unparseable schedule: \"" + schedule + "\" : " + std::string(sched.status().message()));
    return Requeue();
  }
  const Duration delta = options_.next_schedule_delta;
  // nextScheduleTime.
  MostRecent recent = MostRecentScheduleTime(s.cj, s.now, *sched, true);
  if (recent.most_recent && recent.missed == Missed::kMany) {
    Event(s.cj, "Warning", "TooManyMissedTimes",
          "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check "
          "clock skew");
  }
  if (!recent.error.ok()) {
    Event(s.cj, "Warning", "InvalidSchedule",
          "invalid schedule: " + schedule + " : " + std::string(recent.error.message()));
    return Requeue();
  }
  if (!recent.most_recent) return Requeue(NextScheduleDuration(s.cj, s.now, *sched, delta));
  const TimePoint scheduled = *recent.most_recent;
  const json& deadline = Member(spec, "startingDeadlineSeconds");
  if (deadline.is_number_integer() &&
      scheduled + std::chrono::seconds(deadline.get<int64_t>()) < s.now) {
    Event(s.cj, "Warning", "MissSchedule",
          "Missed scheduled time to start a job: " + FormatRfc1123Z(scheduled));
    return Requeue(NextScheduleDuration(s.cj, s.now, *sched, delta));
  }
  json job = JobFromTemplate(s.cj, scheduled, zone);
  const std::string job_name = Name(job);
  bool already_listed = false;
  if (const json& a = Member(s.cj["status"], "active"); a.is_array()) {
    for (const json& ref : a) {
      already_listed = already_listed || (Str(Member(ref, "name")) == job_name &&
                                          Str(Member(ref, "namespace")) == s.ns);
    }
  }
  const auto last_scheduled = TimeOf(Member(s.cj["status"], "lastScheduleTime"));
  if (already_listed || (last_scheduled && *last_scheduled == scheduled)) {
    return Requeue(NextScheduleDuration(s.cj, s.now, *sched, delta));
  }
  const std::string policy = Str(Member(spec, "concurrencyPolicy"));
  const json active_now = Member(s.cj["status"], "active");
  if (policy == "Forbid" && active_now.is_array() && !active_now.empty()) {
    Event(s.cj, "Normal", "JobAlreadyActive",
          "Not starting job because prior execution is running and concurrency policy is Forbid");
    return Requeue(NextScheduleDuration(s.cj, s.now, *sched, delta));
  }
  if (policy == "Replace" && active_now.is_array()) {
    for (const json& ref : active_now) {
      auto got = client_.Get(JobPath(Str(Member(ref, "namespace")), Str(Member(ref, "name"))));
      if (!got.ok()) {
        Event(s.cj, "Warning", "FailedGet", "Get job: " + std::string(got.status().message()));
        return got.status();
      }
      if (!DeleteJob(s, *got)) {
        return InternalError("could not replace job " + s.ns + "/" + Str(Member(ref, "name")));
      }
    }
  }
  auto created = client_.Create(JobPath(s.ns), job);
  json made;
  if (created.ok()) {
    made = std::move(created).value();
    Event(s.cj, "Normal", "SuccessfulCreate", "Created job " + job_name);
    std::lock_guard<std::mutex> lock(mu_);
    ++jobs_created_;
  } else if (created.status().code() == StatusCode::kAlreadyExists) {
    auto got = client_.Get(JobPath(s.ns, job_name));
    if (!got.ok()) return got.status();
    made = std::move(got).value();
    const json* ref = ControllerOf(made);
    if (ref == nullptr || Str(Member(*ref, "uid")) != Uid(s.cj)) return Requeue();
    if (InActiveList(s.cj, Uid(made))) return Requeue();
    if (log_ != nullptr) log_->Info("Job already exists", {{"cronjob", s.key}, {"job", job_name}});
  } else {
    Event(s.cj, "Warning", "FailedCreate",
          "Error creating job: " + std::string(created.status().message()));
    return created.status();
  }
  json& list = s.cj["status"]["active"];
  if (!list.is_array()) list = json::array();
  list.push_back({{"kind", "Job"},
                  {"namespace", s.ns},
                  {"name", job_name},
                  {"uid", Uid(made)},
                  {"apiVersion", "batch/v1"},
                  {"resourceVersion", Str(Member(Meta(made), "resourceVersion"))}});
  s.cj["status"]["lastScheduleTime"] = FormatRfc3339(scheduled);
  return Requeue(NextScheduleDuration(s.cj, s.now, *sched, delta));
}

void CronJobController::Event(const json& cronjob, std::string_view type, std::string_view reason,
                              std::string message) {
  if (recorder_ == nullptr) return;
  const json& m = Meta(cronjob);
  recorder_->Event({"CronJob", Str(Member(m, "namespace")), Str(Member(m, "name")), Uid(cronjob)},
                   type, reason, std::move(message));
}

}  // namespace tidepool::controllers::cronjob
