// File: coordination.h
//
// coordination.k8s.io/v1 Lease (pkg/apis/coordination/validation, kube-apiserver 1.32):
// ObjectMeta; leaseDurationSeconds greater than 0; leaseTransitions not negative;
// preferredHolder only with a strategy ("may only be specified if `strategy` is defined").
// `old` is null on create.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

Status ValidateLease(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
