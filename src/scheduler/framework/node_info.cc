#include "scheduler/framework/node_info.h"

#include <algorithm>

#include "common/check.h"

namespace tidepool::scheduler {

NodeInfo::NodeInfo(api::NodeConstSharedPtr node) { SetNode(std::move(node)); }

void NodeInfo::SetNode(api::NodeConstSharedPtr node) {
  node_ = std::move(node);
  allocatable_ = Resource::FromList(node_->status.allocatable);
}

void NodeInfo::Account(const PodInfo& pod, int sign) {
  if (sign > 0) {
    requested_.Add(pod.request());
  } else {
    requested_.Sub(pod.request());
  }
  non_zero_milli_cpu_ += sign * pod.non_zero_milli_cpu();
  non_zero_memory_ += sign * pod.non_zero_memory();
  int32_t prio = pod.Priority();
  auto it = std::lower_bound(priority_counts_.begin(), priority_counts_.end(), prio,
                             [](const auto& e, int32_t p) { return e.first < p; });
  if (sign > 0) {
    if (it != priority_counts_.end() && it->first == prio) {
      ++it->second;
    } else {
      priority_counts_.emplace(it, prio, 1);
    }
  } else {
    TIDEPOOL_DCHECK(it != priority_counts_.end() && it->first == prio);
    if (--it->second == 0) {
      priority_counts_.erase(it);
    }
  }
}

void NodeInfo::AddPod(PodInfoConstSharedPtr pod) {
  Account(*pod, +1);
  pods_.push_back(std::move(pod));
}

PodInfoConstSharedPtr NodeInfo::RemovePodAt(size_t i) {
  TIDEPOOL_DCHECK(i < pods_.size());
  PodInfoConstSharedPtr removed = std::move(pods_[i]);
  if (i + 1 != pods_.size()) {
    pods_[i] = std::move(pods_.back());
  }
  pods_.pop_back();
  Account(*removed, -1);
  return removed;
}

void NodeInfo::RestorePodAt(size_t i, PodInfoConstSharedPtr pod) {
  Account(*pod, +1);
  if (i == pods_.size()) {
    pods_.push_back(std::move(pod));
  } else {
    pods_.push_back(std::move(pods_[i]));
    pods_[i] = std::move(pod);
  }
}

}  // namespace tidepool::scheduler
