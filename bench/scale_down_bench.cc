// Scale-down planning: one Planner::Update pass (eligibility and utilisation of every node,
// drainability of the candidates' pods, drain simulation on a fork of the snapshot) over
// N nodes × 30 pods:
//   - 80% CPU nodes (16 cpu, 64Gi) in two groups, 20% GPU nodes (96 cpu, 680Gi, 8 GPUs, tainted
//     nvidia.com/gpu=present:NoSchedule) in one group; two zones;
//   - every node runs one DaemonSet pod and 29 ReplicaSet pods of varied sizes;
//   - every 5th node is underutilised (CPU nodes ~20% cpu; GPU nodes 2 of 8 GPUs), the others
//     are busy (CPU ~80%; GPU 7 of 8 GPUs) and so have room for the moved pods.
//
//   BM_PlannerUpdate/nodes:N/all:0/pinned:0
//                                    CA's defaults, cold planner: the simulation stops after
//                                    unneededNodesLimit() = 2 × max-scale-down-parallelism
//                                    removable nodes (20), as CA's first loop does
//   BM_PlannerUpdate/.../all:1       every underutilised node simulated (parallelism = N)
//   BM_PlannerUpdate/.../pinned:1    the underutilised nodes' pods have a node selector no
//                                    other node matches: every candidate is simulated and
//                                    fails (the worst case of a first loop; CA then skips such
//                                    nodes for --unremovable-node-recheck-timeout, 5m)
//   BM_PlannerUpdateSteady/nodes:N/all:A
//                                    the same on a planner that has run before (hints and
//                                    the previous unneeded set, as in every loop after the
//                                    first), 10 s later, nothing changed
// Counters: candidates (underutilised nodes), unneeded (removable found).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autoscaler/scale_down/scale_down.h"
#include "common/random.h"
#include "scheduler/scheduler.h"
#include "testing/builders.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler::scaledown {
namespace {

using testing::MakeNode;
using testing::MakePod;

constexpr const char* kPool = "cloud.google.com/gke-nodepool";

struct World {
  World(int n, bool pinned) : logger("cluster-autoscaler", clock, false) {
    sched = std::move(*scheduler::Scheduler::Create());
    const int gpu_nodes = n / 5;
    cloud.AddGroup("cpu-a", 0, 100000, (n - gpu_nodes + 1) / 2, MakeNode("t").Obj());
    cloud.AddGroup("cpu-b", 0, 100000, (n - gpu_nodes) / 2, MakeNode("t").Obj());
    cloud.AddGroup("gpu-a100x8", 0, 100000, gpu_nodes, MakeNode("t").Obj());
    Random rnd(42);
    int cpu_index = 0;
    int gpu_index = 0;
    for (int i = 0; i < n; ++i) {
      const bool gpu = i % 5 == 4;
      const bool under = (gpu ? gpu_index++ : cpu_index) % 5 == 0;
      char name[32];
      std::snprintf(name, sizeof(name), "%s-%05d", gpu ? "gpu" : "cpu", i);
      auto b =
          MakeNode(name).Label("topology.kubernetes.io/zone", i % 2 == 0 ? "zone-a" : "zone-b");
      if (gpu) {
        b.Capacity({{"cpu", "96"}, {"memory", "680Gi"}, {"nvidia.com/gpu", "8"}})
            .Label(kPool, "gpu-a100x8")
            .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-a100")
            .Taint("nvidia.com/gpu", "present");
      } else {
        b.Capacity({{"cpu", "16"}, {"memory", "64Gi"}})
            .Label(kPool, cpu_index++ % 2 == 0 ? "cpu-a" : "cpu-b");
      }
      auto node = b.Ptr();
      (void)snapshot.AddNode(node);
      nodes.push_back(node);
      candidates += under ? 1 : 0;

      auto add = [&](api::Pod p) {
        p.spec.node_name = name;
        p.status.phase = api::PodPhase::kRunning;
        (void)snapshot.AddPod(
            scheduler::MakePodInfo(std::make_shared<const api::Pod>(std::move(p))), name);
      };
      add(MakePod(std::string("agent-") + name, "kube-system")
              .OwnedBy("DaemonSet", "agent")
              .Req("cpu", "100m")
              .Req("memory", "128Mi")
              .TolerationExists("", api::TaintEffect::kNone)
              .Obj());
      const int gpu_pods = gpu ? (under ? 2 : 7) : 0;
      for (int j = 0; j < 29; ++j) {
        const std::string pname = std::string("w-") + name + "-" + std::to_string(j);
        auto pb = MakePod(pname).OwnedBy("ReplicaSet", "rs-" + std::to_string(rnd.Uniform(50)));
        if (j < gpu_pods) {
          pb.Req("cpu", "4").Req("memory", "32Gi").Req("nvidia.com/gpu", "1");
        } else if (under) {
          pb.Req("cpu", std::to_string(50 + 25 * rnd.Uniform(5)) + "m")
              .Req("memory", std::to_string(128 * (1 + rnd.Uniform(3))) + "Mi");
        } else {
          // Busy CPU nodes: ~80% cpu. Busy GPU nodes: the CPU pods fill little.
          pb.Req("cpu", gpu ? "500m" : std::to_string(400 + 25 * rnd.Uniform(3)) + "m")
              .Req("memory", std::to_string(512 * (1 + rnd.Uniform(3))) + "Mi");
        }
        if (gpu) {
          pb.Toleration("nvidia.com/gpu", "present");
        }
        if (pinned && under) {
          pb.NodeSelector("pinned", "nowhere");  // fits no other node
        }
        add(pb.Obj());
      }
    }
  }

  AutoscalingOptions options;
  SimulatedClock clock;
  log::Logger logger;
  testing::FakeCloudProvider cloud;
  std::unique_ptr<scheduler::Scheduler> sched;
  scheduler::ClusterSnapshot snapshot;
  std::vector<api::NodeConstSharedPtr> nodes;
  // The nodes' facts as the loop keeps them from loop to loop (node_facts.h); the loop's
  // benchmark (loop_bench.cc) times their upkeep.
  NodeFactsCache facts_cache;
  const std::vector<const NodeFacts*>* facts = nullptr;
  int candidates = 0;
};

World& WorldOf(int n, bool pinned = false) {
  static std::map<std::pair<int, bool>, std::unique_ptr<World>> worlds;
  auto& w = worlds[{n, pinned}];
  if (!w) {
    w = std::make_unique<World>(n, pinned);
    w->facts = &w->facts_cache.Sync(w->nodes, w->cloud);
  }
  return *w;
}

void BM_PlannerUpdate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  World& w = WorldOf(n, state.range(2) != 0);
  AutoscalingOptions options;
  if (state.range(1) != 0) {
    options.max_scale_down_parallelism = n;
  }
  size_t unneeded = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto planner = std::make_unique<Planner>(options, w.cloud, w.sched->framework(), w.logger);
    state.ResumeTiming();
    planner->Update(w.clock.Now(), w.snapshot, *w.facts);
    unneeded = planner->unneeded().size();
    state.PauseTiming();
    planner.reset();
    state.ResumeTiming();
  }
  state.counters["candidates"] = w.candidates;
  state.counters["unneeded"] = static_cast<double>(unneeded);
}
BENCHMARK(BM_PlannerUpdate)
    ->Args({5000, 0, 0})
    ->Args({5000, 1, 0})
    ->Args({10000, 0, 0})
    ->Args({10000, 1, 0})
    ->Args({5000, 0, 1})
    ->ArgNames({"nodes", "all", "pinned"})
    ->Unit(benchmark::kMillisecond);

void BM_PlannerUpdateSteady(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  World& w = WorldOf(n);
  AutoscalingOptions options;
  if (state.range(1) != 0) {
    options.max_scale_down_parallelism = n;
  }
  Planner planner(options, w.cloud, w.sched->framework(), w.logger);
  TimePoint now = w.clock.Now();
  // Until the unneeded set stops growing (with CA's defaults it grows by up to 2 x parallelism
  // per pass until its cap, 610 nodes).
  size_t last = SIZE_MAX;
  for (int i = 0; i < 100 && planner.unneeded().size() != last; ++i) {
    last = planner.unneeded().size();
    now += std::chrono::seconds(10);
    planner.Update(now, w.snapshot, *w.facts);
  }
  for (auto _ : state) {
    now += std::chrono::seconds(10);
    planner.Update(now, w.snapshot, *w.facts);
  }
  state.counters["candidates"] = w.candidates;
  state.counters["unneeded"] = static_cast<double>(planner.unneeded().size());
}
BENCHMARK(BM_PlannerUpdateSteady)
    ->Args({5000, 0})
    ->Args({5000, 1})
    ->ArgNames({"nodes", "all"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool::autoscaler::scaledown

BENCHMARK_MAIN();
