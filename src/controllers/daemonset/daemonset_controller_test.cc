#include "controllers/daemonset/daemonset_controller.h"

#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::daemonset {
namespace {

using client::ResourcePath;
using nlohmann::json;

class RecordingRecorder : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& o, std::string_view type, std::string_view reason,
             std::string message) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(o.kind + " " + std::string(type) + " " + std::string(reason) + " " + message);
  }
  int Count(const std::string& prefix) const {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const std::string& e : events_) n += e.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

class DaemonSetControllerTest : public ::testing::Test {
 protected:
  DaemonSetControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)),
        controller_(client_, api_.clock(), {}, &recorder_) {}
  ~DaemonSetControllerTest() override { controller_.Stop(); }

  static json DaemonSet(const json& pod_spec_extra = json::object(), const json& strategy = json()) {
    json spec = {{"containers", json::array({{{"name", "c"}, {"image", "agent:1"}}})}};
    for (const auto& [k, v] : pod_spec_extra.items()) spec[k] = v;
    json ds = {{"apiVersion", "apps/v1"},
               {"kind", "DaemonSet"},
               {"metadata", {{"name", "agent"}, {"namespace", "default"}}},
               {"spec",
                {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
                 {"template", {{"metadata", {{"labels", {{"app", "agent"}}}}}, {"spec", spec}}}}}};
    if (!strategy.is_null()) ds["spec"]["updateStrategy"] = strategy;
    return ds;
  }
  void AddNode(const std::string& name, const json& labels = json::object(),
               const json& taints = json::array()) {
    json node = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", {{"name", name}, {"labels", labels}}},
                 {"spec", {{"taints", taints}}}};
    ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "nodes", ""), node).ok());
  }
  json CreateDs(const json& ds) {
    auto created = client_.Create(ResourcePath("apps", "v1", "daemonsets", "default"), ds);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? *created : json();
  }
  std::string DsPath(const std::string& sub = "") {
    return ResourcePath("apps", "v1", "daemonsets", "default", "agent", sub);
  }
  // Live pods (not being deleted), by target node.
  std::map<std::string, std::vector<json>> PodsByNode() {
    std::map<std::string, std::vector<json>> out;
    auto list = client_.List(ResourcePath("", "v1", "pods", "default"));
    if (!list.ok()) return out;
    for (const json& p : (*list)["items"]) {
      if (p["metadata"].contains("deletionTimestamp")) continue;
      out[TargetNode(p)].push_back(p);
    }
    return out;
  }
  static std::string TargetNode(const json& p) {
    const json& spec = p["spec"];
    if (spec.contains("nodeName")) return spec["nodeName"];
    return spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
               ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0];
  }
  size_t LivePods() {
    size_t n = 0;
    for (const auto& [node, pods] : PodsByNode()) n += pods.size();
    return n;
  }
  void SetPhase(const json& pod, const std::string& phase, bool ready) {
    json st = {{"status",
                {{"phase", phase},
                 {"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"},
                                              {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})}}}};
    ASSERT_TRUE(client_.Patch(ResourcePath("", "v1", "pods", "default", pod["metadata"]["name"].get<std::string>(), "status"),
                              client::PatchType::kMerge, st)
                    .ok());
  }
  void MakeAllReady() {
    for (const auto& [node, pods] : PodsByNode()) {
      for (const json& p : pods) {
        if (!p.contains("status") || p["status"].value("phase", "") != "Running") SetPhase(p, "Running", true);
      }
    }
  }
  bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  json Status() {
    auto ds = client_.Get(DsPath());
    return ds.ok() && (*ds).contains("status") ? (*ds)["status"] : json::object();
  }
  bool StatusIs(const json& want) {
    json st = Status();
    for (const auto& [k, v] : want.items()) {
      if (st.value(k, json(0)) != v) return false;
    }
    return true;
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  RecordingRecorder recorder_;
  DaemonSetController controller_;
};

TEST_F(DaemonSetControllerTest, OnePodPerMatchingNodePinnedByNodeAffinity) {
  AddNode("gpu-1", {{"pool", "gpu"}});
  AddNode("gpu-2", {{"pool", "gpu"}});
  AddNode("cpu-1", {{"pool", "cpu"}});
  controller_.Start();
  json ds = CreateDs(DaemonSet({{"nodeSelector", {{"pool", "gpu"}}}}));
  ASSERT_TRUE(Eventually([&] { return LivePods() == 2; }));
  auto by_node = PodsByNode();
  ASSERT_EQ(by_node.size(), 2u);
  for (const char* n : {"gpu-1", "gpu-2"}) {
    ASSERT_EQ(by_node[n].size(), 1u) << n;
    const json& p = by_node[n][0];
    EXPECT_EQ(p["metadata"]["name"].get<std::string>().rfind("agent-", 0), 0u);
    EXPECT_EQ(p["metadata"]["generateName"], "agent-");
    EXPECT_FALSE(p["spec"].contains("nodeName"));
    EXPECT_EQ(p["metadata"]["labels"]["app"], "agent");
    EXPECT_EQ(p["metadata"]["labels"]["pod-template-generation"], "1");
    EXPECT_TRUE(p["metadata"]["labels"].contains("controller-revision-hash"));
    const json& ref = p["metadata"]["ownerReferences"][0];
    EXPECT_EQ(ref["kind"], "DaemonSet");
    EXPECT_EQ(ref["uid"], ds["metadata"]["uid"]);
    EXPECT_EQ(ref["controller"], true);
    EXPECT_EQ(p["spec"]["tolerations"].size(), 6u);
  }
  ASSERT_TRUE(Eventually([&] {
    return StatusIs({{"desiredNumberScheduled", 2}, {"currentNumberScheduled", 2}, {"numberReady", 0},
                     {"numberUnavailable", 2}, {"numberMisscheduled", 0}, {"updatedNumberScheduled", 2},
                     {"observedGeneration", 1}});
  })) << Status().dump();
  EXPECT_EQ(recorder_.Count("DaemonSet Normal SuccessfulCreate Created pod: agent-"), 2);
  MakeAllReady();
  ASSERT_TRUE(Eventually([&] { return StatusIs({{"numberReady", 2}, {"numberAvailable", 2}}); }));
  EXPECT_FALSE(Status().contains("numberUnavailable"));
}

TEST_F(DaemonSetControllerTest, NodesAddedLaterGetTheirPodAndTaintsDecide) {
  AddNode("n1");
  controller_.Start();
  CreateDs(DaemonSet({{"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}}));
  ASSERT_TRUE(Eventually([&] { return LivePods() == 1; }));
  const json gpu = json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}});
  AddNode("gpu-new", json::object(), gpu);  // tolerated
  AddNode("tainted", json::object(),
          json::array({{{"key", "dedicated"}, {"value", "x"}, {"effect", "NoSchedule"}}}));  // not tolerated
  ASSERT_TRUE(Eventually([&] { return PodsByNode().count("gpu-new") == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(PodsByNode().count("tainted"), 0u);
  ASSERT_TRUE(Eventually([&] { return StatusIs({{"desiredNumberScheduled", 2}, {"currentNumberScheduled", 2}}); }))
      << Status().dump();
}

TEST_F(DaemonSetControllerTest, NodeThatStopsMatchingLosesItsPod) {
  AddNode("n1", {{"role", "agent"}});
  AddNode("n2", {{"role", "agent"}});
  controller_.Start();
  CreateDs(DaemonSet({{"nodeSelector", {{"role", "agent"}}}}));
  ASSERT_TRUE(Eventually([&] { return LivePods() == 2; }));
  ASSERT_TRUE(client_.Patch(ResourcePath("", "v1", "nodes", "", "n2"), client::PatchType::kMerge,
                            {{"metadata", {{"labels", {{"role", "other"}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return LivePods() == 1 && PodsByNode().count("n1") == 1; }));
  // The event follows the DELETE's answer: the pod can be seen gone a moment before it.
  EXPECT_TRUE(Eventually([&] {
    return recorder_.Count("DaemonSet Normal SuccessfulDelete Deleted pod: agent-") == 1;
  }));
  ASSERT_TRUE(Eventually([&] {
    return StatusIs({{"desiredNumberScheduled", 1}, {"currentNumberScheduled", 1}, {"numberMisscheduled", 0}});
  }));
}

TEST_F(DaemonSetControllerTest, RollingUpdateReplacesAtMostMaxUnavailableAtATime) {
  for (const char* n : {"n1", "n2", "n3"}) AddNode(n);
  controller_.Start();
  CreateDs(DaemonSet());
  ASSERT_TRUE(Eventually([&] { return LivePods() == 3; }));
  MakeAllReady();
  ASSERT_TRUE(Eventually([&] { return StatusIs({{"numberAvailable", 3}, {"updatedNumberScheduled", 3}}); }));
  ASSERT_TRUE(client_.Patch(DsPath(), client::PatchType::kMerge,
                            {{"spec", {{"template", {{"spec", {{"containers", json::array({{{"name", "c"}, {"image", "agent:2"}}})}}}}}}}})
                  .ok());
  // Each step: one old pod goes (maxUnavailable 1), its replacement comes, turns ready.
  for (int step = 1; step <= 3; ++step) {
    ASSERT_TRUE(Eventually([&] {
      int updated = 0, old_live = 0;
      for (const auto& [node, pods] : PodsByNode()) {
        for (const json& p : pods) {
          (p["spec"]["containers"][0]["image"] == "agent:2" ? updated : old_live)++;
        }
      }
      return updated == step && old_live == 3 - step;
    })) << "step " << step;
    // Never two nodes down at once.
    int unavailable = 0;
    for (const auto& [node, pods] : PodsByNode()) {
      bool ready = false;
      for (const json& p : pods) ready = ready || (p.contains("status") && p["status"].value("phase", "") == "Running");
      unavailable += ready ? 0 : 1;
    }
    EXPECT_LE(unavailable + (3 - static_cast<int>(PodsByNode().size())), 1);
    MakeAllReady();
  }
  ASSERT_TRUE(Eventually([&] {
    return StatusIs({{"updatedNumberScheduled", 3}, {"numberAvailable", 3}, {"observedGeneration", 2}});
  })) << Status().dump();
}

// kcm's constructHistory/cleanupHistory: a revision per template, renumbered when a template
// comes back, old ones beyond revisionHistoryLimit deleted unless a pod is at them.
TEST_F(DaemonSetControllerTest, KeepsItsTemplatesAsControllerRevisions) {
  AddNode("n1");
  controller_.Start();
  json ds = DaemonSet();
  ds["metadata"]["annotations"] = {{"kubernetes.io/change-cause", "first"}};
  CreateDs(ds);
  // name -> (revision, image, hash label)
  auto revisions = [&] {
    std::map<std::string, std::tuple<int64_t, std::string, std::string>> out;
    auto list = client_.List(ResourcePath("apps", "v1", "controllerrevisions", "default"));
    if (!list.ok()) return out;
    for (const json& cr : (*list)["items"]) {
      out[cr["metadata"]["name"]] = {
          cr["revision"].get<int64_t>(),
          cr["data"]["spec"]["template"]["spec"]["containers"][0]["image"],
          cr["metadata"]["labels"].value("controller-revision-hash", "")};
    }
    return out;
  };
  ASSERT_TRUE(Eventually([&] { return revisions().size() == 1 && LivePods() == 1; }));
  const auto initial = revisions();
  auto first = initial.begin();
  const std::string first_name = first->first;
  const std::string first_hash = std::get<2>(first->second);
  EXPECT_EQ(first_name, "agent-" + first_hash);
  EXPECT_EQ(std::get<0>(first->second), 1);
  auto cr = client_.Get(ResourcePath("apps", "v1", "controllerrevisions", "default", first_name));
  ASSERT_TRUE(cr.ok());
  EXPECT_EQ((*cr)["metadata"]["annotations"]["kubernetes.io/change-cause"], "first");
  EXPECT_EQ((*cr)["metadata"]["labels"]["app"], "agent");
  EXPECT_EQ((*cr)["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
  EXPECT_EQ((*cr)["data"]["spec"]["template"]["$patch"], "replace");
  EXPECT_EQ(PodsByNode()["n1"][0]["metadata"]["labels"]["controller-revision-hash"], first_hash);

  auto set_image = [&](const std::string& image) {
    ASSERT_TRUE(
        client_
            .Patch(DsPath(), client::PatchType::kMerge,
                   {{"spec",
                     {{"template",
                       {{"spec",
                         {{"containers", json::array({{{"name", "c"}, {"image", image}}})}}}}}}}})
            .ok());
  };
  set_image("agent:2");
  ASSERT_TRUE(Eventually([&] { return revisions().size() == 2; }));
  MakeAllReady();
  // Back to the first template: its revision becomes 3, and pods get its hash again.
  set_image("agent:1");
  ASSERT_TRUE(Eventually([&] { return std::get<0>(revisions()[first_name]) == 3; }));
  ASSERT_TRUE(Eventually([&] {
    MakeAllReady();
    auto pods = PodsByNode()["n1"];
    return pods.size() == 1 &&
           pods[0]["metadata"]["labels"]["controller-revision-hash"] == first_hash;
  }));
  // revisionHistoryLimit 0: the old revision no pod is at goes; the current stays.
  ASSERT_TRUE(
      client_.Patch(DsPath(), client::PatchType::kMerge, {{"spec", {{"revisionHistoryLimit", 0}}}})
          .ok());
  ASSERT_TRUE(Eventually([&] { return revisions().size() == 1; }));
  EXPECT_EQ(revisions().begin()->first, first_name);
}

TEST_F(DaemonSetControllerTest, RollingUpdateWithSurgeStartsTheNewPodBesideTheOld) {
  AddNode("n1");
  controller_.Start();
  CreateDs(DaemonSet(json::object(), {{"type", "RollingUpdate"},
                                      {"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", 0}}}}));
  ASSERT_TRUE(Eventually([&] { return LivePods() == 1; }));
  MakeAllReady();
  ASSERT_TRUE(Eventually([&] { return StatusIs({{"numberAvailable", 1}}); }));
  ASSERT_TRUE(client_.Patch(DsPath(), client::PatchType::kMerge,
                            {{"spec", {{"template", {{"spec", {{"containers", json::array({{{"name", "c"}, {"image", "agent:2"}}})}}}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return LivePods() == 2; }));  // surged: old and new
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(LivePods(), 2u);  // the old one waits for the new to be available
  MakeAllReady();
  ASSERT_TRUE(Eventually([&] {
    auto pods = PodsByNode()["n1"];
    return pods.size() == 1 && pods[0]["spec"]["containers"][0]["image"] == "agent:2";
  }));
}

TEST_F(DaemonSetControllerTest, OnDeleteLeavesOldPodsUntilDeleted) {
  AddNode("n1");
  controller_.Start();
  CreateDs(DaemonSet(json::object(), {{"type", "OnDelete"}}));
  ASSERT_TRUE(Eventually([&] { return LivePods() == 1; }));
  const std::string first = PodsByNode()["n1"][0]["metadata"]["name"];
  ASSERT_TRUE(client_.Patch(DsPath(), client::PatchType::kMerge,
                            {{"spec", {{"template", {{"spec", {{"containers", json::array({{{"name", "c"}, {"image", "agent:2"}}})}}}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return StatusIs({{"observedGeneration", 2}, {"updatedNumberScheduled", 0}}); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(PodsByNode()["n1"].size(), 1u);
  EXPECT_EQ(PodsByNode()["n1"][0]["metadata"]["name"], first);
  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "pods", "default", first)).ok());
  ASSERT_TRUE(Eventually([&] {
    auto pods = PodsByNode()["n1"];
    return pods.size() == 1 && pods[0]["spec"]["containers"][0]["image"] == "agent:2";
  }));
  ASSERT_TRUE(Eventually([&] { return StatusIs({{"updatedNumberScheduled", 1}}); }));
}

TEST_F(DaemonSetControllerTest, FailedPodIsKilledAndReplaced) {
  AddNode("n1");
  controller_.Start();
  CreateDs(DaemonSet());
  ASSERT_TRUE(Eventually([&] { return LivePods() == 1; }));
  const json pod = PodsByNode()["n1"][0];
  SetPhase(pod, "Failed", false);
  ASSERT_TRUE(Eventually([&] {
    auto pods = PodsByNode()["n1"];
    return pods.size() == 1 && pods[0]["metadata"]["name"] != pod["metadata"]["name"];
  }));
  EXPECT_EQ(recorder_.Count("DaemonSet Warning FailedDaemonPod Found failed daemon pod default/" +
                            pod["metadata"]["name"].get<std::string>() + " on node n1, will try to kill it"),
            1);
}

TEST_F(DaemonSetControllerTest, AdoptsAMatchingOrphan) {
  AddNode("n1");
  json orphan = {{"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata", {{"name", "stray"}, {"namespace", "default"}, {"labels", {{"app", "agent"}}}}},
                 {"spec", {{"nodeName", "n1"}, {"containers", json::array({{{"name", "c"}, {"image", "agent:1"}}})}}}};
  ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "pods", "default"), orphan).ok());
  controller_.Start();
  // OnDelete: the adopted pod (no revision labels, so not up to date) is kept as it is.
  json ds = CreateDs(DaemonSet(json::object(), {{"type", "OnDelete"}}));
  // (A pod made before the informer's handlers saw the orphan is the duplicate that goes: the
  // bound pod sorts first.)
  ASSERT_TRUE(Eventually([&] {
    return StatusIs({{"currentNumberScheduled", 1}, {"updatedNumberScheduled", 0}}) && LivePods() == 1;
  })) << Status().dump();
  auto stray = client_.Get(ResourcePath("", "v1", "pods", "default", "stray"));
  ASSERT_TRUE(stray.ok());
  EXPECT_EQ((*stray)["metadata"]["ownerReferences"][0]["uid"], ds["metadata"]["uid"]);
  EXPECT_FALSE((*stray)["metadata"].contains("deletionTimestamp"));  // adopted and kept
}

// The pods by node are kept up to date by the pods that change (NodePods): a relabelled pod is
// released and its node gets a new one; a pod pinned to a node that goes is deleted.
TEST_F(DaemonSetControllerTest, ReleasesAPodThatStopsMatchingAndFollowsNodesThatGo) {
  AddNode("n1");
  AddNode("n2");
  controller_.Start();
  json ds = CreateDs(DaemonSet());
  ASSERT_TRUE(Eventually([&] { return LivePods() == 2; }));
  const std::string relabelled = PodsByNode()["n1"][0]["metadata"]["name"];
  ASSERT_TRUE(client_
                  .Patch(ResourcePath("", "v1", "pods", "default", relabelled),
                         client::PatchType::kMerge, {{"metadata", {{"labels", {{"app", "mine"}}}}}})
                  .ok());
  // Released (no controller left) and replaced by a pod of the DaemonSet on n1.
  ASSERT_TRUE(Eventually([&] {
    auto p = client_.Get(ResourcePath("", "v1", "pods", "default", relabelled));
    if (!p.ok() || (*p)["metadata"].contains("ownerReferences")) return false;
    return PodsByNode()["n1"].size() == 2 && StatusIs({{"currentNumberScheduled", 2}});
  })) << Status().dump();
  // n2 goes: its pod (never bound) is deleted, and the status counts one node.
  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "nodes", "", "n2")).ok());
  ASSERT_TRUE(Eventually([&] {
    return PodsByNode()["n2"].empty() &&
           StatusIs({{"desiredNumberScheduled", 1}, {"currentNumberScheduled", 1}});
  })) << Status().dump();
}

// A DaemonSet deleted (its pods orphaned elsewhere: here kept, owned by the old uid) and made
// again under the same name counts only its own pods and makes one per node.
TEST_F(DaemonSetControllerTest, ADaemonSetMadeAgainUnderItsNameStartsAfresh) {
  AddNode("n1");
  controller_.Start();
  json first = CreateDs(DaemonSet());
  ASSERT_TRUE(Eventually([&] { return LivePods() == 1; }));
  ASSERT_TRUE(client_.Delete(DsPath()).ok());
  json second = CreateDs(DaemonSet());
  ASSERT_NE(first["metadata"]["uid"], second["metadata"]["uid"]);
  ASSERT_TRUE(Eventually([&] {
    size_t mine = 0;
    auto pods = PodsByNode();
    for (const json& p : pods["n1"]) {
      const json refs = p["metadata"].value("ownerReferences", json::array());
      mine += !refs.empty() && refs[0].value("uid", "") == second["metadata"]["uid"] ? 1 : 0;
    }
    return mine == 1 && StatusIs({{"currentNumberScheduled", 1}, {"desiredNumberScheduled", 1}});
  })) << Status().dump();
}

}  // namespace
}  // namespace tidepool::controllers::daemonset
