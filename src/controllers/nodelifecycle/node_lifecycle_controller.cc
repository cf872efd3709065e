#include "controllers/nodelifecycle/node_lifecycle_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "controllers/object_json.h"

namespace tidepool::controllers::nodelifecycle {
namespace {

using json = nlohmann::json;

constexpr char kMonitorKey[] = "monitor";
constexpr char kTaintKey[] = "taint";
// The nodes whose NoSchedule taints to reconcile, and the pods bound since, are taken in one
// sync each (kcm drains them with several workers): a burst of nodes turning Ready costs the
// controllers that follow node updates one sync, not one per node.
constexpr char kNoScheduleKey[] = "noschedule";
constexpr char kPodsKey[] = "pods";

constexpr char kReady[] = "Ready";
constexpr char kTrue[] = "True";
constexpr char kFalse[] = "False";
constexpr char kUnknown[] = "Unknown";

// NotReadyTaintTemplate and UnreachableTaintTemplate, as "<key>:<effect>".
constexpr char kNotReadyNoExecute[] = "node.kubernetes.io/not-ready:NoExecute";
constexpr char kUnreachableNoExecute[] = "node.kubernetes.io/unreachable:NoExecute";
constexpr char kUnschedulableTaint[] = "node.kubernetes.io/unschedulable";
constexpr char kExcludeDisruption[] = "node.kubernetes.io/exclude-disruption";

// nodeConditionToTaintKeyStatusMap.
struct ConditionTaint {
  const char* condition;
  const char* status;
  const char* taint;
};
constexpr ConditionTaint kConditionTaints[] = {
    {"Ready", "False", "node.kubernetes.io/not-ready"},
    {"Ready", "Unknown", "node.kubernetes.io/unreachable"},
    {"MemoryPressure", "True", "node.kubernetes.io/memory-pressure"},
    {"DiskPressure", "True", "node.kubernetes.io/disk-pressure"},
    {"NetworkUnavailable", "True", "node.kubernetes.io/network-unavailable"},
    {"PIDPressure", "True", "node.kubernetes.io/pid-pressure"},
};

// The conditions a node that stopped reporting gets Unknown (NetworkUnavailable is the control
// plane's).
constexpr const char* kMonitoredConditions[] = {"Ready", "MemoryPressure", "DiskPressure",
                                                "PIDPressure"};

// Is "<key>:NoSchedule" one of the taints the NoSchedule pass owns?
bool OwnedNoScheduleTaint(const std::string& taint) {
  constexpr std::string_view kSuffix = ":NoSchedule";
  if (taint.size() <= kSuffix.size() ||
      taint.compare(taint.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return false;
  }
  const std::string key = taint.substr(0, taint.size() - kSuffix.size());
  if (key == kUnschedulableTaint) return true;
  for (const ConditionTaint& c : kConditionTaints) {
    if (key == c.taint) return true;
  }
  return false;
}

// nodetopology.GetZoneKey: "<region>:\x00:<zone>", or "" without either.
std::string ZoneKey(const json& labels) {
  auto label = [&](const char* beta, const char* ga) {
    const json& b = Member(labels, beta);
    return b.is_string() ? b.get<std::string>() : Str(Member(labels, ga));
  };
  const std::string zone =
      label("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
  const std::string region =
      label("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
  if (region.empty() && zone.empty()) return "";
  return region + std::string(":\0:", 3) + zone;
}

std::string TaintId(const json& taint) {
  return Str(Member(taint, "key")) + ":" + Str(Member(taint, "effect"));
}

}  // namespace

// ---- The zones' rate-limited queues ---------------------------------------------------------

bool NodeLifecycleController::ZoneQueue::TryAccept(TimePoint now) {
  if (interval <= Duration::zero()) return false;
  if (now > last) {
    tokens = std::min(1.0, tokens + std::chrono::duration<double>(now - last).count() /
                                        std::chrono::duration<double>(interval).count());
    last = now;
  }
  if (tokens < 1.0) return false;
  tokens -= 1.0;
  return true;
}

std::optional<TimePoint> NodeLifecycleController::ZoneQueue::NextToken(TimePoint now) const {
  if (interval <= Duration::zero()) return std::nullopt;
  double t = tokens;
  if (now > last) {
    t = std::min(1.0, t + std::chrono::duration<double>(now - last).count() /
                              std::chrono::duration<double>(interval).count());
  }
  if (t >= 1.0) return now;
  return now + std::chrono::duration_cast<Duration>((1.0 - t) * interval) + Duration(1);
}

void NodeLifecycleController::ZoneQueue::Swap(Duration next, TimePoint now) {
  if (next == interval) return;
  if (next <= Duration::zero()) {
    interval = Duration::zero();
    return;
  }
  // A limiter being waited on drains the new one (burst 1).
  const bool had_token = TryAccept(now);
  interval = next;
  tokens = 1;
  last = now;
  if (!had_token) TryAccept(now);
}

bool NodeLifecycleController::ZoneQueue::Add(const std::string& name, TimePoint now, uint64_t seq) {
  if (!members.insert(name).second) return false;
  Push(Item{now, seq, name});
  return true;
}

bool NodeLifecycleController::ZoneQueue::Remove(const std::string& name) {
  if (auto it = queued.find(name); it != queued.end()) {
    queue.erase(it->second);
    queued.erase(it);
  }
  return members.erase(name) > 0;
}

NodeLifecycleController::ZoneQueue::Item NodeLifecycleController::ZoneQueue::Pop() {
  Item item = *queue.begin();
  queue.erase(queue.begin());
  queued.erase(item.name);
  return item;
}

void NodeLifecycleController::ZoneQueue::Push(Item item) {
  queued[item.name] = item;
  queue.insert(std::move(item));
}

// ---- Construction and informers --------------------------------------------------------------

NodeLifecycleController::NodeLifecycleController(
    const client::RestClient& client, const Clock& clock, NodeLifecycleControllerOptions options,
    autoscaler::EventRecorder* recorder, log::Logger* logger,
    client::SharedInformerFactory* informers, TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      recorder_(recorder),
      log_(logger),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  auto make = [&](const char* name, const char* path, uint64_t s) {
    return client::MakeDecodingInformer(informers, client_, clock_, name, path, options_.seed + s,
                                        logger);
  };
  nodes_ = make("nodelifecycle-nodes", "/api/v1/nodes", 0);
  leases_ = make("nodelifecycle-leases",
                 "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", 1);
  pods_ = make("nodelifecycle-pods", "/api/v1/pods", 2);
  nodes_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnNode(*o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnNode(*o, false); },
       [this](const client::ObjectRef& o, bool) { OnNode(*o, true); }});
  leases_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnLease(*o); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnLease(*o); },
       [this](const client::ObjectRef& o, bool) {
         std::lock_guard<std::mutex> lock(mu_);
         lease_renew_.erase(Str(Member(Meta(*o), "name")));
       }});
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(*o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnPod(*o, false); },
       [this](const client::ObjectRef& o, bool) { OnPod(*o, true); }});
}

NodeLifecycleController::~NodeLifecycleController() { Stop(); }

void NodeLifecycleController::Start() {
  if (!nodes_->driven()) {  // with an executor, a driver feeds the informers
    nodes_->Start();
    leases_->Start();
    pods_->Start();
  }
  queue_.Start();
  std::lock_guard<std::mutex> lock(mu_);
  WakeLocked(clock_.Now());
}

void NodeLifecycleController::Stop() {
  queue_.Stop();
  client::StopAll({nodes_.get(), leases_.get(), pods_.get()});
}

bool NodeLifecycleController::HasSynced() const {
  return nodes_->HasSynced() && leases_->HasSynced() && pods_->HasSynced();
}

uint64_t NodeLifecycleController::passes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return passes_;
}

void NodeLifecycleController::OnNode(const json& node, bool deleted) {
  const std::string name = client::Informer::KeyOf(node);
  const json& meta = Meta(node);
  std::lock_guard<std::mutex> lock(mu_);
  if (deleted) {
    facts_.erase(name);
    dirty_.erase(name);
    lease_renew_.erase(name);
    if (known_.count(name) > 0) {
      deleted_.insert(name);
      deleted_uids_[name] = Str(Member(meta, "uid"));
    }
    if (auto d = deadline_of_.find(name); d != deadline_of_.end()) {
      deadlines_.erase({d->second, name});
      deadline_of_.erase(d);
    }
    WakeLocked(clock_.Now());
    return;
  }
  deleted_.erase(name);  // gone and back before a pass: kcm's lister never saw it go
  NodeFacts f;
  f.uid = Str(Member(meta, "uid"));
  f.created = TimeOf(Member(meta, "creationTimestamp")).value_or(TimePoint{});
  const json& labels = Member(meta, "labels");
  f.zone = ZoneKey(labels);
  f.excluded = labels.is_object() && labels.contains(kExcludeDisruption);
  const json& spec = Member(node, "spec");
  const json& unschedulable = Member(spec, "unschedulable");
  f.unschedulable = unschedulable.is_boolean() && unschedulable.get<bool>();
  const json& taints = Member(spec, "taints");
  if (taints.is_array()) {
    for (const json& t : taints) f.taints.insert(TaintId(t));
    f.taints_json = taints;
  }
  f.resource_version = Str(Member(meta, "resourceVersion"));
  const json& conditions = Member(Member(node, "status"), "conditions");
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      f.conditions[Str(Member(c, "type"))] =
          Condition{Str(Member(c, "status")), Str(Member(c, "lastHeartbeatTime")),
                    Str(Member(c, "lastTransitionTime"))};
    }
  }
  // The NoSchedule pass, when the node's condition taints are not what its conditions say.
  std::vector<std::string> add, remove;
  NoScheduleDiff(f, &add, &remove);
  if ((!add.empty() || !remove.empty()) && noschedule_pending_.insert(name).second) {
    queue_.Add(kNoScheduleKey);
  }

  // The monitor: a Ready condition, zone or NoExecute taint that changed needs a pass; a
  // heartbeat alone only moves the probe time, as that pass would.
  auto old = facts_.find(name);
  bool changed = old == facts_.end();
  if (!changed) {
    const NodeFacts& o = old->second;
    auto r0 = o.conditions.find(kReady);
    auto r1 = f.conditions.find(kReady);
    const bool had = r0 != o.conditions.end(), has = r1 != f.conditions.end();
    changed = had != has || o.zone != f.zone || o.excluded != f.excluded ||
              o.taints.count(kNotReadyNoExecute) != f.taints.count(kNotReadyNoExecute) ||
              o.taints.count(kUnreachableNoExecute) != f.taints.count(kUnreachableNoExecute);
    if (!changed && has) {
      const Condition &a = r0->second, &b = r1->second;
      changed = a.status != b.status || a.transition != b.transition;
      auto h = health_.find(name);
      if (!changed && a.heartbeat != b.heartbeat && h != health_.end() &&
          h->second.saved_ready.has_value() && h->second.saved_ready->heartbeat != b.heartbeat) {
        h->second.saved_ready = b;
        h->second.probe = TickAtOrAfterLocked(clock_.Now());
        SetDeadlineLocked(name, h->second, f);
      }
    }
  }
  facts_[name] = std::move(f);
  if (changed) {
    dirty_.insert(name);
    WakeLocked(clock_.Now());
  }
}

void NodeLifecycleController::OnLease(const json& lease) {
  const std::string name = Str(Member(Meta(lease), "name"));
  const std::optional<TimePoint> renew = TimeOf(Member(Member(lease, "spec"), "renewTime"));
  if (!renew.has_value()) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto h = health_.find(name);
  if (h == health_.end()) {
    // Not evaluated yet: its first pass takes the Lease in.
    lease_renew_[name] = *renew;
    return;
  }
  if (h->second.lease_renew.has_value() && *h->second.lease_renew >= *renew) return;
  h->second.lease_renew = *renew;
  h->second.probe = TickAtOrAfterLocked(clock_.Now());
  auto f = facts_.find(name);
  if (f != facts_.end()) SetDeadlineLocked(name, h->second, f->second);
}

void NodeLifecycleController::OnPod(const json& pod, bool deleted) {
  const json& meta = Meta(pod);
  const std::string key = Key(Str(Member(meta, "namespace")), Str(Member(meta, "name")));
  std::lock_guard<std::mutex> lock(mu_);
  auto old = pods_facts_.find(key);
  const std::string old_node = old == pods_facts_.end() ? "" : old->second.node;
  // Takes `key` out of pods_by_node_[old_node].
  auto unindex = [&] {
    auto n = pods_by_node_.find(old_node);
    if (n != pods_by_node_.end() && n->second.erase(key) > 0 && n->second.empty()) {
      pods_by_node_.erase(n);
    }
  };
  if (deleted) {
    if (old == pods_facts_.end()) return;
    unindex();
    pods_facts_.erase(old);
    return;
  }
  PodFacts p;
  p.uid = Str(Member(meta, "uid"));
  p.node = Str(Member(Member(pod, "spec"), "nodeName"));
  const json& conditions = Member(Member(pod, "status"), "conditions");
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (Str(Member(c, "type")) == kReady) p.ready = Str(Member(c, "status")) == kTrue;
    }
  }
  if (p.node != old_node) {
    unindex();
    if (!p.node.empty()) {
      pods_by_node_[p.node].insert(key);
      // podUpdated: bound to a node, or to another one.
      if (pods_pending_.insert(key).second) queue_.Add(kPodsKey);
    }
  }
  pods_facts_[key] = std::move(p);
}

NodeLifecycleController::ZoneQueue& NodeLifecycleController::QueueLocked(const std::string& zone,
                                                                         TimePoint now) {
  auto [it, fresh] = zone_queues_.try_emplace(zone);
  if (fresh) {
    // addPodEvictorForNewZone: a full token bucket at the normal rate.
    if (log_ != nullptr) log_->Info("Initializing eviction metric for zone", {{"zone", zone}});
    zone_states_.emplace(zone, ZoneState::kInitial);
    it->second.interval = options_.eviction_interval;
    it->second.last = now;
  }
  return it->second;
}

void NodeLifecycleController::NoScheduleDiff(const NodeFacts& f, std::vector<std::string>* add,
                                             std::vector<std::string>* remove) {
  std::set<std::string> want;
  for (const ConditionTaint& ct : kConditionTaints) {
    auto c = f.conditions.find(ct.condition);
    if (c != f.conditions.end() && c->second.status == ct.status) {
      want.insert(std::string(ct.taint) + ":NoSchedule");
    }
  }
  if (f.unschedulable) want.insert(std::string(kUnschedulableTaint) + ":NoSchedule");
  for (const std::string& t : want) {
    if (f.taints.count(t) == 0) add->push_back(t);
  }
  for (const std::string& t : f.taints) {
    if (OwnedNoScheduleTaint(t) && want.count(t) == 0) remove->push_back(t);
  }
}

std::vector<std::string> NodeLifecycleController::NoExecuteTaints(const NodeFacts& f) {
  std::vector<std::string> out;
  for (const char* t : {kUnreachableNoExecute, kNotReadyNoExecute}) {
    if (f.taints.count(t) > 0) out.push_back(t);
  }
  return out;
}

// ---- Timing ----------------------------------------------------------------------------------

TimePoint NodeLifecycleController::TickAtOrAfterLocked(TimePoint t) const {
  if (!origin_.has_value() || t <= *origin_) return origin_.value_or(t);
  const Duration period = std::max(options_.monitor_period, Duration(1));
  const auto ticks = (t - *origin_ + period - Duration(1)) / period;
  return *origin_ + ticks * period;
}

void NodeLifecycleController::WakeLocked(TimePoint at) {
  TimePoint t = TickAtOrAfterLocked(at);
  if (last_pass_.has_value() && t <= *last_pass_)
    t = TickAtOrAfterLocked(*last_pass_ + Duration(1));
  if (wake_.has_value() && *wake_ <= t) return;
  wake_ = t;
  queue_.AddAt(kMonitorKey, t);
}

std::optional<Duration> NodeLifecycleController::GraceFor(const NodeFacts& f) const {
  if (f.conditions.count(kReady) == 0) return options_.startup_grace;
  if (!options_.kubelet_heartbeats) return std::nullopt;  // elided: alive
  return options_.monitor_grace;
}

void NodeLifecycleController::SetDeadlineLocked(const std::string& name, const Health& h,
                                                const NodeFacts& f) {
  if (auto d = deadline_of_.find(name); d != deadline_of_.end()) {
    deadlines_.erase({d->second, name});
    deadline_of_.erase(d);
  }
  const std::optional<Duration> grace = GraceFor(f);
  if (!grace.has_value()) return;
  // Expired at the first tick strictly after probe + grace.
  const TimePoint due = TickAtOrAfterLocked(h.probe + *grace + Duration(1));
  if (last_pass_.has_value() && due <= *last_pass_) return;  // expired already, and handled
  deadlines_.insert({due, name});
  deadline_of_[name] = due;
  WakeLocked(due);
}

std::optional<TimePoint> NodeLifecycleController::Sync(const std::string& key) {
  if (key == kMonitorKey) return Monitor();
  if (key == kTaintKey) return TaintPass();
  std::set<std::string> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending.swap(key == kNoScheduleKey ? noschedule_pending_ : pods_pending_);
  }
  for (const std::string& name : pending) {
    if (key == kNoScheduleKey) {
      NoScheduleTaints(name);
    } else {
      ProcessPod(name);
    }
  }
  return std::nullopt;
}

// ---- monitorNodeHealth -------------------------------------------------------------------------

std::optional<TimePoint> NodeLifecycleController::Monitor() {
  const TimePoint now = clock_.Now();
  std::vector<std::string> added;
  std::map<std::string, std::string> deleted;
  std::set<std::string> work;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!origin_.has_value()) origin_ = now;
    last_pass_ = now;
    wake_.reset();
    ++passes_;
    for (const auto& [name, f] : facts_) {
      if (known_.count(name) == 0) added.push_back(name);
    }
    for (const std::string& name : deleted_) deleted[name] = deleted_uids_[name];
    deleted_.clear();
    deleted_uids_.clear();
    work = std::move(dirty_);
    dirty_.clear();
    while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
      work.insert(deadlines_.begin()->second);
      deadline_of_.erase(deadlines_.begin()->second);
      deadlines_.erase(deadlines_.begin());
    }
    work.insert(added.begin(), added.end());
  }
  for (const auto& [name, uid] : deleted) {
    if (log_ != nullptr) log_->Info("Controller observed a Node deletion", {{"node", name}});
    NodeEvent(name, uid, "RemovingNode", "Removing Node " + name + " from Controller");
    std::lock_guard<std::mutex> lock(mu_);
    known_.erase(name);
    ready_status_.erase(name);
    health_.erase(name);
    lease_renew_.erase(name);
    for (auto& [zone, q] : zone_queues_) q.Remove(name);
  }
  for (const std::string& name : added) {
    std::string uid;
    std::vector<std::string> no_execute;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto f = facts_.find(name);
      if (f == facts_.end()) continue;
      uid = f->second.uid;
      known_.insert(name);
      no_execute = NoExecuteTaints(f->second);
      QueueLocked(f->second.zone, now).Remove(name);
    }
    if (log_ != nullptr) log_->Info("Controller observed a new Node", {{"node", name}});
    NodeEvent(name, uid, "RegisteredNode", "Registered Node " + name + " in Controller");
    // markNodeAsReachable: a node first seen starts without the NoExecute taints; its pass
    // below queues it again at its zone's rate if it is not Ready.
    if (!no_execute.empty()) SwapTaints(name, {}, no_execute);
  }
  for (const std::string& name : work) UpdateNodeHealth(name, now);
  HandleDisruption(now);

  std::lock_guard<std::mutex> lock(mu_);
  std::optional<TimePoint> next;
  if (!dirty_.empty() || !deleted_.empty()) next = TickAtOrAfterLocked(now + Duration(1));
  if (!deadlines_.empty() && (!next || deadlines_.begin()->first < *next)) {
    next = deadlines_.begin()->first;
  }
  if (wake_.has_value() && (!next || *wake_ < *next)) next = wake_;  // asked for meanwhile
  wake_ = next;
  return next;
}

void NodeLifecycleController::UpdateNodeHealth(const std::string& name, TimePoint now) {
  NodeFacts f;
  Health h;
  bool fresh = false;
  std::string observed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto fi = facts_.find(name);
    if (fi == facts_.end()) return;
    f = fi->second;
    auto hi = health_.find(name);
    fresh = hi == health_.end();
    if (!fresh) h = hi->second;
    auto ready = f.conditions.find(kReady);
    if (ready == f.conditions.end()) {
      // Never posted: a fake Unknown condition dated from the node's creation.
      observed = kUnknown;
      if (fresh) h = Health{std::nullopt, f.created, f.created, std::nullopt};
      h.saved_ready.reset();
    } else {
      observed = ready->second.status;
      const std::optional<Condition>& saved = h.saved_ready;
      if (fresh || !saved.has_value()) {
        h = Health{ready->second, now, now, h.lease_renew};
      } else if (saved->heartbeat != ready->second.heartbeat) {
        if (saved->transition != ready->second.transition) h.ready_transition = now;
        h.probe = now;
        h.saved_ready = ready->second;
      }
    }
    // A Lease renewed since it was last taken in moves the probe time.
    if (auto l = lease_renew_.find(name); l != lease_renew_.end()) {
      if (!h.lease_renew.has_value() || *h.lease_renew < l->second) {
        h.lease_renew = l->second;
        h.probe = now;
      }
      lease_renew_.erase(l);
    }
  }
  std::optional<std::string> current;
  auto ready = f.conditions.find(kReady);
  if (ready != f.conditions.end()) current = ready->second.status;
  if (const std::optional<Duration> grace = GraceFor(f); grace && now > h.probe + *grace) {
    const std::optional<Condition> written =
        MarkUnknown(name, ready == f.conditions.end() ? "" : ready->second.heartbeat, now);
    if (!written.has_value()) {
      std::lock_guard<std::mutex> lock(mu_);
      MergeHealthLocked(name, h);
      health_[name] = h;
      dirty_.insert(name);  // "Skipping - no pods will be evicted"; tried again next pass
      return;
    }
    if (!current.has_value() || *current != written->status) {
      h.ready_transition = now;
      h.saved_ready = written;
    }
    current = written->status;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    MergeHealthLocked(name, h);
    health_[name] = h;
    SetDeadlineLocked(name, h, f);
    ready_status_[name] = current.value_or("");
    QueueLocked(f.zone, now);
  }
  if (!current.has_value()) return;
  ProcessTaintBasedEviction(name, f, observed, now);
  if (*current != kTrue && observed == kTrue) {
    NodeEvent(name, f.uid, "NodeNotReady", "Node " + name + " status is now: NodeNotReady");
    std::vector<std::string> pods;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto p = pods_by_node_.find(name); p != pods_by_node_.end()) {
        pods.assign(p->second.begin(), p->second.end());
      }
    }
    MarkPodsNotReady(name, pods);
  }
}

void NodeLifecycleController::MergeHealthLocked(const std::string& name, Health& h) const {
  auto it = health_.find(name);
  if (it == health_.end()) return;
  const Health& stored = it->second;
  if (stored.probe > h.probe) h.probe = stored.probe;
  if (stored.lease_renew.has_value() &&
      (!h.lease_renew.has_value() || *stored.lease_renew > *h.lease_renew)) {
    h.lease_renew = stored.lease_renew;
  }
}

std::optional<NodeLifecycleController::Condition> NodeLifecycleController::MarkUnknown(
    const std::string& name, const std::string& heartbeat, TimePoint now) {
  const std::string path = client::ResourcePath("", "v1", "nodes", "", name);
  StatusOr<json> got = client_.Get(path);
  if (!got.ok()) return std::nullopt;
  json node = std::move(got).value();
  json& status = node["status"];
  if (!status.is_object()) status = json::object();
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  auto find = [&](const char* type) -> json* {
    for (json& c : conditions) {
      if (Str(Member(c, "type")) == type) return &c;
    }
    return nullptr;
  };
  if (const json* ready = find(kReady);
      (ready == nullptr ? "" : Str(Member(*ready, "lastHeartbeatTime"))) != heartbeat) {
    return std::nullopt;  // the kubelet posted since the informer's copy: judged next pass
  }
  const std::string at = FormatRfc3339(now);
  const json created = Member(Meta(node), "creationTimestamp");
  bool ready_changed = false;
  for (const char* type : kMonitoredConditions) {
    json* found = find(type);
    if (found == nullptr) {
      conditions.push_back({{"type", type},
                            {"status", kUnknown},
                            {"lastHeartbeatTime", created},
                            {"lastTransitionTime", at},
                            {"reason", "NodeStatusNeverUpdated"},
                            {"message", "Kubelet never posted node status."}});
      ready_changed |= std::string(type) == kReady;
    } else if (Str(Member(*found, "status")) != kUnknown) {
      (*found)["status"] = kUnknown;
      (*found)["reason"] = "NodeStatusUnknown";
      (*found)["message"] = "Kubelet stopped posting node status.";
      (*found)["lastTransitionTime"] = at;
      ready_changed |= std::string(type) == kReady;
    }
  }
  const json& ready = *find(kReady);
  const Condition result{kUnknown, Str(Member(ready, "lastHeartbeatTime")),
                         Str(Member(ready, "lastTransitionTime"))};
  if (!ready_changed) return result;
  if (log_ != nullptr) log_->Info("Node hasn't been updated", {{"node", name}});
  auto r = client_.Update(path + "/status", node);
  if (!r.ok()) {
    if (log_ != nullptr) {
      log_->Warning("Error updating node", {{"node", name}, {"err", r.status().ToString()}});
    }
    return std::nullopt;
  }
  return result;
}

void NodeLifecycleController::ProcessTaintBasedEviction(const std::string& name, const NodeFacts& f,
                                                        const std::string& observed,
                                                        TimePoint now) {
  auto mark_for_tainting = [&](const char* taint) {
    std::lock_guard<std::mutex> lock(mu_);
    ZoneQueue& q = QueueLocked(f.zone, now);
    if (f.taints.count(taint) == 0) q.Remove(name);
    if (q.Add(name, now, ++seq_)) queue_.Add(kTaintKey);
  };
  if (observed == kFalse) {
    if (f.taints.count(kUnreachableNoExecute) > 0) {
      SwapTaints(name, {kNotReadyNoExecute}, {kUnreachableNoExecute});
    } else {
      mark_for_tainting(kNotReadyNoExecute);
    }
  } else if (observed == kUnknown) {
    if (f.taints.count(kNotReadyNoExecute) > 0) {
      SwapTaints(name, {kUnreachableNoExecute}, {kNotReadyNoExecute});
    } else {
      mark_for_tainting(kUnreachableNoExecute);
    }
  } else if (observed == kTrue) {
    // markNodeAsReachable.
    if (const std::vector<std::string> remove = NoExecuteTaints(f); !remove.empty()) {
      SwapTaints(name, {}, remove);
    }
    std::lock_guard<std::mutex> lock(mu_);
    QueueLocked(f.zone, now).Remove(name);
  }
}

void NodeLifecycleController::HandleDisruption(TimePoint now) {
  std::vector<std::pair<std::string, std::vector<std::string>>> reachable;  // node, its taints
  {
    std::lock_guard<std::mutex> lock(mu_);
    struct Count {
      int ready = 0, not_ready = 0;
    };
    std::map<std::string, Count> zones;
    for (const auto& [name, status] : ready_status_) {
      auto f = facts_.find(name);
      if (f == facts_.end() || f->second.excluded) continue;
      Count& c = zones[f->second.zone];
      (status == kTrue ? c.ready : c.not_ready)++;
    }
    std::map<std::string, ZoneState> next;
    bool all_are_full = true;
    for (const auto& [zone, c] : zones) {
      ZoneState s = ZoneState::kNormal;
      if (c.ready == 0 && c.not_ready > 0) {
        s = ZoneState::kFullDisruption;
      } else if (c.not_ready > 2 && static_cast<double>(c.not_ready) / (c.not_ready + c.ready) >=
                                        options_.unhealthy_zone_threshold) {
        s = ZoneState::kPartialDisruption;
      }
      if (s != ZoneState::kFullDisruption) all_are_full = false;
      next[zone] = s;
      QueueLocked(zone, now);
      zone_states_.emplace(zone, ZoneState::kInitial);  // "Setting initial state for unseen zone"
    }
    bool all_were_full = true;
    for (auto it = zone_states_.begin(); it != zone_states_.end();) {
      if (zones.count(it->first) == 0) {
        it = zone_states_.erase(it);
        continue;
      }
      if (it->second != ZoneState::kFullDisruption) {
        all_were_full = false;
        break;
      }
      ++it;
    }
    if (all_are_full && all_were_full) return;
    auto set_limiter = [&](const std::string& zone, ZoneState s) {
      ZoneQueue& q = QueueLocked(zone, now);
      const int size = zones[zone].ready + zones[zone].not_ready;
      if (s == ZoneState::kNormal || s == ZoneState::kFullDisruption) {
        q.Swap(options_.eviction_interval, now);
      } else if (s == ZoneState::kPartialDisruption) {
        q.Swap(size > options_.large_cluster_threshold ? options_.secondary_eviction_interval
                                                       : Duration::zero(),
               now);
      }
    };
    if (all_are_full) {
      if (log_ != nullptr) {
        log_->Info(
            "Controller detected that all Nodes are not-Ready. Entering master "
            "disruption mode",
            {});
      }
      for (const auto& [name, f] : facts_) {
        reachable.emplace_back(name, NoExecuteTaints(f));
      }
      for (auto& [zone, q] : zone_queues_) q.Swap(Duration::zero(), now);
      for (auto& [zone, s] : zone_states_) s = ZoneState::kFullDisruption;
    } else if (all_were_full) {
      if (log_ != nullptr) {
        log_->Info(
            "Controller detected that some Nodes are Ready. Exiting master disruption "
            "mode",
            {});
      }
      for (auto& [name, h] : health_) {
        h.probe = now;
        h.ready_transition = now;
        if (auto f = facts_.find(name); f != facts_.end()) SetDeadlineLocked(name, h, f->second);
      }
      for (auto& [zone, s] : zone_states_) {
        auto n = next.find(zone);
        const ZoneState to = n == next.end() ? ZoneState::kNormal : n->second;
        set_limiter(zone, to);
        s = to;
      }
    } else {
      for (auto& [zone, s] : zone_states_) {
        const ZoneState to = next[zone];
        if (s == to) continue;
        if (log_ != nullptr) {
          log_->Info("Controller detected that zone is now in new state", {{"zone", zone}});
        }
        set_limiter(zone, to);
        s = to;
      }
    }
    bool pending = false;
    for (const auto& [zone, q] : zone_queues_) pending |= !q.queue.empty();
    if (pending) queue_.Add(kTaintKey);
  }
  // Entering full disruption: every node loses its NoExecute taints and leaves the queues.
  for (const auto& [name, taints] : reachable) {
    if (!taints.empty()) SwapTaints(name, {}, taints);
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [zone, q] : zone_queues_) q.Remove(name);
  }
}

// ---- doNoExecuteTaintingPass ------------------------------------------------------------------

std::optional<TimePoint> NodeLifecycleController::TaintPass() {
  const TimePoint now = clock_.Now();
  std::vector<std::string> zones;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [zone, q] : zone_queues_) zones.push_back(zone);
  }
  for (const std::string& zone : zones) {
    while (true) {
      ZoneQueue::Item item;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ZoneQueue& q = zone_queues_[zone];
        if (q.queue.empty() || !q.TryAccept(now)) break;
        if (now < q.queue.begin()->process_at) break;
        item = q.Pop();
      }
      // What to do with the node as the informer has it now.
      std::string status;
      bool found = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto f = facts_.find(item.name);
        if (f != facts_.end()) {
          found = true;
          auto ready = f->second.conditions.find(kReady);
          if (ready != f->second.conditions.end()) status = ready->second.status;
        }
      }
      bool done = true;
      Duration wait{0};
      if (found && status.empty()) {
        done = false;  // no Ready condition yet: again in 50 ms
        wait = std::chrono::milliseconds(50);
      } else if (found && status == kFalse) {
        done = SwapTaints(item.name, {kNotReadyNoExecute}, {kUnreachableNoExecute});
      } else if (found && status == kUnknown) {
        done = SwapTaints(item.name, {kUnreachableNoExecute}, {kNotReadyNoExecute});
      }
      if (!done) {
        std::lock_guard<std::mutex> lock(mu_);
        ZoneQueue& q = zone_queues_[zone];
        if (q.members.count(item.name) > 0) {
          item.process_at = now + wait + Duration(1);
          q.Push(item);
        }
      }
    }
  }
  // The next try: the first zone whose head is due and has a token, on the 100 ms grid.
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<TimePoint> next;
  for (const auto& [zone, q] : zone_queues_) {
    if (q.queue.empty()) continue;
    const std::optional<TimePoint> token = q.NextToken(now);
    if (!token.has_value()) continue;
    const TimePoint at = std::max(*token, q.queue.begin()->process_at);
    if (!next || at < *next) next = at;
  }
  if (!next.has_value()) return std::nullopt;
  const TimePoint origin = origin_.value_or(now);
  const Duration period = std::max(options_.eviction_period, Duration(1));
  if (*next <= origin) return origin;
  return origin + ((*next - origin + period - Duration(1)) / period) * period;
}

// ---- doNoScheduleTaintingPass, processPod -----------------------------------------------------

void NodeLifecycleController::NoScheduleTaints(const std::string& name) {
  std::vector<std::string> add, remove;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto f = facts_.find(name);
    if (f == facts_.end()) return;
    NoScheduleDiff(f->second, &add, &remove);
  }
  if (add.empty() && remove.empty()) return;
  if (!SwapTaints(name, add, remove) && log_ != nullptr) {
    log_->Warning("Failed to taint NoSchedule on node", {{"node", name}});
  }
}

void NodeLifecycleController::ProcessPod(const std::string& key) {
  std::string node;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto p = pods_facts_.find(key);
    if (p == pods_facts_.end()) return;
    node = p->second.node;
    auto h = health_.find(node);
    if (h == health_.end() || facts_.count(node) == 0) return;
    if (!h->second.saved_ready.has_value() || h->second.saved_ready->status == kTrue) return;
  }
  MarkPodsNotReady(node, {key});
}

// ---- Writes ------------------------------------------------------------------------------------

bool NodeLifecycleController::SwapTaints(const std::string& name,
                                         const std::vector<std::string>& add,
                                         const std::vector<std::string>& remove) {
  const std::string path = client::ResourcePath("", "v1", "nodes", "", name);
  const std::string at = FormatRfc3339(clock_.Now());
  // `taints` with `remove` and `add` taken out, then `add` appended (timeAdded now).
  auto swapped = [&](const json& taints, json* next) {
    bool changed = false;
    *next = json::array();
    if (taints.is_array()) {
      for (const json& t : taints) {
        const std::string id = TaintId(t);
        if (std::find(add.begin(), add.end(), id) != add.end() ||
            std::find(remove.begin(), remove.end(), id) != remove.end()) {
          changed = true;
          continue;
        }
        next->push_back(t);
      }
    }
    for (const std::string& id : add) {
      const size_t colon = id.rfind(':');
      next->push_back(
          {{"key", id.substr(0, colon)}, {"effect", id.substr(colon + 1)}, {"timeAdded", at}});
      changed = true;
    }
    return changed;
  };
  auto failed = [&](const Status& s) {
    if (s.code() == StatusCode::kNotFound) return false;
    if (log_ != nullptr) {
      log_->Warning("unable to update the taints of node", {{"node", name}, {"err", s.ToString()}});
    }
    return true;
  };
  // First from the informer's copy, as a merge patch with its resourceVersion as precondition
  // (kcm's PatchNodeTaints); after a conflict, from a fresh read.
  std::string rv;
  json current;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto f = facts_.find(name); f != facts_.end()) {
      rv = f->second.resource_version;
      current = f->second.taints_json;
    }
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (rv.empty()) {
      StatusOr<json> got = client_.Get(path);
      if (!got.ok()) return got.status().code() == StatusCode::kNotFound;
      rv = Str(Member(Meta(*got), "resourceVersion"));
      current = Member(Member(*got, "spec"), "taints");
    }
    json next;
    if (!swapped(current, &next)) return true;
    const json patch = {{"metadata", {{"resourceVersion", rv}}},
                        {"spec", {{"taints", next.empty() ? json() : next}}}};
    const Status r = client_.PatchUnread(path, client::PatchType::kMerge, patch);
    if (r.ok() || r.code() == StatusCode::kNotFound) return true;
    if (r.code() != StatusCode::kAborted) return !failed(r);
    rv.clear();
  }
  return false;
}

void NodeLifecycleController::MarkPodsNotReady(const std::string& node,
                                               const std::vector<std::string>& pod_keys) {
  const std::string at = FormatRfc3339(clock_.Now());
  for (const std::string& key : pod_keys) {
    std::string ns, name, uid;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto p = pods_facts_.find(key);
      if (p == pods_facts_.end() || p->second.node != node || !p->second.ready) continue;
      uid = p->second.uid;
      const size_t slash = key.find('/');
      ns = key.substr(0, slash);
      name = key.substr(slash + 1);
    }
    const json patch = {
        {"status",
         {{"conditions",
           json::array({{{"type", kReady}, {"status", kFalse}, {"lastTransitionTime", at}}})}}}};
    auto r = client_.Patch(client::ResourcePath("", "v1", "pods", ns, name, "status"),
                           client::PatchType::kStrategicMerge, patch);
    if (!r.ok()) {
      if (r.status().code() != StatusCode::kNotFound && log_ != nullptr) {
        log_->Info("Failed to update status for pod",
                   {{"pod", key}, {"err", r.status().ToString()}});
      }
      continue;
    }
    if (recorder_ != nullptr) {
      recorder_->Event({"Pod", ns, name, uid}, "Warning", "NodeNotReady", "Node is not ready");
    }
  }
}

void NodeLifecycleController::NodeEvent(const std::string& name, const std::string& uid,
                                        const std::string& reason, std::string message) {
  if (recorder_ == nullptr) return;
  if (reason == "NodeNotReady") {
    recorder_->Event({"Node", "", name, uid}, "Normal", reason, std::move(message));
  } else {
    recorder_->Event({"Node", "", name, uid}, "Normal", reason,
                     "Node " + name + " event: " + message);
  }
}

}  // namespace tidepool::controllers::nodelifecycle
