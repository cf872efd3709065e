// File: node_lifecycle_controller.h
//
// NodeLifecycleController: kube-controller-manager 1.32's node lifecycle controller
// (pkg/controller/nodelifecycle), an actor like the others (informers of nodes, the
// kube-node-lease Leases and pods in; API writes and events as "node-controller" out):
//
//   - Health (monitorNodeHealth, every `monitor_period`, 5 s): a node's probe time moves when the
//     controller sees its Ready condition's lastHeartbeatTime change or its Lease's renewTime
//     advance. A node not probed for `monitor_grace` (--node-monitor-grace-period, 50 s in 1.32)
//     - or, when no kubelet ever posted its Ready condition, for `startup_grace` after its
//     creation (--node-startup-grace-period, 60 s) - gets Ready, MemoryPressure, DiskPressure and
//     PIDPressure Unknown: "NodeStatusUnknown" / "Kubelet stopped posting node status.", or for a
//     condition never posted "NodeStatusNeverUpdated" / "Kubelet never posted node status." (a
//     PUT of nodes/<name>/status). When Ready leaves True: a "NodeNotReady" event on the node
//     ("Node <name> status is now: NodeNotReady") and its pods' Ready condition False (a
//     "NodeNotReady" warning on each, "Node is not ready"); a pod bound later to a node that is
//     not Ready is marked too. A node seen for the first time gets "RegisteredNode" ("Node <n>
//     event: Registered Node <n> in Controller"); one gone, "RemovingNode".
//   - Condition taints (doNoScheduleTaintingPass, after node changes): NoSchedule taints
//     mirror the conditions - Ready False: node.kubernetes.io/not-ready, Ready Unknown:
//     unreachable, MemoryPressure/DiskPressure/PIDPressure/NetworkUnavailable True: memory-,
//     disk-, pid-pressure, network-unavailable - and spec.unschedulable:
//     node.kubernetes.io/unschedulable. (The API server's TaintNodesByCondition admission puts
//     not-ready on every new node; this removes it once the node is Ready.)
//   - NoExecute taints (processTaintBaseEviction, doNoExecuteTaintingPass): a node whose Ready is
//     False or Unknown joins its zone's queue and is tainted not-ready:NoExecute or
//     unreachable:NoExecute (timeAdded set) at the zone's rate: one node per
//     `eviction_interval` (1 / --node-eviction-rate, 10 s), burst 1; per
//     `secondary_eviction_interval` (100 s) in a zone partially disrupted (at least 3 and
//     `unhealthy_zone_threshold` (55 %) of its nodes not Ready) of more than
//     `large_cluster_threshold` (50) nodes, none in a smaller one; none anywhere when every zone
//     is fully disrupted (no Ready node), which also lifts every NoExecute taint. A Ready node
//     loses both. (Evicting the pods those taints do not tolerate is the taint-eviction
//     controller's, not built.) Zones are topology.kubernetes.io/region and /zone; nodes
//     labelled node.kubernetes.io/exclude-disruption do not count.
//
// What kcm polls, this computes from what changed: a pass runs at the next tick of the monitor's
// grid (its first pass, then every `monitor_period`) after a node changed, and at the first tick
// after a node's probe time plus grace - so kcm's decisions and their times are kept, and a
// quiet cluster costs about one pass per grace period, not one per 5 s (a month-long `simulate`
// would make half a million). A probe
// moved by a Lease or heartbeat seen at t counts from the first tick at or after t, as kcm's
// next pass would stamp it. The NoExecute queue is tried on its own 100 ms grid
// (`eviction_period`, kcm's nodeEvictionPeriod) when it holds a node.
//
// The health check runs in real time under `tidepool up --speed N` (see ForEachDuration); the
// NoExecute pace is divided. With `kubelet_heartbeats` off (`simulate`'s default) a node whose
// kubelet posted its status never times out.
//
// What it keeps per node and pod is the few fields it reads (names, uid, zone, taints,
// resourceVersion, condition statuses and times), never the object. A taint change is a merge
// patch from the taints it has, with their resourceVersion as precondition (kcm's
// PatchNodeTaints; read again after a conflict); marking a node Unknown reads it first. Bursts
// of nodes to re-taint and pods to check are taken in one sync each.
//
// Threads: as podgc_controller.h - without an executor the informers and the queue's worker
// thread; with one (`tidepool simulate`) callbacks on it, informers fed by a driver.
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
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

namespace tidepool::controllers::nodelifecycle {

struct NodeLifecycleControllerOptions {
  Duration monitor_period = std::chrono::seconds(5);                 // --node-monitor-period
  Duration monitor_grace = std::chrono::seconds(50);                 // --node-monitor-grace-period
  Duration startup_grace = std::chrono::seconds(60);                 // --node-startup-grace-period
  Duration eviction_period = std::chrono::milliseconds(100);         // nodeEvictionPeriod
  Duration eviction_interval = std::chrono::seconds(10);             // 1 / --node-eviction-rate
  Duration secondary_eviction_interval = std::chrono::seconds(100);  // 1 / --secondary-...-rate
  int large_cluster_threshold = 50;        // --large-cluster-size-threshold
  double unhealthy_zone_threshold = 0.55;  // --unhealthy-zone-threshold
  // Whether the kubelets of nodes that posted their status renew Leases and heartbeats
  // (kubelet::KubeletOptions::heartbeats). `simulate` elides them by default: such a node is
  // then taken as alive and never times out; one no kubelet ever posted still does.
  bool kubelet_heartbeats = true;
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h). The health check is real time, as the
  // kubelet's Lease renewals and heartbeats it reads (wall-clock stamps, renewed every 10 s of
  // real time whatever --speed); the NoExecute taints' pace is the emulated cluster's.
  template <typename F>
  void ForEachDuration(F&& f) {
    f("monitorPeriod", monitor_period, TimeBase::kReal);
    f("monitorGrace", monitor_grace, TimeBase::kReal);
    f("startupGrace", startup_grace, TimeBase::kReal);
    f("evictionPeriod", eviction_period, TimeBase::kEmulated);
    f("evictionInterval", eviction_interval, TimeBase::kEmulated);
    f("secondaryEvictionInterval", secondary_eviction_interval, TimeBase::kEmulated);
  }
};

class NodeLifecycleController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  NodeLifecycleController(const client::RestClient& client, const Clock& clock,
                          NodeLifecycleControllerOptions options,
                          autoscaler::EventRecorder* recorder = nullptr,
                          log::Logger* logger = nullptr,
                          client::SharedInformerFactory* informers = nullptr,
                          TimerService* executor = nullptr);
  ~NodeLifecycleController();
  NodeLifecycleController(const NodeLifecycleController&) = delete;
  NodeLifecycleController& operator=(const NodeLifecycleController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

  // For tests: passes of the monitor so far.
  uint64_t passes() const;

 private:
  struct Condition {
    std::string status, heartbeat, transition;
  };
  // What the node informer delivered last, reduced to what the controller reads.
  struct NodeFacts {
    std::string uid, zone;
    TimePoint created;
    bool excluded = false;  // node.kubernetes.io/exclude-disruption
    bool unschedulable = false;
    std::map<std::string, Condition> conditions;  // by type
    // Its taints' "<key>:<effect>".
    std::set<std::string> taints;
    nlohmann::json taints_json;  // spec.taints as delivered (a patch starts from it)
    std::string resource_version;
  };
  // nodeHealthData.
  struct Health {
    std::optional<Condition> saved_ready;  // the Ready condition last taken in
    TimePoint probe, ready_transition;
    std::optional<TimePoint> lease_renew;
  };
  // RateLimitedTimedQueue with its token bucket (burst 1; interval 0: never).
  struct ZoneQueue {
    struct Item {
      TimePoint process_at;
      uint64_t seq = 0;
      std::string name;
      bool operator<(const Item& o) const {
        return process_at != o.process_at ? process_at < o.process_at : seq < o.seq;
      }
    };
    std::set<Item> queue;
    std::map<std::string, Item> queued;  // the items of `queue` by name
    std::set<std::string> members;       // kept after processing, until Remove
    Duration interval{0};
    double tokens = 1;
    TimePoint last{};
    bool TryAccept(TimePoint now);
    // When a token is next available (now when one is), or nullopt for never.
    std::optional<TimePoint> NextToken(TimePoint now) const;
    void Swap(Duration next, TimePoint now);
    bool Add(const std::string& name, TimePoint now, uint64_t seq);
    bool Remove(const std::string& name);
    // Takes the head out of `queue` (it stays a member). REQUIRES: !queue.empty().
    Item Pop();
    void Push(Item item);
  };
  enum class ZoneState { kInitial, kNormal, kFullDisruption, kPartialDisruption };
  struct PodFacts {
    std::string uid, node;
    bool ready = false;  // its Ready condition is True
  };

  // Informer handlers.
  void OnNode(const nlohmann::json& node, bool deleted);
  void OnLease(const nlohmann::json& lease);
  void OnPod(const nlohmann::json& pod, bool deleted);
  // Queue keys.
  std::optional<TimePoint> Sync(const std::string& key);
  std::optional<TimePoint> Monitor();
  std::optional<TimePoint> TaintPass();
  void NoScheduleTaints(const std::string& name);
  void ProcessPod(const std::string& key);

  // Under mu_: the first monitor tick at or after `t` (t itself before the first pass).
  TimePoint TickAtOrAfterLocked(TimePoint t) const;
  // The NoSchedule condition and unschedulable taints (doNoScheduleTaintingPass) the node lacks
  // (`add`) and has without its conditions saying so (`remove`), as "<key>:NoSchedule".
  static void NoScheduleDiff(const NodeFacts& f, std::vector<std::string>* add,
                             std::vector<std::string>* remove);
  // The not-ready and unreachable NoExecute taints the node has.
  static std::vector<std::string> NoExecuteTaints(const NodeFacts& f);
  // Under mu_: `zone`'s queue, made when new (addPodEvictorForNewZone; state initial).
  ZoneQueue& QueueLocked(const std::string& zone, TimePoint now);
  // Under mu_: queues a monitor pass at the next tick.
  void WakeLocked(TimePoint at);
  void SetDeadlineLocked(const std::string& name, const Health& h, const NodeFacts& f);
  // How long the node may go without a probe: the startup grace before its kubelet posted a
  // Ready condition, the monitor grace after; nullopt (never) when heartbeats are elided.
  std::optional<Duration> GraceFor(const NodeFacts& f) const;
  // tryUpdateNodeHealth + what monitorNodeHealth does with its answer, for one node.
  void UpdateNodeHealth(const std::string& name, TimePoint now);
  // Under mu_: `h`, computed without the lock, keeps the later probe time and Lease renewal a
  // handler stored for `name` meanwhile.
  void MergeHealthLocked(const std::string& name, Health& h) const;
  // Marks the node's conditions Unknown (PUT of its status, after a GET that still shows the
  // Ready heartbeat `heartbeat` - "" when it has no Ready condition). Returns the node's Ready
  // condition then, or nullopt when the write failed or the node changed.
  std::optional<Condition> MarkUnknown(const std::string& name, const std::string& heartbeat,
                                       TimePoint now);
  void ProcessTaintBasedEviction(const std::string& name, const NodeFacts& f,
                                 const std::string& observed, TimePoint now);
  void HandleDisruption(TimePoint now);
  // SwapNodeControllerTaint: adds `add` (timeAdded now) and removes `remove` ("key:Effect"),
  // reading the node first; retried on a conflict. False when it failed.
  bool SwapTaints(const std::string& name, const std::vector<std::string>& add,
                  const std::vector<std::string>& remove);
  void MarkPodsNotReady(const std::string& node, const std::vector<std::string>& pod_keys);
  void NodeEvent(const std::string& name, const std::string& uid, const std::string& reason,
                 std::string message);

  const client::RestClient& client_;
  const Clock& clock_;
  const NodeLifecycleControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  std::shared_ptr<client::Informer> nodes_;
  std::shared_ptr<client::Informer> leases_;
  std::shared_ptr<client::Informer> pods_;

  mutable std::mutex mu_;
  std::map<std::string, NodeFacts> facts_;
  std::map<std::string, Health> health_;
  std::set<std::string> known_;    // knownNodeSet
  std::set<std::string> dirty_;    // changed since the last pass
  std::set<std::string> deleted_;  // gone since the last pass (with their uid below)
  std::map<std::string, std::string> deleted_uids_;
  std::map<std::string, std::string> ready_status_;        // the status each node was counted with
  std::map<std::string, TimePoint> lease_renew_;           // Leases of nodes not evaluated yet
  std::set<std::pair<TimePoint, std::string>> deadlines_;  // first tick a node may be expired
  std::map<std::string, TimePoint> deadline_of_;
  std::optional<TimePoint> origin_;  // the first pass: the monitor's grid starts there
  std::optional<TimePoint> wake_;    // the pass queued
  std::optional<TimePoint> last_pass_;
  std::map<std::string, ZoneQueue> zone_queues_;
  std::map<std::string, ZoneState> zone_states_;
  std::map<std::string, PodFacts> pods_facts_;
  std::map<std::string, std::set<std::string>> pods_by_node_;
  std::set<std::string> noschedule_pending_;  // nodes for the NoSchedule pass
  std::set<std::string> pods_pending_;        // pods bound since the last processPod sync
  uint64_t seq_ = 0;
  uint64_t passes_ = 0;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::nodelifecycle
