// File: crd/structural.h
//
// A CustomResourceDefinition version's schema (spec.versions[].schema.openAPIV3Schema) as
// apiextensions-apiserver 1.32 uses it on every custom resource it stores:
//   - Prune: fields the schema does not specify are dropped (unless
//     x-kubernetes-preserve-unknown-fields or additionalProperties keep them); at the root,
//     apiVersion, kind and metadata stay and metadata keeps ObjectMeta's fields only. The
//     dropped paths are returned so fieldValidation=Strict/Warn can report them as kube's
//     strict decoder does ("unknown field \"spec.foo\"").
//   - Default: `default` values are set where a property is absent, parents first, where the
//     parent object exists (structuraldefaulting.Default); then a null member whose schema is
//     neither nullable nor defaulted is removed (PruneNonNullableNullsWithoutDefaults).
//   - Validate: kube-openapi's validator with apiextensions' conversion of its results to
//     field errors: type, nullable, enum, string formats (date-time, date, uuid, byte, ipv4;
//     int32/int64/float/double are not checked, as apiextensions strips them), minimum/maximum
//     (and exclusive), multipleOf, minLength/maxLength, pattern (Go's RE2 syntax, through
//     RE2), minItems/maxItems, minProperties/maxProperties, required,
//     x-kubernetes-int-or-string, and allOf/anyOf/oneOf/not, with kube's texts ("spec.replicas:
//     Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"").
//   - Structural checks of the schema itself, for CRD validation ("type: Required value: must
//     not be empty for specified object fields").
// x-kubernetes-validations (CEL) are not evaluated: a CRD that has them is accepted and the
// rules are ignored (documented in the README).
//
// Thread-safety: a parsed Schema is immutable; every const method may be called concurrently.
// Nothing throws; a schema that does not parse is an error value.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/field_error.h"
#include "common/status_or.h"

namespace re2 {
class RE2;
}

namespace tidepool::apiserver::crd {

class Schema {
 public:
  struct Node;
  ~Schema();
  Schema(Schema&&) noexcept;
  Schema& operator=(Schema&&) noexcept;

  // InvalidArgument when `openapi_v3` is not an object or a member has a type the
  // OpenAPI v3 schema object does not take.
  static StatusOr<Schema> Parse(const nlohmann::json& openapi_v3);

  // The structural schema rules of apiextensions' validation, as field errors under `path`
  // ("spec.versions[0].schema.openAPIV3Schema").
  api::FieldErrors CheckStructural(const std::string& path) const;

  // Removes what the schema does not specify from `object` (a whole custom resource) and
  // returns the removed fields' paths, as the strict decoder names them.
  std::vector<std::string> Prune(nlohmann::json& object) const;
  // Sets defaults in `object` (a whole custom resource).
  void Default(nlohmann::json& object) const;
  // The schema's errors for `object` (a whole custom resource), metadata excepted. With
  // `status_rooted` (a resource with a status subresource), status is validated as the status
  // subresource validates it: its messages name paths from status ("replicas in body").
  api::FieldErrors Validate(const nlohmann::json& object, bool status_rooted = false) const;

  // The schema as given (for OpenAPI documents).
  const nlohmann::json& raw() const;
  // The node at a dotted property path ("spec.replicas"); null when the schema does not
  // specify it. For `kubectl explain` and printer columns.
  const Node* Find(const std::vector<std::string>& path) const;
  // Whether the root specifies `status` (and so whether a status subresource has anything to
  // hold).
  bool root_has_property(const std::string& name) const;

 private:
  Schema();
  std::unique_ptr<Node> root_;
  nlohmann::json raw_;
};

}  // namespace tidepool::apiserver::crd
