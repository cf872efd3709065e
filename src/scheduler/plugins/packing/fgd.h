// File: fgd.h
//
// FGD, fragmentation-gradient descent (Weng et al., "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23), as its authors'
// simulator computes it (utils/frag.go, plugin/fgd_score.go; docs/fgd-protocol.md §5).
//
// The node's fragmentation is measured against the typical pods (PackingArgs::typical_pods,
// weights f_t summing to 1): Frag = sum over t of f_t x_t, where x_t is the milli-GPU the node
// leaves that t cannot use: all of it (Lt) when t asks for no GPU, may not run on the node's GPU
// model (label PackingArgs::gpu_model_label) or does not fit (cpu, or fewer than t's count of
// GPUs with t's milli left); otherwise the milli-GPU on GPUs with less than t's milli left.
//   Score: the node after the pod (its cpu taken; a share on each fitting GPU in turn, whole
//     GPUs on the first fully free ones) against before: int(sigmoid((Frag - Frag') / 1000) 100);
//     for a share the best GPU's (the lowest index on ties). Memory is not in the score.
//   Reserve: that GPU for a share; the first fully free GPUs for whole GPUs.
// Frag values are memoised by the node's state (GPU model, cpu left, GPUs left up to order),
// bounded in size; the memo is guarded by a mutex, so one plugin may serve several threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/plugin.h"
#include "scheduler/framework/plugin_args.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::scheduler::plugins {

// The typical pods, grouped for computing Frag.
class FragModel {
 public:
  FragModel(const std::vector<TypicalPod>& typical, std::string gpu_model_label);
  // The node's GPU model as FragModel knows it: 0 for a model no typical pod names.
  int ModelOf(const NodeInfo& node) const;
  // Frag of a node of model `model` with `cpu_left` and milli-GPU `left` per GPU (any order).
  double Frag(int model, int64_t cpu_left, std::span<const int32_t> left) const;

 private:
  struct Group {
    int32_t count = 0;
    int32_t milli = 0;
    std::vector<bool> allowed;       // by model id
    std::vector<int64_t> cpu;        // ascending
    std::vector<double> cum_weight;  // cum_weight[i]: weights of cpu[0..i]
    double weight = 0;
  };
  std::string label_;
  std::vector<std::string> models_;  // sorted; model id = index + 1
  double cpu_pod_weight_ = 0;
  std::vector<Group> groups_;
};

// The FGD simulator's typical pods of a workload: pods counted by (cpu, milli-GPU per GPU,
// GPUs, the GPU models their node selector or required node affinity allows on
// `gpu_model_label`), most frequent first (ties: larger cpu, milli, count, models first), the
// shortest prefix covering 95 % of the pods, each weighted by its share of that prefix.
std::vector<TypicalPod> TypicalPods(const std::vector<PodInfoConstSharedPtr>& pods,
                                    const std::string& gpu_model_label);

class Fgd final : public ScorePlugin, public ReservePlugin {
 public:
  static constexpr std::string_view kName = "FGD";
  explicit Fgd(const PackingArgs& args);
  ~Fgd() override;

  std::string_view Name() const override { return kName; }
  NodeScope ScoreScope(const CycleState&, const PodInfo&) const override {
    return NodeScope::kUsage;
  }
  int64_t Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  PluginStatus Reserve(CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       Reservation& reservation) const override;

 private:
  struct Memo;
  // The score on `node` and the GPUs it would take.
  std::pair<int64_t, uint32_t> Evaluate(const PodInfo& pod, const NodeInfo& node) const;
  double CachedFrag(int model, int64_t cpu_left, std::vector<int32_t> left) const;

  FragModel model_;
  std::unique_ptr<Memo> memo_;
};

}  // namespace tidepool::scheduler::plugins
