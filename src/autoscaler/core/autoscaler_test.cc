#include "autoscaler/core/autoscaler.h"

#include <gtest/gtest.h>

#include "testing/builders.h"
#include "testing/autoscaler_fakes.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;

api::Node GpuTemplate(const std::string& accel = "nvidia-tesla-t4") {
  return MakeNode("t")
      .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "1"}})
      .Label("cloud.google.com/gke-accelerator", accel)
      .Taint("nvidia.com/gpu", "present")
      .Obj();
}

class AutoscalerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.scale_down_enabled = true;
    logger_.AddSink([this](std::string_view l) { log_.emplace_back(l); });
    logger_.SetVerbosity(4);
    for (int i = 0; i < 3; ++i) {
      AddNode(MakeNode("default-pool-" + std::to_string(i))
                  .Capacity({{"cpu", "4"}, {"memory", "16Gi"}})
                  .Obj());
    }
  }

  void AddNode(api::Node n) {
    n.meta.creation_timestamp = SimulatedClock::kDefaultStart - std::chrono::hours(1);
    view_.nodes.push_back(std::make_shared<const api::Node>(std::move(n)));
  }

  // A pod the scheduler has marked unschedulable, created `age` before now.
  void AddPendingGpuPod(const std::string& name, Duration age, const std::string& gpus = "1") {
    api::Pod p = MakePod(name)
                     .OwnedBy("ReplicaSet", "train")
                     .Req("nvidia.com/gpu", gpus)
                     .Toleration("nvidia.com/gpu", "present")
                     .Obj();
    p.meta.creation_timestamp = clock_.Now() - age;
    p.status.conditions.push_back(api::PodCondition{"PodScheduled", api::ConditionStatus::kFalse,
                                                    "Unschedulable", "0/3 nodes are available",
                                                    {}, {}});
    view_.pending_pods.push_back(scheduler::MakePodInfo(std::make_shared<const api::Pod>(p)));
  }

  std::unique_ptr<Autoscaler> Make() {
    auto a = Autoscaler::Create(options_, cloud_, writer_, fakes_, logger_, random_);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return std::move(*a);
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
  SimulatedClock clock_;
  Random random_{7};
  log::Logger logger_{"cluster-autoscaler", clock_, false};
  std::vector<std::string> log_;
  testing::RecordingEventRecorder fakes_;
  testing::FakeClusterWriter writer_;
  testing::FakeCloudProvider cloud_;
  ClusterView view_;
};

TEST_F(AutoscalerTest, ThePendingGpuPodScalesUpOnceAndWaitsForTheUpcomingNode) {
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
  AddPendingGpuPod("gpu-test-pod", minutes(1));
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_EQ(gpu.increases, std::vector<int>{1});
  EXPECT_TRUE(fakes_.Has("TriggeredScaleUp", "pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]"));
  // Ten seconds later the instance is still booting: it is upcoming capacity; no second node.
  clock_.Advance(seconds(10));
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_EQ(gpu.increases, std::vector<int>{1});
  EXPECT_TRUE(Logged("] Upcoming 1 nodes"));
  EXPECT_NE(a->StatusYaml().find("cloudProviderTarget: 1"), std::string::npos) << a->StatusYaml();
  // Cluster-wide counts include the nodes of no autoscaled group (the three default-pool nodes).
  EXPECT_NE(a->StatusYaml().find("clusterWide:\n  health:\n    status: Healthy\n    nodeCounts:\n"
                                 "      registered:\n        total: 3\n        ready: 3\n"),
            std::string::npos)
      << a->StatusYaml();
}

TEST_F(AutoscalerTest, AFreshAutoscalerCountsAnInstanceItDidNotAskForAsUpcoming) {
  // A restart (tidepool up --data-dir, or tidepool autoscale killed after its scale-up): the
  // group's target is 1 and its instance is still being created; the new process must not ask
  // for a second node for the same pod (CA's GetUpcomingNodes counts it too).
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 1, GpuTemplate());
  AddPendingGpuPod("gpu-test-pod", minutes(1));
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_TRUE(gpu.increases.empty());
  EXPECT_TRUE(Logged("] Upcoming 1 nodes"));
}

TEST_F(AutoscalerTest, AReadyGpuNodeInstallingItsDriverNeverTriggersAnotherScaleUp) {
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 1, GpuTemplate());
  api::Node booting = GpuTemplate();
  booting.meta.name = "gpu-pool-node-0";
  booting.meta.labels["cloud.google.com/gke-nodepool"] = "gpu-pool";
  booting.status.allocatable.erase("nvidia.com/gpu");  // driver not installed yet
  booting.status.capacity.erase("nvidia.com/gpu");
  AddNode(booting);
  AddPendingGpuPod("gpu-test-pod", minutes(1));
  auto a = Make();
  // Even long after the node's start-up window, and with no scale-up of ours in flight.
  clock_.Advance(minutes(30));
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_TRUE(gpu.increases.empty());
  EXPECT_NE(a->StatusYaml().find("resourceUnready: 1"), std::string::npos) << a->StatusYaml();
}

TEST_F(AutoscalerTest, UpcomingCapacityGoesToTheLargestPodsFirst) {
  // One 4-GPU node and one 1-GPU node on their way (the scale-ups for these very pods). A 1-GPU
  // pod listed first must not be counted onto the 4-GPU node, which would leave the 4-GPU pod
  // "unschedulable" and scale up a second 4-GPU node (what CA 1.31 does: pods in their order,
  // first node that fits).
  api::Node big_template = GpuTemplate();
  big_template.status.capacity["nvidia.com/gpu"] = testing::Q("4");
  big_template.status.allocatable["nvidia.com/gpu"] = testing::Q("4");
  testing::FakeNodeGroup& big = cloud_.AddGroup("big", 0, 5, 1, big_template);
  testing::FakeNodeGroup& small = cloud_.AddGroup("small", 0, 5, 1, GpuTemplate());
  AddPendingGpuPod("a-one", minutes(1));
  AddPendingGpuPod("c-four", minutes(1), "4");
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_TRUE(Logged("] Upcoming 2 nodes"));
  EXPECT_TRUE(big.increases.empty());
  EXPECT_TRUE(small.increases.empty());
  EXPECT_TRUE(Logged("No unschedulable pods"));
}

TEST_F(AutoscalerTest, AStockoutFallsBackToTheNextGroupAtOnce) {
  testing::FakeNodeGroup& a_pool = cloud_.AddGroup("a-t4-pool", 0, 5, 0, GpuTemplate());
  testing::FakeNodeGroup& b_pool = cloud_.AddGroup("b-l4-pool", 0, 5, 0, GpuTemplate("nvidia-l4"));
  options_.expander = "priority,least-waste";
  AddPendingGpuPod("gpu-test-pod", minutes(1));
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  testing::FakeNodeGroup& first = a_pool.increases.empty() ? b_pool : a_pool;
  testing::FakeNodeGroup& second = a_pool.increases.empty() ? a_pool : b_pool;
  ASSERT_EQ(first.increases, std::vector<int>{1});
  // The cloud reports the instance failed: ZONE_RESOURCE_POOL_EXHAUSTED, 20 s later.
  first.instances_[0].error = cloud::InstanceErrorInfo{
      cloud::InstanceErrorInfo::Class::kOutOfResources, "ZONE_RESOURCE_POOL_EXHAUSTED",
      "The zone does not have enough resources available to fulfill the request."};
  clock_.Advance(seconds(20));
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_TRUE(fakes_.Has("ScaleUpFailed",
                         "Failed adding 1 nodes to group " + first.Id() +
                             " due to OutOfResource.ZONE_RESOURCE_POOL_EXHAUSTED; source errors: "
                             "The zone does not have enough resources available to fulfill the "
                             "request."));
  EXPECT_EQ(first.deleted, std::vector<std::string>{"fake://" + first.Id() + "/0"});
  EXPECT_EQ(second.increases, std::vector<int>{1});  // in the same loop, no 15-minute wait
  EXPECT_NE(a->StatusYaml().find("errorCode: OutOfResource.ZONE_RESOURCE_POOL_EXHAUSTED"),
            std::string::npos);
}

TEST_F(AutoscalerTest, VeryNewGpuPodsWaitForMoreLikeCA) {
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
  AddPendingGpuPod("just-created", seconds(10));
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_TRUE(gpu.increases.empty());
  EXPECT_TRUE(Logged("] Unschedulable pods are very new, waiting one iteration for more"));
  clock_.Advance(seconds(21));
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_EQ(gpu.increases, std::vector<int>{1});
}

// Autoscaler::SettledUntil / SkipOnce: what lets the simulator skip loops whose inputs did not
// change.
TEST_F(AutoscalerTest, WhenALoopIsSettled) {
  struct Case {
    std::string name;
    int verbosity;
    std::string pending_gpus;  // "" : no pending pod
    bool want;
  };
  for (const Case& c : std::vector<Case>{
           {"an idle cluster", 0, "", true},
           {"a pod a group can take is scaled up for", 0, "1", false},
           {"a pod no group can take is told so every loop", 0, "2", true},
           {"a verbose loop logs", 4, "", false},
       }) {
    SCOPED_TRACE(c.name);
    testing::FakeCloudProvider cloud;  // each case its own
    view_.pending_pods.clear();
    logger_.SetVerbosity(c.verbosity);
    cloud.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
    if (!c.pending_gpus.empty()) AddPendingGpuPod("p", minutes(1), c.pending_gpus);
    auto a = Autoscaler::Create(options_, cloud, writer_, fakes_, logger_, random_);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*a)->RunOnce(clock_.Now(), view_).ok());
    EXPECT_EQ((*a)->SettledUntil().has_value(), c.want);
  }
}

TEST_F(AutoscalerTest, ASkippedLoopSaysAgainWhatTheLoopSaid) {
  logger_.SetVerbosity(0);
  cloud_.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
  AddPendingGpuPod("too-big", minutes(1), "2");
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  ASSERT_TRUE(a->SettledUntil().has_value());
  const std::vector<testing::RecordedEvent> first = fakes_.events;
  ASSERT_EQ(fakes_.Count("NotTriggerScaleUp"), 1);
  const std::string yaml = a->StatusYaml();
  clock_.Advance(seconds(10));
  a->SkipOnce(clock_.Now());
  ASSERT_EQ(fakes_.events.size(), 2 * first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(fakes_.events[first.size() + i].reason, first[i].reason);
    EXPECT_EQ(fakes_.events[first.size() + i].message, first[i].message);
  }
  // The loop it stands for: the same events again, the same status.
  clock_.Advance(seconds(10));
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_EQ(fakes_.Count("NotTriggerScaleUp"), 3);
  EXPECT_EQ(fakes_.events.back().message, first.back().message);
  EXPECT_EQ(a->StatusYaml().substr(a->StatusYaml().find('\n')), yaml.substr(yaml.find('\n')));
}

TEST_F(AutoscalerTest, APodThatFoundNoPlaceIsLookedAtAgainWhenTheClusterChanges) {
  // FilterOutSchedulable keeps its answer only while the snapshot and the pods are the same.
  cloud_.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
  AddPendingGpuPod("two-gpus", minutes(1), "2");
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  ASSERT_TRUE(a->RunOnce(clock_.Now() + seconds(10), view_).ok());
  EXPECT_EQ(fakes_.Count("NotTriggerScaleUp"), 2);
  // A node with room for it joins: the pod fits there, nothing is said of it.
  AddNode(MakeNode("big")
              .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "2"}})
              .Taint("nvidia.com/gpu", "present")
              .Obj());
  ASSERT_TRUE(a->RunOnce(clock_.Now() + seconds(20), view_).ok());
  EXPECT_EQ(fakes_.Count("NotTriggerScaleUp"), 2);
}

// CA's snapshot holds no expendable pod (priority under --expendable-pods-priority-cutoff): the
// GPU a filler pod holds counts as free, so the pending pod fits there (the scheduler preempts
// the filler) and nothing scales up; a pod of priority 0 in its place takes the GPU.
TEST_F(AutoscalerTest, AnExpendablePodsGpuCountsAsFree) {
  for (int32_t priority : {-20, 0}) {
    SCOPED_TRACE(priority);
    testing::FakeCloudProvider cloud;
    testing::FakeNodeGroup& gpu = cloud.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
    view_ = ClusterView();
    AddNode(MakeNode("big")
                .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "1"}})
                .Taint("nvidia.com/gpu", "present")
                .Obj());
    api::Pod filler = MakePod("filler")
                          .OwnedBy("ReplicaSet", "filler")
                          .Req("nvidia.com/gpu", "1")
                          .Toleration("nvidia.com/gpu", "present")
                          .Obj();
    filler.spec.priority = priority;
    filler.spec.node_name = "big";
    filler.status.phase = api::PodPhase::kRunning;
    view_.scheduled_pods.push_back(
        scheduler::MakePodInfo(std::make_shared<const api::Pod>(filler)));
    AddPendingGpuPod("gpu-test-pod", minutes(1));
    auto a = Autoscaler::Create(options_, cloud, writer_, fakes_, logger_, random_);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*a)->RunOnce(clock_.Now(), view_).ok());
    EXPECT_EQ(gpu.increases, priority < 0 ? std::vector<int>{} : std::vector<int>{1});
  }
}

TEST_F(AutoscalerTest, ANodeThatNeverRegistersTimesOutAndIsReverted) {
  testing::FakeNodeGroup& gpu = cloud_.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
  AddPendingGpuPod("gpu-test-pod", minutes(1));
  auto a = Make();
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  ASSERT_EQ(gpu.increases, std::vector<int>{1});
  clock_.Advance(minutes(15));
  ASSERT_TRUE(a->RunOnce(clock_.Now(), view_).ok());
  EXPECT_TRUE(Logged("] Scale-up timed out for node group gpu-pool after 15m0s"));
  EXPECT_TRUE(fakes_.Has("ScaleUpTimedOut", "Nodes added to group gpu-pool failed to register within 15m0s"));
  EXPECT_EQ(gpu.decreases, std::vector<int>{-1});
  EXPECT_EQ(*gpu.TargetSize(), 0);
  // Backed off: the pod is told so, and no new request is made.
  EXPECT_EQ(gpu.increases.size(), 1u);
  EXPECT_TRUE(fakes_.Has("NotTriggerScaleUp",
                         "pod didn't trigger scale-up: 1 in backoff after failed scale-up"));
}

}  // namespace
}  // namespace tidepool::autoscaler
