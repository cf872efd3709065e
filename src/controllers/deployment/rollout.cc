#include "controllers/deployment/rollout.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "controllers/history/controller_history.h"

namespace tidepool::controllers::deployment {

using nlohmann::json;

StatusOr<int32_t> ScaledValue(const json& v, int32_t total, bool round_up) {
  if (v.is_number_integer()) return v.get<int32_t>();
  if (!v.is_string()) return InvalidArgumentError("invalid type: neither int nor percentage");
  const std::string s = v.get<std::string>();
  if (s.empty() || s.back() != '%') return InvalidArgumentError("invalid value for IntOrString: invalid value \"" + s + "\"");
  char* end = nullptr;
  const long pct = std::strtol(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() - 1) return InvalidArgumentError("invalid value \"" + s + "\"");
  const double scaled = static_cast<double>(pct) * total / 100.0;
  return static_cast<int32_t>(round_up ? std::ceil(scaled) : std::floor(scaled));
}

Fenceposts ResolveFenceposts(const json& rolling_update, int32_t replicas) {
  static const json kDefault = "25%";
  auto member = [&](const char* k) -> const json& {
    if (rolling_update.is_object()) {
      auto it = rolling_update.find(k);
      if (it != rolling_update.end() && !it->is_null()) return *it;
    }
    return kDefault;
  };
  Fenceposts f;
  StatusOr<int32_t> surge = ScaledValue(member("maxSurge"), replicas, true);
  StatusOr<int32_t> unavailable = ScaledValue(member("maxUnavailable"), replicas, false);
  f.max_surge = surge.ok() ? *surge : 0;
  f.max_unavailable = unavailable.ok() ? *unavailable : 0;
  if (f.max_surge == 0 && f.max_unavailable == 0) f.max_unavailable = 1;
  return f;
}

namespace {

int32_t SumSpec(const std::vector<RsState>& v) {
  return std::accumulate(v.begin(), v.end(), 0,
                         [](int32_t s, const RsState& r) { return s + r.spec_replicas; });
}

}  // namespace

int32_t NewRsNewReplicas(int32_t replicas, const Fenceposts& f, const std::vector<RsState>& all,
                         const RsState& new_rs) {
  const int32_t current = SumSpec(all);
  const int32_t max_total = replicas + f.max_surge;
  if (current >= max_total) return new_rs.spec_replicas;
  const int32_t up = std::min(max_total - current, replicas - new_rs.spec_replicas);
  return new_rs.spec_replicas + std::max(up, 0);
}

std::vector<int32_t> OldScaleDowns(int32_t replicas, const Fenceposts& f,
                                   const std::vector<RsState>& old, const RsState* new_rs) {
  std::vector<int32_t> out;
  for (const RsState& r : old) out.push_back(r.spec_replicas);
  if (SumSpec(old) == 0) return out;
  std::vector<RsState> all = old;
  if (new_rs != nullptr) all.push_back(*new_rs);
  const int32_t all_pods = SumSpec(all);
  const int32_t min_available = replicas - f.max_unavailable;
  const int32_t new_unavailable =
      new_rs == nullptr ? 0 : new_rs->spec_replicas - new_rs->available;
  const int32_t max_scaled_down = all_pods - min_available - new_unavailable;
  if (max_scaled_down <= 0) return out;
  // Oldest first (ReplicaSetsByCreationTimestamp; name breaks ties).
  std::vector<size_t> order(old.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (old[a].created_seconds != old[b].created_seconds) return old[a].created_seconds < old[b].created_seconds;
    return old[a].name < old[b].name;
  });
  // cleanupUnhealthyReplicas: unavailable pods of old ReplicaSets go first.
  int32_t cleaned = 0;
  for (size_t i : order) {
    if (cleaned >= max_scaled_down) break;
    if (out[i] == 0) continue;
    const int32_t unhealthy = out[i] - old[i].available;
    if (unhealthy <= 0) continue;
    const int32_t n = std::min(max_scaled_down - cleaned, unhealthy);
    out[i] -= n;
    cleaned += n;
  }
  // scaleDownOldReplicaSetsForRollingUpdate: available pods above the minimum.
  int32_t available = new_rs == nullptr ? 0 : new_rs->available;
  for (const RsState& r : old) available += r.available;
  if (available <= min_available) return out;
  const int32_t total = std::min(available - min_available, max_scaled_down - cleaned);
  int32_t done = 0;
  for (size_t i : order) {
    if (done >= total) break;
    if (out[i] == 0) continue;
    const int32_t n = std::min(out[i], total - done);
    out[i] -= n;
    done += n;
  }
  return out;
}

std::vector<int32_t> Proportional(int32_t replicas, const Fenceposts& f,
                                  const std::vector<RsState>& active, int32_t status_replicas) {
  std::vector<int32_t> out;
  for (const RsState& r : active) out.push_back(r.spec_replicas);
  if (active.empty()) return out;
  const int32_t all = SumSpec(active);
  const int32_t allowed = replicas > 0 ? replicas + f.max_surge : 0;
  const int32_t to_add = allowed - all;
  std::vector<size_t> order(active.size());
  std::iota(order.begin(), order.end(), 0);
  // Growing: larger first, newer on ties (ReplicaSetsBySizeNewer); shrinking: larger first,
  // older on ties (ReplicaSetsBySizeOlder).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (active[a].spec_replicas != active[b].spec_replicas) return active[a].spec_replicas > active[b].spec_replicas;
    if (active[a].created_seconds != active[b].created_seconds) {
      return to_add > 0 ? active[a].created_seconds > active[b].created_seconds
                        : active[a].created_seconds < active[b].created_seconds;
    }
    return active[a].name < active[b].name;
  });
  int32_t added = 0;
  for (size_t i : order) {
    const RsState& r = active[i];
    int32_t p = 0;
    if (r.spec_replicas != 0 && to_add != 0 && to_add != added) {
      int32_t fraction;
      if (replicas == 0) {
        fraction = -r.spec_replicas;
      } else {
        const int32_t target = replicas + f.max_surge;
        const int32_t annotated = r.max_replicas_annotation.value_or(status_replicas);
        const double size = annotated == 0 ? 0.0
                                           : static_cast<double>(r.spec_replicas) * target / annotated;
        fraction = static_cast<int32_t>(std::llround(size)) - r.spec_replicas;
      }
      const int32_t left = to_add - added;
      p = to_add > 0 ? std::min(fraction, left) : std::max(fraction, left);
    }
    out[i] += p;
    added += p;
  }
  if (added != to_add) out[order[0]] = std::max(0, out[order[0]] + (to_add - added));
  return out;
}

std::string PodTemplateHash(const json& pod_template, std::optional<int32_t> collision_count) {
  return history::ComputeHash(pod_template, collision_count);
}

}  // namespace tidepool::controllers::deployment
