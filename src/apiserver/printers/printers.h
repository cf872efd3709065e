// File: printers.h
//
// Server-side printing: the meta.k8s.io/v1 Table that kube-apiserver returns when a client asks
// for `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (every human-readable `kubectl get`,
// `-o wide` and `-w`). The columns and cell formats are those of kube-apiserver 1.32's
// pkg/printers/internalversion/printers.go; resources without a printer there get apiserver's
// default table convertor (rest.NewDefaultTableConvertor: "Name" + "Created At").
//
// Inputs are objects as stored: full Kubernetes v1 JSON (kind, apiVersion, metadata, spec,
// status), never decoded into typed structs. Reading is lenient: a missing field, or a field of
// the wrong JSON type, reads as Go's zero value, so a malformed object prints the way
// kube-apiserver prints the zero value ("<unknown>" age for a missing creationTimestamp, "<none>"
// IP, "" phase, 0 counts). Where the real server would have applied API defaulting before printing
// (Deployment/ReplicaSet/StatefulSet spec.replicas = 1, Service spec.type = ClusterIP,
// ServicePort protocol = TCP, PriorityClass preemptionPolicy = PreemptLowerPriority, PVC and
// PV volumeMode = Filesystem, PV persistentVolumeReclaimPolicy = Retain, ReplicationController
// spec.replicas = 1, StorageClass reclaimPolicy = Delete and volumeBindingMode = Immediate,
// CSIDriver attachRequired = true), a missing field is printed as that default. Quantities
// are printed as stored for PVCs, canonical (Quantity.String()) for PV and CSIStorageCapacity
// capacities. Nothing here throws, and nothing reads the clock: ages are computed
// against the `now` argument.
//
// Cells are always computed for every column, including priority-1 ("wide") ones: the real
// apiserver generates tables with GenerateOptions{Wide: true} and kubectl hides priority>0
// columns unless `-o wide`. Cells are JSON strings, integers or booleans, as in printers.go.
//
// Resources with a printer (group "" is core):
//   core: pods, nodes, events, namespaces, componentstatuses, configmaps, secrets,
//         serviceaccounts, services,
//         endpoints, persistentvolumeclaims, persistentvolumes, replicationcontrollers
//   apps: deployments, daemonsets, replicasets, statefulsets        batch: jobs
//   coordination.k8s.io: leases                       policy: poddisruptionbudgets
//   rbac.authorization.k8s.io: rolebindings, clusterrolebindings
//   scheduling.k8s.io: priorityclasses                events.k8s.io: events
//   storage.k8s.io: storageclasses, csidrivers, csinodes, csistoragecapacities
// (rbac roles and clusterroles have no printer in 1.32: they use the default convertor.)
//
// Thread-safety: every function is pure and may be called concurrently.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"

namespace tidepool::apiserver::printers {

// meta.k8s.io/v1 TableColumnDefinition.
struct Column {
  std::string name;         // "Name", "Ready", "Created At"
  std::string type;         // OpenAPI type: "string", "integer", "boolean", "date"
  std::string format;       // "name" for the object-name column, else ""
  std::string description;  // human-readable; not shown by kubectl
  int priority = 0;         // 0 = always shown, 1 = `-o wide` only
};

// The column definitions for `resource` (plural, lower case) in API group `group` ("" for core).
// A resource without a printer gets the default convertor's
//   [{Name, string, name}, {Created At, date}].
// The returned reference stays valid for the life of the program.
const std::vector<Column>& ColumnsFor(std::string_view group, std::string_view resource);

// The cells of one row for `object` (one per column of ColumnsFor(group, resource), priority>0
// included), as a JSON array of strings, integers and booleans. Ages are relative to `now`.
// Never fails: a non-object `object` prints as an object with every field missing.
nlohmann::json Cells(std::string_view group, std::string_view resource,
                     const nlohmann::json& object, TimePoint now);

// What each row carries in "object" (the `includeObject` query parameter).
enum class IncludeObject {
  kNone,      // "object": null
  kMetadata,  // PartialObjectMetadata (the default; feeds kubectl's -A NAMESPACE column and
              // --show-labels)
  kObject,    // the object itself, unchanged
};

// A whole meta.k8s.io/v1 Table:
//   {"kind":"Table","apiVersion":"meta.k8s.io/v1",
//    "metadata":{"resourceVersion":rv},            (rv omitted when empty, as ListMeta omitempty)
//    "columnDefinitions":[{name,type,format,description,priority}...] or null (!with_headers),
//    "rows":[{"cells":[...], "object":...}, ...]}   (always an array, possibly empty)
// PartialObjectMetadata is
//   {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":<object.metadata>}.
// Pod rows of a Succeeded or Failed pod also carry printers.go's row condition
// ({"type":"Completed","status":"True","reason":"Succeeded"|"Failed","message":...}).
// REQUIRES: no element of `objects` is null.
nlohmann::json BuildTable(std::string_view group, std::string_view resource,
                          const std::vector<const nlohmann::json*>& objects,
                          std::string_view resource_version, TimePoint now, IncludeObject include,
                          bool with_headers);

// One object for BuildTableText: its JSON, from which the cells are computed, and, when the
// caller has it, its compact JSON text exactly as `value.dump(-1, ' ', false,
// error_handler_t::replace)` writes it (the store keeps every object so), from which the row's
// "object" is sliced instead of copied. An empty `text` means: write it from `value`.
struct TableObject {
  const nlohmann::json* value = nullptr;
  std::string_view text;
};

// BuildTable's result as compact JSON text, byte-identical to
// BuildTable(...).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), without
// building the table as a JSON tree: each row's PartialObjectMetadata (or object) is copied
// from `text` once, not deep-copied and then serialized. This is what the API server sends:
// `kubectl get pods -A` on 100,000 pods is one such table.
// A page of a list (apiserver/list_paging.h) carries its `continue_token` and
// `remaining_items` in the table's metadata, as kube copies the list's ListMeta.
// REQUIRES: no element's `value` is null.
std::string BuildTableText(std::string_view group, std::string_view resource,
                           const std::vector<TableObject>& objects,
                           std::string_view resource_version, TimePoint now, IncludeObject include,
                           bool with_headers, std::string_view continue_token = "",
                           std::optional<int64_t> remaining_items = std::nullopt);

// A printer decided at run time: a custom resource's columns (crd/printer.h). `cells` gives one
// row's cells, one per column, and must not throw.
struct DynamicPrinter {
  std::vector<Column> columns;
  std::function<nlohmann::json(const nlohmann::json& object, TimePoint now)> cells;
};
// BuildTableText with `printer`'s columns and cells.
std::string BuildTableText(const DynamicPrinter& printer, const std::vector<TableObject>& objects,
                           std::string_view resource_version, TimePoint now, IncludeObject include,
                           bool with_headers, std::string_view continue_token = "",
                           std::optional<int64_t> remaining_items = std::nullopt);

// apimachinery's duration.HumanDuration, exactly: ~2-3 significant figures. Whole seconds are
// truncated toward zero first; d <= -2s is "<invalid>", -2s < d < 1s is "0s"; then "119s",
// "2m", "9m59s", "10m", "179m", "3h", "7h59m", "8h", "47h", "2d", "7d23h", "8d", "729d", "2y",
// "2y1d", "7y364d", "8y".
std::string HumanDuration(Duration d);

}  // namespace tidepool::apiserver::printers
