// File: budget_status.h
//
// The arithmetic of kube-controller-manager 1.32's disruption controller
// (pkg/controller/disruption/disruption.go: getExpectedPodCount, buildDisruptedPodMap,
// countHealthyPods, updatePdbStatus, failSafe; pkg/apis/policy/helper's condition helpers):
// a PodDisruptionBudget's new status from its spec, its current status and the pods it
// selects. No I/O: the controller (disruption_controller.h) gathers the inputs and writes the
// result; the API server's eviction subresource (apiserver/eviction.h) reads what it wrote.
//
//   expectedPods   minAvailable as an integer: the number of selected pods; a percentage, or
//                  maxUnavailable: the sum of the selected pods' controllers' replicas (each
//                  controller once; pods without a controller are "unmanaged" and ignored);
//   desiredHealthy minAvailable (a percentage rounded up), or expectedPods - maxUnavailable
//                  (rounded up), at least 0;
//   currentHealthy selected pods that are Ready, not being deleted, and not disrupted (in
//                  status.disruptedPods by an eviction less than DeletionTimeout ago);
//   disruptionsAllowed  currentHealthy - desiredHealthy, 0 when negative or expectedPods is 0;
//   conditions     DisruptionAllowed: True/SufficientPods, False/InsufficientPods, or
//                  False/SyncFailed with the error (failSafe, disruptionsAllowed 0).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/selector.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::controllers::disruption {

// kcm's DeletionTimeout: an eviction's disruptedPods entry counts this long.
inline constexpr Duration kDeletionTimeout = std::chrono::minutes(2);

// What the controller reads of a pod.
struct PodFacts {
  std::string name;
  api::Labels labels;
  bool ready = false;     // condition Ready is True
  bool deleting = false;  // metadata.deletionTimestamp is set
  // The controller owner reference (controller: true), when there is one.
  std::string controller_kind, controller_api_version, controller_name, controller_uid;
};

// The replicas of a pod's controller (kcm's finders: ReplicaSet - or its Deployment -,
// StatefulSet, ReplicationController); NotFound when none of them owns the pod.
using ScaleLookup = std::function<StatusOr<int32_t>(const PodFacts& pod)>;

struct BudgetInputs {
  const nlohmann::json* pdb = nullptr;     // the whole PodDisruptionBudget as stored
  std::vector<const PodFacts*> pods;       // the pods its selector selects, in its namespace
  ScaleLookup scale;
  TimePoint now;
  Duration deletion_timeout = kDeletionTimeout;
};

struct BudgetResult {
  nlohmann::json status;                     // the new .status
  bool changed = false;                      // differs from the stored one (write it)
  std::optional<TimePoint> recheck;          // sync again then (a disruptedPods entry expires)
  std::vector<std::string> not_deleted;      // pods evicted longer than the timeout ago
  std::string unmanaged_warning;             // kcm's UnmanagedPods event text, when any
};

// The new status of `in.pdb`. A spec the controller cannot use (an intOrString it cannot
// scale, a controller it cannot find) is failSafe's status, with the error as the condition's
// message.
BudgetResult ComputeBudgetStatus(const BudgetInputs& in);

// The failSafe status for `error` (disruptionsAllowed 0, DisruptionAllowed False/SyncFailed).
BudgetResult FailSafeStatus(const nlohmann::json& pdb, const std::string& error, TimePoint now);

// metav1's SetStatusCondition for DisruptionAllowed, as UpdateDisruptionAllowedCondition sets it
// from status.disruptionsAllowed: `status` is a PDB status object (conditions updated in place).
void UpdateDisruptionAllowedCondition(nlohmann::json& status, TimePoint now);

}  // namespace tidepool::controllers::disruption
