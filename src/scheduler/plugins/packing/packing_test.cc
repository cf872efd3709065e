// File: packing_test.cc
//
// The packing policies (packing.h, fgd.h) and GpuShare (gpu_share.h) on hand-computed cases,
// the formulas of the FGD paper's simulator (docs/fgd-protocol.md §3-5): a node of 32 cores
// and 4 GPUs, scaled by a largest node of 64 cores and 8 GPUs.
#include "scheduler/plugins/packing/packing.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "scheduler/framework/gpu_devices.h"
#include "scheduler/framework/runtime/framework.h"
#include "scheduler/plugins/gpu_share/gpu_share.h"
#include "scheduler/plugins/packing/fgd.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/snapshot/cluster_snapshot.h"
#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;

PackingArgs Args() {
  PackingArgs a;
  a.max_milli_cpu = 64000;
  a.max_gpus = 8;
  a.seed = 7;
  return a;
}

api::Pod Pod(const std::string& name, const std::string& cpu, const std::string& resource = "",
             const std::string& amount = "", const std::string& index = "") {
  std::initializer_list<std::pair<std::string, std::string>> none = {{"cpu", cpu}};
  api::Pod p = MakePod(name).Container(none).Obj();
  if (!resource.empty()) {
    p.spec.containers[0].resources.requests[resource] = *api::Quantity::Parse(amount);
  }
  if (!index.empty()) p.meta.annotations[kGpuIndexAnnotation] = index;
  return p;
}

// Node "used" (one 8-core pod with 500 milli on GPU 0) and node "empty", 32 cores, 4 GPUs each;
// "l4" is labelled with its accelerator.
class PackingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* n : {"used", "empty"}) {
      ASSERT_TRUE(snapshot_
                      .AddNode(MakeNode(n)
                                   .Capacity({{"cpu", "32"},
                                              {"memory", "128Gi"},
                                              {"pods", "110"},
                                              {kGpuResource, "4"},
                                              {kGpuMilliResource, "4000"}})
                                   .Label("cloud.google.com/gke-accelerator", "nvidia-l4")
                                   .Obj())
                      .ok());
    }
    ASSERT_TRUE(
        snapshot_.AddPod(MakePodInfo(Pod("s1", "8", kGpuMilliResource, "500", "0")), "used").ok());
  }
  const NodeInfo& Node(const std::string& n) { return *snapshot_.GetNodeInfo(n); }

  ClusterSnapshot snapshot_;
  CycleState state_;
};

TEST_F(PackingTest, Scores) {
  const PodInfoConstSharedPtr share = MakePodInfo(Pod("p", "4", kGpuMilliResource, "250"));
  const PodInfoConstSharedPtr whole = MakePodInfo(Pod("w", "4", kGpuResource, "1"));
  const PodInfoConstSharedPtr cpu = MakePodInfo(Pod("c", "4"));
  struct Case {
    std::string name;
    const ScorePlugin* plugin;
    const PodInfo* pod;
    std::string node;
    int64_t want;
  };
  const FormulaScore best_fit("BestFit", NodeScope::kUsage, BestFitScore, Args());
  const FormulaScore dot_prod("DotProd", NodeScope::kUsage, DotProdScore, Args());
  const FormulaScore clustering("GpuClustering", NodeScope::kNode, GpuClusteringScore, Args());
  const FormulaScore packing("GpuPacking", NodeScope::kUsage, GpuPackingScore, Args());
  const std::vector<Case> cases = {
      // x = (24000 - 4000) / 64000 / 2 + (3500 - 250) / 8000 / 2 = 0.359375.
      {"BestFit: the fuller node", &best_fit, share.get(), "used", 64},
      // x = (32000 - 4000) / 64000 / 2 + (4000 - 250) / 8000 / 2 = 0.453125.
      {"BestFit: the empty node", &best_fit, share.get(), "empty", 54},
      // n = (0.375, 0.4375), p = (0.0625, 0.03125): 100 (1 - 0.0371 / 2).
      {"DotProd", &dot_prod, share.get(), "used", 98},
      // 25 (8000 - 3500) / 8000 = 14, plus 75: the node holds shares only.
      {"GpuClustering: same kind", &clustering, share.get(), "used", 89},
      {"GpuClustering: another kind", &clustering, whole.get(), "used", 14},
      {"GpuClustering: an empty node", &clustering, whole.get(), "empty", 37},
      {"GpuClustering: a CPU pod", &clustering, cpu.get(), "used", 0},
      // The 500 left on GPU 0: 100 - (500 * 100 / 1000) / 10.
      {"GpuPacking: a share on a used GPU", &packing, share.get(), "used", 95},
      {"GpuPacking: a whole GPU on a used node", &packing, whole.get(), "used", 49},
      {"GpuPacking: every GPU free", &packing, share.get(), "empty", 29},
      {"GpuPacking: a CPU pod", &packing, cpu.get(), "used", 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.plugin->Score(state_, *c.pod, Node(c.node)), c.want);
  }
}

TEST_F(PackingTest, RandomPicksOneNodeFromTheSeed) {
  RandomScore random(Args());
  std::vector<int64_t> scores = {5, 9, 3};
  random.NormalizeScore(state_, *MakePodInfo(Pod("p", "1")), scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 100, 0}));
  const PodInfoConstSharedPtr pod = MakePodInfo(Pod("p", "1"));
  EXPECT_EQ(random.Score(state_, *pod, Node("used")), random.Score(state_, *pod, Node("used")));
  EXPECT_NE(random.Score(state_, *pod, Node("used")), random.Score(state_, *pod, Node("empty")));
  PackingArgs other = Args();
  other.seed = 8;
  EXPECT_NE(RandomScore(other).Score(state_, *pod, Node("used")),
            random.Score(state_, *pod, Node("used")));
}

TEST_F(PackingTest, GpuShareFiltersAndReservesDevices) {
  GpuShare best(GpuSelection::kBest, 1);
  // 3 whole GPUs are free on "used", 4 on "empty".
  const PodInfoConstSharedPtr four = MakePodInfo(Pod("w4", "1", kGpuResource, "4"));
  PluginStatus s = best.Filter(state_, *four, Node("used"));
  EXPECT_EQ(s.code(), PluginCode::kUnschedulable);
  EXPECT_EQ(s.Message(), "Insufficient free GPUs");
  EXPECT_FALSE(best.Fits(state_, *four, Node("used")));
  EXPECT_TRUE(best.Filter(state_, *four, Node("empty")).IsSuccess());
  const PodInfoConstSharedPtr big = MakePodInfo(Pod("s9", "1", kGpuMilliResource, "900"));
  EXPECT_TRUE(best.Filter(state_, *big, Node("used")).IsSuccess());  // on a free GPU
  Reservation r;
  const PodInfoConstSharedPtr share = MakePodInfo(Pod("p", "1", kGpuMilliResource, "500"));
  ASSERT_TRUE(best.Reserve(state_, *share, Node("used"), r).IsSuccess());
  EXPECT_EQ(r.gpu_indices, 0b1u);  // the 500 left on GPU 0
  r = {};
  ASSERT_TRUE(best.Reserve(state_, *four, Node("empty"), r).IsSuccess());
  EXPECT_EQ(r.gpu_indices, 0b1111u);
  r = {};
  ASSERT_TRUE(best.Reserve(state_, *MakePodInfo(Pod("c", "1")), Node("used"), r).IsSuccess());
  EXPECT_EQ(r.gpu_indices, 0u);
}

TEST(FragModelTest, Frag) {
  // Half the pods a 500-milli share, half one whole GPU, each 1 core; plus a pod only for T4.
  const std::vector<TypicalPod> typical = {
      {.milli_cpu = 1000, .gpu_count = 1, .gpu_milli = 500, .weight = 0.4},
      {.milli_cpu = 1000, .gpu_count = 1, .gpu_milli = 1000, .weight = 0.4},
      {.milli_cpu = 1000,
       .gpu_count = 1,
       .gpu_milli = 1000,
       .gpu_models = {"nvidia-tesla-t4"},
       .weight = 0.1},
      {.milli_cpu = 1000, .gpu_count = 0, .gpu_milli = 0, .weight = 0.1},
  };
  FragModel model(typical, "cloud.google.com/gke-accelerator");
  struct Case {
    std::string name;
    int node_model;
    int64_t cpu_left;
    std::vector<int32_t> left;
    double want;
  };
  const int t4 = 1;  // the one model a typical pod names
  const std::vector<Case> cases = {
      {"all free: only the CPU pod and the other model's pod see fragments",
       0,
       8000,
       {1000, 1000},
       0.1 * 2000 + 0.1 * 2000},
      {"all free on the named model", t4, 8000, {1000, 1000}, 0.1 * 2000},
      // Share: GPUs below 500 (300); whole: below 1000 (300 + 700).
      {"partly used", t4, 8000, {300, 700}, 0.4 * 300 + 0.4 * 1000 + 0.1 * 1000 + 0.1 * 1000},
      {"no cpu left: nothing fits, all of it is a fragment",
       t4,
       0,
       {1000, 600},
       (0.4 + 0.4 + 0.1 + 0.1) * 1600},
      {"a full node has no fragment", t4, 8000, {0, 0}, 0},
      {"over-committed GPUs count as 0", t4, 8000, {-200, 1000}, 0.1 * 1000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_DOUBLE_EQ(model.Frag(c.node_model, c.cpu_left, c.left), c.want);
  }
}

TEST_F(PackingTest, FgdPrefersThePlacementThatFragmentsLeast) {
  PackingArgs args = Args();
  args.typical_pods = {{.milli_cpu = 1000, .gpu_count = 1, .gpu_milli = 500, .weight = 0.5},
                       {.milli_cpu = 1000, .gpu_count = 1, .gpu_milli = 1000, .weight = 0.5}};
  Fgd fgd(args);
  const PodInfoConstSharedPtr share = MakePodInfo(Pod("p", "1", kGpuMilliResource, "250"));
  // "used" [500,1000,1000,1000], Frag 250: on GPU 0 Frag stays 250 (sigmoid(0) = 0.5); on a
  // free GPU it becomes 625 (40). "empty": 0 -> 375, 40.
  EXPECT_EQ(fgd.Score(state_, *share, Node("used")), 50);
  EXPECT_EQ(fgd.Score(state_, *share, Node("empty")), 40);
  Reservation r;
  ASSERT_TRUE(fgd.Reserve(state_, *share, Node("used"), r).IsSuccess());
  EXPECT_EQ(r.gpu_indices, 0b1u);
  r = {};
  ASSERT_TRUE(fgd.Reserve(state_, *MakePodInfo(Pod("w", "1", kGpuResource, "2")), Node("used"), r)
                  .IsSuccess());
  EXPECT_EQ(r.gpu_indices, 0b0110u);
}

TEST_F(PackingTest, AProfileWithAPolicySchedulesAndReserves) {
  Profile p;
  p.pre_filter = {"NodeResourcesFit"};
  p.filter = {"NodeResourcesFit", "GpuShare"};
  p.score = {{"GpuPacking", 1}};
  p.reserve = {"GpuShare"};
  p.args.packing = Args();
  auto fw = Framework::Create(NewInTreeRegistry(), p);
  ASSERT_TRUE(fw.ok()) << fw.status().ToString();
  // "empty" gets 300 on GPU 3: a 400 share scores 93 there, 95 on "used" (500 left on GPU 0).
  ASSERT_TRUE(
      snapshot_.AddPod(MakePodInfo(Pod("s2", "1", kGpuMilliResource, "300", "3")), "empty").ok());
  ScheduleResult r =
      (*fw)->Schedule(*MakePodInfo(Pod("p", "1", kGpuMilliResource, "400")), snapshot_);
  EXPECT_EQ(r.node, "used");
  EXPECT_EQ(r.reservation.gpu_indices, 0b1u);
  // Fits nowhere (3 free GPUs on each): GpuShare's reason on both nodes, from Filter once
  // Fits() said no everywhere.
  r = (*fw)->Schedule(*MakePodInfo(Pod("w", "1", kGpuResource, "4")), snapshot_);
  EXPECT_FALSE(r.Scheduled());
  EXPECT_EQ(r.message, "0/2 nodes are available: 2 Insufficient free GPUs.");
  r = (*fw)->Schedule(*MakePodInfo(Pod("w", "1", kGpuResource, "5")), snapshot_,
                      /*explain=*/false);
  EXPECT_FALSE(r.Scheduled());
  EXPECT_EQ(r.message, "");
  p.args.packing.gpu_selection = "worst";
  EXPECT_EQ(Framework::Create(NewInTreeRegistry(), p).status().message(),
            "GpuShare: gpuSelection must be best or random, not \"worst\"");
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
