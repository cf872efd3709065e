// File: cluster_changes.h
//
// What the timeline is told about the cluster: a node, pod or event that was added, modified or
// deleted, each decoded once (runtime/timeline_feed.h reads them from the API's informers) and
// handed to a ChangeObserver (sim/timeline.h's TimelineRecorder). Plain values; no behaviour
// beyond naming.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/node.h"
#include "api/pod.h"
#include "autoscaler/events.h"
#include "common/clock.h"
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

class ChangeObserver {
 public:
  virtual ~ChangeObserver() = default;
  virtual void OnNodeChange(const NodeChange& change) {}
  virtual void OnPodChange(const PodChange& change) {}
  virtual void OnEvent(const EventChange& change) {}
};

}  // namespace tidepool::sim
