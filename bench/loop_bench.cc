// Whole control loops (Autoscaler::RunOnce) on the Cluster Autoscaler benchmark anchor's
// workload (../shared/reference/anchors-and-data.md §8), so that each figure compares with CA
// 1.31.5's full StaticAutoscaler.RunOnce measured on the same machine kind. A loop includes what
// CA's does: cluster state (readiness of every group's nodes and instances), the snapshot of
// every node and scheduled pod, templates, filtering pending pods that fit existing or upcoming
// capacity, the scale-up decision and its request, and (when no scale-up was made) the
// scale-down planner's pass.
//   BM_RunOnceSingleGroup/existing/pending/cap  one gpu-1x group; CA at E=1,000:
//                          N=10: 12.8 ms, N=100: 20.2 ms, N=1,000: 132 ms,
//                          N=10,000 uncapped: 3.52 s, N=10,000 with max-nodes-per-scaleup 1000:
//                          399 ms (E=100: 1.6 / 7.2 / 93 ms / 3.29 s / 369 ms)
//   BM_RunOnceFiveGroups/cap   five-group mix, N=10,000, E=1,000; CA: 637 ms (defaults, cap
//                          1000) / 1.25 s (uncapped)
//   BM_RunOnceNoPending/existing  no pending pod: the loop's fixed cost with scale-down planning
//                          (every existing node full, so none is a candidate, as in the anchor)
//   BM_RunOnceSteady/existing     the same, but later loops of one autoscaler over an unchanged
//                          view (what runs every scan interval in a quiet cluster)
// Each iteration runs one loop on a fresh autoscaler and cloud (set-up not timed), as CA's
// benchmark does. Results and the command: bench/README.md.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "autoscaler/core/autoscaler.h"
#include "bench/ca_anchor_workload.h"
#include "testing/autoscaler_fakes.h"
#include "testing/builders.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler {
namespace {

using bench::GroupSpec;
using bench::kFive;
using bench::kSingle;
using testing::MakePod;

api::Node NodeOf(const GroupSpec& g, const std::string& name) {
  api::Node n = bench::AnchorNode(g, name);
  n.meta.labels["cloud.google.com/gke-nodepool"] = g.name;
  return n;
}

// Created an hour before the loop: past CA's unschedulable-pod buffers, so every pending pod
// is considered (as in CA's benchmark, whose pods carry no creation time).
constexpr auto kAge = std::chrono::hours(1);

// A pending pod as the scheduler left it: PodScheduled=False/Unschedulable.
scheduler::PodInfoConstSharedPtr Pending(TimePoint now, api::Pod p) {
  p.meta.creation_timestamp = now - kAge;
  p.status.conditions.push_back(api::PodCondition{"PodScheduled", api::ConditionStatus::kFalse,
                                                  "Unschedulable", "", {}, {}});
  return scheduler::MakePodInfo(p);
}

// The cluster (a ClusterView of `existing` full, Ready nodes spread over `groups`, each one a
// running instance of its group) and everything a loop needs.
struct Loop {
  template <size_t N>
  Loop(const GroupSpec (&groups)[N], int existing) : logger("cluster-autoscaler", clock, false) {
    options.scale_down_enabled = true;
    const TimePoint now = clock.Now();
    std::vector<int> per_group(N, 0);
    for (int i = 0; i < existing; ++i) {
      const GroupSpec& g = groups[i % N];
      ++per_group[i % N];
      std::string name = std::string(g.name) + "-existing-" + std::to_string(i);
      api::Node node = NodeOf(g, name);
      node.spec.provider_id = "fake://" + std::string(g.name) + "/" + name;
      node.meta.creation_timestamp = now - kAge;
      view.nodes.push_back(std::make_shared<const api::Node>(std::move(node)));
      // One bound pod taking all its GPUs and all its CPU.
      auto hog = MakePod("hog-" + std::to_string(i)).OwnedBy("ReplicaSet", "hog").Req("cpu", g.cpu);
      if (g.gpus > 0) {
        hog.Req("nvidia.com/gpu", std::to_string(g.gpus))
            .TolerationExists("nvidia.com/gpu", api::TaintEffect::kNoSchedule);
      }
      api::Pod p = hog.Obj();
      p.spec.node_name = name;
      p.status.phase = api::PodPhase::kRunning;
      p.meta.creation_timestamp = now - kAge;
      view.scheduled_pods.push_back(scheduler::MakePodInfo(std::make_shared<const api::Pod>(std::move(p))));
    }
    for (size_t k = 0; k < N; ++k) {
      const GroupSpec& g = groups[k];
      groups_.push_back({g, per_group[k]});
    }
  }

  // A fresh cloud and autoscaler (the loop changes the cloud's targets).
  void Reset() {
    cloud = std::make_unique<testing::FakeCloudProvider>();
    for (const auto& [g, size] : groups_) {
      auto& group = cloud->AddGroup(g.name, 0, 1000000, size, NodeOf(g, std::string("template-") + g.name));
      for (const auto& n : view.nodes) {
        if (n->meta.labels.at("cloud.google.com/gke-nodepool") == g.name) {
          group.instances_.push_back({n->spec.provider_id, cloud::InstanceState::kRunning, {}});
        }
      }
    }
    random = std::make_unique<Random>(1);
    autoscaler = std::move(*Autoscaler::Create(options, *cloud, writer, recorder, logger, *random));
  }

  AutoscalingOptions options;
  SimulatedClock clock;
  log::Logger logger;
  testing::RecordingEventRecorder recorder;
  testing::FakeClusterWriter writer;
  std::unique_ptr<testing::FakeCloudProvider> cloud;
  std::unique_ptr<Random> random;
  std::unique_ptr<Autoscaler> autoscaler;
  ClusterView view;
  std::vector<std::pair<GroupSpec, int>> groups_;
};

int Increased(testing::FakeCloudProvider& cloud) {
  int total = 0;
  for (cloud::NodeGroup* g : cloud.NodeGroups()) {
    for (int d : static_cast<testing::FakeNodeGroup*>(g)->increases) total += d;
  }
  return total;
}

void RunLoops(benchmark::State& state, Loop& loop) {
  int nodes_added = 0;
  for (auto _ : state) {
    state.PauseTiming();
    loop.Reset();
    state.ResumeTiming();
    Status s = loop.autoscaler->RunOnce(loop.clock.Now(), loop.view);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    state.PauseTiming();
    nodes_added = Increased(*loop.cloud);
    loop.recorder.events.clear();
    state.ResumeTiming();
  }
  state.counters["nodes_added"] = nodes_added;
}

void BM_RunOnceSingleGroup(benchmark::State& state) {
  Loop loop(kSingle, static_cast<int>(state.range(0)));
  loop.options.max_nodes_per_scaleup = static_cast<int>(state.range(2));
  const TimePoint now = loop.clock.Now();
  for (int i = 0; i < state.range(1); ++i) {
    loop.view.pending_pods.push_back(Pending(now, bench::AnchorSinglePod(i)));
  }
  RunLoops(state, loop);
}
BENCHMARK(BM_RunOnceSingleGroup)
    ->ArgNames({"existing", "pending", "cap"})
    ->Args({100, 10, 1000})
    ->Args({1000, 10, 1000})
    ->Args({1000, 100, 1000})
    ->Args({1000, 1000, 1000})
    ->Args({100, 10000, 1000000})
    ->Args({1000, 10000, 1000000})
    ->Args({1000, 10000, 1000})
    ->Unit(benchmark::kMillisecond);

void BM_RunOnceFiveGroups(benchmark::State& state) {
  Loop loop(kFive, 1000);
  loop.options.max_nodes_per_scaleup = static_cast<int>(state.range(0));
  const TimePoint now = loop.clock.Now();
  bench::ForEachMixPod(10000, [&](api::Pod p) {
    loop.view.pending_pods.push_back(Pending(now, std::move(p)));
  });
  RunLoops(state, loop);
}
BENCHMARK(BM_RunOnceFiveGroups)->ArgNames({"cap"})->Arg(1000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// The loop that runs every scan interval while nothing changes: the same autoscaler and view
// after a first loop (CA rebuilds its snapshot every loop; tidepool keeps it).
void BM_RunOnceSteady(benchmark::State& state) {
  Loop loop(kFive, static_cast<int>(state.range(0)));
  loop.Reset();
  Status first = loop.autoscaler->RunOnce(loop.clock.Now(), loop.view);
  if (!first.ok()) {
    state.SkipWithError(first.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    Status s = loop.autoscaler->RunOnce(loop.clock.Now(), loop.view);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
}
BENCHMARK(BM_RunOnceSteady)->ArgNames({"existing"})->Arg(1000)->Arg(5000)->Unit(benchmark::kMillisecond);

void BM_RunOnceNoPending(benchmark::State& state) {
  Loop loop(kFive, static_cast<int>(state.range(0)));
  RunLoops(state, loop);
}
BENCHMARK(BM_RunOnceNoPending)->ArgNames({"existing"})->Arg(1000)->Arg(5000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool::autoscaler

BENCHMARK_MAIN();
