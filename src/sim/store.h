// File: store.h
//
// Store: the simulator's in-process object store (the API server's storage, without HTTP):
// nodes, pods and events, each write stamped with a cluster-wide resourceVersion (etcd's
// revision). It is the one place the simulated cluster's state lives; the scheduler loop,
// kubelets, the autoscaler and the timeline all read it and learn about changes by watching it.
//
// Writers:
//   - the emulated cloud, through NodeSink (UpsertNode / DeleteNode), playing the kubelets'
//     node registration and status, the device plugin and the node lifecycle controller;
//   - the autoscaler, through ClusterWriter (taints; eviction = graceful pod deletion) and
//     EventRecorder (events from "cluster-autoscaler");
//   - the scheduler loop (bindings, PodScheduled conditions, events from "default-scheduler");
//   - kubelets (pod status and container states, final removal of deleted pods, events);
//   - scenario actions (kubectl apply / delete).
//
// Node merge (NodeSink's contract): the first UpsertNode creates the node; later ones replace
// status, provider id and the cloud-owned taints (those the previous upsert carried), add or
// overwrite labels and annotations by key, and keep taints and spec.unschedulable that other
// writers added (a cordon, CA's ToBeDeletedByClusterAutoscaler). uid, resourceVersion and
// creationTimestamp are the store's (the upsert's creationTimestamp is used as a hint on create).
//
// Pod deletion follows the API server: a pod that is not bound to a node, or is in a terminal
// phase, is removed at once; a bound, running pod gets metadata.deletionTimestamp (now + grace
// period) and stays until its kubelet confirms the containers stopped (RemovePod).
//
// Events are aggregated like client-go's EventCorrelator: an event identical to one already
// recorded (same involved object, type, reason, message and source) bumps that event's count
// and lastTimestamp instead of creating a new one.
//
// Watching: observers are called synchronously, in registration order, after the write that
// caused the change has completed. A write made by an observer (or by anything an observer
// calls) is queued and delivered after the current notification, so every observer sees every
// change of one object in order. Not thread-safe (single-threaded simulator).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "api/node.h"
#include "api/pod.h"
#include "autoscaler/cluster_view.h"
#include "autoscaler/events.h"
#include "cloud/emulated/emulated_cloud.h"
#include "common/clock.h"
#include "common/status_or.h"
#include "kubelet/pod_record.h"

namespace tidepool::sim {

// The kubelet's view of a pod (kubelet/pod_record.h): the object plus its containers' states.
using ContainerStatus = kubelet::ContainerStatus;
using PodRecord = kubelet::PodRecord;

struct EventSource {
  std::string component;  // "default-scheduler", "kubelet", "cluster-autoscaler"
  std::string host;       // the node, for kubelet events
};

// A core/v1 Event.
struct EventRecord {
  std::string name;  // "<object name>.<hex nanoseconds>", as client-go names them
  autoscaler::ObjectRef involved_object;
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string message;
  EventSource source;
  TimePoint first_timestamp;
  TimePoint last_timestamp;
  int32_t count = 1;
  int64_t resource_version = 0;
};

// client-go's event name: fmt.Sprintf("%v.%x", ref.Name, t.UnixNano()).
std::string EventName(std::string_view object_name, TimePoint t);

enum class ChangeType { kAdded, kModified, kDeleted };
std::string_view ChangeTypeName(ChangeType t);

struct NodeChange {
  ChangeType type = ChangeType::kAdded;
  api::NodeConstSharedPtr old_node;  // null for kAdded
  api::NodeConstSharedPtr node;      // for kDeleted: the last state
};

struct PodChange {
  ChangeType type = ChangeType::kAdded;
  std::optional<PodRecord> old_pod;  // unset for kAdded
  PodRecord pod;                     // for kDeleted: the last state
};

struct EventChange {
  EventRecord event;        // the stored event after the write
  bool aggregated = false;  // an existing event's count went up
};

class StoreObserver {
 public:
  virtual ~StoreObserver() = default;
  virtual void OnNodeChange(const NodeChange& change) {}
  virtual void OnPodChange(const PodChange& change) {}
  virtual void OnEvent(const EventChange& change) {}
};

// True for Succeeded and Failed (api::Pod::Terminal).
inline bool IsTerminal(const api::Pod& pod) { return pod.Terminal(); }

class Store final : public cloud::emulated::NodeSink,
                    public autoscaler::ClusterWriter,
                    public autoscaler::EventRecorder {
 public:
  // `clock` must outlive the store.
  explicit Store(const Clock& clock);
  ~Store() override;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Not owned; must stay valid until removed or the store is destroyed.
  void AddObserver(StoreObserver* observer);
  void RemoveObserver(StoreObserver* observer);

  // The resourceVersion of the last write.
  int64_t resource_version() const { return revision_; }

  // ---- Pods ----

  // Creates a pod (namespace "default" when empty); assigns resourceVersion, and uid and
  // creationTimestamp unless the pod has them (an API server that fronts the store made them). AlreadyExists: `pods "<name>" already exists`.
  StatusOr<api::PodConstSharedPtr> CreatePod(api::Pod pod);
  // Binds a pending pod to `node`: spec.nodeName and the condition PodScheduled=True (the
  // binding subresource). NotFound; Aborted (409) if it is already bound or being deleted.
  Status BindPod(const std::string& key, const std::string& node);
  // Replaces status and container statuses. NotFound.
  Status UpdatePodStatus(const std::string& key, api::PodStatus status,
                         std::vector<ContainerStatus> containers);
  // Sets (or replaces by type) one pod condition; no write when it is unchanged (except
  // timestamps). Also sets status.nominatedNodeName when `nominated_node` is given.
  // NotFound.
  Status SetPodCondition(const std::string& key, api::PodCondition condition,
                         std::optional<std::string> nominated_node = std::nullopt);
  // kubectl delete: graceful (see the file comment). `grace` defaults to the pod's
  // terminationGracePeriodSeconds (30 s). NotFound: `pods "<name>" not found`.
  Status DeletePod(const std::string& namespace_, const std::string& name,
                   std::optional<Duration> grace = std::nullopt);
  // Final removal (the kubelet's confirmation, or a force delete). NotFound.
  Status RemovePod(const std::string& key);
  // nullptr if absent. The pointer is valid until the next write.
  const PodRecord* GetPod(const std::string& key) const;
  // Sorted by key ("namespace/name").
  std::vector<PodRecord> ListPods() const;
  size_t NumPods() const { return pods_.size(); }

  // ---- Nodes ----

  // NodeSink (see the file comment for the merge).
  Status UpsertNode(api::Node node) override;
  Status DeleteNode(const std::string& name) override;
  api::NodeConstSharedPtr GetNode(const std::string& name) const;
  // Sorted by name.
  std::vector<api::NodeConstSharedPtr> ListNodes() const;

  // ---- ClusterWriter (the autoscaler's writes) ----

  Status AddNodeTaint(const std::string& node, const api::Taint& taint) override;
  Status RemoveNodeTaint(const std::string& node, const std::string& key) override;
  // There are no PodDisruptionBudgets in the simulator: an eviction is a graceful deletion.
  Status EvictPod(const std::string& namespace_, const std::string& name) override;

  // ---- Events ----

  // EventRecorder: events of the autoscaler (source "cluster-autoscaler").
  void Event(const autoscaler::ObjectRef& object, std::string_view type, std::string_view reason,
             std::string message) override;
  void RecordEvent(const autoscaler::ObjectRef& object, std::string_view type,
                   std::string_view reason, std::string message, EventSource source);
  // In creation order; aggregated events are updated in place.
  const std::vector<EventRecord>& events() const { return events_; }

 private:
  struct Notification;

  int64_t NextRevision() { return ++revision_; }
  std::string NewUid();
  Status PutPod(PodRecord record, ChangeType type, std::optional<PodRecord> old);
  Status PutNode(api::Node node, ChangeType type, api::NodeConstSharedPtr old);
  void Enqueue(Notification n);
  void Dispatch();

  const Clock& clock_;
  std::vector<StoreObserver*> observers_;
  int64_t revision_ = 0;
  uint64_t next_uid_ = 1;
  std::map<std::string, PodRecord, std::less<>> pods_;
  std::map<std::string, api::NodeConstSharedPtr, std::less<>> nodes_;
  // The taints each node's last UpsertNode carried (owned by the cloud).
  std::map<std::string, std::vector<api::Taint>, std::less<>> cloud_taints_;
  std::vector<EventRecord> events_;
  std::map<std::string, size_t, std::less<>> event_index_;  // aggregation key -> events_ index
  std::unordered_set<std::string> event_names_;             // every event name kept
  std::deque<Notification> pending_;
  bool dispatching_ = false;
};

// The ObjectRef of a pod or node, for events.
autoscaler::ObjectRef RefOf(const api::Pod& pod);
autoscaler::ObjectRef RefOf(const api::Node& node);

}  // namespace tidepool::sim

