#include "scheduler/plugins/node_resources/most_allocated.h"

#include "scheduler/framework/plugin.h"
#include "scheduler/plugins/node_resources/resource_allocation.h"

namespace tidepool::scheduler::plugins {

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) {
    return 0;
  }
  if (requested > capacity) {
    // A node that is over-committed scores as a full one.
    requested = capacity;
  }
  return requested * kMaxNodeScore / capacity;
}

int64_t MostAllocatedScore(const std::vector<ResourceSpec>& resources,
                            const std::vector<int64_t>& requested,
                            const std::vector<int64_t>& allocatable) {
  return WeightedResourceScore(resources, requested, allocatable, MostRequestedScore);
}

}  // namespace tidepool::scheduler::plugins
