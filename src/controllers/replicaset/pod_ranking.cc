#include "controllers/replicaset/pod_ranking.h"

#include <algorithm>
#include <cmath>

namespace tidepool::controllers::replicaset {
namespace {

int PhaseOrder(const std::string& phase) {
  if (phase == "Running") return 2;
  if (phase == "Unknown") return 1;
  return 0;  // Pending, or not reported
}

// floor(log2(seconds)) + 1 for a duration of at least a second; 0 otherwise.
int LogBucket(TimePoint since, TimePoint now) {
  const int64_t s = std::chrono::duration_cast<std::chrono::seconds>(now - since).count();
  if (s < 1) return 0;
  return static_cast<int>(std::floor(std::log2(static_cast<double>(s)))) + 1;
}

bool Less(const RankedPod& a, const RankedPod& b, TimePoint now) {
  const PodFacts& x = *a.pod;
  const PodFacts& y = *b.pod;
  if (x.node_name.empty() != y.node_name.empty()) return x.node_name.empty();
  if (PhaseOrder(x.phase) != PhaseOrder(y.phase)) return PhaseOrder(x.phase) < PhaseOrder(y.phase);
  if (x.ready != y.ready) return !x.ready;
  if (x.deletion_cost != y.deletion_cost) return x.deletion_cost < y.deletion_cost;
  if (a.rank != b.rank) return a.rank > b.rank;
  if (x.ready && y.ready && x.ready_since && y.ready_since) {
    const int bx = LogBucket(*x.ready_since, now), by = LogBucket(*y.ready_since, now);
    if (bx != by) return bx < by;
  }
  if (x.restarts != y.restarts) return x.restarts > y.restarts;
  if (x.created.has_value() != y.created.has_value()) return !x.created.has_value();
  if (x.created && y.created) {
    const int bx = LogBucket(*x.created, now), by = LogBucket(*y.created, now);
    if (bx != by) return bx < by;
  }
  return x.uid < y.uid;
}

}  // namespace

bool PodFacts::Available(Duration min_ready, TimePoint now) const {
  const std::optional<TimePoint> at = AvailableAt(min_ready);
  return at.has_value() && *at <= now;
}

std::optional<TimePoint> PodFacts::AvailableAt(Duration min_ready) const {
  if (!ready) return std::nullopt;
  if (min_ready <= Duration::zero()) return TimePoint::min();
  if (!ready_since.has_value()) return std::nullopt;
  return *ready_since + min_ready;
}

void SortForDeletion(std::vector<RankedPod>& pods, TimePoint now) {
  std::stable_sort(pods.begin(), pods.end(),
                   [now](const RankedPod& a, const RankedPod& b) { return Less(a, b, now); });
}

}  // namespace tidepool::controllers::replicaset
