// File: patch_schema.h
//
// The one table of per-field patch metadata that strategic merge patch and server-side apply
// need, taken from the Go struct tags and markers of k8s.io/api (core/v1, apps/v1, batch/v1)
// and k8s.io/apimachinery (meta/v1 ObjectMeta):
//   - patchStrategy / patchMergeKey tags (strategic merge patch), e.g. PodSpec.containers
//     `patchStrategy:"merge" patchMergeKey:"name"`, PodSpec.volumes
//     `patchStrategy:"merge,retainKeys" patchMergeKey:"name"`, ObjectMeta.finalizers
//     `patchStrategy:"merge"` (a merged list of primitives), NodeSpec.podCIDRs likewise;
//   - +listType / +listMapKey / +mapType markers (server-side apply): keyed lists ("map"),
//     sets of primitives ("set") and atomic lists and maps. A list with no marker is atomic,
//     as in the OpenAPI schema kube-apiserver builds; a map with no marker is granular.
//
// Types are named after the Go structs ("PodSpec", "Container", ...). Types and fields that
// are not in the table are "unknown": maps are merged key by key, lists are replaced whole
// (strategic merge patch) or owned as one atomic value (server-side apply). That is exactly
// what the real tags say for the fields not listed (tolerations, node spec.taints, command,
// args, ...), so only the fields with a strategy or a list marker need rows.
//
// Every kind has ObjectMeta under "metadata", so finalizers and ownerReferences merge for any
// kind (kube-apiserver has no strategic merge patch for custom resources at all; for
// unlisted built-in kinds this is what their ObjectMeta tags say).
//
// Kinds with a full row set: v1 Pod, Node, PodTemplate, Service, ReplicationController,
// PersistentVolume; apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job,
// CronJob; storage.k8s.io/v1 StorageClass, CSIDriver, CSINode, CSIStorageCapacity. Their pod
// templates share PodSpec.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tidepool::apiserver::patch::schema {

// Server-side apply semantics of a field (+listType, +mapType, +structType markers).
enum class Shape : unsigned char {
  kDefault,  // maps: merged key by key; lists: atomic (no +listType marker).
  kAtomic,   // +mapType=atomic / +listType=atomic: owned and replaced as one value.
  kSet,      // +listType=set: a list of primitives, each value owned separately ("v:").
  kMap,      // +listType=map: list items identified by `keys` ("k:{...}").
};

struct ListKey {
  std::string name;
  // JSON text of the value used when an item omits the key (the OpenAPI default, e.g. a
  // container port's protocol "TCP"); empty when the key is required.
  std::string default_json;
};

struct Field {
  // Struct type of the field's value, or of each list element; "" when unknown.
  std::string type;
  // The Go `patchStrategy` tag, verbatim ("", "merge", "retainKeys", "merge,retainKeys").
  std::string patch_strategy;
  // The Go `patchMergeKey` tag; "" for merged lists of primitives.
  std::string patch_merge_key;
  Shape shape = Shape::kDefault;
  // For kMap: the +listMapKey fields in declaration order.
  std::vector<ListKey> keys;

  // True when patch_strategy lists "merge" (retainKeys only adds the $retainKeys directive).
  bool MergeList() const;
};

// The struct type of an object of this apiVersion/kind: "Pod", "Node", "Workload", ...;
// "Object" (only ObjectMeta known) for any other kind.
std::string_view RootType(std::string_view api_version, std::string_view kind);

// JSON text of an empty object of a root type as Go encodes it: the fields without
// `omitempty` are present, e.g. a Pod's spec.containers is null and a Deployment's
// spec.template is an object. kube's field manager compares a created object against this
// value, which decides where FieldsV1 carries "." (f:containers has none, f:volumes has one).
// Every type has "metadata":{}; status is left out (never owned by main-resource writes).
std::string_view ZeroObjectJson(std::string_view root_type);

// Metadata of `field` in struct `type`. Unknown types or fields give a default Field (no
// strategy, unknown type, kDefault). The reference stays valid for the program's lifetime.
const Field& LookupField(std::string_view type, std::string_view field);

}  // namespace tidepool::apiserver::patch::schema
