#include "runtime/kube_scheduler.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "runtime/kube_objects_for_test.h"
#include "scheduler/plugins/packing/packing.h"

namespace tidepool::runtime {
namespace {

using client::ResourcePath;
using nlohmann::json;

using testing::GpuPod;
using testing::Node;

class KubeSchedulerTest : public ::testing::Test {
 protected:
  KubeSchedulerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_, "kube-scheduler/v1.32.4")) {
    auto s = scheduler::Scheduler::Create();
    EXPECT_TRUE(s.ok());
    scheduler_ = std::move(s).value();
    kube_scheduler_ = std::make_unique<KubeScheduler>(client_, api_.clock(), *scheduler_,
                                                      scheduler::SchedulingQueueOptions{}, nullptr, 1);
  }
  ~KubeSchedulerTest() override { kube_scheduler_->Stop(); }

  void Create(const std::string& resource, const json& obj) {
    const std::string ns = resource == "nodes" || resource == "persistentvolumes" ? "" : "default";
    auto r = client_.Create(ResourcePath("", "v1", resource, ns), obj);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Pod(const std::string& name) {
    auto p = client_.Get(ResourcePath("", "v1", "pods", "default", name));
    return p.ok() ? *p : json::object();
  }
  static std::string NodeOf(const json& pod) {
    return pod.contains("spec") ? pod["spec"].value("nodeName", "") : "";
  }
  static json Condition(const json& pod, const std::string& type) {
    if (!pod.contains("status") || !pod["status"].contains("conditions")) return json::object();
    for (const json& c : pod["status"]["conditions"]) {
      if (c.value("type", "") == type) return c;
    }
    return json::object();
  }
  // "<reason> <involved name>: <message>" of every event in default, with its source.
  std::vector<std::string> Events() {
    std::vector<std::string> out;
    auto list = client_.List(ResourcePath("", "v1", "events", "default"));
    if (!list.ok()) return out;
    for (const json& e : (*list)["items"]) {
      out.push_back(e["source"].value("component", "") + " " + e.value("reason", "") + " " +
                    e["involvedObject"].value("name", "") + ": " + e.value("message", ""));
    }
    return out;
  }
  bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  bool HasEvent(const std::string& text) {
    return Eventually([&] {
      for (const std::string& e : Events()) {
        if (e == text) return true;
      }
      return false;
    });
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<KubeScheduler> kube_scheduler_;
};

TEST_F(KubeSchedulerTest, BindsAPodThroughTheBindingSubresourceAndSaysSo) {
  Create("nodes", Node("n1", "1"));
  Create("pods", GpuPod("p"));
  kube_scheduler_->Start();
  ASSERT_TRUE(Eventually([&] { return NodeOf(Pod("p")) == "n1"; }));
  // kube-apiserver's binding also marks the pod scheduled.
  EXPECT_EQ(Condition(Pod("p"), "PodScheduled").value("status", ""), "True");
  EXPECT_TRUE(HasEvent("default-scheduler Scheduled p: Successfully assigned default/p to n1"));
}

TEST_F(KubeSchedulerTest, AnUnschedulablePodGetsTheConditionAndTheEventThenANewNode) {
  Create("nodes", Node("n1", "1"));
  kube_scheduler_->Start();
  Create("pods", GpuPod("p"));
  ASSERT_TRUE(Eventually([&] { return NodeOf(Pod("p")) == "n1"; }));
  Create("pods", GpuPod("q"));
  const std::string message =
      "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are "
      "available: 1 No preemption victims found for incoming pod.";
  ASSERT_TRUE(Eventually([&] { return Condition(Pod("q"), "PodScheduled").value("reason", "") == "Unschedulable"; }));
  const json cond = Condition(Pod("q"), "PodScheduled");
  EXPECT_EQ(cond.value("status", ""), "False");
  EXPECT_EQ(cond.value("message", ""), message);
  EXPECT_TRUE(cond.contains("lastTransitionTime"));
  EXPECT_TRUE(HasEvent("default-scheduler FailedScheduling q: " + message));
  // A node created through the API (as KWOK's or a user's) is a node to schedule onto.
  Create("nodes", Node("n2", "1"));
  EXPECT_TRUE(Eventually([&] { return NodeOf(Pod("q")) == "n2"; }));
}

TEST_F(KubeSchedulerTest, PodsOfAnotherSchedulerAreLeftAlone) {
  Create("nodes", Node("n1", "1"));
  Create("pods", GpuPod("mine", "my-scheduler"));
  Create("pods", GpuPod("p"));
  kube_scheduler_->Start();
  ASSERT_TRUE(Eventually([&] { return NodeOf(Pod("p")) == "n1"; }));
  EXPECT_EQ(NodeOf(Pod("mine")), "");
  EXPECT_TRUE(Condition(Pod("mine"), "PodScheduled").empty());
}

TEST_F(KubeSchedulerTest, PodsAlreadyOnANodeCountAgainstIt) {
  Create("nodes", Node("n1", "1"));
  json bound = GpuPod("early");
  bound["spec"]["nodeName"] = "n1";
  Create("pods", bound);
  Create("pods", GpuPod("p"));
  kube_scheduler_->Start();
  ASSERT_TRUE(Eventually([&] { return Condition(Pod("p"), "PodScheduled").value("reason", "") == "Unschedulable"; }));
  EXPECT_EQ(NodeOf(Pod("p")), "");
}

}  // namespace
}  // namespace tidepool::runtime

namespace tidepool::runtime {
namespace {

// With a packing policy's profile, the Binding carries the GPUs Reserve chose, and the API
// server copies them onto the pod: shares of one GPU stack on the fullest GPU that fits.
TEST_F(KubeSchedulerTest, APackingProfileBindsSharesToTheirGpu) {
  kube_scheduler_->Stop();
  auto profile = scheduler::plugins::PackingProfile("BestFit", {});
  ASSERT_TRUE(profile.ok());
  auto s = scheduler::Scheduler::Create(*profile);
  ASSERT_TRUE(s.ok());
  scheduler_ = std::move(s).value();
  kube_scheduler_ = std::make_unique<KubeScheduler>(
      client_, api_.clock(), *scheduler_, scheduler::SchedulingQueueOptions{}, nullptr, 1);
  json node = Node("n1", "2");
  node["status"]["capacity"]["alibabacloud.com/gpu-milli"] = "2000";
  node["status"]["allocatable"]["alibabacloud.com/gpu-milli"] = "2000";
  Create("nodes", node);
  auto share = [](const std::string& name, const std::string& milli) {
    json p = GpuPod(name);
    json& res = p["spec"]["containers"][0]["resources"];
    res = {{"requests", {{"alibabacloud.com/gpu-milli", milli}}},
           {"limits", {{"alibabacloud.com/gpu-milli", milli}}}};
    return p;
  };
  Create("pods", share("a", "300"));
  kube_scheduler_->Start();
  ASSERT_TRUE(Eventually([&] { return NodeOf(Pod("a")) == "n1"; }));
  EXPECT_EQ(Pod("a")["metadata"]["annotations"].value("alibabacloud.com/gpu-index", ""), "0");
  Create("pods", share("b", "500"));
  ASSERT_TRUE(Eventually([&] { return NodeOf(Pod("b")) == "n1"; }));
  EXPECT_EQ(Pod("b")["metadata"]["annotations"].value("alibabacloud.com/gpu-index", ""), "0");
  Create("pods", share("c", "500"));
  ASSERT_TRUE(Eventually([&] { return NodeOf(Pod("c")) == "n1"; }));
  EXPECT_EQ(Pod("c")["metadata"]["annotations"].value("alibabacloud.com/gpu-index", ""), "1");
}

// VolumeBinding's PreBind: a WaitForFirstConsumer claim gets the node, and the pod is bound
// only once the claim is (here the test plays kcm's PV controller); a provisioner that gives
// up (the annotation removed) sends the pod back with kube-scheduler's error.
class KubeSchedulerVolumeTest : public KubeSchedulerTest {
 protected:
  void StartWithVolumes() {
    NewScheduler();
    CreateClass("wffc", "pd.csi.storage.gke.io");
    Create("persistentvolumeclaims", ClaimObject("data", "wffc"));
    Create("nodes", Node("n1", "1"));
    json pod = GpuPod("p");
    pod["spec"]["volumes"] = {{{"name", "d"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}};
    Create("pods", pod);
    kube_scheduler_->Start();
  }
  void NewScheduler() {
    kube_scheduler_->Stop();
    auto volumes = std::make_shared<scheduler::VolumeCache>();
    scheduler::SchedulingQueueOptions options;
    options.profile.args.volumes = volumes;
    options.volume_bind_poll = std::chrono::milliseconds(20);
    auto s = scheduler::Scheduler::Create(options.profile);
    ASSERT_TRUE(s.ok());
    scheduler_ = std::move(s).value();
    kube_scheduler_ = std::make_unique<KubeScheduler>(client_, api_.clock(), *scheduler_, options,
                                                      nullptr, 1, nullptr, nullptr, volumes);
  }
  void CreateClass(const std::string& name, const std::string& provisioner) {
    auto sc = client_.Create(ResourcePath("storage.k8s.io", "v1", "storageclasses", ""),
                             {{"apiVersion", "storage.k8s.io/v1"},
                              {"kind", "StorageClass"},
                              {"metadata", {{"name", name}}},
                              {"provisioner", provisioner},
                              {"volumeBindingMode", "WaitForFirstConsumer"}});
    ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  }
  static json ClaimObject(const std::string& name, const std::string& sc) {
    return {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"storageClassName", sc},
              {"accessModes", {"ReadWriteOnce"}},
              {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  }
  json Claim() {
    auto c = client_.Get(ResourcePath("", "v1", "persistentvolumeclaims", "default", "data"));
    return c.ok() ? *c : json::object();
  }
  static std::string SelectedNode(const json& claim) {
    const json& a = claim["metadata"].value("annotations", json::object());
    return a.value("volume.kubernetes.io/selected-node", "");
  }
};

TEST_F(KubeSchedulerVolumeTest, APodIsBoundOnlyOnceItsClaimIs) {
  StartWithVolumes();
  ASSERT_TRUE(Eventually([&] { return SelectedNode(Claim()) == "n1"; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // ten polls
  EXPECT_EQ(NodeOf(Pod("p")), "");
  const json claim = Claim();
  Create("persistentvolumes",
         {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata", {{"name", "pv-1"}}},
          {"spec",
           {{"storageClassName", "wffc"},
            {"accessModes", {"ReadWriteOnce"}},
            {"capacity", {{"storage", "1Gi"}}},
            {"csi", {{"driver", "pd.csi.storage.gke.io"}, {"volumeHandle", "h"}}},
            {"claimRef",
             {{"namespace", "default"}, {"name", "data"}, {"uid", claim["metadata"]["uid"]}}}}}});
  json bound = claim;
  bound["spec"]["volumeName"] = "pv-1";
  bound["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes";
  auto r =
      client_.Update(ResourcePath("", "v1", "persistentvolumeclaims", "default", "data"), bound);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(Eventually([&] { return NodeOf(Pod("p")) == "n1"; }));
  EXPECT_TRUE(HasEvent("default-scheduler Scheduled p: Successfully assigned default/p to n1"));
}

TEST_F(KubeSchedulerVolumeTest, AProvisionerThatGivesUpSendsThePodBack) {
  StartWithVolumes();
  ASSERT_TRUE(Eventually([&] { return SelectedNode(Claim()) == "n1"; }));
  auto r = client_.Patch(
      ResourcePath("", "v1", "persistentvolumeclaims", "default", "data"),
      client::PatchType::kMerge,
      {{"metadata",
        {{"annotations", {{"volume.kubernetes.io/selected-node", nullptr}, {"other", "x"}}}}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string message =
      "running PreBind plugin \"VolumeBinding\": binding volumes: provisioning failed for PVC "
      "\"data\"";
  EXPECT_TRUE(HasEvent("default-scheduler FailedScheduling p: " + message));
  ASSERT_TRUE(Eventually(
      [&] { return Condition(Pod("p"), "PodScheduled").value("reason", "") == "SchedulerError"; }));
  EXPECT_EQ(Condition(Pod("p"), "PodScheduled").value("message", ""), message);
  EXPECT_EQ(NodeOf(Pod("p")), "");
  // Tried again after its backoff: the claim is given the node again.
  EXPECT_TRUE(Eventually([&] { return SelectedNode(Claim()) == "n1"; }));
}

// Two pods of one cycle, one local volume: the first pod's volume is kept as the API answered
// the scheduler's write (the assume cache), so the second pod does not take it too.
TEST_F(KubeSchedulerVolumeTest, AVolumeChosenForOnePodIsNotChosenForTheNext) {
  NewScheduler();
  CreateClass("local", "kubernetes.io/no-provisioner");
  Create("persistentvolumes", {{"apiVersion", "v1"},
                               {"kind", "PersistentVolume"},
                               {"metadata", {{"name", "local-pv"}}},
                               {"spec",
                                {{"storageClassName", "local"},
                                 {"accessModes", {"ReadWriteOnce"}},
                                 {"capacity", {{"storage", "5Gi"}}},
                                 {"local", {{"path", "/mnt/disks/ssd1"}}},
                                 {"nodeAffinity",
                                  {{"required",
                                    {{"nodeSelectorTerms",
                                      {{{"matchExpressions",
                                         {{{"key", "kubernetes.io/hostname"},
                                           {"operator", "In"},
                                           {"values", {"n1"}}}}}}}}}}}}}}});
  // Available, as kcm's PV controller would make it.
  auto pv = client_.Get(ResourcePath("", "v1", "persistentvolumes", "", "local-pv"));
  ASSERT_TRUE(pv.ok());
  (*pv)["status"] = {{"phase", "Available"}};
  ASSERT_TRUE(
      client_.Update(ResourcePath("", "v1", "persistentvolumes", "", "local-pv") + "/status", *pv)
          .ok());
  Create("nodes", Node("n1", "2"));
  for (const std::string name : {"a", "b"}) {
    Create("persistentvolumeclaims", ClaimObject(name, "local"));
    json pod = GpuPod("p" + name);
    pod["spec"]["volumes"] = {{{"name", "d"}, {"persistentVolumeClaim", {{"claimName", name}}}}};
    Create("pods", pod);
  }
  kube_scheduler_->Start();
  const std::string message =
      "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. "
      "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
  ASSERT_TRUE(Eventually([&] {
    return Condition(Pod("pb"), "PodScheduled").value("message", "") == message;
  })) << Condition(Pod("pb"), "PodScheduled").dump();
  pv = client_.Get(ResourcePath("", "v1", "persistentvolumes", "", "local-pv"));
  ASSERT_TRUE(pv.ok());
  ASSERT_TRUE((*pv)["spec"].contains("claimRef")) << pv->dump();
  EXPECT_EQ((*pv)["spec"]["claimRef"].value("name", ""), "a");
}

}  // namespace
}  // namespace tidepool::runtime
