#include "api/quota.h"

#include <algorithm>

#include "api/pod_resources.h"

namespace tidepool::api {
namespace {

constexpr std::string_view kRequests = "requests.";
constexpr std::string_view kLimits = "limits.";

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The compute resources a quota names both bare and with "requests." / "limits.".
bool IsComputeResource(std::string_view r) {
  return r == kResourceCpu || r == kResourceMemory || r == kResourceEphemeralStorage ||
         IsHugePageResource(r);
}

void Set(ResourceList& l, std::string name, const Quantity& q) { l[std::move(name)] = q; }

}  // namespace

ResourceList PodQuotaUsage(const Pod& pod) {
  ResourceList usage;
  const Quantity one = Quantity::FromInt(1, QuantityFormat::kDecimalSI);
  Set(usage, "count/pods", one);  // every pod, terminal ones too
  if (pod.Terminal()) return usage;
  Set(usage, std::string(kResourcePods), one);
  for (const auto& [name, q] : PodRequests(pod)) {
    if (IsComputeResource(name)) {
      Set(usage, std::string(kRequests) + name, q);
      Set(usage, name, q);  // "cpu" is "requests.cpu"
    } else if (IsExtendedResource(name)) {
      Set(usage, std::string(kRequests) + name, q);
    }
  }
  PodRequestsOptions limits;
  limits.limits = true;
  for (const auto& [name, q] : PodRequests(pod, limits)) {
    if (name == kResourceCpu || name == kResourceMemory || name == kResourceEphemeralStorage) {
      Set(usage, std::string(kLimits) + name, q);
    }
  }
  return usage;
}

ResourceList ObjectQuotaUsage(std::string_view group, std::string_view resource) {
  ResourceList usage;
  const Quantity one = Quantity::FromInt(1, QuantityFormat::kDecimalSI);
  std::string count = "count/" + std::string(resource);
  if (!group.empty()) count += "." + std::string(group);
  Set(usage, count, one);
  if (group.empty()) {
    for (std::string_view legacy : {"configmaps", "secrets", "services", "persistentvolumeclaims",
                                    "replicationcontrollers", "resourcequotas"}) {
      if (resource == legacy) Set(usage, std::string(resource), one);
    }
  }
  return usage;
}

bool IsPodQuotaResource(std::string_view name) {
  if (name == kResourcePods || name == "count/pods" || IsComputeResource(name)) return true;
  if (StartsWith(name, kRequests)) return name != "requests.storage";
  // Only cpu, memory and ephemeral-storage limits are counted ("limits.nvidia.com/gpu" is not).
  return name == "limits.cpu" || name == "limits.memory" || name == "limits.ephemeral-storage";
}

std::optional<CountedResource> CountedResourceOf(std::string_view name) {
  for (std::string_view legacy : {"configmaps", "secrets", "services", "persistentvolumeclaims",
                                  "replicationcontrollers", "resourcequotas"}) {
    if (name == legacy) return CountedResource{"", std::string(name)};
  }
  if (!StartsWith(name, "count/") || name == "count/pods") return std::nullopt;
  const std::string_view rest = name.substr(6);
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return CountedResource{"", std::string(rest)};
  return CountedResource{std::string(rest.substr(dot + 1)), std::string(rest.substr(0, dot))};
}

bool IsQuotaResourceName(std::string_view name) {
  static constexpr std::string_view kStandard[] = {"pods",
                                                   "services",
                                                   "replicationcontrollers",
                                                   "resourcequotas",
                                                   "secrets",
                                                   "configmaps",
                                                   "persistentvolumeclaims",
                                                   "services.nodeports",
                                                   "services.loadbalancers",
                                                   "cpu",
                                                   "memory",
                                                   "ephemeral-storage",
                                                   "requests.storage"};
  for (std::string_view s : kStandard) {
    if (name == s) return true;
  }
  if (IsHugePageResource(name)) return true;
  if (StartsWith(name, "count/")) return name.size() > 6;
  // A qualified name ("requests.nvidia.com/gpu", even "limits.nvidia.com/gpu", which nothing
  // counts) is taken as it is.
  if (name.find('/') != std::string_view::npos) return true;
  if (StartsWith(name, kRequests)) {
    const std::string_view r = name.substr(kRequests.size());
    return IsComputeResource(r) || IsExtendedResource(r);
  }
  if (StartsWith(name, kLimits)) {
    const std::string_view r = name.substr(kLimits.size());
    return r == kResourceCpu || r == kResourceMemory || r == kResourceEphemeralStorage;
  }
  return false;
}

std::vector<std::pair<std::string, std::vector<std::string>>> MissingQuotaResources(
    const Pod& pod, const ResourceList& tracked) {
  // kube's pod evaluator Constraints: a quota of cpu or memory (requests or limits) needs
  // every container to state it (its validationSet); other resources need nothing.
  static constexpr std::string_view kConstrained[] = {"cpu",    "limits.cpu",   "limits.memory",
                                                      "memory", "requests.cpu", "requests.memory"};
  std::vector<std::pair<std::string, std::vector<std::string>>> missing;
  for (std::string_view name : kConstrained) {  // sorted, as kube lists them
    if (tracked.find(name) == tracked.end()) continue;
    const bool limit = StartsWith(name, kLimits);
    const std::string_view resource =
        name.substr(name.find('.') == std::string_view::npos ? 0 : name.find('.') + 1);
    std::vector<std::string> containers;
    auto check = [&](const Container& c) {
      const ResourceList& l = limit ? c.resources.limits : c.resources.requests;
      if (l.find(resource) == l.end()) containers.push_back(c.name);
    };
    for (const Container& c : pod.spec.containers) check(c);
    for (const Container& c : pod.spec.init_containers) check(c);
    if (containers.empty()) continue;
    std::sort(containers.begin(), containers.end());
    containers.erase(std::unique(containers.begin(), containers.end()), containers.end());
    missing.emplace_back(std::string(name), std::move(containers));
  }
  return missing;
}

ResourceList AddUsage(const ResourceList& used, const ResourceList& delta,
                      const ResourceList& hard) {
  ResourceList out;
  for (const auto& [name, limit] : hard) {
    (void)limit;
    Quantity q = Get(used, name);
    q.Add(Get(delta, name));
    out[name] = q;
  }
  return out;
}

}  // namespace tidepool::api
