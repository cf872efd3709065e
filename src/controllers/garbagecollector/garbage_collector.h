// File: garbage_collector.h
//
// GarbageCollector: kube-controller-manager 1.32's garbage collector
// (pkg/controller/garbagecollector). It deletes objects whose owners (metadata.ownerReferences)
// are all gone, and carries out the API server's two deletion finalizers (apiserver/deletion.h):
//   - background: a dependent none of whose owners exists any more is deleted (with the
//     propagation its own finalizers ask for, Background otherwise), so `kubectl delete rs x`
//     takes the ReplicaSet's pods with it;
//   - foreground (`foregroundDeletion` on an owner being deleted): the owner's dependents are
//     deleted (Foreground themselves when they have dependents), and once no dependent that
//     blocks it (an ownerReference with blockOwnerDeletion true) is left, the finalizer is
//     removed and the owner goes last;
//   - orphan (`orphan` on an owner being deleted): the owner's uid is removed from its
//     dependents' ownerReferences, then the finalizer, and the owner goes alone. A dependent
//     the graph learns of only after that (its informer lagged behind the owner's) loses the
//     reference later instead of being collected: kcm would collect it (a race of its graph);
//     the orphaning's promise is kept here.
//
// How (as kcm): the resources it watches are the API's deletable ones (discovery: verbs
// delete, list and watch; Events ignored), each through a metadata-only informer. Discovery is
// run again whenever a CustomResourceDefinition changes (kcm polls it every 30 s): a resource
// that appeared gets a monitor, one that is gone loses its monitor (its graph nodes stay, as
// kcm's), so a custom resource created after start-up is collected and its orphan and
// foreground finalizers are carried out. Their events
// keep a graph of uid -> node (identity, owners, dependents, being deleted, deleting
// dependents), updated per event, never rebuilt by rescans; the informers cache names and
// resourceVersions only (client/informer.h's cache_metadata_only). An owner referenced but not
// seen is a "virtual" node, verified by a live GET: a 404 or another uid under its name means
// absent (remembered in a bounded absent-owner cache), and its dependents are collected. Two
// queues, attemptToDelete and attemptToOrphan, hold uids; one worker (controllers/
// work_queue.h: the two queues as one, delete items before orphan items due at the same time)
// takes the earliest due item and re-queues it after `retry_after` when a write conflicts or
// fails, or when a virtual owner that exists has not been seen by an informer yet. Dependents
// are deleted with a uid precondition; ownerReferences and finalizers are changed with JSON
// merge patches carrying the resourceVersion read (a conflict is retried). The order of what
// it does never depends on hash order (dependents are kept ordered).
//
// Threads: discovery (tried again every 200 ms until it answers), then the monitors, then the
// items, all on one worker. Without an executor that worker is a thread of the collector's own
// (a ThreadTimerService) and the collector starts the monitors. With one (`tidepool
// simulate`), the collector creates no thread: discovery and the items run as callbacks of
// `executor`, the monitors are made (by `informers` when given, so that a driver can find and
// feed them) but not started, their handlers run inline on the executor's thread (they only
// update the graph and queue items), and Start()/Stop() never wait.
//
// Thread-safe: Start/Stop from one thread; the rest is internal.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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

namespace tidepool::controllers::garbagecollector {

struct GarbageCollectorOptions {
  // Wait before an item is tried again (a conflict, a failed call, an unobserved owner).
  Duration retry_after = std::chrono::seconds(1);
  // kcm's absentOwnerCache size.
  size_t absent_owner_cache_size = 500;
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("retryAfter", retry_after, TimeBase::kEmulated);
  }
};

class GarbageCollector {
 public:
  // `client`, `clock` (and `informers` and `executor` when given) must outlive the collector;
  // `recorder`, `logger`, `informers` and `executor` may be null. The monitors are made by
  // `informers` when given (an informer of their own: their transform is the collector's).
  // With an executor, `clock` is its clock.
  GarbageCollector(const client::RestClient& client, const Clock& clock,
                   GarbageCollectorOptions options, autoscaler::EventRecorder* recorder = nullptr,
                   log::Logger* logger = nullptr,
                   client::SharedInformerFactory* informers = nullptr,
                   TimerService* executor = nullptr);
  ~GarbageCollector();
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  void Start();
  void Stop();
  // Discovery done and every informer synced.
  bool HasSynced() const;

  struct Stats {
    uint64_t deletes = 0;          // DELETEs sent (dependents collected)
    uint64_t orphaned = 0;         // ownerReferences removed by orphaning
    uint64_t finalizers_removed = 0;
    size_t nodes = 0;              // graph size
    size_t monitors = 0;           // resources watched
  };
  Stats stats() const;

  // One resource the collector can watch and GET: from discovery.
  struct ResourceInfo {
    std::string group_version;  // "v1", "apps/v1"
    std::string resource;       // "replicasets"
    std::string kind;           // "ReplicaSet"
    bool namespaced = true;
    bool operator==(const ResourceInfo& o) const {
      return group_version == o.group_version && resource == o.resource && kind == o.kind &&
             namespaced == o.namespaced;
    }
  };

 private:
  struct OwnerRef {
    std::string api_version, kind, name, uid;
    bool block_owner_deletion = false;
    bool operator==(const OwnerRef& o) const {
      return api_version == o.api_version && kind == o.kind && name == o.name && uid == o.uid &&
             block_owner_deletion == o.block_owner_deletion;
    }
  };
  struct Identity {
    std::string api_version, kind, name, namespace_, uid;
  };
  struct Node {
    Identity id;
    std::vector<OwnerRef> owners;
    std::set<std::string> dependents;  // uids (ordered: what is done for each, in that order)
    bool observed = false;             // seen by an informer (else virtual)
    bool being_deleted = false;        // deletionTimestamp set
    bool deleting_dependents = false;  // being deleted with foregroundDeletion
    bool orphaning = false;            // being deleted with orphan
  };
  enum class Queue { kDelete, kOrphan };
  enum class Outcome { kDone, kRetry };

  // Discovery and informers (the worker): Discover until it answers, then SyncMonitors; again
  // whenever a CRD informer event calls ScheduleDiscovery.
  void Bootstrap();
  // The deletable resources, each with the group-version-kinds that map to it.
  struct Discovered {
    ResourceInfo info;
    std::vector<std::pair<std::string, std::string>> gvk_gk;  // by_gvk_ and by_gk_ keys
  };
  std::optional<std::vector<Discovered>> Discover() const;
  // Starts a monitor for each resource discovered that has none (or whose version or kind
  // changed), stops the monitors of resources gone, and rebuilds the mappings.
  void SyncMonitors(const std::vector<Discovered>& found);
  std::shared_ptr<client::Informer> MakeMonitor(size_t index, const ResourceInfo& r);
  // The graph's nodes of a resource no longer served, removed as their deletions would.
  void ForgetResource(size_t resource);
  void ScheduleDiscovery();
  // Informer events: the graph (GraphBuilder.processGraphChanges).
  void OnUpsert(size_t resource, const nlohmann::json& obj);
  void OnDelete(size_t resource, const nlohmann::json& obj);
  // Under mu_.
  void InsertNode(Node node);
  void AddDependentToOwners(const Node& n, const std::vector<OwnerRef>& owners);
  void RemoveDependentFromOwners(const Node& n, const std::vector<OwnerRef>& owners);
  void RemoveNode(const std::string& uid);
  void VirtualDelete(const Identity& id);
  void Enqueue(Queue q, const std::string& uid, TimePoint at);
  // Worker: the queue's sync of "<d|o>/<uid>".
  std::optional<TimePoint> SyncItem(const std::string& key);
  Outcome AttemptToDelete(const std::string& uid);
  Outcome AttemptToOrphan(const std::string& uid);
  // processDeletingDependentsItem: its blocking dependents queued, or its finalizer removed.
  Outcome ProcessDeletingDependents(const Identity& id);
  // Owner lookups: whether `ref` of a dependent in `ns` is dangling; `owner` gets the owner's
  // object when it exists.
  StatusOr<bool> IsDangling(const OwnerRef& ref, const std::string& ns, nlohmann::json* owner);
  // REST helpers.
  const ResourceInfo* Mapping(const std::string& api_version, const std::string& kind) const;
  std::string PathOf(const ResourceInfo& r, const std::string& ns, const std::string& name) const;
  StatusOr<nlohmann::json> GetObject(const Identity& id) const;
  Status DeleteObject(const Identity& id, const std::string& policy);
  // Read-modify-write of an object's metadata as a merge patch with its resourceVersion.
  Status PatchOwnerReferences(const Identity& id, const std::set<std::string>& remove_uids,
                              bool unblock);
  Status RemoveFinalizer(const Identity& id, const std::string& finalizer);
  bool AbsentCached(const std::string& key) const;
  void RememberAbsent(const std::string& key);

  const client::RestClient& client_;
  const Clock& clock_;
  const GarbageCollectorOptions options_;
  // Unused for now: kcm's collector records one event only (OwnerRefInvalidNamespace, for a
  // dependent naming an owner of another namespace), a check tidepool does not make yet.
  [[maybe_unused]] autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  // Set by the constructor only.
  client::SharedInformerFactory* factory_ = nullptr;
  // Without an injected executor, the worker: the collector's own (declared before the queue,
  // which runs on it).
  std::unique_ptr<ThreadTimerService> own_timers_;
  TimerService* timers_ = nullptr;  // the executor or own_timers_

  // The worker's alone (informer handlers capture what they need by value). resources_ only
  // grows (a deque: Mapping's pointers stay valid); informers_[i] is resources_[i]'s monitor,
  // null while that resource is not served. informers_ changes under mu_ as well (stats()).
  std::deque<ResourceInfo> resources_;
  std::map<std::string, size_t> index_by_gr_;  // "apps/replicasets" -> index
  std::map<std::string, size_t> by_gvk_;       // "apps/v1/ReplicaSet" -> index
  std::map<std::string, size_t> by_gk_;        // "apps/ReplicaSet" -> index (another version)
  std::vector<std::shared_ptr<client::Informer>> informers_;

  mutable std::mutex mu_;
  bool stop_ = false;
  bool discovered_ = false;
  // The next discovery, while one is scheduled.
  std::optional<TimerService::TimerId> bootstrap_;
  std::unordered_map<std::string, Node> nodes_;  // by uid
  // "<resource index>|<ns>/<name>" -> uid, for deletions a relist infers (the informers keep
  // no uid).
  std::unordered_map<std::string, std::string> uid_by_key_;
  // Forgets its oldest entries past a capacity (kcm's absentOwnerCache is an LRU of that size).
  struct RecentSet {
    std::deque<std::string> order;
    std::unordered_set<std::string> set;
    bool Contains(const std::string& key) const { return set.count(key) > 0; }
    void Insert(const std::string& key, size_t capacity);
  };
  RecentSet absent_;
  // Owners whose orphan finalizer this collector removed (by uid): a dependent that names one
  // and was not in the graph when its owner was orphaned (its informer's event came later)
  // loses that reference instead of being collected - the orphaning promised it survives.
  RecentSet orphaned_;
  Stats stats_;
  // The two queues: "d/<uid>" (attemptToDelete), "o/<uid>" (attemptToOrphan).
  std::unique_ptr<WorkQueue> queue_;
};

}  // namespace tidepool::controllers::garbagecollector
