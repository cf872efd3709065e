// File: scheduling.h
//
// scheduling.k8s.io/v1 PriorityClass (pkg/apis/scheduling/validation and v1/defaults.go,
// kube-apiserver 1.32). Default: preemptionPolicy PreemptLowerPriority. Validation:
// ObjectMeta (cluster-scoped); a name starting "system-" must be a known system class with
// its value and globalDefault false ("priority class names with 'system-' prefix are
// reserved for system use only. error: ..."); otherwise value at most 1000000000 ("maximum
// allowed value of a user defined priority is 1000000000"); preemptionPolicy Never or
// PreemptLowerPriority. On update value and preemptionPolicy are immutable. Not checked here:
// that only one class is globalDefault (kube's Priority admission plugin, which needs the
// store).
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

void DefaultPriorityClass(json& object);
Status ValidatePriorityClass(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
