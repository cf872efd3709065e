// File: cluster_snapshot.h
//
// ClusterSnapshot: the cluster state that scheduling decisions read (nodes, the pods on them,
// their requested resources), shared by the scheduler and the autoscaler's estimator.
//
// What-if simulation (cluster-autoscaler's Forkable): Fork() starts a reversible section,
// Revert() undoes everything since the matching Fork(), Commit() keeps it (merging into the
// enclosing section). Forks nest. Fork and Commit are O(1); Revert is O(changes since the fork):
// every mutation inside a fork appends its exact inverse to an undo log, and Revert replays the
// log backwards. Outside any fork nothing is logged.
//
// Equivalence indexes, so that a pod is tried against groups of identical nodes instead of every
// node:
//   - a NodeClass groups nodes with the same static shape: labels except kubernetes.io/hostname,
//     taints (in order), unschedulable, allocatable. Filters that read only these (taints,
//     node affinity/selector, unschedulable) give one answer per class. Nodes of one NodeShape
//     (node_info.h: the same fields, exact) are always in one class; the class of a shape is
//     looked up by the shape's address, and by comparing shapes only for a shape the snapshot
//     has not met before;
//   - within a class, a Bucket groups nodes whose pods request exactly the same resources and
//     number the same, with the same free milli-GPU per device up to order (gpu_devices.h).
//     Resource fit and resource scores give one answer per bucket.
//   Buckets list their nodes in name order, the deterministic tie-break among equals.
//
// Not thread-safe. Pod objects are immutable and shared; NodeInfos are owned here and keep what
// the engine reads of a node (node_info.h), not the api::Node given to AddNode / UpdateNode.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "scheduler/framework/node_info.h"

namespace tidepool::scheduler {

using NodeId = uint32_t;

// What the pods on a node add up to: the key of a Bucket within a NodeClass.
struct UsageKey {
  Resource requested;
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;
  size_t num_pods = 0;
  // NodeInfo::gpu_left() sorted: the GPU plugins' answers depend on the multiset only.
  std::vector<int32_t> gpu_left;
  friend bool operator==(const UsageKey&, const UsageKey&) = default;
};
struct UsageKeyHash {
  size_t operator()(const UsageKey& k) const;
};

class ClusterSnapshot;

// Orders node ids by node name.
struct NodeNameLess {
  const ClusterSnapshot* snapshot;
  bool operator()(NodeId a, NodeId b) const;
};

struct Bucket {
  explicit Bucket(const ClusterSnapshot* s) : members(NodeNameLess{s}) {}
  std::set<NodeId, NodeNameLess> members;  // never empty while in a class
};

class NodeClass {
 public:
  uint32_t id() const { return id_; }
  size_t size() const { return size_; }
  const std::unordered_map<UsageKey, Bucket, UsageKeyHash>& buckets() const { return buckets_; }

 private:
  friend class ClusterSnapshot;
  uint32_t id_ = 0;
  size_t size_ = 0;
  std::unordered_map<UsageKey, Bucket, UsageKeyHash> buckets_;
};

class ClusterSnapshot {
 public:
  ClusterSnapshot();
  ~ClusterSnapshot();
  ClusterSnapshot(const ClusterSnapshot&) = delete;
  ClusterSnapshot& operator=(const ClusterSnapshot&) = delete;

  // AlreadyExists if a node of that name is present. The snapshot keeps a NodeInfo built from
  // the node, not the api::Node.
  Status AddNode(const api::Node& node);
  Status AddNode(const api::NodeConstSharedPtr& node) { return AddNode(*node); }
  // Replaces what the snapshot keeps of the node of the same name, keeping its pods. NotFound if
  // absent.
  Status UpdateNode(const api::Node& node);
  Status UpdateNode(const api::NodeConstSharedPtr& node) { return UpdateNode(*node); }
  // Removes the node and the pods on it. NotFound if absent.
  Status RemoveNode(std::string_view name);
  // NotFound if the node is absent.
  Status AddPod(PodInfoConstSharedPtr pod, std::string_view node_name);
  // `pod_key` is "namespace/name". NotFound if the node or the pod on it is absent.
  Status RemovePod(std::string_view pod_key, std::string_view node_name);
  // Removes every node and pod. REQUIRES: not forked.
  void Clear();

  void Fork();
  // REQUIRES: forked.
  void Revert();
  // REQUIRES: forked.
  void Commit();
  int fork_depth() const { return static_cast<int>(fork_marks_.size()); }
  // Identifies the snapshot's content: every change (a node or pod added, updated or removed,
  // Clear) gives a value never given before in this process, by any snapshot, and Revert gives
  // back the value of its Fork. Equal versions mean equal content, so a caller can tell that
  // nothing changed since it last looked.
  uint64_t version() const { return version_; }

  size_t NumNodes() const { return num_nodes_; }
  size_t NumPods() const { return num_pods_; }
  // True if some pod in the snapshot has priority strictly below `priority`.
  bool HasPodWithPriorityBelow(int32_t priority) const {
    return !priority_counts_.empty() && priority_counts_.begin()->first < priority;
  }
  const NodeInfo* GetNodeInfo(std::string_view name) const;
  // The node's id (one name lookup), if the snapshot has it.
  std::optional<NodeId> FindNode(std::string_view name) const;
  const NodeInfo& node_info(NodeId id) const { return *nodes_[id]; }
  // The node with id `id` if it is `name`, else FindNode(name): a caller that remembers where
  // a node was skips the hash lookup while the node is still there.
  std::optional<NodeId> FindNode(std::string_view name, NodeId hint) const {
    if (hint < nodes_.size() && nodes_[hint] != nullptr && nodes_[hint]->name() == name) {
      return hint;
    }
    return FindNode(name);
  }
  NodeId IdOf(const NodeInfo& info) const;
  // Calls f(const NodeInfo&) for every node, in node-name order (sorts the names: for output,
  // not for loops).
  template <typename F>
  void ForEachNodeByName(F&& f) const {
    for (NodeId id : IdsByName()) {
      f(*nodes_[id]);
    }
  }
  // Every node's id, in node-name order.
  std::vector<NodeId> IdsByName() const;

  // Classes with at least one node, in creation order.
  template <typename F>
  void ForEachClass(F&& f) const {
    for (const auto& c : classes_) {
      if (c->size_ > 0) {
        f(*c);
      }
    }
  }
  size_t NumClasses() const;
  const NodeClass& ClassOf(NodeId id) const { return *classes_[node_class_[id]]; }

 private:
  struct UndoEntry;
  struct ClassIndex;

  UsageKey UsageOf(const NodeInfo& n) const;
  uint32_t ClassIdFor(const std::shared_ptr<const NodeShape>& shape);
  void IndexInsert(NodeId id);
  void IndexErase(NodeId id);
  NodeId TakeSlot();
  void CountPod(const PodInfo& pod, int sign);
  void CountNodePods(const NodeInfo& node, int sign);
  void Log(UndoEntry&& e);
  // Gives version_ a new value.
  void Touch();
  void Undo(UndoEntry& e);

  std::vector<std::unique_ptr<NodeInfo>> nodes_;  // by NodeId; null for free slots
  std::vector<uint32_t> node_class_;              // by NodeId
  std::vector<NodeId> free_slots_;                // a stack, so undo restores it exactly
  // Keys view the NodeInfos' names (a NodeInfo never moves, nor does its name change). Hashed:
  // loops look nodes up by name thousands of times; nothing iterates it in its own order.
  std::unordered_map<std::string_view, NodeId> by_name_;
  size_t num_nodes_ = 0;
  size_t num_pods_ = 0;
  std::map<int32_t, size_t> priority_counts_;  // pod priority -> number of pods

  std::vector<std::unique_ptr<NodeClass>> classes_;
  std::unique_ptr<ClassIndex> class_index_;

  std::vector<UndoEntry> undo_;
  // At each Fork: the undo log's size and version().
  struct ForkMark {
    size_t undo_size;
    uint64_t version;
  };
  std::vector<ForkMark> fork_marks_;
  uint64_t version_ = 0;
};

}  // namespace tidepool::scheduler
