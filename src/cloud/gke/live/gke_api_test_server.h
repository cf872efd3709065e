// File: gke_api_test_server.h (tests only)
//
// An EmulatedCloud on a simulated clock behind the GKE API (cloud/gke/gke_api.h), served over
// HTTP on a loopback port by the server `tidepool up` uses, with the query string routed as
// up_command.cc routes it: what the live provider's HTTP tests drive. One mutex (`mu()`) orders
// the server's handler and the test thread's clock advances; touch `cloud()` and `queue()`
// under it once requests may be in flight.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>

#include "apiserver/http/server.h"
#include "cloud/gke/emulated_gke_control.h"
#include "cloud/gke/gke_api.h"
#include "common/random.h"
#include "common/event_queue.h"

namespace tidepool::cloud::gke::live {

class GkeApiTestServer {
 public:
  GkeApiTestServer()
      : random_(7),
        cloud_("tidepool-local", "tidepool", "us-central1-a", queue_, sink_, random_),
        control_(cloud_, ClusterInfo{}),
        api_(control_, queue_.clock()) {}
  ~GkeApiTestServer() {
    if (server_) server_->Stop();
  }

  // Starts serving; call once, with ASSERT_NO_FATAL_FAILURE.
  void Start() {
    auto server = apiserver::http::HttpServer::Start(
        {}, [this](const apiserver::http::HttpRequest& req, apiserver::http::ResponseWriter& rw) {
          std::lock_guard<std::mutex> lock(mu_);
          GkeResponse r = api_.Handle({req.method, req.path, req.body, req.query});
          rw.Send(r.status, "application/json; charset=UTF-8", std::move(r.body));
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  // "http://127.0.0.1:PORT/": the container API's root; the compute API is at compute/v1/.
  std::string base() const { return "http://127.0.0.1:" + std::to_string(server_->port()) + "/"; }

  std::mutex& mu() { return mu_; }
  EventQueue& queue() { return queue_; }
  emulated::EmulatedCloud& cloud() { return cloud_; }

 private:
  EventQueue queue_;
  emulated::MemoryNodeSink sink_;
  Random random_;
  emulated::EmulatedCloud cloud_;
  EmulatedGkeControl control_;
  GkeApi api_;
  std::mutex mu_;
  std::unique_ptr<apiserver::http::HttpServer> server_;
};

}  // namespace tidepool::cloud::gke::live
