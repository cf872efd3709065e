// File: taint.h
//
// Taints and tolerations, matched exactly as k8s.io/api/core/v1 (toleration.go, taint.go)
// does it (Kubernetes 1.32):
//   - a toleration with an empty effect matches every effect;
//   - an empty key with operator Exists matches every key (and so tolerates everything);
//   - operator Exists ignores the value; Equal (the default when empty) requires equal values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::api {

enum class TaintEffect { kNone, kNoSchedule, kPreferNoSchedule, kNoExecute };

// "NoSchedule", "PreferNoSchedule", "NoExecute", or "" for kNone.
std::string_view TaintEffectName(TaintEffect e);
// Accepts the three Kubernetes names and "" (kNone); anything else is InvalidArgument.
StatusOr<TaintEffect> ParseTaintEffect(std::string_view s);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  std::optional<TimePoint> time_added;

  // kubectl's form: "key=value:Effect", or "key:Effect" when the value is empty.
  std::string ToString() const;
  // Parses kubectl/gcloud's "key=value:Effect" (or "key:Effect") as kubectl taint does: one
  // ':', at most one '=', a qualified-name key, a label-value value and a known effect.
  static StatusOr<Taint> Parse(std::string_view s);

  // Same key and effect (v1.Taint.MatchTaint): the identity of a taint on a node.
  bool MatchTaint(const Taint& other) const { return key == other.key && effect == other.effect; }
  friend bool operator==(const Taint& a, const Taint& b) {
    return a.key == b.key && a.value == b.value && a.effect == b.effect;
  }
};

enum class TolerationOperator { kEqual, kExists };

struct Toleration {
  std::string key;
  // An empty operator in a manifest means Equal.
  TolerationOperator op = TolerationOperator::kEqual;
  std::string value;
  TaintEffect effect = TaintEffect::kNone;
  std::optional<int64_t> toleration_seconds;

  // v1.Toleration.ToleratesTaint.
  bool ToleratesTaint(const Taint& taint) const;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

// The taints of a node one writer owns, merged with the others': `owned` (the writer's set now)
// plus every taint of `current` that neither `previously_owned` (the writer's last set) nor
// `owned` holds (same key and effect, MatchTaint). How the kubelet's registration keeps a cordon
// or CA's ToBeDeletedByClusterAutoscaler while it adds and removes its own not-ready taint.
std::vector<Taint> MergeOwnedTaints(const std::vector<Taint>& current,
                                    const std::vector<Taint>& previously_owned,
                                    const std::vector<Taint>& owned);

// True if some toleration tolerates `taint` (v1helper.TolerationsTolerateTaint).
bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint);

// The first taint among those with an effect accepted by `filter` that no toleration tolerates
// (v1helper.FindMatchingUntoleratedTaint), or nullptr.
template <typename Filter>
const Taint* FindMatchingUntoleratedTaint(const std::vector<Taint>& taints,
                                          const std::vector<Toleration>& tolerations,
                                          Filter filter) {
  for (const Taint& t : taints) {
    if (!filter(t)) {
      continue;
    }
    if (!TolerationsTolerateTaint(tolerations, t)) {
      return &t;
    }
  }
  return nullptr;
}

// The first NoSchedule or NoExecute taint no toleration tolerates, or nullptr
// (FindMatchingUntoleratedTaint with helper.DoNotScheduleTaintsFilterFunc): what keeps a pod
// off a node, for the scheduler's TaintToleration and the DaemonSet controller's
// predicates.
const Taint* UntoleratedDoNotScheduleTaint(const std::vector<Taint>& taints,
                                           const std::vector<Toleration>& tolerations);

}  // namespace tidepool::api
