// File: drainability.h
//
// Which pods must move off a node before it can be removed, and which pods forbid removing it
// (CA's simulator/drainability/rules with the default options, and utils/drain). Rules in CA's
// order, the first that decides wins:
//   mirror           annotation kubernetes.io/config.mirror: not moved, never blocks
//   long-terminating deleted more than grace (default 30s) + 30s ago: ignored
//   replica count    (--skip-nodes-with-custom-controller-pods, and only where the controllers
//                    are known: ClusterView::controllers) the pod's controller must exist:
//                    ReplicationController / ReplicaSet "replication controller for <ns>/<pod>
//                    is not available, err: <lister's NotFound>", Job "job for <ns>/<pod> is
//                    not available: err: ...", apps StatefulSet "statefulset for ... is not
//                    available: err: ...", apps DaemonSet "daemonset for ... is not present,
//                    err: ..." - blocks, ControllerNotFound; a ReplicaSet or
//                    ReplicationController with fewer replicas than --min-replica-count blocks,
//                    MinReplicasReached, "replication controller for <ns>/<pod> has too few
//                    replicas spec: N min: M" (CA formats the *int32 with %d, printing an
//                    address; here the number)
//   terminal         phase Succeeded or Failed: ignored (see below)
//   daemonset        controller kind DaemonSet, or annotation
//                    cluster-autoscaler.kubernetes.io/daemonset-pod: "true": not moved
//   safe-to-evict    cluster-autoscaler.kubernetes.io/safe-to-evict: "true": moves, whatever
//                    the rules below say
//   replicated       no controller owner, or (--skip-nodes-with-custom-controller-pods) a
//                    controller other than ReplicationController/ReplicaSet/Job/StatefulSet:
//                    blocks, NotReplicated, "<ns>/<name> is not replicated"
//   system           (--skip-nodes-with-system-pods) a kube-system pod no PodDisruptionBudget
//                    covers: blocks, UnmovableKubeSystemPod
//   not-safe-to-evict safe-to-evict: "false": blocks, NotSafeToEvictAnnotation
//   local storage    (--skip-nodes-with-local-storage) blocks, LocalStorageRequested
//   pdb              a PodDisruptionBudget covering the pod allows less than one more
//                    disruption (what is left of it in this pass): blocks, NotEnoughPdb, "not
//                    enough pod disruption budget to move <ns>/<name>"
// Everything else moves.
//
// Model gaps, documented: the object model carries no volumes yet, so the annotation
// tidepool.dev/local-storage: "true" stands for a hostPath or non-memory emptyDir volume.
// CA's terminal rule lets terminal pods "move"; CA's snapshot never holds them (its scheduled
// pod lister drops Succeeded/Failed pods), so here they are simply ignored. CA's on-completion
// rule is not modelled.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "autoscaler/cluster_view.h"
#include "autoscaler/options.h"
#include "autoscaler/scale_down/pdb_tracker.h"
#include "autoscaler/scale_down/scale_down.h"
#include "common/clock.h"
#include "scheduler/framework/node_info.h"

namespace tidepool::autoscaler::scaledown {

inline constexpr std::string_view kSafeToEvictAnnotation =
    "cluster-autoscaler.kubernetes.io/safe-to-evict";
inline constexpr std::string_view kDaemonSetPodAnnotation =
    "cluster-autoscaler.kubernetes.io/daemonset-pod";
inline constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";
// "true"/"false": whether the actuator evicts this DaemonSet pod, whatever its flags say.
inline constexpr std::string_view kEnableDsEvictionAnnotation =
    "cluster-autoscaler.kubernetes.io/enable-ds-eviction";
inline constexpr std::string_view kLocalStorageAnnotation = "tidepool.dev/local-storage";
inline constexpr std::string_view kScaleDownDisabledAnnotation =
    "cluster-autoscaler.kubernetes.io/scale-down-disabled";

// The node carries cluster-autoscaler.kubernetes.io/scale-down-disabled: "true".
bool HasScaleDownDisabledAnnotation(const api::Node& node);

// CA's IsExpendablePod: spec.priority set and below --expendable-pods-priority-cutoff (the
// autoscaler neither scales up for such a pod nor counts it where it runs).
inline bool IsExpendablePod(const scheduler::PodInfo& pod, int cutoff) {
  return pod.spec().priority.has_value() && *pod.spec().priority < cutoff;
}
bool IsMirrorPod(const scheduler::PodInfo& pod);
bool IsDaemonSetPod(const scheduler::PodInfo& pod);
// CA's drain.IsPodTerminal: Failed, or Succeeded with restartPolicy Never or OnFailure.
bool IsPodTerminal(const scheduler::PodInfo& pod);
// Deleted longer ago than its grace period (default 30s) + `extra` (CA: 30s,
// AutoscalingOptions::pod_long_terminating_extra_threshold).
bool IsPodLongTerminating(const scheduler::PodInfo& pod, TimePoint now, Duration extra);

enum class DrainOutcome {
  kMove,       // must be rescheduled elsewhere
  kDaemonSet,  // a DaemonSet pod: goes with the node
  kIgnore,     // mirror, long-terminating or terminal: no action
  kBlock,      // forbids removing the node
};

struct PodDrainability {
  DrainOutcome outcome = DrainOutcome::kMove;
  BlockingPodReason reason = BlockingPodReason::kNone;
  std::string message;  // CA's error text when blocked
};

struct DrainOptions {
  bool skip_nodes_with_system_pods = true;
  bool skip_nodes_with_local_storage = true;
  bool skip_nodes_with_custom_controller_pods = true;
  Duration pod_long_terminating_extra_threshold = std::chrono::seconds(30);
  int min_replica_count = 0;
  // The cluster's controllers (ClusterView::controllers); null skips the replica-count rule.
  const ControllerLister* controllers = nullptr;
  uint64_t controllers_version = 0;  // controllers->version() when taken
  bool operator==(const DrainOptions&) const = default;
  static DrainOptions From(const AutoscalingOptions& o, const ControllerLister* controllers = nullptr) {
    return {o.skip_nodes_with_system_pods, o.skip_nodes_with_local_storage,
            o.skip_nodes_with_custom_controller_pods, o.pod_long_terminating_extra_threshold,
            o.min_replica_count, controllers, controllers == nullptr ? 0 : controllers->version()};
  }
};

// `pdbs`: the cluster's PodDisruptionBudgets, with what this pass left of them.
PodDrainability CheckPodDrainability(const scheduler::PodInfo& pod, const DrainOptions& options,
                                     const RemainingPdbTracker& pdbs, TimePoint now);

struct PodsToMove {
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  std::vector<scheduler::PodInfoConstSharedPtr> daemonset_pods;
  // Set when a pod blocks: that pod, why, and CA's message.
  scheduler::PodInfoConstSharedPtr blocking_pod;
  BlockingPodReason reason = BlockingPodReason::kNone;
  std::string message;
  bool blocked() const { return blocking_pod != nullptr; }
};

// CA's GetPodsToMove: stops at the first blocking pod.
PodsToMove GetPodsToMove(const scheduler::NodeInfo& node, const DrainOptions& options,
                         const RemainingPdbTracker& pdbs, TimePoint now);
// The same for the pods of a node listed apart from a snapshot.
PodsToMove GetPodsToMove(const std::vector<scheduler::PodInfoConstSharedPtr>& pods,
                         const DrainOptions& options, const RemainingPdbTracker& pdbs,
                         TimePoint now);

// True iff GetPodsToMove would find nothing to move and nothing blocking (only DaemonSet,
// mirror, long-terminating and terminal pods): stops at the first pod that must move or blocks.
bool NothingToMove(const scheduler::NodeInfo& node, const DrainOptions& options,
                   const RemainingPdbTracker& pdbs, TimePoint now);

}  // namespace tidepool::autoscaler::scaledown
