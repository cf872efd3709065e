// File: resource_allocation.h
//
// The shared part of the resource scores (kube-scheduler 1.32, noderesources/
// resource_allocation.go): for each configured resource, the node's allocatable and what would
// be requested with the pod on it. cpu and memory use the "non-zero" requests (a container
// without a request counts 100m / 200Mi) unless `use_requested`; an extended resource the pod
// does not request, or the node does not have, is left out of the score.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/plugin_args.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::scheduler::plugins {

struct AllocationVectors {
  // Parallel to the configured resources; allocatable 0 means "skip this resource".
  std::vector<int64_t> requested;
  std::vector<int64_t> allocatable;
};

// The pod's request for each configured resource (calculatePodResourceRequestList).
std::vector<int64_t> PodRequestList(const PodInfo& pod, const std::vector<ResourceSpec>& resources,
                                    bool use_requested);

// The weighted mean of per(requested[i], allocatable[i]) over the resources with a non-zero
// allocatable, integer arithmetic as kube-scheduler's scorers; 0 if none.
int64_t WeightedResourceScore(const std::vector<ResourceSpec>& resources,
                              const std::vector<int64_t>& requested,
                              const std::vector<int64_t>& allocatable,
                              int64_t (*per)(int64_t requested, int64_t capacity));

AllocationVectors CalculateAllocation(const NodeInfo& node,
                                      const std::vector<ResourceSpec>& resources,
                                      const std::vector<int64_t>& pod_requests,
                                      bool use_requested);

// The PreScore/Score halves every resource scorer shares (resourceAllocationScorer): PreScore
// stores the pod's request list once per cycle, keyed by the plugin type `Plugin`; Score reads
// it back (or computes it if PreScore did not run) and builds the node's allocation vectors.
template <typename Plugin>
struct PodRequestListState : CycleState::Data {
  std::vector<int64_t> requests;
};

template <typename Plugin>
void StorePodRequestList(CycleState& state, const PodInfo& pod,
                         const std::vector<ResourceSpec>& resources, bool use_requested) {
  auto s = std::make_unique<PodRequestListState<Plugin>>();
  s->requests = PodRequestList(pod, resources, use_requested);
  state.Write(std::move(s));
}

template <typename Plugin>
AllocationVectors AllocationForScore(const CycleState& state, const PodInfo& pod,
                                     const NodeInfo& node,
                                     const std::vector<ResourceSpec>& resources,
                                     bool use_requested) {
  if (const auto* s = state.Read<PodRequestListState<Plugin>>()) {
    return CalculateAllocation(node, resources, s->requests, use_requested);
  }
  return CalculateAllocation(node, resources, PodRequestList(pod, resources, use_requested),
                             use_requested);
}

}  // namespace tidepool::scheduler::plugins
