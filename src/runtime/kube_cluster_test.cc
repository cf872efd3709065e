#include "runtime/kube_cluster.h"

#include <gtest/gtest.h>

#include <thread>

#include "client/test_api_server.h"

namespace tidepool::runtime {
namespace {

using nlohmann::json;

json Node(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"cloud.google.com/gke-nodepool", "gpu-pool"}}}}},
          {"spec", {{"taints", json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"},
                                             {"effect", "NoSchedule"}}})}}},
          {"status",
           {{"capacity", {{"cpu", "4"}, {"memory", "15Gi"}, {"pods", "110"}}},
            {"allocatable", {{"cpu", "3920m"}, {"memory", "12Gi"}, {"pods", "110"}}}}}};
}

json Pod(const std::string& ns, const std::string& name, const std::string& node,
         json labels = json::object()) {
  json spec = {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}};
  if (!node.empty()) spec["nodeName"] = node;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", spec}};
}

// Polls `pred` for up to 10 s (informers are asynchronous).
template <typename Pred>
bool Eventually(Pred pred) {
  for (int i = 0; i < 200; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

class KubeClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.StartServer().ok());
    client_ = std::make_unique<client::RestClient>(server_.Config(), server_.clock());
  }
  client::testing::TestApiServer server_;
  std::unique_ptr<client::RestClient> client_;
};

TEST_F(KubeClusterTest, TheViewFollowsTheApiWithTypedObjectsAndPdbCoverage) {
  ASSERT_TRUE(client_->Create("/api/v1/nodes", Node("n1")).ok());
  ASSERT_TRUE(client_->Create("/api/v1/namespaces/default/pods", Pod("default", "bound", "n1")).ok());
  ASSERT_TRUE(client_->Create("/api/v1/namespaces/kube-system/pods",
                              Pod("kube-system", "dns", "n1", {{"k8s-app", "kube-dns"}}))
                  .ok());
  KubeClusterCache cache(*client_, server_.clock(), nullptr, 1);
  cache.Start();
  ASSERT_TRUE(cache.WaitForSync(std::chrono::seconds(10)));
  autoscaler::ClusterView v = cache.View();
  ASSERT_EQ(v.nodes.size(), 1u);
  EXPECT_EQ(v.nodes[0]->meta.name, "n1");
  ASSERT_EQ(v.nodes[0]->spec.taints.size(), 1u);
  EXPECT_EQ(v.scheduled_pods.size(), 2u);
  EXPECT_TRUE(v.pending_pods.empty());
  EXPECT_TRUE(v.pdb_pods.empty());

  // A pending pod, a budget over kube-dns, and a pod that finished.
  ASSERT_TRUE(client_->Create("/api/v1/namespaces/default/pods", Pod("default", "pending", "")).ok());
  const json pdb = {{"apiVersion", "policy/v1"},
                    {"kind", "PodDisruptionBudget"},
                    {"metadata", {{"name", "dns"}, {"namespace", "kube-system"}}},
                    {"spec", {{"minAvailable", 0}, {"selector", {{"matchLabels", {{"k8s-app", "kube-dns"}}}}}}}};
  ASSERT_TRUE(client_->Create("/apis/policy/v1/namespaces/kube-system/poddisruptionbudgets", pdb).ok());
  EXPECT_TRUE(Eventually([&] {
    autoscaler::ClusterView w = cache.View();
    return w.pending_pods.size() == 1 && w.pdb_pods.count("kube-system/dns") == 1;
  }));
  // Deletions leave the view.
  ASSERT_TRUE(client_->Delete("/api/v1/namespaces/default/pods/pending",
                              json{{"gracePeriodSeconds", 0}})
                  .ok());
  ASSERT_TRUE(client_->Delete("/api/v1/nodes/n1").ok());
  EXPECT_TRUE(Eventually([&] {
    autoscaler::ClusterView w = cache.View();
    return w.pending_pods.empty() && w.nodes.empty();
  }));
  EXPECT_EQ(cache.decode_errors(), 0u);
  cache.Stop();
}

TEST_F(KubeClusterTest, WriterTaintsNodesAndEvictsPods) {
  ASSERT_TRUE(client_->Create("/api/v1/nodes", Node("n1")).ok());
  KubeClusterWriter writer(*client_);
  api::Taint t{"ToBeDeletedByClusterAutoscaler", "1764540000", api::TaintEffect::kNoSchedule, {}};
  ASSERT_TRUE(writer.AddNodeTaint("n1", t).ok());
  ASSERT_TRUE(writer.AddNodeTaint("n1", t).ok());  // replaces, never duplicates
  StatusOr<json> n = client_->Get("/api/v1/nodes/n1");
  ASSERT_TRUE(n.ok());
  ASSERT_EQ((*n)["spec"]["taints"].size(), 2u) << n->dump();
  EXPECT_EQ((*n)["spec"]["taints"][1]["key"], "ToBeDeletedByClusterAutoscaler");
  ASSERT_TRUE(writer.RemoveNodeTaint("n1", "ToBeDeletedByClusterAutoscaler").ok());
  n = client_->Get("/api/v1/nodes/n1");
  ASSERT_EQ((*n)["spec"]["taints"].size(), 1u);
  EXPECT_TRUE(writer.RemoveNodeTaint("gone", "x").ok());  // a deleted node has no taint left

  ASSERT_TRUE(client_->Create("/api/v1/namespaces/default/pods", Pod("default", "p", "")).ok());
  EXPECT_TRUE(writer.EvictPod("default", "p").ok());
  EXPECT_EQ(writer.EvictPod("default", "nope").code(), StatusCode::kNotFound);
}

TEST_F(KubeClusterTest, EventsAreClientGoShapedAndRepeatsAggregate) {
  {
    KubeEventRecorder rec(*client_, server_.clock(), "cluster-autoscaler", nullptr);
    autoscaler::ObjectRef pod{"Pod", "default", "gpu-test-pod", "uid-1"};
    rec.Event(pod, "Normal", "TriggeredScaleUp", "pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]");
    rec.Event(pod, "Normal", "TriggeredScaleUp", "pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]");
    rec.Event(autoscaler::ObjectRef{"Node", "", "n1", "uid-2"}, "Normal", "ScaleDown",
              "marked the node as toBeDeleted/unschedulable");
    rec.Flush();
    EXPECT_EQ(rec.posted(), 3u);
  }
  StatusOr<json> events = client_->List("/api/v1/namespaces/default/events");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ((*events)["items"].size(), 2u) << events->dump();
  const json* scale_up = nullptr;
  for (const json& e : (*events)["items"]) {
    if (e["reason"] == "TriggeredScaleUp") scale_up = &e;
  }
  ASSERT_NE(scale_up, nullptr);
  EXPECT_EQ((*scale_up)["count"], 2);
  EXPECT_EQ((*scale_up)["source"]["component"], "cluster-autoscaler");
  EXPECT_EQ((*scale_up)["involvedObject"]["name"], "gpu-test-pod");
  EXPECT_EQ((*scale_up)["type"], "Normal");
  // client-go's name: "<object>.<hex nanoseconds>".
  const std::string name = (*scale_up)["metadata"]["name"];
  EXPECT_EQ(name.rfind("gpu-test-pod.", 0), 0u) << name;
}

TEST_F(KubeClusterTest, StatusConfigMapIsCreatedThenUpdated) {
  const TimePoint t = TimePoint(std::chrono::seconds(1764540000)) + std::chrono::microseconds(250);
  ASSERT_TRUE(WriteStatusConfigMap(*client_, "kube-system", "cluster-autoscaler-status", "a", t).ok());
  ASSERT_TRUE(WriteStatusConfigMap(*client_, "kube-system", "cluster-autoscaler-status", "b", t).ok());
  StatusOr<json> cm = client_->Get("/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status");
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ((*cm)["data"]["status"], "b");
  EXPECT_EQ((*cm)["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/last-updated"],
            "2025-11-30 22:00:00.00025 +0000 UTC");
}

TEST(GoTimeStringTest, AsGoPrintsTimeInUtc) {
  EXPECT_EQ(GoTimeString(TimePoint(std::chrono::seconds(1764540000))),
            "2025-11-30 22:00:00 +0000 UTC");
  EXPECT_EQ(GoTimeString(TimePoint(std::chrono::seconds(1764540000)) + std::chrono::nanoseconds(120)),
            "2025-11-30 22:00:00.00000012 +0000 UTC");
}

}  // namespace
}  // namespace tidepool::runtime
