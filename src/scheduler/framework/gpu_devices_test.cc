// File: gpu_devices_test.cc
//
// GPUs as devices (gpu_devices.h): a pod's demand from its requests, the gpu-index annotation's
// syntax, which GPUs a demand takes, and the NodeInfo / snapshot side: free milli per GPU from
// the pods given GPUs and the others, exact under Fork/Revert, and buckets that split on the
// devices' multiset but not on their order.
#include "scheduler/framework/gpu_devices.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "scheduler/snapshot/cluster_snapshot.h"
#include "testing/builders.h"

namespace tidepool::scheduler {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;

TEST(GpuDevicesTest, DemandOfRequest) {
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, int64_t>> scalars;
    GpuDemand want;
  };
  const std::vector<Case> cases = {
      {"no GPU", {}, {0, 0}},
      {"two whole GPUs", {{kGpuResource, 2}}, {2, 1000}},
      {"a share", {{kGpuMilliResource, 460}}, {1, 460}},
      {"milli of a whole GPU", {{kGpuMilliResource, 1000}}, {1, 1000}},
      {"milli above one GPU rounds up to whole GPUs", {{kGpuMilliResource, 1500}}, {2, 1000}},
      {"whole GPUs win over milli", {{kGpuResource, 1}, {kGpuMilliResource, 300}}, {1, 1000}},
      {"more GPUs than a node tracks never fit", {{kGpuResource, 100}}, {33, 1000}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Resource r;
    for (const auto& [n, v] : c.scalars) r.SetScalar(n, v);
    EXPECT_EQ(GpuDemandOf(r), c.want);
  }
  EXPECT_TRUE((GpuDemand{1, 460}).shared());
  EXPECT_FALSE((GpuDemand{1, 1000}).shared());
  EXPECT_EQ((GpuDemand{3, 1000}).total_milli(), 3000);
}

TEST(GpuDevicesTest, IndexAnnotation) {
  struct Case {
    std::string text;
    std::optional<uint32_t> want;
  };
  const std::vector<Case> cases = {
      {"0", 0b1},           {"2", 0b100},         {"0-1-2-3", 0b1111},
      {"3-1", 0b1010},      {"31", 1u << 31},     {"", std::nullopt},
      {"32", std::nullopt}, {"-1", std::nullopt}, {"1--2", std::nullopt},
      {"1-", std::nullopt}, {"a", std::nullopt},  {"1-1", std::nullopt},
      {" 1", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("\"" + c.text + "\"");
    EXPECT_EQ(ParseGpuIndex(c.text), c.want);
  }
  EXPECT_EQ(FormatGpuIndex(0b1010), "1-3");
  EXPECT_EQ(FormatGpuIndex(0b1), "0");
  EXPECT_EQ(FormatGpuIndex(0), "");
}

TEST(GpuDevicesTest, ChooseGpus) {
  struct Case {
    std::string name;
    std::vector<int32_t> left;
    GpuDemand demand;
    GpuSelection selection;
    uint64_t draw;
    uint32_t want;
  };
  const std::vector<Case> cases = {
      {"whole: the first fully free",
       {500, 1000, 1000, 1000},
       {2, 1000},
       GpuSelection::kBest,
       0,
       0b0110},
      {"whole: not enough free", {500, 1000, 999}, {2, 1000}, GpuSelection::kBest, 0, 0},
      {"share best: least left that fits",
       {1000, 300, 600, 500},
       {1, 500},
       GpuSelection::kBest,
       0,
       0b1000},
      {"share best: lowest index on ties", {600, 600}, {1, 500}, GpuSelection::kBest, 0, 0b01},
      {"share: none fits", {400, 300}, {1, 500}, GpuSelection::kBest, 0, 0},
      {"share random: the draw-th fitting GPU",
       {1000, 300, 600, 500},
       {1, 500},
       GpuSelection::kRandom,
       1,
       0b0100},
      {"share random: the draw wraps",
       {1000, 300, 600, 500},
       {1, 500},
       GpuSelection::kRandom,
       5,
       0b1000},
      {"no demand takes nothing", {1000}, {0, 0}, GpuSelection::kBest, 0, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ChooseGpus(c.left, c.demand, c.selection, c.draw), c.want);
    EXPECT_EQ(GpusFit(c.left, c.demand), !c.demand.any() || c.want != 0);
  }
}

api::Pod GpuPod(const std::string& name, const std::string& resource, const std::string& amount,
                const std::string& index = "") {
  api::Pod p = MakePod(name).Container({{"cpu", "1"}, {resource, amount}}).Obj();
  if (!index.empty()) p.meta.annotations[kGpuIndexAnnotation] = index;
  return p;
}

class GpuNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* n : {"a", "b"}) {
      ASSERT_TRUE(snapshot_
                      .AddNode(MakeNode(n)
                                   .Capacity({{"cpu", "32"},
                                              {"memory", "64Gi"},
                                              {"pods", "110"},
                                              {kGpuResource, "4"},
                                              {kGpuMilliResource, "4000"}})
                                   .Obj())
                      .ok());
    }
  }
  Status Add(const api::Pod& pod, const std::string& node) {
    return snapshot_.AddPod(MakePodInfo(pod), node);
  }
  std::vector<int32_t> Left(const std::string& node) {
    return snapshot_.GetNodeInfo(node)->gpu_left();
  }
  size_t Buckets() {
    size_t n = 0;
    snapshot_.ForEachClass([&](const NodeClass& c) { n += c.buckets().size(); });
    return n;
  }
  ClusterSnapshot snapshot_;
};

TEST_F(GpuNodeTest, PodsGivenGpusTakeThoseAndOthersTakeWhatFits) {
  EXPECT_EQ(Left("a"), (std::vector<int32_t>{1000, 1000, 1000, 1000}));
  ASSERT_TRUE(Add(GpuPod("s1", kGpuMilliResource, "300", "2"), "a").ok());
  EXPECT_EQ(Left("a"), (std::vector<int32_t>{1000, 1000, 700, 1000}));
  // Without an index: whole GPUs on the first fully free, a share on the fullest that fits.
  ASSERT_TRUE(Add(GpuPod("w1", kGpuResource, "1"), "a").ok());
  EXPECT_EQ(Left("a"), (std::vector<int32_t>{0, 1000, 700, 1000}));
  ASSERT_TRUE(Add(GpuPod("s2", kGpuMilliResource, "500"), "a").ok());
  EXPECT_EQ(Left("a"), (std::vector<int32_t>{0, 1000, 200, 1000}));
  // The class keeps no index: two pods differing only in it share a class.
  EXPECT_EQ(MakePodInfo(GpuPod("x", kGpuMilliResource, "300", "1"))->pod_class(),
            MakePodInfo(GpuPod("y", kGpuMilliResource, "300", "3"))->pod_class());
  EXPECT_EQ(MakePodInfo(GpuPod("x", kGpuMilliResource, "300", "1"))->gpu_indices(), 0b10u);
  EXPECT_EQ(MakePodInfo(GpuPod("x", kGpuMilliResource, "300", "1"))
                ->ToPod()
                .meta.annotations.at(kGpuIndexAnnotation),
            "1");
}

TEST_F(GpuNodeTest, ForkRevertRestoresTheDevices) {
  ASSERT_TRUE(Add(GpuPod("s1", kGpuMilliResource, "300", "1"), "a").ok());
  ASSERT_TRUE(Add(GpuPod("w1", kGpuResource, "2"), "a").ok());
  const std::vector<int32_t> before = Left("a");
  snapshot_.Fork();
  ASSERT_TRUE(snapshot_.RemovePod("default/s1", "a").ok());
  ASSERT_TRUE(Add(GpuPod("w2", kGpuResource, "1"), "a").ok());
  EXPECT_NE(Left("a"), before);
  snapshot_.Revert();
  EXPECT_EQ(Left("a"), before);
}

TEST_F(GpuNodeTest, BucketsSplitOnTheDevicesMultisetNotTheirOrder) {
  // Same cpu and milli requested on both nodes: 300 on GPU 0 vs 300 on GPU 3.
  ASSERT_TRUE(Add(GpuPod("s1", kGpuMilliResource, "300", "0"), "a").ok());
  ASSERT_TRUE(Add(GpuPod("s2", kGpuMilliResource, "300", "3"), "b").ok());
  EXPECT_EQ(Buckets(), 1u);
  // 600 on one GPU vs 300 + 300 on two: the same totals, different devices.
  ASSERT_TRUE(Add(GpuPod("s3", kGpuMilliResource, "300", "0"), "a").ok());
  ASSERT_TRUE(Add(GpuPod("s4", kGpuMilliResource, "300", "1"), "b").ok());
  EXPECT_EQ(snapshot_.GetNodeInfo("a")->requested(), snapshot_.GetNodeInfo("b")->requested());
  EXPECT_EQ(Buckets(), 2u);
}

}  // namespace
}  // namespace tidepool::scheduler
