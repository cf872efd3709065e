#include "sim/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "api/pod_resources.h"
#include "api/resource_list.h"
#include "scheduler/framework/gpu_devices.h"
#include "sim/trace.h"

namespace tidepool::sim {
namespace {

namespace emu = cloud::emulated;

constexpr char kNoAttempt[] = "no scheduling attempt recorded";
constexpr char kDeletedPending[] = "deleted before a scheduling attempt was recorded";
constexpr char kNotTriggered[] = "pod didn't trigger scale-up:";

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
double Hours(Duration d) { return std::chrono::duration<double, std::ratio<3600>>(d).count(); }

int64_t Gpus(const api::ResourceList& list) {
  return api::Get(list, api::kResourceNvidiaGpu).Value();
}

// GKE's GPU sharing: how many nvidia.com/gpu of the node are one physical GPU (1: not shared).
int64_t SharedClients(const api::Node& node) {
  auto it = node.meta.labels.find(std::string(emu::kLabelMaxSharedClientsPerGpu));
  if (it == node.meta.labels.end()) return 1;
  char* end = nullptr;
  const long long n = std::strtoll(it->second.c_str(), &end, 10);
  return end != nullptr && *end == '\0' && n > 1 ? n : 1;
}

// Physical GPUs of a node: its nvidia.com/gpu, or the pool's GPUs when they are shared.
int64_t NodeGpus(const api::Node& node, const emu::EmulatedCloud& cloud) {
  if (SharedClients(node) > 1) return cloud.NodeGpuCount(node);
  return std::max<int64_t>(Gpus(node.status.capacity), cloud.NodeGpuCount(node));
}

const api::OwnerReference* ControllerOf(const api::Pod& pod) {
  for (const api::OwnerReference& o : pod.meta.owner_references) {
    if (o.controller.value_or(false)) return &o;
  }
  return nullptr;
}

// The class a pod's pending time is counted in (see the header).
std::string ClassOf(const api::Pod& pod) {
  if (auto it = pod.meta.labels.find(kTraceClassLabel); it != pod.meta.labels.end()) {
    return it->second;
  }
  const api::OwnerReference* owner = ControllerOf(pod);
  if (owner == nullptr) return "Pod";
  if (owner->kind == "ReplicaSet") {
    auto hash = pod.meta.labels.find("pod-template-hash");
    const std::string suffix = hash == pod.meta.labels.end() ? "" : "-" + hash->second;
    if (!suffix.empty() && owner->name.size() > suffix.size() &&
        owner->name.compare(owner->name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return "Deployment/" + owner->name.substr(0, owner->name.size() - suffix.size());
    }
  }
  return owner->kind + "/" + owner->name;
}

bool Counted(const api::Pod& pod) {
  if (pod.meta.namespace_ == "kube-system") return false;
  const api::OwnerReference* owner = ControllerOf(pod);
  return owner == nullptr || owner->kind != "DaemonSet";
}

}  // namespace

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(q / 100.0 * static_cast<double>(sorted.size()));
  const size_t i = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

std::string FormatFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

double RoundTo(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

std::string CsvField(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::vector<std::string> SplitCsvLine(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(std::move(cur));
  return out;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("open " + path + ": no such file or directory");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunReport::RunReport(TimePoint start, emu::EmulatedCloud& cloud) : start_(start), cloud_(cloud) {
  series_.pending.name = "pending pods";
  series_.gpus_allocated.name = "GPUs allocated";
  series_.gpus_provisioned.name = "GPUs provisioned";
  series_.cost_per_hour.name = "cost (USD/h)";
}

void RunReport::Step(TimeSeries& series, TimePoint now, double value) {
  const double t = std::max(0.0, Seconds(now - start_));
  std::vector<std::pair<double, double>>& p = series.points;
  if (!p.empty() && p.back().first == t) {
    p.back().second = value;
    if (p.size() >= 2 && p[p.size() - 2].second == value) p.pop_back();
    return;
  }
  if (!p.empty() && p.back().second == value) return;
  p.emplace_back(t, value);
}

double RunReport::HourlyPrice(const api::Node& node, TimePoint now) const {
  const cloud::PricingModel* pricing = cloud_.Provider().Pricing();
  if (pricing == nullptr) return 0;
  auto price = pricing->NodePrice(node, now, now + std::chrono::hours(1));
  return price.ok() ? *price : 0;
}

void RunReport::Start(const std::vector<api::NodeConstSharedPtr>& nodes) {
  for (const api::NodeConstSharedPtr& n : nodes) {
    auto [it, added] = nodes_.try_emplace(n->meta.name);
    NodeLife& life = it->second;
    life.node = n;
    life.from = start_;
    if (added) {
      life.price_per_hour = HourlyPrice(*n, start_);
      cost_per_hour_ += life.price_per_hour;
      pool_nodes_[cloud_.PoolOfNode(*n)] += 1;
    }
    const int64_t gpus = std::max<int64_t>(life.gpus, NodeGpus(*n, cloud_));
    gpus_provisioned_ += static_cast<double>(gpus - life.gpus);
    life.gpus = gpus;
  }
  Step(series_.pending, start_, pending_);
  Step(series_.gpus_allocated, start_, gpus_allocated_);
  Step(series_.gpus_provisioned, start_, gpus_provisioned_);
  Step(series_.cost_per_hour, start_, cost_per_hour_);
  for (const auto& [pool, n] : pool_nodes_) {
    if (!pool.empty()) Step(pool_series_[pool], start_, n);
  }
}

void RunReport::OnNode(const NodeChange& change, TimePoint now) {
  const api::Node& node = *change.node;
  const std::string pool = cloud_.PoolOfNode(node);
  auto [it, added] = nodes_.try_emplace(node.meta.name);
  NodeLife& life = it->second;
  if (added) {
    life.from = now;
    life.price_per_hour = HourlyPrice(node, now);
    cost_per_hour_ += life.price_per_hour;
    pool_nodes_[pool] += 1;
  }
  life.node = change.node;
  const int64_t gpus = std::max<int64_t>(life.gpus, NodeGpus(node, cloud_));
  gpus_provisioned_ += static_cast<double>(gpus - life.gpus);
  life.gpus = gpus;
  if (change.type == ChangeType::kDeleted && !life.to.has_value()) {
    life.to = now;
    gpus_provisioned_ -= static_cast<double>(life.gpus);
    cost_per_hour_ -= life.price_per_hour;
    pool_nodes_[pool] -= 1;
  }
  Step(series_.gpus_provisioned, now, gpus_provisioned_);
  Step(series_.cost_per_hour, now, cost_per_hour_);
  if (!pool.empty()) Step(pool_series_[pool], now, pool_nodes_[pool]);
  if (change.type == ChangeType::kDeleted) {
    if (counting_) ++nodes_removed_[pool];
    return;
  }
  if (change.type == ChangeType::kAdded && counting_) ++nodes_created_[pool];
  if (auto req = vm_requested_.find(node.meta.name); req != vm_requested_.end() && node.IsReady()) {
    provision_seconds_.push_back(Seconds(now - req->second));
    vm_requested_.erase(req);
  }
}

void RunReport::OnPod(const PodChange& change, TimePoint now) {
  const api::Pod& pod = *change.pod.pod;
  const std::string key = pod.Key();
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    if (change.type != ChangeType::kAdded || !counting_ || !Counted(pod)) return;
    PodLife life;
    life.class_ = ClassOf(pod);
    life.gpus =
        static_cast<double>(api::Get(api::PodRequests(pod), api::kResourceNvidiaGpu).Value()) +
        static_cast<double>(api::Get(api::PodRequests(pod), scheduler::kGpuMilliResource).Value()) /
            1000.0;
    life.created = now;
    it = pods_.emplace(key, std::move(life)).first;
    pending_ += 1;
  }
  PodLife& life = it->second;
  if (life.ended.has_value()) return;
  if (!life.bound.has_value() && !pod.spec.node_name.empty()) {
    life.bound = now;
    pending_ -= 1;
    // On a node whose GPUs are shared, one nvidia.com/gpu is a share of a physical GPU.
    if (auto node = nodes_.find(pod.spec.node_name); node != nodes_.end() && node->second.node) {
      life.gpus /= static_cast<double>(SharedClients(*node->second.node));
    }
    gpus_allocated_ += static_cast<double>(life.gpus);
  }
  if (pod.Terminal() || change.type == ChangeType::kDeleted) {
    life.ended = now;
    if (life.bound.has_value()) {
      gpus_allocated_ -= static_cast<double>(life.gpus);
    } else {
      pending_ -= 1;
    }
  }
  Step(series_.pending, now, pending_);
  Step(series_.gpus_allocated, now, gpus_allocated_);
}

ReportSeries RunReport::Series(TimePoint now) const {
  ReportSeries out = series_;
  out.end_seconds = Seconds(now - start_);
  for (const auto& [pool, series] : pool_series_) {
    out.nodes_per_pool.push_back(series);
    out.nodes_per_pool.back().name = pool;
  }
  return out;
}

void RunReport::OnEvent(const EventRecord& e) {
  if (e.involved_object.kind != "Pod") return;
  auto it = pods_.find(e.involved_object.namespace_ + "/" + e.involved_object.name);
  if (it == pods_.end()) return;
  if (e.reason == "FailedScheduling") {
    it->second.scheduler_reason = e.message;
  } else if (e.reason == "NotTriggerScaleUp") {
    it->second.autoscaler_reason = e.message;
  }
}

void RunReport::OnPoolResize(const std::string& pool, int64_t before, int64_t after,
                             TimePoint now) {
  if (!counting_ || before == after) return;
  Resizes& r = resizes_[pool];
  std::optional<TimePoint>& last = after > before ? r.last_up : r.last_down;
  if (last != now) ++(after > before ? r.ups : r.downs);
  last = now;
}

void RunReport::OnCloudEvent(const emu::CloudEvent& event) {
  if (counting_ && event.kind == emu::CloudEventKind::kInstanceRequested) {
    vm_requested_[event.instance] = event.at;
  }
}

ReportSummary RunReport::Summarize(TimePoint now) const {
  ReportSummary s;
  s.simulated_seconds = Seconds(now - start_);
  std::map<std::string, PoolReport> pools;
  // A cloud pool's size is the cloud's; nodes of no cloud pool (a trace's own, API-made ones)
  // count as they are.
  for (const auto& [pool, n] : pool_nodes_) pools[pool].size = static_cast<int64_t>(n);
  for (const auto& [pool, size] : pool_sizes_) pools[pool].size = size;
  for (const auto& [pool, n] : nodes_created_) pools[pool].nodes_created = n;
  for (const auto& [pool, n] : nodes_removed_) pools[pool].nodes_removed = n;
  for (const auto& [pool, r] : resizes_) {
    pools[pool].scale_ups = r.ups;
    pools[pool].scale_downs = r.downs;
  }
  const cloud::PricingModel* pricing = cloud_.Provider().Pricing();
  for (const auto& [name, life] : nodes_) {
    const TimePoint from = std::max(life.from, start_);
    const TimePoint to = life.to.value_or(now);
    if (to <= from) continue;
    PoolReport& p = pools[cloud_.PoolOfNode(*life.node)];
    p.node_hours += Hours(to - from);
    p.gpu_hours += static_cast<double>(life.gpus) * Hours(to - from);
    if (pricing != nullptr) {
      auto price = pricing->NodePrice(*life.node, from, to);
      if (price.ok()) p.cost += *price;
    }
  }
  for (auto& [name, p] : pools) {
    if (name.empty()) continue;
    p.name = name;
    s.node_hours += p.node_hours;
    s.cost += p.cost;
    s.gpu_hours_provisioned += p.gpu_hours;
    s.pools.push_back(p);
  }
  std::map<std::string, std::vector<double>> pending;
  std::map<std::string, ClassReport> classes;
  std::map<std::string, int64_t> reasons;
  for (const auto& [key, life] : pods_) {
    ClassReport& c = classes[life.class_];
    ++c.pods;
    std::vector<double>& waits = pending[life.class_];
    if (life.bound.has_value()) {
      ++c.scheduled;
      waits.push_back(Seconds(*life.bound - life.created));
      const TimePoint end = life.ended.value_or(now);
      if (life.gpus > 0 && end > *life.bound) {
        s.gpu_hours_allocated += static_cast<double>(life.gpus) * Hours(end - *life.bound);
      }
      continue;
    }
    ++c.never_scheduled;
    // CA's message names no reason when no node group rejected or skipped the pod.
    std::string_view said = life.autoscaler_reason;
    while (!said.empty() && said.back() == ' ') said.remove_suffix(1);
    const bool autoscaler_said = said.size() > sizeof(kNotTriggered) - 1;
    ++reasons[autoscaler_said                   ? life.autoscaler_reason
              : !life.scheduler_reason.empty() ? life.scheduler_reason
              : life.ended.has_value()         ? kDeletedPending
                                               : kNoAttempt];
  }
  for (auto& [name, c] : classes) {
    std::vector<double>& waits = pending[name];
    std::sort(waits.begin(), waits.end());
    c.name = name;
    c.p50 = Percentile(waits, 50);
    c.p90 = Percentile(waits, 90);
    c.p99 = Percentile(waits, 99);
    c.max = waits.empty() ? 0 : waits.back();
    s.classes.push_back(c);
  }
  s.unscheduled_reasons.assign(reasons.begin(), reasons.end());
  std::stable_sort(s.unscheduled_reasons.begin(), s.unscheduled_reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<double> provision = provision_seconds_;
  std::sort(provision.begin(), provision.end());
  s.nodes_provisioned = static_cast<int64_t>(provision.size());
  s.provision_p50 = Percentile(provision, 50);
  s.provision_max = provision.empty() ? 0 : provision.back();
  return s;
}

}  // namespace tidepool::sim
