// File: report.h
//
// RunReport: what a capacity planner reads at the end of a `tidepool simulate` run, computed
// from the same changes the timeline shows (sim/timeline.h's TimelineRecorder feeds it):
//
//   - per node pool: nodes at the end, created and removed during the run, scale-ups and
//     scale-downs (changes of its size, those of one instant counted once), node-hours,
//     provisioned GPU-hours and cost (the cloud's PricingModel: the catalog's on-demand or spot
//     prices, cloud/emulated/catalog.cc names their source), and the totals;
//   - GPU-hours allocated (the GPUs of pods bound to a node, from binding until the pod ends or
//     is deleted) against provisioned (the GPUs of the nodes' machines, EmulatedCloud::
//     NodeGpuCount, from registration until deletion: what is paid for, whether the driver is
//     up or not);
//   - pending time (creation -> bound to a node) per workload class: pods, scheduled, p50, p90,
//     p99, max; a class is the pod's tidepool.dev/class label (traces, sim/trace.h), else its
//     workload ("Deployment/web", "Job/train", "StatefulSet/db", "ReplicaSet/rs"), else "Pod".
//     Percentiles are nearest-rank over the pods that were scheduled; pods never scheduled are
//     counted apart, with why: the last reason the cluster gave for that pod, the autoscaler's
//     NotTriggerScaleUp ("pod didn't trigger scale-up: ...") before kube-scheduler's
//     FailedScheduling, else "deleted before a scheduling attempt was recorded" (a trace's
//     short-lived pod) or "no scheduling attempt recorded" (it arrived just before the end) -
//     never empty;
//   - provisioning: nodes that registered during the run, and the time from the cloud's
//     request for the VM to the node's Ready (p50, max);
//   - over time (Series): pending pods, GPUs allocated and provisioned, nodes per pool and
//     the cost rate, each as a step function with a point per change.
// Counted: pods created after the start, outside kube-system and not owned by a DaemonSet (the
// cluster's own pods). Nodes and VMs of the warm-up count from the start. Everything is a
// function of the changes and their times, so a run gives the same report every time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/emulated/emulated_cloud.h"
#include "common/clock.h"
#include "common/status_or.h"
#include "sim/cluster_changes.h"

namespace tidepool::sim {

struct PoolReport {
  std::string name;
  int64_t size = 0;  // nodes at the end
  int64_t nodes_created = 0;
  int64_t nodes_removed = 0;
  // Resizes of the pool's target: up and down, changes at one instant counted once (a
  // scale-up of 0 -> 3 is one).
  int64_t scale_ups = 0;
  int64_t scale_downs = 0;
  double node_hours = 0;
  double gpu_hours = 0;  // provisioned
  double cost = 0;       // USD
};

struct ClassReport {
  std::string name;
  int64_t pods = 0;
  int64_t scheduled = 0;
  int64_t never_scheduled = 0;
  // Pending seconds of the scheduled pods (0 when none was).
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct ReportSummary {
  double simulated_seconds = 0;
  std::vector<PoolReport> pools;  // by name
  double node_hours = 0;
  double cost = 0;
  double gpu_hours_provisioned = 0;
  double gpu_hours_allocated = 0;
  std::vector<ClassReport> classes;  // by name
  // Pods never scheduled, per reason (most first, then by reason).
  std::vector<std::pair<std::string, int64_t>> unscheduled_reasons;
  int64_t nodes_provisioned = 0;
  double provision_p50 = 0, provision_max = 0;  // seconds
};

// A quantity over the run, as a step function: (seconds since the start, value from then on),
// one point per change, ordered by time.
struct TimeSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

// What the report's plots show (html_report.h).
struct ReportSeries {
  double end_seconds = 0;
  TimeSeries pending;                      // counted pods not yet bound
  TimeSeries gpus_allocated;               // GPUs of bound, running pods
  TimeSeries gpus_provisioned;             // GPUs of the nodes
  TimeSeries cost_per_hour;                // USD/h of the nodes (catalog prices)
  std::vector<TimeSeries> nodes_per_pool;  // by pool name
};

class RunReport {
 public:
  // `cloud` prices the nodes and names their pools' GPUs; it must outlive the report.
  RunReport(TimePoint start, cloud::emulated::EmulatedCloud& cloud);

  // Before the start (the warm-up) nodes are kept but nothing is counted.
  void set_counting(bool counting) { counting_ = counting; }
  // The cluster's state at the start.
  void Start(const std::vector<api::NodeConstSharedPtr>& nodes);
  void OnNode(const NodeChange& change, TimePoint now);
  void OnPod(const PodChange& change, TimePoint now);
  void OnEvent(const EventRecord& event);
  void OnCloudEvent(const cloud::emulated::CloudEvent& event);
  // The pool sizes the cloud reported last.
  void SetPoolSize(const std::string& pool, int64_t size) { pool_sizes_[pool] = size; }
  // A cloud pool's size went from `before` to `after` at `now` (counted while counting).
  void OnPoolResize(const std::string& pool, int64_t before, int64_t after, TimePoint now);

  ReportSummary Summarize(TimePoint now) const;
  ReportSeries Series(TimePoint now) const;

 private:
  struct NodeLife {
    api::NodeConstSharedPtr node;
    TimePoint from;
    std::optional<TimePoint> to;
    int64_t gpus = 0;  // the most it had
    double price_per_hour = 0;
  };
  // Moves a series to `value` at `now` (the warm-up's changes count at the start).
  void Step(TimeSeries& series, TimePoint now, double value);
  double HourlyPrice(const api::Node& node, TimePoint now) const;
  struct PodLife {
    std::string class_;
    double gpus = 0;  // physical GPUs: shares of a shared GPU as fractions
    TimePoint created;
    std::optional<TimePoint> bound;
    std::optional<TimePoint> ended;
    std::string scheduler_reason;   // the last FailedScheduling message
    std::string autoscaler_reason;  // the last NotTriggerScaleUp message
  };

  TimePoint start_;
  cloud::emulated::EmulatedCloud& cloud_;
  bool counting_ = false;
  std::map<std::string, NodeLife> nodes_;  // by name, every node seen
  std::map<std::string, int64_t> pool_sizes_;
  std::map<std::string, int64_t> nodes_created_;
  std::map<std::string, int64_t> nodes_removed_;
  struct Resizes {
    int64_t ups = 0, downs = 0;
    std::optional<TimePoint> last_up, last_down;
  };
  std::map<std::string, Resizes> resizes_;
  std::map<std::string, PodLife> pods_;  // by namespace/name, the counted ones
  std::map<std::string, TimePoint> vm_requested_;  // instance -> when the cloud was asked
  std::vector<double> provision_seconds_;
  // The plots' series and the values they stand at.
  ReportSeries series_;
  std::map<std::string, TimeSeries> pool_series_;
  double pending_ = 0, gpus_allocated_ = 0, gpus_provisioned_ = 0, cost_per_hour_ = 0;
  std::map<std::string, double> pool_nodes_;
};

// Nearest-rank percentile (q in (0, 100]) of `sorted` (ascending); 0 when empty.
double Percentile(const std::vector<double>& sorted, double q);

// How the report's numbers are written, the same in every output: `v` with `decimals` places
// ("%.*f"); `v` rounded to `decimals` places (the JSON's numbers); a CSV field, quoted when it
// holds a comma, a quote or a newline (RFC 4180).
std::string FormatFixed(double v, int decimals);
double RoundTo(double v, int decimals);
std::string CsvField(const std::string& v);
// One CSV line's fields, as CsvField writes them: commas separate; a field in double quotes may
// hold commas and "" for a quote. Nothing else is changed (a trailing '\r' stays).
std::vector<std::string> SplitCsvLine(std::string_view line);
// A file's bytes; NotFound "open <path>: no such file or directory" (scenarios, manifests,
// traces).
StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace tidepool::sim
