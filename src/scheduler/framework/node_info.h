// File: node_info.h
//
// NodeInfo: the engine's compact view of one node plus the pods on it and the resources they
// request (framework.NodeInfo). NodeInfos are owned by a ClusterSnapshot and change only through
// it, so that the snapshot's equivalence indexes and undo log stay consistent; everyone else
// reads them. A NodeInfo is built from an api::Node and does not keep that object: whoever needs
// the whole node (an event's involvedObject, annotations, conditions, capacity) reads it from its
// owner (an informer, the autoscaler's view).
//
// What nodes of one pool share lives once, in a NodeShape shared by every node of the shape: the
// labels except kubernetes.io/hostname, the taints (in order, with their timeAdded), unschedulable
// and allocatable (exact quantities, and as a Resource). Shapes are interned process-wide: the
// lookup hashes those fields and then compares every one of them, so two different shapes are
// never merged, even on a hash collision. A shape lives as long as a NodeInfo (or a snapshot's
// class index) points at it.
//
// Per node, a NodeInfo keeps its identity and state: name, uid, spec.providerID, its
// kubernetes.io/hostname label, creation / deletion timestamps and whether the Ready condition is
// True. Reading a label goes through Label() or labels_without_hostname() + hostname_label();
// AllLabels() rebuilds the node's whole label map (a copy, for cold paths).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/node.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/resource.h"

namespace tidepool::scheduler {

class ClusterSnapshot;

// What nodes of one shape share. Immutable; owned by the NodeInfos of the shape.
struct NodeShape {
  api::Labels labels;  // every label except kubernetes.io/hostname
  std::vector<api::Taint> taints;
  bool unschedulable = false;
  api::ResourceList allocatable;  // exact: equal values in the same format
  Resource allocatable_resource;  // Resource::FromList(allocatable)
  uint64_t hash = 0;              // of every field above but allocatable_resource
};

class NodeInfo {
 public:
  explicit NodeInfo(const api::Node& node);
  explicit NodeInfo(const api::NodeConstSharedPtr& node) : NodeInfo(*node) {}

  // --- Per node.
  const std::string& name() const { return name_; }
  std::string_view uid() const { return std::string_view(f_.ids).substr(0, f_.uid_len); }
  std::string_view provider_id() const {
    return std::string_view(f_.ids).substr(f_.uid_len, f_.provider_id_len);
  }
  // The node's own kubernetes.io/hostname label, if it has one.
  std::optional<std::string_view> hostname_label() const;
  std::optional<TimePoint> creation_timestamp() const { return Opt(f_.creation); }
  std::optional<TimePoint> deletion_timestamp() const { return Opt(f_.deletion); }
  // The Ready condition is True (api::Node::IsReady).
  bool ready() const { return f_.ready; }

  // --- Shared by the node's shape.
  // The value of the node's label `key` (the hostname label included), if set.
  std::optional<std::string_view> Label(std::string_view key) const;
  // Every label of the node except kubernetes.io/hostname. A label selector that does not name
  // kubernetes.io/hostname gives the same answer on these as on all the node's labels.
  const api::Labels& labels_without_hostname() const { return f_.shape->labels; }
  // The node's whole label map (a copy). For cold paths.
  api::Labels AllLabels() const;
  const std::vector<api::Taint>& taints() const { return f_.shape->taints; }
  bool unschedulable() const { return f_.shape->unschedulable; }
  // status.allocatable with its exact quantities.
  const api::ResourceList& allocatable_quantities() const { return f_.shape->allocatable; }
  const Resource& allocatable() const { return f_.shape->allocatable_resource; }
  const std::shared_ptr<const NodeShape>& shape() const { return f_.shape; }

  // --- The pods on the node.
  const std::vector<PodInfoConstSharedPtr>& pods() const { return pods_; }
  // Sum of the pods' requests (allowed_pod_number unused).
  const Resource& requested() const { return requested_; }
  // Sum of the pods' non-zero cpu and memory requests (scoring).
  int64_t non_zero_milli_cpu() const { return non_zero_milli_cpu_; }
  int64_t non_zero_memory() const { return non_zero_memory_; }
  // Pods with a deletion timestamp or in phase Succeeded or Failed: while there are none, every
  // pod counts towards requested() for the scale-down's utilisation too (which leaves out
  // long-terminating and terminal pods), so it need not visit the pods.
  int32_t num_deleting_or_finished_pods() const { return num_deleting_or_finished_; }
  // True if some pod on the node has priority strictly below `priority` (preemption victims).
  bool HasPodWithPriorityBelow(int32_t priority) const {
    return !priority_counts_.empty() && priority_counts_.front().first < priority;
  }

  // --- GPUs as devices (gpu_devices.h).
  // Milli-GPU free on each of the node's GPUs (GpuCountOf(allocatable) of them), in index order.
  // A pod given GPUs (PodInfo::gpu_indices) takes from those; other GPU pods, in the order they
  // were added, take the first fully free GPUs (whole GPUs) or the fullest GPU a share fits
  // (nothing if none does). Negative when the GPUs given are over-committed.
  const std::vector<int32_t>& gpu_left() const { return gpu_left_; }

  // An api::Node with every field this NodeInfo keeps (the shape's and the node's own; the
  // Ready condition as a minimal condition). For tests and cold paths.
  api::Node ToNode() const;

  // Number of live node shapes (for tests and the memory benchmark).
  static size_t NumLiveShapes();

 private:
  friend class ClusterSnapshot;

  static constexpr int64_t kNone = INT64_MIN;
  enum class Hostname : uint8_t { kAbsent, kName, kOwn };
  // What SetNode replaces: everything but the name and the pods.
  struct Facts {
    std::shared_ptr<const NodeShape> shape;
    std::string ids;  // uid, providerID, then the hostname label when it is kOwn
    uint32_t uid_len = 0;
    uint32_t provider_id_len = 0;
    Hostname hostname = Hostname::kAbsent;
    bool ready = false;
    int64_t creation = kNone;
    int64_t deletion = kNone;
  };
  static Facts MakeFacts(const api::Node& node);
  static std::optional<TimePoint> Opt(int64_t v) {
    if (v == kNone) {
      return std::nullopt;
    }
    return TimePoint(Duration(v));
  }

  // REQUIRES: node.meta.name == name().
  void SetNode(const api::Node& node) { SwapFacts(MakeFacts(node)); }
  // Installs `f` and returns the previous facts (the undo log keeps them).
  Facts SwapFacts(Facts f);
  void AddPod(PodInfoConstSharedPtr pod);
  // Removes pods_[i] by moving the last pod into its place; returns the removed pod.
  PodInfoConstSharedPtr RemovePodAt(size_t i);
  // Exact inverse of RemovePodAt(i).
  void RestorePodAt(size_t i, PodInfoConstSharedPtr pod);
  void Account(const PodInfo& pod, int sign);
  // Rebuilds gpu_left_ from the allocatable GPUs and the pods.
  void PlaceGpus();

  std::string name_;
  Facts f_;
  std::vector<PodInfoConstSharedPtr> pods_;
  Resource requested_;
  int64_t non_zero_milli_cpu_ = 0;
  int64_t non_zero_memory_ = 0;
  int32_t num_deleting_or_finished_ = 0;
  // (priority, number of pods) sorted by priority.
  std::vector<std::pair<int32_t, int32_t>> priority_counts_;
  std::vector<int32_t> gpu_left_;
};

}  // namespace tidepool::scheduler
