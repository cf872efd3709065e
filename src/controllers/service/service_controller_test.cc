#include "controllers/service/service_controller.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::service {
namespace {

using client::ResourcePath;
using nlohmann::json;
using std::chrono::seconds;
using testing::DrivenCluster;
using testing::RecordedEvents;

json Service(const std::string& name, const std::string& type) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}}},
          {"spec", {{"type", type}, {"ports", json::array({{{"port", 80}}})}}}};
}

class ServiceControllerTest : public ::testing::Test {
 protected:
  ServiceControllerTest() {
    ServiceControllerOptions o;
    o.provisioning = seconds(45);
    controller_ = std::make_unique<ServiceController>(c_.client, c_.events.clock(), o, &events_,
                                                      &c_.informers, &c_.events);
    controller_->Start();
  }
  ~ServiceControllerTest() override { controller_->Stop(); }

  json Get(const std::string& name) {
    auto r = c_.client.Get(ResourcePath("", "v1", "services", "default", name));
    return r.ok() ? *r : json();
  }
  std::string Ingress(const std::string& name) {
    const json s = Get(name);
    const json* ingress = s.is_object() && s.contains("status") &&
                                  s["status"].contains("loadBalancer") &&
                                  s["status"]["loadBalancer"].contains("ingress")
                              ? &s["status"]["loadBalancer"]["ingress"]
                              : nullptr;
    return ingress != nullptr && !ingress->empty() ? (*ingress)[0].dump() : "";
  }

  DrivenCluster c_;
  RecordedEvents events_;
  std::unique_ptr<ServiceController> controller_;
};

TEST_F(ServiceControllerTest, ALoadBalancerServiceGetsItsAddressAfterTheCloudBuildsIt) {
  const std::string services = ResourcePath("", "v1", "services", "default");
  c_.Create(services, Service("web", "LoadBalancer"));
  c_.Create(services, Service("plain", "ClusterIP"));
  c_.RunFor(seconds(10));
  // Ensuring: the finalizer, no address yet (kubectl get svc: EXTERNAL-IP <pending>).
  EXPECT_EQ(Get("web")["metadata"]["finalizers"],
            json::array({"service.kubernetes.io/load-balancer-cleanup"}));
  EXPECT_EQ(Ingress("web"), "");
  EXPECT_EQ(events_.Reasons("web"), std::vector<std::string>{"EnsuringLoadBalancer"});
  c_.RunFor(seconds(40));
  EXPECT_EQ(Ingress("web"), R"({"ip":"34.41.0.1","ipMode":"VIP"})");
  EXPECT_EQ(events_.Reasons("web"),
            (std::vector<std::string>{"EnsuringLoadBalancer", "EnsuredLoadBalancer"}));
  EXPECT_EQ(events_.Lines()[1],
            "Service default/web Normal EnsuredLoadBalancer Ensured load balancer");
  EXPECT_TRUE(events_.Reasons("plain").empty());
  EXPECT_FALSE(Get("plain")["metadata"].contains("finalizers"));

  // A second one gets the next address.
  c_.Create(services, Service("api", "LoadBalancer"));
  c_.RunFor(seconds(60));
  EXPECT_EQ(Ingress("api"), R"({"ip":"34.41.0.2","ipMode":"VIP"})");

  // No longer a LoadBalancer: cleaned up, its address free again.
  ASSERT_TRUE(c_.client
                  .Patch(ResourcePath("", "v1", "services", "default", "web"),
                         client::PatchType::kMerge, json{{"spec", {{"type", "ClusterIP"}}}})
                  .ok());
  c_.RunFor(seconds(5));
  EXPECT_EQ(Ingress("web"), "");
  EXPECT_FALSE(Get("web")["metadata"].contains("finalizers"));
  EXPECT_EQ(events_.Reasons("web"),
            (std::vector<std::string>{"EnsuringLoadBalancer", "EnsuredLoadBalancer",
                                      "DeletingLoadBalancer", "DeletedLoadBalancer"}));

  // Deleted: the finalizer holds it until the load balancer is gone, then it goes.
  ASSERT_TRUE(c_.client.Delete(ResourcePath("", "v1", "services", "default", "api")).ok());
  c_.RunFor(seconds(5));
  EXPECT_TRUE(Get("api").is_null());
  EXPECT_EQ(events_.Reasons("api"),
            (std::vector<std::string>{"EnsuringLoadBalancer", "EnsuredLoadBalancer",
                                      "DeletingLoadBalancer", "DeletedLoadBalancer"}));
  c_.Create(services, Service("again", "LoadBalancer"));
  c_.RunFor(seconds(60));
  EXPECT_EQ(Ingress("again"), R"({"ip":"34.41.0.1","ipMode":"VIP"})");
}

TEST_F(ServiceControllerTest, AServiceOfAnotherLoadBalancerClassIsLeftAlone) {
  json svc = Service("custom", "LoadBalancer");
  svc["spec"]["loadBalancerClass"] = "example.com/lb";
  c_.Create(ResourcePath("", "v1", "services", "default"), svc);
  c_.RunFor(seconds(60));
  EXPECT_EQ(Ingress("custom"), "");
  // Its own controller writes its address: not ours to clean up.
  ASSERT_TRUE(
      c_.client
          .Patch(ResourcePath("", "v1", "services", "default", "custom") + "/status",
                 client::PatchType::kMerge,
                 json{{"status", {{"loadBalancer", {{"ingress", {{{"ip", "10.9.9.9"}}}}}}}}})
          .ok());
  c_.RunFor(seconds(10));
  EXPECT_EQ(Ingress("custom"), R"({"ip":"10.9.9.9","ipMode":"VIP"})");
  EXPECT_TRUE(events_.Reasons("custom").empty());
}

TEST_F(ServiceControllerTest, ServicesReadyTogetherGetDistinctAddresses) {
  const std::string services = ResourcePath("", "v1", "services", "default");
  for (const char* name : {"a", "b", "c"}) c_.Create(services, Service(name, "LoadBalancer"));
  c_.RunFor(seconds(60));
  std::set<std::string> seen;
  for (const char* name : {"a", "b", "c"}) seen.insert(Ingress(name));
  EXPECT_EQ(seen, (std::set<std::string>{R"({"ip":"34.41.0.1","ipMode":"VIP"})",
                                         R"({"ip":"34.41.0.2","ipMode":"VIP"})",
                                         R"({"ip":"34.41.0.3","ipMode":"VIP"})"}));
}

TEST_F(ServiceControllerTest, AServiceDeletedWhileItsLoadBalancerIsBuiltGoesQuietly) {
  c_.Create(ResourcePath("", "v1", "services", "default"), Service("brief", "LoadBalancer"));
  c_.RunFor(seconds(5));
  ASSERT_TRUE(c_.client.Delete(ResourcePath("", "v1", "services", "default", "brief")).ok());
  c_.RunFor(seconds(60));
  EXPECT_TRUE(Get("brief").is_null());
  EXPECT_EQ(events_.Reasons("brief"), std::vector<std::string>{"EnsuringLoadBalancer"});
}

}  // namespace
}  // namespace tidepool::controllers::service
