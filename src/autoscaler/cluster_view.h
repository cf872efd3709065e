// File: cluster_view.h
//
// What the autoscaler reads and writes besides the cloud, so that the same engine runs on the
// simulator's in-process store, `tidepool up`'s store, and a real API server (through informers).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/pdb.h"
#include "api/taint.h"
#include "common/status.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::autoscaler {

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
};

// The autoscaler's writes to the cluster. Implementations: the simulator's store, the embedded
// API server's store, the Kubernetes client. All calls are synchronous.
class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;
  // Adds (or replaces, by key and effect) a taint on a node.
  virtual Status AddNodeTaint(const std::string& node, const api::Taint& taint) = 0;
  // Removes every taint with this key from a node.
  virtual Status RemoveNodeTaint(const std::string& node, const std::string& key) = 0;
  // Evicts a pod through the Eviction API; ResourceExhausted (429) when a PodDisruptionBudget
  // forbids it now.
  virtual Status EvictPod(const std::string& namespace_, const std::string& name) = 0;
};

// CA's taints.
inline constexpr std::string_view kToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler";
inline constexpr std::string_view kDeletionCandidateTaint = "DeletionCandidateOfClusterAutoscaler";

}  // namespace tidepool::autoscaler
