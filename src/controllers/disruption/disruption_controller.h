// File: disruption_controller.h
//
// DisruptionController: kube-controller-manager 1.32's disruption controller
// (pkg/controller/disruption) - it keeps every PodDisruptionBudget's status (expectedPods,
// desiredHealthy, currentHealthy, disruptionsAllowed, disruptedPods, observedGeneration and the
// DisruptionAllowed condition) up to date with the pods the budget selects. The eviction
// subresource (apiserver/eviction.h) and the cluster autoscaler (CA's RemainingPdbTracker) read
// disruptionsAllowed from that status; without this controller every budget allows nothing.
//
// An actor like any other: it reads through informers (pods, PodDisruptionBudgets) and writes
// through the API (PUT .../poddisruptionbudgets/NAME/status, its events), over whatever
// transport its RestClient has - in `tidepool up`, the API server of the same process.
// The arithmetic is budget_status.h's.
//
// Work: an informer change marks the budgets it concerns (a pod's: the budgets of its
// namespace whose selectors select its old or new labels); one worker (controllers/
// work_queue.h) syncs marked budgets in (due time, key) order, and again when a disruptedPods
// entry expires. A write that conflicts (409) or fails is retried after `retry_after`.
// Controllers' replicas (for percentages and maxUnavailable) are read with GETs of the
// ReplicaSet (and its Deployment), StatefulSet or ReplicationController, as kcm's finders.
//
// Threads: without an executor, Start() starts the informers and the queue's worker thread.
// With one (`tidepool simulate`), the controller creates no thread: syncs run as callbacks of
// `executor`, Start() does not start the informers (a driver feeds them; their handlers run
// inline on the executor's thread and only record facts and mark budgets), and Start()/Stop()
// never wait.
//
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
#include "common/timer_service.h"
#include "controllers/disruption/budget_status.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::disruption {

struct DisruptionControllerOptions {
  // kcm's DeletionTimeout: how long an eviction's entry in disruptedPods counts (emulated time:
  // `tidepool up --speed N` divides it).
  Duration deletion_timeout = kDeletionTimeout;
  // Wait before a failed sync is tried again.
  Duration retry_after = std::chrono::seconds(1);
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("deletionTimeout", deletion_timeout, TimeBase::kEmulated);
    f("retryAfter", retry_after, TimeBase::kEmulated);
  }
};

class DisruptionController {
 public:
  // `client`, `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  DisruptionController(const client::RestClient& client, const Clock& clock,
                       DisruptionControllerOptions options,
                       autoscaler::EventRecorder* recorder = nullptr, log::Logger* logger = nullptr,
                       client::SharedInformerFactory* informers = nullptr,
                       TimerService* executor = nullptr);
  ~DisruptionController();
  DisruptionController(const DisruptionController&) = delete;
  DisruptionController& operator=(const DisruptionController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;
  // Budget status writes made so far.
  uint64_t writes() const;

 private:
  void OnPod(const client::ObjectRef& obj);
  void OnPodDeleted(const client::ObjectRef& obj);
  void MarkBudgetsFor(const std::string& ns, const api::Labels& labels);
  void Mark(const std::string& key, TimePoint at);
  // Syncs one budget; returns when to sync it again, if ever.
  std::optional<TimePoint> Sync(const std::string& key);
  StatusOr<int32_t> ControllerScale(const std::string& ns, const PodFacts& pod) const;

  const client::RestClient& client_;
  const Clock& clock_;
  const DisruptionControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  TimerService* executor_ = nullptr;  // set by the constructor only
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> pdbs_;

  mutable std::mutex mu_;
  // Pods by namespace, then name.
  std::map<std::string, std::map<std::string, PodFacts>> pods_by_ns_;
  uint64_t writes_ = 0;
  // Budget keys.
  std::unique_ptr<WorkQueue> queue_;
};

}  // namespace tidepool::controllers::disruption
