// `tidepool simulate` at scale: a Deployment of N replicas on an empty autoscaled pool, run
// whole (RunScenario: the API's object store, kube-scheduler, the kubelets, kcm's controllers and
// the autoscaler on one event queue) until every replica runs. Issue 16's figure is N = 10,000
// 1-GPU replicas on a 1-GPU pool in <= 2 s of CPU; the counters say how far the run got
// (running replicas, and the simulated seconds it took until all ran).
//
//   ./build/bench/simulate_bench --benchmark_filter='BM_SimulateDeployment/replicas:1000'
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "runtime/scenario_run.h"
#include "sim/scenario.h"

namespace tidepool {
namespace {

std::string Scenario(int64_t replicas) {
  return R"(
seed: 1
autoscaler: {scan-interval: 10s, max-nodes-total: 20000}
nodePools:
- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 3}
- name: t4-pool
  machineType: n1-standard-4
  accelerator: {type: nvidia-tesla-t4, count: 1}
  minNodes: 0
  maxNodes: 10000
  taints: ["nvidia.com/gpu=present:NoSchedule"]
timeline:
- at: 0s
  as: gpu-infer.yaml
  apply:
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: gpu-infer}
    spec:
      replicas: )" + std::to_string(replicas) + R"(
      selector: {matchLabels: {app: gpu-infer}}
      template:
        metadata: {labels: {app: gpu-infer}}
        spec:
          containers:
          - name: c
            image: nginx
            resources: {limits: {nvidia.com/gpu: 1}}
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
runFor: 20m
)";
}

// Replicas of the Deployment that are Running.
int64_t RunningReplicas(const runtime::SimCluster& c) {
  int64_t running = 0;
  for (const sim::PodRecord& p : c.feed().Pods()) {
    running += p.pod->meta.name.rfind("gpu-infer-", 0) == 0 &&
               p.pod->status.phase == api::PodPhase::kRunning;
  }
  return running;
}

// Runs until every replica runs (checked every 10 simulated seconds), or the scenario's 20
// minutes are up.
void BM_SimulateDeployment(benchmark::State& state) {
  const int64_t replicas = state.range(0);
  auto scenario = sim::ParseScenario(Scenario(replicas), "bench.yaml", ".");
  if (!scenario.ok()) {
    state.SkipWithError(std::string(scenario.status().message()).c_str());
    return;
  }
  int64_t running = 0;
  double seconds = 0;
  for (auto _ : state) {
    auto cluster = runtime::RunScenario(*scenario, std::chrono::seconds(1));
    if (!cluster.ok()) {
      state.SkipWithError(std::string(cluster.status().message()).c_str());
      return;
    }
    runtime::SimCluster& c = **cluster;
    const TimePoint end = scenario->world.start + scenario->run_for;
    while ((running = RunningReplicas(c)) < replicas && c.Now() < end) {
      c.RunFor(std::chrono::seconds(10));
    }
    seconds = std::chrono::duration<double>(c.Now() - scenario->world.start).count();
  }
  state.counters["replicas"] = static_cast<double>(replicas);
  state.counters["running"] = static_cast<double>(running);
  state.counters["simulated_s"] = seconds;
}
BENCHMARK(BM_SimulateDeployment)
    ->ArgName("replicas")
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->MeasureProcessCPUTime();

}  // namespace
}  // namespace tidepool

BENCHMARK_MAIN();
