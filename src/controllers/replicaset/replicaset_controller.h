// File: replicaset_controller.h
//
// ReplicaSetController: kube-controller-manager 1.32's ReplicaSet controller
// (pkg/controller/replicaset) - it keeps each ReplicaSet's number of active pods at
// spec.replicas and writes its status.
//
//   - Pods are made from spec.template (labels, annotations, finalizers, spec) with
//     generateName "<replicaset>-" and a controller ownerReference (blockOwnerDeletion true);
//     too few pods are created in kcm's slow-start batches (1, 2, 4, ... - a failed batch
//     stops the rest), at most 500 (burstReplicas) per sync; too many are deleted in
//     pod_ranking.h's order, at most 500 per sync.
//   - Expectations: after creating or deleting, the controller waits until its informer has
//     seen those pods (or the expectations timeout passed) before it counts again, so a slow
//     watch never makes it create twice.
//   - Claims: orphan pods of its namespace whose labels match the selector are adopted
//     (ownerReferences patched in), owned pods that no longer match are released - unless the
//     ReplicaSet is being deleted. Before the first adoption the ReplicaSet is read live
//     (kcm's RecheckDeletionTimestamp); when it is gone or being deleted nothing is adopted
//     and the sync is retried, as kcm's (controller_ref.h's ClaimPods).
//   - Status: replicas (active owned pods), fullyLabeledReplicas, readyReplicas,
//     availableReplicas (ready for minReadySeconds), observedGeneration, and the
//     ReplicaFailure condition (reason FailedCreate / FailedDelete) while writes fail.
//   - Events, kcm's: SuccessfulCreate "Created pod: NAME", SuccessfulDelete "Deleted pod:
//     NAME", FailedCreate "Error creating: ERR", FailedDelete "Error deleting: ERR".
//
// An actor: it reads through informers (replicasets, pods) and writes through the API (pods,
// replicasets/NAME/status, pod ownerReferences, events), over whatever transport its
// RestClient has. Pods are indexed by their controller's uid and orphans by namespace, and
// each ReplicaSet's counts are a Tally (tally.h) that a sync brings up to date with the pods
// changed since the last one, so a sync costs what changed and its namespace's orphans, not
// a pass over its pods (but for a scale-down, which ranks them all). One worker
// (controllers/work_queue.h).
//
// Threads: without an executor, as kcm: Start() starts the informers and the queue's worker
// thread. With one (`tidepool simulate`), the controller creates no thread: syncs run as
// callbacks of `executor`, Start() does not start the informers (a driver feeds them and their
// handlers run inline on the executor's thread: they only record facts and queue keys), and
// Start()/Stop() never wait.
//
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/expectations_timeout.h"
#include "controllers/owned_views.h"
#include "controllers/pod_index.h"
#include "controllers/replicaset/pod_ranking.h"
#include "controllers/replicaset/tally.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::replicaset {

struct ReplicaSetControllerOptions {
  // kcm's BurstReplicas: pods created or deleted per sync at most.
  int burst_replicas = 500;
  // kcm's ExpectationsTimeout, with a real-time floor (expectations_timeout.h).
  ExpectationsTimeout expectations;
  // Wait before a failed sync is tried again.
  Duration retry_after = std::chrono::seconds(1);
  uint64_t seed = 1;

  template <typename F>
  void ForEachDuration(F&& f) {
    expectations.ForEachDuration(f);
    f("retryAfter", retry_after, TimeBase::kEmulated);
  }
};

class ReplicaSetController {
 public:
  // `client`, `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  ReplicaSetController(const client::RestClient& client, const Clock& clock,
                       ReplicaSetControllerOptions options,
                       autoscaler::EventRecorder* recorder = nullptr, log::Logger* logger = nullptr,
                       client::SharedInformerFactory* informers = nullptr,
                       TimerService* executor = nullptr);
  ~ReplicaSetController();
  ReplicaSetController(const ReplicaSetController&) = delete;
  ReplicaSetController& operator=(const ReplicaSetController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  struct Expectations {
    int adds = 0;
    std::set<std::string> deletes;  // pod keys
    TimePoint at;
  };

  void OnPod(const client::ObjectRef& old_obj, const client::ObjectRef& obj);
  void OnPodDeleted(const client::ObjectRef& obj);
  // Queues the ReplicaSet controlling `p`, or for an orphan every one of its namespace whose
  // selector matches it.
  void QueueFor(const PodFacts& p);
  std::optional<TimePoint> Sync(const std::string& key);
  // Creates or deletes pods, `active` of them counted now (`adopted` among them, beside the
  // tally of `uid`); returns the failure to report in the ReplicaFailure condition.
  Status Manage(const nlohmann::json& rs, const std::string& key, const std::string& uid,
                int32_t active, const std::vector<PodFactsPtr>& adopted, int32_t replicas);
  Status CreatePods(const nlohmann::json& rs, const std::string& key, int count);
  Status DeletePods(const nlohmann::json& rs, const std::string& key,
                    const std::vector<PodFactsPtr>& active, int count);
  // kcm's ClaimPods: brings the tally of `params.uid` up to date, releases the pods it no
  // longer matches and adopts matching orphans; returns the adopted pods (which the tally
  // counts once their change is seen).
  StatusOr<std::vector<PodFactsPtr>> Claim(const nlohmann::json& rs, const std::string& key,
                                           const Tally::Params& params);
  bool Satisfied(const std::string& key);
  void Event(const nlohmann::json& rs, std::string_view type, std::string_view reason,
             std::string message);

  const client::RestClient& client_;
  const Clock& clock_;
  const ReplicaSetControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  TimerService* executor_ = nullptr;  // set by the constructor only
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> replicasets_;
  std::unique_ptr<WorkQueue> queue_;

  mutable std::mutex mu_;
  PodIndex<PodFacts> pods_index_;
  std::map<std::string, Expectations> expectations_;  // ReplicaSet key -> expectations
  OwnedViews<Tally, PodFacts> tallies_;               // by ReplicaSet uid
};

}  // namespace tidepool::controllers::replicaset
