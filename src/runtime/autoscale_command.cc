#include "runtime/autoscale_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <thread>

#include "api/codec/yaml.h"
#include "apiserver/http/server.h"
#include "autoscaler/core/autoscaler.h"
#include "autoscaler/flags.h"
#include "client/config.h"
#include "client/leader_election.h"
#include "client/rest_client.h"
#include "cloud/providers.h"
#include "cloud/registry.h"
#include "common/log.h"
#include "common/random.h"
#include "runtime/autoscaler_metrics.h"
#include "runtime/exposure.h"
#include "runtime/kube_cluster.h"

namespace tidepool::runtime {
namespace {

using nlohmann::json;

// Health as CA judges it (--max-inactivity 10m, --max-failing-time 15m): unhealthy when a
// leading replica has not run a loop, or not run one successfully, for that long.
constexpr Duration kMaxInactivity = std::chrono::minutes(10);
constexpr Duration kMaxFailingTime = std::chrono::minutes(15);

StatusOr<autoscaler::AutoscalingOptions> BuildAutoscalingOptions(const AutoscaleOptions& o) {
  autoscaler::AutoscalingOptions a;
  if (!o.config.empty()) {
    std::ifstream in(o.config);
    if (!in) {
      return NotFoundError("--config: cannot read " + o.config);
    }
    std::stringstream text;
    text << in.rdbuf();
    TIDEPOOL_ASSIGN_OR_RETURN(std::vector<json> docs,
                              api::codec::ParseYamlDocuments(text.str()));
    for (const json& doc : docs) {
      if (doc.is_null()) continue;
      if (!doc.is_object()) {
        return InvalidArgumentError(o.config + ": expected a map of cluster-autoscaler flags");
      }
      for (const auto& [k, v] : doc.items()) {
        Status s = autoscaler::SetAutoscalerFlag(a, k, v, o.config + ": " + k);
        if (s.code() == StatusCode::kNotFound) {
          return InvalidArgumentError(o.config + ": unknown flag \"" + k + "\"");
        }
        TIDEPOOL_RETURN_IF_ERROR(s);
      }
    }
  }
  for (const auto& [name, value] : o.flags) {
    TIDEPOOL_RETURN_IF_ERROR(autoscaler::SetAutoscalerFlagFromString(a, name, value));
  }
  TIDEPOOL_RETURN_IF_ERROR(autoscaler::ValidateAutoscalingOptions(a, ""));
  return a;
}

StatusOr<client::RestConfig> LoadRestConfig(const AutoscaleOptions& o) {
  std::string path = o.kubeconfig;
  if (path.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
      path = env;
      // One file: the first of a KUBECONFIG list.
      if (auto colon = path.find(':'); colon != std::string::npos) path = path.substr(0, colon);
    }
  }
  if (path.empty()) {
    return client::InClusterConfig();
  }
  return client::LoadKubeconfig(path, o.context);
}

std::string DefaultIdentity() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "tidepool");
  }
  // client-go's examples and CA use "<hostname>_<uuid>": unique per process, so two replicas on
  // one host never share an identity. This is a name, not a decision: the OS's randomness.
  unsigned char bytes[8] = {0};
  if (FILE* f = std::fopen("/dev/urandom", "rb"); f != nullptr) {
    if (std::fread(bytes, 1, sizeof(bytes), f) != sizeof(bytes)) {
      std::snprintf(reinterpret_cast<char*>(bytes), sizeof(bytes), "%07d", getpid());
    }
    std::fclose(f);
  }
  std::string id = std::string(host) + "_";
  char hex[3];
  for (unsigned char b : bytes) {
    std::snprintf(hex, sizeof(hex), "%02x", b);
    id += hex;
  }
  return id;
}

// ":8085" -> ("0.0.0.0", 8085); "127.0.0.1:0" -> ("127.0.0.1", 0).
StatusOr<std::pair<std::string, uint16_t>> ParseAddress(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgumentError("--address: expected [host]:port, got \"" + address + "\"");
  }
  std::string host = address.substr(0, colon);
  if (host.empty()) host = "0.0.0.0";
  const std::string port = address.substr(colon + 1);
  char* end = nullptr;
  const long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || p < 0 || p > 65535) {
    return InvalidArgumentError("--address: bad port \"" + port + "\"");
  }
  return std::make_pair(host, static_cast<uint16_t>(p));
}

// "http://host:port/path" -> "host" (brackets of an IPv6 literal removed); "" for another scheme.
std::string PlainHttpHost(std::string_view url) {
  constexpr std::string_view kHttp = "http://";
  if (url.size() < kHttp.size()) return "";
  for (size_t i = 0; i < kHttp.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(url[i])) != kHttp[i]) return "";
  }
  std::string_view rest = url.substr(kHttp.size());
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') return std::string(rest.substr(1, rest.find(']') - 1));
  return std::string(rest.substr(0, rest.find(':')));
}

// Credentials never cross a network in clear text unless the user said so: plain http:// to
// another host than this one (loopback) with a credential is refused (InvalidArgument), or,
// with --insecure-allow-http-credentials, allowed with a warning.
Status CheckCredentialTransport(const std::string& flag, std::string_view url,
                                bool sends_credentials, bool allowed, log::Logger& logger) {
  const std::string host = PlainHttpHost(url);
  if (!sends_credentials || host.empty() || IsLoopbackAddress(host)) return OkStatus();
  if (!allowed) {
    return InvalidArgumentError(
        flag + " " + std::string(url) + ": refusing to send credentials over plain http to " +
        host + " (anyone on the path can read and replay them); use https, or pass "
        "--insecure-allow-http-credentials to send them anyway");
  }
  logger.Warning("Sending credentials over plain http (--insecure-allow-http-credentials)",
                 {{"endpoint", std::string(url)}});
  return OkStatus();
}

bool HasKubeCredentials(const client::RestConfig& c) {
  return !c.bearer_token.empty() || !c.bearer_token_file.empty() || !c.username.empty() ||
         c.exec.has_value();
}

// Shared between the loop, the HTTP handlers and the signal thread.
struct State {
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool lost_leadership = false;  // the elector ended; start another
  std::optional<TimePoint> last_loop;
  std::optional<TimePoint> last_success;
  TimePoint started{};
};

}  // namespace

std::vector<cloud::ProviderFlag> AutoscaleCloudFlags() {
  return cloud::NewCloudProviderRegistry().AllFlags();
}

int RunAutoscale(const AutoscaleOptions& o, std::ostream& out, std::ostream& err) {
  // Signals are taken by one thread (below); every thread started from here on (informers, the
  // elector, the event recorder, curl's) inherits this mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);  // only to wake the signal thread at exit
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A peer that goes away mid-write is an error on that connection, not the end of the
  // process: OpenSSL writes TLS records with write(), which raises SIGPIPE (a client resetting
  // an HTTPS watch killed the process), and libcurl is told not to touch signals.
  signal(SIGPIPE, SIG_IGN);
  RealClock clock;
  log::Logger logger("cluster-autoscaler", clock);
  logger.SetVerbosity(o.verbosity);

  // ---- Options -------------------------------------------------------------------------------
  StatusOr<autoscaler::AutoscalingOptions> options = BuildAutoscalingOptions(o);
  if (!options.ok()) {
    err << "error: " << options.status().message() << "\n";
    return 2;
  }
  const cloud::CloudProviderRegistry providers = cloud::NewCloudProviderRegistry();
  const cloud::CloudProviderRegistration* provider = providers.Find(o.cloud_provider);
  if (provider == nullptr) {
    err << "error: " << cloud::UnknownCloudProviderMessage(o.cloud_provider) << "\n";
    return 2;
  }
  if (std::vector<std::string> foreign = cloud::ForeignFlags(*provider, o.cloud);
      !foreign.empty()) {
    err << "error: " << foreign.front() << ": not a flag of --cloud-provider="
        << o.cloud_provider << "\n";
    return 2;
  }
  if (Status s = provider->validate(o.cloud); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return 2;
  }
  StatusOr<std::pair<std::string, uint16_t>> address = ParseAddress(o.address);
  if (!address.ok()) {
    err << "error: " << address.status().message() << "\n";
    return 2;
  }
  client::LeaderElectionConfig election;
  election.lease_namespace = o.lease_namespace;
  election.lease_name = o.lease_name;
  election.identity = o.identity.empty() ? DefaultIdentity() : o.identity;
  election.lease_duration = o.lease_duration;
  election.renew_deadline = o.renew_deadline;
  election.retry_period = o.retry_period;
  election.seed = o.seed;
  if (o.leader_elect) {
    if (Status s = client::LeaderElector::ValidateConfig(election); !s.ok()) {
      err << "error: " << s.message() << "\n";
      return 2;
    }
  }

  // ---- Kubernetes ----------------------------------------------------------------------------
  StatusOr<client::RestConfig> rest_config = LoadRestConfig(o);
  if (!rest_config.ok()) {
    err << "error: " << rest_config.status().message() << "\n";
    return 1;
  }
  // A hung API server must not hang the loop (writes, lists); watches are not bounded by this.
  if (rest_config->timeout == Duration::zero()) rest_config->timeout = std::chrono::seconds(60);
  if (Status s = CheckCredentialTransport("Kubernetes API", rest_config->host,
                                          HasKubeCredentials(*rest_config),
                                          o.insecure_allow_http_credentials, logger);
      !s.ok()) {
    err << "error: " << s.message() << "\n";
    return 2;
  }

  // ---- Cloud ---------------------------------------------------------------------------------
  // The provider checks its endpoints with this program's rule first (a refusal exits 2, as a
  // refused Kubernetes server does), then reads its credentials (a failure exits 1).
  bool refused = false;
  cloud::CloudProviderEnvironment environment;
  environment.clock = &clock;
  environment.logger = &logger;
  environment.check_credential_transport = [&](std::string_view flag, std::string_view url,
                                               bool sends_credentials) {
    Status s = CheckCredentialTransport(std::string(flag), url, sends_credentials,
                                        o.insecure_allow_http_credentials, logger);
    refused = refused || !s.ok();
    return s;
  };
  StatusOr<cloud::CloudProviderHandlePtr> built = provider->build(o.cloud, environment);
  if (!built.ok()) {
    err << "error: " << built.status().message() << "\n";
    return refused ? 2 : 1;
  }
  cloud::CloudProviderHandle& cloud = **built;

  client::RestClient kube(std::move(*rest_config), clock);
  logger.Info("Kubernetes API: " + kube.config().host);

  // ---- Engine --------------------------------------------------------------------------------
  KubeClusterCache cache(kube, clock, &logger, o.seed);
  KubeClusterWriter writer(kube, cache);
  KubeEventRecorder recorder(kube, clock, "cluster-autoscaler", &logger);
  Random random(o.seed);
  StatusOr<std::unique_ptr<autoscaler::Autoscaler>> engine =
      autoscaler::Autoscaler::Create(*options, cloud.provider(), writer, recorder, logger, random);
  if (!engine.ok()) {
    err << "error: " << engine.status().message() << "\n";
    return 2;
  }
  PrometheusMetrics metrics;
  (*engine)->SetMetrics(&metrics);
  metrics.UpdateMaxNodesCount(options->max_nodes_total);

  // ---- Signals ------------------------------------------------------------------------------
  State state;
  state.started = clock.Now();
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != SIGUSR1) {
      logger.Info(std::string("Received ") + (sig == SIGINT ? "interrupt" : "terminated") +
                  ", shutting down");
    }
    std::lock_guard<std::mutex> lock(state.mu);
    state.stop = true;
    state.cv.notify_all();
  });

  // ---- /healthz and /metrics -----------------------------------------------------------------
  std::atomic<bool> leading{!o.leader_elect};
  apiserver::http::ServerOptions server_options;
  server_options.address = address->first;
  server_options.port = address->second;
  auto server = apiserver::http::HttpServer::Start(
      server_options, [&](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) {
        if (req.path == "/metrics") {
          w.Send(200, "text/plain; version=0.0.4; charset=utf-8", metrics.Serialize());
          return;
        }
        if (req.path == "/healthz" || req.path == "/health-check") {
          std::string problem;
          {
            std::lock_guard<std::mutex> lock(state.mu);
            const TimePoint now = clock.Now();
            if (leading.load()) {
              const TimePoint active = state.last_loop.value_or(state.started);
              const TimePoint success = state.last_success.value_or(state.started);
              if (now - active > kMaxInactivity) {
                problem = "the last activity was more than 10m0s ago";
              } else if (now - success > kMaxFailingTime) {
                problem = "the last successful run was more than 15m0s ago";
              }
            }
          }
          if (problem.empty()) {
            w.Send(200, "text/plain; charset=utf-8", "ok");
          } else {
            w.Send(500, "text/plain; charset=utf-8", "Error: " + problem);
          }
          return;
        }
        w.Send(404, "text/plain; charset=utf-8", "404 page not found\n");
      });
  if (!server.ok()) {
    err << "error: --address " << o.address << ": " << server.status().message() << "\n";
    kill(getpid(), SIGUSR1);
    signal_thread.join();
    return 1;
  }
  logger.Info("Serving /healthz and /metrics on " + address->first + ":" +
              std::to_string((*server)->port()));
  if (!o.port_file.empty()) {
    const std::string tmp = o.port_file + ".tmp";
    std::ofstream(tmp) << (*server)->port() << "\n";
    std::rename(tmp.c_str(), o.port_file.c_str());
  }
  out << "tidepool autoscale: serving /healthz and /metrics on port " << (*server)->port()
      << "\n"
      << std::flush;

  // ---- Informers -----------------------------------------------------------------------------
  cache.Start();
  while (!cache.WaitForSync(std::chrono::seconds(1))) {
    std::lock_guard<std::mutex> lock(state.mu);
    if (state.stop) break;
    logger.V(1, "Waiting for the informers to sync");
  }

  // ---- Leader election -----------------------------------------------------------------------
  std::unique_ptr<client::LeaderElector> elector;
  if (o.leader_elect) {
    election.on_started_leading = [&] {
      leading = true;
      metrics.UpdateLeader(election.identity, true);
      std::lock_guard<std::mutex> lock(state.mu);
      state.cv.notify_all();
    };
    // CA exits when it loses the lease ("lost master") for its Deployment to restart it;
    // tidepool stops acting at once and stands for election again in the same process.
    election.on_stopped_leading = [&] {
      leading = false;
      metrics.UpdateLeader(election.identity, false);
      std::lock_guard<std::mutex> lock(state.mu);
      if (!state.stop) state.lost_leadership = true;
      state.cv.notify_all();
    };
    metrics.UpdateLeader(election.identity, false);
    elector = std::make_unique<client::LeaderElector>(kube, clock, election, &logger);
    elector->Start();
  }

  // ---- The loop ------------------------------------------------------------------------------
  std::string last_status;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(state.mu);
      if (state.stop) break;
      if (state.lost_leadership && elector && elector->Done()) {
        state.lost_leadership = false;
        lock.unlock();
        logger.Warning("Lost the leader lease; standing for election again");
        elector->Stop();
        elector = std::make_unique<client::LeaderElector>(kube, clock, election, &logger);
        elector->Start();
        continue;
      }
      if (!leading.load()) {
        state.cv.wait_for(lock, std::chrono::milliseconds(500));
        continue;
      }
    }
    const TimePoint start = clock.Now();
    const std::shared_ptr<const autoscaler::ClusterView> view = cache.SharedView();
    Status s = (*engine)->RunOnce(start, *view);
    const TimePoint end = clock.Now();
    metrics.UpdateFunctionDuration("main", end - start);
    {
      std::lock_guard<std::mutex> lock(state.mu);
      state.last_loop = end;
      if (s.ok()) state.last_success = end;
    }
    if (!s.ok()) {
      logger.Error("Failed to run autoscaler loop", {{"err", s.ToString()}});
      metrics.RegisterError(s.code() == StatusCode::kUnavailable ||
                                    s.code() == StatusCode::kResourceExhausted
                                ? "cloudProviderError"
                                : "internalError");
    }
    if (options->write_status_configmap) {
      const std::string status = (*engine)->StatusYaml();
      if (!status.empty() && status != last_status) {
        Status w = WriteStatusConfigMap(kube, o.status_namespace, options->status_config_map_name,
                                        status, end);
        if (w.ok()) {
          last_status = status;
        } else {
          logger.Warning("Failed to write status configmap", {{"err", w.ToString()}});
          metrics.RegisterError("apiCallError");
        }
      }
    }
    std::unique_lock<std::mutex> lock(state.mu);
    // CA waits the scan interval after each loop (time.After(scanInterval)).
    state.cv.wait_for(lock, options->scan_interval, [&] { return state.stop; });
  }

  // ---- Shutdown ------------------------------------------------------------------------------
  cloud.Stop();
  if (elector) elector->Stop();  // releases the lease when we hold it
  cache.Stop();
  (*server)->Stop();
  kill(getpid(), SIGUSR1);
  signal_thread.join();
  out << "tidepool autoscale: stopped\n";
  return 0;
}

}  // namespace tidepool::runtime
