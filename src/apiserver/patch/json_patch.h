// File: json_patch.h
//
// The two schema-less patch formats, with the semantics and error texts of the library
// kube-apiserver applies them with (gopkg.in/evanphx/json-patch.v4, as used by
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go). Pure functions: the inputs are never
// modified, nothing throws, every error is InvalidArgument.
//
// MergePatch: RFC 7386 JSON merge patch (application/merge-patch+json).
//   - An object patch is merged into the target: a null member deletes the key; an object
//     member is merged recursively into an object target member; any other member replaces
//     the target member. A value copied into the target (no object to merge into) has its
//     null object members removed recursively (inside arrays too; null array elements stay).
//     Example (kubectl label ... tier-): {"metadata":{"labels":{"tier":null}}}.
//   - A target that is not an object is replaced by the patch (nulls pruned). A null target
//     is "Invalid JSON Document".
//   - An array patch replaces the target (nulls pruned inside its objects). A null, string,
//     number or boolean patch is "Invalid JSON Patch" (kube answers 400 BadRequest), where
//     RFC 7386 would replace the target with it.
//
// JsonPatch: RFC 6902 JSON patch (application/json-patch+json): add, remove, replace, move,
// copy, test, applied in order; the first failing operation fails the whole patch and its
// message is the library's, e.g.
//   add operation does not apply: doc is missing path: "/a/b": missing value
//   error in remove for path: '/x': Unable to remove nonexistent key: x: missing value
//   replace operation does not apply: doc is missing key: /spec/containers/3: missing value
//   testing value /metadata/resourceVersion failed: test failed
//   error in add for path: '/l/9': Unable to access invalid index: 9: invalid index referenced
//   Unexpected kind: frob
// Paths are JSON pointers ("~1" is "/", "~0" is "~"); "-" appends in "add". Behaviour of the
// library that differs from the RFC and is kept on purpose:
//   - "replace" of a missing object member adds it (only a missing parent or a bad array
//     index fails);
//   - negative array indices count from the end ("/l/-1" is the last element);
//   - a missing "value" is null; "copy" from a missing object member copies null;
//   - "test" of a missing or null member succeeds iff the value is null or absent;
//   - the path "" in "replace" replaces the whole document (object or array values only) and
//     in "test" compares the whole document; "add"/"remove" with "" fail (missing path).
// Values compare by JSON value (1 equals 1.0; the library compares number texts). The
// operations must be an array of objects; otherwise the error is Go's decoding error, e.g.
// "json: cannot unmarshal object into Go value of type jsonpatch.Patch" (kube: 400).
// kube-apiserver's limit of 10000 operations per patch is not enforced here.
#pragma once

#include <nlohmann/json.hpp>

#include "common/status_or.h"

namespace tidepool::apiserver::patch {

StatusOr<nlohmann::json> MergePatch(const nlohmann::json& target, const nlohmann::json& patch);

StatusOr<nlohmann::json> JsonPatch(const nlohmann::json& target,
                                   const nlohmann::json& operations);

namespace internal {

// MergePatch's pruning of the values it copies, which server-side apply applies to the applied
// configuration too: removes the null members of objects, recursively (through arrays too;
// null array elements stay).
void PruneNulls(nlohmann::json& v);

}  // namespace internal

}  // namespace tidepool::apiserver::patch
