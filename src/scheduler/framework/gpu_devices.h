// File: gpu_devices.h
//
// GPUs as devices: how much of which GPU of a node a pod takes. Whole GPUs are the extended
// resource nvidia.com/gpu (the NVIDIA device plugin's); a share of one GPU is the extended
// resource alibabacloud.com/gpu-milli (1000 = one GPU), the name Alibaba's GPU-sharing
// scheduler (open-gpu-share, whose cluster the openb traces come from) uses. A node that
// offers shares advertises both: nvidia.com/gpu = G and alibabacloud.com/gpu-milli = 1000 G.
// Which GPUs a pod got is the pod annotation alibabacloud.com/gpu-index ("2", or "0-1-2-3" for
// several), written when the scheduler reserves the node (plugins/gpu_share), as open-gpu-share
// writes it. NodeResourcesFit checks the totals; the GpuShare filter checks the devices.
//
// A pod's demand: nvidia.com/gpu n > 0 is n whole GPUs (1000 milli each); otherwise
// alibabacloud.com/gpu-milli m > 0 is a share of one GPU when m < 1000 and ceil(m / 1000) whole
// GPUs when m >= 1000.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/resource.h"

namespace tidepool::scheduler {

inline constexpr char kGpuResource[] = "nvidia.com/gpu";
inline constexpr char kGpuMilliResource[] = "alibabacloud.com/gpu-milli";
inline constexpr char kGpuIndexAnnotation[] = "alibabacloud.com/gpu-index";
// GPUs per node the device model tracks; GPUs beyond are not offered.
inline constexpr int kMaxGpusPerNode = 32;
inline constexpr int32_t kMilliPerGpu = 1000;

struct GpuDemand {
  int32_t count = 0;  // GPUs
  int32_t milli = 0;  // of each GPU; kMilliPerGpu for whole GPUs
  bool any() const { return count > 0; }
  bool shared() const { return count == 1 && milli < kMilliPerGpu; }
  int64_t total_milli() const { return int64_t{count} * milli; }
  friend bool operator==(const GpuDemand&, const GpuDemand&) = default;
};

GpuDemand GpuDemandOf(const Resource& request);
// The node's GPUs as devices: allocatable nvidia.com/gpu, at most kMaxGpusPerNode.
int GpuCountOf(const Resource& allocatable);

// "2" or "0-1-2-3" as a bit mask of GPU indices; nullopt when malformed, empty, repeated or an
// index >= kMaxGpusPerNode.
std::optional<uint32_t> ParseGpuIndex(std::string_view text);
// The inverse: indices in ascending order joined by '-'.
std::string FormatGpuIndex(uint32_t mask);

// How a share of one GPU picks its GPU among those with enough left.
enum class GpuSelection {
  kBest,    // the one with the least left (the lowest index on ties): open-gpu-share's "best"
  kRandom,  // uniformly (the `draw` given, in [0, 2^64))
};

// The GPUs `demand` takes on a node with `left` milli free per GPU (index order), as a mask:
// whole GPUs the first `count` fully free ones; a share per `selection`. 0 if it does not fit.
uint32_t ChooseGpus(std::span<const int32_t> left, const GpuDemand& demand, GpuSelection selection,
                    uint64_t draw = 0);
// True if `demand` fits `left` (ChooseGpus would not return 0).
bool GpusFit(std::span<const int32_t> left, const GpuDemand& demand);

// `left` after `demand` takes the GPUs of `mask`.
void TakeGpus(std::vector<int32_t>& left, uint32_t mask, const GpuDemand& demand);

}  // namespace tidepool::scheduler
