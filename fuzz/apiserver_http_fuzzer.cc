// Fuzz target: the API server's request path, ApiServer::Handle, with whole requests (method,
// path, query, headers, body) and no sockets: a fresh in-memory ObjectStore per input holding
// namespaces default and kube-system, a node, a running pod with logs, a Deployment, a
// PodDisruptionBudget and a ConfigMap, so that gets, updates, patches, deletes, evictions and
// bindings meet existing objects.
// Input: up to 8 requests separated by "\n%%\n", each in fuzz_support.h's TextRequest form:
//   "PATCH /api/v1/namespaces/default/pods/p?fieldManager=f\ncontent-type: application/merge-patch+json\n\n{...}"
// The target is split and percent-decoded as apiserver/http/server.cc does. Streams (watch,
// logs -f) are answered by a writer whose peer is gone, so they return at once.
// Oracles: nothing crashes; every JSON answer is JSON.
#include <nlohmann/json.hpp>

#include "apiserver/api_server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "apiserver/storage/backend.h"
#include "common/clock.h"
#include "fuzz/fuzz_support.h"

namespace apiserver = tidepool::apiserver;
namespace http = tidepool::apiserver::http;
using tidepool::fuzz::Check;

namespace {

// Complete responses are kept; a stream finds its peer gone.
class Writer final : public http::ResponseWriter {
 public:
  void Send(int s, std::string_view content_type, std::string b,
            const std::vector<std::pair<std::string, std::string>>&) override {
    status = s;
    type = std::string(content_type);
    body = std::move(b);
  }
  bool StartStream(int s, std::string_view content_type) override {
    status = s;
    type = std::string(content_type);
    return false;
  }
  bool WriteChunk(std::string_view) override { return false; }
  void EndStream() override {}
  bool Closed() override { return true; }

  int status = 0;
  std::string type;
  std::string body;
};

http::HttpRequest ToHttpRequest(const tidepool::fuzz::TextRequest& t) {
  http::HttpRequest out;
  out.method = t.method;
  out.target = t.target;
  out.remote = "127.0.0.1:40000";
  http::SplitRequestTarget(out);  // as the server splits what it reads
  for (const auto& [name, value] : t.headers) out.headers[name] = value;
  out.body = t.body;
  return out;
}

struct Seed {
  const char* path;
  const char* body;
};

constexpr Seed kSeeds[] = {
    {"/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})"},
    {"/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-system"}})"},
    {"/api/v1/nodes",
     R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}},
         "status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110","nvidia.com/gpu":"1"},
                   "allocatable":{"cpu":"4","memory":"16Gi","pods":"110","nvidia.com/gpu":"1"},
                   "conditions":[{"type":"Ready","status":"True"}]}})"},
    {"/api/v1/namespaces/default/pods",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web"}},
         "spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox",
                 "resources":{"limits":{"nvidia.com/gpu":1}}}]},
         "status":{"phase":"Running","containerStatuses":[{"name":"c","ready":true,"restartCount":0,
                   "image":"busybox","imageID":"","state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}}]}})"},
    {"/apis/apps/v1/namespaces/default/deployments",
     R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
         "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
                 "template":{"metadata":{"labels":{"app":"web"}},
                             "spec":{"containers":[{"name":"c","image":"busybox"}]}}}})"},
    {"/apis/policy/v1/namespaces/default/poddisruptionbudgets",
     R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"pdb"},
         "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}})"},
    {"/api/v1/namespaces/default/configmaps",
     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"}})"},
};

void CheckAnswer(const Writer& w, const http::HttpRequest& req) {
  if (w.type.find("json") == std::string::npos || w.body.empty()) return;
  Check(!nlohmann::json::parse(w.body, nullptr, false).is_discarded(),
        "a JSON answer that is not JSON", req.method + " " + req.target + "\n" + w.body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tidepool::SimulatedClock clock;
  apiserver::ObjectStore store(clock, apiserver::storage::NewMemoryBackend());
  apiserver::PodLogs logs;
  logs.Append("default", "p", "c", "line 1\nline 2\n");
  apiserver::ApiServer server(clock, store, logs, apiserver::ApiServerOptions{"127.0.0.1:6443"});
  for (const Seed& s : kSeeds) {
    http::HttpRequest req;
    req.method = "POST";
    req.target = req.path = s.path;
    req.headers["content-type"] = "application/json";
    req.body = s.body;
    Writer w;
    server.Handle(req, w);
    Check(w.status == 201, "setup: a seed object was refused", std::string(s.path) + " " + w.body);
  }

  for (std::string_view text :
       tidepool::fuzz::Sections(tidepool::fuzz::AsText(data, size), "\n%%\n", 8)) {
    const http::HttpRequest req = ToHttpRequest(tidepool::fuzz::ParseTextRequest(text));
    Writer w;
    server.Handle(req, w);
    CheckAnswer(w, req);
    clock.Advance(std::chrono::seconds(1));
  }
  return 0;
}
