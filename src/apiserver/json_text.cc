#include "apiserver/json_text.h"

#include <cstddef>

namespace tidepool::apiserver::json_text {
namespace {

// Skips whitespace from `i`.
size_t SkipSpace(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  return i;
}

// The end (one past) of the string starting at t[i] == '"'; t.size() when unterminated.
size_t SkipString(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == '"') {
      return i + 1;
    }
  }
  return t.size();
}

// The end (one past) of the JSON value starting at t[i] (no leading whitespace).
size_t SkipValue(std::string_view t, size_t i) {
  if (i >= t.size()) return t.size();
  if (t[i] == '"') return SkipString(t, i);
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = SkipString(t, i);
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return t.size();
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' &&
         t[i] != '\n' && t[i] != '\r' && t[i] != '\t') {
    ++i;
  }
  return i;
}

}  // namespace

std::optional<std::string_view> TopLevelMember(std::string_view t, std::string_view key) {
  size_t i = SkipSpace(t, 0);
  if (i >= t.size() || t[i] != '{') return std::nullopt;
  i = SkipSpace(t, i + 1);
  while (i < t.size() && t[i] == '"') {
    const size_t name_end = SkipString(t, i);
    if (name_end >= t.size()) return std::nullopt;
    const std::string_view name = t.substr(i + 1, name_end - i - 2);
    i = SkipSpace(t, name_end);
    if (i >= t.size() || t[i] != ':') return std::nullopt;
    i = SkipSpace(t, i + 1);
    const size_t value_end = SkipValue(t, i);
    if (name == key) return t.substr(i, value_end - i);
    i = SkipSpace(t, value_end);
    if (i >= t.size() || t[i] != ',') return std::nullopt;
    i = SkipSpace(t, i + 1);
  }
  return std::nullopt;
}

}  // namespace tidepool::apiserver::json_text
