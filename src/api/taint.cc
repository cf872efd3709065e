#include "api/taint.h"

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
  // kubectl taint's spec: <key>[=<value>]:<effect>.
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos) {
    return InvalidArgumentError("invalid taint spec: " + std::string(s));
  }
  Taint t;
  std::string_view kv = s.substr(0, colon);
  std::string_view effect = s.substr(colon + 1);
  size_t eq = kv.find('=');
  if (eq == std::string_view::npos) {
    t.key = std::string(kv);
  } else {
    t.key = std::string(kv.substr(0, eq));
    t.value = std::string(kv.substr(eq + 1));
  }
  if (t.key.empty() || effect.empty()) {
    return InvalidArgumentError("invalid taint spec: " + std::string(s));
  }
  auto e = ParseTaintEffect(effect);
  if (!e.ok()) {
    return InvalidArgumentError("invalid taint spec: " + std::string(s) + ", " +
                                std::string(e.status().message()));
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

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (t.ToleratesTaint(taint)) {
      return true;
    }
  }
  return false;
}

}  // namespace tidepool::api
