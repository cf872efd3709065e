// File: least_waste_test.cc
//
// Tests for the "least-waste" expander:
//   - without GPU requests it is CA's expander/waste/waste.go: least (wasted cpu + wasted
//     memory) fractions over node_count × template *capacity*, pods counted by their regular
//     containers' requests, exact ties kept (CA's TestLeastWaste cases are repeated here);
//   - with GPU requests in any option, the wasted GPU fraction decides first (within an
//     epsilon), then CA's score: one 1-GPU pod takes a 1×T4 n1-standard-4 over a 4×T4 node, and
//     idle GPUs lose even to a much better cpu/memory fit.
#include "autoscaler/expander/least_waste/least_waste.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autoscaler/expander/expander_test_util.h"

namespace tidepool::autoscaler::expander {
namespace {

using test::Ids;
using test::MakeOption;
using test::PodsWith;
using test::PodWith;
using test::Ptrs;
using test::T4x1;
using test::T4x4;
using test::Template;

struct Case {
  std::string name;
  std::vector<Option> options;
  std::vector<std::string> want;
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    LeastWasteFilter filter;
    EXPECT_EQ(filter.Name(), "least-waste");
    EXPECT_EQ(Ids(filter.BestOptions(Ptrs(c.options))), c.want);
  }
}

// CA's TestLeastWaste shapes: a pod of 500m / 1000Mi; nodes in multiples of it.
api::Node CaNode(const std::string& name, int cpu_pods, int memory_pods) {
  return Template(name, {{"cpu", std::to_string(cpu_pods * 500) + "m"},
                         {"memory", std::to_string(memory_pods * 1000) + "Mi"},
                         {"pods", "100"}});
}

TEST(LeastWasteFilterTest, WithoutGpusBehavesExactlyAsCa) {
  const auto pod = [] { return PodsWith(1, "p", {{"cpu", "500m"}, {"memory", "1000Mi"}}); };
  const Option balanced = MakeOption("balanced", 1, pod(), CaNode("balanced", 16, 16));
  const Option highmem = MakeOption("highmem", 1, pod(), CaNode("highmem", 16, 32));
  const Option lowcpu = MakeOption("lowcpu", 1, pod(), CaNode("lowcpu", 8, 16));
  RunCases({
      {"no options give no option", {}, {}},
      {"an option without pods is kept when it is the only one",
       {MakeOption("balanced", 1, {}, CaNode("balanced", 16, 16))},
       {"balanced"}},
      {"one pod, one option", {balanced}, {"balanced"}},
      {"a balanced node beats one with lots of memory (CA)", {balanced, highmem}, {"balanced"}},
      {"a node with less cpu beats both (CA)", {balanced, highmem, lowcpu}, {"lowcpu"}},
      {"the order of the options does not matter", {lowcpu, highmem, balanced}, {"lowcpu"}},
      {"exact ties are all kept, in input order",
       {balanced, MakeOption("balanced-2", 1, pod(), CaNode("balanced-2", 16, 16))},
       {"balanced", "balanced-2"}},
      {"the node count multiplies what is available",
       {MakeOption("one-big", 1, PodsWith(4, "p", {{"cpu", "1"}, {"memory", "1Gi"}}),
                   Template("big", {{"cpu", "8"}, {"memory", "8Gi"}})),
        MakeOption("two-small", 2, PodsWith(4, "p", {{"cpu", "1"}, {"memory", "1Gi"}}),
                   Template("small", {{"cpu", "2"}, {"memory", "2Gi"}}))},
       {"two-small"}},
  });
}

TEST(LeastWasteFilterTest, WithoutGpuRequestsGpuNodesAreJudgedOnCpuAndMemoryOnly) {
  // CA ignores GPUs: with CPU-only pods, a GPU node that fits them more snugly wins. The
  // GPU-aware step applies only when some option's pods request GPUs.
  const auto pods = [] { return PodsWith(1, "p", {{"cpu", "3"}, {"memory", "12Gi"}}); };
  RunCases({
      {"a snug GPU node beats a loose CPU node when nobody asks for GPUs",
       {MakeOption("cpu-16", 1, pods(), Template("c", {{"cpu", "16"}, {"memory", "64Gi"}})),
        MakeOption("t4", 1, pods(), T4x1())},
       {"t4"}},
  });
}

TEST(LeastWasteFilterTest, ReadsCapacityNotAllocatable) {
  // CA's resourcesForNode reads status.capacity. By capacity "roomy" wastes 0.75 + 0.75 and
  // "tight" 0.67 + 0.67; by allocatable "roomy" would waste only 0.5 + 0.5 and win.
  api::Node roomy = Template("roomy", {{"cpu", "4"}, {"memory", "16Gi"}});
  roomy.status.allocatable = testing::Resources({{"cpu", "2"}, {"memory", "8Gi"}});
  const auto pod = [] { return PodsWith(1, "p", {{"cpu", "1"}, {"memory", "4Gi"}}); };
  RunCases({
      {"capacity decides",
       {MakeOption("roomy", 1, pod(), roomy),
        MakeOption("tight", 1, pod(), Template("tight", {{"cpu", "3"}, {"memory", "12Gi"}}))},
       {"tight"}},
  });
}

TEST(LeastWasteFilterTest, CountsRegularContainersOnlyAsCaDoes) {
  // CA's resourcesForPods sums spec.containers' requests: init containers and overhead are
  // not counted, unlike the scheduler's effective request.
  api::PodConstSharedPtr pod = testing::MakePod("p")
                                   .Container({{"cpu", "1"}, {"memory", "1Gi"}})
                                   .Container({{"cpu", "500m"}})
                                   .InitContainer({{"cpu", "3"}, {"memory", "3Gi"}})
                                   .Overhead({{"cpu", "250m"}})
                                   .Ptr();
  const Option o = MakeOption("g", 2, {scheduler::MakePodInfo(pod)},
                              Template("n", {{"cpu", "4"}, {"memory", "4Gi"}}));
  const Waste w = ComputeWaste(o);
  EXPECT_EQ(w.requested_milli_cpu, 1500);
  EXPECT_EQ(w.requested_memory, 1LL << 30);
  EXPECT_EQ(w.available_milli_cpu, 8000);
  EXPECT_EQ(w.available_memory, 8LL << 30);
  EXPECT_DOUBLE_EQ(w.cpu, 6500.0 / 8000.0);
  EXPECT_DOUBLE_EQ(w.memory, 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(w.gpu, 0.0);
}

TEST(LeastWasteFilterTest, OneGpuPodPicksTheOneT4NodeOverTheFourT4Node) {
  const auto gpu_pod = [] {
    return PodsWith(1, "train", {{"cpu", "1"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}});
  };
  const Option small = MakeOption("t4x1", 1, gpu_pod(), T4x1());
  const Option big = MakeOption("t4x4", 1, gpu_pod(), T4x4());
  RunCases({
      {"1×T4 n1-standard-4 beats 4×T4", {big, small}, {"t4x1"}},
      {"in either order", {small, big}, {"t4x1"}},
  });
  const Waste ws = ComputeWaste(small);
  const Waste wb = ComputeWaste(big);
  EXPECT_EQ(ws.requested_gpus, 1);
  EXPECT_EQ(ws.available_gpus, 1);
  EXPECT_DOUBLE_EQ(ws.gpu, 0.0);
  EXPECT_EQ(wb.available_gpus, 4);
  EXPECT_DOUBLE_EQ(wb.gpu, 0.75);
}

TEST(LeastWasteFilterTest, GpuWasteDominatesCpuAndMemoryWaste) {
  // Two 1-GPU pods of 3 cpu / 12Gi. Two 1×T4 nodes waste no GPU but 0.25 cpu + 0.2 memory;
  // one 4-GPU node of 7 cpu / 26Gi wastes only 0.14 + 0.08 of cpu and memory, so CA would pick
  // it, but it leaves half its GPUs idle.
  const auto pods = [] {
    return PodsWith(2, "train", {{"cpu", "3"}, {"memory", "12Gi"}, {"nvidia.com/gpu", "1"}});
  };
  const Option t4s =
      MakeOption("t4x1", 2, pods(),
                 Template("a", {{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "1"}}));
  const Option quad =
      MakeOption("quad", 1, pods(),
                 Template("b", {{"cpu", "7"}, {"memory", "26Gi"}, {"nvidia.com/gpu", "4"}}));
  ASSERT_LT(ComputeWaste(quad).CpuMemoryScore(), ComputeWaste(t4s).CpuMemoryScore())
      << "CA's score alone must prefer the 4-GPU node for this test to mean anything";
  RunCases({
      {"no idle GPUs beats a better cpu/memory fit", {quad, t4s}, {"t4x1"}},
  });
}

TEST(LeastWasteFilterTest, AmongGpuEquivalentOptionsCpuAndMemoryDecide) {
  const auto gpu_pod = [] {
    return PodsWith(1, "p", {{"cpu", "1"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}});
  };
  const auto a100 = [] {
    return Template("a100", {{"cpu", "12"}, {"memory", "85Gi"}, {"nvidia.com/gpu", "1"}});
  };
  RunCases({
      {"both waste no GPU: the smaller host wins",
       {MakeOption("a2-highgpu-1g", 1, gpu_pod(), a100()),
        MakeOption("n1-t4", 1, gpu_pod(), T4x1())},
       {"n1-t4"}},
      {"equal GPU and cpu/memory waste: both kept",
       {MakeOption("t4-a", 1, gpu_pod(), T4x1()), MakeOption("t4-b", 1, gpu_pod(), T4x1())},
       {"t4-a", "t4-b"}},
  });
}

TEST(LeastWasteFilterTest, GpuNodesForCpuPodsWasteAllTheirGpusWhenGpusAreWanted) {
  // One option takes the GPU pod on a T4 node; another would put only a CPU pod on the same
  // kind of node: its cpu/memory fit is better, but its GPU sits idle.
  RunCases({
      {"a GPU node taking only CPU pods loses once any option requests GPUs",
       {MakeOption("t4-for-cpu", 1, PodsWith(1, "web", {{"cpu", "3500m"}, {"memory", "14Gi"}}),
                   T4x1()),
        MakeOption("t4-for-gpu", 1,
                   PodsWith(1, "train", {{"cpu", "1"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}}),
                   T4x1())},
       {"t4-for-gpu"}},
      {"a CPU node taking CPU pods wastes no GPU, so cpu/memory decide against the GPU option",
       {MakeOption("t4-for-gpu", 1,
                   PodsWith(1, "train", {{"cpu", "1"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}}),
                   T4x1()),
        MakeOption("cpu-4", 1, PodsWith(1, "web", {{"cpu", "3500m"}, {"memory", "14Gi"}}),
                   Template("c", {{"cpu", "4"}, {"memory", "16Gi"}}))},
       {"cpu-4"}},
  });
}

TEST(LeastWasteFilterTest, AnyResourceEndingInSlashGpuIsAGpu) {
  EXPECT_TRUE(IsGpuResourceName("nvidia.com/gpu"));
  EXPECT_TRUE(IsGpuResourceName("amd.com/gpu"));
  EXPECT_FALSE(IsGpuResourceName("nvidia.com/mig-1g.5gb"));
  EXPECT_FALSE(IsGpuResourceName("gpu"));
  EXPECT_FALSE(IsGpuResourceName("example.com/gpus"));
  const auto pod = [] {
    return PodsWith(1, "p", {{"cpu", "1"}, {"memory", "4Gi"}, {"amd.com/gpu", "1"}});
  };
  RunCases({
      {"amd.com/gpu waste decides like nvidia.com/gpu",
       {MakeOption("mi-x8", 1, pod(),
                   Template("b", {{"cpu", "8"}, {"memory", "30Gi"}, {"amd.com/gpu", "8"}})),
        MakeOption("mi-x1", 1, pod(),
                   Template("s", {{"cpu", "64"}, {"memory", "256Gi"}, {"amd.com/gpu", "1"}}))},
       {"mi-x1"}},
  });
}

TEST(LeastWasteFilterTest, DegenerateTemplates) {
  // GPU requests on a node without GPUs cannot come from the estimator; such an option ranks
  // last. A zero cpu or memory capacity counts as fully wasted (CA would divide by zero).
  const auto gpu_pod = [] {
    return PodsWith(1, "p", {{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}});
  };
  const Option no_gpus =
      MakeOption("no-gpus", 1, gpu_pod(), Template("n", {{"cpu", "1"}, {"memory", "1Gi"}}));
  EXPECT_TRUE(std::isinf(ComputeWaste(no_gpus).gpu));
  const Option no_cpu =
      MakeOption("no-cpu", 1, PodsWith(1, "p", {{"memory", "1Gi"}}), Template("z", {{"memory", "2Gi"}}));
  EXPECT_DOUBLE_EQ(ComputeWaste(no_cpu).cpu, 1.0);
  RunCases({
      {"GPU requests without GPUs rank last", {no_gpus, MakeOption("t4x4", 1, gpu_pod(), T4x4())},
       {"t4x4"}},
      {"but such an option is still kept when it is the only one", {no_gpus}, {"no-gpus"}},
  });
}

}  // namespace
}  // namespace tidepool::autoscaler::expander
