// File: most_allocated.h
//
// MostAllocated (kube-scheduler 1.32, noderesources/most_allocated.go): favours fuller nodes
// (bin packing). Per resource: min(requested, allocatable) * 100 / allocatable; weighted mean.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/framework/plugin_args.h"

namespace tidepool::scheduler::plugins {

int64_t MostRequestedScore(int64_t requested, int64_t capacity);
int64_t MostAllocatedScore(const std::vector<ResourceSpec>& resources,
                           const std::vector<int64_t>& requested,
                           const std::vector<int64_t>& allocatable);

}  // namespace tidepool::scheduler::plugins
