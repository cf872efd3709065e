#include "controllers/object_json.h"

#include <nlohmann/json.hpp>

namespace tidepool::controllers {

using nlohmann::json;

const json& Member(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

const json& Meta(const json& obj) { return Member(obj, "metadata"); }

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

api::Labels LabelsOf(const json& labels) {
  api::Labels out;
  if (!labels.is_object()) return out;
  for (const auto& [k, v] : labels.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

const json* ControllerOf(const json& obj) {
  const json& refs = Member(Meta(obj), "ownerReferences");
  if (!refs.is_array()) return nullptr;
  for (const json& r : refs) {
    if (Member(r, "controller") == true) return &r;
  }
  return nullptr;
}

std::optional<TimePoint> TimeOf(const json& v) {
  if (!v.is_string()) return std::nullopt;
  StatusOr<TimePoint> t = ParseRfc3339(v.get<std::string>());
  if (!t.ok()) return std::nullopt;
  return *t;
}

}  // namespace tidepool::controllers
