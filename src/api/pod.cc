#include "api/pod.h"

#include "api/node.h"

namespace tidepool::api {

std::string_view PodPhaseName(PodPhase p) {
  switch (p) {
    case PodPhase::kPending: return "Pending";
    case PodPhase::kRunning: return "Running";
    case PodPhase::kSucceeded: return "Succeeded";
    case PodPhase::kFailed: return "Failed";
    case PodPhase::kUnknown: return "Unknown";
  }
  return "Unknown";
}

StatusOr<PodPhase> ParsePodPhase(std::string_view s) {
  for (auto p : {PodPhase::kPending, PodPhase::kRunning, PodPhase::kSucceeded, PodPhase::kFailed,
                 PodPhase::kUnknown}) {
    if (PodPhaseName(p) == s) {
      return p;
    }
  }
  return InvalidArgumentError("unsupported pod phase \"" + std::string(s) + "\"");
}

std::string_view ConditionStatusName(ConditionStatus s) {
  switch (s) {
    case ConditionStatus::kTrue: return "True";
    case ConditionStatus::kFalse: return "False";
    case ConditionStatus::kUnknown: return "Unknown";
  }
  return "Unknown";
}

StatusOr<ConditionStatus> ParseConditionStatus(std::string_view s) {
  for (auto c : {ConditionStatus::kTrue, ConditionStatus::kFalse, ConditionStatus::kUnknown}) {
    if (ConditionStatusName(c) == s) {
      return c;
    }
  }
  return InvalidArgumentError("unsupported condition status \"" + std::string(s) + "\"");
}

const PodCondition* Pod::FindCondition(std::string_view type) const {
  for (const auto& c : status.conditions) {
    if (c.type == type) {
      return &c;
    }
  }
  return nullptr;
}

namespace {
void DefaultRequestsFromLimits(Container& c) {
  for (const auto& [name, q] : c.resources.limits) {
    if (c.resources.requests.find(name) == c.resources.requests.end()) {
      c.resources.requests.emplace(name, q);
    }
  }
}
}  // namespace

void ApplyPodDefaults(Pod& pod) {
  for (auto& c : pod.spec.containers) {
    DefaultRequestsFromLimits(c);
  }
  for (auto& c : pod.spec.init_containers) {
    DefaultRequestsFromLimits(c);
  }
}

const NodeCondition* Node::FindCondition(std::string_view type) const {
  for (const auto& c : status.conditions) {
    if (c.type == type) {
      return &c;
    }
  }
  return nullptr;
}

bool Node::IsReady() const {
  const NodeCondition* c = FindCondition("Ready");
  return c != nullptr && c->status == ConditionStatus::kTrue;
}

}  // namespace tidepool::api
