#include "kubelet/node_status.h"

#include <gtest/gtest.h>

#include "kubelet/status_json.h"

namespace tidepool::kubelet {
namespace {

using nlohmann::json;

TimePoint At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

TEST(NodeStatusTest, HeartbeatTouchesEachConditionsHeartbeatOnly) {
  const json node = {
      {"status",
       {{"conditions", json::array({{{"type", "MemoryPressure"}, {"status", "False"}},
                                    {{"type", "Ready"}, {"status", "True"}}})}}}};
  ASSERT_EQ(NodeConditionTypes(node), (std::vector<std::string>{"MemoryPressure", "Ready"}));
  EXPECT_EQ(NodeHeartbeatPatch(NodeConditionTypes(node), At("2026-12-02T10:00:00Z")),
            json::parse(R"({"status":{"conditions":[
              {"type":"MemoryPressure","lastHeartbeatTime":"2026-12-02T10:00:00Z"},
              {"type":"Ready","lastHeartbeatTime":"2026-12-02T10:00:00Z"}]}})"));
  EXPECT_TRUE(NodeConditionTypes(json::object()).empty());
  EXPECT_TRUE(NodeHeartbeatPatch({}, At("2026-12-02T10:00:00Z")).is_null());
}

TEST(NodeStatusTest, KwokNodesAndReadiness) {
  struct Case {
    const char* name;
    json node;
    bool kwok, ready;
  };
  const Case cases[] = {
      {"plain", json::parse(R"({"metadata":{"name":"n"}})"), false, false},
      {"kwok", json::parse(R"({"metadata":{"annotations":{"kwok.x-k8s.io/node":"fake"}}})"), true,
       false},
      {"other value", json::parse(R"({"metadata":{"annotations":{"kwok.x-k8s.io/node":"real"}}})"),
       false, false},
      {"ready", json::parse(R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"),
       false, true},
      {"not ready",
       json::parse(R"({"status":{"conditions":[{"type":"Ready","status":"Unknown"}]}})"), false,
       false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(IsKwokNode(c.node), c.kwok) << c.name;
    EXPECT_EQ(NodeReady(c.node), c.ready) << c.name;
  }
}

TEST(NodeStatusTest, KwokInitializeAsKwoksFastStage) {
  // As CA's kwok provider creates a node from its template: capacity and allocatable set, a
  // nodeInfo with some fields, no conditions.
  const json node = json::parse(R"({"metadata":{"name":"kwok-gpu-abc",
      "creationTimestamp":"2026-12-02T09:59:00Z",
      "annotations":{"kwok.x-k8s.io/node":"fake"}},
    "status":{"capacity":{"cpu":"4","nvidia.com/gpu":"1"},
              "nodeInfo":{"kubeletVersion":"v1.31.5","architecture":""}}})");
  const json patch = KwokNodeInitializePatch(node, At("2026-12-02T10:00:00Z"));
  const json& s = patch["status"];
  ASSERT_EQ(s["conditions"].size(), 5u);
  EXPECT_EQ(s["conditions"][0], json::parse(R"({"type":"Ready","status":"True",
      "reason":"KubeletReady","message":"kubelet is posting ready status",
      "lastHeartbeatTime":"2026-12-02T10:00:00Z","lastTransitionTime":"2026-12-02T09:59:00Z"})"));
  EXPECT_EQ(s["conditions"][4]["type"], "NetworkUnavailable");
  EXPECT_EQ(s["conditions"][4]["reason"], "RouteCreated");
  EXPECT_EQ(s["capacity"], json::parse(R"({"cpu":"4","nvidia.com/gpu":"1"})"));
  EXPECT_EQ(s["allocatable"], json::parse(R"({"cpu":"1k","memory":"1Ti","pods":"1M"})"));
  EXPECT_EQ(s["addresses"], NodeAddressesJson("kwok-gpu-abc"));
  EXPECT_EQ(s["daemonEndpoints"]["kubeletEndpoint"]["Port"], 10250);
  EXPECT_EQ(s["nodeInfo"]["kubeletVersion"], "v1.31.5");
  EXPECT_EQ(s["nodeInfo"]["architecture"], "amd64");
  EXPECT_EQ(s["nodeInfo"]["containerRuntimeVersion"], "kwok-v0.7.0");
  EXPECT_EQ(s["phase"], "Running");
  // Without a nodeInfo, none is written (KWOK's template writes one only over an existing one).
  const json bare = KwokNodeInitializePatch(json::parse(R"({"metadata":{"name":"k"}})"),
                                            At("2026-12-02T10:00:00Z"));
  EXPECT_FALSE(bare["status"].contains("nodeInfo"));
  EXPECT_EQ(bare["status"]["conditions"][0]["lastTransitionTime"], "2026-12-02T10:00:00Z");
}

TEST(NodeStatusTest, NodeInfoIdsAreTheOnesEmulatedNodesHaveAlwaysReported) {
  const json info = NodeInfoJson("n1");
  EXPECT_EQ(info["systemUUID"], Hex(Fnv("n1/uuid"), 8) + "-" + Hex(Fnv("n1/u2"), 4) + "-" +
                                    Hex(Fnv("n1/u3"), 4) + "-" + Hex(Fnv("n1/u4"), 4) + "-" +
                                    Hex(Fnv("n1/u5"), 12));
  EXPECT_EQ(info["bootID"], Hex(Fnv("n1/boot"), 8) + "-" + Hex(Fnv("n1/b2"), 4) + "-" +
                                Hex(Fnv("n1/b3"), 4) + "-" + Hex(Fnv("n1/b4"), 4) + "-" +
                                Hex(Fnv("n1/b5"), 12));
}

TEST(NodeStatusTest, LeaseIsOwnedByItsNode) {
  const json lease = NodeLeaseJson("n1", "uid-1", At("2026-12-02T10:00:00Z"));
  EXPECT_EQ(lease["metadata"]["namespace"], "kube-node-lease");
  EXPECT_EQ(lease["metadata"]["ownerReferences"][0]["uid"], "uid-1");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "n1");
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 40);
  EXPECT_EQ(lease["spec"]["renewTime"], "2026-12-02T10:00:00.000000Z");
}

}  // namespace
}  // namespace tidepool::kubelet
