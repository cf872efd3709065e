#include "runtime/kube_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "api/codec/json_codec.h"
#include "autoscaler/scale_down/drainability.h"
#include "client/test_api_server.h"
#include "scheduler/framework/node_info.h"

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
  EXPECT_TRUE(v.pdbs.empty());
  // The pods on nodes now, for the actuator (the writer reads them from the cache).
  KubeClusterWriter on_nodes(*client_, cache);
  auto by_node = on_nodes.PodsOnNodes({"n1", "n2"});
  ASSERT_EQ(by_node.size(), 1u);
  ASSERT_EQ(by_node["n1"].size(), 2u);
  EXPECT_EQ(by_node["n1"][0]->name(), "bound");
  EXPECT_EQ(by_node["n1"][1]->name(), "dns");
  EXPECT_TRUE(on_nodes.PodsOnNodes({"n2"}).empty());
  // A pod bound later is seen there once the informer has it; a pending pod never is.
  ASSERT_TRUE(
      client_->Create("/api/v1/namespaces/default/pods", Pod("default", "late", "n1")).ok());
  EXPECT_TRUE(Eventually([&] { return on_nodes.PodsOnNodes({"n1"})["n1"].size() == 3; }));

  // A pending pod, a budget over kube-dns, and a pod that finished.
  ASSERT_TRUE(client_->Create("/api/v1/namespaces/default/pods", Pod("default", "pending", "")).ok());
  const json pdb = {{"apiVersion", "policy/v1"},
                    {"kind", "PodDisruptionBudget"},
                    {"metadata", {{"name", "dns"}, {"namespace", "kube-system"}}},
                    {"spec", {{"minAvailable", 0}, {"selector", {{"matchLabels", {{"k8s-app", "kube-dns"}}}}}}}};
  ASSERT_TRUE(client_->Create("/apis/policy/v1/namespaces/kube-system/poddisruptionbudgets", pdb).ok());
  EXPECT_TRUE(Eventually([&] {
    autoscaler::ClusterView w = cache.View();
    return w.pending_pods.size() == 1 && w.pdbs.size() == 1 && w.pdbs[0]->name == "dns" &&
           w.pdbs[0]->namespace_ == "kube-system" && w.pdbs[0]->selector.has_value() &&
           w.pdbs[0]->selector->match_labels.at("k8s-app") == "kube-dns";
  }));
  EXPECT_EQ(on_nodes.PodsOnNodes({"n1"})["n1"].size(), 3u);  // not the pending pod
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
  KubeClusterCache cache(*client_, server_.clock(), nullptr, 1);
  KubeClusterWriter writer(*client_, cache);
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
  ASSERT_TRUE(client_->Create("/api/v1/namespaces/default/pods", Pod("default", "q", "n1")).ok());
  EXPECT_TRUE(writer.EvictPod("default", "p", 30).ok());
  EXPECT_TRUE(writer.EvictPod("default", "q", 7).ok());  // bound: deleted gracefully
  StatusOr<json> q = client_->Get("/api/v1/namespaces/default/pods/q");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)["metadata"]["deletionGracePeriodSeconds"], 7) << q->dump();
  EXPECT_EQ(writer.EvictPod("default", "nope", 30).code(), StatusCode::kNotFound);
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

// ---- What the cache keeps of a node (NodeForCache) -------------------------------------------

json Cond(const std::string& type, const std::string& status, const std::string& reason) {
  return {{"type", type},
          {"status", status},
          {"lastHeartbeatTime", "2026-11-29T09:12:41Z"},
          {"lastTransitionTime", "2026-11-29T08:00:00Z"},
          {"reason", reason},
          {"message", reason + " message"}};
}

// A GKE GPU node as the API serves it (managedFields already stripped by the informer).
json GkeNode() {
  return {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", "gke-prod-gpu-pool-1a2b3c4d-x7k2"},
        {"uid", "0f7c2e5a-1b2c-4d3e-8f40-5a6b7c8d9e0f"},
        {"resourceVersion", "200123"},
        {"creationTimestamp", "2026-11-29T08:00:00Z"},
        {"labels",
         {{"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"},
          {"cloud.google.com/gke-nodepool", "gpu-pool"},
          {"kubernetes.io/hostname", "gke-prod-gpu-pool-1a2b3c4d-x7k2"},
          {"node.kubernetes.io/instance-type", "a2-highgpu-8g"},
          {"topology.kubernetes.io/zone", "us-central1-a"}}},
        {"annotations",
         {{"container.googleapis.com/instance_id", "7000000000000000001"},
          {"node.alpha.kubernetes.io/ttl", "0"},
          {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
      {"spec",
       {{"podCIDR", "10.4.1.0/24"},
        {"providerID", "gce://tidepool-prod/us-central1-a/gke-prod-gpu-pool-1a2b3c4d-x7k2"},
        {"taints", json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"},
                                 {"effect", "NoSchedule"}}})}}},
      {"status",
       {{"capacity",
         {{"cpu", "96"}, {"ephemeral-storage", "98831908Ki"}, {"hugepages-1Gi", "0"},
          {"hugepages-2Mi", "0"}, {"memory", "696867516Ki"}, {"nvidia.com/gpu", "8"},
          {"pods", "110"}}},
        {"allocatable",
         {{"cpu", "95690m"}, {"ephemeral-storage", "47060071478"}, {"hugepages-1Gi", "0"},
          {"hugepages-2Mi", "0"}, {"memory", "669574332Ki"}, {"nvidia.com/gpu", "8"},
          {"pods", "110"}}},
        {"conditions",
         json::array({Cond("KernelDeadlock", "False", "KernelHasNoDeadlock"),
                      Cond("NetworkUnavailable", "False", "RouteCreated"),
                      Cond("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                      Cond("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                      Cond("PIDPressure", "False", "KubeletHasSufficientPID"),
                      Cond("Ready", "True", "KubeletReady")})},
        {"addresses", json::array({{{"type", "InternalIP"}, {"address", "10.128.0.7"}}})},
        {"nodeInfo", {{"kubeletVersion", "v1.31.2-gke.1"}, {"osImage", "COS"}}},
        {"images", json::array({{{"names", json::array({"gke.gcr.io/pause:3.9"})},
                                 {"sizeBytes", 300000}}})}}}};
}

// What the cache keeps of GkeNode(), as JSON.
json GkeNodeKept() {
  json n = GkeNode();
  n["metadata"].erase("resourceVersion");
  n["metadata"].erase("annotations");
  n["spec"].erase("podCIDR");
  json& st = n["status"];
  st["capacity"] = {{"cpu", "96"}, {"memory", "696867516Ki"}, {"nvidia.com/gpu", "8"}};
  st["conditions"] = json::array(
      {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-11-29T08:00:00Z"}}});
  st.erase("addresses");
  st.erase("nodeInfo");
  st.erase("images");
  return n;
}

// Feeds `in` to a cache's node handler and returns what its view holds.
api::NodeConstSharedPtr Kept(KubeClusterCache& cache, const json& in) {
  cache.OnNodeForTest(std::make_shared<const json>(in), false);
  autoscaler::ClusterView v = cache.View();
  return v.nodes.empty() ? nullptr : v.nodes.front();
}

class NodeForCacheTest : public ::testing::Test {
 protected:
  SimulatedClock clock_;
  client::RestClient client_{client::RestConfig{}, clock_};
  KubeClusterCache cache_{client_, clock_, nullptr, 1};
};

TEST_F(NodeForCacheTest, TheCacheKeepsExactlyTheNodeFieldsTheEngineReads) {
  struct Case {
    std::string name;
    json in;
    json kept;
  };
  std::vector<Case> cases;
  cases.push_back({"a GKE GPU node keeps its labels, spec, allocatable, the cpu, memory and GPU "
                   "capacity and the Ready condition's status and transition time",
                   GkeNode(), GkeNodeKept()});
  {
    json in = GkeNode(), kept = GkeNodeKept();
    in["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/scale-down-disabled"] = "true";
    in["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/other"] = "x";
    kept["metadata"]["annotations"] = {
        {"cluster-autoscaler.kubernetes.io/other", "x"},
        {"cluster-autoscaler.kubernetes.io/scale-down-disabled", "true"}};
    cases.push_back({"only cluster-autoscaler.kubernetes.io/ annotations are kept", in, kept});
  }
  {
    json in = GkeNode(), kept = GkeNodeKept();
    in["status"]["conditions"] = json::array({Cond("Ready", "False", "KubeletNotReady"),
                                              Cond("MemoryPressure", "True", "LowMemory")});
    kept["status"]["conditions"][0]["status"] = "False";
    cases.push_back({"a not-ready node keeps Ready False without its reason or message", in, kept});
  }
  {
    json in = GkeNode(), kept = GkeNodeKept();
    in["status"].erase("conditions");
    kept["status"].erase("conditions");
    cases.push_back({"a node with no Ready condition keeps no condition", in, kept});
  }
  {
    json in = GkeNode(), kept = GkeNodeKept();
    for (json* j : {&in, &kept}) {
      (*j)["metadata"]["deletionTimestamp"] = "2026-11-29T10:00:00Z";
      (*j)["spec"]["unschedulable"] = true;
      (*j)["spec"]["taints"].push_back({{"key", "ToBeDeletedByClusterAutoscaler"},
                                        {"value", "1764410400"},
                                        {"effect", "NoSchedule"},
                                        {"timeAdded", "2026-11-29T09:59:00Z"}});
    }
    in["metadata"]["ownerReferences"] = json::array(
        {{{"apiVersion", "v1"}, {"kind", "Foo"}, {"name", "f"}, {"uid", "u"}}});
    in["metadata"]["generation"] = 3;
    cases.push_back({"a deleting, cordoned node keeps its deletion time, unschedulable and "
                     "taints with timeAdded; not its owners or generation",
                     in, kept});
  }
  {
    json in = GkeNode(), kept = GkeNodeKept();
    in["status"]["capacity"]["example.com/fpga"] = "2";
    kept["status"]["capacity"]["example.com/fpga"] = "2";
    in["status"]["capacity"]["attachable-volumes-gce-pd"] = "127";
    cases.push_back({"extended resources stay in capacity; other native ones do not", in, kept});
  }
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    StatusOr<api::Node> want = api::codec::NodeFromJson(tc.kept);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    api::NodeConstSharedPtr got = Kept(cache_, tc.in);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(*got, *want) << api::codec::NodeToJson(*got).dump();
    StatusOr<api::Node> direct = api::codec::NodeFromJson(tc.in);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(NodeForCache(std::move(*direct)), *want);
    cache_.OnNodeForTest(std::make_shared<const json>(tc.in), /*deleted=*/true);
    EXPECT_TRUE(cache_.View().nodes.empty());
  }
  EXPECT_EQ(cache_.decode_errors(), 0u);
}

TEST_F(NodeForCacheTest, EveryEngineReadOfTheKeptNodeEqualsTheSameReadOfTheWholeNode) {
  json in = GkeNode();
  in["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/scale-down-disabled"] = "true";
  StatusOr<api::Node> full = api::codec::NodeFromJson(in);
  ASSERT_TRUE(full.ok());
  api::NodeConstSharedPtr kept = Kept(cache_, in);
  ASSERT_NE(kept, nullptr);
  // The scheduler's NodeInfo (what the snapshot copies) is the same.
  EXPECT_EQ(scheduler::NodeInfo(*kept).ToNode(), scheduler::NodeInfo(*full).ToNode());
  EXPECT_EQ(kept->meta.name, full->meta.name);
  EXPECT_EQ(kept->meta.creation_timestamp, full->meta.creation_timestamp);
  EXPECT_EQ(kept->meta.labels, full->meta.labels);
  EXPECT_EQ(kept->spec, full->spec);
  EXPECT_EQ(kept->status.allocatable, full->status.allocatable);
  EXPECT_EQ(kept->IsReady(), full->IsReady());
  ASSERT_NE(kept->FindCondition("Ready"), nullptr);
  EXPECT_EQ(kept->FindCondition("Ready")->last_transition_time,
            full->FindCondition("Ready")->last_transition_time);
  EXPECT_TRUE(autoscaler::scaledown::HasScaleDownDisabledAnnotation(*kept));
  for (std::string_view r : {api::kResourceCpu, api::kResourceMemory, api::kResourceNvidiaGpu}) {
    EXPECT_EQ(api::Get(kept->status.capacity, r), api::Get(full->status.capacity, r)) << r;
  }
}

TEST_F(NodeForCacheTest, AChangeTheEngineDoesNotReadKeepsTheSameSharedNode) {
  json in = GkeNode();
  api::NodeConstSharedPtr first = Kept(cache_, in);
  ASSERT_NE(first, nullptr);
  // A status heartbeat: new resourceVersion, heartbeat times, a condition message, an image.
  in["metadata"]["resourceVersion"] = "200999";
  for (json& c : in["status"]["conditions"]) {
    c["lastHeartbeatTime"] = "2026-11-29T09:17:41Z";
    c["message"] = "again";
  }
  in["status"]["images"].push_back({{"names", json::array({"x"})}, {"sizeBytes", 1}});
  EXPECT_EQ(Kept(cache_, in).get(), first.get());
  // A new label is a new node.
  in["metadata"]["labels"]["example.com/team"] = "ml";
  api::NodeConstSharedPtr second = Kept(cache_, in);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second.get(), first.get());
  EXPECT_EQ(second->meta.labels.at("example.com/team"), "ml");
  // So is a change of readiness.
  in["status"]["conditions"].back()["status"] = "False";
  api::NodeConstSharedPtr third = Kept(cache_, in);
  EXPECT_NE(third.get(), second.get());
  EXPECT_FALSE(third->IsReady());
}

// The pod map is keyed by the PodInfos' own namespace and name, ordered as the "ns/name"
// strings it was keyed by before: '-' (0x2d) sorts before '/' (0x2f), so "a-b/x" < "a/x".
TEST_F(NodeForCacheTest, PodsAreKeyedAndOrderedByNamespaceSlashName) {
  auto keys = [](const std::vector<scheduler::PodInfoConstSharedPtr>& pods) {
    std::vector<std::string> out;
    for (const auto& p : pods) out.push_back(p->Key() + " " + std::string(p->node_name()));
    return out;
  };
  auto feed = [&](const json& pod, bool deleted = false) {
    cache_.OnPodForTest(std::make_shared<const json>(pod), deleted);
  };
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"a", "x"}, {"a-b", "x"}, {"a", "a-b"}, {"ab", "a"}, {"a", "ab"}, {"kube-system", "dns"},
           {"kube-system-x", "p"}, {"kube-systen", "q"}, {"kube-system", "dns-2"}}) {
    feed(Pod(ns, name, "n1", {{"k8s-app", "kube-dns"}}));
  }
  const std::vector<std::string> all = {"a-b/x n1",           "a/a-b n1",         "a/ab n1",
                                        "a/x n1",             "ab/a n1",          "kube-system-x/p n1",
                                        "kube-system/dns n1", "kube-system/dns-2 n1", "kube-systen/q n1"};
  std::vector<std::string> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted, all);  // the expectation itself is in std::string order
  EXPECT_EQ(keys(cache_.View().scheduled_pods), all);

  // An update replaces the pod in place; a deletion, a terminal phase or a decode error removes it.
  feed(Pod("a", "x", "n2"));
  feed(Pod("a-b", "x", ""));
  feed(Pod("a", "ab", "n1"), /*deleted=*/true);
  json done = Pod("ab", "a", "n1");
  done["status"]["phase"] = "Succeeded";
  feed(done);
  json bad = Pod("kube-systen", "q", "n1");
  bad["spec"]["containers"] = "not a list";
  feed(bad);
  feed(Pod("a", "nope", "n1"), /*deleted=*/true);  // unknown: nothing
  autoscaler::ClusterView v = cache_.View();
  EXPECT_EQ(keys(v.scheduled_pods),
            (std::vector<std::string>{"a/a-b n1", "a/x n2", "kube-system-x/p n1", "kube-system/dns n1",
                                      "kube-system/dns-2 n1"}));
  EXPECT_EQ(keys(v.pending_pods), (std::vector<std::string>{"a-b/x "}));
  EXPECT_EQ(cache_.decode_errors(), 1u);
}

TEST(GoTimeStringTest, AsGoPrintsTimeInUtc) {
  EXPECT_EQ(GoTimeString(TimePoint(std::chrono::seconds(1764540000))),
            "2025-11-30 22:00:00 +0000 UTC");
  EXPECT_EQ(GoTimeString(TimePoint(std::chrono::seconds(1764540000)) + std::chrono::nanoseconds(120)),
            "2025-11-30 22:00:00.00000012 +0000 UTC");
}

}  // namespace
}  // namespace tidepool::runtime
