// File: networking.h
//
// networking.k8s.io/v1 (pkg/apis/networking/validation, kube-apiserver 1.32):
//   - Ingress: ObjectMeta; each HTTP path's pathType is required ("pathType must be
//     specified") and one of Exact, ImplementationSpecific, Prefix; an Exact or Prefix path,
//     and an ImplementationSpecific one that is set, is absolute ("must be an absolute path");
//     an Exact or Prefix path contains none of "//", "/./", "/../", "%2f", "%2F" and ends in
//     neither "/.." nor "/.".
//   - IngressClass: ObjectMeta; spec.controller required ("Required value"), immutable.
// `old` is null on create.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

Status ValidateIngress(const json& object, const json* old, api::FieldErrors* errors);
Status ValidateIngressClass(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
