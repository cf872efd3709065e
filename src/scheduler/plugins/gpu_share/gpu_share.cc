#include "scheduler/plugins/gpu_share/gpu_share.h"

#include <string>

#include "common/fnv.h"

namespace tidepool::scheduler::plugins {

uint64_t PlacementDraw(uint64_t seed, const PodInfo& pod, std::string_view node) {
  // splitmix64's finaliser over the three inputs: cheap enough for every node of every cycle.
  uint64_t x = seed ^ Fnv1a64(pod.uid()) ^ (Fnv1a64(node) * 0x9e3779b97f4a7c15ULL);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

PluginStatus GpusDoNotFit(const GpuDemand& demand) {
  return PluginStatus::Unschedulable(
      std::string(demand.shared() ? GpuShare::kInsufficientShare : GpuShare::kInsufficientGpus));
}

PluginStatus GpuShare::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  const GpuDemand& demand = pod.gpu_demand();
  return GpusFit(node.gpu_left(), demand) ? PluginStatus::Success() : GpusDoNotFit(demand);
}

PluginStatus GpuShare::Reserve(CycleState&, const PodInfo& pod, const NodeInfo& node,
                               Reservation& reservation) const {
  const GpuDemand& demand = pod.gpu_demand();
  if (!demand.any()) {
    return PluginStatus::Success();
  }
  const uint64_t draw = selection_ == GpuSelection::kRandom ? PlacementDraw(seed_, pod, "gpu") : 0;
  reservation.gpu_indices = ChooseGpus(node.gpu_left(), demand, selection_, draw);
  return reservation.gpu_indices != 0 ? PluginStatus::Success() : GpusDoNotFit(demand);
}

}  // namespace tidepool::scheduler::plugins
