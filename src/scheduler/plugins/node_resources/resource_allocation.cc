#include "scheduler/plugins/node_resources/resource_allocation.h"

#include "api/resource_list.h"

namespace tidepool::scheduler::plugins {

std::vector<int64_t> PodRequestList(const PodInfo& pod, const std::vector<ResourceSpec>& resources,
                                    bool use_requested) {
  std::vector<int64_t> out(resources.size(), 0);
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string& name = resources[i].name;
    if (name == api::kResourceCpu) {
      out[i] = use_requested ? pod.request().milli_cpu : pod.non_zero_milli_cpu();
    } else if (name == api::kResourceMemory) {
      out[i] = use_requested ? pod.request().memory : pod.non_zero_memory();
    } else if (name == api::kResourceEphemeralStorage) {
      out[i] = pod.request().ephemeral_storage;
    } else {
      out[i] = pod.request().Scalar(name);
    }
  }
  return out;
}

int64_t WeightedResourceScore(const std::vector<ResourceSpec>& resources,
                              const std::vector<int64_t>& requested,
                              const std::vector<int64_t>& allocatable,
                              int64_t (*per)(int64_t requested, int64_t capacity)) {
  int64_t node_score = 0, weight_sum = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) {
      continue;
    }
    node_score += per(requested[i], allocatable[i]) * resources[i].weight;
    weight_sum += resources[i].weight;
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

AllocationVectors CalculateAllocation(const NodeInfo& node,
                                      const std::vector<ResourceSpec>& resources,
                                      const std::vector<int64_t>& pod_requests,
                                      bool use_requested) {
  AllocationVectors v;
  v.requested.assign(resources.size(), 0);
  v.allocatable.assign(resources.size(), 0);
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string& name = resources[i].name;
    int64_t alloc = 0;
    int64_t req = 0;
    if (name == api::kResourceCpu) {
      alloc = node.allocatable().milli_cpu;
      req = (use_requested ? node.requested().milli_cpu : node.non_zero_milli_cpu()) +
            pod_requests[i];
    } else if (name == api::kResourceMemory) {
      alloc = node.allocatable().memory;
      req = (use_requested ? node.requested().memory : node.non_zero_memory()) + pod_requests[i];
    } else if (name == api::kResourceEphemeralStorage) {
      alloc = node.allocatable().ephemeral_storage;
      req = node.requested().ephemeral_storage + pod_requests[i];
    } else {
      // An extended resource the pod does not request is not scored.
      if (pod_requests[i] == 0 && api::IsScalarResource(name)) {
        continue;
      }
      if (node.allocatable().HasScalar(name)) {
        alloc = node.allocatable().Scalar(name);
        req = node.requested().Scalar(name) + pod_requests[i];
      }
    }
    if (alloc == 0) {
      continue;
    }
    v.allocatable[i] = alloc;
    v.requested[i] = req;
  }
  return v;
}

}  // namespace tidepool::scheduler::plugins
