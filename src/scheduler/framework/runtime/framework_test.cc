#include "scheduler/framework/runtime/framework.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/random.h"
#include "scheduler/scheduler.h"
#include "testing/builders.h"

namespace tidepool::scheduler {
namespace {

using api::SelectorOperator;
using api::TaintEffect;
using testing::FieldTerm;
using testing::MakeNode;
using testing::MakePod;
using testing::NodeBuilder;
using testing::PodBuilder;
using testing::Term;

NodeBuilder Cpu(const std::string& name, const std::string& cpu = "4") {
  return MakeNode(name)
      .Capacity({{"cpu", cpu}, {"memory", "15Gi"}, {"ephemeral-storage", "100Gi"}})
      .Label("cloud.google.com/gke-nodepool", "default-pool");
}

NodeBuilder Gpu(const std::string& name, const std::string& gpus = "1") {
  return MakeNode(name)
      .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", gpus}})
      .Label("cloud.google.com/gke-nodepool", "gpu-pool")
      .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
      .Taint("nvidia.com/gpu", "present");
}

// The seed's pod: one GPU by limit, tolerating the pool's taint.
PodBuilder GpuPod(const std::string& name) {
  return MakePod(name).Limit("nvidia.com/gpu", "1").Toleration("nvidia.com/gpu", "present",
                                                               TaintEffect::kNoSchedule);
}

// A pod as the API server stores it: defaulted (a limit alone implies the request).
PodInfoConstSharedPtr Defaulted(const PodBuilder& b) {
  api::Pod obj = b.Obj();
  api::ApplyPodDefaults(obj);
  return MakePodInfo(std::make_shared<const api::Pod>(std::move(obj)));
}

struct Cluster {
  std::vector<NodeBuilder> nodes;
  // Pods already running, by node.
  std::vector<std::pair<PodBuilder, std::string>> running;
};

ScheduleResult RunCycle(const Cluster& c, const PodBuilder& pod) {
  auto sched = Scheduler::Create();
  EXPECT_TRUE(sched.ok());
  ClusterSnapshot s;
  for (const auto& n : c.nodes) {
    EXPECT_TRUE(s.AddNode(n.Ptr()).ok());
  }
  for (const auto& [p, node] : c.running) {
    EXPECT_TRUE(s.AddPod(Defaulted(p), node).ok());
  }
  return (*sched)->framework().Schedule(*Defaulted(pod), s);
}

// FailedScheduling texts, byte for byte as kube-scheduler 1.32 prints them.
TEST(FitErrorScenarioTest, MessagesMatchKubeScheduler132) {
  struct Case {
    std::string name;
    Cluster cluster;
    PodBuilder pod;
    std::string want;
  };
  std::vector<NodeBuilder> twelve_cpu;
  for (int i = 0; i < 12; ++i) {
    twelve_cpu.push_back(Cpu("cpu-" + std::to_string(i)));
  }
  std::vector<NodeBuilder> ten_gpu_two_cpu;
  for (int i = 0; i < 10; ++i) {
    ten_gpu_two_cpu.push_back(Gpu("gpu-" + std::to_string(i)));
  }
  ten_gpu_two_cpu.push_back(Cpu("cpu-a", "1"));
  ten_gpu_two_cpu.push_back(Cpu("cpu-b", "1"));
  std::vector<NodeBuilder> twelve_mixed = twelve_cpu;
  twelve_mixed.push_back(Gpu("gpu-0"));
  twelve_mixed.push_back(Gpu("gpu-1"));
  twelve_mixed.push_back(Gpu("gpu-2"));

  std::vector<Case> cases = {
      {"the seed: a GPU pod on a cluster of CPU nodes only",
       {{Cpu("default-pool-1"), Cpu("default-pool-2"), Cpu("default-pool-3")}},
       GpuPod("gpu-test-pod"),
       "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are "
       "available: 3 No preemption victims found for incoming pod."},
      {"taint and resources mixed: the issue's example",
       {{Gpu("gpu-1"), Cpu("cpu-1"), Cpu("cpu-2")}},
       MakePod("no-toleration").Limit("nvidia.com/gpu", "1"),
       "0/3 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 "
       "Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 1 Preemption is not "
       "helpful for scheduling, 2 No preemption victims found for incoming pod."},
      {"taints only: preemption cannot help",
       {{Gpu("gpu-1"), Gpu("gpu-2")}},
       MakePod("web").Req("cpu", "100m"),
       "0/2 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}. "
       "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
      {"resources only: every shortfall of a node counts",
       {{Cpu("cpu-1"), Cpu("cpu-2"), Cpu("cpu-3")}},
       MakePod("big").Req("cpu", "8").Req("memory", "32Gi"),
       "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory. preemption: 0/3 "
       "nodes are available: 3 No preemption victims found for incoming pod."},
      {"a node selector nobody matches",
       {{Cpu("cpu-1"), Gpu("gpu-1")}},
       MakePod("picky").Req("cpu", "1").NodeSelector("app-type", "gpu-workloads"),
       "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) "
       "had untolerated taint {nvidia.com/gpu: present}. preemption: 0/2 nodes are available: "
       "2 Preemption is not helpful for scheduling."},
      {"a cordoned node is reported before its resources",
       {{Cpu("cpu-1").Unschedulable(), Cpu("cpu-2", "1")}},
       MakePod("p").Req("cpu", "2"),
       "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. preemption: "
       "0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is "
       "not helpful for scheduling."},
      {"counts of 10 and more sort as strings: \"10 ...\" before \"2 ...\"",
       {ten_gpu_two_cpu},
       MakePod("cpu-hungry").Req("cpu", "2"),
       "0/12 nodes are available: 10 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 "
       "Insufficient cpu. preemption: 0/12 nodes are available: 10 Preemption is not helpful for "
       "scheduling, 2 No preemption victims found for incoming pod."},
      {"twelve CPU nodes and three GPU nodes, pod tolerates but all GPUs are taken",
       {twelve_mixed,
        {{GpuPod("t0"), "gpu-0"}, {GpuPod("t1"), "gpu-1"}, {GpuPod("t2"), "gpu-2"}}},
       GpuPod("late"),
       "0/15 nodes are available: 15 Insufficient nvidia.com/gpu. preemption: 0/15 nodes are "
       "available: 15 No preemption victims found for incoming pod."},
      {"too many pods",
       {{MakeNode("tiny").Capacity({{"cpu", "4"}, {"memory", "1Gi"}, {"pods", "1"}})},
        {{MakePod("first"), "tiny"}}},
       MakePod("second"),
       "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No "
       "preemption victims found for incoming pod."},
      {"an extended resource the node does not have at all",
       {{Cpu("cpu-1")}},
       MakePod("fpga").Limit("example.com/fpga", "1"),
       "0/1 nodes are available: 1 Insufficient example.com/fpga. preemption: 0/1 nodes are "
       "available: 1 No preemption victims found for incoming pod."},
      {"matchFields narrows the candidates; the rest did not satisfy NodeAffinity",
       {{Cpu("cpu-1", "1"), Cpu("cpu-2"), Cpu("cpu-3")}},
       MakePod("ds-pod").Req("cpu", "2").RequiredAffinity(FieldTerm(SelectorOperator::kIn, {"cpu-1"})),
       "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
       "[NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found for "
       "incoming pod, 2 Preemption is not helpful for scheduling."},
      {"affinity terms pinned to disjoint node names conflict in PreFilter",
       {{Cpu("cpu-1"), Cpu("cpu-2")}},
       MakePod("conflict").RequiredAffinity([] {
         api::NodeSelectorTerm t = FieldTerm(SelectorOperator::kIn, {"cpu-1"});
         t.match_fields.push_back({"metadata.name", SelectorOperator::kIn, {"cpu-2"}});
         return t;
       }()),
       "0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are "
       "available: 2 Preemption is not helpful for scheduling."},
      {"a pod that may not preempt says so",
       {{Cpu("cpu-1", "1")}},
       MakePod("polite").Req("cpu", "2").PreemptionPolicy("Never"),
       "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
       "preemptionPolicy=Never."},
      {"lower-priority pods whose eviction would still not make room",
       {{Gpu("gpu-1")}, {{GpuPod("low").Priority(-10).Req("cpu", "100m"), "gpu-1"}}},
       GpuPod("wants-two").Limit("nvidia.com/gpu", "2"),
       "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are "
       "available: 1 Insufficient nvidia.com/gpu."},
      {"a cluster without nodes",
       {},
       GpuPod("lonely"),
       "no nodes available to schedule pods"},
  };
  ASSERT_GE(cases.size(), 8u);
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    ScheduleResult r = RunCycle(tc.cluster, tc.pod);
    EXPECT_FALSE(r.Scheduled()) << r.node;
    EXPECT_EQ(r.message, tc.want);
  }
}

TEST(FrameworkTest, PreemptionNominatesANodeAndNamesTheVictims) {
  Cluster c{{Gpu("gpu-a"), Gpu("gpu-b")},
            {{GpuPod("batch-a").Priority(-10), "gpu-a"},
             {GpuPod("batch-b").Priority(-20), "gpu-b"}}};
  ScheduleResult r = RunCycle(c, GpuPod("urgent").Priority(1000));
  EXPECT_FALSE(r.Scheduled());
  // The lowest-priority victim is preferred.
  EXPECT_EQ(r.nominated_node, "gpu-b");
  ASSERT_EQ(r.victims.size(), 1u);
  EXPECT_EQ(r.victims[0]->name(), "batch-b");
  // PostFilter succeeded: no preemption suffix.
  EXPECT_EQ(r.message, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.");
}

TEST(FrameworkTest, SchedulesTheSeedPodOnTheGpuNode) {
  Cluster c{{Cpu("default-pool-1"), Cpu("default-pool-2"), Gpu("gpu-pool-1")}};
  ScheduleResult r = RunCycle(c, GpuPod("gpu-test-pod"));
  EXPECT_EQ(r.node, "gpu-pool-1");
  EXPECT_EQ(r.num_feasible_nodes, 1u);
}

TEST(FrameworkTest, ScoringPrefersLeastAllocatedThenTheFirstName) {
  struct Case {
    std::string name;
    Cluster cluster;
    PodBuilder pod;
    std::string want;
  };
  std::vector<Case> cases = {
      {"identical empty nodes: the first by name",
       {{Cpu("n-c"), Cpu("n-a"), Cpu("n-b")}},
       MakePod("p").Req("cpu", "1"),
       "n-a"},
      {"a busier node loses to an idle one",
       {{Cpu("n-a"), Cpu("n-b")}, {{MakePod("x").Req("cpu", "2").Req("memory", "4Gi"), "n-a"}}},
       MakePod("p").Req("cpu", "1"),
       "n-b"},
      {"a PreferNoSchedule taint repels an untolerating pod",
       {{Cpu("n-a").Taint("dedicated", "batch", TaintEffect::kPreferNoSchedule), Cpu("n-b")}},
       MakePod("p").Req("cpu", "1"),
       "n-b"},
      {"preferred node affinity wins over spreading",
       {{Cpu("n-a"), Cpu("n-b").Label("disk", "ssd")},
        {{MakePod("x").Req("cpu", "3"), "n-b"}}},
       MakePod("p").Req("cpu", "500m").PreferredAffinity(10, Term("disk", SelectorOperator::kIn, {"ssd"})),
       "n-b"},
      {"preferred affinity on the hostname is evaluated per node",
       {{Cpu("n-a"), Cpu("n-b"), Cpu("n-c")}},
       MakePod("p").PreferredAffinity(
           5, Term(std::string(api::kLabelHostname), SelectorOperator::kIn, {"n-b"})),
       "n-b"},
      {"spec.nodeName pins the node",
       {{Cpu("n-a"), Cpu("n-b")}},
       MakePod("p").NodeName("n-b"),
       "n-b"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(RunCycle(tc.cluster, tc.pod).node, tc.want);
  }
}

TEST(FrameworkTest, CreateRejectsUnknownPluginsAndWrongExtensionPoints) {
  Profile p = DefaultProfile();
  p.filter.push_back("NoSuchPlugin");
  EXPECT_EQ(Scheduler::Create(p).status().code(), StatusCode::kNotFound);
  Profile q = DefaultProfile();
  q.filter.push_back("NodeResourcesBalancedAllocation");
  EXPECT_EQ(Scheduler::Create(q).status().code(), StatusCode::kInvalidArgument);
}

// The equivalence-group runtime must decide exactly as a node-by-node evaluation would. A label
// unique to each node puts every node in a class of its own, which turns the grouped runtime
// into a per-node one; both must choose the same node and print the same message, pod after pod.
TEST(FrameworkTest, GroupedEvaluationEqualsNodeByNodeEvaluation) {
  auto sched = Scheduler::Create();
  ASSERT_TRUE(sched.ok());
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Random rng(seed);
    ClusterSnapshot grouped, per_node;
    const int num_nodes = 20 + static_cast<int>(rng.Uniform(40));
    for (int i = 0; i < num_nodes; ++i) {
      std::string name = "node-" + std::to_string(1000 + rng.Uniform(9000)) + "-" + std::to_string(i);
      NodeBuilder b = MakeNode(name);
      switch (rng.Uniform(4)) {
        case 0: b = Cpu(name, "4"); break;
        case 1: b = Cpu(name, "8"); break;
        case 2: b = Gpu(name, "1"); break;
        default: b = Gpu(name, "4"); break;
      }
      if (rng.Bernoulli(0.2)) {
        b.Label("zone", rng.Bernoulli(0.5) ? "a" : "b");
      }
      if (rng.Bernoulli(0.05)) {
        b.Unschedulable();
      }
      if (rng.Bernoulli(0.1)) {
        b.Taint("dedicated", "x", TaintEffect::kPreferNoSchedule);
      }
      ASSERT_TRUE(grouped.AddNode(b.Ptr()).ok());
      ASSERT_TRUE(per_node.AddNode(b.Label("unique", name).Ptr()).ok());
    }
    ASSERT_EQ(per_node.NumClasses(), per_node.NumNodes());
    for (int i = 0; i < 150; ++i) {
      PodBuilder p = MakePod("pod-" + std::to_string(i));
      switch (rng.Uniform(5)) {
        case 0: p = GpuPod(p.Obj().meta.name).Req("cpu", "500m"); break;
        case 1: p.Req("cpu", std::to_string(1 + rng.Uniform(3))).Req("memory", "2Gi"); break;
        case 2: p.Req("cpu", "250m").NodeSelector("zone", "a"); break;
        case 3: p.Req("memory", std::to_string(1 + rng.Uniform(8)) + "Gi").Priority(static_cast<int32_t>(rng.Uniform(3))); break;
        default: p.PreferredAffinity(10, Term("zone", SelectorOperator::kIn, {"b"})).Req("cpu", "100m"); break;
      }
      auto info = Defaulted(p);
      ScheduleResult a = (*sched)->ScheduleOne(info, grouped);
      ScheduleResult b = (*sched)->ScheduleOne(info, per_node);
      ASSERT_EQ(a.node, b.node) << "pod " << i;
      ASSERT_EQ(a.message, b.message) << "pod " << i;
      ASSERT_EQ(a.nominated_node, b.nominated_node) << "pod " << i;
    }
  }
}

}  // namespace
}  // namespace tidepool::scheduler
