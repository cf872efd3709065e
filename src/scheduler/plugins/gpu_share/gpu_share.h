// File: gpu_share.h
//
// GpuShare: GPUs as devices (scheduler/framework/gpu_devices.h), as Alibaba's open-gpu-share
// scheduler plugin treats them, so that shares of one GPU (alibabacloud.com/gpu-milli < 1000)
// pack onto single GPUs.
//   Filter: a pod asking for GPUs needs, on one node, `count` fully free GPUs (whole GPUs) or
//     one GPU with `milli` left (a share): "Insufficient free GPUs" / "Insufficient GPU share
//     on any one GPU" otherwise (Unschedulable). NodeResourcesFit checks the totals; this checks
//     the devices. A pod without GPUs passes.
//   Reserve: the GPUs the pod gets on the chosen node: the first fully free ones for whole GPUs;
//     for a share, the GPU with the least left that fits ("best", the lowest index on ties) or
//     a uniformly drawn fitting one ("random", from the seed and the pod's uid).
#pragma once

#include <string_view>

#include "scheduler/framework/gpu_devices.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/plugin_args.h"

namespace tidepool::scheduler::plugins {

class GpuShare final : public FilterPlugin, public ReservePlugin {
 public:
  static constexpr std::string_view kName = "GpuShare";
  static constexpr std::string_view kInsufficientGpus = "Insufficient free GPUs";
  static constexpr std::string_view kInsufficientShare = "Insufficient GPU share on any one GPU";

  GpuShare(GpuSelection selection, uint64_t seed) : selection_(selection), seed_(seed) {}

  std::string_view Name() const override { return kName; }
  NodeScope FilterScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kUsage;
  }
  PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                      const NodeInfo& node) const override;
  bool HasFits() const override { return true; }
  bool Fits(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override {
    return GpusFit(node.gpu_left(), pod.gpu_demand());
  }
  PluginStatus Reserve(CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       Reservation& reservation) const override;

 private:
  GpuSelection selection_;
  uint64_t seed_;
};

// The Unschedulable status of a demand its node cannot take: kInsufficientShare for a share of
// one GPU, kInsufficientGpus otherwise.
PluginStatus GpusDoNotFit(const GpuDemand& demand);

// A draw for `pod` on `node` from `seed`: the same inputs give the same value.
uint64_t PlacementDraw(uint64_t seed, const PodInfo& pod, std::string_view node);

}  // namespace tidepool::scheduler::plugins
