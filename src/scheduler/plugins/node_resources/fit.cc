#include "scheduler/plugins/node_resources/fit.h"

#include <algorithm>

#include "api/resource_list.h"
#include "scheduler/plugins/node_resources/least_allocated.h"
#include "scheduler/plugins/node_resources/most_allocated.h"
#include "scheduler/plugins/node_resources/resource_allocation.h"

namespace tidepool::scheduler::plugins {
std::vector<InsufficientResource> FitsRequest(const Resource& request, const NodeInfo& node,
                                              const std::vector<std::string>& ignored) {
  std::vector<InsufficientResource> out;
  const Resource& alloc = node.allocatable();
  const Resource& used = node.requested();
  const int64_t num_pods = static_cast<int64_t>(node.pods().size());
  if (num_pods + 1 > alloc.allowed_pod_number) {
    out.push_back({std::string(api::kResourcePods), "Too many pods", 1, num_pods,
                   alloc.allowed_pod_number});
  }
  if (request.milli_cpu == 0 && request.memory == 0 && request.ephemeral_storage == 0 &&
      request.scalars.empty()) {
    return out;
  }
  if (request.milli_cpu > 0 && request.milli_cpu > alloc.milli_cpu - used.milli_cpu) {
    out.push_back({std::string(api::kResourceCpu), "Insufficient cpu", request.milli_cpu,
                   used.milli_cpu, alloc.milli_cpu});
  }
  if (request.memory > 0 && request.memory > alloc.memory - used.memory) {
    out.push_back({std::string(api::kResourceMemory), "Insufficient memory", request.memory,
                   used.memory, alloc.memory});
  }
  if (request.ephemeral_storage > 0 &&
      request.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage) {
    out.push_back({std::string(api::kResourceEphemeralStorage), "Insufficient ephemeral-storage",
                   request.ephemeral_storage, used.ephemeral_storage, alloc.ephemeral_storage});
  }
  for (const auto& [name, quantity] : request.scalars) {
    if (quantity == 0) {
      continue;
    }
    if (api::IsExtendedResource(name) &&
        std::find(ignored.begin(), ignored.end(), name) != ignored.end()) {
      continue;
    }
    int64_t free = alloc.Scalar(name) - used.Scalar(name);
    if (quantity > free) {
      out.push_back({name, "Insufficient " + name, quantity, used.Scalar(name),
                     alloc.Scalar(name)});
    }
  }
  return out;
}

bool RequestFits(const Resource& request, const NodeInfo& node,
                 const std::vector<std::string>& ignored) {
  const Resource& alloc = node.allocatable();
  const Resource& used = node.requested();
  if (static_cast<int64_t>(node.pods().size()) + 1 > alloc.allowed_pod_number) {
    return false;
  }
  if (request.milli_cpu > 0 && request.milli_cpu > alloc.milli_cpu - used.milli_cpu) {
    return false;
  }
  if (request.memory > 0 && request.memory > alloc.memory - used.memory) {
    return false;
  }
  if (request.ephemeral_storage > 0 &&
      request.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage) {
    return false;
  }
  for (const auto& [name, quantity] : request.scalars) {
    if (quantity == 0) {
      continue;
    }
    if (api::IsExtendedResource(name) &&
        std::find(ignored.begin(), ignored.end(), name) != ignored.end()) {
      continue;
    }
    if (quantity > alloc.Scalar(name) - used.Scalar(name)) {
      return false;
    }
  }
  return true;
}

PluginStatus Fit::PreFilter(CycleState&, const PodInfo&, PreFilterResult&) const {
  // The pod's request is computed once per pod object (PodInfo), not per cycle.
  return PluginStatus::Success();
}

PluginStatus Fit::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  std::vector<InsufficientResource> insufficient =
      FitsRequest(pod.request(), node, args_.ignored_resources);
  if (insufficient.empty()) {
    return PluginStatus::Success();
  }
  std::vector<std::string> reasons;
  reasons.reserve(insufficient.size());
  for (auto& r : insufficient) {
    reasons.push_back(std::move(r.reason));
  }
  return PluginStatus(PluginCode::kUnschedulable, std::move(reasons));
}

PluginStatus Fit::PreScore(CycleState& state, const PodInfo& pod) const {
  StorePodRequestList<Fit>(state, pod, args_.resources, /*use_requested=*/false);
  return PluginStatus::Success();
}

int64_t Fit::Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  AllocationVectors v = AllocationForScore<Fit>(state, pod, node, args_.resources, false);
  switch (args_.strategy) {
    case ScoringStrategy::kLeastAllocated:
      return LeastAllocatedScore(args_.resources, v.requested, v.allocatable);
    case ScoringStrategy::kMostAllocated:
      return MostAllocatedScore(args_.resources, v.requested, v.allocatable);
  }
  return 0;
}

}  // namespace tidepool::scheduler::plugins
