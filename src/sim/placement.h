// File: placement.h
//
// The placement experiment of the FGD paper (Weng et al., USENIX ATC'23) on tidepool's one
// scheduling engine: a trace's pods arrive one by one on the trace's own fixed nodes, each is
// scheduled once (a pod that fits nowhere is dropped, never retried), none leaves, and the
// GPU allocation ratio is recorded against the GPU demand arrived. docs/fgd-protocol.md
// specifies the protocol as the authors' simulator runs it; what tidepool does:
//
//   - nodes: trace.nodes (openb_node_list_gpu_node.csv), each GPU model its own accelerator
//     label (unless trace.gpuModels maps it), renamed "<k>-<name>" with k (four digits) from a
//     seeded permutation, so that ties between nodes go to a random but fixed node per seed;
//   - pods: every row of trace.file as sim/trace.h makes it, shares of one GPU as
//     alibabacloud.com/gpu-milli; sorted by name, shuffled, then resampled (`tune`): a row drawn
//     uniformly is appended as "<name>-tuned-<i>" until the GPU demand would pass tune x the
//     cluster's GPUs (the loop stops at the first row that would);
//   - scheduling: the policy's profile (scheduler/plugins/packing/packing.h PackingProfile:
//     kube-scheduler's filters plus GpuShare, the policy the only score plugin, GPUs chosen at
//     Reserve by FGD for FGD, at random for Random, best fit otherwise), FGD's typical pods
//     from the trace's pods;
//   - the metric: after each pod, arrived = milli-GPU asked so far (failed pods included) and
//     allocated = milli-GPU in use, both in percent of the cluster's; alloc(k) = the mean of the
//     allocated percents (each rounded to 2 places) of the pods whose arrived percent rounds
//     (half to even) to k, else of those rounding to k-1..k+1, else none - the authors'
//     analysis scripts.
// Every draw comes from the seed (common/random.h): a scenario and seed give the same bytes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "sim/trace.h"

namespace tidepool::scheduler {
class PodInfo;
}

namespace tidepool::sim {

// The trace's rows as the scheduler sees their pods (TracePod, uid = the name), in row order:
// the placement experiment's pods and FGD's typical pods (scheduler.packing).
StatusOr<std::vector<std::shared_ptr<const scheduler::PodInfo>>> TracePodInfos(
    const Trace& trace, const TraceOptions& options);

// A scenario's `placement:` section.
struct PlacementSpec {
  // Score plugins, each a run per seed: Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD.
  std::vector<std::string> policies;
  std::vector<uint64_t> seeds;  // empty: the scenario's seed
  double tune = 1.3;            // resample up to this x the cluster's GPUs (>= 1: no removal)
};

// The policies tidepool knows, in the paper's order.
const std::vector<std::string>& PlacementPolicies();

struct PlacementRun {
  std::string policy;
  uint64_t seed = 0;
  int64_t pods = 0;  // after tuning
  int64_t tuned = 0;
  int64_t scheduled = 0;
  int64_t failed = 0;
  int64_t allocated_milli = 0;  // at the end
  // alloc(k) for k = 0..max_k (percent; nullopt: no pod near k).
  std::vector<std::optional<double>> alloc;
};

struct PlacementReport {
  std::string trace_file;
  int64_t nodes = 0;
  int64_t gpus = 0;
  int64_t rows = 0;                // the trace's pods before tuning
  std::vector<PlacementRun> runs;  // policy by policy, seeds in order
};

// Runs every policy x seed (in parallel on `jobs` threads; 0: the machine's cores).
StatusOr<PlacementReport> RunPlacement(const TraceOptions& trace, const PlacementSpec& spec,
                                       uint64_t default_seed, int jobs = 0);

// text: one line per policy, alloc(100) and alloc(130) as mean and standard deviation over the
// seeds (the FGD paper's table), pods failed and GPUs unallocated at the end; json: every run
// with its whole curve; csv: policy,seed,arrived,allocated rows.
void PrintPlacement(const PlacementReport& report, const std::string& format, std::ostream& out);

}  // namespace tidepool::sim
