// File: persistentvolume/volume_json.h
//
// Reading claims and volumes as the storage controllers receive them (object_json.h's rules:
// absent or of another type reads as "" / null, never throws).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "client/rest_client.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::persistentvolume {

inline std::string NameOf(const nlohmann::json& obj) { return Str(Member(Meta(obj), "name")); }
inline std::string NamespaceOf(const nlohmann::json& obj) {
  return Str(Member(Meta(obj), "namespace"));
}
inline std::string UidOf(const nlohmann::json& obj) { return Str(Member(Meta(obj), "uid")); }
inline const nlohmann::json& Spec(const nlohmann::json& obj) { return Member(obj, "spec"); }
inline std::string Phase(const nlohmann::json& obj) {
  return Str(Member(Member(obj, "status"), "phase"));
}
inline std::string Annotation(const nlohmann::json& obj, const char* key) {
  return Str(Member(Member(Meta(obj), "annotations"), key));
}
inline bool BeingDeleted(const nlohmann::json& obj) {
  return !Member(Meta(obj), "deletionTimestamp").is_null();
}
inline std::string ClaimPath(const nlohmann::json& claim) {
  return client::ResourcePath("", "v1", "persistentvolumeclaims", NamespaceOf(claim),
                              NameOf(claim));
}
inline std::string VolumePath(const nlohmann::json& volume) {
  return client::ResourcePath("", "v1", "persistentvolumes", "", NameOf(volume));
}

}  // namespace tidepool::controllers::persistentvolume
