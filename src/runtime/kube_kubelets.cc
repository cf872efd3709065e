#include "runtime/kube_kubelets.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>

#include "kubelet/node_status.h"
#include "kubelet/status_json.h"

namespace tidepool::runtime {
namespace {

using json = nlohmann::json;

// The node lifecycle controller's reason for a kubelet that stopped posting.
constexpr char kNodeStatusUnknown[] = "NodeStatusUnknown";

// The node's Ready condition's `field` ("status", "reason"), or "".
std::string ReadyField(const json& node, const char* field) {
  const json* ready = kubelet::NodeReadyCondition(node);
  if (ready == nullptr) return "";
  auto v = ready->find(field);
  return v != ready->end() && v->is_string() ? v->get<std::string>() : "";
}

// Whether the node's Ready condition is the node lifecycle controller's, not a kubelet's.
bool MarkedByController(const json& node) {
  const std::string reason = ReadyField(node, "reason");
  return reason == kNodeStatusUnknown || reason == "NodeStatusNeverUpdated";
}

int64_t ResourceVersion(const json& obj) {
  const auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return 0;
  const auto rv = m->find("resourceVersion");
  if (rv == m->end() || !rv->is_string()) return 0;
  const std::string& s = rv->get_ref<const std::string&>();
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// spec.nodeName is set (what the field selector spec.nodeName!= keeps).
bool Bound(const json& pod) {
  const auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  const auto node = spec->find("nodeName");
  return node != spec->end() && node->is_string() && !node->get_ref<const std::string&>().empty();
}

// The keys of a ConfigMap's data and binaryData, or of a Secret's data.
kubelet::ConfigObject ConfigKeys(const json& obj) {
  kubelet::ConfigObject out;
  auto keys = [&obj](const char* field, std::set<std::string, std::less<>>& into) {
    auto m = obj.find(field);
    if (m == obj.end() || !m->is_object()) return;
    for (auto it = m->begin(); it != m->end(); ++it) into.insert(it.key());
  };
  keys("data", out.data);
  keys("binaryData", out.binary_data);
  return out;
}

}  // namespace

KubeKubelets::KubeKubelets(const client::RestClient& kube, const Clock& clock,
                           kubelet::KubeletOptions options, log::Logger* logger, uint64_t seed,
                           client::SharedInformerFactory* informers, TimerService* executor)
    : kube_(kube),
      clock_(clock),
      options_(options),
      logger_(logger),
      timers_(clock, executor),
      events_(kube, clock, "kubelet", logger, executor),
      node_timers_(clock, executor),
      jitter_(seed + 3) {
  // The kubelets keep the decoded pods.
  auto make = [&](const std::string& name, const std::string& path, uint64_t s) {
    return client::MakeDecodingInformer(informers, kube_, clock_, name, path, seed + s, logger_);
  };
  node_informer_ = make("kubelet-nodes", "/api/v1/nodes", 1);
  // Every pod, as the scheduler's (so that the two share one informer): a kubelet's own is
  // spec.nodeName=<its node>; here the handler skips pods not bound yet, and a binding arrives
  // as an update of a pod the kubelet does not know, which starts it.
  pod_informer_ = make("kubelet-pods", "/api/v1/pods", 2);
  auto node = [this](Change c) {
    return [this, c](const client::ObjectRef& o, bool) {
      timers_.Post([this, c, o] { OnNode(c, o); });
      if (c == Change::kDeleted) {
        {
          std::lock_guard<std::mutex> lock(ready_mu_);
          ready_seen_.erase(client::Informer::KeyOf(*o));
          unschedulable_seen_.erase(client::Informer::KeyOf(*o));
        }
        node_timers_.Post([this, name = client::Informer::KeyOf(*o)] { StopNodeStatus(name); });
      } else {
        node_timers_.Post([this, o] { StartNodeStatus(*o); });
      }
    };
  };
  // A node's add comes before its updates, and an update changes nothing for its kubelet; its
  // node side hears only of a Ready status that changed (a post per node status write would
  // cost the heartbeats' thread), or one the node lifecycle controller marked Unknown.
  auto update = [this](const client::ObjectRef&, const client::ObjectRef& o) {
    const std::string name = client::Informer::KeyOf(*o);
    const std::string status = ReadyField(*o, "status"), reason = ReadyField(*o, "reason");
    // recordNodeSchedulableEvent: `kubectl cordon` / `uncordon` (spec.unschedulable) is the
    // kubelet's NodeNotSchedulable / NodeSchedulable event on its node.
    const json* spec = o->is_object() && o->contains("spec") ? &(*o)["spec"] : nullptr;
    const bool unschedulable = spec != nullptr && spec->is_object() &&
                               spec->value("unschedulable", json(false)) == json(true);
    bool flipped = false, ready_changed = false;
    {
      std::lock_guard<std::mutex> lock(ready_mu_);
      bool& was = unschedulable_seen_[name];
      flipped = was != unschedulable;
      was = unschedulable;
      std::string& seen = ready_seen_[name];
      ready_changed = seen != status || reason == kNodeStatusUnknown;
      seen = status;
    }
    if (flipped) {
      node_timers_.Post([this, name, unschedulable] {
        const std::string what = unschedulable ? "NodeNotSchedulable" : "NodeSchedulable";
        events_.EventOnHost(autoscaler::ObjectRef{"Node", "", name, name}, "Normal", what,
                            "Node " + name + " status is now: " + what, name);
      });
    }
    if (ready_changed) node_timers_.Post([this, o] { OnNodeConditions(*o); });
  };
  node_informer_->AddEventHandlers({node(Change::kAdded), update, node(Change::kDeleted)});
  auto pod = [this](Change c, const client::ObjectRef& o) {
    // Not bound yet: nobody's to run (a deletion, maybe inferred from a stub, is always passed on).
    if (c != Change::kDeleted && !Bound(*o)) return;
    Status error;
    api::PodConstSharedPtr ptr = DecodePodOrStub(o, &error);
    if (!error.ok()) {
      // A pod it cannot read is one it cannot run: forgotten (as if deleted).
      if (c != Change::kDeleted && logger_ != nullptr) {
        logger_->Warning("kubelet: cannot decode pod", {{"err", error.ToString()}});
      }
      c = Change::kDeleted;
    }
    const int64_t rv = ResourceVersion(*o);
    timers_.Post([this, c, ptr, rv] { OnPod(c, ptr, rv); });
  };
  pod_informer_->AddEventHandlers(
      {[pod](const client::ObjectRef& o, bool) { pod(Change::kAdded, o); },
       [pod](const client::ObjectRef&, const client::ObjectRef& o) { pod(Change::kModified, o); },
       [pod](const client::ObjectRef& o, bool) { pod(Change::kDeleted, o); }});
  // The ConfigMaps and Secrets a pod's volumes and environment read (the kubelet's
  // configMapManager and secretManager): their keys, by namespace/name.
  configmap_informer_ = make("kubelet-configmaps", "/api/v1/configmaps", 4);
  secret_informer_ = make("kubelet-secrets", "/api/v1/secrets", 5);
  auto config = [this](ConfigIndex* index, bool deleted) {
    return [this, index, deleted](const client::ObjectRef& o) {
      std::string key = client::Informer::KeyOf(*o);
      if (deleted) {
        timers_.Post([index, key = std::move(key)] { index->erase(key); });
      } else {
        timers_.Post([index, key = std::move(key), keys = ConfigKeys(*o)]() mutable {
          (*index)[std::move(key)] = std::move(keys);
        });
      }
    };
  };
  for (auto [informer, index] : {std::pair{configmap_informer_.get(), &configmaps_},
                                 std::pair{secret_informer_.get(), &secrets_}}) {
    auto set = config(index, false), erase = config(index, true);
    informer->AddEventHandlers(
        {[set](const client::ObjectRef& o, bool) { set(o); },
         [set](const client::ObjectRef&, const client::ObjectRef& o) { set(o); },
         [erase](const client::ObjectRef& o, bool) { erase(o); }});
  }
}

KubeKubelets::~KubeKubelets() { Stop(); }

void KubeKubelets::Start() {
  if (started_) return;
  started_ = true;
  timers_.Start();
  node_timers_.Start();
  if (!timers_.threaded()) return;  // driven informers
  for (client::Informer* i : Informers()) i->Start();
}

std::vector<client::Informer*> KubeKubelets::Informers() const {
  return {node_informer_.get(), pod_informer_.get(), configmap_informer_.get(),
          secret_informer_.get()};
}

void KubeKubelets::Stop() {
  if (!started_) return;
  started_ = false;
  if (timers_.threaded()) client::StopAll(Informers());
  timers_.Stop();
  node_timers_.Stop();
  kubelets_.clear();
  beats_.clear();
}

bool KubeKubelets::HasSynced() const {
  for (client::Informer* i : Informers()) {
    if (!i->HasSynced()) return false;
  }
  return true;
}

const kubelet::ConfigObject* KubeKubelets::FindConfig(api::ConfigReference::Kind kind,
                                                      std::string_view ns,
                                                      std::string_view name) const {
  const bool cm = kind == api::ConfigReference::Kind::kConfigMap;
  ConfigIndex& index = cm ? configmaps_ : secrets_;
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  auto it = index.find(key);
  if (it != index.end()) return it->second ? &*it->second : nullptr;
  // Not (yet) delivered by the informer - one created a moment ago, or the informer still
  // listing: read from the API, as the kubelet's manager does for an object it has no copy of.
  // What it read, found or NotFound, stays until the informer's next event of that name.
  auto got = kube_.Get(client::ResourcePath("", "v1", cm ? "configmaps" : "secrets",
                                            std::string(ns), std::string(name)));
  if (!got.ok() && got.status().code() != StatusCode::kNotFound) return nullptr;  // not kept
  std::optional<kubelet::ConfigObject> keys;
  if (got.ok()) keys = ConfigKeys(*got);
  it = index.insert_or_assign(std::move(key), std::move(keys)).first;
  return it->second ? &*it->second : nullptr;
}

kubelet::PodLifecycle* KubeKubelets::KubeletOf(const std::string& node) {
  auto it = kubelets_.find(node);
  return it == kubelets_.end() ? nullptr : it->second.get();
}

void KubeKubelets::OnNode(Change change, client::ObjectRef node) {
  const std::string name = client::Informer::KeyOf(*node);
  if (change == Change::kDeleted) {
    // The node is gone: its kubelet stops; its pods are the pod garbage collector's, its Lease
    // the garbage collector's (owner reference).
    kubelets_.erase(name);
    return;
  }
  if (kubelets_.count(name) > 0) return;
  kubelet::KubeletHost& host = *this;
  auto k = std::make_unique<kubelet::PodLifecycle>(name, host, timers_, options_);
  kubelet::PodLifecycle* kp = k.get();
  kubelets_.emplace(name, std::move(k));
  // The pods already bound to it (they were seen before the node).
  std::vector<api::PodConstSharedPtr> bound;
  if (auto on = pods_by_node_.find(name); on != pods_by_node_.end()) {
    for (const std::string& key : on->second) bound.push_back(pods_.at(key).rec.pod);
  }
  for (const api::PodConstSharedPtr& p : bound) kp->OnPod(Change::kAdded, p);
}

void KubeKubelets::OnPod(Change change, api::PodConstSharedPtr pod, int64_t rv) {
  const std::string key = pod->Key();
  auto it = pods_.find(key);
  // Deleted, or another pod of the same name (the old one is gone): its kubelet forgets it.
  if (it != pods_.end() &&
      (change == Change::kDeleted || it->second.rec.pod->meta.uid != pod->meta.uid)) {
    const api::PodConstSharedPtr last = it->second.rec.pod;
    pods_.erase(it);
    if (auto on = pods_by_node_.find(last->spec.node_name); on != pods_by_node_.end()) {
      on->second.erase(key);
      if (on->second.empty()) pods_by_node_.erase(on);
    }
    if (kubelet::PodLifecycle* k = KubeletOf(last->spec.node_name)) k->OnPod(Change::kDeleted, last);
    it = pods_.end();
  }
  if (change == Change::kDeleted) return;
  if (pod->spec.node_name.empty()) return;  // not bound yet: nobody's to run
  if (it == pods_.end()) {
    it = pods_.emplace(key, Record{}).first;
    pods_by_node_[pod->spec.node_name].insert(key);
  } else if (rv != 0 && rv < it->second.written_rv) {
    return;  // an echo of an older write than this kubelet's last one
  }
  it->second.rec.pod = pod;
  if (kubelet::PodLifecycle* k = KubeletOf(pod->spec.node_name)) k->OnPod(change, pod);
  if (change == Change::kModified && rv > it->second.written_rv) RestoreReady(key);
}

void KubeKubelets::RestoreReady(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  const Record& r = it->second;
  const api::Pod& pod = *r.rec.pod;
  if (pod.status.phase != api::PodPhase::kRunning || pod.meta.deletion_timestamp.has_value() ||
      r.rec.containers.empty()) {
    return;
  }
  for (const kubelet::ContainerStatus& c : r.rec.containers) {
    if (c.state != kubelet::ContainerStatus::State::kRunning || !c.ready) return;
  }
  api::PodStatus status = pod.status;
  bool changed = false;
  for (api::PodCondition& c : status.conditions) {
    if ((c.type == "Ready" || c.type == "ContainersReady") &&
        c.status != api::ConditionStatus::kTrue) {
      c.status = api::ConditionStatus::kTrue;
      c.last_transition_time = clock_.Now();
      changed = true;
    }
  }
  // Another writer (the node lifecycle controller's MarkPodsNotReady while the node was
  // Unknown) set Ready False under running, ready containers: the kubelet's status manager
  // writes its own status back.
  if (changed) UpdatePodStatus(key, std::move(status), r.rec.containers);
}

// ---- The node's status, Lease and heartbeats -------------------------------------------------

void KubeKubelets::StopNodeStatus(const std::string& name) {
  auto it = beats_.find(name);
  if (it == beats_.end()) return;
  node_timers_.Cancel(it->second.lease_timer);
  node_timers_.Cancel(it->second.status_timer);
  beats_.erase(it);
}

void KubeKubelets::StartNodeStatus(const json& node) {
  const std::string name = client::Informer::KeyOf(node);
  if (beats_.count(name) > 0) return;
  const bool kwok = kubelet::IsKwokNode(node);
  std::vector<std::string> types = kubelet::NodeConditionTypes(node);
  if (!kwok && types.empty()) return;  // no kubelet registered it
  const std::string path = client::ResourcePath("", "v1", "nodes", "", name, "status");
  if (kwok && !kubelet::NodeReady(node)) {
    const json patch = kubelet::KwokNodeInitializePatch(node, clock_.Now());
    auto r = kube_.Patch(path, client::PatchType::kMerge, patch);
    if (!r.ok() && logger_ != nullptr) {
      logger_->Warning("kubelet: cannot initialize the KWOK node",
                       {{"node", name}, {"err", r.status().ToString()}});
    }
    types = kubelet::NodeConditionTypes(patch);
  }
  NodeBeat& beat = beats_[name];
  beat.condition_types = std::move(types);
  if (const json* conditions = kubelet::NodeConditions(node);
      conditions && !MarkedByController(node)) {
    beat.conditions = *conditions;
  }
  if (auto m = node.find("metadata"); m != node.end() && m->is_object()) {
    beat.uid = m->value("uid", "");
  }
  RenewLease(name);
  // A kubelet that starts reports its node's status at once (its first syncNodeStatus), then
  // every nodeStatusReportFrequency: a node taken over from storage or the bootstrap does not
  // keep the heartbeat of the run that made it.
  ReportNodeStatus(name);
}

Duration KubeKubelets::Jittered(Duration d) {
  // wait.JitterUntil's factor of the kubelet's lease controller: up to 4 % longer.
  return d + std::chrono::duration_cast<Duration>(d * (0.04 * jitter_.UniformDouble()));
}

void KubeKubelets::RenewLease(const std::string& name) {
  auto it = beats_.find(name);
  if (it == beats_.end()) return;
  NodeBeat& beat = it->second;
  const std::string path =
      client::ResourcePath("coordination.k8s.io", "v1", "leases", "kube-node-lease", name);
  json lease = kubelet::NodeLeaseJson(name, beat.uid, clock_.Now());
  StatusOr<json> written = Status(StatusCode::kAborted, "");
  if (beat.lease_rv != 0) {
    lease["metadata"]["resourceVersion"] = std::to_string(beat.lease_rv);
    written = kube_.Update(path, lease);
  }
  if (written.status().code() == StatusCode::kAborted ||
      written.status().code() == StatusCode::kNotFound) {
    // Not written yet by this process, or written by another since: read it, then write.
    auto current = kube_.Get(path);
    if (current.ok()) {
      lease["metadata"]["resourceVersion"] = std::to_string(ResourceVersion(*current));
      written = kube_.Update(path, lease);
    } else if (current.status().code() == StatusCode::kNotFound) {
      lease["metadata"].erase("resourceVersion");
      written = kube_.Create(
          client::ResourcePath("coordination.k8s.io", "v1", "leases", "kube-node-lease"), lease);
    } else {
      written = current.status();
    }
  }
  if (written.ok()) {
    beat.lease_rv = ResourceVersion(*written);
  } else {
    beat.lease_rv = 0;
    if (logger_ != nullptr) {
      logger_->Warning("kubelet: failed to update lease",
                       {{"node", name}, {"err", written.status().ToString()}});
    }
  }
  if (!options_.heartbeats) return;
  beat.lease_timer = node_timers_.ScheduleAfter(Jittered(options_.node_lease_renew_interval),
                                                [this, name] { RenewLease(name); });
}

void KubeKubelets::OnNodeConditions(const json& node) {
  auto it = beats_.find(client::Informer::KeyOf(node));
  if (it == beats_.end()) return;  // no kubelet of this process reports on it
  NodeBeat& beat = it->second;
  const json* found = kubelet::NodeConditions(node);
  const json current = found != nullptr ? *found : json::array();
  if (!MarkedByController(node)) {
    beat.conditions = current;
    return;
  }
  // Marked Unknown while this kubelet lives: its conditions again, as now - those it last
  // reported, or (none on record: a node marked before this process started) a running
  // kubelet's.
  const std::string at =
      FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(clock_.Now()));
  json mine = beat.conditions;
  if (mine.empty()) {
    for (const json& c : current) {
      auto type = c.is_object() ? c.find("type") : c.end();
      if (json k = kubelet::RunningKubeletCondition(
              type != c.end() && type->is_string() ? type->get_ref<const std::string&>() : "");
          !k.is_null()) {
        mine.push_back(std::move(k));
      }
    }
  }
  json patch = json::array();
  for (const json& c : mine) {
    if (!c.is_object()) continue;
    json next = c;
    next["lastHeartbeatTime"] = at;
    for (const json& now : current) {
      if (now.is_object() && now.value("type", json()) == c.value("type", json()) &&
          now.value("status", json()) != c.value("status", json())) {
        next["lastTransitionTime"] = at;
      }
    }
    patch.push_back(std::move(next));
  }
  if (patch.empty()) return;
  const std::string name = it->first;
  const Status r = kube_.PatchUnread(client::ResourcePath("", "v1", "nodes", "", name, "status"),
                                     client::PatchType::kStrategicMerge,
                                     {{"status", {{"conditions", std::move(patch)}}}});
  if (r.ok()) {
    if (logger_ != nullptr) logger_->Info("kubelet: node status reported again", {{"node", name}});
    return;
  }
  if (r.code() == StatusCode::kNotFound) return;
  if (logger_ != nullptr) {
    logger_->Warning("kubelet: error updating node status",
                     {{"node", name}, {"err", r.ToString()}});
  }
  // Tried again at the next Lease renewal's pace, with what the node says then.
  node_timers_.ScheduleAfter(options_.node_lease_renew_interval, [this, name] {
    if (beats_.count(name) == 0) return;
    auto n = kube_.Get(client::ResourcePath("", "v1", "nodes", "", name));
    if (n.ok()) OnNodeConditions(*n);
  });
}

void KubeKubelets::ReportNodeStatus(const std::string& name) {
  auto it = beats_.find(name);
  if (it == beats_.end()) return;
  const json patch = kubelet::NodeHeartbeatPatch(it->second.condition_types, clock_.Now());
  if (!patch.is_null()) {
    const Status r = kube_.PatchUnread(client::ResourcePath("", "v1", "nodes", "", name, "status"),
                                       client::PatchType::kStrategicMerge, patch);
    if (!r.ok() && logger_ != nullptr && r.code() != StatusCode::kNotFound) {
      logger_->Warning("kubelet: error updating node status",
                       {{"node", name}, {"err", r.ToString()}});
    }
  }
  if (!options_.heartbeats) return;
  it->second.status_timer = node_timers_.ScheduleAfter(options_.node_status_report_frequency,
                                                       [this, name] { ReportNodeStatus(name); });
}

// ---- What the kubelets do through the API ----------------------------------------------------

const kubelet::PodRecord* KubeKubelets::GetPod(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second.rec;
}

void KubeKubelets::UpdatePodStatus(const std::string& key, api::PodStatus status,
                                   std::vector<kubelet::ContainerStatus> containers) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  Record& r = it->second;
  api::Pod next = *r.rec.pod;
  next.status = std::move(status);
  r.rec.pod = std::make_shared<const api::Pod>(std::move(next));
  r.rec.containers = std::move(containers);
  const api::Pod& p = *r.rec.pod;
  auto written =
      kube_.Patch(client::ResourcePath("", "v1", "pods", p.meta.namespace_, p.meta.name, "status"),
                  client::PatchType::kMerge, kubelet::PodStatusPatch(r.rec));
  if (written.ok()) {
    r.written_rv = ResourceVersion(*written);
  } else if (logger_ != nullptr && written.status().code() != StatusCode::kNotFound) {
    logger_->Warning("kubelet: status update failed",
                     {{"pod", key}, {"err", written.status().ToString()}});
  }
}

void KubeKubelets::Event(const api::Pod& pod, const std::string& node, std::string_view type,
                         std::string_view reason, std::string message) {
  events_.EventOnHost(autoscaler::ObjectRef{"Pod", pod.meta.namespace_, pod.meta.name, pod.meta.uid},
                      type, reason, std::move(message), node);
}

void KubeKubelets::RemovePod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  const api::Pod& p = *it->second.rec.pod;
  const json options = {{"apiVersion", "v1"},
                        {"kind", "DeleteOptions"},
                        {"gracePeriodSeconds", 0},
                        {"preconditions", {{"uid", p.meta.uid}}}};
  auto r =
      kube_.Delete(client::ResourcePath("", "v1", "pods", p.meta.namespace_, p.meta.name), options);
  if (!r.ok() && logger_ != nullptr && r.status().code() != StatusCode::kNotFound) {
    logger_->Warning("kubelet: cannot remove the pod", {{"pod", key}, {"err", r.status().ToString()}});
  }
}

}  // namespace tidepool::runtime
