// File: least_allocated.h
//
// LeastAllocated (kube-scheduler 1.32, noderesources/least_allocated.go): favours nodes with
// more free capacity. Per resource: (allocatable - requested) * 100 / allocatable (0 when
// over-requested); the node score is the weighted mean, integer division throughout.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/framework/plugin_args.h"

namespace tidepool::scheduler::plugins {

int64_t LeastRequestedScore(int64_t requested, int64_t capacity);
int64_t LeastAllocatedScore(const std::vector<ResourceSpec>& resources,
                            const std::vector<int64_t>& requested,
                            const std::vector<int64_t>& allocatable);

}  // namespace tidepool::scheduler::plugins
