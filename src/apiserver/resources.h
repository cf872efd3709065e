// File: resources.h
//
// The API server's resource registry: every resource tidepool up serves, with what discovery,
// OpenAPI, the REST handlers, printers and storage need to know about it. One table
// (Resources()) is the single source; discovery documents and OpenAPI paths are generated from
// it, and a request for anything not in it is a 404.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::apiserver {

namespace crd {
struct ServedVersion;  // crd/registry.h
}

struct Subresource {
  std::string name;  // "status", "log", "eviction", "binding"
  // responseKind of the subresource (aggregated discovery) / kind in APIResourceList.
  std::string group;
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
};

struct Resource {
  std::string group;     // "" for core
  std::string version;   // "v1"
  std::string resource;  // plural: "pods"
  std::string singular;  // "pod"
  std::string kind;      // "Pod"
  std::string list_kind;  // "PodList"
  bool namespaced = true;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<Subresource> subresources;
  // False for a resource its handler computes and never stores (componentstatuses,
  // metrics.k8s.io's): its discovery entry has no storageVersionHash.
  bool stored = true;
  // The version its objects are stored in, when another version of the same resource is the
  // storage version (autoscaling/v1 horizontalpodautoscalers: "v2"); empty when this is it.
  // The store keeps one object for both (StorageOf); conversion.h converts between them.
  std::string storage_version;
  // The group of that version when it is another group's (events.k8s.io/v1 events are kept as
  // core v1 events, kube's cohabiting resources): set with storage_version.
  std::optional<std::string> storage_group;
  // A resource a CustomResourceDefinition defines (crd/registry.h): its schema, printer
  // columns and subresources, and the Resource of its storage version (itself when this is
  // it). Null for the built-in resources.
  std::shared_ptr<const crd::ServedVersion> custom;
  const Resource* custom_storage = nullptr;

  // "v1" or "apps/v1".
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
};

// Every served resource, core first, then groups in the order discovery lists them.
const std::vector<Resource>& Resources();

// nullptr when not served.
const Resource* FindResource(std::string_view group, std::string_view version,
                             std::string_view resource);
// `r`'s storage resource: `r` itself unless r.storage_version names another version (of a
// custom resource: r.custom_storage).
const Resource& StorageOf(const Resource& r);
// By kind, for a manifest's apiVersion + kind ("apps/v1", "Deployment"). nullptr when not served.
const Resource* FindResourceByKind(std::string_view api_version, std::string_view kind);

// Resources the object store keeps but the API server never serves (no discovery, no REST
// path, FindResource does not know them): the emulated cloud's own state (group
// kInternalCloudGroup: nodepools, instances, operations, clusters, ...; cloud/cloud_journal.h),
// kept in the same store and storage as the Kubernetes objects so that both are written in one
// revision order.
inline constexpr std::string_view kInternalCloudGroup = "cloud.internal.tidepool";
const std::vector<Resource>& InternalResources();
// An internal resource of `group` named `resource`; nullptr when there is none.
const Resource* FindInternalResource(std::string_view group, std::string_view resource);
// What storage may hold: a served resource (FindResource) or an internal one.
const Resource* FindStoredResource(std::string_view group, std::string_view version,
                                   std::string_view resource);

}  // namespace tidepool::apiserver
