// File: scale_down.h
//
// Scale-down (CA's core/scaledown: planner, eligibility, unneeded tracking, drainability and the
// actuator), on the shared snapshot and the scheduler's own plugins.
//
// Planner::Update runs every loop: for each node of an autoscaled group it computes the
// utilisation (for GPU nodes, GPU utilisation alone), decides whether the node is a candidate
// (below threshold, not already being deleted, group above min size; like CA, no per-node delay
// after creation: the global scale-down-delay-after-add cooldown belongs to the loop), and
// whether its pods could all move elsewhere (drain simulation on a fork: every pod that must
// move must fit another node, through the scheduler's filters; pods that block removal make the
// node unremovable). Candidates are remembered with the time they first became unneeded.
// NodesToDelete returns the nodes unneeded for longer than scale-down-unneeded-time, respecting
// min sizes and parallelism limits. The actuator taints, drains and deletes.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/pdb.h"
#include "autoscaler/cluster_view.h"
#include "autoscaler/events.h"
#include "autoscaler/node_facts.h"
#include "autoscaler/options.h"
#include "autoscaler/scale_down/pdb_tracker.h"
#include "cloud/cloud_provider.h"
#include "common/log.h"
#include "scheduler/framework/runtime/framework.h"
#include "scheduler/snapshot/cluster_snapshot.h"

namespace tidepool::autoscaler::scaledown {

struct DrainOptions;  // drainability.h

// Why a node cannot be removed (CA's simulator.UnremovableReason), for status and metrics.
enum class UnremovableReason {
  kNone,
  kScaleDownDisabledAnnotation,  // cluster-autoscaler.kubernetes.io/scale-down-disabled=true
  kNotAutoscaled,                // no node group
  kNotUnneededLongEnough,
  kNotUnreadyLongEnough,
  kNodeGroupMinSizeReached,
  kNotUnderutilized,
  kRecentlyAdded,  // unused: CA has no per-node delay after add
  kBlockedByPod,   // see BlockingPodReason
  kNoPlaceToMovePods,
  kUnexpectedError,
};
std::string_view UnremovableReasonName(UnremovableReason r);

// Why a pod blocks its node's removal (CA's drain.BlockingPodReason).
enum class BlockingPodReason {
  kNone,
  kControllerNotFound,     // the controller object is gone (the replica-count rule)
  kMinReplicasReached,     // its ReplicaSet/ReplicationController wants fewer than --min-replica-count
  kNotReplicated,          // no controller owner (a bare pod) or a custom controller
  kLocalStorageRequested,  // emptyDir / hostPath (modelled by the annotation
                           // tidepool.dev/local-storage)
  kNotSafeToEvictAnnotation,  // cluster-autoscaler.kubernetes.io/safe-to-evict: "false"
  kUnmovableKubeSystemPod,    // kube-system pod without a PodDisruptionBudget
  kNotEnoughPdb,              // a PodDisruptionBudget allows no more disruptions
};
std::string_view BlockingPodReasonName(BlockingPodReason r);

struct Utilization {
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
  // The value compared against the threshold: gpu for GPU nodes, else max(cpu, memory).
  double value = 0;
  // The resource `value` measures: "cpu" or "memory", or the GPU's resource name (e.g.
  // "nvidia.com/gpu"), as CA's utilization.Info.ResourceName.
  std::string resource;
};

struct NodeToRemove {
  std::string node;
  std::string node_group;
  bool empty = false;  // no pod needs to move
  std::vector<scheduler::PodInfoConstSharedPtr> pods_to_move;
  Utilization utilization;
};

struct UnneededNode {
  std::string node;
  TimePoint since;
};

class Planner {
 public:
  // Every reference must outlive the planner.
  Planner(const AutoscalingOptions& options, cloud::CloudProvider& cloud,
          const scheduler::Framework& framework, log::Logger& logger);
  ~Planner();

  // Recomputes the unneeded nodes as of `now`. `snapshot` holds every node and scheduled pod;
  // it is forked and reverted. `nodes` are the cluster's nodes (for creation times, readiness,
  // annotations). `pdbs`: the cluster's PodDisruptionBudgets; what they allow is taken from as
  // the pass finds removable nodes (CA's RemainingPdbTracker), so a budget that allows one
  // disruption lets one of its pods move in a pass.
  //
  // Details (CA's planner, eligibility and removal simulator):
  //   - only `nodes` are candidates and pod destinations; other snapshot nodes (upcoming
  //     copies) are neither. Nodes tainted ToBeDeletedByClusterAutoscaler less than
  //     max_cloud_provider_node_deletion_time (5m) ago are skipped and are no destination;
  //   - nodes of groups at or below min size are not candidates
  //   (PreFilteringScaleDownNodeProcessor);
  //   - a node the simulation found unremovable is not simulated again for
  //     --unremovable-node-recheck-timeout (5m) and keeps that reason meanwhile;
  //   - a GPU node whose GPUs are not allocatable yet is not a candidate until
  //     max-node-startup-time after its creation (CA counts it NotStarted); after that it is
  //     an unready node with GPU utilisation 0 (scale-down-unready-time applies);
  //   - candidates are simulated empty first, then those unneeded last time, then by
  //     utilisation and name, until CA's unneededNodesLimit() removable nodes are found. Each
  //     removable node is taken out of the (forked) snapshot with its pods placed elsewhere,
  //     so later candidates see that capacity used;
  //   - the simulation's answer is a function of its inputs: the snapshot's content
  //     (ClusterSnapshot::version()), the candidates in order (node object, group, emptiness;
  //     utilisation and being unneeded last time only decide the order), the destinations, the
  //     limit, the drain options and the budgets, and the placement hints of the
  //     previous pass. When a pass found every simulated candidate removable, its hints send
  //     each moved pod back where it went, so the same inputs give the same answer again: the
  //     next pass with the same inputs reuses it instead of simulating (a quiet cluster, where
  //     CA simulates the same nodes every loop). Not reused when a candidate has a deleting or
  //     finished pod (drainability and utilisation then depend on `now`), or when the V(2)
  //     simulation lines are logged.
  void Update(TimePoint now, scheduler::ClusterSnapshot& snapshot,
              const std::vector<api::NodeConstSharedPtr>& nodes,
              const std::vector<api::PodDisruptionBudgetConstSharedPtr>& pdbs = {},
              const ControllerLister* controllers = nullptr);
  // The same, with the nodes' facts already known (the loop keeps them from loop to loop;
  // node_facts.h). REQUIRES: `nodes` in name order.
  void Update(TimePoint now, scheduler::ClusterSnapshot& snapshot,
              const std::vector<const NodeFacts*>& nodes,
              const std::vector<api::PodDisruptionBudgetConstSharedPtr>& pdbs = {},
              const ControllerLister* controllers = nullptr);

  // Nodes unneeded for longer than scale-down-unneeded-time (CA: since + time strictly before
  // now; unready nodes: scale-down-unready-time), never taking a group below its min size
  // (target size minus the nodes chosen before in this call); empty nodes first, up to
  // max-scale-down-parallelism, then nodes to drain, up to max-drain-parallelism within what
  // is left. Emits the log lines "<node> was unneeded for <d>" (Go duration, e.g. "10m10s").
  // Reasons for the nodes left out go to unremovable().
  std::vector<NodeToRemove> NodesToDelete(TimePoint now);

  // Until when the last Update's answer stands with time alone: when it left no node unneeded,
  // skipped no node for a reason that ends with time (being deleted, GPU not allocatable yet)
  // and found every candidate it simulated unremovable (so each waits for its recheck; nodes
  // skipped for their object, group or pods - not autoscaled, min size reached, scale-down
  // disabled, above the utilisation threshold - are no candidates), Update with the same
  // inputs at any `now` before the first recheck (TimePoint::max() when none waits) finds the
  // same. nullopt otherwise.
  std::optional<TimePoint> SettledUntil() const { return settled_until_; }
  // A loop that did not call Update (same inputs, before SettledUntil()) at `now`: kept in
  // the loop interval CA's unneeded-nodes limit is computed from, as Update keeps it.
  void NoteSkippedLoop(TimePoint now) { NoteLoop(now); }

  const std::vector<UnneededNode>& unneeded() const { return unneeded_; }
  // The nodes found unremovable by the last Update and NodesToDelete, and why (a copy).
  std::unordered_map<std::string, UnremovableReason> unremovable() const;
  // How many candidates the last Update simulated (0 when it reused the previous answer).
  size_t simulated() const { return simulated_; }

 private:
  // CA's unneededNodesLimit(): how many removable nodes are worth finding in one pass.
  size_t UnneededNodesLimit() const;
  // Keeps the shortest interval between two loops (min_update_interval_).
  void NoteLoop(TimePoint now);

  const AutoscalingOptions& options_;
  cloud::CloudProvider& cloud_;
  const scheduler::Framework& framework_;
  log::Logger& log_;
  // Unneeded nodes in the order Update evaluated them.
  std::vector<UnneededNode> unneeded_;
  // Why a node is unremovable, stamped with the pass that found it: the map is kept from pass to
  // pass (no allocation per node and loop) and entries of older passes are not reported.
  struct Unremovable {
    UnremovableReason reason = UnremovableReason::kNone;
    uint64_t pass = 0;
  };
  void SetUnremovable(const std::string& node, UnremovableReason reason);
  std::unordered_map<std::string, Unremovable> unremovable_;
  uint64_t pass_ = 0;
  // By node name: what removing each unneeded node means, its node object and readiness.
  std::map<std::string, NodeToRemove> candidates_;
  std::map<std::string, api::NodeConstSharedPtr> unneeded_nodes_;
  std::map<std::string, bool> unneeded_ready_;
  // Where each moved pod ("ns/name") went in the last pass, tried first next time (CA's
  // hinting simulator).
  std::unordered_map<std::string, std::string> hints_;
  // Copies of the moved pods with spec.nodeName cleared, by original pod, kept from one pass to
  // the next (the original is held so that its address stays unique).
  std::unordered_map<const scheduler::PodInfo*,
                     std::pair<scheduler::PodInfoConstSharedPtr, scheduler::PodInfoConstSharedPtr>>
      unbound_pods_;
  // Nodes the simulation found unremovable (blocked, or no place for their pods): not
  // simulated again before the time, keeping the reason found (CA's
  // --unremovable-node-recheck-timeout).
  std::map<std::string, std::pair<TimePoint, UnremovableReason>> recheck_after_;
  std::optional<TimePoint> last_update_;
  Duration min_update_interval_;
  // The last simulation's inputs and answer (planner.cc); null when it may not be reused.
  struct SimulationMemo;
  std::unique_ptr<SimulationMemo> memo_;
  size_t simulated_ = 0;
  std::optional<TimePoint> settled_until_;
  // Each node's id in the snapshot as of the last pass, in the order of its `nodes` (hints for
  // ClusterSnapshot::FindNode).
  std::vector<scheduler::NodeId> node_ids_;
};

// Carries out deletions (CA's actuator): taints each node ToBeDeletedByClusterAutoscaler=<unix
// ts>:NoSchedule, reads the pods on the nodes again, evicts them (drained nodes), then asks the
// node's group to delete it. Events and log lines are CA's (ScaleDownEmpty "Scale-down:
// removing empty node %q", ScaleDown "Scale-down: removing node %s, utilization: %v, pods to
// reschedule: %s", node events "marked the node as toBeDeleted/unschedulable", pod events
// "deleting pod for node scale down").
//
// Synchronous: every call on the writer and the cloud returns before the next. Empty nodes are
// tainted first (all of them; one failure removes the taints already added and stops), then
// deleted one by one; then the nodes to drain likewise, each evicted before its deletion. A
// failed eviction or deletion emits ScaleDownFailed on the node and removes its taint.
//
// After the taints the pods on the nodes are read again (ClusterWriter::PodsOnNodes, once for
// the empty nodes and once for the drained ones; pods under --expendable-pods-priority-cutoff
// left out), as CA's deleteNodesAsync builds a new snapshot, and GetPodsToMove runs on each
// node's pods:
//   - a pod that blocks abandons the node ("failed to get pods to move on node": "GetPodsToMove
//     for %q returned error: ..."); for a drained node the rules see the controllers and the
//     PodDisruptionBudgets (their disruptionsAllowed, whole for each node), for an empty node
//     neither, as CA gives both to drained nodes only;
//   - an empty node where a pod now must move (the scheduler bound it before it saw the taint)
//     is abandoned ("node is not empty": "failed to delete empty node %q, new pods scheduled")
//     instead of deleted under the pod.
// Abandoned: ScaleDownFailed on the node and its taint removed. A drained node's evictions are
// those of the new read (CA's podsToEvict): every pod but mirror pods, each with
// gracePeriodSeconds = its terminationGracePeriodSeconds (default 30) capped at
// --max-graceful-termination-sec; DaemonSet pods best effort (a failure is ignored) when
// --daemonset-eviction-for-occupied-nodes (default true), and on an empty node when
// --daemonset-eviction-for-empty-nodes (default false), a pod's annotation
// cluster-autoscaler.kubernetes.io/enable-ds-eviction deciding for itself.
// Differences from CA: it reads at once, where CA first waits --node-delete-delay-after-taint
// (5 s), so a binding the informers have not delivered yet is still missed (the window is the
// informers' lag, not the loop's); the budgets are the loop's view's (CA lists them again);
// each eviction is tried once (CA retries for --max-pod-eviction-time, 2 min) and the node is
// deleted without waiting for its pods to be gone. In `tidepool simulate` the informers cannot
// change during a loop, so the new read finds the loop's pods there.
class Actuator {
 public:
  Actuator(const AutoscalingOptions& options, cloud::CloudProvider& cloud, ClusterWriter& writer,
           EventRecorder& recorder, log::Logger& logger);
  // Returns the nodes whose deletion was requested. `view`: the loop's (its budgets and
  // controllers).
  std::vector<std::string> StartDeletion(TimePoint now, const std::vector<NodeToRemove>& nodes,
                                         const ClusterView& view);

 private:
  using Pods = std::vector<scheduler::PodInfoConstSharedPtr>;
  using PodsNow = std::map<std::string, Pods>;
  // Taints every node; on a failure removes the taints added and returns false.
  bool TaintAll(TimePoint now, const std::vector<const NodeToRemove*>& nodes);
  // The non-expendable pods on the nodes now, by node.
  PodsNow ReadPods(const std::vector<const NodeToRemove*>& nodes) const;
  static const Pods& PodsOf(const PodsNow& pods_now, const std::string& node);
  // False (the deletion abandoned, see the class comment) when a pod blocks, or when an empty
  // node's pods must move.
  bool Movable(TimePoint now, const NodeToRemove& node, bool drain, const Pods& pods,
               const DrainOptions& options, const RemainingPdbTracker& pdbs);
  // Evicts (see the class comment) and deletes one tainted node; true if the cloud accepted.
  bool Delete(const NodeToRemove& node, bool drain, const Pods& pods);
  // Evicts each pod; the errors of failed full evictions (CA's texts).
  std::vector<std::string> Evict(const Pods& pods, bool full_eviction);
  int64_t GracePeriod(const scheduler::PodInfo& pod) const;
  void FailDeletion(const NodeToRemove& node, bool drain, const std::string& err_msg,
                    const std::string& err);

  const AutoscalingOptions& options_;
  cloud::CloudProvider& cloud_;
  ClusterWriter& writer_;
  EventRecorder& recorder_;
  log::Logger& log_;
};

}  // namespace tidepool::autoscaler::scaledown
