#include "api/codec/config_fields.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/duration.h"

namespace tidepool::api::codec {

using nlohmann::json;

std::string TypeName(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "value";
  }
}

std::string Describe(const json& j) {
  if (j.is_string()) {
    // A plain dump() throws type_error.316 on invalid UTF-8, which YAML scalars can carry
    // (found by the scenario fuzz target); the bytes are written as U+FFFD instead.
    return "string " + j.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  if (j.is_number() || j.is_boolean()) {
    return TypeName(j) + " " + j.dump();
  }
  return TypeName(j);
}

Status FieldError(const std::string& path, const std::string& msg) {
  return InvalidArgumentError(path + ": " + msg);
}

std::string JoinPath(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string IndexPath(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Status ExpectObject(const json& j, const std::string& path) {
  if (!j.is_object()) {
    return FieldError(path, "expected object, got " + Describe(j));
  }
  return OkStatus();
}

Status CheckKeys(const json& j, const std::string& path,
                 std::initializer_list<std::string_view> allowed) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(j, path));
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    for (std::string_view a : allowed) {
      ok = ok || a == k;
    }
    if (!ok) {
      std::string list;
      for (std::string_view a : allowed) {
        list += (list.empty() ? "" : ", ") + std::string(a);
      }
      return FieldError(JoinPath(path, k), "unknown field (known: " + list + ")");
    }
  }
  return OkStatus();
}

StatusOr<std::string> GetString(const json& j, const std::string& path) {
  if (!j.is_string()) {
    return FieldError(path, "expected string, got " + Describe(j));
  }
  return j.get<std::string>();
}

StatusOr<int64_t> GetInt(const json& j, const std::string& path) {
  if (j.is_number_integer()) {
    return j.get<int64_t>();
  }
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 9e15) {
      return static_cast<int64_t>(d);
    }
  }
  return FieldError(path, "expected integer, got " + Describe(j));
}

StatusOr<int> GetSmallInt(const json& j, const std::string& path) {
  TIDEPOOL_ASSIGN_OR_RETURN(int64_t v, GetInt(j, path));
  if (v < -1000000000LL || v > 1000000000LL) {
    return FieldError(path, "value " + std::to_string(v) + " out of range");
  }
  return static_cast<int>(v);
}

StatusOr<double> GetNumber(const json& j, const std::string& path) {
  if (!j.is_number()) {
    return FieldError(path, "expected number, got " + Describe(j));
  }
  return j.get<double>();
}

StatusOr<bool> GetBool(const json& j, const std::string& path) {
  if (!j.is_boolean()) {
    return FieldError(path, "expected boolean, got " + Describe(j));
  }
  return j.get<bool>();
}

// A Go duration string ("10s", "1m30s"); the integer 0 is accepted too.
StatusOr<Duration> GetDuration(const json& j, const std::string& path) {
  if (j.is_number_integer() && j.get<int64_t>() == 0) {
    return Duration::zero();
  }
  if (!j.is_string()) {
    return FieldError(path, "expected a duration such as \"30s\" or \"10m\", got " + Describe(j));
  }
  auto d = ParseGoDuration(j.get<std::string>());
  if (!d.ok()) {
    return FieldError(path, std::string(d.status().message()));
  }
  if (*d < Duration::zero()) {
    return FieldError(path, "must not be negative");
  }
  return *d;
}

StatusOr<std::vector<std::string>> GetStringList(const json& j, const std::string& path) {
  std::vector<std::string> out;
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
    return out;
  }
  if (!j.is_array()) {
    return FieldError(path, "expected array of strings, got " + Describe(j));
  }
  for (size_t i = 0; i < j.size(); ++i) {
    TIDEPOOL_ASSIGN_OR_RETURN(std::string s, GetString(j[i], IndexPath(path, i)));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace tidepool::api::codec
