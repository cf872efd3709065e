#include "scheduler/plugins/node_resources/least_allocated.h"

#include "scheduler/framework/plugin.h"
#include "scheduler/plugins/node_resources/resource_allocation.h"

namespace tidepool::scheduler::plugins {

int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) {
    return 0;
  }
  return (capacity - requested) * kMaxNodeScore / capacity;
}

int64_t LeastAllocatedScore(const std::vector<ResourceSpec>& resources,
                            const std::vector<int64_t>& requested,
                            const std::vector<int64_t>& allocatable) {
  return WeightedResourceScore(resources, requested, allocatable, LeastRequestedScore);
}

}  // namespace tidepool::scheduler::plugins
