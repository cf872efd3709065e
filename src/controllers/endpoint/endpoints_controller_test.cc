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

// The endpointslice controller: one IPv4 slice per port resolution, owned by the Service and
// labelled as kcm labels it; endpoints with their conditions (a pod being deleted stays,
// terminating) and zones; a placeholder without endpoints or ports when none is selected; a
// Service without a selector has none.
TEST(EndpointsControllerTest, SelectingServicesGetTheirEndpointSlices) {
  DrivenCluster c;
  EndpointsControllerOptions options;
  options.slice_client = &c.client;
  EndpointsController controller(c.client, c.events.clock(), options, nullptr, &c.informers,
                                 &c.events);
  controller.Start();
  c.Create("/api/v1/nodes",
           {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata",
             {{"name", "n1"}, {"labels", {{"topology.kubernetes.io/zone", "us-central1-a"}}}}}});
  const json service = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", {{"name", "web"}, {"labels", {{"tier", "front"}}}}},
      {"spec",
       {{"selector", {{"app", "web"}}},
        {"ports",
         json::array({{{"port", 80}, {"targetPort", "http"}, {"appProtocol", "http"}}})}}}};
  c.Create("/api/v1/namespaces/default/services", service);
  c.RunFor(std::chrono::seconds(1));
  const std::string slices = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices";
  auto listed = c.client.List(slices);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["items"].size(), 1u) << listed->dump();
  json placeholder = (*listed)["items"][0];
  EXPECT_EQ(placeholder["metadata"]["name"].get<std::string>().rfind("web-", 0), 0u);
  EXPECT_TRUE(placeholder["endpoints"].empty()) << placeholder.dump();
  EXPECT_TRUE(placeholder["ports"].empty()) << placeholder.dump();

  c.Create(kPods, Pod("a", "web"));
  c.Create(kPods, Pod("b", "web"));
  SetStatus(c, "a", "10.0.0.1", true);
  SetStatus(c, "b", "10.0.0.2", false);
  c.RunFor(std::chrono::seconds(1));
  listed = c.client.List(slices);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["items"].size(), 1u) << listed->dump();
  const json slice = (*listed)["items"][0];
  EXPECT_EQ(slice["metadata"]["name"], placeholder["metadata"]["name"]);  // updated in place
  EXPECT_EQ(slice["addressType"], "IPv4");
  EXPECT_EQ(slice["metadata"]["labels"],
            json({{"tier", "front"},
                  {"kubernetes.io/service-name", "web"},
                  {"endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"}}));
  const json& owner = slice["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "Service");
  EXPECT_EQ(owner["name"], "web");
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(owner["blockOwnerDeletion"], true);
  EXPECT_EQ(
      slice["ports"],
      json::array({{{"name", ""}, {"port", 8080}, {"protocol", "TCP"}, {"appProtocol", "http"}}}));
  ASSERT_EQ(slice["endpoints"].size(), 2u);
  const json& a = slice["endpoints"][0];
  EXPECT_EQ(a["addresses"], json::array({"10.0.0.1"}));
  EXPECT_EQ(a["conditions"], json({{"ready", true}, {"serving", true}, {"terminating", false}}));
  EXPECT_EQ(a["nodeName"], "n1");
  EXPECT_EQ(a["zone"], "us-central1-a");
  EXPECT_EQ(a["targetRef"]["name"], "a");
  EXPECT_EQ(slice["endpoints"][1]["conditions"],
            json({{"ready", false}, {"serving", false}, {"terminating", false}}));

  // A pod being deleted stays, terminating and no longer ready.
  ASSERT_TRUE(c.client.DeleteResult(std::string(kPods) + "/a").ok());
  c.RunFor(std::chrono::seconds(1));
  listed = c.client.List(slices);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)["items"][0]["endpoints"][0]["conditions"],
            json({{"ready", false}, {"serving", true}, {"terminating", true}}));
  controller.Stop();
}

}  // namespace
}  // namespace tidepool::controllers::endpoint
