#include "autoscaler/core/scale_up.h"

#include <gtest/gtest.h>

#include "scheduler/scheduler.h"
#include "testing/builders.h"
#include "testing/autoscaler_fakes.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler {
namespace {

using testing::MakeNode;
using testing::MakePod;

using VectorRecorder = testing::RecordingEventRecorder;

api::Node T4Template() {
  return MakeNode("t")
      .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "1"}})
      .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
      .Label("app-type", "gpu-workloads")
      .Taint("nvidia.com/gpu", "present")
      .Obj();
}

api::Node CpuTemplate() {
  return MakeNode("c").Capacity({{"cpu", "4"}, {"memory", "16Gi"}}).Obj();
}

scheduler::PodInfoConstSharedPtr GpuPod(const std::string& name, bool tolerate = true) {
  auto b = MakePod(name).OwnedBy("ReplicaSet", "train").Req("nvidia.com/gpu", "1");
  if (tolerate) {
    b.Toleration("nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule);
  }
  return scheduler::MakePodInfo(b.Ptr());
}

class ScaleUpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = scheduler::Scheduler::Create();
    ASSERT_TRUE(s.ok());
    sched_ = std::move(*s);
    auto strategy = expander::NewStrategy(expander::ExpanderConfig{}, random_);
    ASSERT_TRUE(strategy.ok());
    strategy_ = std::move(*strategy);
    logger_.AddSink([this](std::string_view l) { log_.emplace_back(l); });
    logger_.SetVerbosity(2);
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(snapshot_.AddNode(MakeNode("default-pool-" + std::to_string(i))
                                        .Capacity({{"cpu", "4"}, {"memory", "16Gi"}})
                                        .Ptr())
                      .ok());
    }
  }

  ScaleUpResult Run(const std::vector<scheduler::PodInfoConstSharedPtr>& pods) {
    ScaleUpContext ctx;
    for (cloud::NodeGroup* g : cloud_.NodeGroups()) {
      ctx.templates[g->Id()] = *g->TemplateNode();
      if (auto it = template_pods_.find(g->Id()); it != template_pods_.end()) {
        ctx.template_pods[g->Id()] = it->second;
      }
    }
    for (const auto& [id, reason] : skipped_) {
      ctx.skipped_groups[id] = reason;
    }
    ctx.total_nodes = static_cast<int>(snapshot_.NumNodes());
    ScaleUpOrchestrator o(options_, cloud_, sched_->framework(), *strategy_, recorder_, logger_);
    return o.ScaleUp(SimulatedClock::kDefaultStart, pods, snapshot_, ctx);
  }

  bool Logged(const std::string& text) const {
    for (const auto& l : log_) {
      if (l.find(text) != std::string::npos) {
        return true;
      }
    }
    return false;
  }

  AutoscalingOptions options_;
  Random random_{1};
  SimulatedClock clock_;
  log::Logger logger_{"cluster-autoscaler", clock_, false};
  std::vector<std::string> log_;
  VectorRecorder recorder_;
  testing::FakeCloudProvider cloud_;
  std::map<std::string, std::string> skipped_;
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> template_pods_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::unique_ptr<expander::Strategy> strategy_;
  scheduler::ClusterSnapshot snapshot_;
};

TEST_F(ScaleUpTest, TheSeedPodScalesGpuPoolFromZeroToOne) {
  cloud_.AddGroup("default-pool", 3, 10, 3, CpuTemplate());
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 0, T4Template());
  ScaleUpResult r = Run({GpuPod("gpu-test-pod")});
  ASSERT_EQ(r.kind, ScaleUpResult::Kind::kSuccessful);
  EXPECT_EQ(gpu.increases, std::vector<int>{1});
  ASSERT_EQ(recorder_.events.size(), 3u);
  EXPECT_EQ(recorder_.events[0].reason, "ScaledUpGroup");
  EXPECT_EQ(recorder_.events[0].message,
            "Scale-up: setting group gpu-pool size to 1 instead of 0 (max: 5)");
  EXPECT_EQ(recorder_.events[1].message,
            "Scale-up: group gpu-pool size set to 1 instead of 0 (max: 5)");
  EXPECT_EQ(recorder_.events[2].object, "Pod/default/gpu-test-pod");
  EXPECT_EQ(recorder_.events[2].reason, "TriggeredScaleUp");
  EXPECT_EQ(recorder_.events[2].message, "pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]");
  EXPECT_TRUE(Logged("] Pod default/gpu-test-pod is unschedulable"));
  EXPECT_TRUE(Logged("] Best option to resize: gpu-pool"));
  EXPECT_TRUE(Logged("] Estimated 1 nodes needed in gpu-pool"));
  EXPECT_TRUE(Logged("] Final scale-up plan: [{gpu-pool 0->1 (max: 5)}]"));
  EXPECT_TRUE(Logged("] Scale-up: setting group gpu-pool size to 1 instead of 0 (max: 5)"));
  EXPECT_TRUE(Logged("] Pod default/gpu-test-pod can't be scheduled on default-pool, predicate "
                     "checking error: can't schedule pod default/gpu-test-pod: predicate "
                     "\"NodeResourcesFit\" didn't pass (predicateReasons=[Insufficient "
                     "nvidia.com/gpu]; debugInfo=)"));
  EXPECT_EQ(snapshot_.NumNodes(), 3u);  // reverted
}

api::Node LabelledCpuTemplate() {
  return MakeNode("c").Capacity({{"cpu", "4"}, {"memory", "16Gi"}}).Label("pool", "cpu").Obj();
}

// Four 1.5-CPU pods for the labelled pool (the default-pool nodes do not match).
std::vector<scheduler::PodInfoConstSharedPtr> FourPoolPods() {
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  for (int i = 0; i < 4; ++i) {
    pods.push_back(scheduler::MakePodInfo(MakePod("w-" + std::to_string(i))
                                              .OwnedBy("ReplicaSet", "w")
                                              .Req("cpu", "1500m")
                                              .NodeSelector("pool", "cpu")
                                              .Ptr()));
  }
  return pods;
}

// CA's template NodeInfo holds the DaemonSet pods a fresh node runs: their requests leave less
// room on each new node - two 1.5-CPU pods per 4-CPU node without one, one beside a 1.5-CPU
// DaemonSet pod.
TEST_F(ScaleUpTest, WithoutDaemonSetPodsTwoPodsShareANewNode) {
  testing::FakeNodeGroup& pool = cloud_.AddGroup("cpu-pool", 0, 10, 0, LabelledCpuTemplate());
  ScaleUpResult r = Run(FourPoolPods());
  ASSERT_EQ(r.kind, ScaleUpResult::Kind::kSuccessful);
  EXPECT_EQ(pool.increases, std::vector<int>{2});
}

TEST_F(ScaleUpTest, DaemonSetPodsOnTheTemplateTakeTheirShareOfEachNewNode) {
  testing::FakeNodeGroup& pool = cloud_.AddGroup("cpu-pool", 0, 10, 0, LabelledCpuTemplate());
  template_pods_["cpu-pool"] = {scheduler::MakePodInfo(
      MakePod("agent-pod").OwnedBy("DaemonSet", "agent").Req("cpu", "1500m").Ptr())};
  ScaleUpResult r = Run(FourPoolPods());
  ASSERT_EQ(r.kind, ScaleUpResult::Kind::kSuccessful);
  EXPECT_EQ(pool.increases, std::vector<int>{4});
}

// Scale-from-zero: a pod that fits the bare template does not fit next to the DaemonSet pod.
TEST_F(ScaleUpTest, APodThatOnlyFitsWithoutTheDaemonSetPodTriggersNothing) {
  cloud_.AddGroup("cpu-pool", 0, 10, 0, LabelledCpuTemplate());
  template_pods_["cpu-pool"] = {scheduler::MakePodInfo(
      MakePod("agent-pod").OwnedBy("DaemonSet", "agent").Req("cpu", "1").Ptr())};
  ScaleUpResult r = Run({scheduler::MakePodInfo(
      MakePod("big").OwnedBy("ReplicaSet", "big").Req("cpu", "3500m").NodeSelector("pool", "cpu").Ptr())});
  EXPECT_EQ(r.kind, ScaleUpResult::Kind::kNoOptionsAvailable);
  template_pods_.clear();
  r = Run({scheduler::MakePodInfo(
      MakePod("big").OwnedBy("ReplicaSet", "big").Req("cpu", "3500m").NodeSelector("pool", "cpu").Ptr())});
  EXPECT_EQ(r.kind, ScaleUpResult::Kind::kSuccessful);
}

TEST_F(ScaleUpTest, APodThatToleratesNothingTriggersNothingAndSaysWhy) {
  cloud_.AddGroup("default-pool", 3, 10, 3, CpuTemplate());
  cloud_.AddGroup("full-pool", 2, 2, 2, CpuTemplate());
  cloud_.AddGroup("gpu-pool", 0, 5, 0, T4Template());
  ScaleUpResult r = Run({GpuPod("no-toleration", /*tolerate=*/false)});
  EXPECT_EQ(r.kind, ScaleUpResult::Kind::kNoOptionsAvailable);
  ASSERT_EQ(recorder_.events.size(), 1u);
  EXPECT_EQ(recorder_.events[0].reason, "NotTriggerScaleUp");
  EXPECT_EQ(recorder_.events[0].message,
            "pod didn't trigger scale-up: 1 Insufficient nvidia.com/gpu, 1 max node group size "
            "reached, 1 node(s) had untolerated taint {nvidia.com/gpu: present}");
  EXPECT_TRUE(Logged("] No expansion options"));
}

TEST_F(ScaleUpTest, SixPodsOnAGroupOfFiveGetFiveNodes) {
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 0, T4Template());
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  for (int i = 0; i < 6; ++i) {
    pods.push_back(GpuPod("train-" + std::to_string(i)));
  }
  ScaleUpResult r = Run(pods);
  ASSERT_EQ(r.kind, ScaleUpResult::Kind::kSuccessful);
  EXPECT_EQ(gpu.increases, std::vector<int>{5});
  EXPECT_EQ(r.pods_triggered.size(), 5u);
  ASSERT_EQ(r.pods_remain_unschedulable.size(), 1u);
  // Next loop: the group is full; the sixth pod is told why.
  recorder_.events.clear();
  ScaleUpResult again = Run({r.pods_remain_unschedulable[0]});
  EXPECT_EQ(again.kind, ScaleUpResult::Kind::kNoOptionsAvailable);
  ASSERT_EQ(recorder_.events.size(), 1u);
  EXPECT_EQ(recorder_.events[0].message, "pod didn't trigger scale-up: 1 max node group size reached");
}

TEST_F(ScaleUpTest, BackoffAndLimitsAreReasons) {
  cloud_.AddGroup("gpu-pool", 0, 5, 0, T4Template());
  skipped_["gpu-pool"] = "in backoff after failed scale-up";
  Run({GpuPod("p")});
  ASSERT_EQ(recorder_.events.size(), 1u);
  EXPECT_EQ(recorder_.events[0].message,
            "pod didn't trigger scale-up: 1 in backoff after failed scale-up");
  skipped_.clear();
  recorder_.events.clear();
  options_.gpu_total["nvidia-tesla-t4"] = MinMax{0, 0};
  Run({GpuPod("p")});
  ASSERT_EQ(recorder_.events.size(), 1u);
  EXPECT_EQ(recorder_.events[0].message,
            "pod didn't trigger scale-up: 1 max cluster nvidia-tesla-t4 limit reached");
}

TEST_F(ScaleUpTest, MaxNodesTotalCapsTheIncrease) {
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 0, T4Template());
  options_.max_nodes_total = 5;  // 3 nodes exist
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  for (int i = 0; i < 4; ++i) {
    pods.push_back(GpuPod("train-" + std::to_string(i)));
  }
  ScaleUpResult r = Run(pods);
  ASSERT_EQ(r.kind, ScaleUpResult::Kind::kSuccessful);
  EXPECT_EQ(gpu.increases, std::vector<int>{2});
}

TEST_F(ScaleUpTest, ACloudRefusalIsReportedAndNothingIsTriggered) {
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 0, T4Template());
  gpu.fail_increase = ResourceExhaustedError("Quota 'NVIDIA_T4_GPUS' exceeded.  Limit: 0.0 in region us-central1.");
  ScaleUpResult r = Run({GpuPod("p")});
  EXPECT_EQ(r.kind, ScaleUpResult::Kind::kError);
  EXPECT_EQ(r.error.code(), StatusCode::kResourceExhausted);
  bool failed_event = false;
  for (const auto& e : recorder_.events) {
    failed_event |= e.reason == "FailedToScaleUpGroup" &&
                    e.message == "Scale-up failed for group gpu-pool: Quota 'NVIDIA_T4_GPUS' "
                                 "exceeded.  Limit: 0.0 in region us-central1.";
  }
  EXPECT_TRUE(failed_event);
}

}  // namespace
}  // namespace tidepool::autoscaler
