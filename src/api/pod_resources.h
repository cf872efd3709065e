// File: pod_resources.h
//
// The pod's effective resource request as kube-scheduler computes it
// (k8s.io/component-helpers/resource PodRequests, Kubernetes 1.32):
//   requests = max( sum(containers) + sum(restartable init containers),
//                   max over init containers i of (init_i + sum(restartable init before i)) )
//              + overhead
// With `non_missing_defaults`, a container that omits cpu or memory is counted with
// kube-scheduler's defaults (100m cpu, 200Mi memory: schedutil.DefaultMilliCPURequest and
// DefaultMemoryRequest); this is the "non-zero" request used for scoring.
#pragma once

#include "api/pod.h"
#include "api/resource_list.h"

namespace tidepool::api {

inline constexpr int64_t kDefaultMilliCpuRequest = 100;                 // 0.1 core
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // 200 MiB

struct PodRequestsOptions {
  bool non_missing_defaults = false;
  bool exclude_overhead = false;
  // PodLimits: the same sums over the containers' limits; overhead is added to a resource
  // only when some container limits it.
  bool limits = false;
};

ResourceList PodRequests(const Pod& pod, const PodRequestsOptions& opts = {});

}  // namespace tidepool::api
