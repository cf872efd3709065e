// File: server_side_apply.h
//
// Server-side apply (application/apply-patch+yaml) and field ownership
// (metadata.managedFields), following kube-apiserver's field manager and
// sigs.k8s.io/structured-merge-diff (SMD) in a simplified, schema-table-driven form
// (patch_schema.h). Pure functions on JSON objects; nothing throws.
//
// Ownership. metadata.managedFields holds one entry per manager identity:
//   {"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-01-01T00:00:00Z",
//    "fieldsType":"FieldsV1","fieldsV1":{...}}       (see field_set.h for FieldsV1)
// An Apply entry is identified by (manager, subresource), an Update entry by (manager,
// apiVersion, subresource). Entries are written sorted as kube sorts them: operation
// ("Apply" before "Update"), then time (absent first; times compare as their RFC 3339 text),
// manager, apiVersion, subresource. Entries whose set is empty are dropped; no entries means no
// managedFields key. Entries that cannot be parsed are dropped.
//
// Subresources. Both functions take the subresource written ("" for the object itself); a
// write's entry carries it ("subresource": "status"), so a manager's writes to the object and
// to its status are two entries, as kube's. What a write owns is the part of the object its
// strategy lets it change (kube's reset fields): a write to status (or to a
// CertificateSigningRequest's approval) owns fields under status only, never status itself;
// the object and its other subresources (scale) own everything but status. A conflict names
// the subresource: conflict with "kubelet" with subresource "status" using v1.
//
// Field sets. A set lists the fields of the object at the granularity SMD uses: every leaf
// value; maps and structs only through their fields (an empty map, or a +mapType=atomic one,
// is a leaf); items of keyed lists (+listType=map, e.g. k:{"name":"cuda"}) and of sets
// (+listType=set, v:"x") as members with their fields below; every other list as one leaf
// (tolerations, command, node spec.taints). A keyed list whose items lack a key (or repeat
// one) is treated as atomic. Never in a set: apiVersion, kind, metadata itself,
// metadata.{name,namespace,creationTimestamp,selfLink,uid,clusterName,generation,
// managedFields,resourceVersion} (kube's strip set) and everything under status (writes to the
// main resource do not own status).
//
// ServerSideApply(live, applied, manager, force, now, conflicts):
//   `live` is the stored object, or null when it does not exist (create). `applied` is the
//   apply configuration, already parsed to JSON. Steps:
//   1. The configuration is cleaned: null members are dropped (a null never sets or owns a
//      field here), status is ignored (the live status is kept; of an apply to status,
//      everything but status is ignored, and a missing object is NotFound) and so are the
//      server-owned
//      metadata fields above other than name/namespace (the live values are kept; preconditions
//      on uid or resourceVersion are the caller's job). A non-empty
//      metadata.managedFields in `applied` is InvalidArgument
//      ("metadata.managedFields must be nil"); `applied` must be an object and `manager`
//      non-empty ("fieldManager is required for apply requests").
//   2. The configuration is merged into the live object: maps key by key, keyed lists item by
//      item (items matched by their keys, merged recursively; live-only items kept; the order
//      interleaves as SMD does: configuration order for configuration items, live order for
//      the others), sets as a union, every other value replaced. Never "replace the object":
//      a configuration with only metadata.annotations (kubectl's "kubectl-last-applied" step)
//      leaves spec alone.
//   3. Fields this manager owned by its previous Apply and that are absent from the new
//      configuration are removed from the object, unless another manager owns them or a field
//      below them (an object or list left empty by such a removal is removed too, unless
//      someone owns it).
//   4. Conflicts: a field owned by another manager (Apply or Update) that this apply adds or
//      changes to a different value is a conflict. Equal values are shared, not conflicts.
//      Without force, any conflict fails the whole apply with Aborted (HTTP 409 Conflict) whose
//      message is kube's:
//        Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1:
//        .metadata.labels.app
//      or for several (managers sorted, paths in SMD order):
//        Apply failed with 2 conflicts: conflicts with "a" using v1:\n- .spec.replicas\n- ...
//      and `*conflicts` (when not null) receives one entry per conflicting field:
//      {field ".metadata.labels.app", message "conflict with \"kubectl-client-side-apply\"
//      using v1"}, for details.causes with reason FieldManagerConflict. An Apply manager prints
//      as "\"name\"", an Update manager as "\"name\" using <apiVersion>".
//      With force, the fields are taken over: removed from the other managers' sets.
//      Upgrade from client-side apply (kube's lastAppliedManager): for manager "kubectl" only,
//      when the live object has a kubectl.kubernetes.io/last-applied-configuration annotation
//      of the same apiVersion, conflicts on fields that the annotation lists and whose live
//      values still equal it are not conflicts: if no other conflict remains the apply is
//      forced, otherwise only the remaining conflicts are reported. So `kubectl apply
//      --server-side` after `kubectl apply` succeeds even when the manifest changed, as on a
//      real cluster; any other manager name gets the conflict.
//   5. Fields the apply removed (step 3) leave every other manager's set; this manager's
//      Apply entry becomes exactly the configuration's field set, with apiVersion = the
//      configuration's apiVersion (else the live one) and time = `now` when the object changed
//      (an apply that changes nothing keeps the previous time, or has none, as kube).
//   6. For manager "kubectl", a non-empty last-applied annotation on the result is rewritten
//      to `applied` without that annotation, encoded as kubectl and kube encode it (compact
//      JSON, sorted keys, <>& escaped as \u003c..., trailing newline), and dropped when the
//      annotations would exceed 256 KiB (kube's lastAppliedUpdater). This rewrite is not an
//      ownership change.
//   The result is the merged object with metadata.managedFields updated. On a conflict
//   without force the result is the Aborted status and `live` is unchanged (it is const).
//   apiVersion, kind, name and namespace are not validated here (the caller's job).
//
// UpdateManagedFields(old, updated, manager, now): for every non-apply write (create, update,
//   patch). `old` is null on create. With an empty manager, or a non-object `updated`,
//   `updated` is returned untouched. Otherwise:
//   - the starting entries are updated.metadata.managedFields when it is a non-empty list
//     (a client may rewrite them, as kubectl's JSON patch in the apply migration does), else
//     old's;
//   - the write's changes are compared (old vs updated, without managedFields and status; on
//     create against the kind's empty typed object, patch_schema.h ZeroObjectJson, as kube
//     does: a new labels map gets "." but f:metadata, f:spec and a Pod's f:containers do not);
//   - the fields the write added or changed become this manager's (entry (manager, "Update",
//     updated apiVersion)) and leave every other manager's set, Apply entries included, as SMD
//     does; removed fields leave every set;
//   - the manager's time becomes `now` when it took any field; an entry is only created when
//     it takes a field.
//
// Simplifications versus kube-apiserver (documented, deliberate):
//   - schema knowledge is the table of patch_schema.h; unknown fields are granular maps or
//     atomic lists, and no type conversion between API versions happens;
//   - no limit on the number of Update entries (kube folds the oldest beyond 10 into
//     "ancient-changes");
//   - a null in an apply configuration is ignored (kube treats explicit nulls specially);
//   - no validation of the configuration against the schema (unknown fields are applied
//     as-is; strict field validation belongs to the caller);
//   - entries' times sort as text, which matches kube for the "YYYY-MM-DDTHH:MM:SSZ" form
//     FormatRfc3339 writes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::apiserver::patch {

// Whether writes to `subresource` change (and own) status only: status, and a
// CertificateSigningRequest's approval (whose strategy keeps all but its status, as status's).
bool IsStatusSubresource(std::string_view subresource);

struct ApplyConflict {
  std::string field;    // ".metadata.labels.app"
  std::string message;  // "conflict with \"kubectl-client-side-apply\" using v1"
};

StatusOr<nlohmann::json> ServerSideApply(const nlohmann::json& live, const nlohmann::json& applied,
                                         std::string_view manager, bool force, TimePoint now,
                                         std::vector<ApplyConflict>* conflicts,
                                         std::string_view subresource = "");

// A create (`old` null, no managedFields in `updated`) takes a shortcut that writes the entry's
// FieldsV1 as JSON text in one walk over the new object; its result is identical to the
// general path's. With `fields_v1_text`, a create's text is handed over there and the entry's
// fieldsV1 is left as {} (the store writes the text in its place, json_io::RawNode: no tree is
// built); otherwise, and for every other write, *fields_v1_text is cleared and the entry holds
// the tree.
nlohmann::json UpdateManagedFields(const nlohmann::json& old, nlohmann::json updated,
                                   std::string_view manager, TimePoint now,
                                   std::string* fields_v1_text = nullptr,
                                   std::string_view subresource = "");

// UpdateManagedFields without its shortcuts: the path every write the shortcuts do not cover
// takes, and the reference the shortcuts are tested against.
nlohmann::json UpdateManagedFieldsGeneral(const nlohmann::json& old, nlohmann::json updated,
                                          std::string_view manager, TimePoint now,
                                          std::string_view subresource = "");

}  // namespace tidepool::apiserver::patch
