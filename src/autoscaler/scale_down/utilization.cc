#include "autoscaler/scale_down/utilization.h"

#include <array>

#include "autoscaler/scale_down/drainability.h"
#include "autoscaler/scale_down/go_format.h"

namespace tidepool::autoscaler::scaledown {
namespace {

constexpr std::array<std::string_view, 5> kGpuResources = {"nvidia.com/gpu", "habana.ai/gaudi",
                                                           "gpu.intel.com/xe", "amd.com/gpu",
                                                           "microsoft.com/directx"};

// The pods that count towards utilisation: all but long-terminating and terminal ones. A node
// without deleting or finished pods counts them all: its requested() is the sum.
bool Counts(const scheduler::PodInfo& pod, TimePoint now, Duration long_terminating_extra) {
  return !IsPodLongTerminating(pod, now, long_terminating_extra) && !IsPodTerminal(pod);
}

}  // namespace

bool IsGpuResource(std::string_view name) {
  for (std::string_view r : kGpuResources) {
    if (r == name) {
      return true;
    }
  }
  return false;
}

std::optional<cloud::GpuConfig> NodeGpuConfig(const cloud::CloudProvider& cloud,
                                              const api::Node& node) {
  if (auto cfg = cloud.GetNodeGpuConfig(node); cfg.has_value()) {
    return cfg;
  }
  for (std::string_view r : kGpuResources) {
    if (api::Get(node.status.allocatable, r).MilliValue() > 0) {
      return cloud::GpuConfig{cloud.GpuLabel(), "", std::string(r)};
    }
  }
  return std::nullopt;
}

bool GpuNotReady(const api::Node& node, const std::optional<cloud::GpuConfig>& gpu) {
  return gpu.has_value() && api::Get(node.status.allocatable, gpu->resource_name).MilliValue() == 0;
}

UtilizationResult CalculateUtilization(const scheduler::NodeInfo& node,
                                       const std::optional<cloud::GpuConfig>& gpu, TimePoint now,
                                       Duration long_terminating_extra) {
  UtilizationResult r;
  // CalculateUtilizationOfResource: a resource missing from allocatable or zero is an error.
  // `parsed` is the NodeInfo's parsed allocatable for it: positive exactly when the quantity
  // is, so the node's ResourceList is only read to tell the two errors apart.
  auto check = [&](std::string_view name, int64_t parsed) -> bool {
    if (parsed > 0) {
      return true;
    }
    const api::ResourceList& alloc = node.allocatable_quantities();
    auto it = alloc.find(name);
    if (it == alloc.end()) {
      r.error = "failed to get " + std::string(name) + " from " + node.name();
      return false;
    }
    if (it->second.MilliValue() == 0) {
      r.error = std::string(name) + " is 0 at " + node.name();
      return false;
    }
    return true;
  };
  if (gpu.has_value()) {
    r.info.resource = gpu->resource_name;
    if (!check(gpu->resource_name, node.allocatable().Scalar(gpu->resource_name))) {
      // An unready GPU measures 0, so that such a node can still be scaled down.
      r.gpu_unready = true;
      r.error.clear();
      return r;
    }
    int64_t requested = 0;
    if (node.num_deleting_or_finished_pods() == 0) {
      requested = node.requested().Scalar(gpu->resource_name);
    } else {
      for (const auto& p : node.pods()) {
        if (Counts(*p, now, long_terminating_extra)) {
          requested += p->request().Scalar(gpu->resource_name);
        }
      }
    }
    r.info.gpu = static_cast<double>(requested) /
                 static_cast<double>(node.allocatable().Scalar(gpu->resource_name));
    r.info.value = r.info.gpu;
    return r;
  }
  if (!check(api::kResourceCpu, node.allocatable().milli_cpu) ||
      !check(api::kResourceMemory, node.allocatable().memory)) {
    // CA returns an empty Info with the error; the caller logs it and goes on.
    return r;
  }
  int64_t cpu = node.requested().milli_cpu;
  int64_t mem = node.requested().memory;
  if (node.num_deleting_or_finished_pods() != 0) {
    cpu = 0;
    mem = 0;
    for (const auto& p : node.pods()) {
      if (Counts(*p, now, long_terminating_extra)) {
        cpu += p->request().milli_cpu;
        mem += p->request().memory;
      }
    }
  }
  r.info.cpu = static_cast<double>(cpu) / static_cast<double>(node.allocatable().milli_cpu);
  r.info.memory = static_cast<double>(mem) / static_cast<double>(node.allocatable().memory);
  if (r.info.cpu > r.info.memory) {
    r.info.resource = std::string(api::kResourceCpu);
    r.info.value = r.info.cpu;
  } else {
    r.info.resource = std::string(api::kResourceMemory);
    r.info.value = r.info.memory;
  }
  return r;
}

std::string FormatUtilization(const Utilization& u) {
  // utilization.Info{CpuUtil, MemUtil, GpuUtil, DynamicResourceUtil, ResourceName, Utilization}.
  return "{" + GoFloat(u.cpu) + " " + GoFloat(u.memory) + " " + GoFloat(u.gpu) + " 0 " +
         u.resource + " " + GoFloat(u.value) + "}";
}

}  // namespace tidepool::autoscaler::scaledown
