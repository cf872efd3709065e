// File: timeline.h
//
// Timeline: what a person following the walkthrough would see, in one stream, each line stamped
// with the simulated time since the scenario started ("[00:03:21]"):
//
//   [00:00:00] $ kubectl apply -f gpu-test-pod.yaml                  scenario actions, and
//   [00:00:00]   pod/gpu-test-pod created                            what kubectl/gcloud print
//   [00:00:00] pod     gpu-test-pod  0/1  Pending  0  0s             `kubectl get pods -w -o wide`
//   [00:00:00] event   Warning  FailedScheduling  pod/gpu-test-pod  default-scheduler  0/3 ...
//   [00:00:01] log     I0101 00:00:01.000000       1 scale_up.cc:88] Scale-up: setting ...
//   [00:00:01] pool    gpu-pool  0 -> 1                           node pool target size
//   [00:00:01] vm      gke-tidepool-gpu-pool-...  PROVISIONING        GCE instance states
//   [00:00:51] node    gke-tidepool-gpu-pool-...  NotReady  <none>  0s      `kubectl get nodes -w`
//   [00:03:21] node    gke-tidepool-gpu-pool-...  Ready  <none>  2m30s  nvidia.com/gpu: 1
//
// Pod lines show NAME READY STATUS RESTARTS AGE NODE (STATUS as kubectl computes it:
// ContainerCreating, Running, Completed, Terminating, ...) and are printed when one of them
// other than AGE changes; "deleted" when the pod is gone. Node lines show NAME STATUS ROLES AGE
// and the allocatable GPUs, printed when the status or GPUs change; taints other than the
// not-ready one are printed when added or removed; "deleted" when the node is gone. Events are
// TYPE REASON OBJECT SOURCE MESSAGE, with "(xN)" when an identical event repeats. Log lines
// are the autoscaler's klog lines (`kubectl logs -f cluster-autoscaler-...`), with the thread
// id field shown as 1 as in a container; the emulated cloud's warnings (stockouts, quota) are
// "cloud" lines in the same klog format.
//
// ToText and ToJson render the same entries; the JSON is an array of objects with "time"
// ("00:03:21"), "seconds", "timestamp" (RFC 3339), "kind", "object", "text" and the kind's own
// fields. Everything is a function of the recorded entries, so the same run gives the same
// bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cloud/emulated/emulated_cloud.h"
#include "common/clock.h"
#include "common/log.h"
#include "sim/cluster_changes.h"
#include "sim/report.h"

namespace tidepool::sim {

using FieldValue = std::variant<std::string, int64_t, bool, double>;

using Fields = std::vector<std::pair<std::string, FieldValue>>;

// The summary's figures as fields, named once for every output (the timeline's JSON and CSV,
// the HTML page's data block): a pool's, a class's, the cluster's totals.
Fields PoolFields(const PoolReport& p);
Fields ClassFields(const ClassReport& c);
Fields TotalFields(const ReportSummary& s);

struct TimelineEntry {
  TimePoint time;
  Duration elapsed;    // since the timeline's start
  std::string kind;    // "action", "output", "pod", "node", "pool", "vm", "event", "log", "summary"
  std::string object;  // "pod/gpu-test-pod", "node/<name>", "nodepool/gpu-pool", ...
  std::string text;    // the line after the time stamp
  Fields fields;
};

class Timeline {
 public:
  explicit Timeline(TimePoint start) : start_(start) {}

  TimePoint start() const { return start_; }
  // Entries before the start (the cluster's warm-up) are dropped while disabled.
  void set_enabled(bool enabled) { enabled_ = enabled; }
  bool enabled() const { return enabled_; }
  // Keeps only the "summary" and "trace" entries (a long run printed with --summary: the
  // timeline of a month of a fleet is millions of lines).
  void set_summary_only(bool summary_only) { summary_only_ = summary_only; }

  void Add(TimePoint at, std::string kind, std::string object, std::string text,
           std::vector<std::pair<std::string, FieldValue>> fields = {});
  const std::vector<TimelineEntry>& entries() const { return entries_; }
  // Index of the first entry at or after `from` whose text contains `needle`, or -1.
  int Find(std::string_view needle, int from = 0) const {
    for (size_t i = static_cast<size_t>(from < 0 ? 0 : from); i < entries_.size(); ++i) {
      if (entries_[i].text.find(needle) != std::string::npos) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // "[HH:MM:SS] <text>\n" per entry; `summary_only`: the "summary" and "trace" entries.
  std::string ToText(bool summary_only = false) const;
  // A JSON array, one object per entry, pretty-printed with two spaces.
  std::string ToJson(bool summary_only = false) const;
  // The run's summary (report.h) as CSV, one number per row: "section,name,metric,value",
  // e.g. "nodepool,gpu-pool,cost,4603.2", "class,HN,p99Seconds,240",
  // "unscheduled,<reason>,pods,26", "cluster,,gpuHoursAllocated,1459.93".
  std::string SummaryCsv() const;

 private:
  TimePoint start_;
  bool enabled_ = true;
  bool summary_only_ = false;
  std::vector<TimelineEntry> entries_;
};

// kubectl's STATUS column for a pod (printPod in kubectl's printers).
std::string KubectlPodStatus(const PodRecord& pod);
// kubectl's STATUS column for a node: Ready / NotReady / Unknown, ",SchedulingDisabled".
std::string KubectlNodeStatus(const api::Node& node);

// Fills a Timeline from the cluster's changes (the ChangeObserver calls: runtime/timeline_feed.h
// feeds them from informers of the API), the cloud's events and
// log sinks.
class TimelineRecorder final : public ChangeObserver, public cloud::emulated::CloudObserver {
 public:
  // Every reference must outlive the recorder; registers itself with `cloud`.
  TimelineRecorder(Timeline& timeline, const Clock& clock, cloud::emulated::EmulatedCloud& cloud);
  ~TimelineRecorder() override;
  TimelineRecorder(const TimelineRecorder&) = delete;
  TimelineRecorder& operator=(const TimelineRecorder&) = delete;

  // A sink for a component's log (log::Logger::AddSink).
  log::LineSink LogSink(std::string component);
  // Writes the node pools and the cluster's `nodes` and `pods` (the state at the start), as
  // `gcloud container node-pools list`, `kubectl get nodes` and `kubectl get pods` show them.
  void RecordInitialState(const std::vector<api::NodeConstSharedPtr>& nodes,
                          const std::vector<PodRecord>& pods);
  // Writes the end-of-run summary, with the cluster's `pods` then.
  void RecordSummary(uint64_t seed, const std::vector<PodRecord>& pods);

  // The run's report so far (warm-up excluded).
  const RunReport& report() const { return report_; }
  ReportSummary Summary() const;
  ReportSeries Series() const { return report_.Series(Now()); }

  void OnNodeChange(const NodeChange& change) override;
  void OnPodChange(const PodChange& change) override;
  void OnEvent(const EventChange& change) override;
  void OnCloudEvent(const cloud::emulated::CloudEvent& event) override;

 private:
  struct NodeShown {
    std::string status;
    int64_t gpus = 0;
    std::vector<api::Taint> taints;
  };
  TimePoint Now() const { return clock_.Now(); }
  // The report, counting while the timeline is enabled (the warm-up is not counted).
  RunReport& Counting() {
    report_.set_counting(timeline_.enabled());
    return report_;
  }
  void PodLine(const PodRecord& rec);
  void NodeLine(const api::Node& node);
  void PoolSize(const std::string& pool);

  Timeline& timeline_;
  const Clock& clock_;
  cloud::emulated::EmulatedCloud& cloud_;
  std::map<std::string, std::string> pods_shown_;  // key -> last printed row (without AGE)
  std::map<std::string, NodeShown> nodes_shown_;
  std::map<std::string, int> pool_sizes_;
  RunReport report_;  // counts while the timeline is enabled
};

}  // namespace tidepool::sim
