// File: persistentvolume/volume_json.h
//
// Reading claims and volumes as the storage controllers receive them (object_json.h's rules:
// absent or of another type reads as "" / null, never throws).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "api/quantity.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
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
// "<namespace>/<name>": the informers' key of a claim (object_json.h's Key).
inline std::string ClaimKey(const nlohmann::json& claim) {
  return Key(NamespaceOf(claim), NameOf(claim));
}
// A storage quantity (a claim's request, a volume's capacity) in bytes; 0 when absent or not a
// quantity.
inline int64_t StorageBytes(const nlohmann::json& q) {
  if (!q.is_string() && !q.is_number()) return 0;
  auto parsed = api::Quantity::Parse(q.is_string() ? q.get<std::string>() : q.dump());
  return parsed.ok() ? parsed->Value() : 0;
}
inline int64_t Requested(const nlohmann::json& claim) {
  return StorageBytes(Member(Member(Member(Spec(claim), "resources"), "requests"), "storage"));
}
// An informer of whole objects (these controllers read what they write back).
inline std::shared_ptr<client::Informer> ObjectInformer(client::SharedInformerFactory* informers,
                                                        const client::RestClient& client,
                                                        const Clock& clock, const char* name,
                                                        const char* path, uint64_t seed) {
  client::InformerOptions o;
  o.path = path;
  o.name = name;
  o.seed = seed;
  return client::MakeInformer(informers, client, clock, o, nullptr);
}
inline std::string ClaimPath(const nlohmann::json& claim) {
  return client::ResourcePath("", "v1", "persistentvolumeclaims", NamespaceOf(claim),
                              NameOf(claim));
}
inline std::string VolumePath(const nlohmann::json& volume) {
  return client::ResourcePath("", "v1", "persistentvolumes", "", NameOf(volume));
}

}  // namespace tidepool::controllers::persistentvolume
