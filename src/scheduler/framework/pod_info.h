// File: pod_info.h
//
// PodInfo: an immutable pod plus what scheduling derives from it once (framework.PodInfo and the
// pod part of NodeInfo.update): its effective request as a Resource, and the "non-zero" cpu and
// memory used for scoring (containers without a cpu/memory request count 100m / 200Mi).
#pragma once

#include <memory>

#include "api/pod.h"
#include "api/pod_fingerprint.h"
#include "scheduler/framework/resource.h"

namespace tidepool::scheduler {

struct PodInfo {
  api::PodConstSharedPtr pod;
  Resource request;
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;
  // Labels + spec, for pod equivalence groups.
  api::PodFingerprint fingerprint;

  const api::Pod& operator*() const { return *pod; }
  const api::Pod* operator->() const { return pod.get(); }
};

// Shared between the snapshot, its forks and callers; immutable once made.
using PodInfoConstSharedPtr = std::shared_ptr<const PodInfo>;

PodInfoConstSharedPtr MakePodInfo(api::PodConstSharedPtr pod);

}  // namespace tidepool::scheduler
