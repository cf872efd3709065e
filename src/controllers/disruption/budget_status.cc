#include "controllers/disruption/budget_status.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace tidepool::controllers::disruption {
namespace {

using nlohmann::json;

constexpr char kConditionType[] = "DisruptionAllowed";

int64_t IntAt(const json& j, const char* a, const char* b) {
  auto x = j.find(a);
  if (x == j.end() || !x->is_object()) return 0;
  auto y = x->find(b);
  return y != x->end() && y->is_number_integer() ? y->get<int64_t>() : 0;
}

// apimachinery's intstr.GetScaledValueFromIntOrPercent(v, total, roundUp=true).
StatusOr<int32_t> Scaled(const json& v, int32_t total) {
  if (v.is_number_integer()) return static_cast<int32_t>(v.get<int64_t>());
  if (!v.is_string()) {
    return InvalidArgumentError(
        "invalid value for IntOrString: invalid type: neither int nor percentage");
  }
  const std::string s = v.get<std::string>();
  if (s.empty() || s.back() != '%') {
    return InvalidArgumentError(
        "invalid value for IntOrString: invalid type: string is not a percentage");
  }
  const std::string digits = s.substr(0, s.size() - 1);
  const bool numeric = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  }) && digits.size() < 10;
  if (!numeric) {
    return InvalidArgumentError("invalid value for IntOrString: invalid value \"" + s +
                                "\": strconv.Atoi: parsing \"" + digits +
                                "\": invalid syntax");
  }
  const double pct = std::stod(digits);
  return static_cast<int32_t>(std::ceil(pct * static_cast<double>(total) / 100.0));
}

// getExpectedScale: the sum of the selected pods' controllers' replicas, each controller once.
StatusOr<int32_t> ExpectedScale(const BudgetInputs& in, std::vector<std::string>* unmanaged) {
  std::map<std::string, int32_t> by_uid;
  for (const PodFacts* p : in.pods) {
    if (p->controller_uid.empty()) {
      unmanaged->push_back(p->name);
      continue;
    }
    if (by_uid.count(p->controller_uid) > 0) continue;
    StatusOr<int32_t> scale = in.scale ? in.scale(*p) : NotFoundError("");
    if (!scale.ok()) {
      if (scale.status().code() != StatusCode::kNotFound) return scale.status();
      return InvalidArgumentError("found no controllers for pod \"" + p->name + "\"");
    }
    by_uid[p->controller_uid] = *scale;
  }
  int32_t total = 0;
  for (const auto& [uid, n] : by_uid) total += n;
  return total;
}

// Go's %v of a *metav1.LabelSelector (its generated String()).
std::string GoSelector(const json* sel) {
  if (sel == nullptr || sel->is_null()) return "nil";
  std::string labels = "map[string]string{";
  if (auto m = sel->find("matchLabels"); m != sel->end() && m->is_object()) {
    for (const auto& [k, v] : m->items()) {
      labels += k + ": " + (v.is_string() ? v.get<std::string>() : v.dump()) + ",";
    }
  }
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  if (auto e = sel->find("matchExpressions"); e != sel->end() && e->is_array()) {
    for (const json& r : *e) {
      std::string values;
      if (auto vs = r.find("values"); vs != r.end() && vs->is_array()) {
        for (const json& v : *vs) {
          values += (values.empty() ? "" : " ") + (v.is_string() ? v.get<std::string>() : v.dump());
        }
      }
      exprs += "LabelSelectorRequirement{Key:" + r.value("key", "") +
               ",Operator:" + r.value("operator", "") + ",Values:[" + values + "],},";
    }
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

// The stored disruptedPods map (pod name -> time).
std::map<std::string, TimePoint> DisruptedPods(const json& status) {
  std::map<std::string, TimePoint> out;
  auto d = status.find("disruptedPods");
  if (d == status.end() || !d->is_object()) return out;
  for (const auto& [name, t] : d->items()) {
    if (!t.is_string()) continue;
    if (StatusOr<TimePoint> tp = ParseRfc3339(t.get<std::string>()); tp.ok()) out[name] = *tp;
  }
  return out;
}

json ConditionOf(const json& status) {
  if (auto c = status.find("conditions"); c != status.end() && c->is_array()) {
    for (const json& x : *c) {
      if (x.is_object() && x.value("type", "") == kConditionType) return x;
    }
  }
  return nullptr;
}

// pdbhelper.ConditionsAreUpToDate.
bool ConditionUpToDate(const json& status) {
  const json c = ConditionOf(status);
  if (c.is_null()) return false;
  if (c.value("observedGeneration", int64_t{0}) != status.value("observedGeneration", int64_t{0})) {
    return false;
  }
  const bool allowed = status.value("disruptionsAllowed", int64_t{0}) > 0;
  return (c.value("status", "") == "True") == allowed;
}

// metav1's SetStatusCondition: lastTransitionTime changes only with the status.
void SetCondition(json& status, const std::string& cstatus, const std::string& reason,
                  const std::string& message, TimePoint now) {
  json& conds = status["conditions"];
  if (!conds.is_array()) conds = json::array();
  json* existing = nullptr;
  for (json& x : conds) {
    if (x.is_object() && x.value("type", "") == kConditionType) existing = &x;
  }
  const int64_t gen = status.value("observedGeneration", int64_t{0});
  if (existing == nullptr) {
    conds.push_back(json::object());
    existing = &conds.back();
    (*existing)["type"] = kConditionType;
  }
  json& c = *existing;
  if (c.value("status", "") != cstatus || !c.contains("lastTransitionTime")) {
    c["lastTransitionTime"] = FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(now));
  }
  c["status"] = cstatus;
  c["reason"] = reason;
  c["message"] = message;
  if (gen > 0) {
    c["observedGeneration"] = gen;
  } else {
    c.erase("observedGeneration");
  }
}

}  // namespace

void UpdateDisruptionAllowedCondition(json& status, TimePoint now) {
  if (status.value("disruptionsAllowed", int64_t{0}) > 0) {
    SetCondition(status, "True", "SufficientPods", "", now);
  } else {
    SetCondition(status, "False", "InsufficientPods", "", now);
  }
}

BudgetResult FailSafeStatus(const json& pdb, const std::string& error, TimePoint now) {
  BudgetResult r;
  const json old = pdb.contains("status") && pdb["status"].is_object() ? pdb["status"] : json::object();
  r.status = old;
  r.status["disruptionsAllowed"] = 0;
  SetCondition(r.status, "False", "SyncFailed", error, now);
  r.changed = r.status != old;
  return r;
}

BudgetResult ComputeBudgetStatus(const BudgetInputs& in) {
  const json& pdb = *in.pdb;
  const json empty = json::object();
  const json& spec = pdb.contains("spec") && pdb["spec"].is_object() ? pdb["spec"] : empty;
  const json& old = pdb.contains("status") && pdb["status"].is_object() ? pdb["status"] : empty;

  // getExpectedPodCount.
  std::vector<std::string> unmanaged;
  int32_t expected = 0, desired = 0;
  if (auto mu = spec.find("maxUnavailable"); mu != spec.end() && !mu->is_null()) {
    StatusOr<int32_t> scale = ExpectedScale(in, &unmanaged);
    if (!scale.ok()) return FailSafeStatus(pdb, std::string(scale.status().message()), in.now);
    expected = *scale;
    StatusOr<int32_t> max_unavailable = Scaled(*mu, expected);
    if (!max_unavailable.ok()) {
      return FailSafeStatus(pdb, std::string(max_unavailable.status().message()), in.now);
    }
    desired = std::max(0, expected - *max_unavailable);
  } else if (auto ma = spec.find("minAvailable"); ma != spec.end() && !ma->is_null()) {
    if (ma->is_number_integer()) {
      desired = static_cast<int32_t>(ma->get<int64_t>());
      expected = static_cast<int32_t>(in.pods.size());
    } else {
      StatusOr<int32_t> scale = ExpectedScale(in, &unmanaged);
      if (!scale.ok()) return FailSafeStatus(pdb, std::string(scale.status().message()), in.now);
      expected = *scale;
      StatusOr<int32_t> min_available = Scaled(*ma, expected);
      if (!min_available.ok()) {
        return FailSafeStatus(pdb, std::string(min_available.status().message()), in.now);
      }
      desired = *min_available;
    }
  }

  BudgetResult r;
  if (!unmanaged.empty()) {
    auto sel = spec.find("selector");
    r.unmanaged_warning =
        "Pods selected by this PodDisruptionBudget (selector: " +
        GoSelector(sel != spec.end() ? &*sel : nullptr) +
        ") were found to be unmanaged. As a result, the status of the PDB cannot be calculated "
        "correctly, which may result in undefined behavior. To account for these pods please "
        "set \".spec.minAvailable\" field of the PDB to an integer value.";
  }

  // buildDisruptedPodMap and countHealthyPods.
  const std::map<std::string, TimePoint> was_disrupted = DisruptedPods(old);
  json disrupted = json::object();
  int32_t healthy = 0;
  for (const PodFacts* p : in.pods) {
    if (p->deleting) continue;
    bool counts_as_disrupted = false;
    if (auto it = was_disrupted.find(p->name); it != was_disrupted.end()) {
      const TimePoint expected_deletion = it->second + in.deletion_timeout;
      if (expected_deletion < in.now) {
        r.not_deleted.push_back(p->name);
      } else {
        if (!r.recheck || expected_deletion < *r.recheck) r.recheck = expected_deletion;
        disrupted[p->name] = FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(it->second));
        counts_as_disrupted = true;
      }
    }
    if (!counts_as_disrupted && p->ready) ++healthy;
  }

  // updatePdbStatus.
  int32_t allowed = healthy - desired;
  if (expected <= 0 || allowed <= 0) allowed = 0;
  const int64_t generation = IntAt(pdb, "metadata", "generation");
  const json old_disrupted =
      old.contains("disruptedPods") && old["disruptedPods"].is_object() ? old["disruptedPods"]
                                                                         : json::object();
  if (old.value("currentHealthy", int64_t{-1}) == healthy &&
      old.value("desiredHealthy", int64_t{-1}) == desired &&
      old.value("expectedPods", int64_t{-1}) == expected &&
      old.value("disruptionsAllowed", int64_t{-1}) == allowed && old_disrupted == disrupted &&
      old.value("observedGeneration", int64_t{-1}) == generation && ConditionUpToDate(old)) {
    r.status = old;
    return r;
  }
  r.status = json::object();
  if (generation > 0) r.status["observedGeneration"] = generation;
  if (!disrupted.empty()) r.status["disruptedPods"] = disrupted;
  r.status["disruptionsAllowed"] = allowed;
  r.status["currentHealthy"] = healthy;
  r.status["desiredHealthy"] = desired;
  r.status["expectedPods"] = expected;
  if (old.contains("conditions")) r.status["conditions"] = old["conditions"];
  UpdateDisruptionAllowedCondition(r.status, in.now);
  r.changed = r.status != old;
  return r;
}

}  // namespace tidepool::controllers::disruption
