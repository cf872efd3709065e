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
    const std::string ns = resource == "nodes" ? "" : "default";
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

}  // namespace
}  // namespace tidepool::runtime
