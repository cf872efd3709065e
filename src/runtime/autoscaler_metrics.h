// File: autoscaler_metrics.h
//
// PrometheusMetrics: the autoscaler's metrics (autoscaler/metrics.h) as the Cluster Autoscaler
// exports them (metrics/metrics.go; names under the `cluster_autoscaler_` namespace), through
// prometheus-cpp's registry and text serializer, served by `tidepool autoscale` at /metrics:
//
//   cluster_autoscaler_cluster_safe_to_autoscale           gauge
//   cluster_autoscaler_nodes_count{state}                  gauge  ready, unready, notStarted,
//                                                                 longUnregistered, unregistered
//   cluster_autoscaler_node_groups_count{node_group_type}  gauge  autoscaled
//   cluster_autoscaler_max_nodes_count                     gauge
//   cluster_autoscaler_unschedulable_pods_count{type}      gauge  unschedulable
//   cluster_autoscaler_unneeded_nodes_count                gauge
//   cluster_autoscaler_last_activity{activity}             gauge  unix seconds; main,
//                                                                 autoscaling, scaleUp, scaleDown
//   cluster_autoscaler_function_duration_seconds{function} histogram  main
//   cluster_autoscaler_errors_total{type}                  counter  cloudProviderError,
//                                                                 apiCallError, internalError
//   cluster_autoscaler_scaled_up_nodes_total{gpu_resource_name,gpu_name}  counter
//   cluster_autoscaler_failed_scale_ups_total{reason}      counter
//   cluster_autoscaler_scaled_down_nodes_total{reason}     counter  empty, underutilized
//   cluster_autoscaler_leader{identity}                    gauge  tidepool: 1 while leading
//
// Thread-safe (prometheus-cpp's metrics are).
#pragma once

#include <memory>
#include <string>

#include "autoscaler/metrics.h"

namespace prometheus {
class Registry;
}

namespace tidepool::runtime {

class PrometheusMetrics final : public autoscaler::Metrics {
 public:
  PrometheusMetrics();
  ~PrometheusMetrics() override;

  void UpdateLastTime(std::string_view activity, TimePoint now) override;
  void UpdateClusterSafeToAutoscale(bool safe) override;
  void UpdateNodesCount(int ready, int unready, int not_started, int long_unregistered,
                        int unregistered) override;
  void UpdateNodeGroupsCount(int autoscaled) override;
  void UpdateUnschedulablePodsCount(int unschedulable) override;
  void UpdateUnneededNodesCount(int unneeded) override;
  void RegisterScaleUp(int nodes, std::string_view gpu_resource,
                       std::string_view gpu_type) override;
  void RegisterFailedScaleUp(std::string_view reason) override;
  void RegisterScaleDown(int nodes, std::string_view reason) override;

  // Not engine hooks: set by the command.
  void UpdateMaxNodesCount(int max_nodes);
  void UpdateFunctionDuration(std::string_view function, Duration d);
  void RegisterError(std::string_view type);
  void UpdateLeader(const std::string& identity, bool leading);

  // The Prometheus text exposition format (version 0.0.4).
  std::string Serialize() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tidepool::runtime
