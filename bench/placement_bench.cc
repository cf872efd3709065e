// The FGD paper's placement experiment (sim/placement.h) on Alibaba's openb traces: one run of
// one policy and one seed, loading included, as `tidepool simulate examples/fgd/*.yaml` runs
// each. Issue 19's target: at most 1 s per policy and seed (the authors' simulator: about 10
// minutes per run on 2 vCPU). Counters: the allocation at 100 % and 130 % arrived.
//
//   ./build/bench/placement_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//
// The traces are read from $TIDEPOOL_TRACES, default ../shared/data/traces beside the source.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "sim/placement.h"

namespace tidepool {
namespace {

std::string Traces() {
  const char* env = std::getenv("TIDEPOOL_TRACES");
  return env != nullptr ? env : std::string(TIDEPOOL_SOURCE_DIR) + "/../shared/data/traces";
}

void BM_Placement(benchmark::State& state, const std::string& trace, const std::string& policy) {
  sim::TraceOptions o;
  o.file = Traces() + "/openb_pod_list_" + trace + ".csv";
  o.nodes_file = Traces() + "/openb_node_list_gpu_node.csv";
  o.format = "openb";
  sim::PlacementSpec spec{.policies = {policy}, .seeds = {42}, .tune = 1.3};
  for (auto _ : state) {
    auto report = sim::RunPlacement(o, spec, 42, 1);
    if (!report.ok()) {
      state.SkipWithError(std::string(report.status().message()).c_str());
      return;
    }
    const sim::PlacementRun& run = report->runs[0];
    state.counters["alloc100"] = run.alloc.size() > 100 ? run.alloc[100].value_or(0) : 0;
    state.counters["alloc130"] = run.alloc.size() > 130 ? run.alloc[130].value_or(0) : 0;
    state.counters["pods"] = static_cast<double>(run.pods);
  }
}

#define PLACEMENT(trace, policy) \
  BENCHMARK_CAPTURE(BM_Placement, trace##_##policy, #trace, #policy)->Unit(benchmark::kMillisecond)

PLACEMENT(default, Random);
PLACEMENT(default, DotProd);
PLACEMENT(default, GpuClustering);
PLACEMENT(default, GpuPacking);
PLACEMENT(default, BestFit);
PLACEMENT(default, FGD);
PLACEMENT(gpuspec33, Random);
PLACEMENT(gpuspec33, DotProd);
PLACEMENT(gpuspec33, GpuClustering);
PLACEMENT(gpuspec33, GpuPacking);
PLACEMENT(gpuspec33, BestFit);
PLACEMENT(gpuspec33, FGD);

}  // namespace
}  // namespace tidepool

BENCHMARK_MAIN();
