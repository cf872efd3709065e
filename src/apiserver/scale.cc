// File: scale.cc
#include "apiserver/scale.h"

#include <algorithm>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/selectors/labels.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

const json* Member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

// The string values of a JSON list, sorted, without duplicates (as a Requirement keeps them).
std::vector<std::string> SortedValues(const json* values) {
  std::vector<std::string> out;
  if (values != nullptr && values->is_array()) {
    for (const json& v : *values) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string SelectorString(const json& selector) {
  std::vector<selectors::LabelRequirement> reqs;
  if (const json* labels = Member(selector, "matchLabels"); labels && labels->is_object()) {
    for (const auto& [k, v] : labels->items()) {
      if (v.is_string())
        reqs.push_back({k, selectors::LabelOperator::kEquals, {v.get<std::string>()}});
    }
  }
  if (const json* exprs = Member(selector, "matchExpressions"); exprs && exprs->is_array()) {
    for (const json& e : *exprs) {
      const json* key = Member(e, "key");
      const json* op = Member(e, "operator");
      if (key == nullptr || !key->is_string() || op == nullptr || !op->is_string()) continue;
      selectors::LabelRequirement r{key->get<std::string>(), selectors::LabelOperator::kIn, {}};
      const std::string o = op->get<std::string>();
      if (o == "In" || o == "NotIn") {
        r.op = o == "In" ? selectors::LabelOperator::kIn : selectors::LabelOperator::kNotIn;
        r.values = SortedValues(Member(e, "values"));
      } else if (o == "Exists") {
        r.op = selectors::LabelOperator::kExists;
      } else if (o == "DoesNotExist") {
        r.op = selectors::LabelOperator::kDoesNotExist;
      } else {
        continue;  // validation refuses other operators before an object is stored
      }
      reqs.push_back(std::move(r));
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
  std::string out;
  for (const selectors::LabelRequirement& r : reqs) {
    if (!out.empty()) out += ',';
    out += r.String();
  }
  return out;
}

namespace {

// labels.SelectorFromSet(m).String(): "k=v" for every string member, sorted by key (a JSON
// object's keys already are), joined with ','.
std::string SelectorFromSet(const json& set) {
  std::string out;
  if (!set.is_object()) return out;
  for (const auto& [k, v] : set.items()) {
    if (!v.is_string()) continue;
    if (!out.empty()) out += ',';
    out += k + "=" + v.get<std::string>();
  }
  return out;
}

}  // namespace

json ScaleOf(const json& object, ScaleSelector selector) {
  json meta = json::object();
  if (const json* m = Member(object, "metadata")) {
    for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
      if (const json* v = Member(*m, k)) meta[k] = *v;
    }
  }
  json spec = json::object();
  json status = {{"replicas", 0}};
  if (const json* s = Member(object, "spec")) {
    if (const json* r = Member(*s, "replicas"); r && r->is_number_integer() && *r != 0) {
      spec["replicas"] = *r;
    }
    if (const json* sel = Member(*s, "selector")) {
      std::string text =
          selector == ScaleSelector::kLabelMap ? SelectorFromSet(*sel) : SelectorString(*sel);
      if (!text.empty()) status["selector"] = std::move(text);
    }
  }
  if (const json* st = Member(object, "status")) {
    if (const json* r = Member(*st, "replicas"); r && r->is_number_integer()) {
      status["replicas"] = *r;
    }
  }
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", std::move(meta)},
          {"spec", std::move(spec)},
          {"status", std::move(status)}};
}

int32_t ScaleReplicas(const json& scale, std::string* decode_error, api::FieldErrors* errors) {
  const json* spec = Member(scale, "spec");
  const json* r = spec != nullptr ? Member(*spec, "replicas") : nullptr;
  if (r == nullptr) return 0;
  const char* type = r->is_string()    ? "string"
                     : r->is_boolean() ? "bool"
                     : r->is_object()  ? "object"
                     : r->is_array()   ? "array"
                                       : "number";
  const bool in_range =
      r->is_number_integer() && r->get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
      r->get<int64_t>() <= std::numeric_limits<int32_t>::max() &&
      !(r->is_number_unsigned() && r->get<uint64_t>() > std::numeric_limits<int32_t>::max());
  if (!in_range) {
    const std::string what = r->is_number() ? "number " + r->dump() : type;
    *decode_error =
        "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal " + what +
        " into Go struct field ScaleSpec.spec.replicas of type int32";
    return 0;
  }
  const auto replicas = static_cast<int32_t>(r->get<int64_t>());
  if (replicas < 0) {
    errors->push_back(api::FieldError::InvalidRaw("spec.replicas", std::to_string(replicas),
                                                  "must be greater than or equal to 0"));
  }
  return replicas;
}

}  // namespace tidepool::apiserver
