// File: deletion.h
//
// Deleting one object as kube-apiserver 1.32's generic registry does (registry.Store.Delete,
// rest.BeforeDelete, deletionFinalizersForGarbageCollection, markAsDeleting; the pod strategy's
// CheckGracefulDelete). The DELETE handler, deletecollection and pods/eviction all delete
// through it (the kubelets, the controllers and the autoscaler send those requests).
//
//   - DeleteOptions are validated (ValidateDeleteOptions: orphanDependents and
//     propagationPolicy together, or a policy other than Orphan/Background/Foreground, is a 422
//     on DeleteOptions.meta.k8s.io); preconditions (uid, resourceVersion) are checked first,
//     with BeforeDelete's Conflict texts.
//   - Pods are deleted gracefully: the grace period is the request's, else the pod's
//     spec.terminationGracePeriodSeconds (30 when absent); 0 for a pod not bound to a node or in
//     a terminal phase; a negative one is 1. A pod with a positive grace period gets
//     deletionTimestamp (now + grace) and deletionGracePeriodSeconds and stays until its kubelet
//     deletes it; a later request may only shorten that (a longer or absent one changes
//     nothing, not even finalizers).
//   - The garbage collector's finalizers: propagationPolicy Orphan (or orphanDependents true)
//     puts `orphan` in metadata.finalizers, Foreground puts `foregroundDeletion`, Background
//     neither; without either option the object's own finalizers decide, then the resource's
//     DefaultGarbageCollectionPolicy (batch/v1 Jobs orphan, as kube keeps for compatibility;
//     Events support neither: their finalizers are never changed).
//   - An object left with finalizers is not removed: it gets deletionTimestamp (now, or kept
//     when earlier) and deletionGracePeriodSeconds 0, and it stays until an update empties its
//     finalizers (ObjectStore::Update removes it then). Everything else is removed at once.
//   - Dry runs write nothing and answer what would be.
//
// Not here: namespaces (the API server's namespace branch deletes their contents at once).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "apiserver/object_store.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::apiserver {

// metav1.DeleteOptions, as a request gave it.
struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::optional<std::string> propagation_policy;  // "Orphan", "Background", "Foreground"
  std::optional<bool> orphan_dependents;          // deprecated
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  bool dry_run = false;
};

// From a DeleteOptions body (already type-checked): the members it has.
DeleteOptions DeleteOptionsFromJson(const nlohmann::json& options);

// ValidateDeleteOptions' error list as kube's Invalid message names it ("" when valid):
// `DeleteOptions.meta.k8s.io "" is invalid: ...`.
std::string ValidateDeleteOptions(const DeleteOptions& options);

// The registry's rest.GarbageCollectionPolicy of a resource.
enum class GcPolicy { kDeleteDependents, kOrphanDependents, kUnsupported };
GcPolicy DefaultGarbageCollectionPolicy(const Resource& r);

// The standard finalizers (metav1.FinalizerOrphanDependents, FinalizerDeleteDependents).
inline constexpr std::string_view kOrphanFinalizer = "orphan";
inline constexpr std::string_view kForegroundFinalizer = "foregroundDeletion";

// The registry's ReturnDeletedObject: a DELETE that removes the object at once answers with
// its last state (pods, services, serviceaccounts, podtemplates, resourcequotas, persistent
// volumes and claims, and the storage.k8s.io kinds storageclasses, csidrivers, csinodes,
// volumeattachments); every other resource answers a Status (finalizeDelete).
bool ReturnsDeletedObject(const Resource& r);

struct DeleteResult {
  // The object now (still there: deleted false), or its last state (deleted true).
  ObjectPtr object;
  bool deleted = false;
};

// Deletes r/ns/name with `options` at `now` (see the file comment). Errors: NotFound,
// Aborted (409: preconditions), InvalidArgument (invalid options; ValidateDeleteOptions' text).
StatusOr<DeleteResult> DeleteObject(ObjectStore& store, const Resource& r, std::string_view ns,
                                    std::string_view name, const DeleteOptions& options,
                                    TimePoint now, const std::string& origin);

}  // namespace tidepool::apiserver
