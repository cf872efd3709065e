#include "sim/store.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <variant>

namespace tidepool::sim {
namespace {

constexpr int64_t kDefaultGraceSeconds = 30;  // v1.DefaultTerminationGracePeriodSeconds

std::string PodNotFound(std::string_view name) {
  return "pods \"" + std::string(name) + "\" not found";
}
std::string NodeNotFound(std::string_view name) {
  return "nodes \"" + std::string(name) + "\" not found";
}
std::string NameOfKey(std::string_view key) {
  const size_t slash = key.find('/');
  return std::string(slash == std::string_view::npos ? key : key.substr(slash + 1));
}

bool SameConditionIgnoringTimes(const api::PodCondition& a, const api::PodCondition& b) {
  return a.type == b.type && a.status == b.status && a.reason == b.reason && a.message == b.message;
}

}  // namespace

std::string_view ChangeTypeName(ChangeType t) {
  switch (t) {
    case ChangeType::kAdded:
      return "ADDED";
    case ChangeType::kModified:
      return "MODIFIED";
    case ChangeType::kDeleted:
      return "DELETED";
  }
  return "UNKNOWN";
}

std::string EventName(std::string_view object_name, TimePoint t) {
  char hex[24];
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch());
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(nanos.count()));
  return std::string(object_name) + "." + hex;
}

autoscaler::ObjectRef RefOf(const api::Pod& pod) {
  return autoscaler::ObjectRef{"Pod", pod.meta.namespace_, pod.meta.name, pod.meta.uid};
}

autoscaler::ObjectRef RefOf(const api::Node& node) {
  // Node events carry the node name as uid (as the kubelet's and CA's node references do).
  return autoscaler::ObjectRef{"Node", "", node.meta.name, node.meta.name};
}

struct Store::Notification {
  std::variant<NodeChange, PodChange, EventChange> change;
};

Store::Store(const Clock& clock) : clock_(clock) {}
Store::~Store() = default;

void Store::AddObserver(StoreObserver* observer) { observers_.push_back(observer); }

void Store::RemoveObserver(StoreObserver* observer) {
  observers_.erase(std::remove(observers_.begin(), observers_.end(), observer), observers_.end());
}

std::string Store::NewUid() {
  // RFC 4122-shaped and deterministic: the simulator's uids count up.
  const uint64_t n = next_uid_++;
  char buf[40];
  std::snprintf(buf, sizeof(buf), "00000000-0000-4000-8000-%012llx",
                static_cast<unsigned long long>(n));
  return buf;
}

void Store::Enqueue(Notification n) {
  pending_.push_back(std::move(n));
  Dispatch();
}

void Store::Dispatch() {
  if (dispatching_) {
    return;  // the outer Dispatch delivers it, in order
  }
  dispatching_ = true;
  while (!pending_.empty()) {
    Notification n = std::move(pending_.front());
    pending_.pop_front();
    const std::vector<StoreObserver*> observers = observers_;
    for (StoreObserver* o : observers) {
      if (auto* c = std::get_if<NodeChange>(&n.change)) {
        o->OnNodeChange(*c);
      } else if (auto* p = std::get_if<PodChange>(&n.change)) {
        o->OnPodChange(*p);
      } else {
        o->OnEvent(std::get<EventChange>(n.change));
      }
    }
  }
  dispatching_ = false;
}

// ---- Pods -------------------------------------------------------------------------------------

Status Store::PutPod(PodRecord record, ChangeType type, std::optional<PodRecord> old) {
  auto pod = std::make_shared<api::Pod>(*record.pod);
  pod->meta.resource_version = std::to_string(NextRevision());
  record.pod = pod;
  const std::string key = record.pod->Key();
  pods_[key] = record;
  Enqueue(Notification{PodChange{type, std::move(old), std::move(record)}});
  return OkStatus();
}

StatusOr<api::PodConstSharedPtr> Store::CreatePod(api::Pod pod) {
  if (pod.meta.namespace_.empty()) {
    pod.meta.namespace_ = "default";
  }
  if (pod.meta.name.empty()) {
    return InvalidArgumentError("metadata.name: Required value: name or generateName is required");
  }
  const std::string key = pod.Key();
  if (pods_.count(key) > 0) {
    return AlreadyExistsError("pods \"" + pod.meta.name + "\" already exists");
  }
  if (pod.meta.uid.empty()) {
    pod.meta.uid = NewUid();
  }
  if (!pod.meta.creation_timestamp.has_value()) {
    pod.meta.creation_timestamp = clock_.Now();
  }
  pod.meta.deletion_timestamp.reset();
  PodRecord rec;
  rec.pod = std::make_shared<const api::Pod>(std::move(pod));
  TIDEPOOL_RETURN_IF_ERROR(PutPod(std::move(rec), ChangeType::kAdded, std::nullopt));
  return pods_.find(key)->second.pod;
}

Status Store::BindPod(const std::string& key, const std::string& node) {
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return NotFoundError(PodNotFound(NameOfKey(key)));
  }
  const api::Pod& cur = *it->second.pod;
  if (!cur.spec.node_name.empty()) {
    return AbortedError("pod " + key + " is already assigned to node \"" + cur.spec.node_name +
                        "\"");
  }
  if (cur.meta.deletion_timestamp.has_value()) {
    return AbortedError("pod " + key + " is being deleted, cannot be assigned to a host");
  }
  if (nodes_.count(node) == 0) {
    return NotFoundError(NodeNotFound(node));
  }
  PodRecord old = it->second;
  api::Pod pod = cur;
  pod.spec.node_name = node;
  api::PodCondition scheduled;
  scheduled.type = "PodScheduled";
  scheduled.status = api::ConditionStatus::kTrue;
  scheduled.last_transition_time = clock_.Now();
  bool replaced = false;
  for (api::PodCondition& c : pod.status.conditions) {
    if (c.type == "PodScheduled") {
      c = scheduled;
      replaced = true;
    }
  }
  if (!replaced) {
    pod.status.conditions.push_back(scheduled);
  }
  pod.status.nominated_node_name.clear();
  PodRecord rec{std::make_shared<const api::Pod>(std::move(pod)), old.containers};
  return PutPod(std::move(rec), ChangeType::kModified, std::move(old));
}

Status Store::UpdatePodStatus(const std::string& key, api::PodStatus status,
                              std::vector<ContainerStatus> containers) {
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return NotFoundError(PodNotFound(NameOfKey(key)));
  }
  if (it->second.pod->status == status && it->second.containers == containers) {
    return OkStatus();
  }
  PodRecord old = it->second;
  api::Pod pod = *old.pod;
  pod.status = std::move(status);
  PodRecord rec{std::make_shared<const api::Pod>(std::move(pod)), std::move(containers)};
  return PutPod(std::move(rec), ChangeType::kModified, std::move(old));
}

Status Store::SetPodCondition(const std::string& key, api::PodCondition condition,
                              std::optional<std::string> nominated_node) {
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return NotFoundError(PodNotFound(NameOfKey(key)));
  }
  const api::Pod& cur = *it->second.pod;
  const api::PodCondition* existing = cur.FindCondition(condition.type);
  const bool nominated_changed =
      nominated_node.has_value() && *nominated_node != cur.status.nominated_node_name;
  if (existing != nullptr && SameConditionIgnoringTimes(*existing, condition) &&
      !nominated_changed) {
    return OkStatus();  // podutil.UpdatePodCondition: nothing to write
  }
  PodRecord old = it->second;
  api::Pod pod = cur;
  if (existing != nullptr && existing->status == condition.status) {
    condition.last_transition_time = existing->last_transition_time;
  } else if (!condition.last_transition_time.has_value()) {
    condition.last_transition_time = clock_.Now();
  }
  bool replaced = false;
  for (api::PodCondition& c : pod.status.conditions) {
    if (c.type == condition.type) {
      c = condition;
      replaced = true;
    }
  }
  if (!replaced) {
    pod.status.conditions.push_back(condition);
  }
  if (nominated_node.has_value()) {
    pod.status.nominated_node_name = *nominated_node;
  }
  PodRecord rec{std::make_shared<const api::Pod>(std::move(pod)), old.containers};
  return PutPod(std::move(rec), ChangeType::kModified, std::move(old));
}

Status Store::DeletePod(const std::string& namespace_, const std::string& name,
                        std::optional<Duration> grace) {
  const std::string key = (namespace_.empty() ? "default" : namespace_) + "/" + name;
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return NotFoundError(PodNotFound(name));
  }
  const api::Pod& cur = *it->second.pod;
  // The pod strategy's CheckGracefulDelete: unscheduled and terminal pods go at once.
  if (cur.spec.node_name.empty() || IsTerminal(cur)) {
    return RemovePod(key);
  }
  if (cur.meta.deletion_timestamp.has_value()) {
    return OkStatus();  // already terminating
  }
  const Duration g = grace.value_or(std::chrono::seconds(
      cur.spec.termination_grace_period_seconds.value_or(kDefaultGraceSeconds)));
  if (g <= Duration::zero()) {
    return RemovePod(key);
  }
  PodRecord old = it->second;
  api::Pod pod = cur;
  pod.meta.deletion_timestamp = clock_.Now() + g;
  PodRecord rec{std::make_shared<const api::Pod>(std::move(pod)), old.containers};
  return PutPod(std::move(rec), ChangeType::kModified, std::move(old));
}

Status Store::RemovePod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return NotFoundError(PodNotFound(NameOfKey(key)));
  }
  PodRecord last = std::move(it->second);
  pods_.erase(it);
  NextRevision();
  PodRecord old = last;
  Enqueue(Notification{PodChange{ChangeType::kDeleted, std::move(old), std::move(last)}});
  return OkStatus();
}

const PodRecord* Store::GetPod(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second;
}

std::vector<PodRecord> Store::ListPods() const {
  std::vector<PodRecord> out;
  out.reserve(pods_.size());
  for (const auto& [key, rec] : pods_) {
    out.push_back(rec);
  }
  return out;
}

// ---- Nodes ------------------------------------------------------------------------------------

Status Store::PutNode(api::Node node, ChangeType type, api::NodeConstSharedPtr old) {
  node.meta.resource_version = std::to_string(NextRevision());
  auto ptr = std::make_shared<const api::Node>(std::move(node));
  nodes_[ptr->meta.name] = ptr;
  Enqueue(Notification{NodeChange{type, std::move(old), ptr}});
  return OkStatus();
}

Status Store::UpsertNode(api::Node node) {
  const std::string name = node.meta.name;
  if (name.empty()) {
    return InvalidArgumentError("metadata.name: Required value");
  }
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    node.meta.uid = NewUid();
    if (!node.meta.creation_timestamp.has_value()) {
      node.meta.creation_timestamp = clock_.Now();
    }
    node.meta.deletion_timestamp.reset();
    cloud_taints_[name] = node.spec.taints;
    return PutNode(std::move(node), ChangeType::kAdded, nullptr);
  }
  const api::NodeConstSharedPtr old = it->second;
  const std::vector<api::Taint>& previous_cloud = cloud_taints_[name];
  api::Node merged = *old;
  // Labels and annotations: add or overwrite by key.
  for (auto& [k, v] : node.meta.labels) {
    merged.meta.labels[k] = v;
  }
  for (auto& [k, v] : node.meta.annotations) {
    merged.meta.annotations[k] = v;
  }
  merged.spec.provider_id = node.spec.provider_id;
  // Taints: the cloud's new set, plus every taint somebody else added.
  std::vector<api::Taint> taints =
      api::MergeOwnedTaints(old->spec.taints, previous_cloud, node.spec.taints);
  cloud_taints_[name] = node.spec.taints;
  merged.spec.taints = std::move(taints);
  merged.status = std::move(node.status);
  api::Node cmp = merged;
  cmp.meta.resource_version = old->meta.resource_version;
  if (cmp == *old) {
    return OkStatus();
  }
  return PutNode(std::move(merged), ChangeType::kModified, old);
}

Status Store::DeleteNode(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    return NotFoundError(NodeNotFound(name));
  }
  api::NodeConstSharedPtr last = it->second;
  nodes_.erase(it);
  cloud_taints_.erase(name);
  NextRevision();
  Enqueue(Notification{NodeChange{ChangeType::kDeleted, last, last}});
  return OkStatus();
}

api::NodeConstSharedPtr Store::GetNode(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second;
}

std::vector<api::NodeConstSharedPtr> Store::ListNodes() const {
  std::vector<api::NodeConstSharedPtr> out;
  out.reserve(nodes_.size());
  for (const auto& [name, n] : nodes_) {
    out.push_back(n);
  }
  return out;
}

// ---- ClusterWriter ----------------------------------------------------------------------------

Status Store::AddNodeTaint(const std::string& node, const api::Taint& taint) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    return NotFoundError(NodeNotFound(node));
  }
  const api::NodeConstSharedPtr old = it->second;
  api::Node n = *old;
  bool replaced = false;
  for (api::Taint& t : n.spec.taints) {
    if (t.MatchTaint(taint)) {
      if (t == taint && t.time_added == taint.time_added) {
        return OkStatus();
      }
      t = taint;
      replaced = true;
    }
  }
  if (!replaced) {
    n.spec.taints.push_back(taint);
  }
  return PutNode(std::move(n), ChangeType::kModified, old);
}

Status Store::RemoveNodeTaint(const std::string& node, const std::string& key) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    return NotFoundError(NodeNotFound(node));
  }
  const api::NodeConstSharedPtr old = it->second;
  api::Node n = *old;
  const size_t before = n.spec.taints.size();
  n.spec.taints.erase(std::remove_if(n.spec.taints.begin(), n.spec.taints.end(),
                                     [&](const api::Taint& t) { return t.key == key; }),
                      n.spec.taints.end());
  if (n.spec.taints.size() == before) {
    return OkStatus();
  }
  return PutNode(std::move(n), ChangeType::kModified, old);
}

Status Store::EvictPod(const std::string& namespace_, const std::string& name) {
  return DeletePod(namespace_, name);
}

// ---- Events -----------------------------------------------------------------------------------

void Store::Event(const autoscaler::ObjectRef& object, std::string_view type,
                  std::string_view reason, std::string message) {
  RecordEvent(object, type, reason, std::move(message), EventSource{"cluster-autoscaler", ""});
}

namespace {

// EventCorrelator's aggregation key: source, involved object, type, reason, message.
std::string EventKey(const EventSource& source, const autoscaler::ObjectRef& object,
                     std::string_view type, std::string_view reason, std::string_view message) {
  std::string key;
  for (std::string_view part : {std::string_view(source.component), std::string_view(source.host),
                                std::string_view(object.kind), std::string_view(object.namespace_),
                                std::string_view(object.name), std::string_view(object.uid), type,
                                reason, message}) {
    key.append(part);
    key.push_back('\0');
  }
  return key;
}

}  // namespace

void Store::RecordEvent(const autoscaler::ObjectRef& object, std::string_view type,
                        std::string_view reason, std::string message, EventSource source) {
  const TimePoint now = clock_.Now();
  std::string key = EventKey(source, object, type, reason, message);
  auto found = event_index_.find(key);
  if (found != event_index_.end()) {
    EventRecord& e = events_[found->second];
    ++e.count;
    e.last_timestamp = now;
    e.resource_version = NextRevision();
    Enqueue(Notification{EventChange{e, /*aggregated=*/true}});
    return;
  }
  EventRecord e;
  // Two events of one object at the same instant (common on a virtual clock) would share the
  // name; a real client's clock would have moved on by a nanosecond, so this one does.
  TimePoint at = now;
  do {
    e.name = EventName(object.name, at);
    at += std::chrono::nanoseconds(1);
  } while (!event_names_.insert(e.name).second);
  e.involved_object = object;
  e.type = std::string(type);
  e.reason = std::string(reason);
  e.message = std::move(message);
  e.source = std::move(source);
  e.first_timestamp = now;
  e.last_timestamp = now;
  e.count = 1;
  e.resource_version = NextRevision();
  event_index_.emplace(std::move(key), events_.size());
  events_.push_back(e);
  Enqueue(Notification{EventChange{std::move(e), /*aggregated=*/false}});
}

}  // namespace tidepool::sim
