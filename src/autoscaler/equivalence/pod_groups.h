// File: pod_groups.h
//
// Pod equivalence groups (CA's core/scaleup/equivalence/groups.go): pending pods are grouped
// before any per-pod work, so scale-up checks a group's exemplar once instead of every pod.
// Pods join a group when they have the same controller (owner reference with controller=true)
// and the same labels and spec (compared by PodInfo::fingerprint, computed once per pod); a controller has at most 10 groups (more
// variants become groups of their own); pods without a controller are singletons. Groups keep
// the order in which their first pod appeared.
#pragma once

#include <vector>

#include "scheduler/framework/pod_info.h"

namespace tidepool::autoscaler {

inline constexpr int kMaxEquivalenceGroupsByController = 10;

struct PodEquivalenceGroup {
  std::vector<scheduler::PodInfoConstSharedPtr> pods;  // never empty; pods[0] is the exemplar
  const scheduler::PodInfo& Exemplar() const { return *pods.front(); }
};

std::vector<PodEquivalenceGroup> BuildPodEquivalenceGroups(
    const std::vector<scheduler::PodInfoConstSharedPtr>& pods);

}  // namespace tidepool::autoscaler
