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

#include <cstdint>

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

// scheduling.SystemPriorityClasses: the classes kube-apiserver creates at start-up
// (runtime/cluster_bootstrap.cc writes them) and the only "system-" names validation accepts.
struct SystemPriorityClass {
  const char* name;
  int64_t value;
  const char* description;
};
inline constexpr SystemPriorityClass kSystemPriorityClasses[] = {
    {"system-node-critical", 2000001000,
     "Used for system critical pods that must not be moved from their current node."},
    {"system-cluster-critical", 2000000000,
     "Used for system critical pods that must run in the cluster, but can be moved to another "
     "node if necessary."},
};

void DefaultPriorityClass(json& object);
Status ValidatePriorityClass(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
