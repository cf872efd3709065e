#include "controllers/resourcequota/resourcequota_controller.h"

#include <gtest/gtest.h>

#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::resourcequota {
namespace {

using nlohmann::json;
using testing::DrivenCluster;

constexpr char kQuotas[] = "/api/v1/namespaces/default/resourcequotas";
constexpr char kPods[] = "/api/v1/namespaces/default/pods";

json GpuPod(const std::string& name) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}}},
      {"spec",
       {{"containers",
         json::array({{{"name", "c"},
                       {"image", "x"},
                       {"resources", {{"limits", {{"nvidia.com/gpu", 1}, {"cpu", "1"}}}}}}})}}}};
}

class ResourceQuotaControllerTest : public ::testing::Test {
 protected:
  ResourceQuotaControllerTest()
      : controller_(c_.client, c_.events.clock(), {}, nullptr, &c_.informers, &c_.events) {
    controller_.Start();
  }
  ~ResourceQuotaControllerTest() override { controller_.Stop(); }

  json Status(const std::string& name) {
    auto q = c_.client.Get(std::string(kQuotas) + "/" + name);
    return q.ok() ? (*q)["status"] : json();
  }

  DrivenCluster c_;
  ResourceQuotaController controller_;
};

TEST_F(ResourceQuotaControllerTest, KeepsUsedAsThePodsAndObjectsOfItsNamespace) {
  c_.Create(kPods, GpuPod("before"));
  c_.Create(kQuotas, {{"apiVersion", "v1"},
                      {"kind", "ResourceQuota"},
                      {"metadata", {{"name", "gpu"}}},
                      {"spec",
                       {{"hard",
                         {{"requests.nvidia.com/gpu", "4"},
                          {"limits.nvidia.com/gpu", "4"},
                          {"requests.cpu", "8"},
                          {"pods", "10"},
                          {"count/configmaps", "5"}}}}}});
  c_.RunFor(std::chrono::seconds(1));
  EXPECT_EQ(Status("gpu")["hard"]["requests.nvidia.com/gpu"], "4");
  EXPECT_EQ(Status("gpu")["used"], json({{"count/configmaps", "0"},
                                         {"pods", "1"},
                                         {"requests.cpu", "1"},
                                         {"requests.nvidia.com/gpu", "1"}}));
  // A pod admitted later is charged by the API's admission; one that ends frees its share.
  c_.Create(kPods, GpuPod("after"));
  c_.RunFor(std::chrono::seconds(1));
  EXPECT_EQ(Status("gpu")["used"]["requests.nvidia.com/gpu"], "2");
  ASSERT_TRUE(c_.client
                  .Patch(std::string(kPods) + "/before/status", client::PatchType::kMerge,
                         {{"status", {{"phase", "Succeeded"}}}})
                  .ok());
  c_.RunFor(std::chrono::seconds(1));
  EXPECT_EQ(Status("gpu")["used"]["requests.nvidia.com/gpu"], "1");
  EXPECT_EQ(Status("gpu")["used"]["pods"], "1");
  // Object counts are read when the quota is synced: at the latest at the resync.
  c_.Create("/api/v1/namespaces/default/configmaps",
            {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "a"}}}});
  c_.RunFor(std::chrono::minutes(6));
  EXPECT_EQ(Status("gpu")["used"]["count/configmaps"], "1");
}

}  // namespace
}  // namespace tidepool::controllers::resourcequota
