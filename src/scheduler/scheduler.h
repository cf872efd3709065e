// File: scheduler.h
//
// Scheduler: one scheduling cycle for one pod against a ClusterSnapshot, and the binding of the
// result into the snapshot (kube-scheduler's ScheduleOne without the API calls, which belong
// to the runtimes). The same Framework and plugins serve the autoscaler's estimator.
#pragma once

#include <memory>

#include "common/status_or.h"
#include "scheduler/framework/runtime/framework.h"

namespace tidepool::scheduler {

class Scheduler {
 public:
  // Builds the profile's plugins from the in-tree registry.
  static StatusOr<std::unique_ptr<Scheduler>> Create(const Profile& profile = DefaultProfile());

  // Schedules `pod`; if a node fits, adds the pod to it in `snapshot`, with the GPUs Reserve
  // gave it. The snapshot's node membership is the binding: the pod object itself is not
  // copied.
  ScheduleResult ScheduleOne(const PodInfoConstSharedPtr& pod, ClusterSnapshot& snapshot) const;

  const Framework& framework() const { return *framework_; }

 private:
  explicit Scheduler(std::unique_ptr<Framework> fw) : framework_(std::move(fw)) {}
  std::unique_ptr<Framework> framework_;
};

}  // namespace tidepool::scheduler
