// File: metrics.h
//
// What the autoscaler reports for monitoring, as the Cluster Autoscaler's metrics package does
// (cluster-autoscaler/metrics/metrics.go): the engine calls these hooks; `tidepool autoscale`
// turns them into Prometheus metrics with CA's names (cluster_autoscaler_*), and tests may
// record them. Every hook has an empty default so that an implementation overrides only what it
// exports. Called from the autoscaler's one loop thread.
#pragma once

#include <string_view>

#include "common/clock.h"

namespace tidepool::autoscaler {

class Metrics {
 public:
  virtual ~Metrics() = default;

  // cluster_autoscaler_last_activity{activity}: "main" every loop, "autoscaling" when the
  // cluster was safe to autoscale, "scaleUp" / "scaleDown" when those ran.
  virtual void UpdateLastTime(std::string_view activity, TimePoint now) {}
  // cluster_autoscaler_cluster_safe_to_autoscale.
  virtual void UpdateClusterSafeToAutoscale(bool safe) {}
  // cluster_autoscaler_nodes_count{state}: ready, unready, notStarted, longUnregistered,
  // unregistered (cluster-wide).
  virtual void UpdateNodesCount(int ready, int unready, int not_started, int long_unregistered,
                                int unregistered) {}
  // cluster_autoscaler_node_groups_count{node_group_type="autoscaled"}.
  virtual void UpdateNodeGroupsCount(int autoscaled) {}
  // cluster_autoscaler_unschedulable_pods_count{type="unschedulable"}.
  virtual void UpdateUnschedulablePodsCount(int unschedulable) {}
  // cluster_autoscaler_unneeded_nodes_count.
  virtual void UpdateUnneededNodesCount(int unneeded) {}
  // cluster_autoscaler_scaled_up_nodes_total (+ _gpu_nodes_total when gpu_type is set).
  virtual void RegisterScaleUp(int nodes, std::string_view gpu_resource,
                               std::string_view gpu_type) {}
  // cluster_autoscaler_failed_scale_ups_total{reason}: "cloudProviderError", "timeout",
  // or the out-of-resources code.
  virtual void RegisterFailedScaleUp(std::string_view reason) {}
  // cluster_autoscaler_scaled_down_nodes_total{reason}: "empty", "underutilized".
  virtual void RegisterScaleDown(int nodes, std::string_view reason) {}
};

}  // namespace tidepool::autoscaler
