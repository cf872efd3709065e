// File: fields.h
//
// Field selectors as the `fieldSelector` query parameter carries them (`kubectl get
// --field-selector`, describe's event lookups, drain's pod list), as kube-apiserver 1.32 parses,
// checks and matches them:
//
// Parsing is apimachinery's fields.ParseSelector:
//   - terms are split at ',' not preceded by a backslash, sorted as strings, and empty terms
//     dropped ("" and "," select everything);
//   - each term splits at its first "!=", "==" or "=" (tried in that order at each position):
//     "!=" is NotEquals, "==" and "=" are Equals; the field is not unescaped nor trimmed;
//   - the value is unescaped: "\\", "\," and "\=" stand for \ , and = (fields.EscapeValue
//     escapes only those three; '!' is not special); any other escape, a trailing backslash or an
//     unescaped ',' or '=' is an error.
//   Errors (InvalidArgument), with apimachinery's texts:
//     invalid selector: 'a,b'; can't understand 'b'
//     invalid field selector: invalid escape sequence: \x
//     invalid field selector: unescaped character in value: 61   (the rune as a number, %v)
//
// Validate is the field label conversion kube-apiserver applies to every term before listing
// (Scheme.ConvertFieldLabel); its error is the 400 BadRequest message, e.g. for
// GET /api/v1/pods?fieldSelector=foo=bar: "field label not supported: foo". Terms are checked
// in the sorted order and the first unsupported one is reported. Per resource (1.32):
//   core pods           metadata.name, metadata.namespace, spec.nodeName, spec.restartPolicy,
//                       spec.schedulerName, spec.serviceAccountName, spec.hostNetwork,
//                       status.phase, status.podIP, status.podIPs, status.nominatedNodeName,
//                       spec.host (old clients; means spec.nodeName)
//   core nodes          metadata.name, spec.unschedulable
//   core events         metadata.name, metadata.namespace, involvedObject.{kind, namespace,
//                       name, uid, apiVersion, resourceVersion, fieldPath}, reason,
//                       reportingComponent, source, type
//   core namespaces     metadata.name, status.phase
//   core secrets        metadata.name, metadata.namespace, type
//   core replicationcontrollers  metadata.name, metadata.namespace, status.replicas
//     (all of the above: "field label not supported: <field>")
//   events.k8s.io events  metadata.name, metadata.namespace, regarding.{kind, namespace, name,
//                       uid, apiVersion, resourceVersion, fieldPath}, reason,
//                       reportingController, source, type ("field label not supported: <field>")
//   batch jobs          metadata.name, metadata.namespace, status.successful
//                       (`field label "<field>" not supported for batchv1.Job`)
//   everything else     metadata.name, metadata.namespace
//                       (`"<field>" is not a known field selector: only "metadata.name",
//                       "metadata.namespace"`)
//
// FieldValue is the resource's GetAttrs field set (registry ToSelectableFields) computed from
// the object's stored JSON (events.k8s.io Events are stored as core's: their labels read the
// core fields they convert to). A missing string is "" (a pending pod's spec.nodeName is "", so
// "spec.nodeName=" selects it); booleans are "true"/"false" (spec.hostNetwork,
// spec.unschedulable, false when absent); counters are decimal (status.successful from
// status.succeeded, status.replicas, 0 when absent); status.podIP is status.podIPs[0].ip (else
// status.podIP); status.podIPs is accepted but has no value ("") as in kube-apiserver; an
// event's source is source.component, or reportingComponent when that is empty (for
// events.k8s.io the same: deprecatedSource.component, else reportingController); metadata.namespace
// of a cluster-scoped object is "".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::apiserver::selectors {

// "=" and "==" are both kEquals, as in fields.Requirement.
enum class FieldOperator { kEquals, kNotEquals };

struct FieldRequirement {
  std::string field;
  FieldOperator op = FieldOperator::kEquals;
  std::string value;  // unescaped

  friend bool operator==(const FieldRequirement&, const FieldRequirement&) = default;
};

class FieldSelector {
 public:
  // Selects everything.
  FieldSelector() = default;

  static StatusOr<FieldSelector> Parse(std::string_view s);

  // In the order of the sorted terms.
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  bool Empty() const { return requirements_.empty(); }
  // "field=value,field!=value" (values not escaped), like fields.Selector.String().
  std::string String() const;

  // OK if every requirement's field is supported for the resource (`group` "" for core,
  // `resource` the plural, "pods"); else InvalidArgument with kube-apiserver's text (above).
  Status Validate(std::string_view group, std::string_view resource) const;

  // True if the object (the resource's v1 JSON) satisfies every requirement. A requirement on
  // a field the resource does not support matches nothing (Validate first).
  bool Matches(std::string_view group, std::string_view resource,
               const nlohmann::json& object) const;

 private:
  std::vector<FieldRequirement> requirements_;
};

// The value of `field` for the object, as the resource's selectable field set has it, or
// nullopt when kube-apiserver would reject `field` for the resource (see the file comment).
std::optional<std::string> FieldValue(std::string_view group, std::string_view resource,
                                      const nlohmann::json& object, std::string_view field);

}  // namespace tidepool::apiserver::selectors
