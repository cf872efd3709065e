#include "controllers/endpoint/endpoints_controller.h"

#include <gtest/gtest.h>

#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::endpoint {
namespace {

using nlohmann::json;
using testing::DrivenCluster;

constexpr char kPods[] = "/api/v1/namespaces/default/pods";

json Pod(const std::string& name, const std::string& app) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
      {"spec",
       {{"nodeName", "n1"},
        {"containers",
         json::array({{{"name", "c"},
                       {"image", "x"},
                       {"ports", json::array({{{"name", "http"}, {"containerPort", 8080}}})}}})}}}};
}

void SetStatus(DrivenCluster& c, const std::string& name, const std::string& ip, bool ready) {
  ASSERT_TRUE(
      c.client
          .Patch(std::string(kPods) + "/" + name + "/status", client::PatchType::kMerge,
                 {{"status",
                   {{"phase", "Running"},
                    {"podIP", ip},
                    {"conditions",
                     json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}})
          .ok());
}

TEST(EndpointsControllerTest, SelectingServicesGetTheirPodsAddresses) {
  DrivenCluster c;
  EndpointsController controller(c.client, c.events.clock(), {}, nullptr, &c.informers, &c.events);
  controller.Start();
  c.Create(
      "/api/v1/namespaces/default/services",
      {{"apiVersion", "v1"},
       {"kind", "Service"},
       {"metadata", {{"name", "web"}}},
       {"spec",
        {{"selector", {{"app", "web"}}},
         {"ports", json::array({{{"name", "http"}, {"port", 80}, {"targetPort", "http"}}})}}}});
  c.Create(kPods, Pod("a", "web"));
  c.Create(kPods, Pod("b", "web"));
  c.Create(kPods, Pod("other", "db"));
  SetStatus(c, "a", "10.0.0.1", true);
  SetStatus(c, "b", "10.0.0.2", false);
  SetStatus(c, "other", "10.0.0.3", true);
  c.RunFor(std::chrono::seconds(1));
  auto ep = c.client.Get("/api/v1/namespaces/default/endpoints/web");
  ASSERT_TRUE(ep.ok()) << ep.status().ToString();
  const json& subsets = (*ep)["subsets"];
  ASSERT_EQ(subsets.size(), 1u);
  EXPECT_EQ(subsets[0]["addresses"][0]["ip"], "10.0.0.1");
  EXPECT_EQ(subsets[0]["addresses"][0]["targetRef"]["name"], "a");
  EXPECT_EQ(subsets[0]["notReadyAddresses"][0]["ip"], "10.0.0.2");
  EXPECT_EQ(subsets[0]["ports"],
            json::array({{{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}}}));
  // A pod that goes leaves; the Service's deletion takes its Endpoints.
  ASSERT_TRUE(c.client.DeleteResult(std::string(kPods) + "/a?gracePeriodSeconds=0").ok());
  c.RunFor(std::chrono::seconds(1));
  ep = c.client.Get("/api/v1/namespaces/default/endpoints/web");
  ASSERT_TRUE(ep.ok());
  EXPECT_FALSE((*ep)["subsets"][0].contains("addresses"));
  ASSERT_TRUE(c.client.DeleteResult("/api/v1/namespaces/default/services/web").ok());
  c.RunFor(std::chrono::seconds(1));
  EXPECT_EQ(c.client.GetResult("/api/v1/namespaces/default/endpoints/web").http_status, 404);
  controller.Stop();
}

}  // namespace
}  // namespace tidepool::controllers::endpoint
