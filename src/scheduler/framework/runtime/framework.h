// File: framework.h
//
// The framework runtime: runs a profile's plugins for one pod against a ClusterSnapshot.
//
// Filtering walks the snapshot's equivalence groups (NodeClass, then usage Bucket, then single
// nodes only where a plugin needs them), evaluating each Filter plugin once per group at the
// scope it declares, in profile order, stopping at a node's first rejection exactly as
// kube-scheduler's RunFilterPlugins does. Every node is considered (percentageOfNodesToScore
// 100), so the chosen node is the best-scoring one; ties go to the node whose name sorts first.
//
// Not thread-safe per call; a Framework itself is immutable after Create and may be shared.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/fit_error.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/runtime/registry.h"
#include "scheduler/snapshot/cluster_snapshot.h"

namespace tidepool::scheduler {

class Framework;

// A group of nodes that gave the same filter answer: a whole class, a whole bucket, or one node.
// Pointers are valid until the snapshot next changes.
struct NodeGroup {
  const NodeClass* node_class = nullptr;
  const Bucket* bucket = nullptr;       // null: every node of node_class
  NodeId node = kNoNode;                // set: just this node
  size_t count = 0;

  static constexpr NodeId kNoNode = ~NodeId{0};
  // The group's first node by name.
  NodeId Representative() const;
  // Calls f(NodeId) for every node of the group, in name order within a bucket.
  template <typename F>
  void ForEachNode(F&& f) const {
    if (node != kNoNode) {
      f(node);
    } else if (bucket != nullptr) {
      for (NodeId id : bucket->members) {
        f(id);
      }
    } else {
      for (const auto& [key, b] : node_class->buckets()) {
        for (NodeId id : b.members) {
          f(id);
        }
      }
    }
  }
};

struct FailedGroup {
  NodeGroup group;
  PluginStatus status;
};

// Why a pod fits nowhere (framework.Diagnosis).
struct Diagnosis {
  // Valid until the snapshot next changes; empty in a ScheduleResult. FindFeasible fills it
  // only when no node fits (the only case anyone reads it).
  std::vector<FailedGroup> failed;
  // Filled by Schedule when no node fits (FindFeasible leaves them empty: a pod that fits
  // somewhere never pays for its rejection histogram).
  std::map<std::string, size_t> reason_counts;
  std::set<std::string> unschedulable_plugins;
  std::string pre_filter_msg;
  std::string post_filter_msg;
};

struct FilterOutcome {
  std::vector<NodeGroup> feasible;
  size_t num_feasible_nodes = 0;
  Diagnosis diagnosis;
  // A plugin returned Error: scheduling must stop for this pod.
  Status error;
};

// What PostFilter (preemption) concluded.
struct PostFilterResult {
  PluginStatus status;
  std::string nominated_node;
  std::vector<PodInfoConstSharedPtr> victims;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  // Called when no node fits. May Fork/Revert `snapshot` but must leave it as it found it.
  virtual PostFilterResult PostFilter(CycleState& state, const PodInfo& pod,
                                      const Diagnosis& diagnosis, ClusterSnapshot& snapshot,
                                      const Framework& framework) const = 0;
};

struct ScheduleResult {
  // The chosen node; empty if the pod fits nowhere.
  std::string node;
  size_t num_all_nodes = 0;
  size_t num_feasible_nodes = 0;
  // When `node` is empty: the FailedScheduling message.
  std::string message;
  Diagnosis diagnosis;
  // What Reserve plugins decided for `node`.
  Reservation reservation;
  // Preemption's choice, if it found one.
  std::string nominated_node;
  std::vector<PodInfoConstSharedPtr> victims;

  bool Scheduled() const { return !node.empty(); }
};

class Framework {
 public:
  static StatusOr<std::unique_ptr<Framework>> Create(const Registry& registry,
                                                     const Profile& profile);
  ~Framework();

  const Profile& profile() const { return profile_; }

  // Runs PreFilter plugins. A rejection is returned with the plugin's message.
  PluginStatus RunPreFilter(CycleState& state, const PodInfo& pod) const;
  // Runs every Filter plugin on one node, in order, returning the first non-success
  // (cluster-autoscaler's CheckPredicates). REQUIRES: RunPreFilter ran on `state`.
  PluginStatus RunFilters(const CycleState& state, const PodInfo& pod,
                          const NodeInfo& node) const;
  // Filters every node of the snapshot by equivalence group. REQUIRES: RunPreFilter ran.
  // With `only`, classes for which it returns false are skipped entirely: neither feasible nor
  // counted in the diagnosis (the autoscaler's estimator considers only its new nodes).
  // Without `explain`, a pod that fits nowhere gets no diagnosis.
  FilterOutcome FindFeasible(const CycleState& state, const PodInfo& pod,
                             const ClusterSnapshot& snapshot,
                             const std::function<bool(const NodeClass&)>* only = nullptr,
                             bool explain = true) const;
  // Scores the feasible groups and returns the chosen node. REQUIRES: !feasible.empty().
  NodeId SelectHost(CycleState& state, const PodInfo& pod, const ClusterSnapshot& snapshot,
                    const std::vector<NodeGroup>& feasible) const;

  // Runs Reserve plugins, in order, for the chosen node; stops at the first non-success.
  PluginStatus RunReserve(CycleState& state, const PodInfo& pod, const NodeInfo& node,
                          Reservation& reservation) const;

  // A whole scheduling cycle without binding: PreFilter, Filter, PostFilter when nothing fits,
  // PreScore, Score, Reserve. The snapshot is unchanged on return. Without `explain`, a pod
  // that fits nowhere gets neither PostFilter nor a message (what-ifs that need only where pods
  // go).
  ScheduleResult Schedule(const PodInfo& pod, ClusterSnapshot& snapshot, bool explain = true) const;

  // The scheduling queue's isPodWorthRequeuing: whether `event` may make `pod`, which the
  // plugins named `rejectors` (its diagnosis' unschedulable_plugins) rejected, schedulable:
  // yes when it has no rejector (an error, no nodes at all), or when one of them says kQueue
  // (EnqueueExtensions::Hint; a plugin without hints, or not in this profile, always does).
  bool WorthRequeuing(const std::set<std::string>& rejectors, const ClusterEvent& event,
                      const PodInfo& pod) const;

 private:
  Framework() = default;

  Profile profile_;
  std::vector<PluginPtr> plugins_;  // owns every plugin once
  std::vector<const PreFilterPlugin*> pre_filter_;
  std::vector<const FilterPlugin*> filter_;
  std::vector<const PostFilterPlugin*> post_filter_;
  std::vector<const PreScorePlugin*> pre_score_;
  std::vector<std::pair<const ScorePlugin*, int64_t>> score_;
  std::vector<const ReservePlugin*> reserve_;
};

}  // namespace tidepool::scheduler
