#include "cluster/in_process_transport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/test_api_server.h"

namespace tidepool::cluster {
namespace {

using client::ResourcePath;
using client::RestClient;
using nlohmann::json;

// A RestClient whose requests go straight to the test API server's handler.
class InProcessTransportTest : public ::testing::Test {
 protected:
  InProcessTransportTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }) {}

  RestClient Client(std::string user_agent = "") {
    return RestClient(InProcessRestConfig(), api_.clock(),
                      InProcessRestOptions(transport_, std::move(user_agent)));
  }

  client::testing::TestApiServer api_;
  InProcessTransport transport_;
};

json Pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "x"}}}}},
          {"spec",
           {{"nodeName", "n1"}, {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
}

TEST_F(InProcessTransportTest, RequestsAndErrorsAreTheApiServers) {
  RestClient c = Client("cluster-autoscaler/v1.32.1");
  const std::string pods = ResourcePath("", "v1", "pods", "default");
  auto created = c.Create(pods, Pod("p1"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)["metadata"]["name"], "p1");
  // The query is the server's: fieldManager and the user agent reach managedFields.
  auto got = c.Get(ResourcePath("", "v1", "pods", "default", "p1"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["metadata"]["managedFields"][0]["manager"], "cluster-autoscaler");
  client::RestResult dup = c.CreateResult(pods, Pod("p1"));
  EXPECT_EQ(dup.http_status, 409);
  EXPECT_EQ(dup.status.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.status.message(), "pods \"p1\" already exists");
  client::RestResult missing = c.GetResult(ResourcePath("", "v1", "pods", "default", "nope"));
  EXPECT_EQ(missing.status.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status.message(), "pods \"nope\" not found");
  // A list with a label selector: the query string is decoded as the HTTP server decodes it.
  client::ListOptions opts;
  opts.label_selector = "app in (x,y)";
  auto list = c.List(pods, opts);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ((*list)["items"].size(), 1u);
}

TEST_F(InProcessTransportTest, AnEvictionABudgetForbidsIsATooManyRequests) {
  RestClient c = Client();
  ASSERT_TRUE(c.Create(ResourcePath("", "v1", "pods", "default"), Pod("p1")).ok());
  json ready = {{"status",
                 {{"phase", "Running"},
                  {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  ASSERT_TRUE(c.Patch(ResourcePath("", "v1", "pods", "default", "p1", "status"),
                      client::PatchType::kMerge, ready)
                  .ok());
  json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "b"}, {"namespace", "default"}}},
              {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "x"}}}}}}}};
  ASSERT_TRUE(
      c.Create(ResourcePath("policy", "v1", "poddisruptionbudgets", "default"), pdb).ok());
  json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", "p1"}, {"namespace", "default"}}}};
  client::RestResult r =
      c.CreateResult(ResourcePath("", "v1", "pods", "default", "p1", "eviction"), eviction);
  EXPECT_EQ(r.http_status, 429);
  EXPECT_EQ(r.status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(r.status.message(),
            "Cannot evict pod as it would violate the pod's disruption budget.");
  EXPECT_TRUE(c.Get(ResourcePath("", "v1", "pods", "default", "p1")).ok());
}

TEST_F(InProcessTransportTest, AnInformerListsWatchesAndStops) {
  RestClient c = Client();
  client::InformerOptions options;
  options.path = ResourcePath("", "v1", "configmaps");
  client::Informer informer(c, api_.clock(), options);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(std::chrono::seconds(10)));
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "cm"}, {"namespace", "default"}}}};
  ASSERT_TRUE(c.Create(ResourcePath("", "v1", "configmaps", "default"), cm).ok());
  // The watch delivers it (the store's watch wakes at once; allow a loaded machine).
  for (int i = 0; i < 500 && informer.List().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(informer.List().size(), 1u);
  // Stop() ends the in-process watch through the cancel flag (the handler sees Closed()).
  informer.Stop();
}

TEST_F(InProcessTransportTest, ACancelledRequestIsCancelled) {
  std::atomic<bool> cancel{true};
  client::http::HttpRequest req;
  req.url = "http://in-process/api/v1/namespaces";
  req.cancel = &cancel;
  auto r = transport_.Do(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
}

}  // namespace
}  // namespace tidepool::cluster
