// File: packing.h
//
// GPU packing policies as score plugins, as the FGD paper's simulator defines them
// (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin; docs/fgd-protocol.md §4).
// Every score is an integer in [0, 100], higher is better; a pod without GPUs scores 0 on every
// node under GpuClustering and GpuPacking. Notation: cpuLeft = allocatable cpu - requested cpu;
// Lt = milli-GPU left on the node (NodeInfo::gpu_left, negatives as 0); G = the node's GPUs;
// Cmax, Gmax = PackingArgs::max_milli_cpu, max_gpus (the largest node).
//   BestFit       x = (cpuLeft - cpu) / Cmax / 2 + (Lt - gpus) / (1000 Gmax) / 2, the pod's cpu
//                 and milli-GPU taken; score int((1 - x) 100): the fullest node after placing.
//   DotProd       n = (cpuLeft / Cmax, Lt / (1000 Gmax)), p = (cpu / Cmax, gpus / (1000 Gmax));
//                 score int(100 (1 - n.p / 2)): the node whose free resources align least.
//   GpuClustering a GPU pod's tag is "share" or its GPU count; 25 (1000 Gmax - Lt) / (1000 Gmax)
//                 plus 75 if the node's GPU pods all have the pod's tag, 50 if some do, 25 if
//                 the node has no GPU pod: pods of one kind together.
//   GpuPacking    every GPU free: max(33 - G, G); else, among the GPUs the pod would take (the
//                 fitting ones with the least left first): max(50 - fully free taken, 33) if
//                 it takes a fully free GPU, otherwise max(100 - sum(left * 100 / 1000) / 10, 50):
//                 partly used GPUs first, then partly used nodes, then empty nodes.
//   Random        one feasible node drawn uniformly (from the seed, the pod's uid and the node's
//                 name) scores 100, the others 0.
// Each reads only the node's usage (NodeScope::kUsage) except GpuClustering and Random
// (kNode). FGD is in fgd.h.
#pragma once

#include <string_view>

#include "common/status_or.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/plugin_args.h"
#include "scheduler/framework/runtime/registry.h"

namespace tidepool::scheduler::plugins {

// What the formulas scale by: the largest node's cpu and milli-GPU.
struct PackingScale {
  explicit PackingScale(const PackingArgs& args)
      : max_milli_cpu(args.max_milli_cpu > 0 ? args.max_milli_cpu : 1),
        max_milli_gpu(int64_t{args.max_gpus > 0 ? args.max_gpus : 1} * 1000) {}
  int64_t max_milli_cpu;
  int64_t max_milli_gpu;
};

// The formulas above, one function each.
int64_t BestFitScore(const PodInfo& pod, const NodeInfo& node, const PackingScale& scale);
int64_t DotProdScore(const PodInfo& pod, const NodeInfo& node, const PackingScale& scale);
int64_t GpuClusteringScore(const PodInfo& pod, const NodeInfo& node, const PackingScale& scale);
int64_t GpuPackingScore(const PodInfo& pod, const NodeInfo& node, const PackingScale& scale);

// A packing policy that is one of those formulas, under its name and scope.
class FormulaScore final : public ScorePlugin {
 public:
  using Formula = int64_t (*)(const PodInfo&, const NodeInfo&, const PackingScale&);
  FormulaScore(std::string_view name, NodeScope scope, Formula formula, const PackingArgs& args)
      : name_(name), scope_(scope), formula_(formula), scale_(args) {}
  std::string_view Name() const override { return name_; }
  NodeScope ScoreScope(const CycleState&, const PodInfo&) const override { return scope_; }
  int64_t Score(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override {
    return formula_(pod, node, scale_);
  }

 private:
  std::string_view name_;
  NodeScope scope_;
  Formula formula_;
  PackingScale scale_;
};

class RandomScore final : public ScorePlugin {
 public:
  static constexpr std::string_view kName = "Random";
  explicit RandomScore(const PackingArgs& args) : seed_(args.seed) {}
  std::string_view Name() const override { return kName; }
  NodeScope ScoreScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kNode;
  }
  int64_t Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  // The highest draw becomes 100, every other 0.
  void NormalizeScore(const CycleState& state, const PodInfo& pod,
                      std::span<int64_t> scores) const override;

 private:
  uint64_t seed_;
};

// The packing policies, in the FGD paper's order: Random, DotProd, GpuClustering, GpuPacking,
// BestFit, FGD.
const std::vector<std::string>& PackingPolicies();

// kube-scheduler's default profile with `policy` as its only score plugin: the default filters
// plus GpuShare, no other scores, the GPUs chosen at Reserve by FGD for FGD, at random for
// Random and best fit otherwise; DefaultPreemption kept. `args` are the policy's (its seed,
// typical pods, the largest node). InvalidArgument naming the known policies otherwise.
StatusOr<Profile> PackingProfile(std::string_view policy, PackingArgs args);

// The node's free cpu (allocatable - requested) and free milli-GPU (negatives as 0).
int64_t CpuLeft(const NodeInfo& node);
int64_t GpuMilliLeft(const NodeInfo& node);

}  // namespace tidepool::scheduler::plugins
