#include "controllers/disruption/disruption_controller.h"

#include <gtest/gtest.h>

#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::disruption {
namespace {

using client::ResourcePath;
using nlohmann::json;

// The controller against the real API server, over the in-process transport.
class DisruptionControllerTest : public ::testing::Test {
 protected:
  DisruptionControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)) {}

  void CreatePod(const std::string& name, bool ready) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "x"}}}}},
                {"spec", {{"nodeName", "n1"},
                          {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
    ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "pods", "default"), pod).ok());
    SetReady(name, ready);
  }
  void SetReady(const std::string& name, bool ready) {
    json status = {{"status",
                    {{"phase", "Running"},
                     {"conditions", json::array({{{"type", "Ready"},
                                                  {"status", ready ? "True" : "False"}}})}}}};
    ASSERT_TRUE(client_.Patch(ResourcePath("", "v1", "pods", "default", name, "status"),
                              client::PatchType::kMerge, status)
                    .ok());
  }
  // The budget's status once `pred` holds (or the last one seen after ~10 s).
  json WaitForStatus(const std::function<bool(const json&)>& pred) {
    json status;
    for (int i = 0; i < 1000; ++i) {
      auto pdb = client_.Get(ResourcePath("policy", "v1", "poddisruptionbudgets", "default", "b"));
      if (pdb.ok() && pdb->contains("status")) {
        status = (*pdb)["status"];
        if (pred(status)) return status;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return status;
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
};

TEST_F(DisruptionControllerTest, KeepsTheBudgetsStatusAndTheEvictionReadsIt) {
  CreatePod("p1", true);
  CreatePod("p2", true);
  json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "b"}, {"namespace", "default"}}},
              {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "x"}}}}}}}};
  ASSERT_TRUE(
      client_.Create(ResourcePath("policy", "v1", "poddisruptionbudgets", "default"), pdb).ok());
  DisruptionController controller(client_, api_.clock(), {});
  controller.Start();

  json status = WaitForStatus([](const json& s) { return s.value("disruptionsAllowed", -1) == 1; });
  EXPECT_EQ(status["currentHealthy"], 2);
  EXPECT_EQ(status["desiredHealthy"], 1);
  EXPECT_EQ(status["expectedPods"], 2);
  EXPECT_EQ(status["observedGeneration"], 1);
  EXPECT_EQ(status["conditions"][0]["reason"], "SufficientPods");

  // One eviction uses the one disruption the budget allows; the next is refused.
  const json eviction = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"},
                         {"metadata", {{"name", "p1"}, {"namespace", "default"}}}};
  ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "pods", "default", "p1", "eviction"), eviction).ok());
  json second = eviction;
  second["metadata"]["name"] = "p2";
  client::RestResult refused =
      client_.CreateResult(ResourcePath("", "v1", "pods", "default", "p2", "eviction"), second);
  EXPECT_EQ(refused.http_status, 429);
  EXPECT_EQ(refused.status.message(), "Cannot evict pod as it would violate the pod's disruption budget.");

  // p1 terminating: one healthy pod is all the budget needs; none may go.
  status = WaitForStatus([](const json& s) {
    return s.value("currentHealthy", -1) == 1 && s.value("disruptionsAllowed", -1) == 0;
  });
  EXPECT_EQ(status["conditions"][0]["status"], "False");
  EXPECT_EQ(status["conditions"][0]["reason"], "InsufficientPods");

  // A pod turning unready is seen too.
  SetReady("p2", false);
  status = WaitForStatus([](const json& s) { return s.value("currentHealthy", -1) == 0; });
  EXPECT_EQ(status["currentHealthy"], 0);
  controller.Stop();
  EXPECT_GE(controller.writes(), 3u);
}

}  // namespace
}  // namespace tidepool::controllers::disruption
