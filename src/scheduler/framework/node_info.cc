#include "scheduler/framework/node_info.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>

#include "common/check.h"
#include "scheduler/framework/intern_table.h"

namespace tidepool::scheduler {
namespace {

inline uint64_t Mix(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
inline uint64_t HashStr(uint64_t h, std::string_view s) {
  return Mix(h, std::hash<std::string_view>()(s));
}

bool IsHostname(std::string_view key) { return key == api::kLabelHostname; }

const std::string& HostnameKey() {
  static const std::string* k = new std::string(api::kLabelHostname);
  return *k;
}

// Equal values in the same format: the quantity reads back exactly as the node had it.
bool SameQuantity(const api::Quantity& a, const api::Quantity& b) {
  return a.format() == b.format() && a == b;
}

bool SameTaint(const api::Taint& a, const api::Taint& b) {
  return a == b && a.time_added == b.time_added;
}

#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(api::NodeSpec) == 64 && sizeof(api::NodeStatus) == 120,
              "api::Node changed: decide whether NodeShape or NodeInfo keeps the new field");
#endif

uint64_t ShapeHash(const api::Node& node) {
  uint64_t h = 0x6e6f64657368ULL;
  for (const auto& [k, v] : node.meta.labels) {
    if (!IsHostname(k)) {
      h = HashStr(HashStr(h, k), v);
    }
  }
  h = Mix(h, 0x1e);
  for (const api::Taint& t : node.spec.taints) {
    h = HashStr(HashStr(h, t.key), t.value);
    h = Mix(h, static_cast<uint64_t>(t.effect));
    h = Mix(h, t.time_added.has_value()
                   ? static_cast<uint64_t>(t.time_added->time_since_epoch().count())
                   : 0x7fULL);
  }
  h = Mix(h, node.spec.unschedulable ? 0x1f : 0x2f);
  for (const auto& [name, q] : node.status.allocatable) {
    h = HashStr(h, name);
    h = Mix(h, static_cast<uint64_t>(q.MilliValue()));
    h = Mix(h, static_cast<uint64_t>(q.format()));
  }
  return h;
}

// Whether `node` has exactly the shared fields of `shape`.
bool SameShape(const NodeShape& shape, const api::Node& node) {
  if (shape.unschedulable != node.spec.unschedulable) {
    return false;
  }
  const auto& ta = shape.taints;
  const auto& tb = node.spec.taints;
  if (ta.size() != tb.size() || !std::equal(ta.begin(), ta.end(), tb.begin(), SameTaint)) {
    return false;
  }
  const auto& aa = shape.allocatable;
  const auto& ab = node.status.allocatable;
  if (aa.size() != ab.size() ||
      !std::equal(aa.begin(), aa.end(), ab.begin(), [](const auto& x, const auto& y) {
        return x.first == y.first && SameQuantity(x.second, y.second);
      })) {
    return false;
  }
  auto it = shape.labels.begin();
  for (const auto& [k, v] : node.meta.labels) {
    if (IsHostname(k)) {
      continue;
    }
    if (it == shape.labels.end() || it->first != k || it->second != v) {
      return false;
    }
    ++it;
  }
  return it == shape.labels.end();
}

// The process-wide table of live shapes, by hash (intern_table.h).
InternTable<NodeShape, uint64_t>& ShapeTable() {
  static auto* t = new InternTable<NodeShape, uint64_t>();
  return *t;
}

std::shared_ptr<const NodeShape> InternShape(const api::Node& node) {
  const uint64_t hash = ShapeHash(node);
  return ShapeTable().Intern(
      hash, [&](const NodeShape& s) { return SameShape(s, node); },
      [&] {
        auto* s = new NodeShape();
        for (const auto& [k, v] : node.meta.labels) {
          if (!IsHostname(k)) {
            s->labels.emplace_hint(s->labels.end(), k, v);
          }
        }
        s->taints = node.spec.taints;
        s->unschedulable = node.spec.unschedulable;
        s->allocatable = node.status.allocatable;
        s->allocatable_resource = Resource::FromList(s->allocatable);
        s->hash = hash;
        return s;
      });
}

}  // namespace

NodeInfo::NodeInfo(const api::Node& node) : name_(node.meta.name), f_(MakeFacts(node)) {
  PlaceGpus();
}

NodeInfo::Facts NodeInfo::MakeFacts(const api::Node& node) {
  Facts f;
  f.shape = InternShape(node);
  const std::string& uid = node.meta.uid;
  const std::string& provider_id = node.spec.provider_id;
  f.uid_len = static_cast<uint32_t>(uid.size());
  f.provider_id_len = static_cast<uint32_t>(provider_id.size());
  auto host = node.meta.labels.find(HostnameKey());
  const bool own_host = host != node.meta.labels.end() && host->second != node.meta.name;
  f.ids.reserve(uid.size() + provider_id.size() + (own_host ? host->second.size() : 0));
  f.ids += uid;
  f.ids += provider_id;
  if (host == node.meta.labels.end()) {
    f.hostname = Hostname::kAbsent;
  } else if (own_host) {
    f.hostname = Hostname::kOwn;
    f.ids += host->second;
  } else {
    f.hostname = Hostname::kName;
  }
  f.ready = node.IsReady();
  auto raw = [](const std::optional<TimePoint>& t) {
    return t.has_value() ? t->time_since_epoch().count() : kNone;
  };
  f.creation = raw(node.meta.creation_timestamp);
  f.deletion = raw(node.meta.deletion_timestamp);
  return f;
}

NodeInfo::Facts NodeInfo::SwapFacts(Facts f) {
  std::swap(f_, f);
  if (f.shape == nullptr ||
      GpuCountOf(f.shape->allocatable_resource) != GpuCountOf(f_.shape->allocatable_resource)) {
    PlaceGpus();
  }
  return f;
}

void NodeInfo::PlaceGpus() {
  gpu_left_.assign(GpuCountOf(f_.shape->allocatable_resource), kMilliPerGpu);
  if (gpu_left_.empty()) {
    return;
  }
  bool unplaced = false;
  for (const auto& pod : pods_) {
    const GpuDemand& demand = pod->gpu_demand();
    if (!demand.any()) {
      continue;
    }
    if (pod->gpu_indices() == 0) {
      unplaced = true;
      continue;
    }
    TakeGpus(gpu_left_, pod->gpu_indices(), demand);
  }
  if (!unplaced) {
    return;
  }
  for (const auto& pod : pods_) {
    const GpuDemand& demand = pod->gpu_demand();
    if (demand.any() && pod->gpu_indices() == 0) {
      TakeGpus(gpu_left_, ChooseGpus(gpu_left_, demand, GpuSelection::kBest), demand);
    }
  }
}

std::optional<std::string_view> NodeInfo::hostname_label() const {
  switch (f_.hostname) {
    case Hostname::kAbsent:
      return std::nullopt;
    case Hostname::kName:
      return std::string_view(name_);
    case Hostname::kOwn:
      return std::string_view(f_.ids).substr(f_.uid_len + f_.provider_id_len);
  }
  return std::nullopt;
}

std::optional<std::string_view> NodeInfo::Label(std::string_view key) const {
  if (IsHostname(key)) {
    return hostname_label();
  }
  auto it = f_.shape->labels.find(std::string(key));
  if (it == f_.shape->labels.end()) {
    return std::nullopt;
  }
  return std::string_view(it->second);
}

api::Labels NodeInfo::AllLabels() const {
  api::Labels labels = f_.shape->labels;
  if (std::optional<std::string_view> h = hostname_label()) {
    labels.emplace(HostnameKey(), std::string(*h));
  }
  return labels;
}

api::Node NodeInfo::ToNode() const {
  api::Node n;
  n.meta.name = name_;
  n.meta.uid = std::string(uid());
  n.meta.creation_timestamp = creation_timestamp();
  n.meta.deletion_timestamp = deletion_timestamp();
  n.meta.labels = AllLabels();
  n.spec.unschedulable = unschedulable();
  n.spec.taints = taints();
  n.spec.provider_id = std::string(provider_id());
  n.status.allocatable = allocatable_quantities();
  api::NodeCondition ready;
  ready.type = "Ready";
  ready.status = f_.ready ? api::ConditionStatus::kTrue : api::ConditionStatus::kFalse;
  n.status.conditions.push_back(std::move(ready));
  return n;
}

size_t NodeInfo::NumLiveShapes() { return ShapeTable().NumLive(); }

void NodeInfo::Account(const PodInfo& pod, int sign) {
  if (sign > 0) {
    requested_.Add(pod.request());
  } else {
    requested_.Sub(pod.request());
  }
  non_zero_milli_cpu_ += sign * pod.non_zero_milli_cpu();
  non_zero_memory_ += sign * pod.non_zero_memory();
  if (pod.deletion_timestamp().has_value() || pod.phase() == api::PodPhase::kSucceeded ||
      pod.phase() == api::PodPhase::kFailed) {
    num_deleting_or_finished_ += sign;
  }
  int32_t prio = pod.Priority();
  auto it = std::lower_bound(priority_counts_.begin(), priority_counts_.end(), prio,
                             [](const auto& e, int32_t p) { return e.first < p; });
  if (sign > 0) {
    if (it != priority_counts_.end() && it->first == prio) {
      ++it->second;
    } else {
      priority_counts_.emplace(it, prio, 1);
    }
  } else {
    TIDEPOOL_DCHECK(it != priority_counts_.end() && it->first == prio);
    if (--it->second == 0) {
      priority_counts_.erase(it);
    }
  }
}

void NodeInfo::AddPod(PodInfoConstSharedPtr pod) {
  Account(*pod, +1);
  const bool gpus = pod->gpu_demand().any() && !gpu_left_.empty();
  pods_.push_back(std::move(pod));
  if (gpus) {
    PlaceGpus();
  }
}

PodInfoConstSharedPtr NodeInfo::RemovePodAt(size_t i) {
  TIDEPOOL_DCHECK(i < pods_.size());
  PodInfoConstSharedPtr removed = std::move(pods_[i]);
  if (i + 1 != pods_.size()) {
    pods_[i] = std::move(pods_.back());
  }
  pods_.pop_back();
  Account(*removed, -1);
  if (removed->gpu_demand().any() && !gpu_left_.empty()) {
    PlaceGpus();
  }
  return removed;
}

void NodeInfo::RestorePodAt(size_t i, PodInfoConstSharedPtr pod) {
  Account(*pod, +1);
  const bool gpus = pod->gpu_demand().any() && !gpu_left_.empty();
  if (i == pods_.size()) {
    pods_.push_back(std::move(pod));
  } else {
    pods_.push_back(std::move(pods_[i]));
    pods_[i] = std::move(pod);
  }
  if (gpus) {
    PlaceGpus();
  }
}

}  // namespace tidepool::scheduler
