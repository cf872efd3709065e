#include "runtime/autoscaler_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

namespace tidepool::runtime {

namespace pm = prometheus;

struct PrometheusMetrics::Impl {
  std::shared_ptr<pm::Registry> registry = std::make_shared<pm::Registry>();
  pm::Family<pm::Gauge>& safe = pm::BuildGauge()
                                    .Name("cluster_autoscaler_cluster_safe_to_autoscale")
                                    .Help("Whether or not cluster is healthy enough for autoscaling. "
                                          "1 if it is, 0 otherwise.")
                                    .Register(*registry);
  pm::Family<pm::Gauge>& nodes = pm::BuildGauge()
                                     .Name("cluster_autoscaler_nodes_count")
                                     .Help("Number of nodes in cluster.")
                                     .Register(*registry);
  pm::Family<pm::Gauge>& groups = pm::BuildGauge()
                                      .Name("cluster_autoscaler_node_groups_count")
                                      .Help("Number of node groups managed by CA.")
                                      .Register(*registry);
  pm::Family<pm::Gauge>& max_nodes = pm::BuildGauge()
                                         .Name("cluster_autoscaler_max_nodes_count")
                                         .Help("Maximum number of nodes in all node groups")
                                         .Register(*registry);
  pm::Family<pm::Gauge>& unschedulable = pm::BuildGauge()
                                             .Name("cluster_autoscaler_unschedulable_pods_count")
                                             .Help("Number of unschedulable pods in the cluster.")
                                             .Register(*registry);
  pm::Family<pm::Gauge>& unneeded =
      pm::BuildGauge()
          .Name("cluster_autoscaler_unneeded_nodes_count")
          .Help("Number of nodes currently considered unneeded by CA.")
          .Register(*registry);
  pm::Family<pm::Gauge>& last_activity =
      pm::BuildGauge()
          .Name("cluster_autoscaler_last_activity")
          .Help("Last time certain part of CA logic executed.")
          .Register(*registry);
  pm::Family<pm::Histogram>& durations =
      pm::BuildHistogram()
          .Name("cluster_autoscaler_function_duration_seconds")
          .Help("Time taken by various parts of CA main loop.")
          .Register(*registry);
  pm::Family<pm::Counter>& errors = pm::BuildCounter()
                                        .Name("cluster_autoscaler_errors_total")
                                        .Help("The number of CA loops failed due to an error.")
                                        .Register(*registry);
  pm::Family<pm::Counter>& scaled_up = pm::BuildCounter()
                                           .Name("cluster_autoscaler_scaled_up_nodes_total")
                                           .Help("Number of nodes added by CA.")
                                           .Register(*registry);
  pm::Family<pm::Counter>& failed_scale_ups =
      pm::BuildCounter()
          .Name("cluster_autoscaler_failed_scale_ups_total")
          .Help("Number of times scale-up operation has failed.")
          .Register(*registry);
  pm::Family<pm::Counter>& scaled_down = pm::BuildCounter()
                                             .Name("cluster_autoscaler_scaled_down_nodes_total")
                                             .Help("Number of nodes removed by CA.")
                                             .Register(*registry);
  pm::Family<pm::Gauge>& leader = pm::BuildGauge()
                                      .Name("cluster_autoscaler_leader")
                                      .Help("tidepool: 1 while this replica holds the leader "
                                            "lease, 0 otherwise.")
                                      .Register(*registry);

  Impl() {
    safe.Add({});
    max_nodes.Add({});
    unneeded.Add({});
    for (const char* s : {"ready", "unready", "notStarted", "longUnregistered", "unregistered"}) {
      nodes.Add({{"state", s}});
    }
    groups.Add({{"node_group_type", "autoscaled"}});
    unschedulable.Add({{"type", "unschedulable"}});
    scaled_up.Add({{"gpu_resource_name", ""}, {"gpu_name", ""}});
  }
};

PrometheusMetrics::PrometheusMetrics() : impl_(std::make_unique<Impl>()) {}
PrometheusMetrics::~PrometheusMetrics() = default;

void PrometheusMetrics::UpdateLastTime(std::string_view activity, TimePoint now) {
  impl_->last_activity.Add({{"activity", std::string(activity)}})
      .Set(static_cast<double>(UnixSeconds(now)));
}

void PrometheusMetrics::UpdateClusterSafeToAutoscale(bool safe) {
  impl_->safe.Add({}).Set(safe ? 1 : 0);
}

void PrometheusMetrics::UpdateNodesCount(int ready, int unready, int not_started,
                                         int long_unregistered, int unregistered) {
  impl_->nodes.Add({{"state", "ready"}}).Set(ready);
  impl_->nodes.Add({{"state", "unready"}}).Set(unready);
  impl_->nodes.Add({{"state", "notStarted"}}).Set(not_started);
  impl_->nodes.Add({{"state", "longUnregistered"}}).Set(long_unregistered);
  impl_->nodes.Add({{"state", "unregistered"}}).Set(unregistered);
}

void PrometheusMetrics::UpdateNodeGroupsCount(int autoscaled) {
  impl_->groups.Add({{"node_group_type", "autoscaled"}}).Set(autoscaled);
}

void PrometheusMetrics::UpdateUnschedulablePodsCount(int unschedulable) {
  impl_->unschedulable.Add({{"type", "unschedulable"}}).Set(unschedulable);
}

void PrometheusMetrics::UpdateUnneededNodesCount(int unneeded) {
  impl_->unneeded.Add({}).Set(unneeded);
}

void PrometheusMetrics::RegisterScaleUp(int nodes, std::string_view gpu_resource,
                                        std::string_view gpu_type) {
  impl_->scaled_up
      .Add({{"gpu_resource_name", std::string(gpu_resource)}, {"gpu_name", std::string(gpu_type)}})
      .Increment(nodes);
}

void PrometheusMetrics::RegisterFailedScaleUp(std::string_view reason) {
  impl_->failed_scale_ups.Add({{"reason", std::string(reason)}}).Increment();
}

void PrometheusMetrics::RegisterScaleDown(int nodes, std::string_view reason) {
  impl_->scaled_down.Add({{"reason", std::string(reason)}}).Increment(nodes);
}

void PrometheusMetrics::UpdateMaxNodesCount(int max_nodes) { impl_->max_nodes.Add({}).Set(max_nodes); }

void PrometheusMetrics::UpdateFunctionDuration(std::string_view function, Duration d) {
  // Exponential buckets from 10 ms doubling, as CA's function durations.
  static const pm::Histogram::BucketBoundaries kBuckets = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64,
                                                           1.28, 2.56, 5.12, 10.24, 20.48, 40.96};
  impl_->durations.Add({{"function", std::string(function)}}, kBuckets)
      .Observe(std::chrono::duration<double>(d).count());
}

void PrometheusMetrics::RegisterError(std::string_view type) {
  impl_->errors.Add({{"type", std::string(type)}}).Increment();
}

void PrometheusMetrics::UpdateLeader(const std::string& identity, bool leading) {
  impl_->leader.Add({{"identity", identity}}).Set(leading ? 1 : 0);
}

std::string PrometheusMetrics::Serialize() const {
  pm::TextSerializer serializer;
  return serializer.Serialize(impl_->registry->Collect());
}

}  // namespace tidepool::runtime
