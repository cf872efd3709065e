// File: deployment_controller.h
//
// DeploymentController: kube-controller-manager 1.32's deployment controller
// (pkg/controller/deployment). It owns ReplicaSets, one per pod template, and moves replicas
// from the old ones to the new one:
//
//   - The new ReplicaSet is "<deployment>-<pod-template-hash>" (rollout.h's PodTemplateHash),
//     its selector and template labelled pod-template-hash, a controller ownerReference, the
//     Deployment's annotations (kubectl's last-applied and the deployment.kubernetes.io ones
//     excepted, so kubernetes.io/change-cause reaches `rollout history`; copied again onto the
//     current ReplicaSet whenever the Deployment's change, as kcm's
//     SetNewReplicaSetAnnotations) and
//     deployment.kubernetes.io/revision (1 + the highest old one), desired-replicas and
//     max-replicas. A template seen before (`rollout undo`) makes its old ReplicaSet new again
//     with the next revision. The Deployment carries the new revision as its annotation.
//   - RollingUpdate: the new ReplicaSet grows within maxSurge and old ones shrink while
//     availableReplicas stays at replicas - maxUnavailable (rollout.h). Recreate: old
//     ReplicaSets go to 0, and once their pods are gone the new one is created at full size.
//   - A replica change while several ReplicaSets are active is spread proportionally; paused
//     Deployments are only scaled.
//   - Old ReplicaSets at 0 beyond spec.revisionHistoryLimit are deleted, oldest revision first.
//   - Status: observedGeneration, replicas, updatedReplicas, readyReplicas, availableReplicas,
//     unavailableReplicas, collisionCount, and the conditions Available
//     (MinimumReplicasAvailable / MinimumReplicasUnavailable) and Progressing
//     (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable,
//     ProgressDeadlineExceeded after progressDeadlineSeconds, DeploymentPaused,
//     DeploymentResumed) with kcm's messages - what `kubectl rollout status` reads.
//   - Events: ScalingReplicaSet "Scaled up replica set NAME to N" on creation and
//     "Scaled up|down replica set NAME to N from M"; SelectingAll for an empty selector.
//
// The ReplicaSets' pods are the ReplicaSet controller's. An actor: informers on deployments and
// replicasets (ReplicaSets indexed by their controller's uid), writes through the API; one
// worker (controllers/work_queue.h). Deviation: Recreate waits for the old ReplicaSets'
// status.replicas to reach 0 (active pods), where kcm also waits for terminating ones.
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
#include <nlohmann/json_fwd.hpp>
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
#include "controllers/work_queue.h"

namespace tidepool::controllers::deployment {

struct DeploymentControllerOptions {
  // Wait before a failed sync is tried again.
  Duration retry_after = std::chrono::seconds(1);
  uint64_t seed = 1;

  template <typename F>
  void ForEachDuration(F&& f) {
    f("retryAfter", retry_after, TimeBase::kEmulated);
  }
};

class DeploymentController {
 public:
  // `client`, `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  DeploymentController(const client::RestClient& client, const Clock& clock,
                       DeploymentControllerOptions options,
                       autoscaler::EventRecorder* recorder = nullptr, log::Logger* logger = nullptr,
                       client::SharedInformerFactory* informers = nullptr,
                       TimerService* executor = nullptr);
  ~DeploymentController();
  DeploymentController(const DeploymentController&) = delete;
  DeploymentController& operator=(const DeploymentController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  class Sync;

  void OnReplicaSet(const client::ObjectRef& old_obj, const client::ObjectRef& obj);
  void OnReplicaSetDeleted(const client::ObjectRef& obj);
  void QueueOwnerOf(const nlohmann::json& rs);
  std::optional<TimePoint> SyncKey(const std::string& key);

  const client::RestClient& client_;
  const Clock& clock_;
  const DeploymentControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  TimerService* executor_ = nullptr;  // set by the constructor only
  std::shared_ptr<client::Informer> deployments_;
  std::shared_ptr<client::Informer> replicasets_;
  std::unique_ptr<WorkQueue> queue_;

  mutable std::mutex mu_;
  // Controller uid -> ReplicaSet keys; orphans by namespace.
  std::map<std::string, std::set<std::string>> by_controller_;
  std::map<std::string, std::set<std::string>> orphans_;
  std::map<std::string, std::string> controller_of_;  // ReplicaSet key -> controller uid ("": orphan)
};

}  // namespace tidepool::controllers::deployment
