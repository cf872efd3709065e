// File: string_hash.h
//
// A transparent hash for unordered containers keyed by std::string, so that find() takes a
// std::string_view without building a std::string:
//   std::unordered_map<std::string, V, StringHash, std::equal_to<>> m;  m.find(view);
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace tidepool {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  size_t operator()(const std::string& s) const { return std::hash<std::string_view>{}(s); }
  size_t operator()(const char* s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace tidepool
