#include "runtime/up_command.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>
#include <vector>

#include "apiserver/api_server.h"
#include "apiserver/http/server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "apiserver/resources.h"
#include "apiserver/storage/backend.h"
#include "cloud/aws/aws_api.h"
#include "cloud/aws/aws_catalog.h"
#include "cloud/aws/eks_node_style.h"
#include "cloud/externalgrpc/cloud_provider_server.h"
#include "cloud/gke/gke_api.h"
#include "cloud/gke/tls_endpoint.h"
#include "cluster/in_process_transport.h"
#include "common/event_queue.h"
#include "common/log.h"
#include "common/random.h"
#include "kubelet/api_node_sink.h"
#include "runtime/client_files.h"
#include "runtime/cluster_actors.h"
#include "runtime/cluster_bootstrap.h"
#include "runtime/cluster_cloud.h"
#include "runtime/exposure.h"
#include "runtime/gke_control.h"
#include "runtime/queue_executor.h"
#include "runtime/store_cloud_journal.h"
#include "runtime/up_options.h"
#include "sim/scenario.h"

namespace tidepool::runtime {

namespace {

constexpr char kDefaultConfig[] = R"(
seed: 1
cluster: {project: tidepool-local, name: tidepool, zone: us-central1-a}
nodePools:
- name: default-pool
  machineType: e2-standard-4
  initialNodeCount: 3
)";

// --cloud aws: an EKS cluster with a system node group (eksctl's default instance type).
constexpr char kDefaultAwsConfig[] = R"(
seed: 1
cluster: {project: "123456789012", name: tidepool, zone: us-west-2a, cloud: aws}
nodePools:
- name: system
  machineType: m5.large
  initialNodeCount: 2
  minNodes: 2
  maxNodes: 2
)";

StatusOr<sim::WorldOptions> LoadWorldOptions(const UpOptions& o) {
  std::string text = o.cloud == "aws" ? kDefaultAwsConfig : kDefaultConfig;
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
  }
  // runFor, a simulation's length, is optional: tidepool up runs until it is stopped.
  TIDEPOOL_ASSIGN_OR_RETURN(sim::Scenario sc,
                            sim::ParseScenario(text, path, dir, sim::ScenarioUse::kClusterConfig));
  if (o.cloud == "aws") cloud::aws::UseEks(sc.world.cloud);
  return sc.world;
}

// How the cluster is reached (runtime/exposure.h): the address clients use, and whether the
// Kubernetes API needs the token (then its listener is HTTPS).
struct Exposure {
  bool secure = false;     // HTTPS + token on the main port
  std::string advertise;   // the host clients are given (kubeconfig, gcloud, get-credentials)
  std::vector<std::string> cert_names;  // extra names for the HTTPS certificate
};

StatusOr<Exposure> DecideExposure(const UpOptions& o) {
  Exposure e;
  const bool loopback = IsLoopbackAddress(o.address);
  if (!loopback && o.anonymous_auth.value_or(false)) {
    return InvalidArgumentError(
        "--anonymous-auth=true with --address " + o.address +
        ": that would serve the whole cluster, with no credential, to anyone who reaches this "
        "address; tidepool up refuses it (leave --anonymous-auth out: the API then needs the "
        "bearer token written into --kubeconfig)");
  }
  e.secure = !loopback || !o.anonymous_auth.value_or(true);
  e.advertise = o.address;
  if (o.address == "0.0.0.0") {
    e.cert_names = LocalIpv4Addresses();
    e.advertise = e.cert_names.empty() ? "127.0.0.1" : e.cert_names.front();
    char host[256] = {0};
    if (::gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0') {
      e.cert_names.emplace_back(host);
    }
  }
  if (e.secure && o.kubeconfig.empty() && o.gcloud_config.empty()) {
    return InvalidArgumentError(
        "--address " + o.address +
        " (or --anonymous-auth=false) needs --kubeconfig or --gcloud-config: the API then "
        "requires a bearer token, which is written only there");
  }
  return e;
}

// The listeners: plain HTTP on --address:--port (loopback), with an HTTPS front on a second
// port for get-credentials' kubeconfig; or, when secure, HTTPS on --address:--port in front of
// a plain HTTP listener that only loopback reaches (the token is checked behind both).
struct Listeners {
  std::unique_ptr<apiserver::http::HttpServer> http;
  std::unique_ptr<cloud::gke::TlsEndpoint> tls;
  std::string url;       // what clients use: http://127.0.0.1:P or https://<advertise>:P
  uint16_t port = 0;     // the main port (--port, port file)
  std::string endpoint;  // the cluster endpoint of the GKE API (host:port of the HTTPS API)

  void Stop() {
    if (tls) tls->Stop();
    if (http) http->Stop();
  }
};

StatusOr<Listeners> StartListeners(const UpOptions& o, const Exposure& e,
                                   apiserver::http::Handler handler, const Clock& clock) {
  Listeners l;
  apiserver::http::ServerOptions http_options;
  http_options.address = e.secure ? "127.0.0.1" : o.address;
  http_options.port = e.secure ? 0 : o.port;
  TIDEPOOL_ASSIGN_OR_RETURN(l.http,
                            apiserver::http::HttpServer::Start(http_options, std::move(handler)));
  TIDEPOOL_ASSIGN_OR_RETURN(
      l.tls, cloud::gke::TlsEndpoint::Start(o.address, e.secure ? o.port : 0,
                                            http_options.address, l.http->port(), clock,
                                            e.cert_names));
  if (e.secure) {
    l.port = l.tls->port();
    l.url = "https://" + e.advertise + ":" + std::to_string(l.port);
  } else {
    l.port = l.http->port();
    l.url = "http://" + o.address + ":" + std::to_string(l.port);
  }
  l.endpoint = e.advertise + ":" + std::to_string(l.tls->port());
  return l;
}

// The AWS credentials tidepool issues for a run, derived from its bearer token: an access key,
// and the key its web identity tokens (IRSA, sigv4.h) are signed with.
struct AwsRunCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string web_identity_key;
  std::string web_identity_token;  // for --aws-config's web-identity-token; set once issued
};
AwsRunCredentials AwsCredentials(const std::string& token) {
  std::string id = "AKIA";
  for (size_t i = 0; id.size() < 20 && i < token.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (std::isalnum(c)) id += static_cast<char>(std::toupper(c));
  }
  while (id.size() < 20) id += 'X';
  std::string secret = token.substr(0, std::min<size_t>(40, token.size()));
  while (secret.size() < 40) secret += 'x';
  return {id, secret, "irsa/" + token, ""};
}

// `aws`: the run's AWS credentials (AwsCredentials).
Status WriteClientFiles(const UpOptions& o, const Exposure& e, const Listeners& l,
                        const sim::WorldOptions& w, const std::string& token,
                        const AwsRunCredentials& aws) {
  const std::string ca = e.secure ? l.tls->ca_pem() : "";
  if (!o.aws_config.empty()) {
    TIDEPOOL_RETURN_IF_ERROR(
        WriteAwsConfig({o.aws_config, l.url, cloud::aws::AwsRegionOf(w.zone), aws.access_key_id,
                        aws.secret_access_key, ca, aws.web_identity_token}));
  }
  if (!o.kubeconfig.empty()) {
    TIDEPOOL_RETURN_IF_ERROR(WriteKubeconfig(o.kubeconfig, l.url, ca, e.secure ? token : ""));
  }
  if (!o.gcloud_config.empty()) {
    TIDEPOOL_RETURN_IF_ERROR(
        WriteGcloudConfig({o.gcloud_config, l.url, w.project, w.zone, token, ca}));
  }
  return OkStatus();
}

void PrintBanner(const UpOptions& o, const Exposure& e, const Listeners& l,
                 const sim::WorldOptions& w, bool autoscaler, std::ostream& out) {
  out << "tidepool up: Kubernetes v1.32 API at " << l.url << " (cluster " << w.cluster
      << ", project " << w.project << ", zone " << w.zone << "; speed " << o.speed
      << "x; autoscaler " << (autoscaler ? "on" : "off") << "; "
      << (o.data_dir.empty() ? std::string("in-memory storage") : "storage in " + o.data_dir)
      << ")\n";
  if (e.secure) {
    out << "tidepool up: WARNING: listening on " << o.address
        << (IsLoopbackAddress(o.address) ? "" : ", beyond this machine")
        << ": HTTPS with tidepool's own CA, and every request needs the bearer token written "
           "into "
        << (o.kubeconfig.empty() ? "the gcloud configuration" : "the kubeconfig") << " (mode 0600)"
        << (w.cloud.style == &cloud::aws::EksNodeStyle()
                ? ", and every AWS request a signature with the credentials --aws-config writes"
                : "")
        << ". Whoever has that file controls the cluster.\n";
  }
  if (!o.kubeconfig.empty()) {
    out << "  export KUBECONFIG=" << std::filesystem::absolute(o.kubeconfig).string() << "\n";
  } else if (!e.secure) {
    out << "  kubectl --server " << l.url << " get nodes\n";
  }
  if (w.cloud.style == &cloud::aws::EksNodeStyle()) {
    out << "tidepool up: AWS API (aws eks, autoscaling, ec2, sts) at " << l.url << "/, EKS cluster "
        << w.cluster << " in " << cloud::aws::AwsRegionOf(w.zone) << ", endpoint https://"
        << l.endpoint << "\n";
    if (!o.aws_config.empty()) {
      const std::string dir = std::filesystem::absolute(o.aws_config).string();
      out << "  export AWS_CONFIG_FILE=" << dir << "/config AWS_SHARED_CREDENTIALS_FILE=" << dir
          << "/credentials AWS_EC2_METADATA_DISABLED=true\n";
    } else {
      out << "  (its endpoint and credentials are written with --aws-config DIR)\n";
    }
    return;
  }
  out << "tidepool up: GKE API (gcloud) at " << l.url << "/, cluster endpoint https://"
      << l.endpoint << "\n";
  if (!o.gcloud_config.empty()) {
    out << "  export CLOUDSDK_CONFIG=" << std::filesystem::absolute(o.gcloud_config).string()
        << "\n";
    // gcloud's HTTP library prefers these to the configuration's core/custom_ca_certs_file.
    for (const char* var :
         {"CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}) {
      const char* v = e.secure ? std::getenv(var) : nullptr;
      if (v != nullptr && *v != '\0') {
        out << "  (" << var << " is set: gcloud would trust it instead of tidepool's CA; unset "
            << var << " for gcloud)\n";
      }
    }
  } else {
    out << "  (its token is written only with --gcloud-config DIR)\n";
  }
}

// When the cluster was created: the start of the first run's warm-up, kept in the journal
// (kind "clusters") so that a restart reports the same createTime.
TimePoint ClusterCreateTime(cloud::CloudJournal* journal, const sim::WorldOptions& w) {
  const TimePoint fresh = w.start - w.warmup;
  if (journal == nullptr) return fresh;
  if (auto records = journal->List("clusters"); records.ok()) {
    for (const cloud::CloudRecord& r : *records) {
      if (r.name != w.cluster) continue;
      nlohmann::json j = nlohmann::json::parse(r.json, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("createTime") && j["createTime"].is_number_integer()) {
        return TimePoint(Duration(j["createTime"].get<int64_t>()));
      }
    }
  }
  const nlohmann::json record = {{"createTime", fresh.time_since_epoch().count()}};
  (void)journal->Put("clusters", w.cluster, record.dump());  // at worst a new createTime later
  return fresh;
}

}  // namespace

int RunUp(const UpOptions& options, std::ostream& out, std::ostream& err) {
  if (!(options.speed > 0) || !std::isfinite(options.speed)) {
    err << "error: --speed must be a positive number\n";
    return 2;
  }
  if (!options.cloud.empty() && options.cloud != "gke" && options.cloud != "aws") {
    err << "error: --cloud must be gke or aws, not \"" << options.cloud << "\"\n";
    return 2;
  }
  StatusOr<Exposure> exposure = DecideExposure(options);
  if (!exposure.ok()) {
    err << "error: " << exposure.status().message() << "\n";
    return 2;
  }
  StatusOr<std::string> token = NewBearerToken();
  if (!token.ok()) {
    err << "error: " << token.status().message() << "\n";
    return 1;
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
  // Every component's options, so that --speed reaches each of their durations (up_options.h).
  UpComponentOptions components;
  components.world = std::move(world_options).value();
  sim::WorldOptions& w = components.world;
  // EKS when --cloud aws or the config's cluster.cloud says so.
  const bool aws = w.cloud.style == &cloud::aws::EksNodeStyle();
  if (options.cloud == "gke" && aws) {
    err << "error: --cloud gke, but the config's cluster.cloud is aws\n";
    return 2;
  }
  if (!options.aws_config.empty() && !aws) {
    err << "error: --aws-config needs --cloud aws\n";
    return 2;
  }
  if (!options.service_cluster_ip_range.empty()) {
    auto range = api::Ipv4Cidr::ParseServiceRange(options.service_cluster_ip_range);
    if (!range.ok()) {
      err << "error: --service-cluster-ip-range: " << range.status().message() << "\n";
      return 2;
    }
    w.service_range = range->ToString();
  }
  components.ApplyWorld();
  const TimePoint now = clock.Now();
  w.start = std::chrono::time_point_cast<std::chrono::seconds>(now);
  if (options.seed != 0) w.seed = options.seed;
  // With the externalgrpc provider served, the real CA owns the scaling.
  const bool external_autoscaler = !options.external_autoscaler_grpc.empty();
  const bool autoscaler_on = w.autoscaler && options.autoscaler && !external_autoscaler;
  w.autoscaler_verbosity =
      options.verbosity >= 0 ? options.verbosity : std::max(w.autoscaler_verbosity, 1);
  // The store's clock is the real one (timestamps stay real under --speed); the TTL is an
  // emulated duration like every other, so it is what is divided.
  components.store.event_ttl = options.event_ttl;
  ApplySpeed(components, options.speed);
  // The GPU operator labels GPU nodes for its device-plugin DaemonSet.
  w.cloud.gpu_operator_labels = options.gpu_operator;
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
  apiserver::StoreOptions& store_options = components.store;
  store_options.seed = static_cast<uint64_t>(now.time_since_epoch().count()) ^ w.seed;
  store_options.log = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());  // one write per line: atomic between threads
  };
  apiserver::ObjectStore store(clock, std::move(backend), store_options);
  auto loaded = store.Load();
  if (!loaded.ok()) {
    err << "error: --data-dir: " << loaded.status().message() << "\n";
    return 1;
  }

  apiserver::PodLogs logs(&clock);
  components.api_server.server_address = options.address + ":" + std::to_string(options.port);
  // TokenReview: the run's token is tidepool's administrator (exposure.h).
  components.api_server.token_valid = [run_token = *token](std::string_view t) {
    return BearerMatches("Bearer " + std::string(t), run_token);
  };
  // The service-account issuer as the cloud names it: GKE's cluster URL, or EKS's OIDC issuer.
  components.api_server.service_account_issuer =
      aws ? "https://oidc.eks." + cloud::aws::AwsRegionOf(w.zone) + ".amazonaws.com/id/" + w.cluster
          : "https://container.googleapis.com/v1/projects/" + w.project + "/locations/" + w.zone +
                "/clusters/" + w.cluster;
  auto api = std::make_unique<apiserver::ApiServer>(clock, store, logs, components.api_server);
  // Every actor below reaches the API through this process's transport (no socket).
  cluster::InProcessTransport api_transport(
      [&api](const apiserver::http::HttpRequest& req, apiserver::http::ResponseWriter& rw) {
        api->Handle(req, rw);
      });

  // With --data-dir the emulated cloud (pools, VMs, operations) is kept in the same store as
  // the API objects (runtime/store_cloud_journal.h), and a restart restores it.
  StoreCloudJournal journal(store);
  cloud::CloudJournal* cloud_journal = options.data_dir.empty() ? nullptr : &journal;
  w.cloud.journal = cloud_journal;
  // The emulated cloud's VMs register their nodes in the API as kubelets do.
  client::RestClient node_client(cluster::InProcessRestConfig(), clock,
                                 cluster::InProcessRestOptions(api_transport, kKubeletUserAgent));
  kubelet::ApiNodeSink node_sink(node_client, nullptr, nullptr, w.cloud.style->System());
  // The emulated cloud and the autoscaler's loop run on one event queue, advanced to the wall
  // clock by the cloud's thread below; the cluster's history (its initial pools' VMs booting
  // and registering) runs first, at once.
  EventQueue queue(w.start - w.warmup);
  Random cloud_random(SubSeed(w.seed, 0));
  log::Logger cloud_log("emulated-cloud", queue.clock(), /*to_stderr=*/false);
  log::Logger autoscaler_log("cluster-autoscaler", queue.clock(), /*to_stderr=*/false);
  autoscaler_log.SetVerbosity(w.autoscaler_verbosity);
  std::unique_ptr<cloud::emulated::EmulatedCloud> cloud =
      NewClusterCloud(w, queue, node_sink, cloud_random, cloud_log);
  if (Status s = CreateInitialPools(*cloud, w); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return 1;
  }
  queue.RunUntil(w.start);
  node_sink.Flush();  // the warm-up's nodes are in the API before the bootstrap reads them
  ClusterBootstrapOptions bootstrap;
  bootstrap.project = w.project;
  bootstrap.cluster = w.cluster;
  bootstrap.gpu_operator = options.gpu_operator;
  bootstrap.autoscaler_pod = autoscaler_on;
  bootstrap.gke_storage = w.cloud.style->ProviderName() == "gke";
  bootstrap.service_range = components.api_server.service_range;
  for (const cloud::emulated::InstanceInfo& i : cloud->ListInstances()) {
    if (i.registered) bootstrap.cloud_nodes.insert(i.name);
  }
  StatusOr<std::string> autoscaler_pod = BootstrapCluster(store, bootstrap);
  if (!autoscaler_pod.ok()) {
    err << "error: " << autoscaler_pod.status().message() << "\n";
    return 1;
  }
  // The autoscaler's log is the cluster-autoscaler pod's (`kubectl logs -f`).
  if (!autoscaler_pod->empty()) {
    autoscaler_log.AddSink([&logs, pod = *autoscaler_pod](std::string_view line) {
      std::string text(line);
      text += '\n';
      logs.Append("kube-system", pod, "cluster-autoscaler", text);
    });
  }

  // With --cloud aws, the credentials this run issued sign the aws CLI's requests and the EKS
  // tokens kubectl sends (cloud/aws/sigv4.h).
  // --aws-config's web-identity-token is a service account token of kube-system's
  // tidepool-autoscaler from the cluster's emulated OIDC provider (IRSA), valid for a day.
  AwsRunCredentials aws_credentials = AwsCredentials(*token);
  cloud::aws::SigV4Verifier aws_verifier(
      cloud::aws::SigV4Verifier::Credentials{
          {aws_credentials.access_key_id, aws_credentials.secret_access_key}},
      aws_credentials.web_identity_key);
  aws_credentials.web_identity_token = cloud::aws::IssueWebIdentityToken(
      aws_credentials.web_identity_key,
      {"https://oidc.eks." + cloud::aws::AwsRegionOf(w.zone) + ".amazonaws.com/id/" + w.cluster,
       "system:serviceaccount:kube-system:tidepool-autoscaler"},
      clock.Now(), std::chrono::hours(24));
  std::function<bool(std::string_view)> eks_tokens;
  if (aws) {
    eks_tokens = [&aws_verifier, &clock, cluster = w.cluster](std::string_view t) {
      return aws_verifier.VerifyEksToken(t, cluster, clock.Now()).ok();
    };
  }
  const ApiAccess access(*token, exposure->secure, eks_tokens);

  // The GKE API is set once the listeners are up (its cluster endpoint is the HTTPS port);
  // until then its paths answer 503.
  std::atomic<cloud::gke::GkeApi*> gke_api{nullptr};
  std::atomic<cloud::aws::AwsApi*> aws_api{nullptr};
  auto handler = [&api, &gke_api, &aws_api, &access, aws](const apiserver::http::HttpRequest& req,
                                                          apiserver::http::ResponseWriter& rw) {
    if (aws && cloud::aws::IsAwsRequest(req.method, req.path, req.headers)) {
      cloud::aws::AwsApi* a = aws_api.load();
      if (a == nullptr) {
        rw.Send(503, "application/json", R"({"message":"starting"})");
        return;
      }
      cloud::aws::AwsResponse r =
          a->Handle({req.method, req.path, req.query, req.headers, req.body});
      rw.Send(r.status, r.content_type, std::move(r.body), r.headers);
      return;
    }
    if (std::optional<Denial> denied = access.Check(req)) {
      rw.Send(denied->status, denied->content_type, std::move(denied->body));
      return;
    }
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
  };
  StatusOr<Listeners> listeners_or = StartListeners(options, *exposure, handler, clock);
  if (!listeners_or.ok()) {
    err << "error: " << listeners_or.status().message() << "\n";
    return 1;
  }
  Listeners listeners = std::move(listeners_or).value();

  // Front-ends on other threads (the GKE API, CA's externalgrpc) reach the cloud through this.
  QueueExecutor executor;
  cloud::gke::ClusterInfo cluster_info;
  cluster_info.project = w.project;
  cluster_info.name = w.cluster;
  cluster_info.zone = w.zone;
  cluster_info.endpoint = listeners.endpoint;
  cluster_info.ca_pem = listeners.tls->ca_pem();
  cluster_info.create_time = ClusterCreateTime(cloud_journal, w);
  cluster_info.services_ipv4_cidr = components.api_server.service_range.ToString();
  // Compute Engine's networkIP of a VM: its Node's InternalIP, as its kubelet registered it
  // (kubelet/api_node_sink.h).
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
  QueuedGkeControl gke_control(*cloud, executor, cluster_info, node_ip);
  components.gke_api.journal = cloud_journal;
  cloud::gke::GkeApi gke(gke_control, clock, components.gke_api);
  if (!aws) gke_api.store(&gke);
  cloud::aws::EksClusterInfo eks_info;
  eks_info.name = w.cluster;
  eks_info.region = cloud::aws::AwsRegionOf(w.zone);
  eks_info.zones = {w.zone};
  for (const char* z : {"a", "b", "c"}) {
    if (eks_info.region + z != w.zone) eks_info.zones.push_back(eks_info.region + z);
  }
  eks_info.endpoint = "https://" + listeners.endpoint;
  eks_info.ca_pem = listeners.tls->ca_pem();
  eks_info.created = cluster_info.create_time;
  eks_info.service_ipv4_cidr = cluster_info.services_ipv4_cidr;
  cloud::aws::AwsApi aws_front(gke_control, w.cloud.catalog, eks_info, clock, SubSeed(w.seed, 7),
                               &aws_verifier);
  if (aws) {
    cloud->AddObserver(&aws_front);  // before the cloud's thread starts
    aws_api.store(&aws_front);
  }

  // The Cluster Autoscaler's externalgrpc CloudProvider over the emulated cloud's pools; each
  // call runs on the cloud's thread, as the GKE API's do.
  // Its failed calls are logged from gRPC's threads: on the real clock, to stderr (the queue's
  // clock belongs to the cloud's thread). Declared first: it outlives the server.
  log::Logger grpc_log("externalgrpc", clock, /*to_stderr=*/true);
  std::unique_ptr<cloud::externalgrpc::CloudProviderServer> external_grpc;
  if (external_autoscaler) {
    auto server = cloud::externalgrpc::CloudProviderServer::Start(
        options.external_autoscaler_grpc, cloud->Provider(),
        [&executor](const std::function<void()>& fn) { executor.Run(fn); }, &grpc_log);
    if (!server.ok()) {
      err << "error: --external-autoscaler-grpc: " << server.status().message() << "\n";
      listeners.Stop();
      return 1;
    }
    external_grpc = std::move(server).value();
  }

  // The cluster's actors over this process's API: kube-scheduler and the kubelets with the
  // cluster's options (--speed applied), kube-controller-manager's controllers, and the cluster
  // autoscaler (`tidepool autoscale`'s engine and cluster side, with the emulated cloud; its
  // loop runs on the cloud's queue).
  ClusterActorsConfig actors_config;
  actors_config.components = &components;
  actors_config.seed = w.seed;
  actors_config.autoscaler = autoscaler_on;
  actors_config.cloud = &cloud->Provider();
  actors_config.autoscaler_timers = &queue;
  actors_config.autoscaler_log = &autoscaler_log;
  actors_config.root_ca_pem = listeners.tls->ca_pem();
  auto actors_or = ClusterActors::Create(actors_config, api_transport, clock);
  if (!actors_or.ok()) {
    err << "error: " << actors_or.status().message() << "\n";
    listeners.Stop();
    return 1;
  }
  const std::unique_ptr<ClusterActors> actors = std::move(actors_or).value();
  actors->Start();

  // The cloud's thread: the GKE API's calls run, the event queue advanced to the wall clock.
  std::atomic<bool> stopping{false};
  std::thread cloud_thread([&] {
    while (!stopping.load()) {
      executor.RunPending();
      store.ExpireEvents();
      const TimePoint t = clock.Now();
      if (t > queue.Now()) queue.RunUntil(t);
      Duration wait = std::chrono::milliseconds(20);
      if (auto next = queue.NextEventTime()) {
        wait = std::clamp<Duration>(*next - clock.Now(), Duration::zero(), wait);
      }
      executor.WaitForWork(wait);
    }
  });

  if (Status s = WriteClientFiles(options, *exposure, listeners, w, *token, aws_credentials);
      !s.ok()) {
    err << "error: " << s.message() << "\n";
    listeners.Stop();
    if (external_grpc != nullptr) external_grpc->Stop();
    stopping = true;
    cloud_thread.join();
    return 1;
  }
  if (external_grpc != nullptr && !options.external_autoscaler_cloud_config.empty()) {
    std::ofstream cc(options.external_autoscaler_cloud_config + ".tmp");
    cc << cloud::externalgrpc::CloudConfigYaml(external_grpc->address());
    cc.close();
    std::filesystem::rename(options.external_autoscaler_cloud_config + ".tmp",
                            options.external_autoscaler_cloud_config);
  }
  PrintBanner(options, *exposure, listeners, w, autoscaler_on, out);
  if (external_grpc != nullptr) {
    out << "tidepool up: Cluster Autoscaler externalgrpc cloud provider at "
        << external_grpc->address() << " (embedded autoscaler off)\n"
        << "  cluster-autoscaler --cloud-provider=externalgrpc --cloud-config="
        << (options.external_autoscaler_cloud_config.empty()
                ? std::string("FILE (address: ") + external_grpc->address() + ")"
                : std::filesystem::absolute(options.external_autoscaler_cloud_config).string())
        << " --kubeconfig=...\n";
  }
  out << "tidepool up: ready\n";
  out.flush();
  if (!options.port_file.empty()) {
    std::ofstream pf(options.port_file + ".tmp");
    pf << listeners.port << "\n";
    pf.close();
    std::filesystem::rename(options.port_file + ".tmp", options.port_file);
  }

  int sig = 0;
  sigwait(&signals, &sig);
  out << "tidepool up: " << (sig == SIGINT ? "interrupt" : "terminated") << ", shutting down\n";
  out.flush();
  listeners.Stop();
  gke_api.store(nullptr);
  aws_api.store(nullptr);
  // Before the cloud's thread stops: a call in flight waits for that thread.
  if (external_grpc != nullptr) external_grpc->Stop();
  stopping = true;
  cloud_thread.join();
  cloud->RemoveObserver(&aws_front);
  actors->Stop();  // after the cloud's thread: the autoscaler's loop is on its queue
  executor.RunPending();
  return 0;
}

}  // namespace tidepool::runtime
