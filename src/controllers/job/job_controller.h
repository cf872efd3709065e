// File: job_controller.h
//
// JobController: kube-controller-manager 1.32's Job controller (pkg/controller/job) and its
// TTL-after-finished controller (pkg/controller/ttlafterfinished), for batch/v1 Jobs. With
// 1.32's default feature gates (JobPodReplacementPolicy, JobManagedBy, JobSuccessPolicy and
// JobPodFailurePolicy on; so status.terminating is kept and terminal conditions wait for
// terminating pods):
//   - pods: created from spec.template with generateName "<job>-" (Indexed: "<job>-<index>-",
//     the annotation and label batch.kubernetes.io/job-completion-index, hostname
//     "<job>-<index>", env JOB_COMPLETION_INDEX), the Job as controller ownerReference
//     (blockOwnerDeletion) and the batch.kubernetes.io/job-tracking finalizer; as many as
//     parallelism allows and completions still need, kcm's slow-start batches (1, 2, 4, ...);
//     surplus ones deleted (not ready / unscheduled / pending first), their finalizer removed
//     first;
//   - counting: finished pods go to status.uncountedTerminatedPods, their finalizer is
//     removed, then they move to status.succeeded / failed (Indexed: status.completedIndexes,
//     "1,3-5"); status.active, ready, terminating, startTime;
//   - failures: replacement pods wait the pod-failure back-off (10 s doubling, capped at
//     `pod_failure_backoff_max`); failed > backoffLimit (or, restartPolicy OnFailure, restarts
//     >= backoffLimit) -> FailureTarget then Failed, reason BackoffLimitExceeded;
//     activeDeadlineSeconds -> DeadlineExceeded; podFailurePolicy (FailJob -> reason
//     PodFailurePolicy, Ignore: not counted, Count); active pods of a failing Job are deleted;
//   - success: SuccessCriteriaMet then Complete (reason CompletionsReached, "Reached expected
//     number of succeeded pods"), completionTime; events Completed "Job completed", or the
//     failure's reason and message as a Warning;
//   - successPolicy (Indexed): SuccessCriteriaMet then Complete, reason SuccessPolicy,
//     "Matched rules at index <i>", the other pods deleted;
//   - suspend: active pods deleted, condition Suspended (JobSuspended, "Job suspended"; on
//     resume False, JobResumed, "Job resumed", startTime reset), events Suspended / Resumed;
//   - ttlSecondsAfterFinished: the finished Job is deleted with propagationPolicy Foreground
//     (and a uid precondition) once that long after its Complete/Failed transition;
//   - events SuccessfulCreate "Created pod: <pod>", SuccessfulDelete "Deleted pod: <pod>",
//     FailedCreate / FailedDelete "Error creating: <err>" / "Error deleting: <err>".
//   - orphans: the tracking finalizer is removed from pods without a controller, and from the
//     pods of a deleted or finished Job (kcm's orphan queue);
// Not done: adopting orphan pods that match the selector (and releasing pods that no longer
// match), backoffLimitPerIndex / maxFailedIndexes / FailIndex (FailIndex counts as Count),
// the job metrics. Jobs with another spec.managedBy are left alone, as kcm does.
//
// Emulation note: the API server does not keep deleted pods for their finalizers. A pod that
// disappears with the job-tracking finalizer before it was counted is kept here, as kcm would
// still see it (phase Failed unless it had succeeded, as the 1.32 kubelet marks deleted
// pods), until counted.
//
// Work: informer events mark Jobs (pod events after `sync_batch_period`, Job changes at once);
// marked Jobs are synced in (due time, key) order (controllers/work_queue.h), and orphan pods
// in a second queue of pod keys; a failed sync is retried after the API back-off (1 s
// doubling to 1 min). Expectations (creations and deletions not yet seen by the pod informer,
// and finalizer removals) hold back pod management until the informer caught up or
// the expectations timeout passed, so a slow informer does not double-create.
//
// Threads: without an executor, Start() starts the informers and one worker thread (a
// ThreadTimerService of the controller's) on which both queues sync. With one (`tidepool
// simulate`), the controller creates no thread: both queues sync as callbacks of `executor`,
// Start() does not start the informers (a driver feeds them; their handlers run inline on the
// executor's thread and only record pods and mark keys), and Start()/Stop() never wait.
//
// Time: the injected Clock only. Durations of options are emulated (--speed divides them); a
// Job's own activeDeadlineSeconds and ttlSecondsAfterFinished are object time.
// Thread-safe: Start/Stop from one thread; the rest is internal.
#pragma once

#include <map>
#include <memory>
#include <mutex>
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
#include "controllers/expectations_timeout.h"
#include "controllers/job/job_pods.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::job {

struct JobControllerOptions {
  // syncJobBatchPeriod: pod events are batched this long before a sync.
  Duration sync_batch_period = std::chrono::seconds(1);
  // DefaultJobPodFailureBackOff / MaxJobPodFailureBackOff.
  Duration pod_failure_backoff = std::chrono::seconds(10);
  Duration pod_failure_backoff_max = std::chrono::minutes(10);
  // DefaultJobApiBackOff / MaxJobApiBackOff: retries of a failed sync.
  Duration api_backoff = std::chrono::seconds(1);
  Duration api_backoff_max = std::chrono::minutes(1);
  // controller.ExpectationsTimeout, with a real-time floor (expectations_timeout.h).
  ExpectationsTimeout expectations;
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("syncBatchPeriod", sync_batch_period, TimeBase::kEmulated);
    f("podFailureBackoff", pod_failure_backoff, TimeBase::kEmulated);
    f("podFailureBackoffMax", pod_failure_backoff_max, TimeBase::kEmulated);
    f("apiBackoff", api_backoff, TimeBase::kEmulated);
    f("apiBackoffMax", api_backoff_max, TimeBase::kEmulated);
    expectations.ForEachDuration(f);
  }
};

class JobController {
 public:
  // `client`, `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  JobController(const client::RestClient& client, const Clock& clock, JobControllerOptions options,
                autoscaler::EventRecorder* recorder = nullptr, log::Logger* logger = nullptr,
                client::SharedInformerFactory* informers = nullptr,
                TimerService* executor = nullptr);
  ~JobController();
  JobController(const JobController&) = delete;
  JobController& operator=(const JobController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;
  // Pods created and Job status writes so far.
  uint64_t pods_created() const;
  uint64_t status_writes() const;

 private:
  struct Expectations {
    int64_t adds = 0;
    int64_t dels = 0;
    TimePoint at;
  };
  struct SyncState;  // one sync's working set (job_controller.cc)

  void OnPodAdd(const client::ObjectRef& obj);
  void OnPodUpdate(const client::ObjectRef& old_obj, const client::ObjectRef& obj);
  void OnPodDelete(const client::ObjectRef& obj, bool final_state_unknown);
  // kcm's deletePod: `final` when the pod is gone, not only being deleted.
  void PodDeleted(const JobPod& pod, bool final);
  // "<ns>/<job>" of the pod's controller Job when the informer has it (and its uid matches).
  std::optional<std::string> JobKeyOf(const JobPod& pod) const;
  void Mark(const std::string& key, TimePoint at);
  // kcm's orphan queue: pods ("<ns>/<name>") whose tracking finalizer may have to go.
  void EnqueueOrphan(const JobPod& pod);
  // The pods of the Job of `uid` in `ns` that still have the finalizer.
  void CleanupPodFinalizers(const std::string& ns, const std::string& uid);
  void SyncOrphanPod(const std::string& pod_key);
  // The queue's sync: Sync, and when it failed the time of the retry (the API back-off).
  std::optional<TimePoint> SyncWithBackoff(const std::string& key);
  // Syncs one Job; OK or the error that makes it retry.
  Status Sync(const std::string& key);

  Status ManageJob(SyncState& s, int32_t& active, int32_t& terminating, int32_t& ready);
  Status CreatePods(SyncState& s, int32_t count, std::vector<int64_t> indexes, int32_t& active);
  // Deletes pods (removing their finalizer first when `remove_finalizer`); returns how many
  // were deleted (ready ones in `deleted_ready`).
  int32_t DeletePods(SyncState& s, const std::vector<const JobPod*>& pods, bool remove_finalizer,
                     int32_t& deleted_ready, Status& error);
  Status TrackStatusAndRemoveFinalizers(SyncState& s, bool needs_flush);
  // PUT .../jobs/NAME/status; the answer replaces s.job.
  Status UpdateStatus(SyncState& s);
  // Removes the tracking finalizer of `pod`; true when done (or the pod is gone).
  bool RemoveFinalizer(const std::string& key, const JobPod& pod, Status& error);
  // The TTL-after-finished controller's part for a finished Job.
  void HandleTtl(const std::string& key, const nlohmann::json& job);
  void Event(const nlohmann::json& job, std::string_view type, std::string_view reason,
             std::string message);

  bool SatisfiedExpectations(const std::string& key) const;
  void ExpectCreations(const std::string& key, int64_t n);
  void ExpectDeletions(const std::string& key, int64_t n);
  void CreationObserved(const std::string& key);
  void DeletionObserved(const std::string& key);

  // Constant after construction.
  const client::RestClient& client_;
  const Clock& clock_;
  const JobControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  std::shared_ptr<client::Informer> jobs_;
  std::shared_ptr<client::Informer> pods_;
  // Without an injected executor, the worker: the controller's own (declared before the
  // queues, which run on it).
  std::unique_ptr<ThreadTimerService> own_timers_;
  // Job keys, and orphan pods ("<ns>/<name>") whose tracking finalizer may have to go (kcm's
  // orphan queue).
  std::unique_ptr<WorkQueue> queue_;
  std::unique_ptr<WorkQueue> orphan_queue_;

  mutable std::mutex mu_;
  // State below is protected by mu_.
  // Pods by namespace, then name.
  std::map<std::string, std::map<std::string, JobPod>> pods_by_ns_;
  // Pods gone with their tracking finalizer, by Job key then uid (see the file comment).
  std::map<std::string, std::map<std::string, JobPod>> tombstones_;
  // Consecutive failed syncs per Job key (the API back-off).
  std::map<std::string, int> failures_;
  std::map<std::string, Expectations> expectations_;
  // Job key -> pod uids whose finalizer removal was sent and not yet seen.
  std::map<std::string, std::set<std::string>> finalizer_expectations_;
  std::map<std::string, BackoffRecord> backoff_;
  uint64_t pods_created_ = 0;
  uint64_t status_writes_ = 0;
};

}  // namespace tidepool::controllers::job
