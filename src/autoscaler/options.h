// File: options.h
//
// The autoscaler's settings, named and defaulted as the Cluster Autoscaler's flags
// (cluster-autoscaler/main.go, config/autoscaling_options.go; FAQ "What are the parameters to
// CA?"). A config file (a later issue) sets them by these flag names.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "common/speed.h"
#include "scheduler/framework/runtime/registry.h"

namespace tidepool::autoscaler {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

struct MinMax {
  int64_t min = 0;
  int64_t max = 0;
};

struct AutoscalingOptions {
  // --scan-interval: the longest tidepool waits between loops; a new pending pod or a node
  // change starts one sooner, after `batching_window`.
  std::chrono::nanoseconds scan_interval = seconds(10);
  std::chrono::nanoseconds batching_window = seconds(1);

  // Scale-up.
  std::string expander = "least-waste";                    // --expander
  int max_nodes_total = 0;                                 // --max-nodes-total (0: unlimited)
  MinMax cores_total{0, 320000};                           // --cores-total
  MinMax memory_total_gib{0, 6400000};                     // --memory-total (GiB)
  std::map<std::string, MinMax> gpu_total;                 // --gpu-total <type>:<min>:<max>
  int max_nodes_per_scaleup = 1000;                        // --max-nodes-per-scaleup
  std::chrono::nanoseconds max_node_provision_time = minutes(15);  // --max-node-provision-time
  std::chrono::nanoseconds max_node_startup_time = minutes(15);    // --max-node-startup-time
  std::chrono::nanoseconds new_pod_scale_up_delay = seconds(0);    // --new-pod-scale-up-delay
  // How long a loop waits for more pods after a pod turned unschedulable before it scales up
  // for it (CA's unschedulablePodTimeBuffer and unschedulablePodWithGpuTimeBuffer).
  std::chrono::nanoseconds unschedulable_pod_time_buffer = seconds(2);
  std::chrono::nanoseconds unschedulable_pod_with_gpu_time_buffer = seconds(30);
  int expendable_pods_priority_cutoff = -10;  // --expendable-pods-priority-cutoff
  std::chrono::nanoseconds initial_node_group_backoff_duration = minutes(5);
  std::chrono::nanoseconds max_node_group_backoff_duration = minutes(30);
  std::chrono::nanoseconds node_group_backoff_reset_timeout = hours(3);
  bool scale_up_from_zero = true;  // --scale-up-from-zero

  // Scale-down.
  bool scale_down_enabled = true;                                        // --scale-down-enabled
  std::chrono::nanoseconds scale_down_delay_after_add = minutes(10);     // --scale-down-delay-after-add
  std::chrono::nanoseconds scale_down_delay_after_delete = seconds(0);   // (0: scan interval)
  std::chrono::nanoseconds scale_down_delay_after_failure = minutes(3);  // --scale-down-delay-after-failure
  std::chrono::nanoseconds scale_down_unneeded_time = minutes(10);       // --scale-down-unneeded-time
  std::chrono::nanoseconds scale_down_unready_time = minutes(20);        // --scale-down-unready-time
  double scale_down_utilization_threshold = 0.5;      // --scale-down-utilization-threshold
  double scale_down_gpu_utilization_threshold = 0.5;  // --scale-down-gpu-utilization-threshold
  // Not a Duration: it caps an eviction's gracePeriodSeconds (CA's single drain rule), a field
  // of the API request (object time), which --speed does not touch.
  int max_graceful_termination_sec = 600;             // --max-graceful-termination-sec
  // DaemonSet pods evicted (best effort) before an empty / a drained node is deleted; a pod's
  // annotation cluster-autoscaler.kubernetes.io/enable-ds-eviction "true"/"false" decides
  // for itself.
  bool daemonset_eviction_for_empty_nodes = false;    // --daemonset-eviction-for-empty-nodes
  bool daemonset_eviction_for_occupied_nodes = true;  // --daemonset-eviction-for-occupied-nodes
  int max_scale_down_parallelism = 10;                // --max-scale-down-parallelism
  int max_drain_parallelism = 1;                      // --max-drain-parallelism
  bool skip_nodes_with_system_pods = true;            // --skip-nodes-with-system-pods
  bool skip_nodes_with_local_storage = true;          // --skip-nodes-with-local-storage
  bool skip_nodes_with_custom_controller_pods = true;  // --skip-nodes-with-custom-controller-pods
  int min_replica_count = 0;                          // --min-replica-count
  // --unremovable-node-recheck-timeout: a node the drain simulation found unremovable is not
  // simulated again for this long.
  std::chrono::nanoseconds unremovable_node_recheck_timeout = minutes(5);
  // CA constants, not flags (options here so that --speed reaches them):
  // A ToBeDeletedByClusterAutoscaler taint younger than this marks a node as being deleted
  // (MaxCloudProviderNodeDeletionTime, core/scaledown/actuation/delete_in_batch.go).
  std::chrono::nanoseconds max_cloud_provider_node_deletion_time = minutes(5);
  // A pod terminating for longer than its grace period plus this is ignored by drain and
  // utilisation (drain.PodLongTerminatingExtraThreshold).
  std::chrono::nanoseconds pod_long_terminating_extra_threshold = seconds(30);
  // A real node is a good template for its group once Ready this long (stabilizationDelay,
  // processors/nodeinfosprovider/mixed_nodeinfos_processor.go).
  std::chrono::nanoseconds node_template_stabilization_delay = minutes(1);

  // Cluster health.
  int ok_total_unready_count = 3;           // --ok-total-unready-count
  int max_total_unready_percentage = 45;    // --max-total-unready-percentage

  // Status.
  bool write_status_configmap = true;                       // --write-status-configmap
  std::string status_config_map_name = "cluster-autoscaler-status";  // --status-config-map-name
  // tidepool's, not a flag: false writes the status ConfigMap only when something other than
  // its `time` changed (CA restamps it every loop; `tidepool simulate`'s default, where
  // nothing reads it between changes: sim/scenario.h `heartbeats`).
  bool status_heartbeat = true;

  // The profile of the cluster's scheduler, which the estimator and scale-down's simulation
  // run (a packing policy's: scheduler/plugins/packing/packing.h); kube-scheduler's default.
  scheduler::Profile scheduler_profile = scheduler::DefaultProfile();

  // Every Duration member above, once, by flag name (common/speed.h). All are the emulated
  // cluster's time in `tidepool up`; `tidepool autoscale` runs them on the real clock and has
  // no --speed.
  template <typename F>
  void ForEachDuration(F&& f) {
    constexpr TimeBase kE = TimeBase::kEmulated;
    f("scan-interval", scan_interval, kE);
    f("batching-window", batching_window, kE);
    f("max-node-provision-time", max_node_provision_time, kE);
    f("max-node-startup-time", max_node_startup_time, kE);
    f("new-pod-scale-up-delay", new_pod_scale_up_delay, kE);
    f("unschedulable-pod-time-buffer", unschedulable_pod_time_buffer, kE);
    f("unschedulable-pod-with-gpu-time-buffer", unschedulable_pod_with_gpu_time_buffer, kE);
    f("initial-node-group-backoff-duration", initial_node_group_backoff_duration, kE);
    f("max-node-group-backoff-duration", max_node_group_backoff_duration, kE);
    f("node-group-backoff-reset-timeout", node_group_backoff_reset_timeout, kE);
    f("scale-down-delay-after-add", scale_down_delay_after_add, kE);
    f("scale-down-delay-after-delete", scale_down_delay_after_delete, kE);
    f("scale-down-delay-after-failure", scale_down_delay_after_failure, kE);
    f("scale-down-unneeded-time", scale_down_unneeded_time, kE);
    f("scale-down-unready-time", scale_down_unready_time, kE);
    f("unremovable-node-recheck-timeout", unremovable_node_recheck_timeout, kE);
    f("max-cloud-provider-node-deletion-time", max_cloud_provider_node_deletion_time, kE);
    f("pod-long-terminating-extra-threshold", pod_long_terminating_extra_threshold, kE);
    f("node-template-stabilization-delay", node_template_stabilization_delay, kE);
  }
};

}  // namespace tidepool::autoscaler
