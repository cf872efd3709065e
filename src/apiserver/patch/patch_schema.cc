#include "apiserver/patch/patch_schema.h"

#include <string>
#include <unordered_map>

namespace tidepool::apiserver::patch::schema {
namespace {

struct Row {
  std::string_view owner;     // Go struct
  std::string_view field;     // JSON field name
  std::string_view type;      // struct type of the value / list element ("" = unknown)
  std::string_view strategy;  // patchStrategy tag
  std::string_view merge_key; // patchMergeKey tag
  Shape shape;                // +listType / +mapType
  // +listMapKey fields, comma separated; "name=json" gives the OpenAPI default of a key.
  std::string_view keys;
};

constexpr Shape D = Shape::kDefault;
constexpr Shape A = Shape::kAtomic;
constexpr Shape S = Shape::kSet;
constexpr Shape M = Shape::kMap;

// THE table. Go tags verified against k8s.io/api core/v1 types.go (PodSpec, Container,
// PodStatus, NodeSpec, NodeStatus, ServiceSpec), apps/v1 (DeploymentSpec.strategy
// `patchStrategy:"retainKeys"`, *Status.conditions) and meta/v1 ObjectMeta.
constexpr Row kRows[] = {
    // Roots. "Object" is any kind not listed in kRoots.
    {"Object", "metadata", "ObjectMeta", "", "", D, ""},
    {"Pod", "metadata", "ObjectMeta", "", "", D, ""},
    {"Pod", "spec", "PodSpec", "", "", D, ""},
    {"Pod", "status", "PodStatus", "", "", D, ""},
    {"Node", "metadata", "ObjectMeta", "", "", D, ""},
    {"Node", "spec", "NodeSpec", "", "", D, ""},
    {"Node", "status", "NodeStatus", "", "", D, ""},
    {"PodTemplate", "metadata", "ObjectMeta", "", "", D, ""},
    {"PodTemplate", "template", "PodTemplateSpec", "", "", D, ""},
    {"Service", "metadata", "ObjectMeta", "", "", D, ""},
    {"Service", "spec", "ServiceSpec", "", "", D, ""},
    // Deployment, ReplicaSet, StatefulSet, DaemonSet.
    {"Workload", "metadata", "ObjectMeta", "", "", D, ""},
    {"Workload", "spec", "WorkloadSpec", "", "", D, ""},
    {"Workload", "status", "WorkloadStatus", "", "", D, ""},
    {"Job", "metadata", "ObjectMeta", "", "", D, ""},
    {"Job", "spec", "JobSpec", "", "", D, ""},
    {"CronJob", "metadata", "ObjectMeta", "", "", D, ""},
    {"CronJob", "spec", "CronJobSpec", "", "", D, ""},
    {"ReplicationController", "metadata", "ObjectMeta", "", "", D, ""},
    {"ReplicationController", "spec", "ReplicationControllerSpec", "", "", D, ""},
    {"ReplicationController", "status", "WorkloadStatus", "", "", D, ""},
    {"PersistentVolume", "metadata", "ObjectMeta", "", "", D, ""},
    {"StorageClass", "metadata", "ObjectMeta", "", "", D, ""},
    {"CSIDriver", "metadata", "ObjectMeta", "", "", D, ""},
    {"CSIDriver", "spec", "CSIDriverSpec", "", "", D, ""},
    {"CSINode", "metadata", "ObjectMeta", "", "", D, ""},
    {"CSINode", "spec", "CSINodeSpec", "", "", D, ""},
    {"CSIStorageCapacity", "metadata", "ObjectMeta", "", "", D, ""},

    // meta/v1 ObjectMeta.
    {"ObjectMeta", "finalizers", "", "merge", "", S, ""},
    {"ObjectMeta", "ownerReferences", "", "merge", "uid", M, "uid"},

    // core/v1 PodSpec.
    {"PodSpec", "volumes", "", "merge,retainKeys", "name", M, "name"},
    {"PodSpec", "initContainers", "Container", "merge", "name", M, "name"},
    {"PodSpec", "containers", "Container", "merge", "name", M, "name"},
    {"PodSpec", "ephemeralContainers", "Container", "merge", "name", M, "name"},
    {"PodSpec", "imagePullSecrets", "", "merge", "name", M, "name"},
    {"PodSpec", "hostAliases", "", "merge", "ip", M, "ip"},
    {"PodSpec", "topologySpreadConstraints", "", "merge", "topologyKey", M,
     "topologyKey,whenUnsatisfiable"},
    {"PodSpec", "schedulingGates", "", "merge", "name", M, "name"},
    {"PodSpec", "resourceClaims", "", "merge,retainKeys", "name", M, "name"},
    {"PodSpec", "nodeSelector", "", "", "", A, ""},
    // core/v1 Container (and EphemeralContainerCommon, which has the same tags).
    {"Container", "ports", "", "merge", "containerPort", M, "containerPort,protocol=\"TCP\""},
    {"Container", "env", "", "merge", "name", M, "name"},
    {"Container", "volumeMounts", "", "merge", "mountPath", M, "mountPath"},
    {"Container", "volumeDevices", "", "merge", "devicePath", M, "devicePath"},
    // core/v1 PodStatus.
    {"PodStatus", "conditions", "", "merge", "type", M, "type"},
    {"PodStatus", "podIPs", "", "merge", "ip", M, "ip"},
    {"PodStatus", "hostIPs", "", "merge", "ip", M, "ip"},
    {"PodStatus", "resourceClaimStatuses", "", "merge,retainKeys", "name", M, "name"},
    // core/v1 PodTemplateSpec.
    {"PodTemplateSpec", "metadata", "ObjectMeta", "", "", D, ""},
    {"PodTemplateSpec", "spec", "PodSpec", "", "", D, ""},
    // core/v1 NodeSpec, NodeStatus. spec.taints has no tag: replaced whole.
    {"NodeSpec", "podCIDRs", "", "merge", "", S, ""},
    {"NodeStatus", "conditions", "", "merge", "type", M, "type"},
    {"NodeStatus", "addresses", "", "merge", "type", M, "type"},
    // core/v1 ServiceSpec.
    {"ServiceSpec", "ports", "", "merge", "port", M, "port,protocol=\"TCP\""},
    // apps/v1 DeploymentSpec (strategy) and the other workload specs (template).
    {"WorkloadSpec", "template", "PodTemplateSpec", "", "", D, ""},
    {"WorkloadSpec", "strategy", "", "retainKeys", "", D, ""},
    {"WorkloadStatus", "conditions", "", "merge", "type", M, "type"},
    // batch/v1.
    {"JobSpec", "template", "PodTemplateSpec", "", "", D, ""},
    {"CronJobSpec", "jobTemplate", "JobTemplateSpec", "", "", D, ""},
    {"JobTemplateSpec", "metadata", "ObjectMeta", "", "", D, ""},
    {"JobTemplateSpec", "spec", "JobSpec", "", "", D, ""},
    // core/v1 ReplicationControllerSpec (its status conditions are WorkloadStatus's).
    {"ReplicationControllerSpec", "selector", "", "", "", A, ""},
    {"ReplicationControllerSpec", "template", "PodTemplateSpec", "", "", D, ""},
    // storage.k8s.io/v1 (StorageClass mountOptions / allowedTopologies, CSIDriver
    // tokenRequests and CSINodeDriver topologyKeys are atomic lists: no rows).
    {"CSIDriverSpec", "volumeLifecycleModes", "", "", "", S, ""},
    {"CSINodeSpec", "drivers", "", "merge", "name", M, "name"},
};

struct RootRow {
  std::string_view api_version;
  std::string_view kind;
  std::string_view type;
};

constexpr RootRow kRoots[] = {
    {"v1", "Pod", "Pod"},
    {"v1", "Node", "Node"},
    {"v1", "PodTemplate", "PodTemplate"},
    {"v1", "Service", "Service"},
    {"apps/v1", "Deployment", "Workload"},
    {"apps/v1", "ReplicaSet", "Workload"},
    {"apps/v1", "StatefulSet", "Workload"},
    {"apps/v1", "DaemonSet", "Workload"},
    {"batch/v1", "Job", "Job"},
    {"batch/v1", "CronJob", "CronJob"},
    {"v1", "ReplicationController", "ReplicationController"},
    {"v1", "PersistentVolume", "PersistentVolume"},
    {"storage.k8s.io/v1", "StorageClass", "StorageClass"},
    {"storage.k8s.io/v1", "CSIDriver", "CSIDriver"},
    {"storage.k8s.io/v1", "CSINode", "CSINode"},
    {"storage.k8s.io/v1", "CSIStorageCapacity", "CSIStorageCapacity"},
};

struct ZeroRow {
  std::string_view type;
  std::string_view json;
};

// Go's encoding of the zero value of each root type (metadata and the fields without
// omitempty: PodSpec.containers, *Spec.selector, *Spec.template).
constexpr ZeroRow kZeroObjects[] = {
    {"Pod", R"({"metadata":{},"spec":{"containers":null}})"},
    {"Node", R"({"metadata":{},"spec":{}})"},
    {"Service", R"({"metadata":{},"spec":{}})"},
    {"PodTemplate", R"({"metadata":{},"template":{"metadata":{},"spec":{"containers":null}}})"},
    {"Workload",
     R"({"metadata":{},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}}}})"},
    {"Job", R"({"metadata":{},"spec":{"template":{"metadata":{},"spec":{"containers":null}}}})"},
    {"CronJob",
     R"({"metadata":{},"spec":{"jobTemplate":{"metadata":{},"spec":{"template":{"metadata":{},"spec":{"containers":null}}}}}})"},
    {"ReplicationController", R"({"metadata":{},"spec":{}})"},
    {"PersistentVolume", R"({"metadata":{},"spec":{}})"},
    {"StorageClass", R"({"metadata":{},"provisioner":""})"},
    {"CSIDriver", R"({"metadata":{},"spec":{}})"},
    {"CSINode", R"({"metadata":{},"spec":{"drivers":null}})"},
    {"CSIStorageCapacity", R"({"metadata":{},"storageClassName":""})"},
};

std::vector<ListKey> ParseKeys(std::string_view keys) {
  std::vector<ListKey> out;
  while (!keys.empty()) {
    size_t comma = keys.find(',');
    std::string_view one = keys.substr(0, comma);
    keys = comma == std::string_view::npos ? std::string_view() : keys.substr(comma + 1);
    size_t eq = one.find('=');
    ListKey key;
    key.name = std::string(one.substr(0, eq));
    if (eq != std::string_view::npos) key.default_json = std::string(one.substr(eq + 1));
    out.push_back(std::move(key));
  }
  return out;
}

const std::unordered_map<std::string, Field>& Table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, Field>();
    for (const Row& r : kRows) {
      Field f;
      f.type = std::string(r.type);
      f.patch_strategy = std::string(r.strategy);
      f.patch_merge_key = std::string(r.merge_key);
      f.shape = r.shape;
      f.keys = ParseKeys(r.keys);
      (*t)[std::string(r.owner) + "." + std::string(r.field)] = std::move(f);
    }
    return t;
  }();
  return *table;
}

}  // namespace

bool Field::MergeList() const {
  std::string_view s = patch_strategy;
  while (!s.empty()) {
    size_t comma = s.find(',');
    if (s.substr(0, comma) == "merge") return true;
    if (comma == std::string_view::npos) break;
    s = s.substr(comma + 1);
  }
  return false;
}

std::string_view RootType(std::string_view api_version, std::string_view kind) {
  for (const RootRow& r : kRoots) {
    if (r.api_version == api_version && r.kind == kind) return r.type;
  }
  return "Object";
}

std::string_view ZeroObjectJson(std::string_view root_type) {
  for (const ZeroRow& r : kZeroObjects) {
    if (r.type == root_type) return r.json;
  }
  return R"({"metadata":{}})";
}

const Field& LookupField(std::string_view type, std::string_view field) {
  static const Field kUnknown;
  if (type.empty()) return kUnknown;
  const auto& table = Table();
  thread_local std::string key;  // reused: no allocation per lookup
  key.assign(type).append(".").append(field);
  auto it = table.find(key);
  return it == table.end() ? kUnknown : it->second;
}

}  // namespace tidepool::apiserver::patch::schema
