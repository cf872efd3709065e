#include "scheduler/plugins/node_resources/fit.h"

#include <algorithm>

#include "api/resource_list.h"
#include "scheduler/plugins/node_resources/least_allocated.h"
#include "scheduler/plugins/node_resources/most_allocated.h"
#include "scheduler/plugins/node_resources/resource_allocation.h"

namespace tidepool::scheduler::plugins {
namespace {

// fitsRequest's checks in its order, on a node of allocatable `alloc` whose `num_pods` pods
// request `used`: calls f(resource, requested, used, capacity) for each shortfall, stopping when
// f returns false.
template <typename F>
void ForEachShortfall(const Resource& request, const Resource& alloc, const Resource& used,
                      int64_t num_pods, const std::vector<std::string>& ignored, F&& f) {
  if (num_pods + 1 > alloc.allowed_pod_number &&
      !f(api::kResourcePods, 1, num_pods, alloc.allowed_pod_number)) {
    return;
  }
  if (request.milli_cpu > 0 && request.milli_cpu > alloc.milli_cpu - used.milli_cpu &&
      !f(api::kResourceCpu, request.milli_cpu, used.milli_cpu, alloc.milli_cpu)) {
    return;
  }
  if (request.memory > 0 && request.memory > alloc.memory - used.memory &&
      !f(api::kResourceMemory, request.memory, used.memory, alloc.memory)) {
    return;
  }
  if (request.ephemeral_storage > 0 &&
      request.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage &&
      !f(api::kResourceEphemeralStorage, request.ephemeral_storage, used.ephemeral_storage,
         alloc.ephemeral_storage)) {
    return;
  }
  for (const auto& [name, quantity] : request.scalars) {
    if (quantity == 0) {
      continue;
    }
    if (api::IsExtendedResource(name) &&
        std::find(ignored.begin(), ignored.end(), name) != ignored.end()) {
      continue;
    }
    const int64_t in_use = used.Scalar(name);
    const int64_t capacity = alloc.Scalar(name);
    if (quantity > capacity - in_use && !f(name, quantity, in_use, capacity)) {
      return;
    }
  }
}

template <typename F>
void ForEachShortfall(const Resource& request, const NodeInfo& node,
                      const std::vector<std::string>& ignored, F&& f) {
  ForEachShortfall(request, node.allocatable(), node.requested(),
                   static_cast<int64_t>(node.pods().size()), ignored, std::forward<F>(f));
}

}  // namespace

std::vector<InsufficientResource> FitsRequest(const Resource& request, const NodeInfo& node,
                                              const std::vector<std::string>& ignored) {
  std::vector<InsufficientResource> out;
  ForEachShortfall(
      request, node, ignored,
      [&](std::string_view name, int64_t requested, int64_t used, int64_t capacity) {
        std::string reason =
            name == api::kResourcePods ? "Too many pods" : "Insufficient " + std::string(name);
        out.push_back({std::string(name), std::move(reason), requested, used, capacity});
        return true;
      });
  return out;
}

bool RequestFits(const Resource& request, const NodeInfo& node,
                 const std::vector<std::string>& ignored) {
  bool fits = true;
  ForEachShortfall(request, node, ignored, [&](std::string_view, int64_t, int64_t, int64_t) {
    fits = false;
    return false;
  });
  return fits;
}

namespace {

// isFit: `request` fits a node of allocatable `alloc` that runs nothing (fitsRequest on an empty
// NodeInfo).
bool FitsEmpty(const Resource& request, const Resource& alloc,
               const std::vector<std::string>& ignored) {
  bool fits = true;
  ForEachShortfall(request, alloc, Resource{}, 0, ignored,
                   [&](std::string_view, int64_t, int64_t, int64_t) { return fits = false; });
  return fits;
}

// haveAnyRequestedResourcesIncreased.
bool RequestedResourceGrew(const Resource& request, const Resource& before, const Resource& now) {
  if (now.allowed_pod_number > before.allowed_pod_number) return true;
  if ((request.milli_cpu > 0 && now.milli_cpu > before.milli_cpu) ||
      (request.memory > 0 && now.memory > before.memory) ||
      (request.ephemeral_storage > 0 && now.ephemeral_storage > before.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, quantity] : request.scalars) {
    if (quantity > 0 && now.Scalar(name) > before.Scalar(name)) return true;
  }
  return false;
}

}  // namespace

std::optional<QueueingHint> Fit::Hint(const ClusterEvent& event, const PodInfo& pod) const {
  if (event.kind == ClusterEvent::Kind::kAssignedPodDelete) return QueueingHint::kQueue;
  if (!event.IsNodeChange(ClusterEvent::kUpdateNodeAllocatable)) return std::nullopt;
  const Resource alloc = Resource::FromList(event.node->status.allocatable);
  if (!FitsEmpty(pod.request(), alloc, args_.ignored_resources)) return QueueingHint::kSkip;
  if (event.old_node == nullptr) return QueueingHint::kQueue;
  return RequestedResourceGrew(pod.request(),
                               Resource::FromList(event.old_node->status.allocatable), alloc)
             ? QueueingHint::kQueue
             : QueueingHint::kSkip;
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
