// File: up_options.h
//
// The options of every component `tidepool up` builds, in one struct, so that --speed reaches
// all of them through one visitor (common/speed.h): the world (emulated cloud, kubelets,
// scheduler loop, autoscaler), the API's object store, the API server, the GKE API and
// kube-controller-manager's controllers. RunUp
// builds those components from these options; ApplySpeed is the one place --speed is applied.
//
// A component added to `up` gets its options struct here, with a ForEachDuration of its own;
// up_options_test.cc enumerates the members of this struct independently (Boost.PFR) and
// fails when a Duration member anywhere inside it is not listed by a visitor.
#pragma once

#include "apiserver/api_server.h"
#include "cloud/gke/gke_api.h"
#include "common/speed.h"
#include "controllers/cronjob/cronjob_controller.h"
#include "controllers/daemonset/daemonset_controller.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/garbagecollector/garbage_collector.h"
#include "controllers/job/job_controller.h"
#include "controllers/namespace/namespace_controller.h"
#include "controllers/nodelifecycle/node_lifecycle_controller.h"
#include "controllers/persistentvolume/external_provisioner.h"
#include "controllers/persistentvolume/persistentvolume_controller.h"
#include "controllers/podgc/podgc_controller.h"
#include "controllers/replicaset/replicaset_controller.h"
#include "controllers/resourcequota/resourcequota_controller.h"
#include "controllers/service/service_controller.h"
#include "controllers/statefulset/statefulset_controller.h"
#include "sim/world_options.h"

namespace tidepool::runtime {

struct UpComponentOptions {
  sim::WorldOptions world;
  apiserver::StoreOptions store;
  apiserver::ApiServerOptions api_server;
  cloud::gke::GkeApiOptions gke_api;
  controllers::disruption::DisruptionControllerOptions disruption;
  controllers::replicaset::ReplicaSetControllerOptions replicaset;
  controllers::deployment::DeploymentControllerOptions deployment;
  controllers::job::JobControllerOptions job;
  controllers::cronjob::CronJobControllerOptions cronjob;
  controllers::garbagecollector::GarbageCollectorOptions garbage_collector;
  controllers::statefulset::StatefulSetControllerOptions statefulset;
  controllers::daemonset::DaemonSetControllerOptions daemonset;
  controllers::podgc::PodGcControllerOptions podgc;
  controllers::nodelifecycle::NodeLifecycleControllerOptions node_lifecycle;
  controllers::ns::NamespaceControllerOptions namespace_controller;
  controllers::resourcequota::ResourceQuotaControllerOptions resourcequota;
  controllers::service::ServiceControllerOptions service;
  controllers::persistentvolume::PersistentVolumeControllerOptions persistent_volume;
  controllers::persistentvolume::ExternalProvisionerOptions pd_provisioner;

  // The options that follow from `world`, once it is set: the API server's service range is
  // the world's (cluster.servicesIpv4Cidr, already validated), else its cloud's default.
  void ApplyWorld() {
    const std::string range = world.service_range.empty()
                                  ? std::string(world.cloud.style->DefaultServiceRange())
                                  : world.service_range;
    if (auto parsed = api::Ipv4Cidr::ParseServiceRange(range); parsed.ok()) {
      api_server.service_range = *parsed;
    }
  }

  // Names as the --config file spells them ("cloud.delays.provisioning",
  // "autoscaler.scan-interval"); the object store's, the API server's and the GKE API's under
  // "store.", "apiServer." and "gkeApi.".
  template <typename F>
  void ForEachDuration(F&& f) {
    world.ForEachDuration(f);
    store.ForEachDuration(WithPrefix("store.", f));
    api_server.ForEachDuration(WithPrefix("apiServer.", f));
    gke_api.ForEachDuration(WithPrefix("gkeApi.", f));
    disruption.ForEachDuration(WithPrefix("disruption.", f));
    replicaset.ForEachDuration(WithPrefix("replicaset.", f));
    deployment.ForEachDuration(WithPrefix("deployment.", f));
    job.ForEachDuration(WithPrefix("job.", f));
    cronjob.ForEachDuration(WithPrefix("cronjob.", f));
    garbage_collector.ForEachDuration(WithPrefix("garbageCollector.", f));
    statefulset.ForEachDuration(WithPrefix("statefulset.", f));
    daemonset.ForEachDuration(WithPrefix("daemonset.", f));
    podgc.ForEachDuration(WithPrefix("podgc.", f));
    node_lifecycle.ForEachDuration(WithPrefix("nodeLifecycle.", f));
    namespace_controller.ForEachDuration(WithPrefix("namespace.", f));
    resourcequota.ForEachDuration(WithPrefix("resourceQuota.", f));
    service.ForEachDuration(WithPrefix("service.", f));
    persistent_volume.ForEachDuration(WithPrefix("persistentVolume.", f));
    pd_provisioner.ForEachDuration(WithPrefix("pdProvisioner.", f));
  }
};

// --speed N: every emulated duration of `options` divided by N; real ones untouched.
// REQUIRES: speed > 0.
inline void ApplySpeed(UpComponentOptions& options, double speed) {
  DivideEmulatedDurations(options, speed);
}

}  // namespace tidepool::runtime
