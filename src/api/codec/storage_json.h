// File: storage_json.h
//
// Storage rules read straight from the JSON of API objects, for the API server's admission and
// the storage controllers alike (k8s.io/component-helpers/storage/volume and
// pkg/volume/util, Kubernetes 1.32):
//   - ClassNameOf: GetPersistentVolume(Claim)Class - the beta annotation
//     volume.beta.kubernetes.io/storage-class, else spec.storageClassName ("" when neither);
//   - ClaimHasClass: PersistentVolumeClaimHasClass - the beta annotation, or
//     spec.storageClassName set ("" included: an explicit "no class");
//   - DefaultStorageClassName: GetDefaultClass - of the StorageClasses annotated
//     storageclass.kubernetes.io/is-default-class "true" (or its beta key) the newest by
//     creationTimestamp, then the first by name; "" when none.
// Objects of the wrong shape read as absent; nothing throws.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace tidepool::api::codec {

std::string ClassNameOf(const nlohmann::json& claim_or_volume);
bool ClaimHasClass(const nlohmann::json& claim);
std::string DefaultStorageClassName(const std::vector<const nlohmann::json*>& classes);

}  // namespace tidepool::api::codec
