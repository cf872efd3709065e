#include "autoscaler/scale_down/utilization.h"

#include <gtest/gtest.h>

#include "autoscaler/scale_down/go_format.h"
#include "testing/builders.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler::scaledown {
namespace {

using testing::MakeNode;
using testing::MakePod;

constexpr TimePoint kNow = SimulatedClock::kDefaultStart;

api::Node GpuNode(const std::string& gpus) {
  return MakeNode("g")
      .Capacity({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", gpus}})
      .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
      .Taint("nvidia.com/gpu", "present")
      .Obj();
}

api::Node CpuNode() { return MakeNode("c").Capacity({{"cpu", "4"}, {"memory", "16Gi"}}).Obj(); }

scheduler::PodInfoConstSharedPtr Pod(const std::string& name, const std::string& cpu,
                                     const std::string& mem, const std::string& gpu = "") {
  auto b = MakePod(name).OwnedBy("ReplicaSet", "rs").Req("cpu", cpu).Req("memory", mem);
  if (!gpu.empty()) {
    b.Req("nvidia.com/gpu", gpu);
  }
  return scheduler::MakePodInfo(b.Ptr());
}

scheduler::PodInfoConstSharedPtr DaemonSetPod(const std::string& name, const std::string& cpu) {
  return scheduler::MakePodInfo(
      MakePod(name).OwnedBy("DaemonSet", "ds").Req("cpu", cpu).Req("memory", "0").Ptr());
}

scheduler::PodInfoConstSharedPtr Terminating(const std::string& name, const std::string& cpu,
                                             Duration ago) {
  api::Pod p = MakePod(name).OwnedBy("ReplicaSet", "rs").Req("cpu", cpu).Obj();
  p.meta.deletion_timestamp = kNow - ago;
  return scheduler::MakePodInfo(std::make_shared<const api::Pod>(p));
}

scheduler::PodInfoConstSharedPtr TerminatingGpu(const std::string& name, Duration ago) {
  api::Pod p = MakePod(name).OwnedBy("ReplicaSet", "rs").Req("nvidia.com/gpu", "1").Obj();
  p.meta.deletion_timestamp = kNow - ago;
  return scheduler::MakePodInfo(std::make_shared<const api::Pod>(p));
}

scheduler::PodInfoConstSharedPtr Finished(const std::string& name, const std::string& cpu,
                                          api::PodPhase phase, const std::string& restart) {
  api::Pod p = MakePod(name).OwnedBy("ReplicaSet", "rs").Req("cpu", cpu).Obj();
  p.status.phase = phase;
  p.spec.restart_policy = restart;
  return scheduler::MakePodInfo(std::make_shared<const api::Pod>(p));
}

// Each case is measured on a node whose pods are all counted from the node's requested() when
// none is deleting or finished, and visited one by one otherwise; the cases cover both.
TEST(UtilizationTest, Calculate) {
  struct Case {
    std::string name;
    api::Node node;
    std::vector<scheduler::PodInfoConstSharedPtr> pods;
    Utilization want;
    bool gpu_unready = false;
  };
  std::vector<Case> cases = {
      {"gpu node: gpu alone counts, busy cpu ignored",
       GpuNode("1"),
       {Pod("a", "7", "30Gi")},
       {0, 0, 0, 0, "nvidia.com/gpu"}},
      {"gpu node with its gpu requested",
       GpuNode("2"),
       {Pod("a", "1", "1Gi", "1")},
       {0, 0, 0.5, 0.5, "nvidia.com/gpu"}},
      {"gpu driver not up: gpu measures 0",
       GpuNode("0"),
       {Pod("a", "7", "1Gi")},
       {0, 0, 0, 0, "nvidia.com/gpu"},
       true},
      {"cpu node: max of cpu and memory",
       CpuNode(),
       {Pod("a", "1", "2Gi"), Pod("b", "2", "2Gi")},
       {0.75, 0.25, 0, 0.75, "cpu"}},
      {"memory wins ties", CpuNode(), {Pod("a", "1", "4Gi")}, {0.25, 0.25, 0, 0.25, "memory"}},
      {"daemonset pods count (ignore-daemonsets-utilization=false)",
       CpuNode(),
       {DaemonSetPod("ds", "2")},
       {0.5, 0, 0, 0.5, "cpu"}},
      {"long-terminating pods do not count",
       CpuNode(),
       {Terminating("old", "2", std::chrono::minutes(2)), Terminating("new", "1", seconds(10))},
       {0.25, 0, 0, 0.25, "cpu"}},
      {"terminal pods do not count (Failed; Succeeded unless restartPolicy Always)",
       CpuNode(),
       {Finished("failed", "1", api::PodPhase::kFailed, "Always"),
        Finished("done", "1", api::PodPhase::kSucceeded, "Never"),
        Finished("restarting", "1", api::PodPhase::kSucceeded, "Always"), Pod("a", "1", "0")},
       {0.5, 0, 0, 0.5, "cpu"}},
      {"long-terminating gpu pods do not count",
       GpuNode("4"),
       {Pod("a", "1", "1Gi", "1"), TerminatingGpu("old", std::chrono::minutes(2)),
        TerminatingGpu("new", seconds(10))},
       {0, 0, 0.5, 0.5, "nvidia.com/gpu"}},
      {"empty node", CpuNode(), {}, {0, 0, 0, 0, "memory"}},
  };
  testing::FakeCloudProvider cloud;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    scheduler::ClusterSnapshot snapshot;
    ASSERT_TRUE(snapshot.AddNode(std::make_shared<const api::Node>(c.node)).ok());
    for (const auto& p : c.pods) {
      ASSERT_TRUE(snapshot.AddPod(p, c.node.meta.name).ok());
    }
    const scheduler::NodeInfo& ni = *snapshot.GetNodeInfo(c.node.meta.name);
    UtilizationResult r = CalculateUtilization(ni, NodeGpuConfig(cloud, c.node), kNow,
                                               std::chrono::seconds(30));
    EXPECT_DOUBLE_EQ(r.info.cpu, c.want.cpu);
    EXPECT_DOUBLE_EQ(r.info.memory, c.want.memory);
    EXPECT_DOUBLE_EQ(r.info.gpu, c.want.gpu);
    EXPECT_DOUBLE_EQ(r.info.value, c.want.value);
    EXPECT_EQ(r.info.resource, c.want.resource);
    EXPECT_EQ(r.gpu_unready, c.gpu_unready);
  }
}

TEST(UtilizationTest, GpuConfigFallsBackToAllocatable) {
  testing::FakeCloudProvider cloud;
  api::Node unlabelled =
      MakeNode("g").Capacity({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "1"}}).Obj();
  auto cfg = NodeGpuConfig(cloud, unlabelled);
  ASSERT_TRUE(cfg.has_value());
  EXPECT_EQ(cfg->resource_name, "nvidia.com/gpu");
  EXPECT_FALSE(GpuNotReady(unlabelled, cfg));
  EXPECT_FALSE(NodeGpuConfig(cloud, CpuNode()).has_value());
  EXPECT_TRUE(GpuNotReady(GpuNode("0"), NodeGpuConfig(cloud, GpuNode("0"))));
}

TEST(UtilizationTest, FormatsAsCaPrintsInfoWithPercentV) {
  EXPECT_EQ(FormatUtilization({0.75, 0.25, 0, 0.75, "cpu"}), "{0.75 0.25 0 0 cpu 0.75}");
  EXPECT_EQ(FormatUtilization({0, 0, 0.5, 0.5, "nvidia.com/gpu"}),
            "{0 0 0.5 0 nvidia.com/gpu 0.5}");
  EXPECT_EQ(FormatUtilization({1.0 / 3, 0.125, 0, 1.0 / 3, "cpu"}),
            "{0.3333333333333333 0.125 0 0 cpu 0.3333333333333333}");
}

TEST(GoFormatTest, Duration) {
  struct Case {
    Duration d;
    std::string want;
  };
  std::vector<Case> cases = {
      {Duration::zero(), "0s"},
      {std::chrono::minutes(10), "10m0s"},
      {std::chrono::minutes(10) + seconds(10), "10m10s"},
      {std::chrono::hours(1), "1h0m0s"},
      {std::chrono::hours(25) + seconds(1), "25h0m1s"},
      {std::chrono::milliseconds(1500), "1.5s"},
      {std::chrono::milliseconds(250), "250ms"},
      {std::chrono::microseconds(1500), "1.5ms"},
      {std::chrono::nanoseconds(42), "42ns"},
      {std::chrono::microseconds(2), "2\u00b5s"},
      {-std::chrono::seconds(3), "-3s"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.want);
    EXPECT_EQ(GoDuration(c.d), c.want);
  }
}

TEST(GoFormatTest, FloatAndPrecision) {
  struct Case {
    double v;
    std::string want;
  };
  std::vector<Case> cases = {
      {0, "0"},
      {0.5, "0.5"},
      {1, "1"},
      {0.1, "0.1"},
      {1.0 / 3, "0.3333333333333333"},
      {1e-05, "1e-05"},
      {0.0001, "0.0001"},
      {123456, "123456"},
      {1e6, "1e+06"},
      {1234567, "1.234567e+06"},
      {-0.25, "-0.25"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.want);
    EXPECT_EQ(GoFloat(c.v), c.want);
  }
  EXPECT_EQ(GoPrecision6(12.5), "12.5");
  EXPECT_EQ(GoPrecision6(100.0 / 3), "33.3333");
  EXPECT_EQ(GoPrecision6(50), "50");
  EXPECT_EQ(GoPrecision6(0), "0");
  EXPECT_EQ(GoQuote("node-1"), "\"node-1\"");
  EXPECT_EQ(GoTime(SimulatedClock::kDefaultStart + std::chrono::minutes(5)),
            "2026-01-01 00:05:00 +0000 UTC");
  EXPECT_EQ(GoTime(SimulatedClock::kDefaultStart + std::chrono::milliseconds(1500)),
            "2026-01-01 00:00:01.5 +0000 UTC");
}

}  // namespace
}  // namespace tidepool::autoscaler::scaledown
