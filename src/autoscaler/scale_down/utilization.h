// File: utilization.h
//
// Node utilisation for scale-down (CA's simulator/utilization/info.go Calculate):
//   - a GPU node (the provider gives it a GPU config, or it has a known GPU resource
//     allocatable) is measured by its GPU alone: sum of the pods' GPU requests / allocatable
//     GPUs; cpu and memory stay 0. A GPU node whose GPUs are not allocatable (yet) measures 0;
//   - any other node by max(cpu, memory), each the pods' requests / allocatable.
// Every pod on the node counts, DaemonSet and mirror pods included (CA's defaults
// --ignore-daemonsets-utilization=false, --ignore-mirror-pods-utilization=false), except pods
// terminating for longer than their grace period + `long_terminating_extra` (CA: 30s), and
// terminal pods (CA's snapshot never holds those).
#pragma once

#include <optional>
#include <string>

#include "autoscaler/scale_down/scale_down.h"
#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "scheduler/framework/node_info.h"

namespace tidepool::autoscaler::scaledown {

// CA's utils/gpu GPUVendorResourceNames.
bool IsGpuResource(std::string_view name);

// The node's GPU: the provider's config, else the first known GPU resource the node has
// allocatable (CA's GetNodeGpuConfig falls back the same way); nullopt for CPU nodes.
std::optional<cloud::GpuConfig> NodeGpuConfig(const cloud::CloudProvider& cloud,
                                              const api::Node& node);

// True for a node that should have GPUs but has none allocatable: the GPU driver or device
// plugin is not up yet (CA's FilterOutNodesWithUnreadyResources).
bool GpuNotReady(const api::Node& node, const std::optional<cloud::GpuConfig>& gpu);

struct UtilizationResult {
  Utilization info;
  // Set when a resource could not be measured (CA logs it and goes on with 0).
  std::string error;
  bool gpu_unready = false;
};

UtilizationResult CalculateUtilization(const scheduler::NodeInfo& node,
                                       const std::optional<cloud::GpuConfig>& gpu, TimePoint now,
                                       Duration long_terminating_extra);

// "{<cpu> <mem> <gpu> <dra> <resource> <utilization>}": CA's utilization.Info printed with %v.
std::string FormatUtilization(const Utilization& u);

}  // namespace tidepool::autoscaler::scaledown
