// File: eviction.h
//
// The PodDisruptionBudget check of the pods/eviction subresource, as kube-apiserver 1.32's
// EvictionREST.Create (pkg/registry/core/pod/storage/eviction.go). It reads what the
// disruption controller (controllers/disruption) keeps in each budget's status:
//   - a pod that is Succeeded, Failed or Pending, or already being deleted, is deleted without
//     a look at budgets (canIgnorePDB);
//   - the budgets of the pod's namespace whose selectors select it; a null or empty selector
//     selects nothing here. More than one: a 500 "This pod has more than one
//     PodDisruptionBudget, which the eviction subresource does not support.";
//   - an unready pod may go without using the budget when its budget says
//     unhealthyPodEvictionPolicy: AlwaysAllow, or when the budget is met (currentHealthy >=
//     desiredHealthy > 0) - then only if the pod is still as read (a 429 otherwise);
//   - otherwise checkAndDecrement on the budget's status: observedGeneration behind the
//     generation: 429 "... is still being processed by the server."; disruptionsAllowed < 0 or
//     more than 2000 disruptedPods: 403; 0: 429 "The disruption budget NAME needs N healthy
//     pods and has M currently"; else disruptionsAllowed - 1 (the DisruptionAllowed condition
//     turns False at 0) and disruptedPods[pod] = now, written in one read-modify-write of the
//     budget (not for a dry run), so two evictions can never use the same disruption.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/object_store.h"
#include "common/clock.h"

namespace tidepool::apiserver {

struct EvictionVerdict {
  bool allowed = true;
  // Delete the pod only if its resourceVersion is still `pod_resource_version` (an unready pod
  // evicted without using its budget); a conflict is then a 429 (TooManyRequestsVerdict).
  bool only_if_unchanged = false;
  std::string pdb_name;  // the budget that selected the pod, if any
  // When refused: the answer (HTTP code, Status reason, message, details or null).
  int code = 0;
  std::string reason;
  std::string message;
  nlohmann::json details;
};

// canIgnorePDB: the pod's budgets do not matter.
bool EvictionIgnoresBudgets(const nlohmann::json& pod);

// The budget check for evicting `pod` (namespace `ns`) at `now`.
EvictionVerdict CheckEvictionBudgets(ObjectStore& store, const nlohmann::json& pod,
                                     const std::string& ns, bool dry_run, TimePoint now);

// createTooManyRequestsError(name): the 429 of a budget still being processed.
EvictionVerdict TooManyRequestsVerdict(const std::string& pdb_name);

}  // namespace tidepool::apiserver
