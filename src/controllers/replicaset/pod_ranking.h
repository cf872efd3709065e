// File: pod_ranking.h
//
// What the ReplicaSet controller knows of a pod, and kube-controller-manager 1.32's order for
// choosing which pods to delete when a ReplicaSet has too many (pkg/controller
// ActivePodsWithRanks.Less, with the LogarithmicScaleDown feature on, its default): a pod
// earlier in the order is deleted first.
//
//   1. not yet assigned to a node before assigned;
//   2. phase Pending before Unknown before Running;
//   3. not ready before ready;
//   4. lower controller.kubernetes.io/pod-deletion-cost before higher;
//   5. higher rank before lower (rank: how many related pods share its node - doubled-up
//      pods go first);
//   6. ready for a shorter time before longer, compared on a log2 scale of seconds
//      (both ready);
//   7. more container restarts before fewer;
//   8. created later before earlier, on a log2 scale of seconds;
//   9. then the uid, so the order is total and never depends on hash order.
// Steps 6 and 8 compare durations up to `now` in whole-second log2 buckets
// (floor(log2(seconds)) + 1; 0 for under a second), as kcm's getPodsRankedByRelatedPodsOnSameNode
// and podsWithRanks do.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "common/clock.h"

namespace tidepool::controllers::replicaset {

struct PodFacts {
  std::string ns;
  std::string name;
  std::string uid;
  api::Labels labels;
  // The controller ownerReference, when there is one.
  std::string controller_uid;
  std::string controller_kind;
  std::string controller_name;
  std::string node_name;
  std::string phase;  // "" when not reported yet (counts as Pending)
  bool deleting = false;
  bool ready = false;
  // Ready condition's lastTransitionTime (when ready).
  std::optional<TimePoint> ready_since;
  std::optional<TimePoint> created;
  int32_t restarts = 0;  // the highest restartCount of its containers
  int32_t deletion_cost = 0;

  // Not Succeeded, not Failed, not being deleted (kcm's FilterActivePods).
  bool Active() const { return phase != "Succeeded" && phase != "Failed" && !deleting; }
  // Ready for at least `min_ready` at `now` (podutil.IsPodAvailable).
  bool Available(Duration min_ready, TimePoint now) const;
  // From when it is available as it stands: TimePoint::min() when ready and `min_ready` is
  // zero, ready_since + min_ready when ready, nullopt when not ready (or ready with no
  // lastTransitionTime under a minReadySeconds).
  std::optional<TimePoint> AvailableAt(Duration min_ready) const;
};

// Facts are immutable once made: the controllers index and hand them round by pointer, so a
// sync over thousands of pods copies pointers, not strings and label maps.
using PodFactsPtr = std::shared_ptr<const PodFacts>;

struct RankedPod {
  const PodFacts* pod = nullptr;
  int rank = 0;  // related pods on its node
};

// Sorts `pods` into deletion order (see the file comment).
void SortForDeletion(std::vector<RankedPod>& pods, TimePoint now);

}  // namespace tidepool::controllers::replicaset
