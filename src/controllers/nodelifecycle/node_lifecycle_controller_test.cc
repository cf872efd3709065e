#include "controllers/nodelifecycle/node_lifecycle_controller.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::nodelifecycle {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::DrivenCluster;
using testing::RecordedEvents;

constexpr char kNodes[] = "/api/v1/nodes";
constexpr char kLeases[] = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";

json Node(const std::string& name, const std::string& zone, const char* ready,
          TimePoint heartbeat) {
  json n = {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata",
             {{"name", name},
              {"labels",
               {{"topology.kubernetes.io/region", "us-central1"},
                {"topology.kubernetes.io/zone", zone}}}}}};
  if (ready != nullptr) {
    const std::string at = FormatRfc3339(heartbeat);
    n["status"]["conditions"] = json::array({{{"type", "MemoryPressure"},
                                              {"status", "False"},
                                              {"lastHeartbeatTime", at},
                                              {"lastTransitionTime", at},
                                              {"reason", "KubeletHasSufficientMemory"}},
                                             {{"type", "Ready"},
                                              {"status", ready},
                                              {"lastHeartbeatTime", at},
                                              {"lastTransitionTime", at},
                                              {"reason", "KubeletReady"}}});
  }
  return n;
}

class NodeLifecycleControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    c_.Create(
        "/api/v1/namespaces",
        {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "kube-node-lease"}}}});
  }
  void Start(NodeLifecycleControllerOptions o = {}) {
    controller_ = std::make_unique<NodeLifecycleController>(
        c_.client, c_.events.clock(), o, &events_, nullptr, &c_.informers, &c_.events);
    controller_->Start();
  }
  json Get(const std::string& name) {
    auto n = c_.client.Get(std::string(kNodes) + "/" + name);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : json();
  }
  std::vector<std::string> Taints(const std::string& name) {
    std::vector<std::string> out;
    const json n = Get(name);
    for (const json& t : n.value("spec", json::object()).value("taints", json::array())) {
      out.push_back(t.value("key", "") + ":" + t.value("effect", ""));
    }
    return out;
  }
  std::string Condition(const std::string& name, const std::string& type,
                        const char* field = "status") {
    const json n = Get(name);
    for (const json& c : n.value("status", json::object()).value("conditions", json::array())) {
      if (c.value("type", "") == type) return c.value(field, "");
    }
    return "";
  }
  // The kubelet: its Ready condition with a new heartbeat (status PATCH).
  void Post(const std::string& name, const char* ready) {
    const std::string at = FormatRfc3339(c_.events.Now());
    auto r = c_.client.Patch(
        std::string(kNodes) + "/" + name + "/status", client::PatchType::kStrategicMerge,
        {{"status",
          {{"conditions",
            json::array({{{"type", "Ready"}, {"status", ready}, {"lastHeartbeatTime", at}}})}}}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void RenewLease(const std::string& name) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", name}}},
                  {"spec",
                   {{"holderIdentity", name},
                    {"leaseDurationSeconds", 40},
                    {"renewTime", client::FormatMicroTime(c_.events.Now())}}}};
    auto got = c_.client.Get(std::string(kLeases) + "/" + name);
    if (got.ok()) {
      lease["metadata"]["resourceVersion"] = (*got)["metadata"]["resourceVersion"];
      ASSERT_TRUE(c_.client.Update(std::string(kLeases) + "/" + name, lease).ok());
    } else {
      c_.Create(kLeases, lease);
    }
  }

  DrivenCluster c_;
  RecordedEvents events_;
  std::unique_ptr<NodeLifecycleController> controller_;
};

TEST_F(NodeLifecycleControllerTest, ANodeNoKubeletPostedGetsUnknownAfterTheStartupGrace) {
  const TimePoint t0 = c_.events.Now();
  c_.Create(kNodes, Node("fake", "a", nullptr, t0));
  Start();
  c_.RunFor(seconds(1));
  // Registered; the admission's not-ready taint goes: no condition says not ready.
  EXPECT_EQ(events_.Reasons("fake"), std::vector<std::string>{"RegisteredNode"});
  EXPECT_EQ(events_.entries[0].message, "Node fake event: Registered Node fake in Controller");
  EXPECT_TRUE(Taints("fake").empty());
  c_.RunUntil(t0 + seconds(60));
  EXPECT_EQ(Condition("fake", "Ready"), "");
  c_.RunUntil(t0 + seconds(66));  // the first tick after creation + 60 s (ticks are 50 ms late:
                                  // the first pass waited for the informers' first sync)
  for (const char* type : {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(Condition("fake", type), "Unknown");
    EXPECT_EQ(Condition("fake", type, "reason"), "NodeStatusNeverUpdated");
    EXPECT_EQ(Condition("fake", type, "message"), "Kubelet never posted node status.");
    EXPECT_EQ(Condition("fake", type, "lastTransitionTime"), FormatRfc3339(t0 + seconds(60)));
  }
  EXPECT_EQ(Condition("fake", "NetworkUnavailable"), "");
  // Unreachable: the NoSchedule taint; no NoExecute one (its only zone is fully disrupted).
  c_.RunFor(seconds(30));
  EXPECT_EQ(Taints("fake"), std::vector<std::string>{"node.kubernetes.io/unreachable:NoSchedule"});
  EXPECT_EQ(events_.Reasons("fake"), std::vector<std::string>{"RegisteredNode"});
}

TEST_F(NodeLifecycleControllerTest, LeasesKeepANodeHealthyAndItsPodsAreMarkedWhenTheyStop) {
  const TimePoint t0 = c_.events.Now();
  c_.Create(kNodes, Node("n1", "a", "True", t0));
  c_.Create(kNodes, Node("n2", "a", "True", t0));
  c_.Create(kNodes, Node("n3", "a", "True", t0));
  c_.Create(
      "/api/v1/namespaces/default/pods",
      {{"apiVersion", "v1"},
       {"kind", "Pod"},
       {"metadata", {{"name", "p"}}},
       {"spec",
        {{"nodeName", "n1"}, {"containers", json::array({{{"name", "c"}, {"image", "x"}}})}}}});
  ASSERT_TRUE(
      c_.client
          .Patch("/api/v1/namespaces/default/pods/p/status", client::PatchType::kMerge,
                 {{"status",
                   {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}})
          .ok());
  Start();
  // n1's and n2's kubelets renew their Leases every 10 s for 3 minutes; n3's and then n1's stop.
  for (int i = 0; i < 18; ++i) {
    RenewLease("n2");
    if (i < 9) RenewLease("n1");
    c_.RunFor(seconds(10));
  }
  EXPECT_EQ(Condition("n2", "Ready"), "True");
  EXPECT_EQ(Condition("n3", "Ready"), "Unknown");
  EXPECT_EQ(Condition("n3", "Ready", "reason"), "NodeStatusUnknown");
  EXPECT_EQ(Condition("n3", "Ready", "message"), "Kubelet stopped posting node status.");
  EXPECT_EQ(Condition("n3", "MemoryPressure"), "Unknown");
  EXPECT_EQ(Condition("n3", "DiskPressure", "reason"), "NodeStatusNeverUpdated");
  // n3: never renewed, so 50 s after the first pass, at the next tick.
  EXPECT_EQ(Condition("n3", "Ready", "lastTransitionTime"), FormatRfc3339(t0 + seconds(55)));
  // n1: last renewed at 80 s, so Unknown at the first tick after 130 s.
  EXPECT_EQ(Condition("n1", "Ready"), "Unknown");
  EXPECT_EQ(Condition("n1", "Ready", "lastTransitionTime"), FormatRfc3339(t0 + seconds(135)));
  EXPECT_EQ(events_.Reasons("n1"), (std::vector<std::string>{"RegisteredNode", "NodeNotReady"}));
  auto pod = c_.client.Get("/api/v1/namespaces/default/pods/p");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ((*pod)["status"]["conditions"][0]["status"], "False");
  EXPECT_EQ(events_.Reasons("p"), std::vector<std::string>{"NodeNotReady"});
  // Two of three not Ready in a zone of three: normal, so both get unreachable:NoExecute, one
  // per 10 s.
  EXPECT_EQ(Taints("n2"), std::vector<std::string>{});
  for (const char* n : {"n1", "n3"}) {
    SCOPED_TRACE(n);
    const std::vector<std::string> t = Taints(n);
    EXPECT_NE(std::find(t.begin(), t.end(), "node.kubernetes.io/unreachable:NoExecute"), t.end());
    EXPECT_NE(std::find(t.begin(), t.end(), "node.kubernetes.io/unreachable:NoSchedule"), t.end());
  }
  // n1's kubelet is back: Ready, and both its taints go.
  Post("n1", "True");
  RenewLease("n1");
  c_.RunFor(seconds(10));
  EXPECT_EQ(Condition("n1", "Ready"), "True");
  EXPECT_TRUE(Taints("n1").empty());
}

TEST_F(NodeLifecycleControllerTest, ANotReadyNodeIsTaintedAtTheZonesRateAndCordonsAreTainted) {
  const TimePoint t0 = c_.events.Now();
  for (const char* n : {"n1", "n2", "n3", "n4"}) c_.Create(kNodes, Node(n, "a", "True", t0));
  NodeLifecycleControllerOptions o;
  o.monitor_grace = std::chrono::minutes(10);  // no Leases here
  Start(o);
  c_.RunFor(seconds(1));
  Post("n1", "False");
  Post("n2", "False");
  c_.RunFor(seconds(6));
  // Both queued at the same pass; the first has the bucket's token, the second waits 10 s.
  auto has = [&](const std::string& n, const std::string& t) {
    const std::vector<std::string> ts = Taints(n);
    return std::find(ts.begin(), ts.end(), t) != ts.end();
  };
  EXPECT_TRUE(has("n1", "node.kubernetes.io/not-ready:NoExecute"));
  EXPECT_TRUE(has("n1", "node.kubernetes.io/not-ready:NoSchedule"));
  EXPECT_FALSE(has("n2", "node.kubernetes.io/not-ready:NoExecute"));
  EXPECT_TRUE(has("n2", "node.kubernetes.io/not-ready:NoSchedule"));
  c_.RunFor(seconds(10));
  EXPECT_TRUE(has("n2", "node.kubernetes.io/not-ready:NoExecute"));
  // A third not Ready makes the zone partially disrupted (3 of 4, at most 50 nodes): no more.
  Post("n3", "False");
  c_.RunFor(seconds(30));
  EXPECT_FALSE(has("n3", "node.kubernetes.io/not-ready:NoExecute"));
  EXPECT_TRUE(has("n3", "node.kubernetes.io/not-ready:NoSchedule"));
  // Ready again: both taints go.
  Post("n1", "True");
  c_.RunFor(seconds(6));
  EXPECT_FALSE(has("n1", "node.kubernetes.io/not-ready:NoExecute"));
  EXPECT_FALSE(has("n1", "node.kubernetes.io/not-ready:NoSchedule"));
  // A cordon is tainted, and untainted.
  ASSERT_TRUE(c_.client
                  .Patch(std::string(kNodes) + "/n4", client::PatchType::kMerge,
                         {{"spec", {{"unschedulable", true}}}})
                  .ok());
  c_.RunFor(seconds(1));
  EXPECT_EQ(Taints("n4"), std::vector<std::string>{"node.kubernetes.io/unschedulable:NoSchedule"});
  ASSERT_TRUE(c_.client
                  .Patch(std::string(kNodes) + "/n4", client::PatchType::kMerge,
                         {{"spec", {{"unschedulable", nullptr}}}})
                  .ok());
  c_.RunFor(seconds(1));
  EXPECT_TRUE(Taints("n4").empty());
  // Deleted: RemovingNode.
  ASSERT_TRUE(c_.client.Delete(std::string(kNodes) + "/n4").ok());
  c_.RunFor(seconds(6));
  EXPECT_EQ(events_.Reasons("n4"), (std::vector<std::string>{"RegisteredNode", "RemovingNode"}));
}

TEST_F(NodeLifecycleControllerTest, AQuietClusterCostsNoPasses) {
  const TimePoint t0 = c_.events.Now();
  c_.Create(kNodes, Node("n1", "a", "True", t0));
  Start();
  for (int i = 0; i < 60; ++i) {  // ten minutes of Lease renewals
    RenewLease("n1");
    c_.RunFor(seconds(10));
  }
  EXPECT_EQ(Condition("n1", "Ready"), "True");
  // kcm would have made 120 passes; a Lease only moves the deadline.
  EXPECT_LE(controller_->passes(), 15u);
}

}  // namespace
}  // namespace tidepool::controllers::nodelifecycle
