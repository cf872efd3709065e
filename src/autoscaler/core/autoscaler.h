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
//      expendable pods are ignored; the rest go to the scale-up orchestrator;
//   4. scale-down (unneeded tracking always; deletions outside cooldown).
// Logs and events are CA's wording. Not thread-safe: one loop at a time.
#pragma once

#include <memory>
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

  // Where the loop reports its metrics; nullptr (the default): nowhere. Not owned.
  virtual void SetMetrics(Metrics* metrics) = 0;

  // CA's status ConfigMap `data.status` (YAML), as of the last loop; its first line is
  // `time: <the loop's time>`.
  virtual std::string StatusYaml() const = 0;
};

}  // namespace tidepool::autoscaler
