// File: cronjob_controller.h
//
// CronJobController: kube-controller-manager 1.32's CronJob controller (pkg/controller/cronjob,
// "ControllerV2"), for batch/v1 CronJobs. Informers of CronJobs and Jobs in; Job creations and
// deletions, CronJob status writes and events out. A sync of a CronJob:
//   - reconciles status.active with the Jobs whose controller is a CronJob of that name: a
//     finished Job leaves it (event SawCompletedJob "Saw completed job: <job>, condition:
//     Complete|Failed"), a succeeded one moves status.lastSuccessfulTime to its completionTime;
//     an unfinished Job missing from the list is reported (UnexpectedJob, "Saw a job that the
//     controller did not create or forgot: <job>") unless a fresh GET of the CronJob lists it;
//     a listed Job the informer lacks is looked up, and dropped when the API says NotFound
//     (MissingJob "Active job went missing: <job>");
//   - removes the oldest finished Jobs beyond successfulJobsHistoryLimit and
//     failedJobsHistoryLimit (by status.startTime, then name; background propagation; event
//     SuccessfulDelete "Deleted job <job>");
//   - unless the CronJob is being deleted, has an unknown timeZone (UnknownTimeZone), is
//     suspended, or its schedule does not parse (UnparseableSchedule): finds the most recent
//     unmet schedule time since status.lastScheduleTime (or creation), no older than
//     startingDeadlineSeconds - kcm's mostRecentScheduleTime, with its InvalidSchedule ("time
//     difference between two schedules is less than 1 second", e.g. "59 23 31 2 *"),
//     TooManyMissedTimes (more than 100 missed) and MissSchedule ("Missed scheduled time to
//     start a job: <RFC 1123Z>") - and, when there is one not yet handled: with
//     concurrencyPolicy Forbid and active Jobs does nothing (JobAlreadyActive), with Replace
//     deletes the active Jobs first, then creates the Job "<cronjob>-<scheduled minutes since
//     the epoch>" from spec.jobTemplate (its labels and annotations, the annotation
//     batch.kubernetes.io/cronjob-scheduled-timestamp in the CronJob's zone, the CronJob as
//     controller ownerReference), event SuccessfulCreate "Created job <job>", appends it to
//     status.active and sets status.lastScheduleTime;
//   - writes the status (PUT .../cronjobs/<name>/status) when any of that changed, and
//     requeues the CronJob 100 ms after its next schedule time.
// A CronJob whose schedule or timeZone changes is requeued at its next schedule time; other
// changes sync at once; Job events sync their controller CronJob.
// Schedules are api/cron_schedule.h (robfig/cron's ParseStandard); without spec.timeZone they
// are UTC.
//
// Threads: as the other controllers (controllers/work_queue.h): without an executor, Start()
// starts the informers and one worker thread; with one (`tidepool simulate`) syncs run as its
// callbacks and a driver feeds the informers.
// Time: the injected Clock. Schedules are calendar times of that clock: under `tidepool up`
// the real time (--speed shortens emulated delays, not the calendar: "*/1 * * * *" is once a
// real minute), in `tidepool simulate` the simulated time. Durations of the options are
// emulated.
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/speed.h"
#include "common/thread_timer_service.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::cronjob {

struct CronJobControllerOptions {
  // nextScheduleDelta: the padding after a schedule time before the sync.
  Duration next_schedule_delta = std::chrono::milliseconds(100);
  // The retry of a failed sync (the queue's rate limiter): doubling from this to the max.
  Duration api_backoff = std::chrono::milliseconds(5);
  Duration api_backoff_max = std::chrono::seconds(1000);
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("nextScheduleDelta", next_schedule_delta, TimeBase::kEmulated);
    f("apiBackoff", api_backoff, TimeBase::kEmulated);
    f("apiBackoffMax", api_backoff_max, TimeBase::kEmulated);
  }
};

class CronJobController {
 public:
  // `client`, `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  CronJobController(const client::RestClient& client, const Clock& clock,
                    CronJobControllerOptions options, autoscaler::EventRecorder* recorder = nullptr,
                    log::Logger* logger = nullptr,
                    client::SharedInformerFactory* informers = nullptr,
                    TimerService* executor = nullptr);
  ~CronJobController();
  CronJobController(const CronJobController&) = delete;
  CronJobController& operator=(const CronJobController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;
  // Jobs created so far.
  uint64_t jobs_created() const;

 private:
  struct SyncState;  // one sync's working copy (cronjob_controller.cc)

  void OnJob(const client::ObjectRef& obj, bool deleted);
  void OnCronJobUpdate(const client::ObjectRef& old_obj, const client::ObjectRef& obj);
  // The queue's sync: Sync, and on failure the retry's time (the back-off).
  std::optional<TimePoint> SyncWithBackoff(const std::string& key);
  // Syncs one CronJob; its requeue time, if any.
  StatusOr<std::optional<TimePoint>> Sync(const std::string& key);
  bool CleanupFinishedJobs(SyncState& s);
  StatusOr<std::optional<Duration>> SyncCronJob(SyncState& s);
  // deleteJob: the Job deleted (background) and out of the active list; false on failure.
  bool DeleteJob(SyncState& s, const nlohmann::json& job);
  void Event(const nlohmann::json& cronjob, std::string_view type, std::string_view reason,
             std::string message);

  // Constant after construction.
  const client::RestClient& client_;
  const Clock& clock_;
  const CronJobControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  std::shared_ptr<client::Informer> cronjobs_;
  std::shared_ptr<client::Informer> jobs_;
  std::unique_ptr<ThreadTimerService> own_timers_;  // without an executor
  std::unique_ptr<WorkQueue> queue_;

  mutable std::mutex mu_;
  // Protected by mu_: Job keys by their controller CronJob's key ("<ns>/<cronjob name>").
  std::map<std::string, std::set<std::string>> jobs_by_owner_;
  // Job key -> the owner key it is indexed under.
  std::map<std::string, std::string> owner_of_;
  std::map<std::string, int> failures_;
  uint64_t jobs_created_ = 0;
};

}  // namespace tidepool::controllers::cronjob
