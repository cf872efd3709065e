// Scale-up decisions on the Cluster Autoscaler benchmark anchor's workload
// (../shared/reference/anchors-and-data.md §8), rebuilt exactly, so that each figure compares
// with CA 1.31.5 measured on the same machine kind:
//   BM_EstimateSingleGroup/N      the binpacking estimator alone: N pending 1-GPU pods, one
//                                 1-GPU group, 1,000 full existing nodes, no cap
//                                 (CA at N=10,000: 2.91 s)
//   BM_ScaleUpSingleGroup/N/cap   one ScaleUp() (CA uncapped at N=10,000: 4.45 s; with the
//                                 default max-nodes-per-scaleup 1000: 277 ms)
//   BM_ScaleUpFiveGroups          one ScaleUp() on the five-group mix at N=10,000, E=1,000
//                                 (CA: 1.85 s uncapped, picks cpu-only +750)
//   BM_PlaceFiveGroupMix          scale-ups until the whole mix is placed, each round's new
//                                 nodes added as upcoming capacity (CA: 3 loops, 3.17 s)
// Results and the command: bench/README.md.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "autoscaler/core/scale_up.h"
#include "bench/ca_anchor_workload.h"
#include "scheduler/scheduler.h"
#include "testing/builders.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler {
namespace {

using bench::AnchorNode;
using bench::GroupSpec;
using bench::kFive;
using bench::kSingle;
using testing::MakePod;

std::vector<scheduler::PodInfoConstSharedPtr> SinglePods(int n) {
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  for (int i = 0; i < n; ++i) {
    pods.push_back(scheduler::MakePodInfo(bench::AnchorSinglePod(i)));
  }
  return pods;
}

std::vector<scheduler::PodInfoConstSharedPtr> MixPods(int n) {
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  bench::ForEachMixPod(n, [&](const api::Pod& p) { pods.push_back(scheduler::MakePodInfo(p)); });
  return pods;
}

class NullRecorder final : public EventRecorder {
 public:
  void Event(const ObjectRef&, std::string_view, std::string_view, std::string) override {}
};

// A cluster of `existing` full nodes spread over `groups`, and the fake cloud for them.
struct World {
  template <size_t N>
  World(const GroupSpec (&groups)[N], int existing, int max_nodes_per_scaleup)
      : logger("cluster-autoscaler", clock, false) {
    options.max_nodes_per_scaleup = max_nodes_per_scaleup;
    sched = std::move(*scheduler::Scheduler::Create());
    strategy = std::move(*expander::NewStrategy(expander::ExpanderConfig{}, random));
    for (const GroupSpec& g : groups) {
      cloud.AddGroup(g.name, 0, 1000000, 0, AnchorNode(g, std::string("template-") + g.name));
      ctx.templates[g.name] = *cloud.group(g.name).TemplateNode();
    }
    for (int i = 0; i < existing; ++i) {
      const GroupSpec& g = groups[i % N];
      std::string name = std::string(g.name) + "-existing-" + std::to_string(i);
      api::Node node = AnchorNode(g, name);
      node.meta.labels["cloud.google.com/gke-nodepool"] = g.name;
      (void)snapshot.AddNode(std::make_shared<const api::Node>(node));
      // One bound pod taking all its GPUs and all its CPU.
      auto hog = MakePod("hog-" + std::to_string(i), "kube-system").Req("cpu", g.cpu);
      if (g.gpus > 0) {
        hog.Req("nvidia.com/gpu", std::to_string(g.gpus));
      }
      (void)snapshot.AddPod(scheduler::MakePodInfo(hog.Ptr()), name);
    }
    ctx.total_nodes = existing;
  }

  AutoscalingOptions options;
  Random random{1};
  SimulatedClock clock;
  log::Logger logger;
  NullRecorder recorder;
  testing::FakeCloudProvider cloud;
  std::unique_ptr<scheduler::Scheduler> sched;
  std::unique_ptr<expander::Strategy> strategy;
  scheduler::ClusterSnapshot snapshot;
  ScaleUpContext ctx;
};

void BM_EstimateSingleGroup(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  World w(kSingle, 1000, 1000000);
  auto groups = BuildPodEquivalenceGroups(SinglePods(n));
  BinpackingEstimator est(w.sched->framework());
  int nodes = 0;
  for (auto _ : state) {
    EstimateResult r = est.Estimate(groups, w.ctx.templates["gpu-1x"], "gpu-1x", 1000000, w.snapshot);
    nodes = r.node_count;
  }
  state.counters["nodes"] = nodes;
}
BENCHMARK(BM_EstimateSingleGroup)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_PodEquivalenceGroups(benchmark::State& state) {
  auto pods = SinglePods(static_cast<int>(state.range(0)));
  size_t groups = 0;
  for (auto _ : state) {
    groups = BuildPodEquivalenceGroups(pods).size();
  }
  state.counters["groups"] = static_cast<double>(groups);
}
BENCHMARK(BM_PodEquivalenceGroups)->Arg(10000)->Unit(benchmark::kMillisecond);

// Runs `body(world, orchestrator)` timed; building and destroying the world is not timed.
template <size_t N, typename Body>
void TimedScaleUps(benchmark::State& state, const GroupSpec (&groups)[N], int cap, Body body) {
  std::unique_ptr<World> w;
  std::unique_ptr<ScaleUpOrchestrator> o;
  for (auto _ : state) {
    state.PauseTiming();
    o.reset();
    w.reset();
    w = std::make_unique<World>(groups, 1000, cap);
    o = std::make_unique<ScaleUpOrchestrator>(w->options, w->cloud, w->sched->framework(),
                                              *w->strategy, w->recorder, w->logger);
    state.ResumeTiming();
    body(*w, *o);
  }
  // Destroyed after the timed loop has ended.
}

void BM_ScaleUpSingleGroup(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int cap = static_cast<int>(state.range(1));
  auto pods = SinglePods(n);
  std::vector<ScaleUpResult> results;  // destroyed after timing
  results.reserve(100000);
  TimedScaleUps(state, kSingle, cap, [&](World& w, ScaleUpOrchestrator& o) {
    results.push_back(o.ScaleUp(SimulatedClock::kDefaultStart, pods, w.snapshot, w.ctx));
  });
  state.counters["nodes"] = results.empty() || results.back().infos.empty()
                                ? 0
                                : results.back().infos[0].new_size;
}
BENCHMARK(BM_ScaleUpSingleGroup)
    ->Args({10000, 1000000})
    ->Args({10000, 1000})
    ->ArgNames({"pods", "cap"})
    ->Unit(benchmark::kMillisecond);

void BM_ScaleUpFiveGroups(benchmark::State& state) {
  auto pods = MixPods(10000);
  std::vector<ScaleUpResult> results;
  results.reserve(100000);
  TimedScaleUps(state, kFive, 1000000, [&](World& w, ScaleUpOrchestrator& o) {
    results.push_back(o.ScaleUp(SimulatedClock::kDefaultStart, pods, w.snapshot, w.ctx));
  });
  if (!results.empty() && !results.back().infos.empty()) {
    state.SetLabel(results.back().infos[0].group);
    state.counters["nodes"] = results.back().infos[0].new_size;
  }
}
BENCHMARK(BM_ScaleUpFiveGroups)->Unit(benchmark::kMillisecond);

void BM_PlaceFiveGroupMix(benchmark::State& state) {
  auto all = MixPods(10000);
  int loops = 0, total = 0;
  std::vector<ScaleUpResult> results;
  results.reserve(100000);
  TimedScaleUps(state, kFive, 1000000, [&](World& w, ScaleUpOrchestrator& o) {
    const std::vector<scheduler::PodInfoConstSharedPtr>* pending = &all;
    loops = 0;
    total = 0;
    while (!pending->empty()) {
      results.push_back(o.ScaleUp(SimulatedClock::kDefaultStart, *pending, w.snapshot, w.ctx));
      const ScaleUpResult& r = results.back();
      if (r.kind != ScaleUpResult::Kind::kSuccessful) {
        break;
      }
      ++loops;
      // The new nodes become upcoming capacity holding the pods they were bought for.
      const int added = r.infos[0].new_size - r.infos[0].current_size;
      total += added;
      w.ctx.total_nodes += added;
      pending = &r.pods_remain_unschedulable;
    }
  });
  state.counters["loops"] = loops;
  state.counters["nodes"] = total;
}
BENCHMARK(BM_PlaceFiveGroupMix)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool::autoscaler

BENCHMARK_MAIN();
