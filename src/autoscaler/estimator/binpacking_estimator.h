// File: binpacking_estimator.h
//
// How many nodes of one group would the pending pods need? (CA's BinpackingNodeEstimator,
// estimator/binpacking_estimator.go.) First-fit decreasing on a fork of the shared snapshot,
// running the scheduler's own PreFilter and Filter plugins: groups are ordered by
// cpu/alloc + mem/alloc of their exemplar (CA's DecreasingPodOrderer; GPU requests ignored, as
// CA does), each group first fills the new nodes already added, then new template copies are
// added while the limiter allows.
//
// New nodes are identical template copies, and the pods of a group are identical, so new
// nodes fall into a few states (same pods on them): the estimator keeps one representative
// node per state in the fork, with a count of nodes like it, and asks the filters about the
// representative only. Filling a fresh node with k pods tells how many whole nodes the rest of
// the group needs; no other node is materialized. This is exact because every in-tree filter
// plugin reads only the node it is asked about. Cost grows with groups x states, not with the
// number of pods or nodes.
// The snapshot is reverted before Estimate returns.
#pragma once

#include <string>
#include <vector>

#include "api/node.h"
#include "autoscaler/equivalence/pod_groups.h"
#include "scheduler/framework/runtime/framework.h"
#include "scheduler/snapshot/cluster_snapshot.h"

namespace tidepool::autoscaler {

// The label CA puts on template copies (cluster-autoscaler.kubernetes.io/template-node).
inline constexpr std::string_view kTemplateNodeLabel = "cluster-autoscaler.kubernetes.io/template-node";

struct EstimateResult {
  int node_count = 0;
  std::vector<scheduler::PodInfoConstSharedPtr> scheduled;
  // True if the node limit stopped packing before every pod that fits the template was placed.
  bool capped = false;
};

class BinpackingEstimator {
 public:
  // `framework` must outlive the estimator.
  explicit BinpackingEstimator(const scheduler::Framework& framework) : framework_(framework) {}

  // Estimates for `groups` on copies of `template_node` added to `snapshot` (forked and
  // reverted), adding at most `max_new_nodes` nodes (0: none may be added). Each copy runs
  // `template_pods` (DaemonSet and mirror pods of a fresh node; may be null) first.
  EstimateResult Estimate(const std::vector<const PodEquivalenceGroup*>& groups,
                          const api::Node& template_node, const std::string& node_group_id,
                          int max_new_nodes, scheduler::ClusterSnapshot& snapshot,
                          const std::vector<scheduler::PodInfoConstSharedPtr>* template_pods =
                              nullptr) const;
  // Convenience for callers holding the groups themselves.
  EstimateResult Estimate(const std::vector<PodEquivalenceGroup>& groups,
                          const api::Node& template_node, const std::string& node_group_id,
                          int max_new_nodes, scheduler::ClusterSnapshot& snapshot) const;

 private:
  const scheduler::Framework& framework_;
};

// A copy of `template_node` as the estimator or the upcoming-node logic adds it: renamed
// "template-node-for-<group>-<suffix>", hostname label set to the name, a fresh uid, the
// template-node label added (CA's SanitizedNodeInfo).
api::Node SanitizedTemplateCopy(const api::Node& template_node, const std::string& node_group_id,
                                const std::string& suffix);

}  // namespace tidepool::autoscaler
