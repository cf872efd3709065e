#include "api/taint.h"

#include <algorithm>

#include "api/name_validation.h"

namespace tidepool::api {

std::string_view TaintEffectName(TaintEffect e) {
  switch (e) {
    case TaintEffect::kNone: return "";
    case TaintEffect::kNoSchedule: return "NoSchedule";
    case TaintEffect::kPreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::kNoExecute: return "NoExecute";
  }
  return "";
}

StatusOr<TaintEffect> ParseTaintEffect(std::string_view s) {
  if (s.empty()) {
    return TaintEffect::kNone;
  }
  if (s == "NoSchedule") {
    return TaintEffect::kNoSchedule;
  }
  if (s == "PreferNoSchedule") {
    return TaintEffect::kPreferNoSchedule;
  }
  if (s == "NoExecute") {
    return TaintEffect::kNoExecute;
  }
  return InvalidArgumentError("unsupported taint effect \"" + std::string(s) + "\"");
}

std::string Taint::ToString() const {
  std::string out = key;
  if (!value.empty()) {
    out += "=" + value;
  }
  out += ":";
  out += TaintEffectName(effect);
  return out;
}

StatusOr<Taint> Taint::Parse(std::string_view s) {
  // kubectl taint's parseTaint: <key>[=<value>]:<effect>, with exactly one ':' and at most one
  // '=', a qualified-name key and a label-value value; adding a taint needs the effect.
  auto invalid = [&s](std::string_view why) {
    std::string msg = "invalid taint spec: " + std::string(s);
    if (!why.empty()) {
      msg += ", " + std::string(why);
    }
    return InvalidArgumentError(msg);
  };
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || s.find(':', colon + 1) != std::string_view::npos) {
    return invalid("");
  }
  // kubectl checks the effect, then the key=value split, then the value, then the key.
  std::string_view effect = s.substr(colon + 1);
  if (effect.empty()) {
    return invalid("");
  }
  auto e = ParseTaintEffect(effect);
  if (!e.ok()) {
    return invalid(e.status().message());
  }
  Taint t;
  std::string_view kv = s.substr(0, colon);
  size_t eq = kv.find('=');
  if (eq == std::string_view::npos) {
    t.key = std::string(kv);
  } else {
    if (kv.find('=', eq + 1) != std::string_view::npos) {
      return invalid("");
    }
    t.key = std::string(kv.substr(0, eq));
    t.value = std::string(kv.substr(eq + 1));
  }
  // Kubernetes' checks (validation.IsValidLabelValue, IsQualifiedName): api/name_validation.h.
  if (!IsValidLabelValue(t.value).empty()) {
    return invalid("the value must be a valid label value");
  }
  if (!IsQualifiedName(t.key).empty()) {
    return invalid("the key must be a qualified name");
  }
  t.effect = *e;
  return t;
}

bool Toleration::ToleratesTaint(const Taint& taint) const {
  if (effect != TaintEffect::kNone && effect != taint.effect) {
    return false;
  }
  if (!key.empty() && key != taint.key) {
    return false;
  }
  switch (op) {
    case TolerationOperator::kEqual:
      return value == taint.value;
    case TolerationOperator::kExists:
      return true;
  }
  return false;
}

std::vector<Taint> MergeOwnedTaints(const std::vector<Taint>& current,
                                    const std::vector<Taint>& previously_owned,
                                    const std::vector<Taint>& owned) {
  std::vector<Taint> out = owned;
  for (const Taint& t : current) {
    const auto same = [&](const Taint& o) { return o.MatchTaint(t); };
    const bool was_owned = std::any_of(previously_owned.begin(), previously_owned.end(), same);
    const bool is_owned = std::any_of(owned.begin(), owned.end(), same);
    if (!was_owned && !is_owned) out.push_back(t);
  }
  return out;
}

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (t.ToleratesTaint(taint)) {
      return true;
    }
  }
  return false;
}

const Taint* UntoleratedDoNotScheduleTaint(const std::vector<Taint>& taints,
                                           const std::vector<Toleration>& tolerations) {
  return FindMatchingUntoleratedTaint(taints, tolerations, [](const Taint& t) {
    return t.effect == TaintEffect::kNoSchedule || t.effect == TaintEffect::kNoExecute;
  });
}

}  // namespace tidepool::api
