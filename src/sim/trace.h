// File: trace.h
//
// Traces as workloads of `tidepool simulate` (a scenario's `trace:` section, sim/scenario.h):
// each row of a real cluster's trace becomes a Pod that is created at the row's arrival and
// either runs for the row's duration once started (then exits 0: tidepool.dev/duration) or is
// deleted at the row's end. Formats (`format`, or told by the file's header row):
//
//   dlrm   Alibaba's 2025 GPU-disaggregated DLRM serving trace (README_v2025.md): instance_sn
//          (the name), role (CN/HN: the class), app_name (the owner), cpu_request (cores),
//          gpu_request, memory_request (GiB), creation_time (seconds since the trace's start;
//          NaN or empty: the instance existed before, it arrives at 0), deletion_time (NaN or
//          empty: still there at the end). A serving instance ends when its service removes
//          it, so the pod is deleted at deletion_time (whenever it started).
//   openb  Alibaba's 2023 openb pod lists (README_v2023.md): name, cpu_milli, memory_mib,
//          num_gpu, gpu_milli (< 1000: a share of one GPU), gpu_spec (GPU models, "A|B"), qos
//          (the class), creation_time, deletion_time, scheduled_time. The pod arrives at
//          creation_time and runs deletion_time - scheduled_time once started
//          (deletion_time - creation_time when it never was scheduled).
//   csv    tidepool's generic CSV: a header row, columns by name in any order:
//            arrival            seconds since the start (a number) or a Go duration; required
//            duration           run time once started (same forms), or
//            end                deletion time since the start; neither: runs to the end
//            cpu, memory        Kubernetes quantities ("500m", "16Gi"); required
//            gpus               whole GPUs (nvidia.com/gpu); default 0
//            gpuModel           a GPU model (translated by gpuModels, else a GKE accelerator
//                               name such as nvidia-tesla-t4)
//            name               the pod's name; default row-<line>
//            class              the class the report groups pending times by; default
//                               "default"
//            owner              a job or application id
//            priorityClassName  the pod's priority class
//
// Every pod: namespace `namespace` (default "default"), labels tidepool.dev/class and (when
// set) tidepool.dev/owner, restartPolicy Never, one container "main" requesting cpu, memory and
// nvidia.com/gpu (the GPUs as limits too, as the device plugin requires), the nvidia.com/gpu
// toleration when it asks for GPUs (what GKE's ExtendedResourceToleration admission adds), and
// a nodeSelector cloud.google.com/gke-accelerator when its GPU model maps to one (a required
// node affinity "In" when the row names several models, as openb's gpu_spec "A|B"; a model
// without a translation is counted in Trace::unmapped_gpu_models and does not constrain). Names are
// made DNS-1123 (lowercase; any other character becomes '-'); a name given twice is an error.
//
// A row asking for a share of one GPU (openb gpu_milli < 1000, a DLRM gpu_request below 1)
// gets a whole GPU, and Trace::shared_gpu_rows counts them, unless shared_gpus: then it asks for
// alibabacloud.com/gpu-milli (scheduler/framework/gpu_devices.h), which trace nodes advertise
// (1000 per GPU) and the GpuShare scheduling plugin packs per GPU.
//
// Nodes: `nodes_file` gives the trace's own fixed nodes, created before the pods - replaying a
// trace on the cluster it ran on; the scenario's pools (autoscaler off, or none to scale) add
// nothing then. Formats, told by the first line:
//   openb  openb_node_list_*.csv: sn, cpu_milli, memory_mib, gpu, model
//   pai    PAI 2020's machine spec, no header: machine, gpu_type, cap_cpu (cores), cap_mem
//          (GiB), cap_gpu; gpu_type CPU for CPU machines
//   spot   the 2026 spot GPU trace's node_info_df.csv: node_name (named spot-node-<n>),
//          gpu_model, gpu_capacity_num, cpu_num (vCPUs); it gives no memory, so a node gets
//          kSpotNodeMemoryPerCpuGiB per vCPU
//   csv    name, cpu, memory (Kubernetes quantities), gpus, gpuModel
//
// Options: classes keeps only the rows of those classes (dlrm's role, openb's qos, the CSV's
// class); time_scale multiplies every time (0.01 replays a day in under 15 minutes); sample
// keeps each row with that probability; load_factor (>= 1) adds copies of rows: each row
// floor(f) times, plus once more with probability f - floor(f) (copies named <name>-r<k>, with
// the row's times). The draws come from `seed`, so a scenario and seed give the same pods.
// Errors are InvalidArgument naming the file, line and column: "t.csv:12: cpu_milli: expected
// a number, got \"x\"".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::sim {

inline constexpr char kTraceClassLabel[] = "tidepool.dev/class";
inline constexpr char kTraceOwnerLabel[] = "tidepool.dev/owner";
// Memory of a spot trace node per vCPU, which the trace does not give: about GCE's A100
// machines' ratio (a2-highgpu: 85 GB for 12 vCPUs).
inline constexpr double kSpotNodeMemoryPerCpuGiB = 7.0;

struct TraceOptions {
  std::string file;    // resolved against the scenario's folder
  std::string format;  // "dlrm", "openb", "csv"; empty: told by the header
  double time_scale = 1.0;
  double sample = 1.0;
  double load_factor = 1.0;
  std::string namespace_ = "default";
  // A trace's GPU model -> GKE accelerator (the node selector).
  std::map<std::string, std::string> gpu_models;
  // Only rows of these classes (as the trace writes them, e.g. HN); empty: every row.
  std::vector<std::string> classes;
  // The trace's own nodes (ParseTraceNodes), created before its pods; empty: none.
  std::string nodes_file;
  // Shares of one GPU as alibabacloud.com/gpu-milli (see the file comment).
  bool shared_gpus = false;
};

// A node of the trace's own cluster (the formats above).
struct TraceNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int64_t gpus = 0;
  std::string gpu_model;        // as the trace names it
  std::string gpu_accelerator;  // through gpu_models; empty when it has no translation
};

struct TraceRow {
  std::string name;
  std::string class_;
  std::string owner;
  Duration arrival{};
  std::optional<Duration> run;  // runs this long once started
  std::optional<Duration> end;  // deleted at this time since the start
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int64_t gpus = 0;
  int32_t gpu_milli = 1000;  // of each GPU: < 1000 for a share of one
  // The GKE accelerators it may run on (node selector for one, node affinity "In" for
  // several); empty: any node.
  std::vector<std::string> gpu_accelerators;
  std::string priority_class;
};

struct Trace {
  std::string format;
  std::vector<TraceRow> rows;  // ordered by arrival, then file order
  int64_t rows_read = 0;       // data rows in the file
  int64_t shared_gpu_rows = 0;  // rows given a whole GPU for a share of one (kept rows)
  // GPU models of kept rows that the gpu_models map does not translate (no node selector).
  std::map<std::string, int64_t> unmapped_gpu_models;
};

// Parses `text` (the file's content; `file` names it in errors).
StatusOr<Trace> ParseTrace(const std::string& text, const TraceOptions& options, uint64_t seed);
// Reads options.file and parses it. NotFound "open <file>: no such file or directory".
StatusOr<Trace> LoadTrace(const TraceOptions& options, uint64_t seed);

// A label value made of `raw`: [A-Za-z0-9-_.], anything else becomes '-', at most 63
// characters, starting and ending with an alphanumeric character.
std::string LabelValue(std::string_view raw);

// The Pod a row becomes (see the file comment).
nlohmann::json TracePod(const TraceRow& row, const TraceOptions& options);

// The trace's nodes from `text` (options.nodes_file names it in errors), in file order.
StatusOr<std::vector<TraceNode>> ParseTraceNodes(const std::string& text,
                                                 const TraceOptions& options);
StatusOr<std::vector<TraceNode>> LoadTraceNodes(const TraceOptions& options);
// The Node a trace node becomes: created through the API as a KWOK node (annotation
// kwok.x-k8s.io/node: fake, which the kubelets make Ready, kubelet/node_status.h), node pool
// label "trace-nodes", tidepool.dev/gpu-model and, when mapped, the GKE accelerator label the
// pods' node selector names; capacity = allocatable = cpu, memory, nvidia.com/gpu (and
// alibabacloud.com/gpu-milli, 1000 per GPU, for shares), 110 pods.
nlohmann::json TraceNodeJson(const TraceNode& node);

}  // namespace tidepool::sim
