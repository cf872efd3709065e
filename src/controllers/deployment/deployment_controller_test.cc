#include "controllers/deployment/deployment_controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "controllers/replicaset/replicaset_controller.h"
#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::deployment {
namespace {

using client::ResourcePath;
using nlohmann::json;

class Recorder : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& o, std::string_view, std::string_view reason,
             std::string message) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (o.kind == "Deployment") events_.push_back(std::string(reason) + ": " + message);
  }
  std::vector<std::string> events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

// The deployment and ReplicaSet controllers against the real API server; a "kubelet" thread
// makes every bound-or-not pod Running and Ready when `kubelet_` is on.
class DeploymentControllerTest : public ::testing::Test {
 protected:
  DeploymentControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(), cluster::InProcessRestOptions(transport_)),
        replicasets_(client_, api_.clock(), {}),
        deployments_(client_, api_.clock(), {}, &recorder_) {
    replicasets_.Start();
    deployments_.Start();
    kubelet_thread_ = std::thread([this] {
      while (!stop_) {
        {
          std::lock_guard<std::mutex> lock(kubelet_mu_);  // SetKubelet waits for a pass
          if (kubelet_) MakePodsReady();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~DeploymentControllerTest() override {
    stop_ = true;
    kubelet_thread_.join();
    deployments_.Stop();
    replicasets_.Stop();
  }

  void MakePodsReady() {
    auto list = client_.List(ResourcePath("", "v1", "pods", "default"));
    if (!list.ok()) return;
    for (const json& p : (*list)["items"]) {
      if (p.contains("status") && p["status"].value("phase", "") == "Running") continue;
      json st = {{"status", {{"phase", "Running"},
                             {"conditions", json::array({{{"type", "Ready"}, {"status", "True"},
                                                          {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})}}}};
      (void)client_.Patch(ResourcePath("", "v1", "pods", "default", p["metadata"]["name"].get<std::string>(), "status"),
                          client::PatchType::kMerge, st);
    }
  }

 public:  // Deployment() and Condition() serve the executor test too
  static json Deployment(int replicas, const std::string& image) {
    return {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", "web"}, {"namespace", "default"}}},
            {"spec",
             {{"replicas", replicas},
              {"selector", {{"matchLabels", {{"app", "web"}}}}},
              {"template",
               {{"metadata", {{"labels", {{"app", "web"}}}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", image}}})}}}}}}}};
  }
  static std::string Condition(const json& d, const std::string& type) {
    if (!d.contains("status") || !d["status"].contains("conditions")) return "";
    for (const json& c : d["status"]["conditions"]) {
      if (c["type"] == type)
        return c["status"].get<std::string>() + "/" + c["reason"].get<std::string>();
    }
    return "";
  }

 protected:
  json Get() {
    auto d = client_.Get(ResourcePath("apps", "v1", "deployments", "default", "web"));
    json out = d.ok() ? *d : json::object();
    if (!out.contains("status")) out["status"] = json::object();
    return out;
  }
  std::vector<json> ReplicaSets() {
    std::vector<json> out;
    auto list = client_.List(ResourcePath("apps", "v1", "replicasets", "default"));
    if (list.ok()) {
      for (json& r : (*list)["items"]) out.push_back(std::move(r));
    }
    return out;
  }
  bool Eventually(const std::function<bool()>& pred, int tries = 1500) {
    for (int i = 0; i < tries; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  Recorder recorder_;
  replicaset::ReplicaSetController replicasets_;
  DeploymentController deployments_;
  // Turns the "kubelet" on or off; once it returns, no pass of it is under way.
  void SetKubelet(bool on) {
    std::lock_guard<std::mutex> lock(kubelet_mu_);
    kubelet_ = on;
  }

  std::mutex kubelet_mu_;
  bool kubelet_ = true;  // guarded by kubelet_mu_
  std::atomic<bool> stop_{false};
  std::thread kubelet_thread_;
};

TEST_F(DeploymentControllerTest, AnAnnotationOfTheDeploymentReachesItsCurrentReplicaSet) {
  // The Deployment documentation's flow: `kubectl annotate deployment web
  // kubernetes.io/change-cause=...` after a rollout, then `kubectl rollout history`.
  ASSERT_TRUE(
      client_.Create(ResourcePath("apps", "v1", "deployments", "default"), Deployment(2, "nginx"))
          .ok());
  ASSERT_TRUE(Eventually([&] { return ReplicaSets().size() == 1; }));
  const std::string rs_name = ReplicaSets()[0]["metadata"]["name"];
  ASSERT_TRUE(client_
                  .Patch(ResourcePath("apps", "v1", "deployments", "default", "web"),
                         client::PatchType::kMerge,
                         json{{"metadata",
                               {{"annotations",
                                 {{"kubernetes.io/change-cause", "image updated to nginx"},
                                  {"kubectl.kubernetes.io/last-applied-configuration", "{}"}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    const std::vector<json> rss = ReplicaSets();
    return rss.size() == 1 && rss[0]["metadata"]["annotations"].value(
                                  "kubernetes.io/change-cause", "") == "image updated to nginx";
  }));
  const json rs = ReplicaSets()[0];
  EXPECT_EQ(rs["metadata"]["name"], rs_name);  // the same ReplicaSet, no new revision
  EXPECT_EQ(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1");
  EXPECT_FALSE(
      rs["metadata"]["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));
}

TEST_F(DeploymentControllerTest, CreatesAReplicaSetAndReportsAvailability) {
  SetKubelet(false);
  ASSERT_TRUE(client_.Create(ResourcePath("apps", "v1", "deployments", "default"), Deployment(3, "nginx")).ok());
  ASSERT_TRUE(Eventually([&] { return ReplicaSets().size() == 1; }));
  json rs = ReplicaSets()[0];
  const std::string hash = rs["metadata"]["labels"]["pod-template-hash"];
  EXPECT_EQ(rs["metadata"]["name"], "web-" + hash);
  EXPECT_EQ(rs["spec"]["replicas"], 3);
  EXPECT_EQ(rs["spec"]["selector"]["matchLabels"]["pod-template-hash"], hash);
  EXPECT_EQ(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1");
  EXPECT_EQ(rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"], "3");
  EXPECT_EQ(rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"], "4");
  EXPECT_EQ(rs["metadata"]["ownerReferences"][0]["kind"], "Deployment");
  ASSERT_TRUE(Eventually([&] { return Get()["status"].value("replicas", 0) == 3; }));
  json d = Get();
  EXPECT_EQ(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1");
  EXPECT_EQ(d["status"]["updatedReplicas"], 3);
  EXPECT_EQ(d["status"]["unavailableReplicas"], 3);
  EXPECT_EQ(Condition(d, "Available"), "False/MinimumReplicasUnavailable");
  EXPECT_EQ(Condition(d, "Progressing"), "True/ReplicaSetUpdated");
  SetKubelet(true);
  ASSERT_TRUE(Eventually([&] { return Condition(Get(), "Progressing") == "True/NewReplicaSetAvailable"; }));
  d = Get();
  EXPECT_EQ(Condition(d, "Available"), "True/MinimumReplicasAvailable");
  EXPECT_EQ(d["status"]["availableReplicas"], 3);
  EXPECT_FALSE(d["status"].contains("unavailableReplicas"));
  EXPECT_EQ(d["status"]["observedGeneration"], 1);
  EXPECT_EQ(recorder_.events()[0], "ScalingReplicaSet: Scaled up replica set web-" + hash + " to 3");
}

TEST_F(DeploymentControllerTest, RollsOutANewTemplateAndScales) {
  ASSERT_TRUE(client_.Create(ResourcePath("apps", "v1", "deployments", "default"), Deployment(3, "nginx")).ok());
  ASSERT_TRUE(Eventually([&] { return Condition(Get(), "Progressing") == "True/NewReplicaSetAvailable"; }));
  ASSERT_TRUE(client_.Patch(ResourcePath("apps", "v1", "deployments", "default", "web"), client::PatchType::kMerge,
                            {{"spec", {{"template", {{"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx:2"}}})}}}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    json d = Get();
    return d["status"].value("observedGeneration", 0) == 2 &&
           Condition(d, "Progressing") == "True/NewReplicaSetAvailable" &&
           d["status"].value("updatedReplicas", 0) == 3 && d["status"].value("replicas", 0) == 3;
  }));
  std::vector<json> rss = ReplicaSets();
  ASSERT_EQ(rss.size(), 2u);
  int zero = 0, three = 0;
  for (const json& r : rss) {
    if (r["spec"]["replicas"] == 0) {
      ++zero;
      EXPECT_EQ(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1");
    }
    if (r["spec"]["replicas"] == 3) {
      ++three;
      EXPECT_EQ(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
      EXPECT_EQ(r["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:2");
    }
  }
  EXPECT_EQ(zero, 1);
  EXPECT_EQ(three, 1);
  EXPECT_EQ(Get()["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
  // Never more than replicas + maxSurge (4) pods asked for at once: the events say so.
  for (const std::string& e : recorder_.events()) {
    EXPECT_EQ(e.find(" to 5"), std::string::npos) << e;
  }
  // A scaling event.
  ASSERT_TRUE(client_.Patch(ResourcePath("apps", "v1", "deployments", "default", "web"), client::PatchType::kMerge,
                            {{"spec", {{"replicas", 5}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Get()["status"].value("availableReplicas", 0) == 5; }));
  // Recreate back to the first template: its ReplicaSet becomes the new one, revision 3.
  ASSERT_TRUE(client_.Patch(ResourcePath("apps", "v1", "deployments", "default", "web"), client::PatchType::kMerge,
                            {{"spec", {{"strategy", {{"type", "Recreate"}, {"rollingUpdate", nullptr}}},
                                       {"template", {{"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    json d = Get();
    return d["status"].value("observedGeneration", 0) == 4 && d["status"].value("updatedReplicas", 0) == 5 &&
           d["status"].value("replicas", 0) == 5 && d["status"].value("availableReplicas", 0) == 5;
  }));
  rss = ReplicaSets();
  ASSERT_EQ(rss.size(), 2u);
  for (const json& r : rss) {
    if (r["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx") {
      EXPECT_EQ(r["spec"]["replicas"], 5);
      EXPECT_EQ(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "3");
      EXPECT_EQ(r["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"], "1");
    } else {
      EXPECT_EQ(r["spec"]["replicas"], 0);
    }
  }
}

TEST_F(DeploymentControllerTest, PausedDeploymentsOnlyScale) {
  ASSERT_TRUE(client_.Create(ResourcePath("apps", "v1", "deployments", "default"), Deployment(2, "nginx")).ok());
  ASSERT_TRUE(Eventually([&] { return Condition(Get(), "Progressing") == "True/NewReplicaSetAvailable"; }));
  ASSERT_TRUE(client_.Patch(ResourcePath("apps", "v1", "deployments", "default", "web"), client::PatchType::kMerge,
                            {{"spec", {{"paused", true}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Condition(Get(), "Progressing") == "Unknown/DeploymentPaused"; }));
  ASSERT_TRUE(client_.Patch(ResourcePath("apps", "v1", "deployments", "default", "web"), client::PatchType::kMerge,
                            {{"spec", {{"replicas", 4}, {"template", {{"spec", {{"containers", json::array({{{"name", "c"}, {"image", "other"}}})}}}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Get()["status"].value("availableReplicas", 0) == 4; }));
  EXPECT_EQ(ReplicaSets().size(), 1u);  // no rollout while paused
  ASSERT_TRUE(client_.Patch(ResourcePath("apps", "v1", "deployments", "default", "web"), client::PatchType::kMerge,
                            {{"spec", {{"paused", false}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return ReplicaSets().size() == 2; }));
}

// ---- With an executor: both controllers on one EventQueue, informers fed by hand -------------

// A Deployment of 2 rolled out from nginx:1 to nginx:2, the test making every pod Running and
// Ready between steps; returns the ReplicaSets, pods and status left, to compare two runs.
std::string RollOutOnAnEventQueue() {
  testing::DrivenCluster c;
  Recorder recorder;
  const int threads = testing::DrivenCluster::Threads();
  replicaset::ReplicaSetController replicasets(c.client, c.events.clock(), {}, nullptr, nullptr,
                                               &c.informers, &c.events);
  DeploymentController deployments(c.client, c.events.clock(), {}, &recorder, nullptr, &c.informers,
                                   &c.events);
  replicasets.Start();
  deployments.Start();
  const std::string kDeployments = ResourcePath("apps", "v1", "deployments", "default");
  const std::string kPods = ResourcePath("", "v1", "pods", "default");
  // Every 2 s: the kubelet's part for the pods that are not Running yet.
  auto run = [&](int steps) {
    for (int i = 0; i < steps; ++i) {
      c.RunFor(std::chrono::seconds(2));
      for (const json& p : c.List(kPods)) {
        if (p.contains("status") && p["status"].value("phase", "") == "Running") continue;
        json st = {{"status",
                    {{"phase", "Running"},
                     {"conditions",
                      json::array({{{"type", "Ready"},
                                    {"status", "True"},
                                    {"lastTransitionTime", FormatRfc3339(c.events.Now())}}})}}}};
        EXPECT_TRUE(c.client
                        .Patch(kPods + "/" + p["metadata"]["name"].get<std::string>() + "/status",
                               client::PatchType::kMerge, st)
                        .ok());
      }
    }
  };
  c.Create(kDeployments, DeploymentControllerTest::Deployment(2, "nginx:1"));
  run(5);
  EXPECT_EQ(testing::DrivenCluster::Threads(), threads);  // none of their own
  json status = c.List(kDeployments).at(0)["status"];
  EXPECT_EQ(status.value("availableReplicas", 0), 2);
  EXPECT_EQ(c.List(ResourcePath("apps", "v1", "replicasets", "default")).size(), 1u);

  EXPECT_TRUE(
      c.client
          .Patch(kDeployments + "/web", client::PatchType::kStrategicMerge,
                 {{"spec",
                   {{"template",
                     {{"spec",
                       {{"containers", json::array({{{"name", "c"}, {"image", "nginx:2"}}})}}}}}}}})
          .ok());
  run(20);
  std::string out;
  for (const json& rs : c.List(ResourcePath("apps", "v1", "replicasets", "default"))) {
    out += rs["metadata"]["name"].get<std::string>() + " " + rs["spec"]["replicas"].dump() + " " +
           rs["spec"]["template"]["spec"]["containers"][0]["image"].get<std::string>() + "\n";
  }
  for (const json& p : c.List(kPods)) {
    out += p["metadata"]["name"].get<std::string>() +
           (p["metadata"].contains("deletionTimestamp") ? " deleting" : "") + "\n";
  }
  status = c.List(kDeployments).at(0)["status"];
  EXPECT_EQ(status.value("updatedReplicas", 0), 2);
  EXPECT_EQ(status.value("availableReplicas", 0), 2);
  EXPECT_EQ(status.value("replicas", 0), 2);
  EXPECT_EQ(DeploymentControllerTest::Condition(c.List(kDeployments).at(0), "Progressing"),
            "True/NewReplicaSetAvailable");
  out += status.dump() + "\n" + std::to_string(c.store.resource_version());
  deployments.Stop();
  replicasets.Stop();
  return out;
}

TEST(DeploymentControllerExecutorTest, RollsOutOnAnEventQueue) {
  const std::string first = RollOutOnAnEventQueue();
  EXPECT_EQ(first, RollOutOnAnEventQueue());
}

}  // namespace
}  // namespace tidepool::controllers::deployment
