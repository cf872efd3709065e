// File: json_fields.h
//
// Lenient reads of an API object's JSON, for code that decodes only the few fields it needs
// (a pod's container statuses, an Event): a missing member, or a value of the wrong JSON type,
// reads as Go's zero value, as the API machinery's decoding of an omitted field would. Nothing
// throws. Header-only.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/clock.h"

namespace tidepool::api::codec {

// j[key], or null when `j` is not an object or has no such member.
inline const nlohmann::json& JsonAt(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}
inline std::string JsonStr(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = JsonAt(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}
inline int32_t JsonInt32(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = JsonAt(j, key);
  return v.is_number_integer() ? v.get<int32_t>() : 0;
}
// An RFC 3339 time, or nullopt when absent or unparseable.
inline std::optional<TimePoint> JsonTime(const nlohmann::json& j, const char* key) {
  auto t = ParseRfc3339(JsonStr(j, key));
  return t.ok() ? std::optional<TimePoint>(*t) : std::nullopt;
}

}  // namespace tidepool::api::codec
