// SimCluster: the seed walkthrough on the API's object store, every actor on one event queue.
#include "runtime/sim_cluster.h"

#include <gtest/gtest.h>

#include <string>

#include "client/rest_client.h"
#include "sim/scenario.h"

namespace tidepool::runtime {
namespace {

using client::ResourcePath;
using nlohmann::json;
using std::chrono::minutes;

const json kGpuPod = {
    {"apiVersion", "v1"},
    {"kind", "Pod"},
    {"metadata", {{"name", "gpu-test-pod"}}},
    {"spec",
     {{"restartPolicy", "Never"},
      {"containers", json::array({{{"name", "cuda-container"},
                                   {"image", "nvidia/cuda:11.4.2-base-ubuntu20.04"},
                                   {"resources", {{"limits", {{"nvidia.com/gpu", 1}}}}}}})},
      {"tolerations",
       json::array(
           {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}}}};

// The walkthrough's cluster (examples/seed-walkthrough.yaml): its GPU pod applied at the start
// and deleted at 10m. Returns the timeline's text.
std::string RunWalkthrough() {
  auto scenario =
      sim::LoadScenario(std::string(TIDEPOOL_SOURCE_DIR) + "/examples/seed-walkthrough.yaml");
  EXPECT_TRUE(scenario.ok()) << scenario.status().ToString();
  if (!scenario.ok()) return "";
  UpComponentOptions components;
  components.world = scenario->world;
  auto cluster = SimCluster::Create(components);
  EXPECT_TRUE(cluster.ok()) << cluster.status().ToString();
  if (!cluster.ok()) return "";
  SimCluster& c = **cluster;
  const std::string pods = ResourcePath("", "v1", "pods", "default");
  EXPECT_TRUE(c.kubectl().Create(pods, kGpuPod).ok());
  c.RunFor(minutes(10));
  // Running on the new GPU node by now.
  auto pod = c.kubectl().Get(pods + "/gpu-test-pod");
  EXPECT_TRUE(pod.ok());
  if (pod.ok()) {
    EXPECT_EQ((*pod)["status"].value("phase", ""), "Running");
    EXPECT_NE((*pod)["spec"].value("nodeName", "").find("gke-tidepool-gpu-pool-"),
              std::string::npos);
  }
  EXPECT_TRUE(c.kubectl().Delete(pods + "/gpu-test-pod").ok());
  c.RunFor(minutes(20));
  c.recorder().RecordSummary(components.world.seed, c.feed().Pods());
  return c.timeline().ToText();
}

TEST(SimClusterTest, TheSeedWalkthroughRunsOnTheObjectStore) {
  const std::string text = RunWalkthrough();
  // Pending, the scale-up, the node's life, the pod running, and back to 0.
  for (const char* line :
       {"FailedScheduling", "TriggeredScaleUp", "pool    gpu-pool  0 -> 1", "NotReady", "Running",
        "pool    gpu-pool  1 -> 0", "summary pool gpu-pool: 0 nodes; 1 created, 1 removed"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  EXPECT_LT(text.find("0 -> 1"), text.find("1 -> 0"));
  // The device plugin's DaemonSet pod ran on the GPU node; kcm's pod GC removes it after its
  // node is gone.
  EXPECT_NE(text.find("nvidia-device-plugin-daemonset-"), std::string::npos);
  EXPECT_EQ(text.find("summary pod gpu-operator/"), std::string::npos) << text;
}

// Workloads run in simulate too: a ReplicaSet's pods are made, scheduled and run; deleting it
// takes them along (the garbage collector's monitors are fed by the driver).
TEST(SimClusterTest, AReplicaSetRunsAndItsPodsGoWithIt) {
  auto scenario =
      sim::LoadScenario(std::string(TIDEPOOL_SOURCE_DIR) + "/examples/seed-walkthrough.yaml");
  ASSERT_TRUE(scenario.ok());
  UpComponentOptions components;
  components.world = scenario->world;
  auto cluster = SimCluster::Create(components);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  SimCluster& c = **cluster;
  const json rs = {{"apiVersion", "apps/v1"},
                   {"kind", "ReplicaSet"},
                   {"metadata", {{"name", "web"}}},
                   {"spec",
                    {{"replicas", 2},
                     {"selector", {{"matchLabels", {{"app", "web"}}}}},
                     {"template",
                      {{"metadata", {{"labels", {{"app", "web"}}}}},
                       {"spec",
                        {{"containers",
                          json::array({{{"name", "c"},
                                        {"image", "nginx"},
                                        {"resources", {{"requests", {{"cpu", "100m"}}}}}}})}}}}}}}};
  const std::string rss = ResourcePath("apps", "v1", "replicasets", "default");
  ASSERT_TRUE(c.kubectl().Create(rss, rs).ok());
  c.RunFor(minutes(1));
  auto running = [&] {
    int n = 0;
    auto list = c.kubectl().List(ResourcePath("", "v1", "pods", "default"));
    for (const json& p : list.ok() ? (*list)["items"] : json::array()) {
      n += p["status"].value("phase", "") == "Running" ? 1 : 0;
    }
    return n;
  };
  EXPECT_EQ(running(), 2);
  ASSERT_TRUE(c.kubectl().Delete(rss + "/web").ok());
  c.RunFor(minutes(1));
  auto list = c.kubectl().List(ResourcePath("", "v1", "pods", "default"));
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE((*list)["items"].empty()) << list->dump();
}

TEST(SimClusterTest, ARunReplaysByteForByte) { EXPECT_EQ(RunWalkthrough(), RunWalkthrough()); }

}  // namespace
}  // namespace tidepool::runtime
