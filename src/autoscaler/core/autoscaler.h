// File: autoscaler.h
//
// The autoscaler's control loop (CA's StaticAutoscaler.RunOnce), taking `now` as an argument
// and reading the cluster only through a ClusterView. One loop:
//   1. readiness of every node group's nodes and instances (cluster state): Ready, NotStarted,
//      Unready, Unregistered; GPU nodes that are Ready but whose GPUs are not allocatable yet
//      count as upcoming capacity, never as a reason for another scale-up;
//   2. failed instances (stockout, quota) end their scale-up request at once, back the group off
//      (5 min doubling to 30 min) and are deleted, so the next loop falls back to another group;
//      scale-ups whose nodes do not register within max-node-provision-time are reverted;
//   3. pending pods that fit existing or upcoming nodes are dropped (FilterOutSchedulable);
//      expendable pods (priority under --expendable-pods-priority-cutoff) are ignored, pending
//      or scheduled (the snapshot holds no expendable pod, as CA's); the rest go to the
//      scale-up orchestrator;
//   4. scale-down (unneeded tracking always; deletions outside cooldown).
// Logs and events are CA's wording. Not thread-safe: one loop at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "autoscaler/cluster_view.h"
#include "autoscaler/events.h"
#include "autoscaler/metrics.h"
#include "autoscaler/options.h"
#include "cloud/cloud_provider.h"
#include "common/log.h"
#include "common/random.h"
#include "common/status_or.h"

namespace tidepool::autoscaler {

class Autoscaler {
 public:
  // Every reference must outlive the autoscaler.
  static StatusOr<std::unique_ptr<Autoscaler>> Create(const AutoscalingOptions& options,
                                                      cloud::CloudProvider& cloud,
                                                      ClusterWriter& writer,
                                                      EventRecorder& recorder,
                                                      log::Logger& logger, Random& random);
  virtual ~Autoscaler() = default;

  // One iteration of the control loop at `now`.
  virtual Status RunOnce(TimePoint now, const ClusterView& view) = 0;

  // Until when the last RunOnce's answer stands with time alone; nullopt when it may not. It
  // stands when the loop logged nothing, scaled nothing up (no option for the unschedulable
  // pods, or none of them: no pod too new to act on, no scale-up failed), had no scale-up in
  // flight and no group backed off, found every node registered, ready and started and no
  // instance creating, failed or being deleted (each group's target equal to its registered
  // nodes), no terminating pod, and a settled scale-down planner (scale_down.h) - until the
  // planner's first unremovable recheck or a node's end of its template stabilization delay.
  // Then RunOnce at a later `now` before that time, with the same view and the same cloud
  // (every group's NodesVersion and target size), would log, write and decide the same: at
  // most the same events again (NotTriggerScaleUp for a pod no group can take). A caller that
  // can tell that the inputs did not change may call SkipOnce instead (the simulator, whose
  // replays of weeks are mostly such loops).
  virtual std::optional<TimePoint> SettledUntil() const = 0;
  // A loop at `now` not run for the reason above: emits the last loop's events again and keeps
  // the loop's times (CA's loop interval, the metrics' last-activity times) as RunOnce would.
  // REQUIRES: now < *SettledUntil().
  virtual void SkipOnce(TimePoint now) = 0;

  // Where the loop reports its metrics; nullptr (the default): nowhere. Not owned.
  virtual void SetMetrics(Metrics* metrics) = 0;

  // CA's status ConfigMap `data.status` (YAML), as of the last loop; its first line is
  // `time: <the loop's time>`.
  virtual std::string StatusYaml() const = 0;
};

}  // namespace tidepool::autoscaler
