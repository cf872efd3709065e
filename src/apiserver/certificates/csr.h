// File: certificates/csr.h
//
// certificates.k8s.io/v1 CertificateSigningRequests as kube-apiserver 1.32's registry keeps them
// (pkg/registry/certificates/certificates/strategy.go, pkg/apis/certificates/validation): the
// resource's strategy for the main resource and its status and approval subresources, and its
// validation, with kube's texts. Nothing signs: a CSR stays Pending until someone approves or
// denies it (`kubectl certificate approve|deny`), and no controller issues a certificate (a
// cluster without kube-controller-manager's signers).
//
// Create (PrepareCsrForCreate): spec.username, uid, groups and extra are the requesting user's
// (authn/user.h; whatever the client sent is dropped), status is emptied.
// Update (PrepareCsrForUpdate), by subresource:
//   - "" (PUT/PATCH of the object): spec and status stay as they were: only metadata changes;
//   - "status": spec stays; Approved and Denied conditions stay as they were when their count
//     did not change; the certificate and other conditions (Failed) may change;
//   - "approval": only status.conditions change (spec and the certificate stay).
//   Conditions without lastUpdateTime get `now`; without lastTransitionTime, the old condition's
//   of the same type and status, else `now`.
// Validation (ValidateCsr), create and every update: ObjectMeta (any name); spec.request a PEM
// CERTIFICATE REQUEST (the first PEM block's type, then the DER parsed and its signature
// checked; a malformed DER or bad signature is reported with x509's words but not Go's exact
// ASN.1 text); spec.usages required, known and unique; spec.signerName required, not the legacy
// signer, a domain and path; spec.expirationSeconds >= 600; status.conditions types and statuses
// (Approved/Denied/Failed only "True", Approved and Denied exclusive, types unique); a
// status.certificate of CERTIFICATE PEM blocks only. Updates also: Approved/Denied/Failed may
// not be removed; Approved/Denied added or changed only through approval; the certificate set
// only through status and never changed once set. Whatever an old object already had that is
// no longer valid (a duplicate usage, the legacy signer) is tolerated, as kube's compatibility
// options do. Not reproduced: the cmp.Diff kube appends to "updates may not modify a condition
// of type ..." (only that first line is given), and Go's ASN.1 error texts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/field_error.h"
#include "apiserver/authn/user.h"

namespace tidepool::apiserver::certificates {

void PrepareCsrForCreate(nlohmann::json& csr, const authn::UserInfo& user);
// `now`: RFC 3339, seconds precision.
void PrepareCsrForUpdate(nlohmann::json& csr, const nlohmann::json& old,
                         std::string_view subresource, const std::string& now);
// `old` null on create.
api::FieldErrors ValidateCsr(const nlohmann::json& csr, const nlohmann::json* old,
                             std::string_view subresource);

}  // namespace tidepool::apiserver::certificates
