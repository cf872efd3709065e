// File: pdb_tracker.cc
#include "autoscaler/scale_down/pdb_tracker.h"

namespace tidepool::autoscaler::scaledown {

namespace {

bool Covers(const api::PodDisruptionBudget& pdb, const scheduler::PodInfo& pod) {
  return pdb.Covers(pod.namespace_(), pod.labels());
}

}  // namespace

void RemainingPdbTracker::SetPdbs(const std::vector<api::PodDisruptionBudgetConstSharedPtr>& pdbs) {
  pdbs_.clear();
  pdbs_.reserve(pdbs.size());
  for (const auto& p : pdbs) {
    if (p != nullptr) pdbs_.push_back(Entry{p, p->disruptions_allowed});
  }
}

std::vector<RemainingPdbTracker::Remaining> RemainingPdbTracker::MatchingPdbs(
    const scheduler::PodInfo& pod) const {
  std::vector<Remaining> out;
  for (const Entry& e : pdbs_) {
    if (Covers(*e.pdb, pod)) out.push_back(Remaining{e.pdb.get(), e.remaining});
  }
  return out;
}

bool RemainingPdbTracker::AnyMatching(const scheduler::PodInfo& pod) const {
  for (const Entry& e : pdbs_) {
    if (Covers(*e.pdb, pod)) return true;
  }
  return false;
}

RemainingPdbTracker::CanRemove RemainingPdbTracker::CanRemovePods(
    const std::vector<scheduler::PodInfoConstSharedPtr>& pods) const {
  CanRemove out;
  for (const Entry& e : pdbs_) {
    int32_t count = 0;
    for (const auto& pod : pods) {
      if (!Covers(*e.pdb, *pod)) continue;
      ++count;
      if (e.remaining < 1) return CanRemove{false, false, pod};
      if (e.remaining < count) {
        out.in_parallel = false;
        out.blocking_pod = pod;
      }
    }
  }
  return out;
}

void RemainingPdbTracker::RemovePods(const std::vector<scheduler::PodInfoConstSharedPtr>& pods) {
  for (Entry& e : pdbs_) {
    for (const auto& pod : pods) {
      if (Covers(*e.pdb, *pod)) --e.remaining;
    }
  }
}

bool RemainingPdbTracker::operator==(const RemainingPdbTracker& o) const {
  if (pdbs_.size() != o.pdbs_.size()) return false;
  for (size_t i = 0; i < pdbs_.size(); ++i) {
    if (pdbs_[i].remaining != o.pdbs_[i].remaining) return false;
    if (pdbs_[i].pdb != o.pdbs_[i].pdb && *pdbs_[i].pdb != *o.pdbs_[i].pdb) return false;
  }
  return true;
}

}  // namespace tidepool::autoscaler::scaledown
