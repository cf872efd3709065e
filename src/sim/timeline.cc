#include "sim/timeline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/duration.h"

namespace tidepool::sim {
namespace {

namespace emu = cloud::emulated;

std::string Pad(std::string_view s, size_t width) {
  std::string out(s);
  if (out.size() < width) {
    out.append(width - out.size(), ' ');
  }
  return out;
}

std::string PodName(const api::Pod& pod) {
  return pod.meta.namespace_ == "default" ? pod.meta.name
                                          : pod.meta.namespace_ + "/" + pod.meta.name;
}

int64_t GpuAllocatable(const api::Node& node) {
  return api::Get(node.status.allocatable, api::kResourceNvidiaGpu).Value();
}

std::string Money(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "$%.2f", v);
  return buf;
}

std::string Fixed(double v, int decimals = 2) { return FormatFixed(v, decimals); }
double Round(double v, int decimals) { return RoundTo(v, decimals); }

}  // namespace

Fields PoolFields(const PoolReport& p) {
  return {{"nodePool", p.name},
          {"size", p.size},
          {"nodesCreated", p.nodes_created},
          {"nodesRemoved", p.nodes_removed},
          {"scaleUps", p.scale_ups},
          {"scaleDowns", p.scale_downs},
          {"nodeHours", Round(p.node_hours, 2)},
          {"gpuHours", Round(p.gpu_hours, 2)},
          {"cost", Round(p.cost, 2)}};
}

Fields ClassFields(const ClassReport& c) {
  return {{"class", c.name},
          {"pods", c.pods},
          {"scheduled", c.scheduled},
          {"neverScheduled", c.never_scheduled},
          {"p50Seconds", Round(c.p50, 3)},
          {"p90Seconds", Round(c.p90, 3)},
          {"p99Seconds", Round(c.p99, 3)},
          {"maxSeconds", Round(c.max, 3)}};
}

Fields TotalFields(const ReportSummary& s) {
  const double util =
      s.gpu_hours_provisioned > 0 ? 100 * s.gpu_hours_allocated / s.gpu_hours_provisioned : 0;
  return {{"nodeHours", Round(s.node_hours, 2)},
          {"cost", Round(s.cost, 2)},
          {"gpuHoursAllocated", Round(s.gpu_hours_allocated, 2)},
          {"gpuHoursProvisioned", Round(s.gpu_hours_provisioned, 2)},
          {"gpuUtilizationPercent", Round(util, 1)}};
}

// ---- Timeline ----------------------------------------------------------------------------------

void Timeline::Add(TimePoint at, std::string kind, std::string object, std::string text,
                   std::vector<std::pair<std::string, FieldValue>> fields) {
  if (!enabled_ || (summary_only_ && kind != "summary" && kind != "trace")) {
    return;
  }
  while (!text.empty() && text.back() == ' ') {
    text.pop_back();
  }
  TimelineEntry e;
  e.time = at;
  e.elapsed = at - start_;
  e.kind = std::move(kind);
  e.object = std::move(object);
  e.text = std::move(text);
  e.fields = std::move(fields);
  entries_.push_back(std::move(e));
}

// What --summary keeps: the summary's figures (not the pods' end states) and the trace's lines.
bool IsSummary(const TimelineEntry& e) {
  return (e.kind == "summary" && e.object.rfind("pod/", 0) != 0) || e.kind == "trace";
}

std::string Timeline::ToText(bool summary_only) const {
  std::string out;
  for (const TimelineEntry& e : entries_) {
    if (summary_only && !IsSummary(e)) continue;
    out += "[" + FormatElapsed(e.elapsed) + "] " + e.text + "\n";
  }
  return out;
}

std::string Timeline::ToJson(bool summary_only) const {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const TimelineEntry& e : entries_) {
    if (summary_only && !IsSummary(e)) continue;
    nlohmann::ordered_json j;
    j["time"] = FormatElapsed(e.elapsed);
    j["seconds"] = std::chrono::duration_cast<std::chrono::seconds>(e.elapsed).count();
    j["timestamp"] = FormatRfc3339(e.time);
    j["kind"] = e.kind;
    if (!e.object.empty()) {
      j["object"] = e.object;
    }
    for (const auto& [k, v] : e.fields) {
      std::visit([&](const auto& x) { j[k] = x; }, v);
    }
    j["text"] = e.text;
    arr.push_back(std::move(j));
  }
  return arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string Timeline::SummaryCsv() const {
  std::string out = "section,name,metric,value\n";
  for (const TimelineEntry& e : entries_) {
    if (e.kind != "summary" || e.object.rfind("pod/", 0) == 0) continue;
    std::string section = e.object.empty() ? "run" : e.object;
    std::string name;
    if (size_t slash = section.find('/'); slash != std::string::npos) {
      name = section.substr(slash + 1);
      section.resize(slash);
    }
    for (const auto& [k, v] : e.fields) {
      std::string value;
      if (const auto* str = std::get_if<std::string>(&v)) {
        if (section == "unscheduled" && k == "reason") {
          name = *str;
          continue;
        }
        if (k == "nodePool" || k == "class") continue;  // the name already
        value = *str;
      } else if (const auto* i = std::get_if<int64_t>(&v)) {
        value = std::to_string(*i);
      } else if (const auto* b = std::get_if<bool>(&v)) {
        value = *b ? "true" : "false";
      } else {
        value = nlohmann::json(std::get<double>(v)).dump();
      }
      out += section + "," + CsvField(name) + "," + k + "," + CsvField(value) + "\n";
    }
  }
  return out;
}

// ---- kubectl's columns -------------------------------------------------------------------------

std::string KubectlPodStatus(const PodRecord& rec) {
  const api::Pod& pod = *rec.pod;
  std::string reason(api::PodPhaseName(pod.status.phase));
  if (!pod.status.reason.empty()) {
    reason = pod.status.reason;
  }
  bool has_running = false;
  for (auto it = rec.containers.rbegin(); it != rec.containers.rend(); ++it) {
    const ContainerStatus& c = *it;
    if (c.state == ContainerStatus::State::kWaiting && !c.reason.empty()) {
      reason = c.reason;
    } else if (c.state == ContainerStatus::State::kTerminated) {
      reason = !c.reason.empty() ? c.reason : "ExitCode:" + std::to_string(c.exit_code);
    } else if (c.state == ContainerStatus::State::kRunning && c.ready) {
      has_running = true;
    }
  }
  if (reason == "Completed" && has_running) {
    reason = "Running";
  }
  if (pod.meta.deletion_timestamp.has_value()) {
    reason = "Terminating";
  }
  return reason;
}

std::string KubectlNodeStatus(const api::Node& node) {
  const api::NodeCondition* ready = node.FindCondition("Ready");
  std::string s = "Unknown";
  if (ready != nullptr) {
    s = ready->status == api::ConditionStatus::kTrue ? "Ready" : "NotReady";
  }
  if (node.spec.unschedulable) {
    s += ",SchedulingDisabled";
  }
  return s;
}

// ---- The recorder ------------------------------------------------------------------------------

TimelineRecorder::TimelineRecorder(Timeline& timeline, const Clock& clock,
                                   emu::EmulatedCloud& cloud)
    : timeline_(timeline), clock_(clock), cloud_(cloud), report_(timeline.start(), cloud) {
  cloud_.AddObserver(this);
}

TimelineRecorder::~TimelineRecorder() { cloud_.RemoveObserver(this); }

log::LineSink TimelineRecorder::LogSink(std::string component) {
  return [this, component](std::string_view line) {
    // klog's process-id field is a fixed 1 (common/log.cc), so lines are the same every run.
    const std::string text(line);
    // The autoscaler's log is the walkthrough's `kubectl logs -f`; other components' lines
    // (the emulated cloud's warnings) are marked as theirs.
    const std::string prefix = component == "cluster-autoscaler" ? "log     " : "cloud   ";
    timeline_.Add(Now(), "log", component, prefix + text,
                  {{"component", component}, {"line", text}});
  };
}

void TimelineRecorder::PodLine(const PodRecord& rec) {
  const api::Pod& pod = *rec.pod;
  int ready = 0;
  int restarts = 0;
  for (const ContainerStatus& c : rec.containers) {
    ready += c.ready ? 1 : 0;
    restarts += c.restart_count;
  }
  const std::string ready_col =
      std::to_string(ready) + "/" + std::to_string(pod.spec.containers.size());
  const std::string status = KubectlPodStatus(rec);
  const std::string node = pod.spec.node_name.empty() ? "<none>" : pod.spec.node_name;
  const std::string shown = ready_col + " " + status + " " + std::to_string(restarts) + " " + node;
  const std::string key = pod.Key();
  auto it = pods_shown_.find(key);
  if (it != pods_shown_.end() && it->second == shown) {
    return;
  }
  pods_shown_[key] = shown;
  const Duration age = pod.meta.creation_timestamp.has_value()
                           ? Now() - *pod.meta.creation_timestamp
                           : Duration::zero();
  const std::string name = PodName(pod);
  timeline_.Add(Now(), "pod", "pod/" + name,
                "pod     " + Pad(name, 14) + "  " + ready_col + "  " + Pad(status, 17) + "  " +
                    std::to_string(restarts) + "  " + Pad(HumanDuration(age), 5) + "  " + node,
                {{"name", pod.meta.name},
                 {"namespace", pod.meta.namespace_},
                 {"ready", ready_col},
                 {"status", status},
                 {"phase", std::string(api::PodPhaseName(pod.status.phase))},
                 {"restarts", int64_t{restarts}},
                 {"node", pod.spec.node_name}});
}

void TimelineRecorder::NodeLine(const api::Node& node) {
  const std::string& name = node.meta.name;
  NodeShown now_shown{KubectlNodeStatus(node), GpuAllocatable(node), node.spec.taints};
  auto it = nodes_shown_.find(name);
  const bool first = it == nodes_shown_.end();
  const NodeShown before = first ? NodeShown{} : it->second;
  nodes_shown_[name] = now_shown;
  if (first || before.status != now_shown.status || before.gpus != now_shown.gpus) {
    const Duration age = node.meta.creation_timestamp.has_value()
                             ? Now() - *node.meta.creation_timestamp
                             : Duration::zero();
    std::string text = "node    " + name + "  " + Pad(now_shown.status, 8) + "  <none>  " +
                       Pad(HumanDuration(age), 5);
    if (now_shown.gpus > 0) {
      text += "  nvidia.com/gpu: " + std::to_string(now_shown.gpus);
    }
    timeline_.Add(Now(), "node", "node/" + name, text,
                  {{"name", name},
                   {"status", now_shown.status},
                   {"nodePool", cloud_.PoolOfNode(node)},
                   {"gpuAllocatable", now_shown.gpus}});
  }
  if (first) {
    return;
  }
  auto contains = [](const std::vector<api::Taint>& list, const api::Taint& t) {
    return std::any_of(list.begin(), list.end(), [&](const api::Taint& o) { return o == t; });
  };
  for (const api::Taint& t : now_shown.taints) {
    if (t.key != api::kTaintNodeNotReady && !contains(before.taints, t)) {
      timeline_.Add(Now(), "node", "node/" + name,
                    "node    " + name + "  taint added " + t.ToString(),
                    {{"name", name}, {"taintAdded", t.ToString()}});
    }
  }
  for (const api::Taint& t : before.taints) {
    if (t.key != api::kTaintNodeNotReady && !contains(now_shown.taints, t)) {
      timeline_.Add(Now(), "node", "node/" + name,
                    "node    " + name + "  taint removed " + t.ToString(),
                    {{"name", name}, {"taintRemoved", t.ToString()}});
    }
  }
}

void TimelineRecorder::OnNodeChange(const NodeChange& change) {
  const api::Node& node = *change.node;
  const std::string& name = node.meta.name;
  const std::string pool = cloud_.PoolOfNode(node);
  Counting().OnNode(change, Now());
  if (change.type == ChangeType::kDeleted) {
    nodes_shown_.erase(name);
    timeline_.Add(Now(), "node", "node/" + name, "node    " + name + "  deleted",
                  {{"name", name}, {"status", std::string("deleted")}, {"nodePool", pool}});
    return;
  }
  NodeLine(node);
}

void TimelineRecorder::OnPodChange(const PodChange& change) {
  const api::Pod& pod = *change.pod.pod;
  Counting().OnPod(change, Now());
  if (change.type == ChangeType::kDeleted) {
    pods_shown_.erase(pod.Key());
    const std::string name = PodName(pod);
    timeline_.Add(Now(), "pod", "pod/" + name, "pod     " + Pad(name, 14) + "  deleted",
                  {{"name", pod.meta.name},
                   {"namespace", pod.meta.namespace_},
                   {"status", std::string("deleted")}});
    return;
  }
  PodLine(change.pod);
}

void TimelineRecorder::OnEvent(const EventChange& change) {
  const EventRecord& e = change.event;
  report_.OnEvent(e);
  std::string object = e.involved_object.kind;
  std::transform(object.begin(), object.end(), object.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  object += "/" + (e.involved_object.namespace_.empty() || e.involved_object.namespace_ == "default"
                       ? e.involved_object.name
                       : e.involved_object.namespace_ + "/" + e.involved_object.name);
  std::string reason = e.reason;
  if (e.count > 1) {
    reason += " (x" + std::to_string(e.count) + ")";
  }
  timeline_.Add(Now(), "event", object,
                "event   " + Pad(e.type, 7) + "  " + Pad(reason, 16) + "  " + object + "  " +
                    e.source.component + "  " + e.message,
                {{"type", e.type},
                 {"reason", e.reason},
                 {"message", e.message},
                 {"source", e.source.component},
                 {"count", int64_t{e.count}}});
}

void TimelineRecorder::PoolSize(const std::string& pool) {
  // Instances not being deleted: the cloud keeps that count per pool (a listing here, once
  // per cloud event, made a pool of n nodes cost O(n^2) to grow).
  const int size = cloud_.LiveInstances(pool);
  auto it = pool_sizes_.find(pool);
  const int before = it == pool_sizes_.end() ? 0 : it->second;
  pool_sizes_[pool] = size;
  if (before == size) {
    return;
  }
  Counting().OnPoolResize(pool, before, size, Now());
  timeline_.Add(Now(), "pool", "nodepool/" + pool,
                "pool    " + pool + "  " + std::to_string(before) + " -> " + std::to_string(size),
                {{"nodePool", pool}, {"from", int64_t{before}}, {"to", int64_t{size}}});
}

void TimelineRecorder::OnCloudEvent(const emu::CloudEvent& e) {
  using K = emu::CloudEventKind;
  Counting().OnCloudEvent(e);
  std::string state;
  switch (e.kind) {
    case K::kInstanceRequested:
      state = "PROVISIONING";
      break;
    case K::kInstanceRunning:
      state = "RUNNING";
      break;
    case K::kInstanceFailed:
      state = "FAILED";
      break;
    case K::kInstanceStopping:
      state = "STOPPING";
      break;
    case K::kInstanceDeleted:
      state = "deleted";
      break;
    case K::kNodePoolStatusChanged:
      timeline_.Add(Now(), "pool", "nodepool/" + e.node_pool,
                    "pool    " + e.node_pool + "  status " + e.detail,
                    {{"nodePool", e.node_pool}, {"status", e.detail}});
      return;
    case K::kNodePoolDeleted:
      pool_sizes_.erase(e.node_pool);
      timeline_.Add(Now(), "pool", "nodepool/" + e.node_pool,
                    "pool    " + e.node_pool + "  deleted",
                    {{"nodePool", e.node_pool}, {"status", std::string("deleted")}});
      return;
    default:
      return;  // node registration, readiness and GPUs show on the node lines
  }
  std::string text =
      "vm      " + e.instance + "  " + Pad(state, 12) + "  " + e.node_pool + "  " + e.zone;
  if (!e.detail.empty()) {
    text += "  " + e.detail;
  }
  timeline_.Add(Now(), "vm", "instance/" + e.instance, text,
                {{"instance", e.instance},
                 {"nodePool", e.node_pool},
                 {"zone", e.zone},
                 {"state", state},
                 {"detail", e.detail}});
  PoolSize(e.node_pool);
}

void TimelineRecorder::RecordInitialState(const std::vector<api::NodeConstSharedPtr>& nodes,
                                          const std::vector<PodRecord>& pods) {
  for (const emu::NodePoolInfo& p : cloud_.ListNodePools()) {
    std::string machine = p.spec.machine_type;
    if (p.accelerator.has_value()) {
      machine += " + " + std::to_string(p.accelerator->count) + "x " + p.accelerator->type;
    }
    std::string text = "pool    " + p.spec.name + "  " + machine + "  " +
                       std::to_string(p.target_size) +
                       (p.target_size == 1 ? " node  " : " nodes  ") +
                       std::string(emu::NodePoolStatusName(p.status));
    if (p.spec.autoscaling) {
      text += "  autoscaling " + std::to_string(p.spec.min_nodes) + ".." +
              std::to_string(p.spec.max_nodes);
    }
    std::string taints;
    for (const api::Taint& t : p.spec.taints) {
      taints += (taints.empty() ? "" : ",") + t.ToString();
    }
    if (!taints.empty()) {
      text += "  taints " + taints;
    }
    std::string labels;
    for (const auto& [k, v] : p.spec.labels) {
      labels += (labels.empty() ? "" : ",") + k + "=" + v;
    }
    if (!labels.empty()) {
      text += "  labels " + labels;
    }
    if (p.spec.spot) {
      text += "  spot";
    }
    pool_sizes_[p.spec.name] = p.target_size;
    timeline_.Add(Now(), "pool", "nodepool/" + p.spec.name, text,
                  {{"nodePool", p.spec.name},
                   {"machineType", p.spec.machine_type},
                   {"size", int64_t{p.target_size}},
                   {"status", std::string(emu::NodePoolStatusName(p.status))},
                   {"autoscaling", p.spec.autoscaling},
                   {"minNodes", int64_t{p.spec.min_nodes}},
                   {"maxNodes", int64_t{p.spec.max_nodes}}});
  }
  nodes_shown_.clear();
  report_.Start(nodes);
  for (const api::NodeConstSharedPtr& n : nodes) {
    NodeLine(*n);
  }
  pods_shown_.clear();
  for (const PodRecord& p : pods) {
    PodLine(p);
  }
}

ReportSummary TimelineRecorder::Summary() const {
  RunReport report = report_;
  for (const auto& [pool, size] : pool_sizes_) report.SetPoolSize(pool, size);
  return report.Summarize(Now());
}

void TimelineRecorder::RecordSummary(uint64_t seed, const std::vector<PodRecord>& pods) {
  const TimePoint now = Now();
  const ReportSummary r = Summary();
  timeline_.Add(now, "summary", "",
                "summary end of run: " + FormatGoDuration(now - timeline_.start()) +
                    " simulated, seed " + std::to_string(seed),
                {{"simulated", FormatGoDuration(now - timeline_.start())},
                 {"simulatedSeconds", Round(r.simulated_seconds, 3)},
                 {"seed", static_cast<int64_t>(seed)}});
  for (const PoolReport& p : r.pools) {
    timeline_.Add(now, "summary", "nodepool/" + p.name,
                  "summary pool " + p.name + ": " + std::to_string(p.size) +
                      (p.size == 1 ? " node; " : " nodes; ") + std::to_string(p.nodes_created) +
                      " created, " + std::to_string(p.nodes_removed) + " removed (" +
                      std::to_string(p.scale_ups) + " scale-ups, " + std::to_string(p.scale_downs) +
                      " scale-downs); " + Fixed(p.node_hours) + " node-hours, " + Money(p.cost),
                  PoolFields(p));
  }
  const double util = r.gpu_hours_provisioned > 0
                          ? 100 * r.gpu_hours_allocated / r.gpu_hours_provisioned
                          : 0;
  timeline_.Add(now, "summary", "cluster",
                "summary total: " + Fixed(r.node_hours) + " node-hours, " + Money(r.cost) +
                    "; GPU-hours " + Fixed(r.gpu_hours_allocated) + " allocated of " +
                    Fixed(r.gpu_hours_provisioned) + " provisioned (" + Fixed(util, 1) + "%)",
                TotalFields(r));
  if (r.nodes_provisioned > 0) {
    timeline_.Add(now, "summary", "provisioning",
                  "summary provisioning: " + std::to_string(r.nodes_provisioned) +
                      (r.nodes_provisioned == 1 ? " node" : " nodes") +
                      " from VM request to Ready, p50 " + Fixed(r.provision_p50, 0) +
                      "s, max " + Fixed(r.provision_max, 0) + "s",
                  {{"nodes", r.nodes_provisioned},
                   {"p50Seconds", Round(r.provision_p50, 3)},
                   {"maxSeconds", Round(r.provision_max, 3)}});
  }
  for (const ClassReport& c : r.classes) {
    std::string text = "summary pending " + c.name + ": " + std::to_string(c.pods) +
                       (c.pods == 1 ? " pod, " : " pods, ") + std::to_string(c.scheduled) +
                       " scheduled";
    if (c.scheduled > 0) {
      text += "; wait p50 " + Fixed(c.p50, 0) + "s, p90 " + Fixed(c.p90, 0) + "s, p99 " +
              Fixed(c.p99, 0) + "s, max " + Fixed(c.max, 0) + "s";
    }
    if (c.never_scheduled > 0) {
      text += "; " + std::to_string(c.never_scheduled) + " never scheduled";
    }
    timeline_.Add(now, "summary", "class/" + c.name, text,
                  ClassFields(c));
  }
  for (const auto& [reason, n] : r.unscheduled_reasons) {
    timeline_.Add(now, "summary", "unscheduled",
                  "summary never scheduled: " + std::to_string(n) +
                      (n == 1 ? " pod: " : " pods: ") + reason,
                  {{"reason", reason}, {"pods", n}});
  }
  for (const PodRecord& p : pods) {
    timeline_.Add(now, "summary", "pod/" + PodName(*p.pod),
                  "summary pod " + PodName(*p.pod) + ": " + KubectlPodStatus(p) +
                      (p.pod->spec.node_name.empty() ? "" : " on " + p.pod->spec.node_name),
                  {{"name", p.pod->meta.name}, {"status", KubectlPodStatus(p)}});
  }
}

}  // namespace tidepool::sim
