// File: pdb.h
//
// A policy/v1 PodDisruptionBudget as the engine reads it: which pods it covers (namespace and
// selector) and how many of them may be disrupted now (status.disruptionsAllowed, which the
// disruption controller keeps). A null selector selects nothing, an empty one every pod of the
// namespace (policy/v1 semantics, metav1.LabelSelectorAsSelector).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api/selector.h"

namespace tidepool::api {

struct PodDisruptionBudget {
  std::string namespace_;
  std::string name;
  std::optional<LabelSelector> selector;  // nullopt: selects nothing
  int32_t disruptions_allowed = 0;

  // The budget covers a pod of `pod_namespace` with these labels.
  bool Covers(const std::string& pod_namespace, const Labels& pod_labels) const {
    return pod_namespace == namespace_ && selector.has_value() && selector->Matches(pod_labels);
  }
  friend bool operator==(const PodDisruptionBudget&, const PodDisruptionBudget&) = default;
};
using PodDisruptionBudgetConstSharedPtr = std::shared_ptr<const PodDisruptionBudget>;

}  // namespace tidepool::api
