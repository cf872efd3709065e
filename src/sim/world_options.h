// File: world_options.h
//
// WorldOptions: the emulated cluster a runtime builds - `tidepool simulate`'s
// (runtime/sim_cluster.h) and `tidepool up`'s: its identity (project, cluster, zone), its seed,
// its history (the initial node pools, created `warmup` before `start`), the emulated cloud's
// delays and faults, and the options of the kubelets, kube-scheduler's queue and the cluster
// autoscaler. Scenario files (sim/scenario.h) and `up --config` fill it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autoscaler/options.h"
#include "cloud/emulated/emulated_cloud.h"
#include "common/clock.h"
#include "common/speed.h"
#include "kubelet/pod_lifecycle.h"
#include "scheduler/queue/scheduling_queue.h"

namespace tidepool::sim {

struct WorldOptions {
  uint64_t seed = 1;
  std::string project = "tidepool-local";
  std::string cluster = "tidepool";
  std::string zone = "us-central1-a";
  // The service cluster IP range (cluster.servicesIpv4Cidr, `tidepool up
  // --service-cluster-ip-range`); empty: the cloud style's DefaultServiceRange.
  std::string service_range;
  // The scenario's time zero (timeline stamps count from it).
  TimePoint start = SimulatedClock::kDefaultStart;
  // How long before `start` the initial node pools are created.
  Duration warmup = std::chrono::hours(1);
  // Created during the warm-up, in order; not when cloud.journal holds a cloud already (it is
  // restored instead, EmulatedCloud::Restore, and its pending steps run during the warm-up
  // when they are due before `start`).
  std::vector<cloud::emulated::NodePoolSpec> node_pools;
  // `logger` is set by the runtime.
  cloud::emulated::EmulatedCloudOptions cloud;
  kubelet::KubeletOptions kubelet;
  scheduler::SchedulingQueueOptions scheduler;
  bool autoscaler = true;
  autoscaler::AutoscalingOptions autoscaling;
  // klog verbosity of the autoscaler (--v).
  int autoscaler_verbosity = 0;

  // Every Duration member, here and in the components' options, once (common/speed.h). The
  // warm-up is the cluster's history before `start`, run at once and never waited for; it is
  // emulated time all the same (under --speed the initial nodes are `warmup / speed` old).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("warmup", warmup, TimeBase::kEmulated);
    cloud.ForEachDuration(WithPrefix("cloud.", f));
    kubelet.ForEachDuration(WithPrefix("kubelet.", f));
    scheduler.ForEachDuration(WithPrefix("scheduler.", f));
    autoscaling.ForEachDuration(WithPrefix("autoscaler.", f));
  }
};

}  // namespace tidepool::sim
