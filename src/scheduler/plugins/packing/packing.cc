#include "scheduler/plugins/packing/packing.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/framework/gpu_devices.h"
#include "scheduler/plugins/gpu_share/gpu_share.h"

namespace tidepool::scheduler::plugins {
namespace {

// A GPU pod's GpuClustering tag as a bit: bit 0 "share", bit k "k GPUs".
uint64_t ClusterTag(const GpuDemand& d) {
  if (d.shared()) {
    return 1;
  }
  return uint64_t{1} << std::min(d.count, 63);
}

}  // namespace

const std::vector<std::string>& PackingPolicies() {
  static const auto* p = new std::vector<std::string>{"Random",     "DotProd", "GpuClustering",
                                                      "GpuPacking", "BestFit", "FGD"};
  return *p;
}

StatusOr<Profile> PackingProfile(std::string_view policy, PackingArgs args) {
  const auto& known = PackingPolicies();
  if (std::find(known.begin(), known.end(), policy) == known.end()) {
    return InvalidArgumentError("unknown packing policy \"" + std::string(policy) +
                                "\" (known: Random, DotProd, GpuClustering, GpuPacking, "
                                "BestFit, FGD)");
  }
  Profile p = DefaultProfile();
  p.filter.push_back(std::string(GpuShare::kName));
  p.pre_score.clear();
  p.score = {{std::string(policy), 1}};
  p.reserve = {policy == "FGD" ? std::string(policy) : std::string(GpuShare::kName)};
  args.gpu_selection = policy == "Random" ? "random" : "best";
  p.args.packing = std::move(args);
  return p;
}

int64_t CpuLeft(const NodeInfo& node) {
  return node.allocatable().milli_cpu - node.requested().milli_cpu;
}

int64_t GpuMilliLeft(const NodeInfo& node) {
  int64_t sum = 0;
  for (int32_t l : node.gpu_left()) {
    sum += std::max(l, 0);
  }
  return sum;
}

int64_t BestFitScore(const PodInfo& pod, const NodeInfo& node, const PackingScale& scale) {
  const double cpu =
      static_cast<double>(CpuLeft(node) - pod.request().milli_cpu) / scale.max_milli_cpu;
  const double gpu = static_cast<double>(GpuMilliLeft(node) - pod.gpu_demand().total_milli()) /
                     scale.max_milli_gpu;
  const double x = 0.5 * cpu + 0.5 * gpu;
  return std::clamp<int64_t>(static_cast<int64_t>((1 - x) * 100), kMinNodeScore, kMaxNodeScore);
}

int64_t DotProdScore(const PodInfo& pod, const NodeInfo& node, const PackingScale& scale) {
  const double n_cpu = static_cast<double>(CpuLeft(node)) / scale.max_milli_cpu;
  const double n_gpu = static_cast<double>(GpuMilliLeft(node)) / scale.max_milli_gpu;
  const double p_cpu = static_cast<double>(pod.request().milli_cpu) / scale.max_milli_cpu;
  const double p_gpu = static_cast<double>(pod.gpu_demand().total_milli()) / scale.max_milli_gpu;
  const double dot = n_cpu * p_cpu + n_gpu * p_gpu;
  return std::clamp<int64_t>(static_cast<int64_t>(100 * (1 - dot / 2)), kMinNodeScore,
                             kMaxNodeScore);
}

int64_t GpuClusteringScore(const PodInfo& pod, const NodeInfo& node, const PackingScale& scale) {
  const GpuDemand& demand = pod.gpu_demand();
  if (!demand.any()) {
    return 0;
  }
  const int64_t base = 25 * (scale.max_milli_gpu - GpuMilliLeft(node)) / scale.max_milli_gpu;
  uint64_t tags = 0;
  for (const auto& p : node.pods()) {
    if (p->gpu_demand().any()) {
      tags |= ClusterTag(p->gpu_demand());
    }
  }
  const uint64_t tag = ClusterTag(demand);
  int64_t bonus = 0;
  if (tags == tag) {
    bonus = 75;
  } else if ((tags & tag) != 0) {
    bonus = 50;
  } else if (tags == 0) {
    bonus = 25;
  }
  return std::clamp<int64_t>(base + bonus, kMinNodeScore, kMaxNodeScore);
}

int64_t GpuPackingScore(const PodInfo& pod, const NodeInfo& node, const PackingScale&) {
  const GpuDemand& demand = pod.gpu_demand();
  const std::vector<int32_t>& left = node.gpu_left();
  if (!demand.any() || left.empty()) {
    return 0;
  }
  const auto g = static_cast<int64_t>(left.size());
  if (std::all_of(left.begin(), left.end(), [](int32_t l) { return l >= kMilliPerGpu; })) {
    return std::max<int64_t>(33 - g, g);
  }
  std::vector<int32_t> sorted(left.begin(), left.end());
  std::stable_sort(sorted.begin(), sorted.end());
  int64_t fully_free = 0;
  int64_t s = 0;
  int taken = 0;
  for (int32_t l : sorted) {
    if (taken == demand.count) {
      break;
    }
    if (l >= demand.milli) {
      ++taken;
      if (l >= kMilliPerGpu) {
        ++fully_free;
      }
      s += int64_t{l} * 100 / kMilliPerGpu;
    }
  }
  if (fully_free > 0) {
    return std::max<int64_t>(50 - fully_free, 33);
  }
  return std::max<int64_t>(100 - s / 10, 50);
}

int64_t RandomScore::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  return static_cast<int64_t>(PlacementDraw(seed_, pod, node.name()) >> 2);
}

void RandomScore::NormalizeScore(const CycleState&, const PodInfo&,
                                 std::span<int64_t> scores) const {
  if (scores.empty()) {
    return;
  }
  auto best = std::max_element(scores.begin(), scores.end());
  for (auto it = scores.begin(); it != scores.end(); ++it) {
    *it = it == best ? kMaxNodeScore : kMinNodeScore;
  }
}

}  // namespace tidepool::scheduler::plugins
