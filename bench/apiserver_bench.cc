// The API server's figures for issue 4 §8, measured end to end over loopback HTTP/1.1:
//   BM_CreateNodesAndPods   10,000 nodes then 100,000 pods POSTed as `kubectl apply` sends them
//                           (fieldValidation=Strict, the last-applied annotation), from N
//                           keep-alive connections, in memory or with SQLite persistence; the
//                           process's RSS once everything is stored;
//   BM_ListPods             `kubectl get pods -A` on those 100,000 pods: the exact request
//                           (GET /api/v1/pods?limit=500 with kubectl's Table Accept header), to
//                           the last byte of the response; and the same as plain JSON (-o json);
//   BM_RealKubectlGetPodsA  the real kubectl (fresh --cache-dir), against the same server;
//   BM_CreateHandler        the same pod creates handed to ApiServer::Handle directly, on one
//                           thread, without HTTP or sockets: the handler's own CPU per create;
//   BM_JsonParse/BM_JsonDump  one pod's body parsed / serialized by nlohmann and by json_io
//                           (Boost.JSON's parser and string writer), on one thread;
//   BM_Watches              1,000 watches of default/pods held while 10,000 pods are created;
//                           every watcher must see every event, in resourceVersion order, or
//                           the benchmark fails.
// The server is the one `tidepool up` runs (ObjectStore + ApiServer + HttpServer on 127.0.0.1,
// port 0, a RealClock), without the emulated cloud and the actors. Clients are raw sockets in
// this file: a blocking request/response client and an epoll reader for the watch streams.
// Results and the exact commands: bench/README.md.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "apiserver/api_server.h"
#include "apiserver/http/server.h"
#include "apiserver/json_io.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "apiserver/storage/backend.h"
#include "common/clock.h"

namespace tidepool::apiserver {
namespace {

// TIDEPOOL_BENCH_DIVIDE=N divides every size below by N (a quick run while developing; the
// figures in bench/README.md are at full size).
int Scaled(int n) {
  const char* d = std::getenv("TIDEPOOL_BENCH_DIVIDE");
  const int div = d != nullptr && std::atoi(d) > 1 ? std::atoi(d) : 1;
  return std::max(1, n / div);
}
const int kNodes = Scaled(10000);
const int kPods = Scaled(100000);
const int kWatchers = Scaled(1000);  // the issue's figure; BM_Watches also runs 100
const int kWatchWrites = Scaled(10000);
constexpr int kWatchWriters = 8;

// ---- Time and memory ------------------------------------------------------------------------

const RealClock& Clock() {
  static const RealClock* clock = new RealClock();
  return *clock;
}

double Seconds(TimePoint from, TimePoint to) {
  return std::chrono::duration<double>(to - from).count();
}

// VmRSS or VmHWM from /proc/self/status, in MiB.
double StatusMiB(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::atof(line.c_str() + n + 1) / 1024.0;  // kB
    }
  }
  return 0;
}

// The machine is shared: a run whose resident memory passes this limit stops at once rather
// than push other people's work into the OOM killer.
constexpr double kRssLimitMiB = 10 * 1024;

const bool kRssWatchdog = [] {
  std::thread([] {
    while (true) {
      const double rss = StatusMiB("VmRSS");
      if (rss > kRssLimitMiB) {
        std::fprintf(stderr,
                     "apiserver_bench: resident memory %.0f MiB passed the %.0f MiB limit; "
                     "aborting\n",
                     rss, kRssLimitMiB);
        std::_Exit(3);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }).detach();
  return true;
}();

std::string MakeTempDir(const char* what) {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/tidepool-" + what + ".XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  return templ;
}

// ---- The server under test ------------------------------------------------------------------

struct Server {
  std::string data_dir;  // SQLite's directory, removed at the end; empty in memory
  std::unique_ptr<ObjectStore> store;
  PodLogs logs;
  std::unique_ptr<ApiServer> api;
  std::unique_ptr<http::HttpServer> http;
  uint16_t port = 0;

  ~Server() {
    if (http) http->Stop();
    http.reset();
    api.reset();
    store.reset();
    if (!data_dir.empty()) std::filesystem::remove_all(data_dir);
  }
};

// Wired as runtime/up_command.cc wires tidepool up, minus the emulated cloud and the actors.
std::unique_ptr<Server> StartServer(bool persist) {
  auto s = std::make_unique<Server>();
  std::unique_ptr<storage::Backend> backend;
  if (persist) {
    s->data_dir = MakeTempDir("apiserver-bench");
    auto b = storage::OpenSqlite(s->data_dir);
    if (!b.ok()) {
      std::fprintf(stderr, "OpenSqlite: %s\n", b.status().ToString().c_str());
      std::abort();
    }
    backend = std::move(b).value();
  } else {
    backend = storage::NewMemoryBackend();
  }
  s->store = std::make_unique<ObjectStore>(Clock(), std::move(backend), StoreOptions{});
  if (!s->store->Load().ok()) std::abort();
  ApiServerOptions api_options;
  api_options.server_address = "127.0.0.1:0";
  s->api = std::make_unique<ApiServer>(Clock(), *s->store, s->logs, api_options);
  http::ServerOptions http_options;
  ApiServer* api = s->api.get();
  auto server = http::HttpServer::Start(
      http_options,
      [api](const http::HttpRequest& req, http::ResponseWriter& w) { api->Handle(req, w); });
  if (!server.ok()) {
    std::fprintf(stderr, "HttpServer::Start: %s\n", server.status().ToString().c_str());
    std::abort();
  }
  s->http = std::move(server).value();
  s->port = s->http->port();
  return s;
}

// ---- A blocking HTTP/1.1 keep-alive client --------------------------------------------------

int Dial(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

struct Response {
  int status = 0;
  std::string body;
};

class Client {
 public:
  explicit Client(uint16_t port) : fd_(Dial(port)) {}
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  bool ok() const { return fd_ >= 0; }

  // Sends `request` (complete bytes) and reads one response (Content-Length or chunked).
  bool RoundTrip(std::string_view request, Response* out) {
    out->body.clear();
    return RoundTripStream(request, &out->status,
                           [out](std::string_view data) { out->body.append(data); });
  }

  // The same, handing the body to `on_body` piece by piece as it arrives (a large list is
  // never held whole by the client).
  template <typename OnBody>
  bool RoundTripStream(std::string_view request, int* status, OnBody on_body) {
    if (!WriteAll(fd_, request)) return false;
    size_t header_end;
    while ((header_end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return false;
    }
    const std::string_view head(buf_.data(), header_end);
    *status = head.size() > 12 ? std::atoi(head.data() + 9) : 0;
    const std::string lower = Lower(head);
    buf_.erase(0, header_end + 4);
    if (lower.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
      while (true) {
        size_t eol;
        while ((eol = buf_.find("\r\n")) == std::string::npos) {
          if (!Fill()) return false;
        }
        const size_t size = std::strtoul(buf_.c_str(), nullptr, 16);
        buf_.erase(0, eol + 2);
        while (buf_.size() < size + 2) {
          if (!Fill()) return false;
        }
        on_body(std::string_view(buf_.data(), size));
        buf_.erase(0, size + 2);
        if (size == 0) return true;  // no trailers from this server
      }
    }
    const size_t cl = lower.find("\r\ncontent-length:");
    if (cl == std::string::npos) return false;
    size_t left = std::strtoul(lower.c_str() + cl + 17, nullptr, 10);
    while (true) {
      const size_t k = std::min(left, buf_.size());
      if (k > 0) on_body(std::string_view(buf_.data(), k));
      buf_.erase(0, k);
      left -= k;
      if (left == 0) return true;
      if (!Fill()) return false;
    }
  }

 private:
  static std::string Lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }
  bool Fill() {
    ssize_t n;
    do {
      n = ::recv(fd_, rbuf_.get(), kReadSize, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    buf_.append(rbuf_.get(), static_cast<size_t>(n));
    return true;
  }

  static constexpr size_t kReadSize = 256 << 10;
  std::unique_ptr<char[]> rbuf_ = std::make_unique<char[]>(kReadSize);
  int fd_;
  std::string buf_;
};

// ---- Requests, as kubectl 1.32 sends them -----------------------------------------------------

constexpr char kUserAgent[] = "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07";
constexpr char kTableAccept[] =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

std::string Request(std::string_view method, std::string_view target, std::string_view accept,
                    std::string_view body) {
  std::string r;
  r.reserve(body.size() + 300);
  r.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  r.append("User-Agent: ").append(kUserAgent).append("\r\nAccept: ").append(accept);
  if (!body.empty()) {
    r.append("\r\nContent-Type: application/json\r\nContent-Length: ");
    r.append(std::to_string(body.size()));
  }
  r.append("\r\nAccept-Encoding: gzip\r\n\r\n").append(body);
  return r;
}

// `kubectl apply -f` of a new object, byte for byte as kubectl 1.32 sends it (captured with
// -v=9): the manifest, keys sorted, with the namespace filled in and the annotation
// kubectl.kubernetes.io/last-applied-configuration = the manifest with `"annotations":{}`, + "\n".
std::string ApplyBody(nlohmann::json manifest) {
  manifest["metadata"]["annotations"] = nlohmann::json::object();
  const std::string last = manifest.dump() + "\n";
  manifest["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = last;
  return manifest.dump();
}

const char* const kZones[] = {"us-central1-a", "us-central1-b", "us-central1-c"};

// Request bodies are built once per shape as JSON with @@NAME@@-style placeholders, then
// filled in per request with plain string substitution, so that the client (which shares the
// two cores with the server) spends next to nothing on them.
std::string Fill(std::string_view templ,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> subs) {
  std::string out;
  out.reserve(templ.size() + 64);
  size_t i = 0;
  while (i < templ.size()) {
    const size_t at = templ.find("@@", i);
    if (at == std::string_view::npos) break;
    out.append(templ, i, at - i);
    bool replaced = false;
    for (const auto& [key, value] : subs) {
      if (templ.compare(at, key.size(), key) == 0) {
        out.append(value);
        i = at + key.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out.append("@@");
      i = at + 2;
    }
  }
  out.append(templ, i);
  return out;
}

// A web pod as a Deployment's template would carry it, applied as a bare pod.
std::string PodTemplate() {
  const std::string app = "@@APP@@";
  nlohmann::json container = {
      {"name", "web"},
      {"image", "us-docker.pkg.dev/tidepool/apps/web:1.27.3"},
      {"args", {"--port=8080", "--log-level=info"}},
      {"ports", {{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}}}},
      {"env",
       {{{"name", "APP_NAME"}, {"value", app}},
        {{"name", "POD_NAME"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}}}},
      {"resources",
       {{"requests", {{"cpu", "250m"}, {"memory", "256Mi"}}},
        {"limits", {{"cpu", "500m"}, {"memory", "512Mi"}}}}},
      {"readinessProbe",
       {{"httpGet", {{"path", "/healthz"}, {"port", "http"}}}, {"periodSeconds", 10}}},
  };
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", "@@NAME@@"},
        {"namespace", "default"},
        {"labels", {{"app", app}, {"tier", "frontend"}, {"team", "checkout"}}}}},
      {"spec",
       {{"containers", {container}},
        {"nodeSelector", {{"cloud.google.com/gke-nodepool", "default-pool"}}},
        {"tolerations",
         {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}}}},
  };
  return ApplyBody(std::move(pod));
}

// A GKE node as the emulated cluster serves it (`kubectl get node -o json` of tidepool up,
// server-set fields removed), applied from a manifest: 1 in 5 is a T4 GPU node with its taint.
// The template for node i depends on i % 15 (GPU or not, zone).
std::string NodeTemplate(int i) {
  const bool gpu = i % 5 == 0;
  const std::string pool = gpu ? "gpu-pool" : "default-pool";
  const std::string machine = gpu ? "n1-standard-8" : "e2-standard-4";
  const std::string name = "@@NAME@@";
  const std::string zone = kZones[i % 3];
  nlohmann::json labels = {
      {"beta.kubernetes.io/arch", "amd64"},
      {"beta.kubernetes.io/instance-type", machine},
      {"beta.kubernetes.io/os", "linux"},
      {"cloud.google.com/gke-boot-disk", "pd-balanced"},
      {"cloud.google.com/gke-container-runtime", "containerd"},
      {"cloud.google.com/gke-max-pods-per-node", "110"},
      {"cloud.google.com/gke-nodepool", pool},
      {"cloud.google.com/gke-os-distribution", "cos"},
      {"cloud.google.com/gke-provisioning", "standard"},
      {"cloud.google.com/machine-family", gpu ? "n1" : "e2"},
      {"failure-domain.beta.kubernetes.io/region", "us-central1"},
      {"failure-domain.beta.kubernetes.io/zone", zone},
      {"kubernetes.io/arch", "amd64"},
      {"kubernetes.io/hostname", name},
      {"kubernetes.io/os", "linux"},
      {"node.kubernetes.io/instance-type", machine},
      {"topology.gke.io/zone", zone},
      {"topology.kubernetes.io/region", "us-central1"},
      {"topology.kubernetes.io/zone", zone},
  };
  nlohmann::json capacity = {{"cpu", gpu ? "8" : "4"},
                             {"ephemeral-storage", "98831908Ki"},
                             {"memory", gpu ? "30Gi" : "16Gi"},
                             {"pods", "110"}};
  nlohmann::json allocatable = {{"cpu", gpu ? "7910m" : "3920m"},
                                {"ephemeral-storage", "47060071629"},
                                {"memory", gpu ? "26Gi" : "13622Mi"},
                                {"pods", "110"}};
  nlohmann::json spec = {{"providerID", "gce://tidepool-local/" + zone + "/" + name}};
  if (gpu) {
    labels["cloud.google.com/gke-accelerator"] = "nvidia-tesla-t4";
    capacity["nvidia.com/gpu"] = "1";
    allocatable["nvidia.com/gpu"] = "1";
    spec["taints"] = {{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}};
  }
  const std::string t = "2026-11-29T20:27:30Z";
  auto condition = [&](const char* type, const char* status, const char* reason,
                       const char* message) {
    return nlohmann::json{{"type", type},           {"status", status},
                          {"reason", reason},       {"message", message},
                          {"lastHeartbeatTime", t}, {"lastTransitionTime", t}};
  };
  const std::string ip = "@@IP@@";
  const std::string id = "@@ID@@";
  nlohmann::json node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", name}, {"labels", labels}}},
      {"spec", spec},
      {"status",
       {{"capacity", capacity},
        {"allocatable", allocatable},
        {"conditions",
         {condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                    "kubelet has sufficient memory available"),
          condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                    "kubelet has no disk pressure"),
          condition("PIDPressure", "False", "KubeletHasSufficientPID",
                    "kubelet has sufficient PID available"),
          condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")}},
        {"addresses",
         {{{"type", "InternalIP"}, {"address", ip}}, {{"type", "Hostname"}, {"address", name}}}},
        {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
        {"nodeInfo",
         {{"architecture", "amd64"},
          {"bootID", id},
          {"containerRuntimeVersion", "containerd://1.7.24"},
          {"kernelVersion", "6.6.72+"},
          {"kubeProxyVersion", "v1.32.4-gke.1106006"},
          {"kubeletVersion", "v1.32.4-gke.1106006"},
          {"machineID", id},
          {"operatingSystem", "linux"},
          {"osImage", "Container-Optimized OS from Google"},
          {"systemUUID", id}}}}},
  };
  return ApplyBody(std::move(node));
}

constexpr char kApplyQuery[] = "?fieldManager=kubectl-client-side-apply&fieldValidation=Strict";

std::string PodName(int i) { return "web-" + std::to_string(i); }

std::string PodBody(int i) {
  static const std::string templ = PodTemplate();
  return Fill(templ, {{"@@NAME@@", PodName(i)}, {"@@APP@@", "web-" + std::to_string(i % 500)}});
}

std::string NodeBody(int i) {
  static const std::vector<std::string> templates = [] {
    std::vector<std::string> t;
    for (int k = 0; k < 15; ++k) t.push_back(NodeTemplate(k));
    return t;
  }();
  const std::string name =
      std::string(i % 5 == 0 ? "gke-tidepool-gpu-pool-" : "gke-tidepool-default-pool-") +
      std::to_string(10000000 + i);
  const std::string ip = "10.128." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 2);
  char id[40];
  std::snprintf(id, sizeof(id), "%08x%024d", i * 2654435761u, i);
  return Fill(templates[static_cast<size_t>(i % 15)],
              {{"@@NAME@@", name}, {"@@IP@@", ip}, {"@@ID@@", id}});
}

std::string CreatePodRequest(int i) {
  return Request("POST", std::string("/api/v1/namespaces/default/pods") + kApplyQuery,
                 "application/json", PodBody(i));
}
std::string CreateNodeRequest(int i) {
  return Request("POST", std::string("/api/v1/nodes") + kApplyQuery, "application/json",
                 NodeBody(i));
}

// The namespaces tidepool up starts with (runtime/cluster_bootstrap.h writes them); pods need
// `default` to exist.
bool CreateNamespaces(uint16_t port) {
  Client c(port);
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    Response r;
    const std::string body =
        std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") + ns + "\"}}";
    if (!c.RoundTrip(Request("POST", "/api/v1/namespaces", "application/json", body), &r) ||
        r.status != 201) {
      return false;
    }
  }
  return true;
}

// ---- Parallel creation ----------------------------------------------------------------------

double CpuSeconds(int who) {
  rusage u{};
  ::getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct CreateRun {
  double seconds = 0;               // wall time, first request sent to last response read
  double cpu_seconds = 0;           // the whole process's CPU time (user + system) meanwhile
  double client_cpu_seconds = 0;    // of which the client threads
  double node_seconds = 0;          // until the last node was created
  std::vector<int64_t> latency_ns;  // every request, sorted
  std::string error;
};

// Creates `nodes` nodes, then `pods` pods (pod names web-<first_pod + i>), spread over
// `connections` keep-alive connections (each takes the next item from a shared counter).
// Fails when it takes longer than `max_seconds` (the benchmarks stay bounded in time).
CreateRun CreateObjects(uint16_t port, int connections, int nodes, int pods, int first_pod = 0,
                        double max_seconds = 600) {
  CreateRun run;
  const int total = nodes + pods;
  std::atomic<int> next{0};
  std::atomic<int> nodes_done{0};
  std::atomic<int64_t> node_end_ns{0};
  std::mutex mu;
  std::vector<std::vector<int64_t>> latencies(static_cast<size_t>(connections));
  std::atomic<int64_t> client_cpu_us{0};
  const double cpu0 = CpuSeconds(RUSAGE_SELF);
  const TimePoint start = Clock().Now();
  const TimePoint deadline =
      start + std::chrono::duration_cast<Duration>(std::chrono::duration<double>(max_seconds));
  std::vector<std::thread> threads;
  for (int t = 0; t < connections; ++t) {
    threads.emplace_back([&, t] {
      Client c(port);
      if (!c.ok()) {
        std::lock_guard<std::mutex> l(mu);
        run.error = "connect failed";
        return;
      }
      auto& lat = latencies[static_cast<size_t>(t)];
      lat.reserve(static_cast<size_t>(total / connections + 1));
      Response r;
      for (int i; (i = next.fetch_add(1)) < total;) {
        const bool node = i < nodes;
        const std::string req =
            node ? CreateNodeRequest(i) : CreatePodRequest(first_pod + i - nodes);
        const TimePoint t0 = Clock().Now();
        if (!c.RoundTrip(req, &r) || r.status != 201) {
          std::lock_guard<std::mutex> l(mu);
          if (run.error.empty()) {
            run.error = "create " + std::to_string(i) + ": HTTP " + std::to_string(r.status) + " " +
                        r.body.substr(0, 400);
          }
          next = total;
          return;
        }
        const TimePoint t1 = Clock().Now();
        lat.push_back((t1 - t0).count());
        if (t1 > deadline) {
          std::lock_guard<std::mutex> l(mu);
          if (run.error.empty()) {
            run.error = "creating took longer than " + std::to_string(max_seconds) + " s";
          }
          next = total;
          return;
        }
        if (node && nodes_done.fetch_add(1) + 1 == nodes) {
          node_end_ns = (t1 - start).count();
        }
      }
      client_cpu_us += static_cast<int64_t>(CpuSeconds(RUSAGE_THREAD) * 1e6);
    });
  }
  for (auto& th : threads) th.join();
  run.seconds = Seconds(start, Clock().Now());
  run.cpu_seconds = CpuSeconds(RUSAGE_SELF) - cpu0;
  run.client_cpu_seconds = static_cast<double>(client_cpu_us.load()) / 1e6;
  run.node_seconds = static_cast<double>(node_end_ns.load()) / 1e9;
  for (auto& l : latencies) run.latency_ns.insert(run.latency_ns.end(), l.begin(), l.end());
  std::sort(run.latency_ns.begin(), run.latency_ns.end());
  return run;
}

double PercentileMs(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t i =
      std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())));
  return static_cast<double>(sorted[i]) / 1e6;
}

// The populated in-memory server that the list and kubectl benchmarks read from: the last
// in-memory BM_CreateNodesAndPods leaves its server here (one at a time, they are big).
std::unique_ptr<Server>& Populated() {
  static auto* s = new std::unique_ptr<Server>();
  return *s;
}

Server* GetPopulated(benchmark::State& state) {
  if (Populated() == nullptr) {
    auto s = StartServer(false);
    if (!CreateNamespaces(s->port)) {
      state.SkipWithError("creating namespaces failed");
      return nullptr;
    }
    CreateRun run = CreateObjects(s->port, 8, kNodes, kPods);
    if (!run.error.empty()) {
      state.SkipWithError(run.error.c_str());
      return nullptr;
    }
    Populated() = std::move(s);
  }
  return Populated().get();
}

void BM_CreateNodesAndPods(benchmark::State& state) {
  const int connections = static_cast<int>(state.range(0));
  const bool persist = state.range(1) != 0;
  for (auto _ : state) {
    Populated().reset();
    malloc_trim(0);
    const double rss_before = StatusMiB("VmRSS");
    auto server = StartServer(persist);
    if (!CreateNamespaces(server->port)) {
      state.SkipWithError("creating namespaces failed");
      return;
    }
    CreateRun run = CreateObjects(server->port, connections, kNodes, kPods);
    if (!run.error.empty()) {
      state.SkipWithError(run.error.c_str());
      return;
    }
    state.SetIterationTime(run.seconds);
    const double rss_after = StatusMiB("VmRSS");
    malloc_trim(0);
    const double rss_trimmed = StatusMiB("VmRSS");
    state.counters["nodes_s"] = run.node_seconds;
    state.counters["creates_per_s"] = (kNodes + kPods) / run.seconds;
    state.counters["cpu_s"] = run.cpu_seconds;
    state.counters["client_cpu_s"] = run.client_cpu_seconds;
    state.counters["server_cpu_us_per_create"] =
        (run.cpu_seconds - run.client_cpu_seconds) * 1e6 / (kNodes + kPods);
    state.counters["p50_ms"] = PercentileMs(run.latency_ns, 0.50);
    state.counters["p99_ms"] = PercentileMs(run.latency_ns, 0.99);
    state.counters["max_ms"] = PercentileMs(run.latency_ns, 1.0);
    state.counters["rss_MiB"] = rss_after;
    state.counters["rss_trimmed_MiB"] = rss_trimmed;
    state.counters["rss_base_MiB"] = rss_before;
    if (persist) {
      uint64_t bytes = 0;
      for (const auto& e : std::filesystem::directory_iterator(server->data_dir)) {
        if (e.is_regular_file()) bytes += e.file_size();
      }
      state.counters["disk_MiB"] = static_cast<double>(bytes) / (1 << 20);
    } else {
      Populated() = std::move(server);
    }
  }
}
BENCHMARK(BM_CreateNodesAndPods)
    ->ArgNames({"connections", "sqlite"})
    ->Args({8, 0})
    ->Args({32, 0})
    ->Args({8, 1})
    ->Args({32, 1})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// ---- The create handler alone, one thread ---------------------------------------------------

// Answers nothing; keeps the status and whether the body is non-empty.
class DiscardWriter : public http::ResponseWriter {
 public:
  int status = 0;
  void Send(int code, std::string_view, std::string body,
            const std::vector<std::pair<std::string, std::string>>&) override {
    status = code;
    benchmark::DoNotOptimize(body.data());
  }
  void SendView(int code, std::string_view, std::string_view body,
                const std::vector<std::pair<std::string, std::string>>&) override {
    status = code;
    benchmark::DoNotOptimize(body.data());
  }
  bool StartStream(int, std::string_view) override { return false; }
  bool WriteChunk(std::string_view) override { return false; }
  void EndStream() override {}
  bool Closed() override { return true; }
};

// A request as HttpServer hands it to the handler (what Convert makes of kubectl's POST).
http::HttpRequest CreateRequest(const std::string& path, std::string body) {
  http::HttpRequest r;
  r.method = "POST";
  r.path = path;
  r.target = path + kApplyQuery;
  r.query = {{"fieldManager", "kubectl-client-side-apply"}, {"fieldValidation", "Strict"}};
  r.headers = {{"accept", "application/json"},
               {"content-type", "application/json"},
               {"user-agent", kUserAgent}};
  r.body = std::move(body);
  r.remote = "127.0.0.1:40000";
  return r;
}

void BM_CreateHandler(benchmark::State& state) {
  ObjectStore store(Clock(), storage::NewMemoryBackend(), StoreOptions{});
  if (!store.Load().ok()) std::abort();
  PodLogs logs;
  ApiServerOptions options;
  options.server_address = "127.0.0.1:0";
  ApiServer api(Clock(), store, logs, options);
  for (const char* ns : {"default", "kube-system"}) {
    DiscardWriter w;
    api.Handle(CreateRequest("/api/v1/namespaces",
                             std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") +
                                 ns + "\"}}"),
               w);
  }
  // Bodies made before timing, as the HTTP benchmark's clients do.
  const int n = static_cast<int>(state.max_iterations);
  std::vector<http::HttpRequest> requests;
  requests.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    requests.push_back(CreateRequest("/api/v1/namespaces/default/pods", PodBody(i)));
  }
  size_t i = 0;
  for (auto _ : state) {
    DiscardWriter w;
    api.Handle(requests[i++], w);
    if (w.status != 201) {
      state.SkipWithError(("create answered " + std::to_string(w.status)).c_str());
      return;
    }
  }
}
BENCHMARK(BM_CreateHandler)->Iterations(Scaled(20000))->Unit(benchmark::kMicrosecond);

// The same creates with N watchers of default/pods open in the store (what a write costs with
// watchers: the event queued for each), drained every 256 creates outside the timing, so that
// no watcher is ever far behind. One thread.
template <typename T>
struct DrainBatch;
template <typename R, typename C, typename A>
struct DrainBatch<R (C::*)(A)> {
  using type = std::remove_pointer_t<A>;
};

void BM_CreateHandlerWatched(benchmark::State& state) {
  ObjectStore store(Clock(), storage::NewMemoryBackend(), StoreOptions{});
  if (!store.Load().ok()) std::abort();
  PodLogs logs;
  ApiServerOptions options;
  options.server_address = "127.0.0.1:0";
  ApiServer api(Clock(), store, logs, options);
  for (const char* ns : {"default", "kube-system"}) {
    DiscardWriter w;
    api.Handle(CreateRequest("/api/v1/namespaces",
                             std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") +
                                 ns + "\"}}"),
               w);
  }
  const Resource* pods = FindResource("", "v1", "pods");
  std::vector<std::unique_ptr<Watch>> watches;
  for (int i = 0; i < state.range(0); ++i) {
    auto w = store.OpenWatch(pods, "default", store.resource_version());
    if (!w.ok()) std::abort();
    watches.push_back(std::move(w).value());
  }
  const int n = static_cast<int>(state.max_iterations);
  std::vector<http::HttpRequest> requests;
  requests.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    requests.push_back(CreateRequest("/api/v1/namespaces/default/pods", PodBody(i)));
  }
  typename DrainBatch<decltype(&Watch::Drain)>::type batch;
  size_t i = 0, delivered = 0;
  for (auto _ : state) {
    DiscardWriter w;
    api.Handle(requests[i++], w);
    if (w.status != 201) {
      state.SkipWithError(("create answered " + std::to_string(w.status)).c_str());
      return;
    }
    if (i % 256 == 0) {
      state.PauseTiming();
      for (auto& watch : watches) {
        batch.clear();
        if (!watch->Drain(&batch)) std::abort();  // closed: not expected here
        delivered += batch.size();
      }
      state.ResumeTiming();
    }
  }
  for (auto& watch : watches) {
    batch.clear();
    watch->Drain(&batch);
    delivered += batch.size();
  }
  if (delivered != i * watches.size()) state.SkipWithError("an event was not delivered");
}
BENCHMARK(BM_CreateHandlerWatched)
    ->ArgName("watchers")
    ->Arg(0)
    ->Arg(100)
    ->Arg(1000)
    ->Iterations(Scaled(20000))
    ->Unit(benchmark::kMicrosecond);

// ---- JSON in and out, one thread -------------------------------------------------------------

// The body of a create (the manifest with its last-applied annotation): arg 0 = nlohmann's
// parser, 1 = json_io::Parse (Boost.JSON's parser into the same tree).
void BM_JsonParse(benchmark::State& state) {
  const std::string body = PodBody(7);
  for (auto _ : state) {
    if (state.range(0) == 0) {
      benchmark::DoNotOptimize(nlohmann::json::parse(body));
    } else {
      benchmark::DoNotOptimize(json_io::Parse(body));
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_JsonParse)->ArgName("json_io")->Arg(0)->Arg(1);

// The same tree serialized: arg 0 = nlohmann's dump, 1 = json_io::Dump (same bytes).
void BM_JsonDump(benchmark::State& state) {
  const nlohmann::json pod = nlohmann::json::parse(PodBody(7));
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = state.range(0) == 0
                           ? pod.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                           : json_io::Dump(pod);
    bytes += text.size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_JsonDump)->ArgName("json_io")->Arg(0)->Arg(1);

// ---- kubectl get pods -A ----------------------------------------------------------------------

void BM_ListPods(benchmark::State& state) {
  const bool table = state.range(0) != 0;
  Server* server = GetPopulated(state);
  if (server == nullptr) return;
  const std::string req =
      Request("GET", "/api/v1/pods?limit=500", table ? kTableAccept : "application/json", "");
  for (auto _ : state) {
    Client c(server->port);
    int status = 0;
    size_t bytes = 0, rows = 0;
    std::string tail;  // the end of the previous piece, for a marker split across two
    // One row (Table) or item (PodList) per pod: each carries exactly one "uid" member.
    static constexpr std::string_view kMarker = R"("uid":")";
    // Peak resident memory of this request alone: writing 5 to clear_refs resets VmHWM.
    { std::ofstream("/proc/self/clear_refs") << "5"; }
    const double rss_before = StatusMiB("VmRSS");
    const TimePoint t0 = Clock().Now();
    const bool ok = c.RoundTripStream(req, &status, [&](std::string_view piece) {
      bytes += piece.size();
      tail.append(piece.substr(0, std::min(piece.size(), kMarker.size() - 1)));
      for (size_t p = tail.find(kMarker); p != std::string::npos; p = tail.find(kMarker, p + 1))
        ++rows;
      for (size_t p = piece.find(kMarker); p != std::string_view::npos;
           p = piece.find(kMarker, p + 1))
        ++rows;
      tail.assign(piece.substr(piece.size() - std::min(piece.size(), kMarker.size() - 1)));
    });
    const TimePoint t1 = Clock().Now();
    if (!ok || status != 200) {
      state.SkipWithError("list failed");
      return;
    }
    state.SetIterationTime(Seconds(t0, t1));
    if (rows != static_cast<size_t>(kPods)) {
      state.SkipWithError(
          ("expected " + std::to_string(kPods) + " pods in the response, got " +
           std::to_string(rows)).c_str());
      return;
    }
    state.counters["response_MiB"] = static_cast<double>(bytes) / (1 << 20);
    state.counters["peak_extra_rss_MiB"] = StatusMiB("VmHWM") - rss_before;
  }
}
BENCHMARK(BM_ListPods)
    ->ArgName("table")
    ->Arg(1)
    ->Arg(0)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Runs `argv` with stdout to `out_path`, stderr to `err_path`; returns the exit status and
// adds the child's CPU time (user + system) to `*cpu_seconds`.
int Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
          const std::string& out_path, const std::string& err_path, double* cpu_seconds) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  rusage u{};
  while (::wait4(pid, &status, 0, &u) < 0 && errno == EINTR) {
  }
  *cpu_seconds += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                  static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// kubectl get pods -A, the real client, twice: with an empty discovery cache, then warm.
void BM_RealKubectlGetPodsA(benchmark::State& state) {
  Server* server = GetPopulated(state);
  if (server == nullptr) return;
  const std::string dir = MakeTempDir("kubectl-bench");
  const std::string kubeconfig = dir + "/kubeconfig";
  {
    std::ofstream k(kubeconfig);
    k << "apiVersion: v1\nkind: Config\nclusters:\n- name: tidepool\n  cluster:\n"
         "    server: http://127.0.0.1:"
      << server->port
      << "\ncontexts:\n- name: tidepool\n  context:\n    cluster: tidepool\n    user: tidepool\n"
         "current-context: tidepool\nusers:\n- name: tidepool\n  user: {}\n";
  }
  std::filesystem::create_directories(dir + "/home");
  std::vector<std::string> env = {"KUBECONFIG=" + kubeconfig, "HOME=" + dir + "/home",
                                  "CLOUDSDK_CONFIG=" + dir + "/gcloud"};
  if (const char* path = std::getenv("PATH")) env.push_back(std::string("PATH=") + path);
  const std::vector<std::string> argv = {
      "kubectl", "--cache-dir", dir + "/cache", "--request-timeout=120s", "get", "pods", "-A"};
  for (auto _ : state) {
    double times[2] = {0, 0}, cpu[2] = {0, 0};
    for (int run = 0; run < 2; ++run) {
      const TimePoint t0 = Clock().Now();
      const int rc = Spawn(argv, env, dir + "/out", dir + "/err", &cpu[run]);
      times[run] = Seconds(t0, Clock().Now());
      std::ifstream out(dir + "/out");
      size_t lines = 0;
      for (std::string line; std::getline(out, line);) ++lines;
      if (rc != 0 || lines != static_cast<size_t>(kPods) + 1) {
        std::ifstream err(dir + "/err");
        std::string e((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
        state.SkipWithError(("kubectl rc " + std::to_string(rc) + ", " + std::to_string(lines) +
                             " lines: " + e.substr(0, 300))
                                .c_str());
        std::filesystem::remove_all(dir);
        return;
      }
    }
    state.SetIterationTime(times[0]);
    state.counters["cold_cache_s"] = times[0];
    state.counters["warm_cache_s"] = times[1];
    state.counters["kubectl_cpu_cold_s"] = cpu[0];  // kubectl's own CPU time (and its dispatcher's)
    state.counters["kubectl_cpu_warm_s"] = cpu[1];
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RealKubectlGetPodsA)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- Watches ----------------------------------------------------------------------------------

// One watch stream: an incremental parser of the chunked body, one event per line.
struct WatchStream {
  int fd = -1;
  enum class State { kHeaders, kSize, kData, kDataEnd } state = State::kHeaders;
  std::string pending;  // headers or a chunk-size line, not complete yet
  std::string line;     // an event line not complete yet
  size_t chunk_left = 0;
  size_t crlf_left = 0;
  int64_t next_rv = 0;  // the resourceVersion the next event must carry
  int64_t events = 0;
  bool full_check = false;  // parse every event as JSON (a few watchers), not just scan it
  bool established = false;
  std::string error;

  void Fail(std::string e) {
    if (error.empty()) error = std::move(e);
  }

  void Event(std::string_view line) {
    if (line.empty()) return;
    // The server writes {"type":"ADDED","object":<the pod, keys sorted>}; the first
    // "resourceVersion":" is metadata's (managedFields and the annotation hold none unquoted).
    static constexpr std::string_view kAdded = R"({"type":"ADDED","object":)";
    static constexpr std::string_view kRv = R"("resourceVersion":")";
    if (line.substr(0, kAdded.size()) != kAdded) {
      return Fail("event " + std::to_string(events) +
                  " is not ADDED: " + std::string(line.substr(0, 200)));
    }
    const size_t at = line.find(kRv);
    if (at == std::string_view::npos) return Fail("event without resourceVersion");
    const int64_t rv = std::atoll(line.data() + at + kRv.size());
    if (full_check) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || j.value("type", "") != "ADDED" ||
          j["object"]["metadata"]["resourceVersion"] != std::to_string(rv) ||
          j["object"]["metadata"]["namespace"] != "default" || j["object"]["kind"] != "Pod") {
        return Fail("event " + std::to_string(events) + " does not decode as expected");
      }
    }
    if (rv != next_rv) {
      return Fail("event " + std::to_string(events) + ": resourceVersion " + std::to_string(rv) +
                  ", expected " + std::to_string(next_rv));
    }
    ++next_rv;
    ++events;
  }

  void Data(const char* p, size_t n) {
    while (n > 0) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
      if (nl == nullptr) {
        line.append(p, n);
        return;
      }
      const size_t k = static_cast<size_t>(nl - p);
      if (line.empty()) {
        Event(std::string_view(p, k));
      } else {
        line.append(p, k);
        Event(line);
        line.clear();
      }
      p += k + 1;
      n -= k + 1;
    }
  }

  void Feed(const char* p, size_t n) {
    while (n > 0 && error.empty()) {
      switch (state) {
        case State::kHeaders: {
          const size_t old = pending.size();
          pending.append(p, n);
          const size_t end = pending.find("\r\n\r\n");
          if (end == std::string::npos) return;
          if (pending.compare(0, 12, "HTTP/1.1 200") != 0)
            return Fail("watch: " + pending.substr(0, 200));
          const size_t used = end + 4 - old;
          p += used;
          n -= used;
          pending.clear();
          established = true;
          state = State::kSize;
          break;
        }
        case State::kSize: {
          const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
          const size_t k = nl ? static_cast<size_t>(nl - p) + 1 : n;
          pending.append(p, k);
          p += k;
          n -= k;
          if (nl == nullptr) break;
          chunk_left = std::strtoul(pending.c_str(), nullptr, 16);
          pending.clear();
          if (chunk_left == 0) return Fail("the watch ended");
          state = State::kData;
          break;
        }
        case State::kData: {
          const size_t k = std::min(chunk_left, n);
          Data(p, k);  // an event line may span chunks: `line` keeps the partial one
          p += k;
          n -= k;
          chunk_left -= k;
          if (chunk_left == 0) {
            state = State::kDataEnd;
            crlf_left = 2;
          }
          break;
        }
        case State::kDataEnd: {
          const size_t k = std::min(crlf_left, n);
          p += k;
          n -= k;
          crlf_left -= k;
          if (crlf_left == 0) state = State::kSize;
          break;
        }
      }
    }
  }
};

void RaiseFdLimit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
}

void BM_Watches(benchmark::State& state) {
  const int watchers = static_cast<int>(state.range(0));
  const int readers = 2;  // client threads reading the streams (epoll)
  RaiseFdLimit();
  for (auto _ : state) {
    auto server = StartServer(false);
    if (!CreateNamespaces(server->port)) {
      state.SkipWithError("creating namespaces failed");
      return;
    }
    // The list kubectl get -w starts with gives the resourceVersion to watch from.
    int64_t rv0 = 0;
    {
      Client c(server->port);
      Response r;
      if (!c.RoundTrip(
              Request("GET", "/api/v1/namespaces/default/pods?limit=500", kTableAccept, ""), &r) ||
          r.status != 200) {
        state.SkipWithError("list failed");
        return;
      }
      rv0 = std::stoll(
          nlohmann::json::parse(r.body)["metadata"]["resourceVersion"].get<std::string>());
    }
    const std::string watch_req = Request(
        "GET",
        "/api/v1/namespaces/default/pods?resourceVersion=" + std::to_string(rv0) + "&watch=true",
        "application/json", "");
    std::vector<WatchStream> streams(static_cast<size_t>(watchers));
    for (int i = 0; i < watchers; ++i) {
      WatchStream& s = streams[static_cast<size_t>(i)];
      s.next_rv = rv0 + 1;
      s.full_check = i % 100 == 0;
      s.fd = Dial(server->port);
      if (s.fd < 0 || !WriteAll(s.fd, watch_req)) {
        state.SkipWithError(("watch connection " + std::to_string(i) + " failed").c_str());
        return;
      }
      ::fcntl(s.fd, F_SETFL, ::fcntl(s.fd, F_GETFL) | O_NONBLOCK);
    }
    // Reader threads: each owns a slice of the streams.
    std::atomic<int> established{0}, complete{0};
    std::atomic<bool> stop{false};
    std::atomic<int64_t> last_complete_ns{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < readers; ++t) {
      threads.emplace_back([&, t] {
        const int ep = ::epoll_create1(EPOLL_CLOEXEC);
        for (int i = t; i < watchers; i += readers) {
          epoll_event ev{};
          ev.events = EPOLLIN;
          ev.data.u32 = static_cast<uint32_t>(i);
          ::epoll_ctl(ep, EPOLL_CTL_ADD, streams[static_cast<size_t>(i)].fd, &ev);
        }
        std::vector<char> buf(256 << 10);
        std::vector<epoll_event> evs(256);
        while (!stop.load()) {
          const int n = ::epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 100);
          for (int k = 0; k < n; ++k) {
            WatchStream& s = streams[evs[static_cast<size_t>(k)].data.u32];
            // One read per ready stream and round (level-triggered: what is left is reported
            // again), so that a stream with one event costs one recv, not two.
            ssize_t got;
            do {
              got = ::recv(s.fd, buf.data(), buf.size(), 0);
            } while (got < 0 && errno == EINTR);
            if (got < 0 && errno == EAGAIN) continue;
            if (got <= 0) {
              s.Fail("the server closed the watch");
              ::epoll_ctl(ep, EPOLL_CTL_DEL, s.fd, nullptr);
              continue;
            }
            const bool was_established = s.established;
            const int64_t before = s.events;
            s.Feed(buf.data(), static_cast<size_t>(got));
            if (!was_established && s.established) established.fetch_add(1);
            if (before < kWatchWrites && s.events >= kWatchWrites) {
              if (complete.fetch_add(1) + 1 == watchers) {
                last_complete_ns = Clock().Now().time_since_epoch().count();
              }
            }
            if (!s.error.empty()) ::epoll_ctl(ep, EPOLL_CTL_DEL, s.fd, nullptr);
          }
        }
        ::close(ep);
      });
    }
    auto finish = [&] {
      stop = true;
      for (auto& th : threads) th.join();
      for (auto& s : streams) ::close(s.fd);
    };
    // Every watch registered (its response headers come after the store opened it).
    const TimePoint setup_deadline = Clock().Now() + std::chrono::seconds(60);
    while (established.load() < watchers && Clock().Now() < setup_deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (established.load() < watchers) {
      finish();
      state.SkipWithError("not every watch was established within 60 s");
      return;
    }
    const double cpu0 = CpuSeconds(RUSAGE_SELF);
    const TimePoint start = Clock().Now();
    CreateRun writes = CreateObjects(server->port, kWatchWriters, 0, kWatchWrites);
    if (!writes.error.empty()) {
      finish();
      state.SkipWithError(writes.error.c_str());
      return;
    }
    const TimePoint writes_done = Clock().Now();
    const TimePoint deadline = writes_done + std::chrono::seconds(300);
    auto failed = [&] {
      for (const auto& s : streams) {
        if (!s.error.empty()) return true;
      }
      return false;
    };
    while (complete.load() < watchers && Clock().Now() < deadline && !failed()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const double rss = StatusMiB("VmRSS");              // 1,000 watches open, 10,000 pods stored
    const double cpu = CpuSeconds(RUSAGE_SELF) - cpu0;  // server, writers and readers
    finish();
    int64_t total_events = 0, min_events = kWatchWrites, full_checked = 0;
    std::string error;
    for (size_t i = 0; i < streams.size(); ++i) {
      const auto& s = streams[i];
      total_events += s.events;
      min_events = std::min(min_events, s.events);
      if (s.full_check) full_checked += s.events;
      if (error.empty() && !s.error.empty())
        error = "watcher " + std::to_string(i) + ": " + s.error;
    }
    if (error.empty() && complete.load() < watchers) {
      error = "only " + std::to_string(complete.load()) + " of " + std::to_string(watchers) +
              " watchers saw every event within 300 s (fewest: " + std::to_string(min_events) + ")";
    }
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    const TimePoint last = TimePoint(Duration(last_complete_ns.load()));
    state.SetIterationTime(Seconds(start, last));
    state.counters["writes_s"] = writes.seconds;
    state.counters["cpu_s"] = cpu;
    state.counters["writes_per_s"] = kWatchWrites / writes.seconds;
    state.counters["write_p99_ms"] = PercentileMs(writes.latency_ns, 0.99);
    state.counters["lag_after_last_write_s"] = std::max(0.0, Seconds(writes_done, last));
    state.counters["events_delivered"] = static_cast<double>(total_events);
    state.counters["events_json_checked"] = static_cast<double>(full_checked);
    state.counters["rss_MiB"] = rss;
  }
}
BENCHMARK(BM_Watches)
    ->ArgName("watchers")
    ->Arg(Scaled(100))
    ->Arg(kWatchers)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool::apiserver

BENCHMARK_MAIN();
