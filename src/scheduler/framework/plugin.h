// File: plugin.h
//
// The scheduling framework's extension points, shaped like kube-scheduler's
// (staging/src/k8s.io/kube-scheduler/framework/interface.go): a plugin implements one or more of
// PreFilter, Filter, PreScore, Score (with NormalizeScore), Reserve and PostFilter. Every plugin is
// listed in one explicit registry (scheduler/plugins/registry.h).
//
// One addition makes scheduling scale: each Filter and Score plugin declares, per pod, the
// NodeScope its answer depends on. The runtime then evaluates it once per group of equivalent
// nodes (see scheduler/snapshot/cluster_snapshot.h) and fans the answer out. A plugin that
// declares too coarse a scope is wrong; too fine a scope is only slower.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "api/node.h"
#include "api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/plugin_status.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::scheduler {

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;

enum class NodeScope {
  // The node's static shape: labels other than kubernetes.io/hostname, taints, unschedulable,
  // allocatable.
  kClass = 0,
  // Plus the resources requested by the node's pods and their number.
  kUsage = 1,
  // The individual node: its name, hostname label or the pods themselves.
  kNode = 2,
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  // The name used in the registry and in profiles, e.g. "TaintToleration".
  virtual std::string_view Name() const = 0;
};
using PluginPtr = std::unique_ptr<Plugin>;

// framework.PreFilterResult: a PreFilter plugin may restrict the nodes worth filtering.
struct PreFilterResult {
  // Unset: all nodes.
  std::optional<std::set<std::string>> node_names;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // Computes per-pod state into `state`. A rejection here fails the pod on every node with the
  // returned message (FitError's PreFilterMsg); Skip skips this plugin's Filter for the pod.
  // May narrow the candidate nodes through `result`. Implementation required.
  virtual PluginStatus PreFilter(CycleState& state, const PodInfo& pod,
                                 PreFilterResult& result) const = 0;
};

class FilterPlugin : public virtual Plugin {
 public:
  // The coarsest scope whose nodes all give the same Filter answer for `pod`.
  virtual NodeScope FilterScope(const CycleState& state, const PodInfo& pod) const = 0;
  // Success if `pod` may run on `node`; otherwise Unschedulable or UnschedulableAndUnresolvable
  // with kube-scheduler's reason strings. Implementation required.
  virtual PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                              const NodeInfo& node) const = 0;
  // Optional: a plugin whose Filter never returns Error may answer Fits(...) == Filter(...)
  // is Success, without building reasons; the runtime then asks Filter for the reasons only
  // when the pod fits nowhere. Default: no such shortcut.
  virtual bool HasFits() const { return false; }
  virtual bool Fits(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
    return Filter(state, pod, node).IsSuccess();
  }
};

class PreScorePlugin : public virtual Plugin {
 public:
  // Runs once before scoring. Returning Skip removes this plugin's Score for the pod.
  virtual PluginStatus PreScore(CycleState& state, const PodInfo& pod) const = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  virtual NodeScope ScoreScope(const CycleState& state, const PodInfo& pod) const = 0;
  // A raw score for a feasible node. Implementation required.
  virtual int64_t Score(const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
  // Rescales the raw scores of all feasible nodes into [kMinNodeScore, kMaxNodeScore].
  // `scores` holds one entry per distinct group of nodes; since equivalent nodes score alike, a
  // normalization that depends on the maximum (as kube-scheduler's all do) is unaffected.
  // Implementation optional: the default leaves scores unchanged.
  virtual void NormalizeScore(const CycleState& state, const PodInfo& pod,
                              std::span<int64_t> scores) const {}
};

// What Reserve plugins decided for the chosen node, which the binder writes onto the pod.
struct Reservation {
  // The GPUs the pod gets (gpu_devices.h: the alibabacloud.com/gpu-index annotation); 0: none.
  uint32_t gpu_indices = 0;
};

class ReservePlugin : public virtual Plugin {
 public:
  // Called for the node chosen for `pod` before it is bound (kube-scheduler's Reserve). May fill
  // `reservation`; a non-success status fails the pod's scheduling cycle.
  virtual PluginStatus Reserve(CycleState& state, const PodInfo& pod, const NodeInfo& node,
                               Reservation& reservation) const = 0;
};

// A change of the cluster that may make a pod that was found unschedulable schedulable
// (framework.ClusterEvent with its old and new objects), as the scheduling queue sees it.
struct ClusterEvent {
  enum class Kind {
    kNodeAdd,
    kNodeUpdate,
    // A pod bound to a node was deleted or finished (its resources freed: AssignedPodDelete).
    kAssignedPodDelete,
    // The unschedulable pod itself was given tolerations (UpdatePodToleration).
    kPodTolerationUpdate,
    // A PersistentVolumeClaim, PersistentVolume or StorageClass added or updated.
    kStorageChange,
  };
  enum class Storage { kClaim, kVolume, kClass };
  // framework.ActionType's node update bits (nodeSchedulingPropertiesChange).
  static constexpr uint32_t kUpdateNodeAllocatable = 1;
  static constexpr uint32_t kUpdateNodeLabel = 2;
  // A taint changed, or spec.unschedulable became false.
  static constexpr uint32_t kUpdateNodeTaint = 4;
  static constexpr uint32_t kUpdateNodeCondition = 8;
  static constexpr uint32_t kUpdateNodeAnnotation = 16;

  Kind kind = Kind::kNodeAdd;
  uint32_t node_update = 0;                // kNodeUpdate: what changed
  const api::Node* old_node = nullptr;     // kNodeUpdate
  const api::Node* node = nullptr;         // kNodeAdd, kNodeUpdate
  const api::Pod* pod = nullptr;  // kAssignedPodDelete: the pod gone; kPodTolerationUpdate: as now
  // kStorageChange: what changed, and the claim's namespace and name when it is a claim.
  Storage storage = Storage::kClaim;
  std::string claim_namespace;
  std::string claim_name;

  // A node added, or updated in one of `update_bits` (the node events a plugin registers:
  // Node/Add | <those updates>).
  bool IsNodeChange(uint32_t update_bits) const {
    return kind == Kind::kNodeAdd || (kind == Kind::kNodeUpdate && (node_update & update_bits));
  }
};

// framework.QueueingHint.
enum class QueueingHint { kSkip, kQueue };

// framework.EnqueueExtensions with its QueueingHintFns (SchedulerQueueingHints, on by default in
// kube-scheduler 1.32; the plugins register the events 1.32 registers with it on): which cluster
// events may make a pod this plugin rejected schedulable.
// A plugin that does not implement it is asked about every event, and always says kQueue.
class EnqueueExtensions : public virtual Plugin {
 public:
  // nullopt: the plugin does not register for `event`; otherwise whether `event` may make `pod`
  // pass this plugin.
  virtual std::optional<QueueingHint> Hint(const ClusterEvent& event, const PodInfo& pod) const = 0;
};

// helper.DefaultNormalizeScore: scales so the maximum becomes `max_priority`; with `reverse`,
// higher raw scores become lower ones. All zero stays zero (or max_priority when reversed).
void DefaultNormalizeScore(int64_t max_priority, bool reverse, std::span<int64_t> scores);

}  // namespace tidepool::scheduler
