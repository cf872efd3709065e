// File: sim_cluster.h
//
// SimCluster: `tidepool simulate`'s cluster on the API's object store, the same actors as
// `tidepool up`'s on one deterministic event queue (issue 15's "one store"):
//
//   EventQueue (the simulated clock; every actor's work is one of its callbacks)
//     ObjectStore (memory) <- ApiServer <- InProcessTransport <- every client below
//     EmulatedCloud (VMs, node pools) --ApiNodeSink--> Nodes in the API
//     ClusterActors: kube-scheduler, kubelets, kcm's controllers, the cluster autoscaler,
//       their informers driven from the store (StoreInformerDriver) in revision order
//     TimelineRecorder <- TimelineFeed (informers of pods, nodes, events), cloud events, logs
//
// Time: the queue starts `warmup` before `start`: the initial node pools are created then and
// their VMs boot and register (through the API); once they have, the cluster's bootstrap
// (cluster_bootstrap.h) is written and every actor but the autoscaler runs through the rest of
// the warm-up (kube-dns and the device plugin are up before the scenario begins). At `start` the
// autoscaler starts and the timeline records the initial state. Nothing reads the OS clock; a
// run is a function of the options (seed included).
//
// Actions (what kubectl and gcloud do in a scenario) are requests through kubectl() - an API
// client with kubectl's identity - and calls on cloud().
//
// Not thread-safe: everything runs on the caller's thread, in RunUntil.
#pragma once

#include <memory>

#include "apiserver/api_server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "client/rest_client.h"
#include "cloud/emulated/emulated_cloud.h"
#include "cluster/in_process_transport.h"
#include "cluster/store_informer_driver.h"
#include "common/event_queue.h"
#include "common/log.h"
#include "common/random.h"
#include "common/status_or.h"
#include "kubelet/api_node_sink.h"
#include "runtime/cluster_actors.h"
#include "runtime/timeline_feed.h"
#include "runtime/up_options.h"
#include "sim/timeline.h"

namespace tidepool::runtime {

class SimCluster {
 public:
  // `components.world` says the cluster (project, zone, pools, seed, start, warm-up) and the
  // actors' options; the autoscaler runs when `components.world.autoscaler`. Builds it and
  // runs the warm-up up to `start`. InvalidArgument naming the pool a cloud refuses.
  static StatusOr<std::unique_ptr<SimCluster>> Create(UpComponentOptions components,
                                                      bool gpu_operator = true);
  ~SimCluster();
  SimCluster(const SimCluster&) = delete;
  SimCluster& operator=(const SimCluster&) = delete;

  EventQueue& queue() { return queue_; }
  TimePoint Now() const { return queue_.Now(); }
  apiserver::ObjectStore& store() { return store_; }
  // A client as `kubectl` is one (its user agent is recorded in managedFields).
  const client::RestClient& kubectl() const { return kubectl_; }
  cloud::emulated::EmulatedCloud& cloud() { return *cloud_; }
  sim::Timeline& timeline() { return timeline_; }
  sim::TimelineRecorder& recorder() { return *recorder_; }
  const TimelineFeed& feed() const { return *feed_; }
  log::Logger& autoscaler_log() { return autoscaler_log_; }

  void RunUntil(TimePoint t) { queue_.RunUntil(t); }
  void RunFor(Duration d) { queue_.RunUntil(queue_.Now() + d); }

 private:
  explicit SimCluster(UpComponentOptions components);
  Status Init(bool gpu_operator);

  UpComponentOptions components_;
  EventQueue queue_;
  apiserver::ObjectStore store_;
  apiserver::PodLogs logs_;
  apiserver::ApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient kubectl_;
  client::RestClient node_client_;
  kubelet::ApiNodeSink node_sink_;
  Random cloud_random_;
  log::Logger cloud_log_;
  log::Logger autoscaler_log_;
  sim::Timeline timeline_;
  std::unique_ptr<cloud::emulated::EmulatedCloud> cloud_;
  std::unique_ptr<sim::TimelineRecorder> recorder_;
  cluster::StoreInformerDriver driver_;
  std::unique_ptr<ClusterActors> actors_;
  std::unique_ptr<TimelineFeed> feed_;
};

}  // namespace tidepool::runtime
