// File: json_codec.h
//
// JSON <-> api objects, with Kubernetes v1 field names. With yaml.h, this is the only code that
// touches the JSON library; callers hold nlohmann::json values but never need json.hpp's
// exceptions: nothing here throws.
//
// Decoding (PodFromJson, NodeFromJson) is lenient in the ways the Kubernetes API machinery's
// non-strict decoding is, and strict about types:
//   - Unknown fields are IGNORED (e.g. the seed walkthrough's `important:` in a toleration).
//     Strict field validation ("unknown field ...") belongs to a later layer that sees the
//     whole object; it must not rely on this codec for it.
//   - A null value, like a missing field, leaves the field at its default.
//   - "apiVersion" and "kind", when present, must be "v1" and "Pod" / "Node".
//   - A value of the wrong JSON type is InvalidArgument naming the field path:
//     "spec.containers: expected array, got string". Integer fields accept integral numbers
//     only ("spec.priority: expected integer, got number 1.5"; 30.0 is accepted, as it is when
//     sigs.k8s.io/yaml converts YAML) and must fit their C++ type.
//   - Quantities (resources, overhead, capacity, allocatable) may be strings ("500m", "1Gi") or
//     numbers (1, 0.5), as Quantity.UnmarshalJSON accepts; an invalid one fails with the path
//     and apimachinery's text: "spec.containers[0].resources.limits[nvidia.com/gpu]:
//     quantities must match the regular expression ...". A non-integral number goes through a
//     double, so more than 17 significant digits are not exact; write such values as strings.
//   - Enumerations are parsed strictly: an unknown toleration operator, taint effect, selector
//     operator, pod phase or condition status is InvalidArgument. A toleration operator ""
//     means Equal; an empty taint or toleration effect is TaintEffect::kNone. An absent
//     condition status is Unknown; an absent phase is Pending.
//   - schedulerName and restartPolicy that are absent or "" get the API server's defaults
//     ("default-scheduler", "Always"), as in PodSpec's model. No other defaulting happens here
//     (see ApplyPodDefaults).
//   - Timestamps are RFC 3339 ("2026-01-01T00:00:00Z", "2026-01-01T09:00:00+09:00"); a
//     fraction of a second is accepted and dropped, since metav1.Time has second precision on
//     the wire.
//
// Encoding (PodToJson, NodeToJson) writes apiVersion "v1" and the kind, and omits empty and
// unset fields like Kubernetes' `omitempty` (empty strings, lists and maps, unset optionals,
// generation 0, unschedulable false). metadata, spec and status are always written,
// spec.containers, the phase, schedulerName and restartPolicy too. Quantities are written in
// canonical form (Quantity::ToString, "1.5" -> "1500m"), times as RFC 3339 in UTC, seconds
// precision. So PodFromJson(PodToJson(p)) == p for every decoded p, and PodToJson is a fixed
// point after one round trip; the same holds for nodes.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "api/pdb.h"
#include "api/pod.h"
#include "api/selector.h"
#include "api/storage.h"
#include "common/status_or.h"

namespace tidepool::api::codec {

StatusOr<Pod> PodFromJson(const nlohmann::json& j);
StatusOr<Node> NodeFromJson(const nlohmann::json& j);

// A metav1.LabelSelector (matchLabels, matchExpressions), e.g. a PodDisruptionBudget's
// spec.selector; the same decoding rules and error texts as the objects'.
StatusOr<LabelSelector> LabelSelectorFromJson(const nlohmann::json& j);

// A policy/v1 PodDisruptionBudget: metadata.namespace and name, spec.selector (absent or null:
// selects nothing) and status.disruptionsAllowed (absent: 0); everything else is ignored.
StatusOr<PodDisruptionBudget> PodDisruptionBudgetFromJson(const nlohmann::json& j);

// What scheduling reads of a PersistentVolumeClaim, PersistentVolume and StorageClass
// (api/storage.h); the rest is ignored. A quantity or list of the wrong type is an error.
StatusOr<PersistentVolumeClaim> PersistentVolumeClaimFromJson(const nlohmann::json& j);
StatusOr<PersistentVolume> PersistentVolumeFromJson(const nlohmann::json& j);
StatusOr<StorageClass> StorageClassFromJson(const nlohmann::json& j);

// A list of taints (a Node's spec.taints) or of tolerations (a Pod's spec.tolerations); null is
// empty. The same decoding rules and error texts as the objects' (paths from the list: "[1].key").
StatusOr<std::vector<Taint>> TaintsFromJson(const nlohmann::json& j);
StatusOr<std::vector<Toleration>> TolerationsFromJson(const nlohmann::json& j);

nlohmann::json PodToJson(const Pod& p);
// The pod's status alone, as PodToJson writes it under "status".
nlohmann::json PodStatusToJson(const PodStatus& s);
nlohmann::json NodeToJson(const Node& n);

// Parses one JSON text. Syntax errors are InvalidArgument with the position:
// "json: parse error at line 1, column 9: syntax error while parsing object ...". Nesting
// deeper than 1000 levels is rejected (copying and dumping JSON values is recursive). Duplicate
// keys are not detected: the last one wins, as in encoding/json.
StatusOr<nlohmann::json> ParseJson(std::string_view text);

// Compact JSON. Invalid UTF-8 in strings is replaced by U+FFFD instead of failing.
std::string DumpJson(const nlohmann::json& j);

}  // namespace tidepool::api::codec
