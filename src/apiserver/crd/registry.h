// File: crd/registry.h
//
// The custom resources the API server serves, read from the CustomResourceDefinitions in the
// object store (apiextensions.k8s.io/v1), as apiextensions-apiserver's crdHandler serves them:
//   - every served version of every definition is a Resource (resources.h) with its discovery
//     names (plural, singular, kind, listKind, shortNames, categories, scope), the status
//     subresource when the version declares it, and a ServedVersion: its structural schema
//     (pruning, defaulting, validation: structural.h), its table (additionalPrinterColumns,
//     or the default Age column) and its OpenAPI v3 component;
//   - a version that is not the storage version is stored in it (Resource::custom_storage),
//     converted by apiVersion alone (conversion strategy None);
//   - a definition's deletion (BeginDeletion: deletionTimestamp, the
//     customresourcecleanup.apiextensions.k8s.io finalizer and a Terminating condition, as
//     the definitions' registry does) has its custom resources deleted, then its finalizer
//     removed, as the apiextensions finalizer controller does; the store then removes it. A
//     definition removed from the store by other means takes its resources with it too.
// One-way: the registry is an informer of the definitions (an unbounded watch of the store,
// drained on every lookup, so a definition a client just wrote is served on its next request)
// and writes only through the store (the cleanup). It never calls into the handlers.
//
// Resource values are interned: a definition's change makes new ones, and the old ones stay
// valid (requests in flight hold them); an identical definition reuses them. The store keeps
// one shard per group/resource, whatever the Resource value (object_store.h).
//
// Thread-safe: lookups come from every connection thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/crd/structural.h"
#include "apiserver/object_store.h"
#include "apiserver/printers/printers.h"
#include "apiserver/resources.h"

namespace tidepool::apiserver::crd {

inline constexpr char kCleanupFinalizer[] = "customresourcecleanup.apiextensions.k8s.io";

// One served version of a definition: what admission, tables and OpenAPI read.
struct ServedVersion {
  std::string crd_name;                  // "provisioningrequests.autoscaling.x-k8s.io"
  std::shared_ptr<const Schema> schema;  // null when the version has none
  printers::DynamicPrinter printer;      // Name, then the columns
  bool has_status = false;               // subresources.status
  // subresources.scale: where the replicas and the selector are (".spec.replicas").
  struct Scale {
    std::string spec_replicas_path;
    std::string status_replicas_path;
    std::string label_selector_path;  // may be empty
  };
  std::optional<Scale> scale;
  // The OpenAPI v3 component schema of the kind (for `kubectl explain`).
  nlohmann::json openapi;
  // A version marked `deprecated: true`: the warning every request to it gets - its
  // deprecationWarning, or apiextensions' "<group>/<version> <Kind> is deprecated".
  std::optional<std::string> deprecation_warning;
};

// The DELETE of a definition: marks it deleted (deletionTimestamp, the cleanup finalizer, the
// Terminating condition "InstanceDeletionPending") and returns it; the registry finishes the
// deletion. NotFound when there is none. Honours opts.dry_run.
StatusOr<ObjectPtr> BeginDeletion(ObjectStore& store, const std::string& name, TimePoint now,
                                  const ObjectStore::WriteOptions& opts);

// The autoscaling/v1 Scale of a custom resource (apiextensions' scale subresource): metadata
// of the object, spec.replicas from specReplicasPath (left out at 0), status.replicas from
// statusReplicasPath (0 when absent), status.selector from labelSelectorPath (a string).
nlohmann::json CustomScaleOf(const ServedVersion::Scale& scale, const nlohmann::json& object);
// Sets specReplicasPath of `object` to `replicas`.
void SetCustomReplicas(const ServedVersion::Scale& scale, nlohmann::json& object, int32_t replicas);

// The CustomResourceDefinitions resource (apiextensions.k8s.io/v1).
const Resource& DefinitionResource();

// The Resource values a definition defines, one per served version, in spec.versions order,
// plus the storage version's when it is not served. Errors when the definition is unusable
// (no storage version, a schema that does not parse): it then serves nothing.
StatusOr<std::vector<Resource>> ResourcesOf(const nlohmann::json& definition);

// The name of `r`'s OpenAPI component schema: the reversed group, the version and the kind
// ("io.x-k8s.autoscaling.v1.ProvisioningRequest").
std::string OpenApiComponentName(const Resource& r);

class Registry {
 public:
  // Opens the watch of the definitions; `store` must outlive the registry.
  explicit Registry(ObjectStore& store);
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // A served custom resource; nullptr when no definition serves it.
  const Resource* Find(std::string_view group, std::string_view version, std::string_view resource);
  const Resource* FindByKind(std::string_view api_version, std::string_view kind);
  // Every served custom resource: by group, then in each definition's version order.
  std::vector<const Resource*> Served();
  // Applies the definitions' changes now (every lookup does it first): what a request about the
  // definitions themselves calls, so a deletion's cleanup is done before it is answered.
  void Sync();
  // The storage Resource of every definition (what a namespace's deletion and the garbage
  // collector walk).
  std::vector<const Resource*> Stored();

 private:
  // Under mu_: applies the definitions' changes, then finishes the deletions they start.
  void RefreshLocked();
  void Define(const nlohmann::json& definition);
  // Deletes every object of `storage`; then, when `finalize`, removes the definition's cleanup
  // finalizer.
  void CleanUp(const std::string& name, const Resource* storage, bool finalize);
  const Resource* Intern(Resource r);

  ObjectStore& store_;
  std::mutex mu_;
  std::unique_ptr<Watch> watch_;
  struct Defined {
    std::vector<const Resource*> served;
    const Resource* storage = nullptr;
    std::string group;
    bool terminating = false;
  };
  std::map<std::string, Defined> defined_;  // by definition name
  std::map<std::string, std::unique_ptr<Resource>> interned_;
};

}  // namespace tidepool::apiserver::crd
