// File: object_json.h
//
// Reading the JSON of API objects as the controllers receive them from their informers: a
// member that is absent, null or of another type reads as null / "" / empty, never throws
// (objects come from the API and are valid, but a controller must not die on one that is not).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "api/meta.h"
#include "common/clock.h"

namespace tidepool::controllers {

// obj[key], or a null when `obj` is not an object or has no `key`.
const nlohmann::json& Member(const nlohmann::json& obj, const char* key);
// The string, or "" for anything else.
std::string Str(const nlohmann::json& v);
// obj["metadata"].
const nlohmann::json& Meta(const nlohmann::json& obj);
// "<namespace>/<name>" (client::Informer's key of a namespaced object).
std::string Key(const std::string& ns, const std::string& name);
// A labels (or annotations) map; non-string values are skipped.
api::Labels LabelsOf(const nlohmann::json& labels);
// metav1.GetControllerOf: the object's ownerReference with `controller: true` (validation
// allows one), or nullptr.
const nlohmann::json* ControllerOf(const nlohmann::json& obj);
// An RFC 3339 time (metav1.Time), or nullopt.
std::optional<TimePoint> TimeOf(const nlohmann::json& v);

}  // namespace tidepool::controllers
