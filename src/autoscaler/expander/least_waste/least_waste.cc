// File: least_waste.cc
#include "autoscaler/expander/least_waste/least_waste.h"

#include <algorithm>
#include <limits>

#include "api/quantity.h"
#include "api/resource_list.h"

namespace tidepool::autoscaler::expander {
namespace {

// (available − requested) / available; a zero available counts as fully wasted (see header).
double WastedFraction(int64_t available, int64_t requested) {
  if (available <= 0) return 1.0;
  return static_cast<double>(available - requested) / static_cast<double>(available);
}

int64_t GpusRequested(const scheduler::PodInfo& pod) {
  int64_t n = 0;
  for (const auto& [name, value] : pod.request().scalars) {
    if (IsGpuResourceName(name)) n += value;
  }
  return n;
}

int64_t GpusOf(const api::ResourceList& list) {
  int64_t n = 0;
  for (const auto& [name, q] : list) {
    if (IsGpuResourceName(name)) n += q.Value();
  }
  return n;
}

bool RequestsGpus(const Option& option) {
  for (const scheduler::PodInfoConstSharedPtr& p : option.pods) {
    if (p != nullptr && GpusRequested(*p) > 0) return true;
  }
  return false;
}

}  // namespace

bool IsGpuResourceName(std::string_view name) {
  return name == api::kResourceNvidiaGpu || name.ends_with("/gpu");
}

Waste ComputeWaste(const Option& option) {
  Waste w;
  // CA's resourcesForPods: the regular containers' cpu and memory requests, as Quantities.
  api::Quantity cpu;
  api::Quantity memory;
  for (const scheduler::PodInfoConstSharedPtr& p : option.pods) {
    if (p == nullptr) continue;
    for (const api::Container& c : p->spec().containers) {
      if (auto it = c.resources.requests.find(api::kResourceCpu);
          it != c.resources.requests.end()) {
        cpu.Add(it->second);
      }
      if (auto it = c.resources.requests.find(api::kResourceMemory);
          it != c.resources.requests.end()) {
        memory.Add(it->second);
      }
    }
    w.requested_gpus += GpusRequested(*p);
  }
  w.requested_milli_cpu = cpu.MilliValue();
  w.requested_memory = memory.Value();

  // CA's resourcesForNode: capacity. GPUs: allocatable (what a ready node offers pods).
  const int64_t n = option.node_count;
  const api::ResourceList& capacity = option.template_node.status.capacity;
  w.available_milli_cpu = api::Get(capacity, api::kResourceCpu).MilliValue() * n;
  w.available_memory = api::Get(capacity, api::kResourceMemory).Value() * n;
  w.available_gpus = GpusOf(option.template_node.status.allocatable) * n;

  w.cpu = WastedFraction(w.available_milli_cpu, w.requested_milli_cpu);
  w.memory = WastedFraction(w.available_memory, w.requested_memory);
  if (w.available_gpus > 0) {
    w.gpu = WastedFraction(w.available_gpus, w.requested_gpus);
  } else {
    w.gpu = w.requested_gpus > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  }
  return w;
}

std::vector<const Option*> LeastWasteFilter::BestOptions(
    const std::vector<const Option*>& options) {
  if (options.empty()) return {};
  std::vector<Waste> waste;
  waste.reserve(options.size());
  bool any_gpu_request = false;
  for (const Option* option : options) {
    waste.push_back(ComputeWaste(*option));
    any_gpu_request = any_gpu_request || RequestsGpus(*option);
  }

  // Step 1 (tidepool): least GPU waste, within an epsilon.
  std::vector<size_t> candidates;
  if (any_gpu_request) {
    double best_gpu = std::numeric_limits<double>::infinity();
    for (const Waste& w : waste) best_gpu = std::min(best_gpu, w.gpu);
    for (size_t i = 0; i < options.size(); ++i) {
      if (waste[i].gpu <= best_gpu + kGpuWasteEpsilon) {  // inf <= inf holds too
        candidates.push_back(i);
      }
    }
  } else {
    for (size_t i = 0; i < options.size(); ++i) candidates.push_back(i);
  }

  // Step 2 (CA): least cpu + memory waste, exact ties kept.
  std::vector<const Option*> best;
  double best_score = 0;
  for (size_t i : candidates) {
    const double score = waste[i].CpuMemoryScore();
    if (best.empty() || score < best_score) {
      best_score = score;
      best = {options[i]};
    } else if (score == best_score) {
      best.push_back(options[i]);
    }
  }
  return best;
}

}  // namespace tidepool::autoscaler::expander
