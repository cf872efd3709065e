#include "controllers/statefulset/statefulset_controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "controllers/history/controller_history.h"

namespace tidepool::controllers::statefulset {
namespace {

using client::ResourcePath;
using nlohmann::json;

TEST(OrdinalOfTest, ParsesKcmsPattern) {
  struct Case {
    const char* pod;
    const char* set;
    int want;
  };
  for (const Case& c : std::initializer_list<Case>{{"web-0", "web", 0},
                                                   {"web-12", "web", 12},
                                                   {"my-web-3", "my-web", 3},
                                                   {"my-web-3", "web", -1},
                                                   {"web-", "web", -1},
                                                   {"web-x", "web", -1},
                                                   {"web-1-2", "web", -1},
                                                   {"web0", "web", -1},
                                                   {"other-1", "web", -1}}) {
    EXPECT_EQ(OrdinalOf(c.pod, c.set), c.want) << c.pod << " of " << c.set;
  }
}

class Recorder : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& o, std::string_view, std::string_view reason,
             std::string message) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (o.kind == "StatefulSet") events_.push_back(std::string(reason) + ": " + message);
  }
  std::vector<std::string> events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

// The controller against the real API server; a "kubelet" thread makes pods Running and Ready
// (lastTransitionTime now) while `kubelet_` is on.
class StatefulSetControllerTest : public ::testing::Test {
 protected:
  StatefulSetControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(), cluster::InProcessRestOptions(transport_)),
        controller_(client_, api_.clock(), {}, &recorder_) {
    controller_.Start();
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
  ~StatefulSetControllerTest() override {
    stop_ = true;
    kubelet_thread_.join();
    controller_.Stop();
  }

  void MakePodsReady() {
    auto list = client_.List(ResourcePath("", "v1", "pods", "default"));
    if (!list.ok()) return;
    for (const json& p : (*list)["items"]) {
      const std::string phase = p.contains("status") ? p["status"].value("phase", "") : "";
      if (phase == "Running" || phase == "Failed" || phase == "Succeeded") continue;
      SetPhase(p["metadata"]["name"], "Running", true);
    }
  }
  void SetPhase(const std::string& pod, const std::string& phase, bool ready) {
    json st = {{"status", {{"phase", phase},
                           {"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"},
                                                        {"lastTransitionTime", FormatRfc3339(api_.clock().Now())}}})}}}};
    (void)client_.Patch(ResourcePath("", "v1", "pods", "default", pod, "status"), client::PatchType::kMerge, st);
  }

  static json Set(int replicas, const std::string& image, json extra = json::object()) {
    json set = {{"apiVersion", "apps/v1"},
                {"kind", "StatefulSet"},
                {"metadata", {{"name", "web"}, {"namespace", "default"}}},
                {"spec",
                 {{"replicas", replicas},
                  {"serviceName", "nginx"},
                  {"selector", {{"matchLabels", {{"app", "web"}}}}},
                  {"template",
                   {{"metadata", {{"labels", {{"app", "web"}}}}},
                    {"spec", {{"containers", json::array({{{"name", "c"}, {"image", image}}})}}}}}}}};
    set["spec"].merge_patch(extra);
    return set;
  }
  void Create(const json& set) {
    ASSERT_TRUE(client_.Create(ResourcePath("apps", "v1", "statefulsets", "default"), set).ok());
  }
  void PatchSpec(const json& spec) {
    ASSERT_TRUE(client_.Patch(ResourcePath("apps", "v1", "statefulsets", "default", "web"),
                              client::PatchType::kMerge, {{"spec", spec}})
                    .ok());
  }
  static json Image(const std::string& image) {
    return {{"template", {{"spec", {{"containers", json::array({{{"name", "c"}, {"image", image}}})}}}}}};
  }
  json Get() {
    auto d = client_.Get(ResourcePath("apps", "v1", "statefulsets", "default", "web"));
    json out = d.ok() ? *d : json::object();
    if (!out.contains("status")) out["status"] = json::object();
    return out;
  }
  std::map<std::string, json> Pods() {
    std::map<std::string, json> out;
    auto list = client_.List(ResourcePath("", "v1", "pods", "default"));
    if (list.ok()) {
      for (json& p : (*list)["items"]) {
        const std::string name = p["metadata"]["name"];
        out[name] = std::move(p);
      }
    }
    return out;
  }
  std::vector<std::string> PodNames() {
    std::vector<std::string> out;
    for (const auto& [name, p] : Pods()) out.push_back(name);
    return out;
  }
  std::map<std::string, std::string> Images() {
    std::map<std::string, std::string> out;
    for (const auto& [name, p] : Pods()) out[name] = p["spec"]["containers"][0]["image"];
    return out;
  }
  bool Eventually(const std::function<bool()>& pred, int tries = 1500) {
    for (int i = 0; i < tries; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  bool Settled(int replicas) {
    const json st = Get()["status"];
    return st.value("readyReplicas", 0) == replicas && st.value("replicas", -1) == replicas &&
           st.value("updatedReplicas", 0) == replicas &&
           st.value("currentRevision", "") == st.value("updateRevision", "x");
  }
  std::vector<std::string> EventsWith(const std::string& prefix) {
    std::vector<std::string> out;
    for (const std::string& e : recorder_.events()) {
      if (e.rfind(prefix, 0) == 0) out.push_back(e);
    }
    return out;
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  Recorder recorder_;
  StatefulSetController controller_;
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

TEST_F(StatefulSetControllerTest, OrderedReadyMakesOnePodAtATimeWithItsIdentity) {
  SetKubelet(false);
  Create(Set(3, "nginx"));
  ASSERT_TRUE(Eventually([&] { return PodNames().size() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(PodNames(), std::vector<std::string>{"web-0"});  // web-1 waits for web-0
  json pod = Pods()["web-0"];
  const json set = Get();
  EXPECT_EQ(pod["metadata"]["labels"]["app"], "web");
  EXPECT_EQ(pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"], "web-0");
  EXPECT_EQ(pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"], "0");
  EXPECT_EQ(pod["metadata"]["labels"]["controller-revision-hash"], set["status"]["updateRevision"]);
  EXPECT_EQ(pod["spec"]["hostname"], "web-0");
  EXPECT_EQ(pod["spec"]["subdomain"], "nginx");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], set["metadata"]["uid"]);
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["blockOwnerDeletion"], true);
  const std::string rev = set["status"]["updateRevision"];
  EXPECT_EQ(rev.rfind("web-", 0), 0u) << rev;
  EXPECT_EQ(set["status"]["currentRevision"], rev);
  EXPECT_EQ(set["status"]["replicas"], 1);
  EXPECT_EQ(set["status"]["availableReplicas"], 0);
  EXPECT_EQ(set["status"]["collisionCount"], 0);
  EXPECT_EQ(set["status"]["observedGeneration"], 1);

  SetKubelet(true);
  ASSERT_TRUE(Eventually([&] { return Settled(3); }));
  const json st = Get()["status"];
  EXPECT_EQ(st["currentReplicas"], 3);
  EXPECT_EQ(st["availableReplicas"], 3);
  EXPECT_EQ(EventsWith("SuccessfulCreate"),
            (std::vector<std::string>{"SuccessfulCreate: create Pod web-0 in StatefulSet web successful",
                                      "SuccessfulCreate: create Pod web-1 in StatefulSet web successful",
                                      "SuccessfulCreate: create Pod web-2 in StatefulSet web successful"}));
}

TEST_F(StatefulSetControllerTest, OrderedReadyScalesDownFromTheHighestOrdinal) {
  Create(Set(3, "nginx"));
  ASSERT_TRUE(Eventually([&] { return Settled(3); }));
  PatchSpec({{"replicas", 1}});
  ASSERT_TRUE(Eventually([&] { return PodNames().size() == 1 && Settled(1); }));
  EXPECT_EQ(PodNames(), std::vector<std::string>{"web-0"});
  EXPECT_EQ(EventsWith("SuccessfulDelete"),
            (std::vector<std::string>{"SuccessfulDelete: delete Pod web-2 in StatefulSet web successful",
                                      "SuccessfulDelete: delete Pod web-1 in StatefulSet web successful"}));
}

TEST_F(StatefulSetControllerTest, OrderedReadyScaleDownWaitsForUnhealthyPods) {
  Create(Set(3, "nginx"));
  ASSERT_TRUE(Eventually([&] { return Settled(3); }));
  SetKubelet(false);
  SetPhase("web-0", "Running", false);  // web-0 not Ready: no condemned pod may go
  ASSERT_TRUE(Eventually([&] { return Get()["status"].value("readyReplicas", 0) == 2; }));
  PatchSpec({{"replicas", 1}});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(PodNames().size(), 3u);
  EXPECT_TRUE(EventsWith("SuccessfulDelete").empty());
  SetPhase("web-0", "Running", true);
  ASSERT_TRUE(Eventually([&] { return PodNames().size() == 1; }));
}

TEST_F(StatefulSetControllerTest, ParallelMakesAndDeletesAllAtOnce) {
  SetKubelet(false);
  Create(Set(4, "nginx", {{"podManagementPolicy", "Parallel"}}));
  ASSERT_TRUE(Eventually([&] { return PodNames().size() == 4; }));
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"web-0", "web-1", "web-2", "web-3"}));
  EXPECT_EQ(Get()["status"].value("readyReplicas", 0), 0);
  PatchSpec({{"replicas", 1}});  // no pod is Ready; Parallel deletes anyway
  ASSERT_TRUE(Eventually([&] { return PodNames().size() == 1; }));
  SetKubelet(true);
  ASSERT_TRUE(Eventually([&] { return Settled(1); }));
}

TEST_F(StatefulSetControllerTest, RollingUpdateWithPartitionUpdatesHighOrdinalsFirst) {
  Create(Set(3, "nginx"));
  ASSERT_TRUE(Eventually([&] { return Settled(3); }));
  const std::string rev1 = Get()["status"]["currentRevision"];
  json spec = Image("nginx:2");
  spec["updateStrategy"] = {{"type", "RollingUpdate"}, {"rollingUpdate", {{"partition", 1}}}};
  PatchSpec(spec);
  ASSERT_TRUE(Eventually([&] {
    const json st = Get()["status"];
    return st.value("observedGeneration", 0) == 2 && st.value("updatedReplicas", 0) == 2 &&
           st.value("readyReplicas", 0) == 3;
  }));
  EXPECT_EQ(Images(), (std::map<std::string, std::string>{{"web-0", "nginx"}, {"web-1", "nginx:2"}, {"web-2", "nginx:2"}}));
  json st = Get()["status"];
  EXPECT_EQ(st["currentRevision"], rev1);
  EXPECT_NE(st["updateRevision"], rev1);
  EXPECT_EQ(st["currentReplicas"], 1);
  EXPECT_EQ(EventsWith("SuccessfulDelete"),
            (std::vector<std::string>{"SuccessfulDelete: delete Pod web-2 in StatefulSet web successful",
                                      "SuccessfulDelete: delete Pod web-1 in StatefulSet web successful"}));
  // A pod below the partition made again keeps the current revision.
  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "pods", "default", "web-0")).ok());
  ASSERT_TRUE(Eventually([&] { return Get()["status"].value("readyReplicas", 0) == 3 && Pods().count("web-0"); }));
  EXPECT_EQ(Images()["web-0"], "nginx");
  EXPECT_EQ(Pods()["web-0"]["metadata"]["labels"]["controller-revision-hash"], rev1);
  // Partition 0: the rest, then the update revision becomes the current one.
  PatchSpec({{"updateStrategy", {{"rollingUpdate", {{"partition", 0}}}}}});
  ASSERT_TRUE(Eventually([&] { return Settled(3); }));
  EXPECT_EQ(Images()["web-0"], "nginx:2");
  st = Get()["status"];
  EXPECT_EQ(st["currentReplicas"], 3);
  EXPECT_NE(st["currentRevision"], rev1);
}

// kcm's getStatefulSetRevisions: one ControllerRevision per template, named for the hash of its
// data; a template that comes back renumbers its revision (a rollback); truncateHistory keeps
// revisionHistoryLimit old ones.
TEST_F(StatefulSetControllerTest, KeepsItsTemplatesAsControllerRevisions) {
  Create(Set(1, "nginx", {{"revisionHistoryLimit", 1}}));
  ASSERT_TRUE(Eventually([&] { return Settled(1); }));
  auto revisions = [&] {
    std::map<std::string, json> out;  // name -> revision
    auto list = client_.List(ResourcePath("apps", "v1", "controllerrevisions", "default"));
    if (list.ok()) {
      for (const json& cr : (*list)["items"]) out[cr["metadata"]["name"]] = cr;
    }
    return out;
  };
  const std::string rev1 = Get()["status"]["updateRevision"];
  json cr1 = revisions()[rev1];
  ASSERT_TRUE(cr1.is_object());
  const std::string hash = history::HashRevision(cr1["data"], 0);
  EXPECT_EQ(rev1, "web-" + hash);
  EXPECT_EQ(cr1["metadata"]["labels"][history::kHashLabel], hash);
  EXPECT_EQ(cr1["data"], history::TemplatePatch(Get()));
  EXPECT_EQ(cr1["revision"], 1);
  EXPECT_EQ(Pods()["web-0"]["metadata"]["labels"]["controller-revision-hash"], rev1);

  // Settled on the new revision: the status is written after the pods, so a pod with the new
  // image can be seen beside the old revision's settled status.
  auto settled_on = [&](const std::string& image, auto&& revision_ok) {
    return Eventually([&] {
      const json st = Get()["status"];
      return Settled(1) && Images()["web-0"] == image &&
             revision_ok(st.value("updateRevision", "")) &&
             st.value("currentRevision", "") == st.value("updateRevision", "x");
    });
  };
  PatchSpec(Image("nginx:2"));
  ASSERT_TRUE(settled_on("nginx:2", [&](const std::string& r) { return r != rev1; }));
  const std::string rev2 = Get()["status"]["updateRevision"];
  EXPECT_NE(rev2, rev1);
  EXPECT_EQ(revisions()[rev2]["revision"], 2);
  // Back: the first revision is renumbered 3 and is the update revision again.
  PatchSpec(Image("nginx"));
  ASSERT_TRUE(settled_on("nginx", [&](const std::string& r) { return r == rev1; }));
  EXPECT_EQ(Get()["status"]["updateRevision"], rev1);
  EXPECT_EQ(Get()["status"]["currentRevision"], rev1);
  EXPECT_EQ(revisions()[rev1]["revision"], 3);
  EXPECT_EQ(revisions().size(), 2u);
  // A third template: of the two old revisions no pod is at, the oldest (rev2, revision 2) goes.
  PatchSpec(Image("nginx:3"));
  ASSERT_TRUE(settled_on("nginx:3", [&](const std::string& r) { return r != rev1 && r != rev2; }));
  const std::string rev3 = Get()["status"]["updateRevision"];
  ASSERT_TRUE(Eventually([&] { return revisions().size() == 2; }));
  EXPECT_TRUE(revisions().count(rev1));
  EXPECT_TRUE(revisions().count(rev3));
  EXPECT_EQ(revisions()[rev3]["revision"], 4);
}

TEST_F(StatefulSetControllerTest, OnDeleteChangesPodsOnlyWhenDeleted) {
  Create(Set(2, "nginx", {{"updateStrategy", {{"type", "OnDelete"}}}}));
  ASSERT_TRUE(Eventually([&] { return Settled(2); }));
  PatchSpec(Image("nginx:2"));
  ASSERT_TRUE(Eventually([&] { return Get()["status"].value("observedGeneration", 0) == 2; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Images(), (std::map<std::string, std::string>{{"web-0", "nginx"}, {"web-1", "nginx"}}));
  EXPECT_EQ(Get()["status"].value("updatedReplicas", 0), 0);
  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "pods", "default", "web-1")).ok());
  ASSERT_TRUE(Eventually([&] { return Get()["status"].value("updatedReplicas", 0) == 1 && Images()["web-1"] == "nginx:2"; }));
  EXPECT_EQ(Images()["web-0"], "nginx");
}

TEST_F(StatefulSetControllerTest, FailedPodsAreMadeAgain) {
  Create(Set(2, "nginx"));
  ASSERT_TRUE(Eventually([&] { return Settled(2); }));
  const std::string uid = Pods()["web-1"]["metadata"]["uid"];
  SetPhase("web-1", "Failed", false);
  ASSERT_TRUE(Eventually([&] {
    auto pods = Pods();
    return pods.count("web-1") && pods["web-1"]["metadata"]["uid"] != uid && Settled(2);
  }));
  EXPECT_EQ(EventsWith("SuccessfulDelete"),
            std::vector<std::string>{"SuccessfulDelete: delete Pod web-1 in StatefulSet web successful"});
}

TEST_F(StatefulSetControllerTest, OrdinalsStart) {
  Create(Set(2, "nginx", {{"ordinals", {{"start", 5}}}}));
  ASSERT_TRUE(Eventually([&] { return Settled(2); }));
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"web-5", "web-6"}));
  EXPECT_EQ(Pods()["web-6"]["metadata"]["labels"]["apps.kubernetes.io/pod-index"], "6");
}

TEST_F(StatefulSetControllerTest, MinReadySecondsHoldsTheNextOrdinal) {
  Create(Set(2, "nginx", {{"minReadySeconds", 1}}));
  bool saw_ready_unavailable = false;
  ASSERT_TRUE(Eventually(
      [&] {
        const json status = Get()["status"];
        const int available = status.value("availableReplicas", 0);
        if (available == 0 && status.value("readyReplicas", 0) == 1) saw_ready_unavailable = true;
        return available == 2;
      },
      4000));
  EXPECT_TRUE(saw_ready_unavailable) << "web-0 was never seen ready and not yet available";
  ASSERT_EQ(PodNames().size(), 2u);
  // Whatever the machine's load, by the objects' own times (whole seconds): web-1 was created
  // no earlier than web-0's Ready transition + minReadySeconds. (Watching the status instead
  // races the controller, which creates web-1 before it writes availableReplicas 1.)
  const json web0 = Pods()["web-0"];
  const json web1 = Pods()["web-1"];
  StatusOr<TimePoint> ready = InvalidArgumentError("web-0 has no Ready condition");
  for (const json& c : web0["status"]["conditions"]) {
    if (c.value("type", "") == "Ready") ready = ParseRfc3339(c.value("lastTransitionTime", ""));
  }
  const StatusOr<TimePoint> created = ParseRfc3339(web1["metadata"].value("creationTimestamp", ""));
  ASSERT_TRUE(ready.ok() && created.ok());
  EXPECT_GE(*created, *ready + std::chrono::seconds(1))
      << "web-1 was created before web-0 had been ready for minReadySeconds";
}

TEST_F(StatefulSetControllerTest, VolumeClaimTemplatesAndRetentionPolicy) {
  json extra = {{"volumeClaimTemplates",
                 json::array({{{"metadata", {{"name", "data"}}},
                               {"spec", {{"accessModes", json::array({"ReadWriteOnce"})},
                                         {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})},
                {"persistentVolumeClaimRetentionPolicy", {{"whenDeleted", "Delete"}, {"whenScaled", "Delete"}}}};
  Create(Set(2, "nginx", extra));
  ASSERT_TRUE(Eventually([&] { return Settled(2); }));
  const std::string set_uid = Get()["metadata"]["uid"];
  for (const char* n : {"0", "1"}) {
    auto claim = client_.Get(ResourcePath("", "v1", "persistentvolumeclaims", "default", std::string("data-web-") + n));
    ASSERT_TRUE(claim.ok()) << n;
    EXPECT_EQ((*claim)["metadata"]["labels"]["app"], "web");
    EXPECT_EQ((*claim)["metadata"]["ownerReferences"][0]["uid"], set_uid);
    EXPECT_EQ((*claim)["spec"]["resources"]["requests"]["storage"], "1Gi");
    json pod = Pods()[std::string("web-") + n];
    EXPECT_EQ(pod["spec"]["volumes"][0]["name"], "data");
    EXPECT_EQ(pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], std::string("data-web-") + n);
  }
  EXPECT_EQ(EventsWith("SuccessfulCreate")[0], "SuccessfulCreate: create Claim data-web-0 Pod web-0 in StatefulSet web success");
  const std::string pod_uid = Pods()["web-1"]["metadata"]["uid"];
  PatchSpec({{"replicas", 1}});
  ASSERT_TRUE(Eventually([&] { return PodNames().size() == 1; }));
  auto claim = client_.Get(ResourcePath("", "v1", "persistentvolumeclaims", "default", "data-web-1"));
  // No garbage collector here: the claim stays, owned by the deleted pod alone (kcm's
  // updateClaimOwnerRefForSetAndPod for a scaled-down pod with both policies Delete).
  ASSERT_TRUE(claim.ok());
  ASSERT_EQ((*claim)["metadata"]["ownerReferences"].size(), 1u);
  EXPECT_EQ((*claim)["metadata"]["ownerReferences"][0]["kind"], "Pod");
  EXPECT_EQ((*claim)["metadata"]["ownerReferences"][0]["uid"], pod_uid);
  EXPECT_EQ((*claim)["metadata"]["ownerReferences"][0]["controller"], true);
  auto kept = client_.Get(ResourcePath("", "v1", "persistentvolumeclaims", "default", "data-web-0"));
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
  EXPECT_EQ((*kept)["metadata"]["ownerReferences"][0]["controller"], true);
}

TEST_F(StatefulSetControllerTest, AdoptsMatchingOrphans) {
  json orphan = {{"apiVersion", "v1"}, {"kind", "Pod"},
                 {"metadata", {{"name", "web-0"}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
                 {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
  ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "pods", "default"), orphan).ok());
  Create(Set(1, "nginx"));
  // Adopted (not made again: no FailedCreate), then rolled to the set's revision, which it
  // lacked.
  ASSERT_TRUE(Eventually([&] { return Settled(1); }));
  EXPECT_EQ(Pods()["web-0"]["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
  EXPECT_TRUE(EventsWith("FailedCreate").empty());
  EXPECT_EQ(EventsWith("SuccessfulDelete"),
            std::vector<std::string>{"SuccessfulDelete: delete Pod web-0 in StatefulSet web successful"});
}

}  // namespace
}  // namespace tidepool::controllers::statefulset
