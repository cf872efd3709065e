#include "api/pod_resources.h"

namespace tidepool::api {
namespace {

void AddTo(ResourceList& into, const ResourceList& add) {
  for (const auto& [name, q] : add) {
    auto it = into.find(name);
    if (it == into.end()) {
      into.emplace(name, q);
    } else {
      it->second.Add(q);
    }
  }
}

void MaxInto(ResourceList& into, const ResourceList& other) {
  for (const auto& [name, q] : other) {
    auto it = into.find(name);
    if (it == into.end()) {
      into.emplace(name, q);
    } else if (q.Compare(it->second) > 0) {
      it->second = q;
    }
  }
}

ResourceList ContainerRequests(const Container& c, const PodRequestsOptions& opts) {
  if (opts.limits) return c.resources.limits;
  ResourceList reqs = c.resources.requests;
  if (opts.non_missing_defaults) {
    // Presence, not value, decides: an explicit 0 stays 0 (applyNonMissing).
    if (reqs.find(kResourceCpu) == reqs.end()) {
      reqs.emplace(std::string(kResourceCpu),
                   Quantity::FromMilli(kDefaultMilliCpuRequest, QuantityFormat::kDecimalSI));
    }
    if (reqs.find(kResourceMemory) == reqs.end()) {
      reqs.emplace(std::string(kResourceMemory),
                   Quantity::FromInt(kDefaultMemoryRequest, QuantityFormat::kBinarySI));
    }
  }
  return reqs;
}

}  // namespace

ResourceList PodRequests(const Pod& pod, const PodRequestsOptions& opts) {
  ResourceList reqs;
  for (const Container& c : pod.spec.containers) {
    AddTo(reqs, ContainerRequests(c, opts));
  }
  ResourceList restartable_sum;
  ResourceList init_max;
  for (const Container& c : pod.spec.init_containers) {
    ResourceList creqs = ContainerRequests(c, opts);
    if (c.restart_policy.has_value() && *c.restart_policy == "Always") {
      // A sidecar runs for the pod's whole life: it adds to the steady state, and every later
      // init container runs beside it.
      AddTo(reqs, creqs);
      AddTo(restartable_sum, creqs);
      MaxInto(init_max, restartable_sum);
    } else {
      AddTo(creqs, restartable_sum);
      MaxInto(init_max, creqs);
    }
  }
  MaxInto(reqs, init_max);
  if (!opts.exclude_overhead) {
    for (const auto& [name, q] : pod.spec.overhead) {
      if (opts.limits && reqs.find(name) == reqs.end()) continue;
      AddTo(reqs, {{name, q}});
    }
  }
  return reqs;
}

}  // namespace tidepool::api
