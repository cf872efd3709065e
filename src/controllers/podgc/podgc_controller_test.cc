#include "controllers/podgc/podgc_controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::podgc {
namespace {

using client::ResourcePath;
using nlohmann::json;
using std::chrono::milliseconds;

json Pod(const std::string& name, const std::string& node, bool finalizer = false) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  if (finalizer) pod["metadata"]["finalizers"] = json::array({"example.com/hold"});
  return pod;
}

class PodGcControllerTest : public ::testing::Test {
 protected:
  PodGcControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)) {}
  ~PodGcControllerTest() override {
    if (gc_) gc_->Stop();
  }
  void StartGc(int threshold = 12500) {
    PodGcControllerOptions o;
    o.period = milliseconds(100);
    o.quarantine = milliseconds(300);
    o.terminated_threshold = threshold;
    gc_ = std::make_unique<PodGcController>(client_, api_.clock(), o);
    gc_->Start();
  }
  void Create(const std::string& resource, const json& obj) {
    auto r = client_.Create(ResourcePath("", "v1", resource, resource == "nodes" ? "" : "default"), obj);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  StatusOr<json> Get(const std::string& name) {
    return client_.Get(ResourcePath("", "v1", "pods", "default", name));
  }
  void SetPhase(const std::string& name, const std::string& phase) {
    auto r = client_.Patch(ResourcePath("", "v1", "pods", "default", name, "status"),
                           client::PatchType::kMerge, {{"status", {{"phase", phase}}}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 500; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return pred();
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  std::unique_ptr<PodGcController> gc_;
};

TEST_F(PodGcControllerTest, PodsOfANodeThatIsGoneAreMarkedAndForceDeletedAfterTheQuarantine) {
  Create("nodes", json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}});
  Create("pods", Pod("kept", "n1"));
  Create("pods", Pod("orphan", "ghost", /*finalizer=*/true));  // stays to be looked at
  Create("pods", Pod("orphan2", "ghost"));
  StartGc();
  ASSERT_TRUE(Eventually([&] { return Get("orphan2").status().code() == StatusCode::kNotFound; }));
  ASSERT_TRUE(Eventually([&] {
    auto p = Get("orphan");
    return p.ok() && (*p)["metadata"].contains("deletionTimestamp");
  }));
  const json orphan = *Get("orphan");
  EXPECT_EQ(orphan["status"]["phase"], "Failed");
  bool condition = false;
  for (const json& c : orphan["status"]["conditions"]) {
    if (c["type"] == "DisruptionTarget") {
      condition = true;
      EXPECT_EQ(c["reason"], "DeletionByPodGC");
      EXPECT_EQ(c["message"], "PodGC: node no longer exists");
    }
  }
  EXPECT_TRUE(condition);
  EXPECT_EQ(orphan["metadata"]["deletionGracePeriodSeconds"], 0);
  EXPECT_TRUE(Get("kept").ok());
}

TEST_F(PodGcControllerTest, AnUnscheduledPodBeingDeletedIsFailedAndForceDeleted) {
  Create("pods", Pod("never-scheduled", "", /*finalizer=*/true));
  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "pods", "default", "never-scheduled"),
                             json{{"gracePeriodSeconds", 30}})
                  .ok());
  StartGc();
  EXPECT_TRUE(Eventually([&] {
    auto p = Get("never-scheduled");
    return p.ok() && (*p)["status"].value("phase", "") == "Failed";
  }));
}

TEST_F(PodGcControllerTest, TerminatedPodsOverTheThresholdGoOldestFirst) {
  Create("nodes", json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}});
  Create("pods", Pod("old", "n1"));
  std::this_thread::sleep_for(milliseconds(1100));  // creationTimestamp has seconds
  Create("pods", Pod("new", "n1"));
  Create("pods", Pod("running", "n1"));
  SetPhase("old", "Succeeded");
  SetPhase("new", "Failed");
  StartGc(/*threshold=*/1);
  EXPECT_TRUE(Eventually([&] { return Get("old").status().code() == StatusCode::kNotFound; }));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_TRUE(Get("new").ok());
  EXPECT_TRUE(Get("running").ok());
}

}  // namespace
}  // namespace tidepool::controllers::podgc
