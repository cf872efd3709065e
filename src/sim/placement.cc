#include "sim/placement.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "api/codec/json_codec.h"
#include "common/random.h"
#include "scheduler/framework/runtime/framework.h"
#include "scheduler/plugins/packing/fgd.h"
#include "scheduler/plugins/packing/packing.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/snapshot/cluster_snapshot.h"
#include "sim/report.h"

namespace tidepool::sim {
namespace {

using nlohmann::json;
using scheduler::GpuDemand;
using scheduler::PodInfoConstSharedPtr;

// What every run of one trace shares: the nodes, the pods sorted by name, the typical pods.
struct Input {
  std::vector<api::Node> nodes;
  std::vector<PodInfoConstSharedPtr> pods;  // by name
  std::vector<scheduler::TypicalPod> typical;
  int64_t capacity_milli = 0;
  int64_t max_milli_cpu = 0;
  int32_t max_gpus = 0;
};

StatusOr<Input> LoadInput(TraceOptions options) {
  if (options.nodes_file.empty()) {
    return InvalidArgumentError("trace.nodes: required by placement (the trace's own nodes)");
  }
  options.shared_gpus = true;
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<TraceNode> nodes, LoadTraceNodes(options));
  for (TraceNode& n : nodes) {
    if (n.gpu_model.empty()) continue;
    auto [it, _] = options.gpu_models.try_emplace(n.gpu_model, LabelValue(n.gpu_model));
    n.gpu_accelerator = it->second;
  }
  TIDEPOOL_ASSIGN_OR_RETURN(Trace trace, LoadTrace(options, 0));
  if (!trace.unmapped_gpu_models.empty()) {
    // Models no node has: the pods asking for them fit nowhere, as in the trace's cluster.
    for (const auto& [model, _] : trace.unmapped_gpu_models) {
      options.gpu_models.try_emplace(model, LabelValue(model));
    }
    TIDEPOOL_ASSIGN_OR_RETURN(trace, LoadTrace(options, 0));
  }
  Input in;
  for (const TraceNode& n : nodes) {
    TIDEPOOL_ASSIGN_OR_RETURN(api::Node node, api::codec::NodeFromJson(TraceNodeJson(n)));
    in.nodes.push_back(std::move(node));
    in.capacity_milli += std::min<int64_t>(n.gpus, scheduler::kMaxGpusPerNode) * 1000;
    in.max_milli_cpu = std::max(in.max_milli_cpu, n.cpu_milli);
    in.max_gpus = std::max<int32_t>(in.max_gpus, static_cast<int32_t>(n.gpus));
  }
  if (in.capacity_milli == 0) {
    return InvalidArgumentError("trace.nodes: " + options.nodes_file + " has no GPUs");
  }
  std::sort(trace.rows.begin(), trace.rows.end(),
            [](const TraceRow& a, const TraceRow& b) { return a.name < b.name; });
  TIDEPOOL_ASSIGN_OR_RETURN(in.pods, TracePodInfos(trace, options));
  in.typical = scheduler::plugins::TypicalPods(in.pods, scheduler::PackingArgs().gpu_model_label);
  return in;
}

StatusOr<scheduler::Profile> PlacementProfile(const std::string& policy, const Input& in,
                                              uint64_t seed) {
  scheduler::PackingArgs args;
  args.seed = seed;
  args.max_milli_cpu = in.max_milli_cpu;
  args.max_gpus = in.max_gpus;
  args.typical_pods = in.typical;
  return scheduler::plugins::PackingProfile(policy, std::move(args));
}

std::string NodeName(size_t k, size_t n, const std::string& name) {
  const int width = std::max<int>(4, static_cast<int>(std::to_string(n).size()));
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%0*zu-", width, k);
  return prefix + name;
}

// The arrival order: shuffled by name, then the tuned copies (index into in.pods).
std::vector<size_t> Arrivals(const Input& in, double tune, Random& r) {
  const size_t n = in.pods.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  for (size_t i = n; i-- > 1;) std::swap(order[i], order[r.Uniform(i + 1)]);
  int64_t demand = 0;
  for (const auto& p : in.pods) demand += p->gpu_demand().total_milli();
  const auto target = static_cast<int64_t>(tune * static_cast<double>(in.capacity_milli));
  // A trace without GPU pods never reaches the target: copies stop at 10x the rows.
  while (demand < target && n > 0 && order.size() < 11 * n) {
    const size_t idx = r.Uniform(n);
    const GpuDemand& d = in.pods[idx]->gpu_demand();
    if (demand + (d.any() ? d.milli : 0) > target) break;
    order.push_back(idx);
    demand += d.total_milli();
  }
  return order;
}

double HalfEven(double v) { return std::nearbyint(v); }

StatusOr<PlacementRun> RunOne(const Input& in, const std::string& policy, uint64_t seed,
                              double tune) {
  PlacementRun run;
  run.policy = policy;
  run.seed = seed;
  TIDEPOOL_ASSIGN_OR_RETURN(scheduler::Profile profile, PlacementProfile(policy, in, seed));
  TIDEPOOL_ASSIGN_OR_RETURN(
      std::unique_ptr<scheduler::Framework> fw,
      scheduler::Framework::Create(scheduler::plugins::NewInTreeRegistry(), profile));
  Random r(seed);
  const std::vector<size_t> order = Arrivals(in, tune, r);
  scheduler::ClusterSnapshot snapshot;
  std::vector<size_t> perm(in.nodes.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  for (size_t i = perm.size(); i-- > 1;) std::swap(perm[i], perm[r.Uniform(i + 1)]);
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    api::Node node = in.nodes[i];
    node.meta.name = NodeName(perm[i], in.nodes.size(), node.meta.name);
    node.meta.labels["kubernetes.io/hostname"] = node.meta.name;
    TIDEPOOL_RETURN_IF_ERROR(snapshot.AddNode(node));
  }
  run.pods = static_cast<int64_t>(order.size());
  run.tuned = run.pods - static_cast<int64_t>(in.pods.size());
  const double percent = static_cast<double>(in.capacity_milli) / 100.0;
  std::vector<double> sum;
  std::vector<int64_t> count;
  int64_t arrived = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    PodInfoConstSharedPtr pod = in.pods[order[i]];
    if (i >= in.pods.size()) {
      api::Pod copy = pod->ToPod();
      copy.meta.name += "-tuned-" + std::to_string(i - in.pods.size());
      copy.meta.uid = copy.meta.name;
      pod = scheduler::MakePodInfo(copy);
    }
    arrived += pod->gpu_demand().total_milli();
    scheduler::ScheduleResult result = fw->Schedule(*pod, snapshot, /*explain=*/false);
    if (result.Scheduled()) {
      TIDEPOOL_RETURN_IF_ERROR(snapshot.AddPod(
          pod->WithPlacement(result.node, result.reservation.gpu_indices), result.node));
      ++run.scheduled;
      run.allocated_milli += pod->gpu_demand().total_milli();
    } else {
      ++run.failed;
    }
    const auto k = static_cast<size_t>(std::max(0.0, HalfEven(arrived / percent)));
    if (k >= sum.size()) {
      sum.resize(k + 1, 0);
      count.resize(k + 1, 0);
    }
    sum[k] += RoundTo(static_cast<double>(run.allocated_milli) / percent, 2);
    ++count[k];
  }
  run.alloc.resize(sum.size());
  for (size_t k = 0; k < sum.size(); ++k) {
    double s = 0;
    int64_t c = 0;
    if (count[k] > 0) {
      s = sum[k];
      c = count[k];
    } else {
      for (size_t j = k == 0 ? 0 : k - 1; j <= k + 1 && j < sum.size(); ++j) {
        s += sum[j];
        c += count[j];
      }
    }
    if (c > 0) run.alloc[k] = RoundTo(s / static_cast<double>(c), 2);
  }
  return run;
}

struct Spread {
  double mean = 0;
  double sd = 0;
  int n = 0;
};

// Mean and sample standard deviation of alloc(k) over the runs of `policy`.
Spread AllocSpread(const PlacementReport& report, const std::string& policy, size_t k) {
  std::vector<double> v;
  for (const PlacementRun& run : report.runs) {
    if (run.policy == policy && k < run.alloc.size() && run.alloc[k].has_value()) {
      v.push_back(*run.alloc[k]);
    }
  }
  Spread s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  return s;
}

std::vector<std::string> PoliciesOf(const PlacementReport& report) {
  std::vector<std::string> out;
  for (const PlacementRun& run : report.runs) {
    if (std::find(out.begin(), out.end(), run.policy) == out.end()) out.push_back(run.policy);
  }
  return out;
}

std::string SpreadText(const Spread& s) {
  if (s.n == 0) return "-";
  return FormatFixed(s.mean, 2) + " ± " + FormatFixed(s.sd, 2);
}

}  // namespace

StatusOr<std::vector<PodInfoConstSharedPtr>> TracePodInfos(const Trace& trace,
                                                           const TraceOptions& options) {
  std::vector<PodInfoConstSharedPtr> pods;
  pods.reserve(trace.rows.size());
  for (const TraceRow& row : trace.rows) {
    TIDEPOOL_ASSIGN_OR_RETURN(api::Pod pod, api::codec::PodFromJson(TracePod(row, options)));
    pod.meta.uid = pod.meta.name;
    pods.push_back(scheduler::MakePodInfo(pod));
  }
  return pods;
}

const std::vector<std::string>& PlacementPolicies() {
  return scheduler::plugins::PackingPolicies();
}

StatusOr<PlacementReport> RunPlacement(const TraceOptions& trace, const PlacementSpec& spec,
                                       uint64_t default_seed, int jobs) {
  TIDEPOOL_ASSIGN_OR_RETURN(Input in, LoadInput(trace));
  const std::vector<std::string> policies =
      spec.policies.empty() ? PlacementPolicies() : spec.policies;
  const std::vector<uint64_t> seeds =
      spec.seeds.empty() ? std::vector<uint64_t>{default_seed} : spec.seeds;
  std::vector<std::pair<std::string, uint64_t>> todo;
  for (const auto& p : policies) {
    for (uint64_t s : seeds) todo.emplace_back(p, s);
  }
  std::vector<StatusOr<PlacementRun>> results(todo.size(), InternalError("not run"));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < todo.size(); i = next++) {
      results[i] = RunOne(in, todo[i].first, todo[i].second, spec.tune);
    }
  };
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min<int>(jobs, static_cast<int>(todo.size()));
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  PlacementReport report;
  report.trace_file = trace.file;
  report.nodes = static_cast<int64_t>(in.nodes.size());
  report.gpus = in.capacity_milli / 1000;
  report.rows = static_cast<int64_t>(in.pods.size());
  for (auto& r : results) {
    if (!r.ok()) return r.status();
    report.runs.push_back(*std::move(r));
  }
  return report;
}

void PrintPlacement(const PlacementReport& report, const std::string& format, std::ostream& out) {
  const std::vector<std::string> policies = PoliciesOf(report);
  if (format == "csv") {
    out << "policy,seed,arrived_percent,allocated_percent\n";
    for (const PlacementRun& run : report.runs) {
      for (size_t k = 0; k < run.alloc.size(); ++k) {
        if (!run.alloc[k].has_value()) continue;
        out << CsvField(run.policy) << ',' << run.seed << ',' << k << ','
            << FormatFixed(*run.alloc[k], 2) << '\n';
      }
    }
    return;
  }
  if (format == "json") {
    json runs = json::array();
    for (const PlacementRun& run : report.runs) {
      json curve = json::array();
      for (size_t k = 0; k < run.alloc.size(); ++k) {
        if (run.alloc[k].has_value())
          curve.push_back({{"arrived", k}, {"allocated", *run.alloc[k]}});
      }
      runs.push_back({{"policy", run.policy},
                      {"seed", run.seed},
                      {"pods", run.pods},
                      {"tunedPods", run.tuned},
                      {"scheduled", run.scheduled},
                      {"failed", run.failed},
                      {"allocatedGpus", static_cast<double>(run.allocated_milli) / 1000.0},
                      {"curve", curve}});
    }
    json summary = json::array();
    for (const std::string& p : policies) {
      json row = {{"policy", p}};
      for (size_t k : {100, 130}) {
        Spread s = AllocSpread(report, p, k);
        if (s.n > 0)
          row["alloc" + std::to_string(k)] = {{"mean", RoundTo(s.mean, 2)},
                                              {"sd", RoundTo(s.sd, 2)}};
      }
      summary.push_back(row);
    }
    out << json{{"trace", report.trace_file}, {"nodes", report.nodes}, {"gpus", report.gpus},
                {"pods", report.rows},        {"runs", runs},          {"summary", summary}}
               .dump(2)
        << "\n";
    return;
  }
  int seeds = 0;
  for (const PlacementRun& run : report.runs) seeds += run.policy == report.runs[0].policy;
  out << "# placement (the FGD paper's experiment): " << report.rows << " pods of "
      << report.trace_file << " on " << report.nodes << " nodes with " << report.gpus << " GPUs, "
      << seeds << (seeds == 1 ? " seed" : " seeds") << "\n";
  out << "# GPU allocation (% of the cluster's GPUs) when the GPU demand arrived reaches 100% and "
         "130% of them: mean ± standard deviation over the seeds; pods that fit nowhere and GPUs "
         "left unallocated at the end, per run on average\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %-16s %-16s %12s %18s\n", "POLICY", "ALLOC@100%",
                "ALLOC@130%", "FAILED PODS", "UNALLOCATED GPUS");
  out << line;
  for (const std::string& p : policies) {
    double failed = 0, unallocated = 0;
    int n = 0;
    for (const PlacementRun& run : report.runs) {
      if (run.policy != p) continue;
      failed += static_cast<double>(run.failed);
      unallocated += static_cast<double>(report.gpus * 1000 - run.allocated_milli) / 1000.0;
      ++n;
    }
    const std::string a100 = SpreadText(AllocSpread(report, p, 100));
    const std::string a130 = SpreadText(AllocSpread(report, p, 130));
    // "±" is two bytes: pad by characters, not bytes.
    auto pad = [](std::string s) {
      const size_t chars = s.size() - (s.find("±") != std::string::npos ? 1 : 0);
      if (chars < 16) s.append(16 - chars, ' ');
      return s;
    };
    std::snprintf(line, sizeof line, "%-14s ", p.c_str());
    out << line << pad(a100) << ' ' << pad(a130) << ' ';
    std::snprintf(line, sizeof line, "%12s %18s\n", FormatFixed(failed / n, 1).c_str(),
                  FormatFixed(unallocated / n, 1).c_str());
    out << line;
  }
}

}  // namespace tidepool::sim
