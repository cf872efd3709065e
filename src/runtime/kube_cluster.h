// File: kube_cluster.h
//
// The autoscaler's side of a real Kubernetes API (`tidepool autoscale`), over client/:
//
//   KubeClusterCache   informers of nodes, pods, PodDisruptionBudgets and the workload controllers
//                      CA's listers read (ReplicaSets, StatefulSets, Jobs, DaemonSets: name and
//                      spec.replicas only; ReplicationControllers are not served by tidepool's
//                      API, so a pod they own counts as having its controller); the DaemonSets'
//                      informer keeps each as the pod its controller would make (CA's DaemonSet
//                      lister for template nodes) and answers the rule's DaemonSet lookups too
//                      (list + watch, resumed
//                      and relisted by the informers); every change is decoded once into typed
//                      api::Node / api::Pod (and the scheduler's PodInfo), so a loop's
//                      ClusterView is a copy of shared pointers, never a rescan of the API.
//                      What it keeps of a node is what the engine reads (NodeForCache below).
//   KubeClusterWriter  ClusterWriter: taints by read-modify-update with optimistic concurrency
//                      (retried on 409 Conflict, as client-go's RetryOnConflict); evictions
//                      through policy/v1 Eviction (429: a PodDisruptionBudget forbids it now,
//                      returned as ResourceExhausted so that the engine retries later); the
//                      pods on nodes now, from KubeClusterCache.
//   KubeEventRecorder  EventRecorder: core/v1 Events as client-go's recorder writes them
//                      (event_json.h), posted from a background thread (the loop never waits
//                      on the API; a queue of at most 1,000 events, as client-go's broadcaster,
//                      drops the excess); a repeat of the same event (object, type, reason,
//                      message) within 10 minutes patches count and lastTimestamp instead
//                      (client-go's EventCorrelator), and its spam filter writes at most 25
//                      events per source and object, then one per 5 minutes
//                      (event_spam_filter.h). With an executor (simulate): no thread;
//                      each event is posted by a callback on the executor at the time it was
//                      recorded (not synchronously: a caller inside an informer handler or a
//                      scheduling cycle makes no API write itself), at most 1,000 waiting.
//   WriteStatusConfigMap  CA's kube-system/cluster-autoscaler-status: data.status and the
//                      cluster-autoscaler.kubernetes.io/last-updated annotation.
//
// Threads: without an executor (`tidepool up`, `tidepool autoscale`) KubeClusterCache's
// informers run on threads of their own (started by Start(), or by the shared factory) and
// KubeEventRecorder posts from a thread of its own; both are thread-safe. With an executor
// (`tidepool simulate`, executor convention) neither makes a thread: the cache's informers are
// driven (not started or stopped by the cache; their handlers run on the driver's thread) and
// WaitForSync does not wait; the recorder's posts are callbacks on the executor, and Flush()
// returns at once.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "autoscaler/cluster_view.h"
#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/actor_timers.h"
#include "common/log.h"
#include "common/timer_service.h"
#include "runtime/event_spam_filter.h"

namespace tidepool::runtime {

// What KubeClusterCache keeps of a decoded node: exactly the fields that the engine and its
// callers read from a ClusterView node, so that 10,000 nodes cost the process little beside the
// engine's snapshot (issue 3; bench/autoscale_cache_bench.cc). The readers, audited:
//   scheduler NodeInfo (framework/node_info.cc)  name, uid, creationTimestamp, deletionTimestamp,
//       labels, spec (unschedulable, taints with timeAdded, providerID), allocatable, Ready;
//   autoscaler NodeFacts (node_facts.cc)  allocatable (GPU readiness), the Ready condition's
//       status and lastTransitionTime, the ToBeDeleted taint, the scale-down-disabled
//       annotation, capacity of cpu, memory and the GPU resource;
//   cluster state / scale-up (core/autoscaler.cc, scale_up.cc, least_waste.cc, estimator)
//       providerID, unschedulable, creationTimestamp, name; a ready node of a group is that
//       group's template (capacity cpu/memory/GPU, allocatable, labels, taints);
//   scale-down (planner.cc, utilization.cc, drainability.cc)  name, creationTimestamp,
//       allocatable, the scale-down-disabled annotation;
//   GKE provider (NodeGroupForNode, GetNodeGpuConfig)  providerID, the nodepool and
//       gke-accelerator labels, allocatable.
// So the kept node has:
//   metadata   name, uid, creationTimestamp, deletionTimestamp, all labels, and only the
//              annotations under "cluster-autoscaler.kubernetes.io/" (CA's node annotations:
//              scale-down-disabled); no resourceVersion, generation, generateName, owners;
//   spec       all of it (unschedulable, taints, providerID);
//   status     allocatable in full (every scheduler filter may read it); capacity only for
//              cpu, memory and extended resources (a name with a '/', e.g. nvidia.com/gpu: the
//              only capacities anything reads are cpu, memory and a GPU resource; pods,
//              ephemeral-storage and hugepages-* are dropped); of the conditions only Ready,
//              with its status and lastTransitionTime (no reason, message or heartbeat time;
//              no other condition type is read). Addresses, nodeInfo, images, daemonEndpoints
//              are not part of api::Node at all (NodeFromJson drops them).
// A change that leaves the kept node equal (a heartbeat, a new resourceVersion, a condition
// message) keeps the previous shared node, so the engine's per-node caches see no change.
// Anything that starts reading another node field from the view must be added here.
api::Node NodeForCache(api::Node&& decoded);

class KubeClusterCache {
 public:
  // `client`, `clock` (and `informers`) must outlive the cache; `logger` may be null. With
  // `informers`, the nodes', pods', budgets' and DaemonSets' informers come from that factory
  // (shared with the process's other actors; the factory starts them). With `executor`
  // (driven informers, see "Threads"), the workload controllers' informers come from
  // `informers` too, so that whoever drives the factory's informers drives all of them; the
  // cache itself schedules nothing on it.
  KubeClusterCache(const client::RestClient& client, const Clock& clock, log::Logger* logger,
                   uint64_t seed, client::SharedInformerFactory* informers = nullptr,
                   TimerService* executor = nullptr);
  ~KubeClusterCache();

  // Start/Stop the informers; with an executor they do nothing (the informers are driven).
  void Start();
  void Stop();
  // True once every informer has listed. With an executor: HasSynced(), without waiting.
  bool WaitForSync(Duration timeout) const;
  bool HasSynced() const;

  // The cluster now: nodes, non-terminal pods (scheduled / pending), kube-system pods covered
  // by a PodDisruptionBudget.
  autoscaler::ClusterView View() const;
  // The same, shared: made again only when the cache changed since the last call (a quiet
  // loop of a large cluster does not copy every pod's pointer).
  std::shared_ptr<const autoscaler::ClusterView> SharedView() const;
  // The non-terminal pods bound to each of `nodes` now (ClusterWriter::PodsOnNodes): one pass
  // over the pods.
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> PodsOnNodes(
      const std::set<std::string, std::less<>>& nodes) const;

  // Informer counters (lists, relists on 410, watches, errors), for logs, metrics and tests.
  std::map<std::string, client::InformerStats> Stats() const;
  // Objects that failed to decode so far (logged once each).
  uint64_t decode_errors() const;

  // Test seams: the node and pod informers' handlers, fed without an API server (the
  // informers' transform, StripManagedFields, is the caller's to apply).
  void OnNodeForTest(const client::ObjectRef& obj, bool deleted) { OnNode(obj, deleted); }
  void OnPodForTest(const client::ObjectRef& obj, bool deleted) { OnPod(obj, deleted); }

 private:
  void OnPod(const client::ObjectRef& obj, bool deleted);
  void OnNode(const client::ObjectRef& obj, bool deleted);
  void OnPdb(const client::ObjectRef& obj, bool deleted);
  void OnDaemonSet(const client::ObjectRef& obj, bool deleted);

  log::Logger* logger_;
  const bool driven_;  // an executor was injected: informers are driven, never waited for
  std::shared_ptr<client::Informer> nodes_;
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> pdbs_;
  // The workload controllers CA's replica-count drain rule looks up (ClusterView::controllers):
  // ReplicaSets, StatefulSets, Jobs (name and spec.replicas only), and DaemonSets through
  // daemonsets_.
  class Controllers;
  std::shared_ptr<Controllers> controllers_;
  std::shared_ptr<client::Informer> daemonsets_;

  // Orders PodInfos by their key, "<namespace>/<name>" ("<name>" without a namespace, as
  // client::Informer::KeyOf), compared as that string without building it; finds one by key.
  struct PodKeyLess {
    using is_transparent = void;
    bool operator()(const scheduler::PodInfoConstSharedPtr& a,
                    const scheduler::PodInfoConstSharedPtr& b) const;
    bool operator()(const scheduler::PodInfoConstSharedPtr& a, std::string_view b) const;
    bool operator()(std::string_view a, const scheduler::PodInfoConstSharedPtr& b) const;
  };

  mutable std::mutex mu_;
  std::map<std::string, api::NodeConstSharedPtr> node_map_;
  // Non-terminal pods, keyed by the PodInfo's own namespace and name (no key strings: 64 bytes
  // an entry instead of 144 with a "ns/name" std::string key; issue 3).
  std::set<scheduler::PodInfoConstSharedPtr, PodKeyLess> pod_map_;
  std::map<std::string, api::PodDisruptionBudgetConstSharedPtr> pdb_map_;
  std::map<std::string, scheduler::PodInfoConstSharedPtr> daemonset_pod_map_;
  uint64_t decode_errors_ = 0;
  uint64_t version_ = 0;  // every change of the maps above; under mu_
  mutable std::shared_ptr<const autoscaler::ClusterView> view_;  // as of view_version_
  mutable uint64_t view_version_ = 0;
};

class KubeClusterWriter final : public autoscaler::ClusterWriter {
 public:
  // `client` and `cache` (the autoscaler's informers, whose pods PodsOnNodes reads) must
  // outlive the writer.
  KubeClusterWriter(const client::RestClient& client, const KubeClusterCache& cache)
      : client_(client), cache_(cache) {}
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> PodsOnNodes(
      const std::set<std::string, std::less<>>& nodes) const override {
    return cache_.PodsOnNodes(nodes);
  }
  Status AddNodeTaint(const std::string& node, const api::Taint& taint) override;
  Status RemoveNodeTaint(const std::string& node, const std::string& key) override;
  Status EvictPod(const std::string& namespace_, const std::string& name,
                  int64_t grace_period_seconds) override;

 private:
  const client::RestClient& client_;
  const KubeClusterCache& cache_;
};

class KubeEventRecorder final : public autoscaler::EventRecorder {
 public:
  // `component` is the events' source.component ("cluster-autoscaler"). With `executor`
  // (which must outlive the recorder) every event is posted by a callback on it (see the file
  // comment); `clock` stamps the events either way.
  KubeEventRecorder(const client::RestClient& client, const Clock& clock, std::string component,
                    log::Logger* logger, TimerService* executor = nullptr);
  // Flushes what is queued (bounded wait), then stops. With an executor: what it has not run
  // yet is dropped (cancelled), without waiting.
  ~KubeEventRecorder() override;

  void Event(const autoscaler::ObjectRef& object, std::string_view type, std::string_view reason,
             std::string message) override;
  // The same from the component on `host` (source.host: a kubelet's node).
  void EventOnHost(const autoscaler::ObjectRef& object, std::string_view type,
                   std::string_view reason, std::string message, std::string host);

  // Waits until the queue is empty (tests). With an executor: returns at once (nothing is
  // pending once the executor ran).
  void Flush();
  uint64_t posted() const;
  uint64_t dropped() const;
  // Events the spam filter did not write (event_spam_filter.h). From the worker's thread (or
  // the executor's).
  uint64_t filtered() const { return filtered_; }

 private:
  struct Pending {
    autoscaler::ObjectRef object;
    std::string type, reason, message;
    TimePoint at;
    std::string host;
  };
  struct Seen {
    std::string name;
    std::string namespace_;
    TimePoint first;
    TimePoint last;
    int32_t count = 1;
  };
  void Run();
  void Post(const Pending& p);

  const client::RestClient& client_;
  const Clock& clock_;
  const std::string component_;
  log::Logger* logger_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool stop_ = false;
  bool busy_ = false;
  uint64_t posted_ = 0;
  uint64_t dropped_ = 0;
  std::map<std::string, Seen> seen_;  // only the worker touches it
  EventSpamFilter spam_;              // the worker's too
  uint64_t filtered_ = 0;             // events the spam filter kept from being written
  // (last time, key) of every post, oldest first: when each entry of seen_ may expire.
  std::deque<std::pair<TimePoint, std::string>> expiry_;
  // The instant the last new event's name was made of: names use a clock that always moves on
  // (see Post), so events of one object at one instant do not collide.
  TimePoint last_name_at_{};
  std::thread thread_;                     // without an executor
  std::unique_ptr<ActorTimers> executor_;  // with one
};

// Creates or updates `namespace_/name` with data.status = `status` and the last-updated
// annotation (CA's format: "2006-01-02 15:04:05.999999999 -0700 MST").
Status WriteStatusConfigMap(const client::RestClient& client, const std::string& namespace_,
                            const std::string& name, const std::string& status, TimePoint now);

// CA's last-updated annotation time: Go's time.Time.String() in UTC,
// "2026-11-29 22:50:22.123456789 +0000 UTC" (trailing zeros of the fraction dropped).
std::string GoTimeString(TimePoint t);

// A pod from an informer, decoded; when it cannot be (an inferred deletion's stub, a pod the
// codec refuses), a pod with only its namespace and name - enough to forget it - and `error`
// set (when not null).
api::PodConstSharedPtr DecodePodOrStub(const client::ObjectRef& obj, Status* error);

}  // namespace tidepool::runtime
