#include "controllers/volumeprotection/volume_protection_controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::volumeprotection {
namespace {

using client::ResourcePath;
using nlohmann::json;

TEST(ClaimsHeldByTest, OnlyScheduledPodsHoldTheirClaims) {
  const json pod = json::parse(R"({"metadata": {"namespace": "ns", "name": "p"},
      "spec": {"nodeName": "n1", "volumes": [
        {"name": "a", "persistentVolumeClaim": {"claimName": "data"}},
        {"name": "b", "configMap": {"name": "cfg"}},
        {"name": "c", "persistentVolumeClaim": {"claimName": "data"}},
        {"name": "d", "persistentVolumeClaim": {"claimName": "logs"}}]}})");
  EXPECT_EQ(ClaimsHeldBy(pod), (std::vector<std::string>{"ns/data", "ns/logs"}));
  json pending = pod;
  pending["spec"].erase("nodeName");
  EXPECT_TRUE(ClaimsHeldBy(pending).empty());
  // Whatever the phase: a finished pod still holds its claims (podUsesPVC).
  json done = pod;
  done["status"]["phase"] = "Succeeded";
  EXPECT_EQ(ClaimsHeldBy(done).size(), 2u);
}

class VolumeProtectionTest : public ::testing::Test {
 protected:
  VolumeProtectionTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)),
        claims_(client_, api_.clock(), {}),
        volumes_(client_, api_.clock(), {}) {}
  ~VolumeProtectionTest() override {
    claims_.Stop();
    volumes_.Stop();
  }

  json Get(const std::string& path) {
    auto r = client_.Get(path);
    return r.ok() ? *r : json();
  }
  static bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 500; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  void CreatePod(const std::string& name, const std::string& node) {
    json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}}},
        {"spec",
         {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})},
          {"volumes",
           json::array({{{"name", "d"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}})}}}};
    if (!node.empty()) pod["spec"]["nodeName"] = node;
    ASSERT_TRUE(client_.Create("/api/v1/namespaces/default/pods", pod).ok());
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  PvcProtectionController claims_;
  PvProtectionController volumes_;
};

// A deleted claim stays while a scheduled pod uses it (a pending pod does not hold it), and goes
// once that pod is deleted.
TEST_F(VolumeProtectionTest, ClaimInUseOutlivesItsDeletionUntilThePodGoes) {
  const std::string claim_path =
      ResourcePath("", "v1", "persistentvolumeclaims", "default", "data");
  ASSERT_TRUE(client_
                  .Create("/api/v1/namespaces/default/persistentvolumeclaims",
                          json::parse(R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                              "metadata": {"name": "data"},
                              "spec": {"accessModes": ["ReadWriteOnce"],
                                       "resources": {"requests": {"storage": "1Gi"}}}})"))
                  .ok());
  EXPECT_EQ(Get(claim_path)["metadata"]["finalizers"], json::array({kPvcProtectionFinalizer}));
  ASSERT_TRUE(client_
                  .Create("/api/v1/namespaces/default/persistentvolumeclaims",
                          json::parse(R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                              "metadata": {"name": "free"},
                              "spec": {"accessModes": ["ReadWriteOnce"],
                                       "resources": {"requests": {"storage": "1Gi"}}}})"))
                  .ok());
  CreatePod("pending", "");
  CreatePod("user", "n1");
  claims_.Start();
  ASSERT_TRUE(client_.Delete(claim_path).ok());
  const std::string free_path = ResourcePath("", "v1", "persistentvolumeclaims", "default", "free");
  ASSERT_TRUE(client_.Delete(free_path).ok());
  // The unused claim goes; by then the used one has been looked at and kept.
  ASSERT_TRUE(Eventually([&] { return Get(free_path).is_null(); }));
  const json held = Get(claim_path);
  ASSERT_FALSE(held.is_null()) << "deleted while a scheduled pod uses it";
  EXPECT_FALSE(held["metadata"]["deletionTimestamp"].is_null());

  ASSERT_TRUE(
      client_
          .Delete(ResourcePath("", "v1", "pods", "default", "user"),
                  {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}})
          .ok());
  EXPECT_TRUE(Eventually([&] { return Get(claim_path).is_null(); }));
}

// A claim or volume that lacks its finalizer gets it; a volume being deleted stays while Bound.
TEST_F(VolumeProtectionTest, FinalizersAddedAndVolumeHeldWhileBound) {
  claims_.Start();
  volumes_.Start();
  const std::string pv_path = ResourcePath("", "v1", "persistentvolumes", "", "pv-1");
  ASSERT_TRUE(client_
                  .Create("/api/v1/persistentvolumes",
                          json::parse(R"({"apiVersion": "v1", "kind": "PersistentVolume",
                              "metadata": {"name": "pv-1"},
                              "spec": {"capacity": {"storage": "1Gi"},
                                       "accessModes": ["ReadWriteOnce"],
                                       "hostPath": {"path": "/d"}}})"))
                  .ok());
  json pv = Get(pv_path);
  EXPECT_EQ(pv["metadata"]["finalizers"], json::array({kPvProtectionFinalizer}));
  // Taken off by hand: the controller puts it back.
  pv["metadata"].erase("finalizers");
  ASSERT_TRUE(client_.Update(pv_path, pv).ok());
  ASSERT_TRUE(Eventually([&] {
    return Get(pv_path)["metadata"]["finalizers"] == json::array({kPvProtectionFinalizer});
  }));
  pv = Get(pv_path);
  pv["status"]["phase"] = "Bound";
  ASSERT_TRUE(client_.Update(pv_path + "/status", pv).ok());
  ASSERT_TRUE(client_.Delete(pv_path).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_FALSE(Get(pv_path).is_null()) << "deleted while Bound";
  pv = Get(pv_path);
  pv["status"]["phase"] = "Released";
  ASSERT_TRUE(client_.Update(pv_path + "/status", pv).ok());
  EXPECT_TRUE(Eventually([&] { return Get(pv_path).is_null(); }));
}

}  // namespace
}  // namespace tidepool::controllers::volumeprotection
