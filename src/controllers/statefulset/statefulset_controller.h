// File: statefulset_controller.h
//
// StatefulSetController: kube-controller-manager 1.32's StatefulSet controller
// (pkg/controller/statefulset) - stable, ordinal pods for each StatefulSet, its claims, its
// rolling updates and its status.
//
//   - Identity: pods are named "<set>-<ordinal>" for ordinals spec.ordinals.start ..
//     start + replicas - 1, labelled statefulset.kubernetes.io/pod-name,
//     apps.kubernetes.io/pod-index and controller-revision-hash, with spec.hostname = the pod's
//     name and spec.subdomain = spec.serviceName, and a controller ownerReference
//     (blockOwnerDeletion true).
//   - Storage: each volumeClaimTemplate becomes the claim "<template>-<set>-<ordinal>" (made
//     before the pod when missing, labelled with the selector's matchLabels) and a pod volume
//     of the template's name. persistentVolumeClaimRetentionPolicy: whenDeleted Delete gives
//     the claims a controller ownerReference to the set; whenScaled Delete gives a condemned
//     pod's claims one to that pod, in place of the set's, before it is deleted (the garbage
//     collector deletes them). Claims of pods in range are not re-checked after creation.
//   - podManagementPolicy OrderedReady (kcm's "monotonic"): pods are made in ordinal order, each
//     Running, Ready and available (minReadySeconds) before the next; on scale-down the highest
//     ordinal goes first, one at a time, and only while the others are healthy. Parallel: all
//     at once (kcm's slow-start batches 1, 2, 4, ...).
//   - Failed or Succeeded pods are deleted and made again on the next sync.
//   - Revisions, kcm's getStatefulSetRevisions and truncateHistory (controllers/history): each
//     template is a ControllerRevision "<set>-<hash>" (HashControllerRevision of its data and
//     status.collisionCount: the names a real cluster gives), labelled with the template's
//     labels and controller.kubernetes.io/hash; the set's template now is the update revision
//     (the newest revision when equal to it; an older equal one is renumbered newest - a
//     rollback; else a new one); status.currentRevision names the current one (the update
//     revision when it names none). Pods are labelled controller-revision-hash with the
//     revision's name. Revisions that are neither current, update nor any pod's go beyond
//     spec.revisionHistoryLimit, oldest first.
//   - updateStrategy RollingUpdate: after scaling, the pod with the highest ordinal >=
//     partition that is not at the update revision is deleted (and made again at it), one at a
//     time, waiting for each to be Running and Ready; OnDelete: pods change revision only when
//     someone deletes them.
//   - Status as kcm writes it: observedGeneration, replicas, readyReplicas, currentReplicas,
//     updatedReplicas, availableReplicas, currentRevision, updateRevision, collisionCount; a
//     finished rolling update makes currentRevision the update revision.
//   - Events, kcm's: SuccessfulCreate "create Pod NAME in StatefulSet SET successful",
//     SuccessfulDelete "delete Pod NAME in StatefulSet SET successful", FailedCreate / FailedDelete
//     "... failed error: ERR", and the claims' "create Claim CLAIM Pod NAME in StatefulSet SET
//     success".
//   - Orphan pods of its namespace whose labels match the selector and whose name is
//     "<set>-<ordinal>" are adopted (after kcm's RecheckDeletionTimestamp of the set); owned
//     pods that stop matching are released, unless the set is being deleted.
//
// An actor: it reads through informers (statefulsets, pods, controllerrevisions) and writes
// through the API (pods, persistentvolumeclaims, controllerrevisions, statefulsets/NAME/status,
// events). One worker (work_queue.h).
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
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/meta.h"
#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/history/controller_history.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::statefulset {

struct StatefulSetControllerOptions {
  // Wait before a failed sync is tried again (emulated).
  Duration retry_after = std::chrono::seconds(1);
  uint64_t seed = 1;

  template <typename F>
  void ForEachDuration(F&& f) {
    f("retryAfter", retry_after, TimeBase::kEmulated);
  }
};

// What the controller keeps of a pod (the informer caches metadata only).
struct SetPod {
  std::string ns;
  std::string name;
  std::string uid;
  api::Labels labels;
  std::string controller_uid;
  std::string controller_kind;
  std::string phase;
  bool deleting = false;
  bool ready = false;
  std::optional<TimePoint> ready_since;

  std::string Revision() const;
  bool RunningAndReady() const { return phase == "Running" && ready; }
  // Running and Ready for at least `min_ready` at `now` (kcm's isRunningAndAvailable).
  bool Available(Duration min_ready, TimePoint now) const;
};

// "<parent>-<ordinal>": the ordinal, or -1 when `pod_name` is not `set_name`'s.
int OrdinalOf(const std::string& pod_name, const std::string& set_name);

class StatefulSetController {
 public:
  // `client`, `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  StatefulSetController(const client::RestClient& client, const Clock& clock,
                        StatefulSetControllerOptions options,
                        autoscaler::EventRecorder* recorder = nullptr,
                        log::Logger* logger = nullptr,
                        client::SharedInformerFactory* informers = nullptr,
                        TimerService* executor = nullptr);
  ~StatefulSetController();
  StatefulSetController(const StatefulSetController&) = delete;
  StatefulSetController& operator=(const StatefulSetController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  struct Sync;  // one sync's state (statefulset_controller.cc)

  void OnPod(const client::ObjectRef& obj);
  void OnPodDeleted(const client::ObjectRef& obj);
  void Index(SetPod pod);
  void Unindex(const std::string& key);
  void QueueFor(const SetPod& pod);
  std::optional<TimePoint> SyncSet(const std::string& key);
  // The set's pods after adoption and release (kcm's getPodsForStatefulSet; controller_ref.h's
  // ClaimPods).
  StatusOr<std::vector<SetPod>> PodsOf(const nlohmann::json& set);
  // The update revision (found, renumbered or created); `revisions` sorted by revision.
  StatusOr<nlohmann::json> Revisions(const nlohmann::json& set,
                                     const std::vector<client::ObjectRef>& revisions,
                                     int32_t* collisions);
  Status TruncateHistory(const nlohmann::json& set, const std::vector<client::ObjectRef>& revisions,
                         const std::set<std::string>& live);

  const client::RestClient& client_;
  const Clock& clock_;
  const StatefulSetControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  TimerService* executor_ = nullptr;  // set by the constructor only
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> sets_;
  std::unique_ptr<history::History> history_;
  std::unique_ptr<WorkQueue> queue_;

  mutable std::mutex mu_;
  std::map<std::string, SetPod> pods_by_key_;                   // "ns/name" -> pod
  std::map<std::string, std::set<std::string>> by_controller_;  // controller uid -> pod keys
  std::map<std::string, std::set<std::string>> orphans_;        // namespace -> pod keys
};

}  // namespace tidepool::controllers::statefulset
