#include "runtime/cluster_actors.h"

#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "cluster/in_process_transport.h"
#include "common/fnv.h"
#include "controllers/clusterroleaggregation/clusterrole_aggregation_controller.h"
#include "controllers/cronjob/cronjob_controller.h"
#include "controllers/daemonset/daemonset_controller.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/endpoint/endpoints_controller.h"
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
#include "controllers/serviceaccount/serviceaccounts_controller.h"
#include "controllers/statefulset/statefulset_controller.h"
#include "controllers/tainteviction/taint_eviction_controller.h"
#include "controllers/volumeprotection/volume_protection_controller.h"
#include "runtime/embedded_autoscaler.h"
#include "runtime/kube_cluster.h"
#include "runtime/kube_kubelets.h"
#include "runtime/kube_scheduler.h"
#include "scheduler/scheduler.h"

namespace tidepool::runtime {
namespace {

constexpr char kSchedulerAgent[] =
    "kube-scheduler/v1.32.4 (linux/amd64) kubernetes/$Format/scheduler";

// kube-controller-manager's user agent for one of its controllers' service accounts.
std::string KcmAgent(const std::string& service_account) {
  return "kube-controller-manager/v1.32.4 (linux/amd64) kubernetes/$Format/"
         "system:serviceaccount:kube-system:" +
         service_account;
}

}  // namespace

// Declared in the order they are built: members are destroyed in reverse, actors before the
// clients, recorders and factory they use.
struct ClusterActors::Parts {
  Parts(const client::http::HttpTransport& api, const Clock& clock) : api(api), clock(clock) {}

  client::RestClient& Client(std::string user_agent) {
    clients.push_back(std::make_unique<client::RestClient>(
        cluster::InProcessRestConfig(), clock,
        cluster::InProcessRestOptions(api, std::move(user_agent))));
    return *clients.back();
  }
  KubeEventRecorder& Recorder(const client::RestClient& c, std::string component) {
    recorders.push_back(
        std::make_unique<KubeEventRecorder>(c, clock, std::move(component), nullptr, executor));
    return *recorders.back();
  }

  const client::http::HttpTransport& api;
  const Clock& clock;
  TimerService* executor = nullptr;
  std::vector<std::unique_ptr<client::RestClient>> clients;
  std::vector<std::unique_ptr<KubeEventRecorder>> recorders;
  std::unique_ptr<client::SharedInformerFactory> informers;
  std::unique_ptr<scheduler::Scheduler> scheduler;
  std::unique_ptr<EmbeddedAutoscaler> autoscaler;
  std::unique_ptr<KubeScheduler> kube_scheduler;
  std::unique_ptr<KubeKubelets> kubelets;
  std::unique_ptr<controllers::disruption::DisruptionController> disruption;
  std::unique_ptr<controllers::replicaset::ReplicaSetController> replicasets;
  std::unique_ptr<controllers::deployment::DeploymentController> deployments;
  std::unique_ptr<controllers::job::JobController> jobs;
  std::unique_ptr<controllers::cronjob::CronJobController> cronjobs;
  std::unique_ptr<controllers::garbagecollector::GarbageCollector> garbage_collector;
  std::unique_ptr<controllers::statefulset::StatefulSetController> statefulsets;
  std::unique_ptr<controllers::daemonset::DaemonSetController> daemonsets;
  std::unique_ptr<controllers::podgc::PodGcController> podgc;
  std::unique_ptr<controllers::nodelifecycle::NodeLifecycleController> node_lifecycle;
  std::unique_ptr<controllers::tainteviction::TaintEvictionController> taint_eviction;
  std::unique_ptr<controllers::ns::NamespaceController> namespaces;
  std::unique_ptr<controllers::clusterroleaggregation::ClusterRoleAggregationController>
      aggregation;
  std::unique_ptr<controllers::resourcequota::ResourceQuotaController> quotas;
  std::unique_ptr<controllers::endpoint::EndpointsController> endpoints;
  std::unique_ptr<controllers::service::ServiceController> services;
  std::unique_ptr<controllers::serviceaccount::PerNamespaceObjectController> service_accounts;
  std::unique_ptr<controllers::serviceaccount::PerNamespaceObjectController> root_ca;
  std::unique_ptr<controllers::volumeprotection::PvcProtectionController> pvc_protection;
  std::unique_ptr<controllers::volumeprotection::PvProtectionController> pv_protection;
  std::unique_ptr<controllers::persistentvolume::PersistentVolumeController> pv_binder;
  std::unique_ptr<controllers::persistentvolume::ExternalProvisioner> pd_provisioner;
};

StatusOr<std::unique_ptr<ClusterActors>> ClusterActors::Create(
    const ClusterActorsConfig& config, const client::http::HttpTransport& api, const Clock& clock) {
  const UpComponentOptions& c = *config.components;
  const sim::WorldOptions& w = c.world;
  auto p = std::make_unique<Parts>(api, clock);
  TimerService* const executor = config.executor;
  p->executor = executor;
  p->informers = std::make_unique<client::SharedInformerFactory>(
      p->Client("tidepool-up/shared-informers"), clock);
  if (config.driver != nullptr) p->informers->SetDriver(config.driver);
  client::SharedInformerFactory* informers = p->informers.get();
  // The claims, volumes and classes VolumeBinding reads, kept by the scheduler's informers and
  // read by the scheduler's and the autoscaler's estimator's plugins alike.
  auto volumes = std::make_shared<scheduler::VolumeCache>();
  if (config.autoscaler) {
    autoscaler::AutoscalingOptions autoscaling = w.autoscaling;
    autoscaling.scheduler_profile.args.volumes = volumes;
    auto a =
        EmbeddedAutoscaler::Create(autoscaling, api, *config.cloud, *config.autoscaler_timers,
                                   clock, *config.autoscaler_log, config.seed, informers, executor);
    if (!a.ok()) return a.status();
    p->autoscaler = std::move(a).value();
  }
  scheduler::SchedulingQueueOptions queue_options = w.scheduler;
  queue_options.profile.args.volumes = volumes;
  auto scheduler = scheduler::Scheduler::Create(queue_options.profile);
  if (!scheduler.ok()) return scheduler.status();
  p->scheduler = std::move(scheduler).value();
  p->kube_scheduler = std::make_unique<KubeScheduler>(
      p->Client(kSchedulerAgent), clock, *p->scheduler, queue_options, nullptr, config.seed + 60,
      informers, executor, volumes);
  p->kubelets = std::make_unique<KubeKubelets>(p->Client(kKubeletUserAgent), clock, w.kubelet,
                                               nullptr, config.seed + 70, informers, executor);

  client::RestClient& kcm = p->Client(KcmAgent("disruption-controller"));
  KubeEventRecorder& kcm_events = p->Recorder(kcm, "controllermanager");
  auto disruption = c.disruption;
  disruption.seed = config.seed;
  p->disruption = std::make_unique<controllers::disruption::DisruptionController>(
      kcm, clock, disruption, &kcm_events, nullptr, informers, executor);
  // Each of kcm's controllers has its own client and event source (the disruption controller's
  // is "controllermanager").
  client::RestClient& rs_client = p->Client(KcmAgent("replicaset-controller"));
  auto replicaset = c.replicaset;
  replicaset.seed = config.seed + 10;
  p->replicasets = std::make_unique<controllers::replicaset::ReplicaSetController>(
      rs_client, clock, replicaset, &p->Recorder(rs_client, "replicaset-controller"), nullptr,
      informers, executor);
  client::RestClient& deploy_client = p->Client(KcmAgent("deployment-controller"));
  auto deployment = c.deployment;
  deployment.seed = config.seed + 20;
  p->deployments = std::make_unique<controllers::deployment::DeploymentController>(
      deploy_client, clock, deployment, &p->Recorder(deploy_client, "deployment-controller"),
      nullptr, informers, executor);
  // The Job controller (and kcm's TTL-after-finished controller) with its own identity and
  // events, as job-controller's.
  client::RestClient& job_client = p->Client(KcmAgent("job-controller"));
  auto job = c.job;
  job.seed = config.seed;
  p->jobs = std::make_unique<controllers::job::JobController>(
      job_client, clock, job, &p->Recorder(job_client, "job-controller"), nullptr, informers,
      executor);
  // kcm's CronJob controller ("cronjob-controller"), with its own identity and events.
  client::RestClient& cronjob_client = p->Client(KcmAgent("cronjob-controller"));
  auto cronjob = c.cronjob;
  cronjob.seed = config.seed + 90;
  p->cronjobs = std::make_unique<controllers::cronjob::CronJobController>(
      cronjob_client, clock, cronjob, &p->Recorder(cronjob_client, "cronjob-controller"), nullptr,
      informers, executor);
  // The garbage collector: ownerReferences, and the orphan / foregroundDeletion finalizers the
  // API server puts on deletion. It discovers the API and watches what it finds.
  client::RestClient& gc_client = p->Client(KcmAgent("generic-garbage-collector"));
  auto gc = c.garbage_collector;
  gc.seed = config.seed + 30;
  p->garbage_collector = std::make_unique<controllers::garbagecollector::GarbageCollector>(
      gc_client, clock, gc, &p->Recorder(gc_client, "garbage-collector-controller"), nullptr,
      informers, executor);
  client::RestClient& sts_client = p->Client(KcmAgent("statefulset-controller"));
  auto statefulset = c.statefulset;
  statefulset.seed = config.seed + 40;
  p->statefulsets = std::make_unique<controllers::statefulset::StatefulSetController>(
      sts_client, clock, statefulset, &p->Recorder(sts_client, "statefulset-controller"), nullptr,
      informers, executor);
  client::RestClient& ds_client = p->Client(KcmAgent("daemon-set-controller"));
  auto daemonset = c.daemonset;
  daemonset.seed = config.seed + 50;
  p->daemonsets = std::make_unique<controllers::daemonset::DaemonSetController>(
      ds_client, clock, daemonset, &p->Recorder(ds_client, "daemonset-controller"), nullptr,
      informers, executor);
  // kcm's pod garbage collector: the pods of nodes that are gone.
  auto podgc = c.podgc;
  podgc.seed = config.seed + 80;
  p->podgc = std::make_unique<controllers::podgc::PodGcController>(
      p->Client(KcmAgent("pod-garbage-collector")), clock, podgc, nullptr, informers, executor);
  // kcm's node lifecycle controller: node health, condition taints, NoExecute taints, with
  // events as "node-controller".
  client::RestClient& node_client = p->Client(KcmAgent("node-controller"));
  auto node_lifecycle = c.node_lifecycle;
  node_lifecycle.seed = config.seed + 140;
  node_lifecycle.kubelet_heartbeats = w.kubelet.heartbeats;
  p->node_lifecycle = std::make_unique<controllers::nodelifecycle::NodeLifecycleController>(
      node_client, clock, node_lifecycle, &p->Recorder(node_client, "node-controller"), nullptr,
      informers, executor);
  // kcm's taint-eviction-controller: the pods of nodes with NoExecute taints they do not
  // tolerate (or no longer: tolerationSeconds).
  client::RestClient& taint_client = p->Client(KcmAgent("taint-eviction-controller"));
  controllers::tainteviction::TaintEvictionControllerOptions taint_eviction;
  taint_eviction.seed = config.seed + 150;
  p->taint_eviction = std::make_unique<controllers::tainteviction::TaintEvictionController>(
      taint_client, clock, taint_eviction,
      &p->Recorder(taint_client, "taint-eviction-controller"), nullptr, informers, executor);
  // kcm's namespace controller: a deleted namespace's contents, then its finalizer.
  auto namespaces = c.namespace_controller;
  namespaces.seed = config.seed + 100;
  p->namespaces = std::make_unique<controllers::ns::NamespaceController>(
      p->Client(KcmAgent("namespace-controller")), clock, namespaces, nullptr, informers, executor);
  // kcm's resourcequota controller: every quota's status.used.
  auto quotas = c.resourcequota;
  quotas.seed = config.seed + 110;
  p->quotas = std::make_unique<controllers::resourcequota::ResourceQuotaController>(
      p->Client(KcmAgent("resourcequota-controller")), clock, quotas, nullptr, informers, executor);
  // kcm's endpoints and endpointslice controllers: every selecting Service's Endpoints and
  // EndpointSlices.
  controllers::endpoint::EndpointsControllerOptions endpoints;
  endpoints.seed = config.seed + 120;
  endpoints.slice_client = &p->Client(KcmAgent("endpointslice-controller"));
  p->endpoints = std::make_unique<controllers::endpoint::EndpointsController>(
      p->Client(KcmAgent("endpoint-controller")), clock, endpoints, nullptr, informers, executor);
  // The cloud-controller-manager's service controller: LoadBalancer Services get the cloud's
  // load balancer (its address as the cloud style writes it), with its events.
  client::RestClient& svc_client = p->Client(KcmAgent("service-controller"));
  auto service = c.service;
  service.seed = config.seed + 180;
  if (!service.address) {
    const cloud::emulated::NodeStyle* style = w.cloud.style;
    const std::string region = style->RegionOf(w.zone);
    service.address = [style, region](uint32_t n, const std::string& uid) {
      const cloud::emulated::NodeStyle::LoadBalancerIngress a = style->LoadBalancer(n, uid, region);
      return a.ip.empty() ? nlohmann::json{{"hostname", a.hostname}} : nlohmann::json{{"ip", a.ip}};
    };
  }
  p->services = std::make_unique<controllers::service::ServiceController>(
      svc_client, clock, service, &p->Recorder(svc_client, "service-controller"), informers,
      executor);
  // kcm's serviceaccount-controller (every namespace's "default" ServiceAccount) and
  // root-ca-cert-publisher (every namespace's kube-root-ca.crt).
  controllers::serviceaccount::ServiceAccountsControllerOptions service_accounts;
  service_accounts.seed = config.seed + 160;
  p->service_accounts = controllers::serviceaccount::NewServiceAccountsController(
      p->Client(KcmAgent("service-account-controller")), clock, service_accounts, informers,
      executor);
  // Always: the kubelets mount kube-root-ca.crt into every pod with a service account token
  // (its kube-api-access-xxxxx volume), and a pod whose volume does not mount never starts.
  controllers::serviceaccount::RootCaCertPublisherOptions root_ca;
  root_ca.seed = config.seed + 170;
  root_ca.ca_pem = config.root_ca_pem;
  p->root_ca = controllers::serviceaccount::NewRootCaCertPublisher(
      p->Client(KcmAgent("root-ca-cert-publisher")), clock, root_ca, informers, executor);
  // kcm's pvc-protection and pv-protection controllers: the finalizers admission gives every
  // claim and volume come off once nothing uses them.
  controllers::volumeprotection::VolumeProtectionOptions protection;
  protection.seed = config.seed + 200;
  p->pvc_protection = std::make_unique<controllers::volumeprotection::PvcProtectionController>(
      p->Client(KcmAgent("pvc-protection-controller")), clock, protection, informers, executor);
  protection.seed = config.seed + 210;
  p->pv_protection = std::make_unique<controllers::volumeprotection::PvProtectionController>(
      p->Client(KcmAgent("pv-protection-controller")), clock, protection, informers, executor);
  // kcm's persistent-volume-binder, and on GKE the PD CSI driver's external-provisioner
  // (its events' source is the sidecar's identity on GKE's control plane).
  client::RestClient& binder_client = p->Client(KcmAgent("persistent-volume-binder"));
  auto binder = c.persistent_volume;
  binder.seed = config.seed + 220;
  p->pv_binder = std::make_unique<controllers::persistentvolume::PersistentVolumeController>(
      binder_client, clock, binder, &p->Recorder(binder_client, "persistentvolume-controller"),
      informers, executor);
  if (w.cloud.style->ProviderName() == "gke") {
    auto pd = c.pd_provisioner;
    pd.seed = config.seed + 230;
    pd.project = w.project;
    pd.zones = {w.zone};
    client::RestClient& pd_client = p->Client("csi-provisioner/v5.2.0");
    // <driver>_gke-<20 hex>-<4 hex>-<4 hex>-vm_<uuid>, fixed per project and cluster.
    const uint64_t h = Fnv1a64(w.project + "/" + w.cluster);
    const uint64_t g = Fnv1a64(std::to_string(h));
    char identity[160];
    std::snprintf(identity, sizeof(identity),
                  "_gke-%016llx%04llx-%04llx-%04llx-vm_%08llx-%04llx-4%03llx-a%03llx-%012llx",
                  static_cast<unsigned long long>(h), static_cast<unsigned long long>(g & 0xffff),
                  static_cast<unsigned long long>((g >> 16) & 0xffff),
                  static_cast<unsigned long long>((g >> 32) & 0xffff),
                  static_cast<unsigned long long>(g >> 32),
                  static_cast<unsigned long long>(h & 0xffff),
                  static_cast<unsigned long long>((h >> 16) & 0xfff),
                  static_cast<unsigned long long>((h >> 28) & 0xfff),
                  static_cast<unsigned long long>(g & 0xffffffffffffull));
    p->pd_provisioner = std::make_unique<controllers::persistentvolume::ExternalProvisioner>(
        pd_client, clock, pd, &p->Recorder(pd_client, pd.driver + identity), informers, executor);
  }
  // kcm's clusterrole-aggregation controller: admin, edit, view and any aggregated role.
  controllers::clusterroleaggregation::ClusterRoleAggregationControllerOptions aggregation;
  aggregation.seed = config.seed + 130;
  p->aggregation =
      std::make_unique<controllers::clusterroleaggregation::ClusterRoleAggregationController>(
          p->Client(KcmAgent("clusterrole-aggregation-controller")), clock, aggregation, nullptr,
          informers, executor);
  return std::unique_ptr<ClusterActors>(new ClusterActors(std::move(p)));
}

ClusterActors::ClusterActors(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

ClusterActors::~ClusterActors() { Stop(); }

client::SharedInformerFactory& ClusterActors::informers() { return *parts_->informers; }

void ClusterActors::StartAutoscaler() {
  if (parts_->autoscaler != nullptr) parts_->autoscaler->Start();
}

void ClusterActors::Start(bool defer_autoscaler) {
  if (started_) return;
  started_ = true;
  Parts& p = *parts_;
  // Every actor made and its handlers added: the shared informers start, then the actors
  // (kube-scheduler waits for its caches to sync; the garbage collector discovers the API and
  // watches what it found with informers of its own).
  p.informers->Start();
  if (!defer_autoscaler) StartAutoscaler();
  p.kube_scheduler->Start();
  p.kubelets->Start();
  p.disruption->Start();
  p.replicasets->Start();
  p.deployments->Start();
  p.jobs->Start();
  p.cronjobs->Start();
  p.statefulsets->Start();
  p.daemonsets->Start();
  p.podgc->Start();
  p.node_lifecycle->Start();
  p.taint_eviction->Start();
  p.namespaces->Start();
  p.quotas->Start();
  p.endpoints->Start();
  p.services->Start();
  p.service_accounts->Start();
  if (p.root_ca != nullptr) p.root_ca->Start();
  p.pvc_protection->Start();
  p.pv_protection->Start();
  p.pv_binder->Start();
  if (p.pd_provisioner != nullptr) p.pd_provisioner->Start();
  p.aggregation->Start();
  p.garbage_collector->Start();
}

void ClusterActors::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  Parts& p = *parts_;
  std::vector<std::function<void()>> stops;
  stops.emplace_back([&] { p.informers->Stop(); });
  stops.emplace_back([&] { p.kube_scheduler->Stop(); });
  stops.emplace_back([&] { p.kubelets->Stop(); });
  if (p.autoscaler != nullptr) stops.emplace_back([&] { p.autoscaler->Stop(); });
  stops.emplace_back([&] { p.disruption->Stop(); });
  stops.emplace_back([&] { p.replicasets->Stop(); });
  stops.emplace_back([&] { p.deployments->Stop(); });
  stops.emplace_back([&] { p.jobs->Stop(); });
  stops.emplace_back([&] { p.cronjobs->Stop(); });
  stops.emplace_back([&] { p.garbage_collector->Stop(); });
  stops.emplace_back([&] { p.statefulsets->Stop(); });
  stops.emplace_back([&] { p.daemonsets->Stop(); });
  stops.emplace_back([&] { p.podgc->Stop(); });
  stops.emplace_back([&] { p.node_lifecycle->Stop(); });
  stops.emplace_back([&] { p.taint_eviction->Stop(); });
  stops.emplace_back([&] { p.namespaces->Stop(); });
  stops.emplace_back([&] { p.quotas->Stop(); });
  stops.emplace_back([&] { p.endpoints->Stop(); });
  stops.emplace_back([&] { p.services->Stop(); });
  stops.emplace_back([&] { p.service_accounts->Stop(); });
  if (p.root_ca != nullptr) stops.emplace_back([&] { p.root_ca->Stop(); });
  stops.emplace_back([&] { p.pvc_protection->Stop(); });
  stops.emplace_back([&] { p.pv_protection->Stop(); });
  stops.emplace_back([&] { p.pv_binder->Stop(); });
  if (p.pd_provisioner != nullptr) stops.emplace_back([&] { p.pd_provisioner->Stop(); });
  stops.emplace_back([&] { p.aggregation->Stop(); });
  if (p.executor != nullptr) {
    // On the executor's thread, one after the other: nothing of theirs waits.
    for (const auto& stop : stops) stop();
    return;
  }
  std::vector<std::thread> stoppers;
  for (const auto& stop : stops) stoppers.emplace_back(stop);
  for (std::thread& t : stoppers) t.join();
}

}  // namespace tidepool::runtime
