// File: object_meta.h
//
// ObjectMeta validation for every kind, as kube-apiserver 1.32 does it
// (k8s.io/apimachinery/pkg/api/validation/objectmeta.go, with pkg/apis/core/validation's
// finalizer check, and meta/v1/validation for labels and label selectors). Paths are
// "metadata.<field>".
//
// On create (ValidateObjectMeta):
//   - name required ("name or generateName is required") and valid for the kind's NameRule;
//     generateName valid as a prefix (a trailing '-' allowed);
//   - namespace: a DNS-1123 label on namespaced kinds (an empty one is the request's, which
//     the store fills in), "not allowed on this type" on cluster-scoped ones;
//   - generation not negative; labels (qualified-name keys, label values); annotations
//     (qualified-name keys, lowercased; keys + values at most 262144 bytes in all:
//     "metadata.annotations: Too long: must have at most 262144 bytes");
//   - ownerReferences: apiVersion with a version, kind, name and uid non-empty, no v1 Event
//     owner, at most one controller;
//   - finalizers: qualified names; a name without '/' must be a standard one (kubernetes,
//     orphan, foregroundDeletion); orphan and foregroundDeletion not both.
// On update (ValidateObjectMetaUpdate): a changed non-empty uid is "field is immutable" (an
// empty one takes the stored uid, and creationTimestamp, name and namespace are kept by the
// store, as kube-apiserver's BeforeUpdate keeps them); no finalizer may be added once the
// object is being deleted; labels, annotations, ownerReferences and finalizers as on create.
// Not checked: managedFields (the server writes them), resourceVersion presence (the store's
// precondition check owns resourceVersion).
#pragma once

#include <string>

#include "api/selector.h"
#include "apiserver/validation/fields.h"

namespace tidepool::apiserver::validation {

// The name syntax a kind's ValidateObjectMeta uses (apimachineryvalidation.NameIsDNS*).
enum class NameRule {
  kDns1123Subdomain,  // most kinds
  kDns1123Label,      // namespaces, statefulsets
  kDns1035Label,      // services
  kPathSegment,       // rbac kinds (path.IsValidPathSegmentName)
  kAny,               // any non-empty name (CertificateSigningRequests)
};

// `object` is the whole object (its "metadata" member is validated).
api::FieldErrors ValidateObjectMeta(const json& object, NameRule rule, bool namespaced);
api::FieldErrors ValidateObjectMetaUpdate(const json& object, const json& old);

// Label keys and values at `path` (e.g. "metadata.labels", "spec.template.labels").
api::FieldErrors ValidateLabels(const json* labels, const std::string& path);
// Annotation keys and total size at `path`.
api::FieldErrors ValidateAnnotations(const json* annotations, const std::string& path);
// ValidateLabelSelector (strict label values): matchLabels and each matchExpressions entry
// (operator, values for the operator, key and values syntax). A null selector is valid.
api::FieldErrors ValidateLabelSelector(const json* selector, const std::string& path);

// metav1.LabelSelectorAsSelector: an absent selector selects nothing, an empty one
// everything; one that does not parse is kInvalid.
struct Selector {
  enum class Kind { kNothing, kInvalid, kParsed };
  Kind kind = Kind::kNothing;
  api::LabelSelector parsed;

  bool Empty() const { return kind == Kind::kParsed && parsed.Empty(); }
  bool Matches(const api::Labels& labels) const {
    return kind == Kind::kParsed && parsed.Matches(labels);
  }
};
Selector AsSelector(const json* selector);

}  // namespace tidepool::apiserver::validation
