#include "controllers/controller_ref.h"

#include <nlohmann/json.hpp>

#include "controllers/object_json.h"

namespace tidepool::controllers {

using nlohmann::json;

namespace {

Status PatchOwners(const client::RestClient& client, const std::string& path,
                   const std::string& uid, json refs) {
  json patch = {{"metadata", {{"ownerReferences", std::move(refs)}, {"uid", uid}}}};
  return client.PatchUnread(path, client::PatchType::kMerge, patch);
}

}  // namespace

std::string PodsPath(const std::string& ns, const std::string& name) {
  return client::ResourcePath("", "v1", "pods", ns, name);
}

PodClaimOwner ClaimOwnerOf(const client::RestClient& client, const json& owner,
                           const std::string& resource, const std::string& kind,
                           const json& controller_ref) {
  const json& m = Meta(owner);
  const std::string ns = Str(Member(m, "namespace")), uid = Str(Member(m, "uid"));
  const std::string path = client::ResourcePath("apps", "v1", resource, ns, Str(Member(m, "name")));
  const bool deleting = !Member(m, "deletionTimestamp").is_null();
  return {ns, uid, deleting, &controller_ref,
          [&client, path, uid, kind] { return RecheckDeletionTimestamp(client, path, uid, kind); }};
}

Status AdoptObject(const client::RestClient& client, const std::string& path,
                   const std::string& uid, const json& controller_ref) {
  StatusOr<json> obj = client.Get(path);
  if (!obj.ok()) return obj.status();
  json refs = Member(Meta(*obj), "ownerReferences");
  if (!refs.is_array()) refs = json::array();
  refs.push_back(controller_ref);
  return PatchOwners(client, path, uid, std::move(refs));
}

Status RecheckDeletionTimestamp(const client::RestClient& client, const std::string& path,
                                const std::string& uid, const std::string& kind) {
  StatusOr<json> fresh = client.Get(path);
  if (!fresh.ok()) return fresh.status();
  const json& m = Meta(*fresh);
  const std::string key = Str(Member(m, "namespace")) + "/" + Str(Member(m, "name"));
  if (Str(Member(m, "uid")) != uid) {
    return AbortedError("original " + kind + " " + key + " is gone: got uid " +
                        Str(Member(m, "uid")) + ", wanted " + uid);
  }
  if (!Member(m, "deletionTimestamp").is_null()) {
    return AbortedError(key + " has just been deleted at " + Str(Member(m, "deletionTimestamp")));
  }
  return OkStatus();
}

Status ReleaseObject(const client::RestClient& client, const std::string& path,
                     const std::string& uid, const std::string& owner_uid) {
  StatusOr<json> obj = client.Get(path);
  if (!obj.ok()) return obj.status();
  json refs = json::array();
  for (const json& o : Member(Meta(*obj), "ownerReferences")) {
    if (Str(Member(o, "uid")) != owner_uid) refs.push_back(o);
  }
  return PatchOwners(client, path, uid, std::move(refs));
}

}  // namespace tidepool::controllers
