// File: cluster_view.h
//
// What the autoscaler reads and writes besides the cloud, so that the same engine runs on the
// simulator's in-process store, `tidepool up`'s store, and a real API server (through informers).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "api/pdb.h"
#include "api/taint.h"
#include "common/status.h"
#include "common/status_or.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::autoscaler {

// The workload controllers CA's listers see (its replica-count drain rule asks them whether a
// pod's controller exists and how many replicas it wants).
class ControllerLister {
 public:
  virtual ~ControllerLister() = default;
  // spec.replicas (nullopt when unset or not a replicated kind) of the `kind` (ReplicaSet,
  // ReplicationController, StatefulSet, Job, DaemonSet) named `name` in `ns`, or NotFound
  // with the lister's text, e.g. `replicaset.apps "web-5d4b" not found`.
  virtual StatusOr<std::optional<int32_t>> Replicas(std::string_view kind, std::string_view ns,
                                                    std::string_view name) const = 0;
  // Changes whenever an answer of Replicas may have (scale-down reuses a simulation only
  // while its inputs, this included, are the same).
  virtual uint64_t version() const = 0;
};

// The cluster as of one loop.
struct ClusterView {
  std::vector<api::NodeConstSharedPtr> nodes;
  // Non-terminal pods bound to a node (spec.nodeName set).
  std::vector<scheduler::PodInfoConstSharedPtr> scheduled_pods;
  // Non-terminal pods with no node yet.
  std::vector<scheduler::PodInfoConstSharedPtr> pending_pods;
  // The PodDisruptionBudgets (scale-down's drainability: a pod a budget covers moves only while
  // the budget allows a disruption; a covered kube-system pod may move). Empty where budgets
  // are not known (the simulator).
  std::vector<api::PodDisruptionBudgetConstSharedPtr> pdbs;
  // The controllers, where they are known (null in the simulator: the replica-count rule is
  // skipped then, as CA's with no listers).
  std::shared_ptr<const ControllerLister> controllers;
  // One pod of each DaemonSet, as the DaemonSet controller would make it (its template with
  // kcm's daemon tolerations and a DaemonSet controller reference; no node): what a node made
  // from a node group's cloud template would also run (simulator/daemonset_pods.h). Empty
  // where DaemonSets are not known (the simulator).
  std::vector<scheduler::PodInfoConstSharedPtr> daemonset_pods;
};

// The autoscaler's writes to the cluster, and the one read its actuator makes between them.
// Implementation: the Kubernetes client and the autoscaler's informers (runtime/kube_cluster.h),
// over HTTP or the in-process transport; tests' fakes. All calls are synchronous.
class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;
  // The non-terminal pods bound to each of `nodes` now, as the autoscaler's informers see them
  // (not the loop's view: CA's deleteNodesAsync builds a new snapshot from its listers after
  // tainting the nodes it removes). A node with no pod is absent.
  virtual std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> PodsOnNodes(
      const std::set<std::string, std::less<>>& nodes) const = 0;
  // Adds (or replaces, by key and effect) a taint on a node.
  virtual Status AddNodeTaint(const std::string& node, const api::Taint& taint) = 0;
  // Removes every taint with this key from a node.
  virtual Status RemoveNodeTaint(const std::string& node, const std::string& key) = 0;
  // Evicts a pod through the Eviction API, its deleteOptions.gracePeriodSeconds set to
  // `grace_period_seconds`; ResourceExhausted (429) when a PodDisruptionBudget forbids it now.
  virtual Status EvictPod(const std::string& namespace_, const std::string& name,
                          int64_t grace_period_seconds) = 0;
};

// CA's taints.
inline constexpr std::string_view kToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler";
inline constexpr std::string_view kDeletionCandidateTaint = "DeletionCandidateOfClusterAutoscaler";

}  // namespace tidepool::autoscaler
