// File: pdb_tracker.h
//
// RemainingPdbTracker: CA's core/scaledown/pdb basicRemainingPdbTracker. It holds the cluster's
// PodDisruptionBudgets with their status.disruptionsAllowed as of the start of a pass, and what
// is left of them as the pass removes nodes in simulation:
//   - MatchingPdbs: the budgets of the pod's namespace whose selector matches its labels (a null
//     selector selects nothing);
//   - CanRemovePods: false, with the first covered pod as the blocking pod (NotEnoughPdb), when
//     a budget covering one of the pods allows less than one disruption; `in_parallel` is false
//     when some budget covers more of the pods than it allows (CA marks such a removal risky);
//   - RemovePods: each covered pod takes one disruption from each budget covering it.
// Budgets are kept in the order given (CA's: the lister's).
#pragma once

#include <cstdint>
#include <vector>

#include "api/pdb.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::autoscaler::scaledown {

class RemainingPdbTracker {
 public:
  void SetPdbs(const std::vector<api::PodDisruptionBudgetConstSharedPtr>& pdbs);
  void Clear() { pdbs_.clear(); }

  // The budgets covering `pod`, with what remains of each.
  struct Remaining {
    const api::PodDisruptionBudget* pdb;
    int32_t disruptions_allowed;
  };
  std::vector<Remaining> MatchingPdbs(const scheduler::PodInfo& pod) const;
  bool AnyMatching(const scheduler::PodInfo& pod) const;

  struct CanRemove {
    bool can_remove = true;
    bool in_parallel = true;
    scheduler::PodInfoConstSharedPtr blocking_pod;
  };
  CanRemove CanRemovePods(const std::vector<scheduler::PodInfoConstSharedPtr>& pods) const;
  void RemovePods(const std::vector<scheduler::PodInfoConstSharedPtr>& pods);

  // The same budgets with the same remaining disruptions (the planner's reuse compares them).
  bool operator==(const RemainingPdbTracker& o) const;

 private:
  struct Entry {
    api::PodDisruptionBudgetConstSharedPtr pdb;
    int32_t remaining = 0;
  };
  std::vector<Entry> pdbs_;
};

}  // namespace tidepool::autoscaler::scaledown
