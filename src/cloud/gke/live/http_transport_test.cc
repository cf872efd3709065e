// File: http_transport_test.cc
//
// The live provider over real HTTP: libcurl (client/http) to an HTTP server (apiserver/http, the
// one `tidepool up` uses) whose handler routes to GkeApi as up_command.cc does (query included),
// over an EmulatedCloud on a simulated clock (gke_api_test_server.h). One mutex orders the
// server's handler and the test thread's clock advances.
#include "cloud/gke/live/http_transport.h"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "cloud/gke/live/gke_api_test_server.h"
#include "cloud/gke/live/gke_cloud_provider.h"

namespace tidepool::cloud::gke::live {
namespace {

using json = nlohmann::json;

TEST(HttpClientTransportTest, TheProviderDrivesTheGkeApiOverHttp) {
  GkeApiTestServer server;
  ASSERT_NO_FATAL_FAILURE(server.Start());
  EventQueue& queue = server.queue();
  std::mutex& mu = server.mu();
  const std::string base = server.base();

  client::http::HttpClient http;
  HttpClientTransport transport(http, std::chrono::seconds(10));
  // gcloud's pool creation, over HTTP too.
  auto created = transport.Do(HttpCall{
      "POST", base + "v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool/nodePools",
      {{"Content-Type", "application/json"}},
      R"({"nodePool":{"name":"gpu-pool","config":{"machineType":"n1-standard-4","accelerators":[{"acceleratorCount":"1","acceleratorType":"nvidia-tesla-t4"}]},"initialNodeCount":0,"autoscaling":{"enabled":true,"minNodeCount":0,"maxNodeCount":5}}})"});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_EQ(created->status, 200) << created->body;

  GkeProviderOptions o;
  o.project = "tidepool-local";
  o.location = "us-central1-a";
  o.cluster = "tidepool";
  o.container_endpoint = base;
  o.compute_endpoint = base + "compute/v1/";
  o.poll_interval = std::chrono::seconds(1);
  o.container_operation_timeout = std::chrono::minutes(10);
  o.sleep = [&](Duration d) {
    std::lock_guard<std::mutex> lock(mu);
    queue.RunUntil(queue.Now() + d);
    return true;
  };
  StaticTokenSource tokens("ya29.test");
  GkeCloudProvider provider(o, transport, &tokens, queue.clock());
  ASSERT_TRUE(provider.Refresh().ok());
  ASSERT_EQ(provider.NodeGroups().size(), 1u);
  NodeGroup* g = provider.NodeGroups()[0];
  EXPECT_EQ(g->Debug(), "gpu-pool (0:5)");
  auto tmpl = g->TemplateNode();
  ASSERT_TRUE(tmpl.ok());
  EXPECT_EQ(api::Get(tmpl->status.allocatable, api::kResourceNvidiaGpu).Value(), 1);

  Status s = g->IncreaseSize(1);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(provider.Refresh().ok());
  auto nodes = g->Nodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].state, InstanceState::kRunning);
  // Delete it through the MIG, then shrink nothing more (min 0 allows it).
  s = g->DeleteNodes({(*nodes)[0].id});
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(*g->TargetSize(), 0);
  // The query string reaches the server: a MIG resize over HTTP.
  auto pool = transport.Do(HttpCall{
      "GET", base + "v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool/nodePools/gpu-pool",
      {}, ""});
  ASSERT_TRUE(pool.ok());
  const std::string igm = json::parse(pool->body)["instanceGroupUrls"][0].get<std::string>();
  auto resized = transport.Do(
      HttpCall{"POST", base + igm.substr(igm.find("compute/v1/")) + "/resize?size=2", {}, ""});
  ASSERT_TRUE(resized.ok());
  ASSERT_EQ(resized->status, 200) << resized->body;
  EXPECT_FALSE(json::parse(resized->body).contains("error")) << resized->body;
  ASSERT_TRUE(provider.Refresh().ok());
  EXPECT_EQ(*g->TargetSize(), 2);

  // A transport failure is Unavailable with curl's text.
  HttpClientTransport dead(http, std::chrono::seconds(5));
  auto r = dead.Do(HttpCall{"GET", "http://127.0.0.1:1/v1/projects/x", {}, ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
}

}  // namespace
}  // namespace tidepool::cloud::gke::live
