// File: quota.h
//
// What a ResourceQuota counts, as kube's quota evaluators do (pkg/quota/v1/evaluator/core,
// Kubernetes 1.32), shared by the API server's ResourceQuota admission and
// kube-controller-manager's resourcequota controller:
//   - every pod uses "count/pods" 1; one that is not terminal (Succeeded or Failed) "pods" 1, its
//     requests ("requests.cpu", "requests.memory", "requests.ephemeral-storage",
//     "requests.hugepages-*", and for an extended resource only "requests.nvidia.com/gpu"),
//     with "cpu", "memory", "ephemeral-storage" and hugepages as synonyms of their requests,
//     and its limits ("limits.cpu", "limits.memory", "limits.ephemeral-storage"); requests and
//     limits are the pod's effective ones (PodRequests: containers summed, init containers'
//     maximum, overhead added);
//   - any other object of a counted resource uses "count/<resource>[.<group>]" 1, and the core
//     kinds their legacy names too (configmaps, secrets, services, persistentvolumeclaims,
//     replicationcontrollers, resourcequotas).
// Pure; nothing throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "api/resource_list.h"

namespace tidepool::api {

// The usage of a pod (empty for a terminal one).
ResourceList PodQuotaUsage(const Pod& pod);

// The usage of one object of `resource` in `group` ("" for core) that is not a pod.
ResourceList ObjectQuotaUsage(std::string_view group, std::string_view resource);

// Whether a quota resource is counted from pods (pods, count/pods, requests.*, limits.cpu,
// limits.memory, limits.ephemeral-storage, cpu, memory, ephemeral-storage, hugepages-*).
bool IsPodQuotaResource(std::string_view name);

// The objects a count resource counts: "configmaps" -> ("", "configmaps"),
// "count/deployments.apps" -> ("apps", "deployments"); nullopt for anything else (pod
// resources, services.nodeports, services.loadbalancers, requests.storage).
struct CountedResource {
  std::string group;
  std::string resource;
};
std::optional<CountedResource> CountedResourceOf(std::string_view name);

// Whether `name` may be a key of a ResourceQuota's spec.hard (a standard quota resource, an
// object count "count/...", or "requests."/"limits." of a resource that allows it).
bool IsQuotaResourceName(std::string_view name);

// The resources of `tracked` (a quota's spec.hard) that a pod must state for every container
// to be admitted (kube's "must specify"): for each such resource ("requests.cpu"), the names
// of the containers that do not. Empty when nothing is missing.
std::vector<std::pair<std::string, std::vector<std::string>>> MissingQuotaResources(
    const Pod& pod, const ResourceList& tracked);

// `used` plus `delta` for the resources `hard` names (Quantity arithmetic; missing count as 0).
ResourceList AddUsage(const ResourceList& used, const ResourceList& delta,
                      const ResourceList& hard);

}  // namespace tidepool::api
