// File: daemonset_controller.h
//
// DaemonSetController: kube-controller-manager 1.32's DaemonSet controller
// (pkg/controller/daemon) - one pod of each DaemonSet on every node that should run it
// (daemon_pods.h's placement), rolled to new templates, and the DaemonSet's status.
//
//   - manage: a node that should run the pod and has none gets one (created from the template
//     with generateName "<ds>-", a controller ownerReference, the labels
//     controller-revision-hash and pod-template-generation, the daemon tolerations, and pinned
//     to the node by node affinity matchFields metadata.name - the scheduler binds it); pods on
//     a node that should no longer run them (or that no longer exists, while unbound) are
//     deleted; Succeeded pods are deleted, Failed ones deleted with a FailedDaemonPod event and
//     a per-node backoff (1 s doubling to 15 min); duplicates on a node are deleted but the
//     oldest (with maxSurge, one old and one new are kept while the new one is not available).
//     Creations come in kcm's slow-start batches (1, 2, 4, ...), at most 250 (burstReplicas)
//     per sync.
//   - RollingUpdate (after manage, once expectations are met): maxUnavailable / maxSurge
//     (int or percent of desiredNumberScheduled, rounded up; default 1 / 0) as kcm's
//     rollingUpdate: without surge old pods are deleted while the unavailable count allows
//     (unavailable old pods always); with surge a new pod is created beside the old one and the
//     old one deleted once the new is available. OnDelete: old pods stay until deleted.
//   - Status: desiredNumberScheduled, currentNumberScheduled, numberMisscheduled, numberReady,
//     updatedNumberScheduled, numberAvailable, numberUnavailable, observedGeneration.
//   - Events, kcm's: SuccessfulCreate "Created pod: NAME", SuccessfulDelete "Deleted pod:
//     NAME", FailedCreate "Error creating: ERR", FailedDelete "Error deleting: ERR",
//     FailedDaemonPod "Found failed daemon pod NS/NAME on node NODE, will try to kill it",
//     SelectingAll "This daemon set is selecting all pods. A non-empty selector is required.".
//   - Claims as the ReplicaSet controller's: orphans matching the selector are adopted (after
//     kcm's RecheckDeletionTimestamp of the DaemonSet), owned pods that stop matching are
//     released. Its pods by node (node_pods.h) are brought up to date on each sync by the pods
//     that changed since the last, not regrouped.
//   - History, kcm's constructHistory/cleanupHistory (controllers/history): each template the
//     DaemonSet has had is a ControllerRevision "<ds>-<hash>" (hash: daemon_pods.h
//     TemplateHash, with status.collisionCount) labelled with the template's labels and
//     controller-revision-hash, carrying the DaemonSet's annotations (so kubectl's change-cause)
//     and the template as data; the revision matching the template now is current and is
//     renumbered above the old ones (so `kubectl rollout undo` to an old template makes that
//     revision the newest), and its hash is the one new pods get. Old revisions beyond
//     spec.revisionHistoryLimit that no pod is at are deleted, oldest first. A revision name
//     held by other data raises status.collisionCount.
//
// An actor: informers on daemonsets, pods, nodes and controllerrevisions; writes pods,
// controllerrevisions, daemonsets/NAME/status, events. One worker (controllers/work_queue.h). What
// queues a DaemonSet: its own changes, its pods' changes, and nodes as kcm's addNode/updateNode: a
// new node queues the DaemonSets that should run on it; an update that changes labels, taints or
// unschedulable queues those whose placement there (shouldRun, shouldContinueRunning) changed; a
// deleted node queues all.
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
#include <utility>
#include <vector>

#include "api/node.h"
#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/daemonset/daemon_pods.h"
#include "controllers/daemonset/node_pods.h"
#include "controllers/expectations_timeout.h"
#include "controllers/history/controller_history.h"
#include "controllers/owned_views.h"
#include "controllers/pod_index.h"
#include "controllers/replicaset/pod_ranking.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::daemonset {

struct DaemonSetControllerOptions {
  // kcm's BurstReplicas for DaemonSets.
  int burst_replicas = 250;
  // kcm's ExpectationsTimeout, with a real-time floor (expectations_timeout.h).
  ExpectationsTimeout expectations;
  Duration retry_after = std::chrono::seconds(1);
  // failedPodsBackoff: initial and maximum delay.
  Duration failed_pod_backoff = std::chrono::seconds(1);
  Duration failed_pod_backoff_max = std::chrono::minutes(15);
  uint64_t seed = 1;

  template <typename F>
  void ForEachDuration(F&& f) {
    expectations.ForEachDuration(f);
    f("retryAfter", retry_after, TimeBase::kEmulated);
    f("failedPodBackoff", failed_pod_backoff, TimeBase::kEmulated);
    f("failedPodBackoffMax", failed_pod_backoff_max, TimeBase::kEmulated);
  }
};

class DaemonSetController {
 public:
  // `client`, `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  DaemonSetController(const client::RestClient& client, const Clock& clock,
                      DaemonSetControllerOptions options,
                      autoscaler::EventRecorder* recorder = nullptr, log::Logger* logger = nullptr,
                      client::SharedInformerFactory* informers = nullptr,
                      TimerService* executor = nullptr);
  ~DaemonSetController();
  DaemonSetController(const DaemonSetController&) = delete;
  DaemonSetController& operator=(const DaemonSetController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  struct Expectations {
    int adds = 0;
    std::set<std::string> deletes;  // pod keys
    TimePoint at;
  };
  struct Backoff {
    Duration delay{};
    TimePoint last;
  };
  struct Plan;
  struct Revisions {
    nlohmann::json current;
    std::vector<client::ObjectRef> old;
  };

  void OnPod(const client::ObjectRef& old_obj, const client::ObjectRef& obj);
  void OnPodDeleted(const client::ObjectRef& obj);
  void OnNode(const client::ObjectRef& old_obj, const client::ObjectRef& obj);
  void QueueFor(const DaemonPod& p);
  void QueueAll();
  // kcm's addNode (`before` null) and updateNode: queues the DaemonSets that should run a pod
  // on the node, or whose placement there changed.
  void QueueForNode(const api::Node* before, const api::Node& now);
  // The placement-relevant shape of `ds`'s pods, cached by resourceVersion (OnNode's only).
  const DaemonPodShape& ShapeFor(const nlohmann::json& ds);
  std::optional<TimePoint> Sync(const std::string& key);
  // kcm's ClaimPods: releases the controlled pods `params`' selector no longer matches and
  // adopts the matching orphans (controller_ref.h); returns the adopted pods. The others are
  // in node_pods_.At(params.uid), brought up to date.
  StatusOr<std::vector<DaemonPodPtr>> Claim(const nlohmann::json& ds, const std::string& key,
                                            const NodePods::Params& params);
  // kcm's manage: which nodes need a pod, which pods go.
  void Manage(const nlohmann::json& ds, const std::string& key, const Plan& plan,
              std::vector<std::string>* create_on, std::vector<std::string>* delete_pods,
              std::optional<TimePoint>* recheck);
  void RollingUpdate(const nlohmann::json& ds, const Plan& plan,
                     std::vector<std::string>* create_on, std::vector<std::string>* delete_pods);
  Status SyncNodes(const nlohmann::json& ds, const std::string& key,
                   const std::vector<std::string>& create_on,
                   const std::vector<std::string>& delete_pods, const std::string& hash);
  bool Satisfied(const std::string& key);
  void OnRevision(const nlohmann::json& cr);
  StatusOr<nlohmann::json> Snapshot(const nlohmann::json& ds, int64_t revision);
  StatusOr<Revisions> ConstructHistory(const nlohmann::json& ds,
                                       const api::LabelSelector& selector);
  Status CleanupHistory(const nlohmann::json& ds, const Plan& plan,
                        std::vector<client::ObjectRef> old);
  std::vector<DaemonPodPtr> PodsControlledBy(const std::string& uid);
  // Every node's placement for the DaemonSet `key` whose pods have `shape` (made from the
  // template identified by `shape_key`), into `plan`: ShouldRun only for the nodes that
  // changed since the last sync of `key` with the same shape (placements_).
  void PlaceNodes(const std::string& key, const std::string& shape_key, const DaemonPodShape& shape,
                  Plan* plan);
  // Points each node's plan at its group of `pods` (pods for nodes the plan does not have go to
  // plan->orphaned, by name) and adds the `adopted` pods. REQUIRES: PlaceNodes ran.
  static void GroupPods(const NodePods& pods, std::vector<DaemonPodPtr> adopted, Plan* plan);
  void Event(const nlohmann::json& ds, std::string_view type, std::string_view reason,
             std::string message);

  const client::RestClient& client_;
  const Clock& clock_;
  const DaemonSetControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  TimerService* executor_ = nullptr;  // set by the constructor only
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> daemonsets_;
  std::shared_ptr<client::Informer> nodes_;
  std::unique_ptr<history::History> history_;
  std::unique_ptr<WorkQueue> queue_;

  mutable std::mutex mu_;
  PodIndex<DaemonPod> pods_index_;  // node_name: the pod's target node
  // name -> the node, and a number that changes only when what placement reads of it (labels,
  // taints, unschedulable) changed.
  struct NodeFacts {
    api::NodeConstSharedPtr node;
    uint64_t placement_version = 0;
  };
  std::map<std::string, NodeFacts> node_facts_;
  uint64_t placement_versions_ = 0;
  std::map<std::string, Expectations> expectations_;  // DaemonSet key -> expectations
  std::map<std::string, Backoff> backoff_;            // "<ds uid>/<node>" -> failed-pod backoff
  // By DaemonSet uid. Only the sync worker refreshes or forgets (so a NodePods it holds stays
  // put while it works unlocked); the handlers record changes.
  OwnedViews<NodePods, DaemonPod> node_pods_;
  // ShapeFor's: DaemonSet key -> (resourceVersion, shape). Read and written by OnNode only.
  std::map<std::string, std::pair<std::string, DaemonPodShape>> shapes_;
  // PlaceNodes' (the sync worker's only): DaemonSet key -> the shape key and, by node name,
  // the node's placement_version it was computed for and its placement.
  struct Placements {
    std::string shape_key;
    std::map<std::string, std::pair<uint64_t, Placement>> by_node;
  };
  std::map<std::string, Placements> placements_;
};

}  // namespace tidepool::controllers::daemonset
