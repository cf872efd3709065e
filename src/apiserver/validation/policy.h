// File: policy.h
//
// policy/v1 PodDisruptionBudget validation (pkg/apis/policy/validation/validation.go,
// kube-apiserver 1.32): ObjectMeta; minAvailable and maxUnavailable not both set
// ("spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable
// cannot be both set" - the value prints Go pointers, whose addresses differ from kube's);
// each a non-negative integer or a percentage up to 100%; the selector valid;
// unhealthyPodEvictionPolicy IfHealthyBudget or AlwaysAllow. Updates may change the spec
// (policy/v1). `old` is null on create.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

Status ValidatePodDisruptionBudget(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
