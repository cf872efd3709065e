// File: least_waste.h
//
// The "least-waste" expander: CA's expander/waste/waste.go, made GPU-aware.
//
// CA (kept exactly when no option's pods request a GPU):
//   wasted_cpu    = (node_cpu × N − Σ pod cpu) / (node_cpu × N)       (milli-cpu)
//   wasted_memory = (node_mem × N − Σ pod mem) / (node_mem × N)       (bytes)
//   score = wasted_cpu + wasted_memory; the options with the minimum score are kept (exact
//   float equality for ties, as CA's ==).
//   node_cpu / node_mem are the template node's status.capacity (CA's resourcesForNode reads
//   Capacity, not Allocatable); Σ pod cpu / mem add the requests of the pods' regular
//   containers only (CA's resourcesForPods: no init containers, no overhead), summed as
//   Quantities and then read with MilliValue() / Value() as CA does.
//
// GPU-aware step (tidepool; CA ignores GPUs here): if any option's pods request GPUs, the
// options are first compared by wasted GPU fraction
//   wasted_gpu = 1 − Σ pod GPU requests / (N × template allocatable GPUs)
// and only those within kGpuWasteEpsilon of the best go on to CA's cpu + memory comparison.
// GPUs are the scarce, expensive resource: an option that leaves GPUs idle loses to one that
// does not, whatever their cpu and memory waste (e.g. one 1-GPU pod picks a 1×T4 node over a
// 4×T4 node; two 1-GPU pods pick two 1-GPU nodes over one 4-GPU node whose snugger cpu and
// memory fit CA would prefer).
// GPU resources are nvidia.com/gpu and any scalar resource whose name ends in "/gpu"; the pod
// side is PodInfo::request (the effective request the scheduler reserved), the node side is the
// template's status.allocatable. An option with neither GPU requests nor GPUs wastes none; an
// option whose nodes have GPUs but whose pods request none wastes all of them (1.0); an option
// with GPU requests but no GPUs cannot come from the estimator and ranks last (+inf).
//
// Deviation: CA divides by zero for a template with zero cpu or memory capacity (NaN or −Inf,
// which then wins or poisons the comparison); here such a resource counts as fully wasted (1.0).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "autoscaler/expander/expander.h"

namespace tidepool::autoscaler::expander {

inline constexpr std::string_view kLeastWasteExpanderName = "least-waste";

// Options whose GPU waste is within this of the best are GPU-equivalent.
inline constexpr double kGpuWasteEpsilon = 1e-9;

// nvidia.com/gpu, or any resource name ending in "/gpu" (amd.com/gpu, ...).
bool IsGpuResourceName(std::string_view name);

struct Waste {
  int64_t requested_milli_cpu = 0;
  int64_t requested_memory = 0;
  int64_t requested_gpus = 0;
  int64_t available_milli_cpu = 0;  // N × template capacity
  int64_t available_memory = 0;     // N × template capacity
  int64_t available_gpus = 0;       // N × template allocatable
  double cpu = 0;     // fraction wasted
  double memory = 0;  // fraction wasted
  double gpu = 0;     // fraction wasted; see the rules above
  // CA's score: cpu + memory.
  double CpuMemoryScore() const { return cpu + memory; }
};

// The waste of one option, as described above.
Waste ComputeWaste(const Option& option);

class LeastWasteFilter final : public Filter {
 public:
  std::string_view Name() const override { return kLeastWasteExpanderName; }
  std::vector<const Option*> BestOptions(const std::vector<const Option*>& options) override;
};

}  // namespace tidepool::autoscaler::expander
