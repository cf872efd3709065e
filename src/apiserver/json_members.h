// File: json_members.h
//
// Reading the members of a decoded object that may be absent, as the API server's handlers,
// the object store and deletion do: nothing here throws, whatever the JSON types.
//   - Member: a pointer to j[key], or nullptr when `j` is not an object or has no such key (a
//     null value is returned as it is, unlike validation::Member);
//   - Str: j[a] (or j[a][b] when `b` is given) when it is a string, else "".
// Pure functions; header-only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tidepool::apiserver {

inline const nlohmann::json* Member(const nlohmann::json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

inline std::string Str(const nlohmann::json& j, std::string_view a, std::string_view b = {}) {
  const nlohmann::json* x = Member(j, a);
  if (x != nullptr && !b.empty()) x = Member(*x, b);
  return x != nullptr && x->is_string() ? x->get<std::string>() : "";
}

}  // namespace tidepool::apiserver
