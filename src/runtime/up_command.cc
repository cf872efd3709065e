#include "runtime/up_command.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include "apiserver/api_server.h"
#include "apiserver/http/server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "apiserver/resources.h"
#include "apiserver/storage/backend.h"
#include "cloud/gke/gke_api.h"
#include "cloud/gke/tls_endpoint.h"
#include "runtime/cluster_bridge.h"
#include "runtime/gke_control.h"
#include "runtime/world_executor.h"
#include "sim/scenario.h"
#include "sim/world.h"

namespace tidepool::runtime {

namespace {

Duration Scale(Duration d, double speed) {
  return Duration(static_cast<Duration::rep>(std::llround(static_cast<double>(d.count()) / speed)));
}

// --speed N: every emulated duration divided by N (architecture.md, "Time").
void ScaleDurations(sim::WorldOptions& w, double speed) {
  if (speed == 1.0) return;
  auto s = [speed](auto& d) { d = Scale(d, speed); };
  auto& delays = w.cloud.delays;
  s(delays.provisioning);
  s(delays.registration);
  s(delays.kubelet_ready);
  s(delays.driver);
  s(delays.deletion);
  s(delays.spot_extra);
  s(w.cloud.faults.stockout_delay);
  for (auto& sb : w.cloud.faults.slow_boot) s(sb.extra);
  s(w.kubelet.start_delay);
  s(w.kubelet.image_pull);
  s(w.kubelet.termination);
  s(w.scheduler.initial_backoff);
  s(w.scheduler.max_backoff);
  s(w.scheduler.max_unschedulable);
  auto& a = w.autoscaling;
  s(a.scan_interval);
  s(a.batching_window);
  s(a.max_node_provision_time);
  s(a.max_node_startup_time);
  s(a.new_pod_scale_up_delay);
  s(a.unschedulable_pod_time_buffer);
  s(a.unschedulable_pod_with_gpu_time_buffer);
  s(a.initial_node_group_backoff_duration);
  s(a.max_node_group_backoff_duration);
  s(a.node_group_backoff_reset_timeout);
  s(a.scale_down_delay_after_add);
  s(a.scale_down_delay_after_delete);
  s(a.scale_down_delay_after_failure);
  s(a.scale_down_unneeded_time);
  s(a.scale_down_unready_time);
}

constexpr char kDefaultConfig[] = R"(
seed: 1
cluster: {project: tidepool-local, name: tidepool, zone: us-central1-a}
nodePools:
- name: default-pool
  machineType: e2-standard-4
  initialNodeCount: 3
runFor: 24h
)";

StatusOr<sim::WorldOptions> LoadWorldOptions(const UpOptions& o) {
  std::string text = kDefaultConfig;
  std::string path = "<built-in>";
  std::string dir = ".";
  if (!o.config.empty()) {
    std::ifstream in(o.config);
    if (!in) {
      return Status(StatusCode::kNotFound, "open " + o.config + ": no such file or directory");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    path = o.config;
    dir = std::filesystem::path(o.config).parent_path().string();
    if (dir.empty()) dir = ".";
    // runFor is a simulation's length; tidepool up runs until it is stopped.
    bool has_run_for = false;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("runFor:", 0) == 0) has_run_for = true;
    }
    if (!has_run_for) text += "\nrunFor: 24h\n";
  }
  TIDEPOOL_ASSIGN_OR_RETURN(sim::Scenario sc, sim::ParseScenario(text, path, dir));
  if (!sc.timeline.empty()) {
    return Status(StatusCode::kInvalidArgument,
                  path + ": timeline: not supported by tidepool up (use kubectl and gcloud, or "
                         "tidepool simulate)");
  }
  return sc.world;
}

void WriteKubeconfig(const std::string& path, const std::string& server) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream out(path);
  out << "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: tidepool\n"
         "  cluster:\n"
         "    server: "
      << server
      << "\n"
         "contexts:\n"
         "- name: tidepool\n"
         "  context:\n"
         "    cluster: tidepool\n"
         "    user: tidepool\n"
         "    namespace: default\n"
         "current-context: tidepool\n"
         "preferences: {}\n"
         "users:\n"
         "- name: tidepool\n"
         "  user: {}\n";
}

// A gcloud configuration directory (CLOUDSDK_CONFIG) pointed at `url` (reference
// cloud-apis.md §2.1): endpoint overrides (each must end in '/'), an access-token file instead of
// credentials (gcloud sends it as a Bearer token; gke-gcloud-auth-plugin hands it to kubectl),
// the project and zone, and no prompts, surveys or update checks.
Status WriteGcloudConfig(const std::string& dir, const std::string& url,
                         const sim::WorldOptions& w) {
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::absolute(dir);
  std::filesystem::create_directories(root / "configurations", ec);
  if (ec) return UnavailableError("--gcloud-config " + dir + ": " + ec.message());
  const std::string token_file = (root / "access-token").string();
  {
    std::ofstream token(token_file);
    token << "tidepool-local-access-token\n";
  }
  {
    std::ofstream active(root / "active_config");
    active << "default";
  }
  std::ofstream cfg(root / "configurations" / "config_default");
  cfg << "# Written by tidepool up: gcloud talks to the emulated GKE at " << url << "\n"
      << "[core]\n"
      << "project = " << w.project << "\n"
      << "disable_usage_reporting = true\n"
      << "[auth]\n"
      << "access_token_file = " << token_file << "\n"
      << "[api_endpoint_overrides]\n"
      << "container = " << url << "/\n"
      << "serviceusage = " << url << "/\n"
      << "compute = " << url << "/compute/v1/\n"
      << "[compute]\n"
      << "zone = " << w.zone << "\n"
      << "[component_manager]\n"
      << "disable_update_check = true\n"
      << "[survey]\n"
      << "disable_prompts = true\n";
  cfg.close();
  if (!cfg) return UnavailableError("--gcloud-config " + dir + ": cannot write config_default");
  return OkStatus();
}

}  // namespace

int RunUp(const UpOptions& options, std::ostream& out, std::ostream& err) {
  if (!(options.speed > 0) || !std::isfinite(options.speed)) {
    err << "error: --speed must be a positive number\n";
    return 2;
  }
  // Signals are taken by sigwait below; every thread started from here inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A peer that goes away mid-write is an error on that connection, not the end of the
  // process: OpenSSL writes TLS records with write(), which raises SIGPIPE (a client resetting
  // an HTTPS watch killed the process), and libcurl is told not to touch signals.
  signal(SIGPIPE, SIG_IGN);

  RealClock clock;
  auto world_options = LoadWorldOptions(options);
  if (!world_options.ok()) {
    err << "error: " << world_options.status().message() << "\n";
    return 1;
  }
  sim::WorldOptions w = std::move(world_options).value();
  const TimePoint now = clock.Now();
  w.start = std::chrono::time_point_cast<std::chrono::seconds>(now);
  if (options.seed != 0) w.seed = options.seed;
  w.autoscaler = w.autoscaler && options.autoscaler;
  w.autoscaler_verbosity =
      options.verbosity >= 0 ? options.verbosity : std::max(w.autoscaler_verbosity, 1);
  ScaleDurations(w, options.speed);
  if (!options.gpu_operator) {
    // Without the operator no device plugin registers: every GPU node's driver "never comes up".
    w.cloud.faults.driver_never_ready.push_back(cloud::emulated::FaultMatch{});
  }

  std::unique_ptr<apiserver::storage::Backend> backend;
  if (!options.data_dir.empty()) {
    auto b = apiserver::storage::OpenSqlite(options.data_dir);
    if (!b.ok()) {
      err << "error: --data-dir: " << b.status().message() << "\n";
      return 1;
    }
    backend = std::move(b).value();
  } else {
    backend = apiserver::storage::NewMemoryBackend();
  }
  apiserver::StoreOptions store_options;
  store_options.seed = static_cast<uint64_t>(now.time_since_epoch().count()) ^ w.seed;
  // The store's clock is the real one (timestamps stay real under --speed); the TTL is an
  // emulated duration like every other, so it is what is divided.
  store_options.event_ttl = Scale(options.event_ttl, options.speed);
  store_options.log = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());  // one write per line: atomic between threads
  };
  apiserver::ObjectStore store(clock, std::move(backend), store_options);
  auto loaded = store.Load();
  if (!loaded.ok()) {
    err << "error: --data-dir: " << loaded.status().message() << "\n";
    return 1;
  }

  auto world_or = sim::World::Create(w);
  if (!world_or.ok()) {
    err << "error: " << world_or.status().message() << "\n";
    return 1;
  }
  std::unique_ptr<sim::World> world = std::move(world_or).value();
  // Nothing reads the world's timeline under up (it is `simulate`'s output): kept, it would
  // grow by every pod and event for as long as the cluster runs. The world's own event list
  // forgets what the API has expired.
  world->timeline().set_enabled(false);
  world->store().SetEventTtl(store_options.event_ttl);
  apiserver::PodLogs logs;
  ClusterBridge bridge(*world, store, logs, options.gpu_operator);
  if (Status s = bridge.Start(); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return 1;
  }

  apiserver::ApiServerOptions api_options;
  api_options.server_address = options.address + ":" + std::to_string(options.port);
  auto api = std::make_unique<apiserver::ApiServer>(clock, store, logs, api_options);
  // The GKE API is set once the listeners are up (its cluster endpoint is the HTTPS port);
  // until then its paths answer 503.
  std::atomic<cloud::gke::GkeApi*> gke_api{nullptr};
  apiserver::http::ServerOptions http_options;
  http_options.address = options.address;
  http_options.port = options.port;
  auto server_or = apiserver::http::HttpServer::Start(
      http_options, [&api, &gke_api](const apiserver::http::HttpRequest& req,
                                     apiserver::http::ResponseWriter& rw) {
        if (cloud::gke::IsGkePath(req.path)) {
          cloud::gke::GkeApi* gke = gke_api.load();
          if (gke == nullptr) {
            rw.Send(503, "application/json; charset=UTF-8",
                    R"({"error":{"code":503,"message":"starting","status":"UNAVAILABLE"}})");
            return;
          }
          cloud::gke::GkeResponse r = gke->Handle({req.method, req.path, req.body, req.query});
          rw.Send(r.status, "application/json; charset=UTF-8", std::move(r.body));
          return;
        }
        api->Handle(req, rw);
      });
  if (!server_or.ok()) {
    err << "error: " << server_or.status().message() << "\n";
    return 1;
  }
  std::unique_ptr<apiserver::http::HttpServer> server = std::move(server_or).value();
  const std::string url = "http://" + options.address + ":" + std::to_string(server->port());

  // HTTPS in front of the same API, for the kubeconfig that gcloud's get-credentials writes.
  auto tls_or = cloud::gke::TlsEndpoint::Start(options.address, 0, options.address,
                                               server->port(), clock);
  if (!tls_or.ok()) {
    err << "error: " << tls_or.status().message() << "\n";
    return 1;
  }
  std::unique_ptr<cloud::gke::TlsEndpoint> tls = std::move(tls_or).value();

  // Front-ends on other threads (the GKE API) reach the world through this.
  WorldExecutor executor;
  cloud::gke::ClusterInfo cluster_info;
  cluster_info.project = w.project;
  cluster_info.name = w.cluster;
  cluster_info.zone = w.zone;
  cluster_info.endpoint = options.address + ":" + std::to_string(tls->port());
  cluster_info.ca_pem = tls->ca_pem();
  cluster_info.create_time = w.start - w.warmup;
  // Compute Engine's networkIP of a VM: its Node's InternalIP, as the bridge published it.
  const apiserver::Resource* nodes_resource = apiserver::FindResource("", "v1", "nodes");
  auto node_ip = [&store, nodes_resource](const std::string& name) -> std::string {
    if (nodes_resource == nullptr) return "";
    auto obj = store.Get(*nodes_resource, "", name);
    if (!obj.ok()) return "";
    const nlohmann::json& v = (*obj)->view;  // status (addresses) is whole in the view
    if (!v.contains("status") || !v["status"].contains("addresses")) return "";
    for (const auto& a : v["status"]["addresses"]) {
      if (a.value("type", "") == "InternalIP") return a.value("address", "");
    }
    return "";
  };
  WorldGkeControl gke_control(*world, executor, cluster_info, node_ip);
  cloud::gke::GkeApi gke(gke_control, clock);
  gke_api.store(&gke);

  // The world's thread: API changes in, the event queue advanced to the wall clock.
  std::atomic<bool> stopping{false};
  std::thread world_thread([&] {
    while (!stopping.load()) {
      executor.RunPending();
      store.ExpireEvents();
      bridge.PumpApi();
      const TimePoint t = clock.Now();
      if (t > world->Now()) world->RunUntil(t);
      Duration wait = std::chrono::milliseconds(20);
      if (auto next = world->queue().NextEventTime()) {
        wait = std::clamp<Duration>(*next - clock.Now(), Duration::zero(), wait);
      }
      bridge.WaitForApi(wait);
    }
  });

  if (!options.kubeconfig.empty()) WriteKubeconfig(options.kubeconfig, url);
  if (!options.gcloud_config.empty()) {
    if (Status s = WriteGcloudConfig(options.gcloud_config, url, w); !s.ok()) {
      err << "error: " << s.message() << "\n";
      server->Stop();
      tls->Stop();
      stopping = true;
      world_thread.join();
      return 1;
    }
  }
  out << "tidepool up: Kubernetes v1.32 API at " << url << " (cluster " << w.cluster
      << ", project " << w.project << ", zone " << w.zone << "; speed " << options.speed
      << "x; autoscaler " << (w.autoscaler ? "on" : "off") << "; "
      << (options.data_dir.empty() ? std::string("in-memory storage")
                                   : "storage in " + options.data_dir)
      << ")\n";
  if (!options.kubeconfig.empty()) {
    out << "  export KUBECONFIG=" << std::filesystem::absolute(options.kubeconfig).string()
        << "\n";
  } else {
    out << "  kubectl --server " << url << " get nodes\n";
  }
  out << "tidepool up: GKE API (gcloud) at " << url << "/, cluster endpoint https://"
      << cluster_info.endpoint << "\n";
  if (!options.gcloud_config.empty()) {
    out << "  export CLOUDSDK_CONFIG="
        << std::filesystem::absolute(options.gcloud_config).string() << "\n";
  }
  out << "tidepool up: ready\n";
  out.flush();
  if (!options.port_file.empty()) {
    std::ofstream pf(options.port_file + ".tmp");
    pf << server->port() << "\n";
    pf.close();
    std::filesystem::rename(options.port_file + ".tmp", options.port_file);
  }

  int sig = 0;
  sigwait(&signals, &sig);
  out << "tidepool up: " << (sig == SIGINT ? "interrupt" : "terminated") << ", shutting down\n";
  out.flush();
  tls->Stop();
  server->Stop();
  gke_api.store(nullptr);
  stopping = true;
  world_thread.join();
  executor.RunPending();
  return 0;
}

}  // namespace tidepool::runtime
