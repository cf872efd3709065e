// File: plugin_args.h
//
// Plugin arguments, with kube-scheduler 1.32's defaults (pkg/scheduler/apis/config/v1/
// defaults.go): NodeResourcesFit scores with LeastAllocated over cpu and memory, weight 1 each;
// BalancedAllocation balances cpu and memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tidepool::scheduler {

class VolumeLister;  // volume_lister.h

struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
};

enum class ScoringStrategy { kLeastAllocated, kMostAllocated };

struct NodeResourcesFitArgs {
  ScoringStrategy strategy = ScoringStrategy::kLeastAllocated;
  std::vector<ResourceSpec> resources = {{"cpu", 1}, {"memory", 1}};
  // Extended resources the Filter ignores (ignoredResources).
  std::vector<std::string> ignored_resources;
};

struct BalancedAllocationArgs {
  std::vector<ResourceSpec> resources = {{"cpu", 1}, {"memory", 1}};
};

// A kind of pod the FGD score expects to come (its "typical pods", plugins/packing/fgd.h).
struct TypicalPod {
  int64_t milli_cpu = 0;
  int32_t gpu_count = 0;  // 0: a CPU pod
  int32_t gpu_milli = 0;  // of each GPU (1000 for whole GPUs)
  // Values of the node label PackingArgs::gpu_model_label it may run on; empty: any.
  std::vector<std::string> gpu_models;
  double weight = 0;  // its share of the pods
};

// The packing policies' arguments (plugins/gpu_share, plugins/packing).
struct PackingArgs {
  // Which GPU a share of one takes at Reserve (GpuShare): "best" or "random".
  std::string gpu_selection = "best";
  // The draws of Random and of "random" GPU selection.
  uint64_t seed = 0;
  // The largest node's cpu and GPUs: DotProd and BestFit scale by them (the FGD simulator's
  // 128 cores and 8 GPUs).
  int64_t max_milli_cpu = 128000;
  int32_t max_gpus = 8;
  std::vector<TypicalPod> typical_pods;
  std::string gpu_model_label = "cloud.google.com/gke-accelerator";
};

struct PluginArgs {
  NodeResourcesFitArgs node_resources_fit;
  BalancedAllocationArgs balanced_allocation;
  PackingArgs packing;
  // The cluster's claims, volumes and classes (VolumeBinding's listers); null: none known, and
  // VolumeBinding skips every pod.
  std::shared_ptr<const VolumeLister> volumes;
};

}  // namespace tidepool::scheduler
