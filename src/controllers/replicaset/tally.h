// File: tally.h
//
// Tally: what one ReplicaSet's sync counts of the pods it controls - the active ones its
// selector no longer matches (to release: kcm claims active pods only), its active pods that
// it matches, and the status counts
// (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas) - kept up to date pod by
// pod. The controller hands it only the pods that changed since its last sync, so a sync of
// a ReplicaSet with 10,000 pods costs what changed, not a pass over all of them (kcm's
// syncReplicaSet passes over all of them; the answers are the same).
//
//   - A pod counts when the selector matches its labels and it is active (PodFacts::Active);
//     it is fully labeled when it carries every template label; ready by its Ready condition;
//     available when ready for min_ready (PodFacts::Available).
//   - Availability moves with time: a ready pod whose ready_since + min_ready is still ahead
//     waits in a queue ordered by that time, and CountsAt(now) moves those due into the count
//     (so `recheck` is the earliest still ahead). An earlier `now` than the last one is
//     counted afresh.
//   - What a Tally counts is fixed by its Params (the ReplicaSet's uid, selector, template
//     labels and minReadySeconds): when they change, the controller makes a new one.
//
// Not thread-safe: the controller's lock guards it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/selector.h"
#include "common/clock.h"
#include "controllers/replicaset/pod_ranking.h"

namespace tidepool::controllers::replicaset {

class Tally {
 public:
  struct Params {
    std::string uid;
    std::optional<api::LabelSelector> selector;  // nullopt: matches nothing
    api::Labels template_labels;
    Duration min_ready = Duration::zero();
    friend bool operator==(const Params&, const Params&) = default;
  };
  // kcm's calculateStatus counts, and when availableReplicas next changes by time alone.
  struct Counts {
    int32_t replicas = 0;  // active pods
    int32_t fully_labeled = 0;
    int32_t ready = 0;
    int32_t available = 0;
    std::optional<TimePoint> recheck;

    // Adds `other`'s counts; the earlier recheck.
    void Add(const Counts& other);
  };

  explicit Tally(Params params)
      : params_(std::move(params)), template_selector_{params_.template_labels, {}} {}

  const Params& params() const { return params_; }
  // Counts `pod` at `key` in place of what was counted there; null: nothing is there now.
  void Set(const std::string& key, PodFactsPtr pod);
  // The counts at `now`.
  Counts CountsAt(TimePoint now);
  // What one pod adds to the counts at `now` (recheck: when it becomes available), for pods
  // counted beside the tally (a sync's adoptions).
  Counts CountsOf(const PodFacts& pod, TimePoint now) const;
  // The active pods the selector no longer matches, by key.
  std::vector<PodFactsPtr> Unmatched() const;
  // The active pods the selector matches, by key.
  std::vector<PodFactsPtr> Active() const;
  // Active pods the selector matches (Counts::replicas, which no time changes).
  int32_t replicas() const { return replicas_; }

 private:
  struct Entry {
    PodFactsPtr pod;
    bool matches = false;
    bool counted = false;  // matches and active
    bool fully_labeled = false;
    std::optional<TimePoint> available_at;  // PodFacts::AvailableAt
  };
  Entry EntryOf(const PodFacts& pod) const;  // all but `pod`
  void Add(const Entry& e, int sign);

  Params params_;
  // kcm's labels.Set(template.Labels).AsSelectorPreValidated(): fullyLabeledReplicas.
  api::LabelSelector template_selector_;
  std::map<std::string, Entry> entries_;
  int32_t replicas_ = 0, fully_labeled_ = 0, ready_ = 0;
  // Counted ready pods by when they become available: those due by `last_now_` are in
  // `available_`, the others in `pending_`.
  int32_t available_ = 0;
  std::multiset<TimePoint> pending_;
  TimePoint last_now_ = TimePoint::min();
  std::map<std::string, PodFactsPtr> unmatched_;
};

}  // namespace tidepool::controllers::replicaset
