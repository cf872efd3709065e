// File: test_api_server.h
//
// Test support: tidepool's real API server (apiserver/) behind its HttpServer on 127.0.0.1,
// for the client/ tests. An optional interceptor sees every request first (failure injection,
// request capture, pagination); the server can be stopped and started again on the same port
// (on the same object store) to simulate an outage.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/api_server.h"
#include "apiserver/http/server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "client/config.h"
#include "common/clock.h"

namespace tidepool::client::testing {

// A ResponseWriter that keeps what a handler answered.
class CaptureWriter : public apiserver::http::ResponseWriter {
 public:
  void Send(int status, std::string_view content_type, std::string body,
            const std::vector<std::pair<std::string, std::string>>& headers) override {
    code = status;
    type = std::string(content_type);
    this->body = std::move(body);
    this->headers = headers;
  }
  bool StartStream(int status, std::string_view content_type) override {
    code = status;
    type = std::string(content_type);
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    body += data;
    return true;
  }
  void EndStream() override {}
  bool Closed() override { return true; }

  int code = 0;
  std::string type, body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// The API server's options for a test of components without kcm's node lifecycle controller:
// kube-apiserver with --disable-admission-plugins=TaintNodesByCondition, so that a Node created
// Ready is not left with the not-ready taint no one removes.
inline apiserver::ApiServerOptions ComponentTestOptions(
    Duration bookmark_interval = std::chrono::seconds(30)) {
  apiserver::ApiServerOptions o{"127.0.0.1:6443", bookmark_interval};
  o.taint_nodes_by_condition = false;
  return o;
}

class TestApiServer {
 public:
  // Returns true when it answered the request itself.
  using Interceptor = std::function<bool(const apiserver::http::HttpRequest&, apiserver::http::ResponseWriter&)>;

  // `taint_nodes_by_condition`: that admission plugin on (kube-apiserver's default), for a test
  // of what a real API server does to a new Node.
  explicit TestApiServer(apiserver::StoreOptions store_options = {},
                         Duration bookmark_interval = std::chrono::seconds(30),
                         bool taint_nodes_by_condition = false)
      : store_(clock_, nullptr, store_options),
        api_(clock_, store_, logs_, [&] {
          apiserver::ApiServerOptions o = ComponentTestOptions(bookmark_interval);
          o.taint_nodes_by_condition = taint_nodes_by_condition;
          return o;
        }()) {
    for (const char* ns : {"default", "kube-system"}) {
      CaptureWriter w;
      apiserver::http::HttpRequest req;
      req.method = "POST";
      req.target = req.path = "/api/v1/namespaces";
      req.headers["content-type"] = "application/json";
      req.body = nlohmann::json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}.dump();
      api_.Handle(req, w);
    }
  }
  ~TestApiServer() { StopServer(); }

  // Starts listening (port 0: a free one; else that port, e.g. the previous one).
  Status StartServer(uint16_t port = 0) {
    apiserver::http::ServerOptions o;
    o.port = port;
    auto s = apiserver::http::HttpServer::Start(o, [this](const apiserver::http::HttpRequest& req,
                                                          apiserver::http::ResponseWriter& w) {
      Interceptor icpt;
      {
        std::lock_guard<std::mutex> lock(mu_);
        icpt = interceptor_;
      }
      if (icpt && icpt(req, w)) return;
      api_.Handle(req, w);
    });
    if (!s.ok()) return s.status();
    server_ = std::move(s).value();
    port_ = server_->port();
    return OkStatus();
  }
  void StopServer() {
    if (server_) server_->Stop();
    server_.reset();
  }

  void SetInterceptor(Interceptor i) {
    std::lock_guard<std::mutex> lock(mu_);
    interceptor_ = std::move(i);
  }

  // Serves `req` with the API server directly (no HTTP).
  CaptureWriter Serve(const apiserver::http::HttpRequest& req) {
    CaptureWriter w;
    api_.Handle(req, w);
    return w;
  }

  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  RestConfig Config() const {
    RestConfig c;
    c.host = url();
    return c;
  }
  apiserver::ObjectStore& store() { return store_; }
  apiserver::ApiServer& api() { return api_; }
  const Clock& clock() const { return clock_; }

 private:
  RealClock clock_;
  apiserver::ObjectStore store_;
  apiserver::PodLogs logs_;
  apiserver::ApiServer api_;
  std::unique_ptr<apiserver::http::HttpServer> server_;
  uint16_t port_ = 0;
  std::mutex mu_;
  Interceptor interceptor_;
};

}  // namespace tidepool::client::testing
