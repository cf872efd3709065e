#include "runtime/sim_cluster.h"

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "apiserver/storage/backend.h"
#include "runtime/cluster_bootstrap.h"
#include "runtime/cluster_cloud.h"

namespace tidepool::runtime {
namespace {

constexpr char kKubectlAgent[] = "kubectl/v1.32.4 (linux/amd64) kubernetes/$Format";

}  // namespace

SimCluster::SimCluster(UpComponentOptions components)
    : components_(std::move(components)),
      queue_(components_.world.start - components_.world.warmup),
      store_(queue_.clock(), apiserver::storage::NewMemoryBackend(), components_.store),
      api_(queue_.clock(), store_, logs_, components_.api_server),
      transport_([this](const apiserver::http::HttpRequest& req,
                        apiserver::http::ResponseWriter& w) { api_.Handle(req, w); }),
      kubectl_(cluster::InProcessRestConfig(), queue_.clock(),
               cluster::InProcessRestOptions(transport_, kKubectlAgent)),
      node_client_(cluster::InProcessRestConfig(), queue_.clock(),
                   cluster::InProcessRestOptions(transport_, kKubeletUserAgent)),
      node_sink_(node_client_, nullptr, &queue_, components_.world.cloud.style->System()),
      cloud_random_(SubSeed(components_.world.seed, 0)),
      cloud_log_("emulated-cloud", queue_.clock(), /*to_stderr=*/false),
      autoscaler_log_("cluster-autoscaler", queue_.clock(), /*to_stderr=*/false),
      timeline_(components_.world.start),
      driver_(store_, queue_) {}

SimCluster::~SimCluster() {
  if (actors_ != nullptr) actors_->Stop();
  driver_.Stop();
}

StatusOr<std::unique_ptr<SimCluster>> SimCluster::Create(UpComponentOptions components,
                                                         bool gpu_operator) {
  std::unique_ptr<SimCluster> c(new SimCluster(std::move(components)));
  TIDEPOOL_RETURN_IF_ERROR(c->Init(gpu_operator));
  return c;
}

Status SimCluster::Init(bool gpu_operator) {
  components_.world.cloud.gpu_operator_labels = gpu_operator;
  const sim::WorldOptions& w = components_.world;
  timeline_.set_enabled(false);
  cloud_ = NewClusterCloud(w, queue_, node_sink_, cloud_random_, cloud_log_);
  recorder_ = std::make_unique<sim::TimelineRecorder>(timeline_, queue_.clock(), *cloud_);
  cloud_log_.AddSink(recorder_->LogSink("emulated-cloud"));
  autoscaler_log_.SetVerbosity(w.autoscaler_verbosity);
  autoscaler_log_.AddSink(recorder_->LogSink("cluster-autoscaler"));
  TIDEPOOL_RETURN_IF_ERROR(CreateInitialPools(*cloud_, w));
  // The cluster's history: its first VMs boot and register, then the cluster's bootstrap
  // objects are written and the actors run (kube-dns and the device plugin start) until `start`.
  // The autoscaler starts with the scenario, so what it does is on the timeline.
  const auto all_registered = [this] {
    for (const cloud::emulated::InstanceInfo& i : cloud_->ListInstances()) {
      if (!i.registered) return false;
    }
    return true;
  };
  while (!all_registered()) {
    const std::optional<TimePoint> next = queue_.NextEventTime();
    if (!next.has_value() || *next > w.start) break;
    queue_.RunUntil(*next);
  }

  ClusterBootstrapOptions bootstrap;
  bootstrap.project = w.project;
  bootstrap.cluster = w.cluster;
  bootstrap.gpu_operator = gpu_operator;
  bootstrap.autoscaler_pod = false;
  bootstrap.gke_storage = w.cloud.style->ProviderName() == "gke";
  bootstrap.service_range = components_.api_server.service_range;
  for (const cloud::emulated::InstanceInfo& i : cloud_->ListInstances()) {
    if (i.registered) bootstrap.cloud_nodes.insert(i.name);
  }
  TIDEPOOL_RETURN_IF_ERROR(BootstrapCluster(store_, bootstrap).status());

  ClusterActorsConfig config;
  config.components = &components_;
  config.seed = w.seed;
  config.autoscaler = w.autoscaler;
  config.cloud = &cloud_->Provider();
  config.autoscaler_timers = &queue_;
  config.autoscaler_log = &autoscaler_log_;
  config.executor = &queue_;
  config.driver = &driver_;
  TIDEPOOL_ASSIGN_OR_RETURN(actors_, ClusterActors::Create(config, transport_, queue_.clock()));
  feed_ = std::make_unique<TimelineFeed>(actors_->informers(), *recorder_, w.seed);
  actors_->Start(/*defer_autoscaler=*/true);
  queue_.RunUntil(w.start);
  actors_->StartAutoscaler();
  timeline_.set_enabled(true);
  recorder_->RecordInitialState(feed_->Nodes(), feed_->Pods());
  return OkStatus();
}

}  // namespace tidepool::runtime
