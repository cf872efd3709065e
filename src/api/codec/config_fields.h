// File: config_fields.h
//
// Typed access to the fields of a parsed configuration document (YAML or JSON through
// nlohmann::json) with the field's path in every error, e.g.
//   `autoscaler.scan-interval: expected a duration such as "30s" or "10m", got integer 5`.
// Used by every config reader (sim/scenario.cc, autoscaler/flags.cc) so that they all speak
// alike. Errors are InvalidArgument; `path` is the dotted path of the value ("a.b[2].c").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::api::codec {

// "null", "boolean", "integer", "number", "string", "array", "object".
std::string TypeName(const nlohmann::json& j);
// A value for an error: `string "x"`, `integer 5`, `object`.
std::string Describe(const nlohmann::json& j);
// InvalidArgument("<path>: <msg>").
Status FieldError(const std::string& path, const std::string& msg);
// "a" + "b" -> "a.b" ("" + "b" -> "b"); "a" + 2 -> "a[2]".
std::string JoinPath(const std::string& path, std::string_view key);
std::string IndexPath(const std::string& path, size_t i);

Status ExpectObject(const nlohmann::json& j, const std::string& path);
// An object whose keys are all in `allowed` ("unknown field (known: a, b)" otherwise).
Status CheckKeys(const nlohmann::json& j, const std::string& path,
                 std::initializer_list<std::string_view> allowed);

StatusOr<std::string> GetString(const nlohmann::json& j, const std::string& path);
// An integer; a float with no fractional part is accepted (YAML writes 1e3).
StatusOr<int64_t> GetInt(const nlohmann::json& j, const std::string& path);
// An integer within +-1e9.
StatusOr<int> GetSmallInt(const nlohmann::json& j, const std::string& path);
StatusOr<double> GetNumber(const nlohmann::json& j, const std::string& path);
StatusOr<bool> GetBool(const nlohmann::json& j, const std::string& path);
// A non-negative Go duration string ("10s", "1m30s"); the integer 0 is accepted too.
StatusOr<Duration> GetDuration(const nlohmann::json& j, const std::string& path);
// A string or an array of strings.
StatusOr<std::vector<std::string>> GetStringList(const nlohmann::json& j, const std::string& path);

}  // namespace tidepool::api::codec
