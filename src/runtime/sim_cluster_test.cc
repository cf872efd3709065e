// SimCluster: workloads on the API's object store, every actor on one event queue. (The seed
// walkthrough on it, and its byte-for-byte replay: scenario_run_test.cc.)
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

}  // namespace
}  // namespace tidepool::runtime
