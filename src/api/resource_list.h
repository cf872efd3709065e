// File: resource_list.h
//
// ResourceList (v1.ResourceList): resource name -> quantity, ordered by name. Well-known names
// and the classification kube-scheduler and the API server use for extended resources.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "api/quantity.h"

namespace tidepool::api {

using ResourceList = std::map<std::string, Quantity, std::less<>>;

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceNvidiaGpu = "nvidia.com/gpu";

// A name in the kubernetes.io namespace: no "/" (e.g. "cpu") or containing "kubernetes.io/"
// (v1helper.IsNativeResource, e.g. "kubernetes.io/foo", "example.kubernetes.io/foo").
bool IsNativeResource(std::string_view name);
// "hugepages-2Mi" and friends.
bool IsHugePageResource(std::string_view name);
// Extended resources: fully qualified, outside kubernetes.io, not "requests." prefixed
// (v1helper.IsExtendedResourceName). nvidia.com/gpu is one.
bool IsExtendedResource(std::string_view name);
// Resources whose quantities must be whole numbers (v1helper.IsIntegerResourceName): extended
// resources and pods... (hugepages are byte counts, hence integers too).
bool IsIntegerResource(std::string_view name);
// Resources whose request may differ from the limit: the native ones except hugepages
// (v1helper.IsOvercommitAllowed).
bool IsOvercommitAllowed(std::string_view name);
// kube-scheduler's scalar resources (schedutil.IsScalarResourceName): extended, hugepages,
// prefixed native (containing "kubernetes.io/") and attachable-volumes-*.
bool IsScalarResource(std::string_view name);

// The quantity of `name` in `list`, or zero.
Quantity Get(const ResourceList& list, std::string_view name);

}  // namespace tidepool::api
