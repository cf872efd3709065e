#include "apiserver/resources.h"

#include <string_view>
#include <tuple>
#include <utility>

namespace tidepool::apiserver {
namespace {

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};

Resource Make(std::string group, std::string resource, std::string singular, std::string kind,
              bool namespaced, std::vector<std::string> short_names = {},
              std::vector<std::string> categories = {}) {
  Resource r;
  r.group = std::move(group);
  r.version = "v1";
  r.resource = std::move(resource);
  r.singular = std::move(singular);
  r.list_kind = kind + "List";
  r.kind = std::move(kind);
  r.namespaced = namespaced;
  r.verbs = kAllVerbs;
  r.short_names = std::move(short_names);
  r.categories = std::move(categories);
  return r;
}

Subresource Status(const Resource& r) {
  return {"status", r.group, r.version, r.kind, {"get", "patch", "update"}};
}

std::vector<Resource> Build() {
  std::vector<Resource> v;
  // core/v1, in the order kube-apiserver lists them.
  {
    // Deprecated since 1.19, still served (handlers/component_statuses.cc): never stored.
    Resource r = Make("", "componentstatuses", "componentstatus", "ComponentStatus", false, {"cs"});
    r.verbs = {"get", "list"};
    r.stored = false;
    v.push_back(r);
  }
  v.push_back(Make("", "configmaps", "configmap", "ConfigMap", true, {"cm"}));
  v.push_back(Make("", "endpoints", "endpoints", "Endpoints", true, {"ep"}));
  {
    Resource r = Make("", "events", "event", "Event", true, {"ev"});
    v.push_back(r);
  }
  v.push_back(Make("", "limitranges", "limitrange", "LimitRange", true, {"limits"}));
  {
    Resource r = Make("", "namespaces", "namespace", "Namespace", false, {"ns"});
    r.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
    r.subresources = {{"finalize", "", "v1", "Namespace", {"update"}}, Status(r)};
    v.push_back(r);
  }
  {
    Resource r = Make("", "nodes", "node", "Node", false, {"no"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  {
    Resource r = Make("", "persistentvolumeclaims", "persistentvolumeclaim",
                      "PersistentVolumeClaim", true, {"pvc"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  {
    Resource r =
        Make("", "persistentvolumes", "persistentvolume", "PersistentVolume", false, {"pv"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  {
    Resource r = Make("", "pods", "pod", "Pod", true, {"po"}, {"all"});
    r.subresources = {
        {"binding", "", "v1", "Binding", {"create"}},
        {"eviction", "policy", "v1", "Eviction", {"create"}},
        {"log", "", "v1", "Pod", {"get"}},
        Status(r),
    };
    v.push_back(r);
  }
  v.push_back(Make("", "podtemplates", "podtemplate", "PodTemplate", true));
  {
    Resource r = Make("", "replicationcontrollers", "replicationcontroller",
                      "ReplicationController", true, {"rc"}, {"all"});
    r.subresources = {{"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}},
                      Status(r)};
    v.push_back(r);
  }
  {
    Resource r = Make("", "resourcequotas", "resourcequota", "ResourceQuota", true, {"quota"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  v.push_back(Make("", "secrets", "secret", "Secret", true));
  {
    Resource r = Make("", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"});
    r.subresources = {{"token", "authentication.k8s.io", "v1", "TokenRequest", {"create"}}};
    v.push_back(r);
  }
  {
    Resource r = Make("", "services", "service", "Service", true, {"svc"}, {"all"});
    r.verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  // apps/v1 (ControllerRevisions: the DaemonSet and StatefulSet controllers' history).
  v.push_back(
      Make("apps", "controllerrevisions", "controllerrevision", "ControllerRevision", true));
  struct AppsKind {
    const char* resource;
    const char* singular;
    const char* kind;
    const char* short_name;
  };
  for (const AppsKind& a : {AppsKind{"daemonsets", "daemonset", "DaemonSet", "ds"},
                            AppsKind{"deployments", "deployment", "Deployment", "deploy"},
                            AppsKind{"replicasets", "replicaset", "ReplicaSet", "rs"},
                            AppsKind{"statefulsets", "statefulset", "StatefulSet", "sts"}}) {
    Resource r = Make("apps", a.resource, a.singular, a.kind, true, {a.short_name}, {"all"});
    r.subresources = {Status(r)};
    if (std::string_view(a.kind) != "DaemonSet") {
      r.subresources.insert(r.subresources.begin(),
                            {"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}});
    }
    v.push_back(r);
  }
  // authentication.k8s.io and authorization.k8s.io: reviews, answered and never stored.
  auto review = [](std::string group, std::string resource, std::string kind, bool namespaced) {
    std::string singular = resource.substr(0, resource.size() - 1);
    Resource r = Make(std::move(group), std::move(resource), std::move(singular), std::move(kind),
                      namespaced);
    r.verbs = {"create"};
    return r;
  };
  v.push_back(review("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", false));
  v.push_back(review("authentication.k8s.io", "tokenreviews", "TokenReview", false));
  v.push_back(review("authorization.k8s.io", "localsubjectaccessreviews",
                     "LocalSubjectAccessReview", true));
  v.push_back(
      review("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false));
  v.push_back(
      review("authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false));
  v.push_back(review("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false));
  // autoscaling: v2 (the storage and preferred version) and v1, one object for both.
  for (const char* version : {"v2", "v1"}) {
    Resource r = Make("autoscaling", "horizontalpodautoscalers", "horizontalpodautoscaler",
                      "HorizontalPodAutoscaler", true, {"hpa"}, {"all"});
    r.version = version;
    if (r.version != "v2") r.storage_version = "v2";
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  {
    Resource r = Make("batch", "cronjobs", "cronjob", "CronJob", true, {"cj"}, {"all"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  {
    Resource r = Make("batch", "jobs", "job", "Job", true, {}, {"all"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  // certificates.k8s.io/v1: CertificateSigningRequests, approved or denied through their
  // approval subresource (certificates/csr.h); nothing signs them.
  {
    Resource r = Make("certificates.k8s.io", "certificatesigningrequests",
                      "certificatesigningrequest", "CertificateSigningRequest", false, {"csr"});
    Subresource approval = Status(r);
    approval.name = "approval";
    r.subresources = {approval, Status(r)};
    v.push_back(r);
  }
  // networking.k8s.io/v1: Ingresses and IngressClasses (stored, validated and printed; no
  // ingress controller programs anything - as a cluster without one).
  v.push_back(Make("networking.k8s.io", "ingressclasses", "ingressclass", "IngressClass", false));
  {
    Resource r = Make("networking.k8s.io", "ingresses", "ingress", "Ingress", true, {"ing"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  v.push_back(Make("coordination.k8s.io", "leases", "lease", "Lease", true));
  // discovery.k8s.io/v1: EndpointSlices (kcm's endpointslice controller writes those of
  // selecting Services).
  v.push_back(Make("discovery.k8s.io", "endpointslices", "endpointslice", "EndpointSlice", true));
  {
    // One store for both Event APIs, in core's form, as kube-apiserver keeps them: an event
    // written through either is read through both.
    Resource r = Make("events.k8s.io", "events", "event", "Event", true, {"ev"});
    r.storage_group = "";
    r.storage_version = "v1";
    v.push_back(r);
  }
  {
    Resource r = Make("policy", "poddisruptionbudgets", "poddisruptionbudget",
                      "PodDisruptionBudget", true, {"pdb"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  v.push_back(Make("rbac.authorization.k8s.io", "clusterrolebindings", "clusterrolebinding",
                   "ClusterRoleBinding", false));
  v.push_back(
      Make("rbac.authorization.k8s.io", "clusterroles", "clusterrole", "ClusterRole", false));
  v.push_back(
      Make("rbac.authorization.k8s.io", "rolebindings", "rolebinding", "RoleBinding", true));
  v.push_back(Make("rbac.authorization.k8s.io", "roles", "role", "Role", true));
  // storage.k8s.io/v1, less volumeattachments (not served).
  v.push_back(Make("storage.k8s.io", "csidrivers", "csidriver", "CSIDriver", false));
  v.push_back(Make("storage.k8s.io", "csinodes", "csinode", "CSINode", false));
  v.push_back(Make("storage.k8s.io", "csistoragecapacities", "csistoragecapacity",
                   "CSIStorageCapacity", true));
  v.push_back(
      Make("storage.k8s.io", "storageclasses", "storageclass", "StorageClass", false, {"sc"}));
  // apiextensions.k8s.io/v1: the definitions of the custom resources (crd/registry.h).
  {
    Resource r =
        Make("apiextensions.k8s.io", "customresourcedefinitions", "customresourcedefinition",
             "CustomResourceDefinition", false, {"crd", "crds"}, {"api-extensions"});
    r.subresources = {Status(r)};
    v.push_back(r);
  }
  // metrics.k8s.io/v1beta1, as metrics-server serves it (handlers/metrics.cc): never stored.
  for (const auto& [resource, kind, namespaced] :
       {std::tuple{"nodes", "NodeMetrics", false}, std::tuple{"pods", "PodMetrics", true}}) {
    Resource r = Make("metrics.k8s.io", resource, "", kind, namespaced);
    r.version = "v1beta1";
    r.verbs = {"get", "list"};
    r.stored = false;
    v.push_back(r);
  }
  v.push_back(Make("scheduling.k8s.io", "priorityclasses", "priorityclass", "PriorityClass",
                   false, {"pc"}));
  return v;
}

}  // namespace

const std::vector<Resource>& Resources() {
  static const std::vector<Resource> kResources = Build();
  return kResources;
}

const Resource* FindResource(std::string_view group, std::string_view version,
                             std::string_view resource) {
  for (const Resource& r : Resources()) {
    if (r.group == group && r.version == version && r.resource == resource) return &r;
  }
  return nullptr;
}

const Resource& StorageOf(const Resource& r) {
  if (r.custom_storage != nullptr) return *r.custom_storage;
  if (r.storage_version.empty()) return r;
  const Resource* s =
      FindResource(r.storage_group.value_or(r.group), r.storage_version, r.resource);
  return s != nullptr ? *s : r;
}

const Resource* FindResourceByKind(std::string_view api_version, std::string_view kind) {
  for (const Resource& r : Resources()) {
    if (r.GroupVersion() == api_version && r.kind == kind) return &r;
  }
  return nullptr;
}

const std::vector<Resource>& InternalResources() {
  static const std::vector<Resource> kInternal = [] {
    std::vector<Resource> v;
    const std::string group(kInternalCloudGroup);
    for (const auto& [plural, kind] :
         {std::pair{"clusters", "ClusterRecord"}, std::pair{"computeoperations", "ComputeOperationRecord"},
          std::pair{"instances", "InstanceRecord"}, std::pair{"nodepools", "NodePoolRecord"},
          std::pair{"nodepooltaints", "NodePoolTaintsRecord"},
          std::pair{"operations", "OperationRecord"}}) {
      Resource r = Make(group, plural, kind, kind, /*namespaced=*/false);
      r.singular = r.resource;
      r.verbs.clear();  // never served
      v.push_back(std::move(r));
    }
    return v;
  }();
  return kInternal;
}

const Resource* FindInternalResource(std::string_view group, std::string_view resource) {
  for (const Resource& r : InternalResources()) {
    if (r.group == group && r.resource == resource) return &r;
  }
  return nullptr;
}

const Resource* FindStoredResource(std::string_view group, std::string_view version,
                                   std::string_view resource) {
  if (const Resource* r = FindResource(group, version, resource)) return r;
  return version == "v1" ? FindInternalResource(group, resource) : nullptr;
}

}  // namespace tidepool::apiserver
