// File: node_info.h
//
// NodeInfo: a node plus the pods on it and the resources they request (framework.NodeInfo).
// NodeInfos are owned by a ClusterSnapshot and change only through it, so that the snapshot's
// equivalence indexes and undo log stay consistent; everyone else reads them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/node.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/resource.h"

namespace tidepool::scheduler {

class ClusterSnapshot;

class NodeInfo {
 public:
  explicit NodeInfo(api::NodeConstSharedPtr node);

  const api::Node& node() const { return *node_; }
  const api::NodeConstSharedPtr& node_ptr() const { return node_; }
  const std::string& name() const { return node_->meta.name; }
  const std::vector<PodInfoConstSharedPtr>& pods() const { return pods_; }
  const Resource& allocatable() const { return allocatable_; }
  // Sum of the pods' requests (allowed_pod_number unused).
  const Resource& requested() const { return requested_; }
  // Sum of the pods' non-zero cpu and memory requests (scoring).
  int64_t non_zero_milli_cpu() const { return non_zero_milli_cpu_; }
  int64_t non_zero_memory() const { return non_zero_memory_; }
  // True if some pod on the node has priority strictly below `priority` (preemption victims).
  bool HasPodWithPriorityBelow(int32_t priority) const {
    return !priority_counts_.empty() && priority_counts_.front().first < priority;
  }

 private:
  friend class ClusterSnapshot;

  void SetNode(api::NodeConstSharedPtr node);
  void AddPod(PodInfoConstSharedPtr pod);
  // Removes pods_[i] by moving the last pod into its place; returns the removed pod.
  PodInfoConstSharedPtr RemovePodAt(size_t i);
  // Exact inverse of RemovePodAt(i).
  void RestorePodAt(size_t i, PodInfoConstSharedPtr pod);
  void Account(const PodInfo& pod, int sign);

  api::NodeConstSharedPtr node_;
  std::vector<PodInfoConstSharedPtr> pods_;
  Resource allocatable_;
  Resource requested_;
  int64_t non_zero_milli_cpu_ = 0;
  int64_t non_zero_memory_ = 0;
  // (priority, number of pods) sorted by priority.
  std::vector<std::pair<int32_t, int32_t>> priority_counts_;
};

}  // namespace tidepool::scheduler
