// File: cluster_actors.h
//
// ClusterActors: the actors of an emulated cluster, each an API client over one transport with
// its own identity (user agent, as kube-apiserver records it in managedFields) and its own
// events' source, all reading through one shared informer factory (one list+watch and one
// decode per collection, as kube-controller-manager shares one factory among its controllers):
//
//   kube-scheduler          runtime/kube_scheduler.h        "kube-scheduler/v1.32.4 ..."
//   the kubelets            runtime/kube_kubelets.h         "kubelet/v1.32.4 ..."
//   cluster autoscaler      runtime/embedded_autoscaler.h   (optional; its loop on `timers`)
//   kube-controller-manager controllers/: disruption (events "controllermanager"),
//                           replicaset ("replicaset-controller"), deployment
//                           ("deployment-controller"), job ("job-controller"), statefulset,
//                           daemonset, pod GC, garbage collector
//                           ("garbage-collector-controller") - each with kcm's
//                           service-account identity
//
// `tidepool up` builds them over its in-process transport (cluster/in_process_transport.h),
// each actor on threads of its own; `tidepool simulate` builds the very same set with an
// executor (every actor's work a callback of its event queue, no thread) and an informer
// driver (cluster/store_informer_driver.h: the informers fed from the store on that queue).
// Nothing here knows about HTTP listeners, the GKE API or the emulated cloud beyond the
// autoscaler's provider.
//
// Lifecycle: Create makes every actor (each adds its informer handlers), Start starts the
// shared informers and then the actors (each waits for its caches as its upstream does), Stop
// stops them all together (each informer notices within its watch's poll, so one by one would
// take that long each). The destructor stops what still runs.
//
// Thread-safe: Create, Start and Stop from one thread.
#pragma once

#include <memory>

#include "autoscaler/options.h"
#include "client/http/http_client.h"
#include "client/informer.h"
#include "client/shared_informers.h"
#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/status_or.h"
#include "common/timer_service.h"
#include "runtime/up_options.h"

namespace tidepool::runtime {

// The kubelets' identity, as kube-apiserver records it (managedFields' manager "kubelet"): the
// actors' and that of the emulated cloud's node registration (kubelet/api_node_sink.h).
inline constexpr char kKubeletUserAgent[] = "kubelet/v1.32.4 (linux/amd64) kubernetes/$Format";

struct ClusterActorsConfig {
  // Every component's options (--speed already applied): the scheduler's and kubelets' from
  // `world`, the autoscaler's from `world.autoscaling`, the controllers' own.
  const UpComponentOptions* components = nullptr;
  uint64_t seed = 1;
  // The embedded cluster autoscaler, with the cloud's provider, its loop on `autoscaler_timers`
  // and its klog lines to `autoscaler_log`; all three must be set when `autoscaler` is.
  bool autoscaler = false;
  cloud::CloudProvider* cloud = nullptr;
  TimerService* autoscaler_timers = nullptr;
  log::Logger* autoscaler_log = nullptr;
  // Simulate: every actor runs on `executor` (null: threads of their own) and the shared
  // informers are driven by `driver` (null: list+watch threads). Set both or neither.
  TimerService* executor = nullptr;
  client::InformerDriver* driver = nullptr;
  // The CA (PEM) clients verify the API server with, which kcm's root-ca-cert-publisher puts in
  // every namespace's kube-root-ca.crt ConfigMap; empty in simulate (no HTTPS endpoint), where
  // the ConfigMap's ca.crt is empty (it exists: every pod's token volume mounts it).
  std::string root_ca_pem;
};

class ClusterActors {
 public:
  // `api` and `clock` must outlive the actors; so must everything `config` points to.
  // InvalidArgument when the autoscaler's options are refused, as EmbeddedAutoscaler::Create.
  static StatusOr<std::unique_ptr<ClusterActors>> Create(const ClusterActorsConfig& config,
                                                         const client::http::HttpTransport& api,
                                                         const Clock& clock);
  ~ClusterActors();
  ClusterActors(const ClusterActors&) = delete;
  ClusterActors& operator=(const ClusterActors&) = delete;

  // Starts the informers and every actor, the autoscaler too unless `defer_autoscaler`
  // (simulate: the cluster's warm-up runs the rest; the autoscaler starts with the scenario).
  void Start(bool defer_autoscaler = false);
  // Starts the autoscaler, if any and not started. REQUIRES: Start() was called.
  void StartAutoscaler();
  // Idempotent.
  void Stop();

  // The actors' shared informers: another consumer (simulate's timeline) adds its handlers
  // here before Start.
  client::SharedInformerFactory& informers();

 private:
  struct Parts;
  explicit ClusterActors(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace tidepool::runtime
