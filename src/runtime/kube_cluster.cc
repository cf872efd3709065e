#include "runtime/kube_cluster.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <optional>
#include <string_view>

#include "api/codec/json_codec.h"
#include "client/decoded.h"
#include "common/set_replace.h"
#include "controllers/daemonset/daemon_pods.h"
#include "runtime/event_json.h"
#include "sim/cluster_changes.h"

namespace tidepool::runtime {

using nlohmann::json;

namespace {

std::string NodePath(const std::string& node) { return "/api/v1/nodes/" + node; }

// CA's node annotations (scale-down-disabled) share this prefix.
constexpr std::string_view kCaAnnotationPrefix = "cluster-autoscaler.kubernetes.io/";

// The capacities anything reads: cpu, memory and extended resources (GPUs).
bool KeptCapacity(std::string_view name) {
  return name == api::kResourceCpu || name == api::kResourceMemory ||
         name.find('/') != std::string_view::npos;
}

// A key "<ns>/<name>" (or "<name>") as up to three pieces, compared as their concatenation.
struct KeyPieces {
  std::string_view piece[3];
};

KeyPieces PiecesOf(const scheduler::PodInfo& info) {
  const std::string_view ns = info.namespace_();
  if (ns.empty()) return {{info.name(), {}, {}}};
  return {{ns, "/", info.name()}};
}

KeyPieces PiecesOf(std::string_view key) { return {{key, {}, {}}}; }

// <0, 0, >0 as std::string's compare of the concatenations (bytes as unsigned char).
int Compare(const KeyPieces& a, const KeyPieces& b) {
  size_t ai = 0, ao = 0, bi = 0, bo = 0;
  while (true) {
    while (ai < 3 && ao == a.piece[ai].size()) {
      ++ai;
      ao = 0;
    }
    while (bi < 3 && bo == b.piece[bi].size()) {
      ++bi;
      bo = 0;
    }
    if (ai == 3 || bi == 3) return (ai == 3 ? 0 : 1) - (bi == 3 ? 0 : 1);
    const size_t n = std::min(a.piece[ai].size() - ao, b.piece[bi].size() - bo);
    if (int c = a.piece[ai].substr(ao, n).compare(b.piece[bi].substr(bo, n)); c != 0) return c;
    ao += n;
    bo += n;
  }
}

}  // namespace

bool KubeClusterCache::PodKeyLess::operator()(const scheduler::PodInfoConstSharedPtr& a,
                                              const scheduler::PodInfoConstSharedPtr& b) const {
  return Compare(PiecesOf(*a), PiecesOf(*b)) < 0;
}
bool KubeClusterCache::PodKeyLess::operator()(const scheduler::PodInfoConstSharedPtr& a,
                                              std::string_view b) const {
  return Compare(PiecesOf(*a), PiecesOf(b)) < 0;
}
bool KubeClusterCache::PodKeyLess::operator()(std::string_view a,
                                              const scheduler::PodInfoConstSharedPtr& b) const {
  return Compare(PiecesOf(a), PiecesOf(*b)) < 0;
}

api::Node NodeForCache(api::Node&& decoded) {
  api::Node n;
  n.meta.name = std::move(decoded.meta.name);
  n.meta.uid = std::move(decoded.meta.uid);
  n.meta.creation_timestamp = decoded.meta.creation_timestamp;
  n.meta.deletion_timestamp = decoded.meta.deletion_timestamp;
  n.meta.labels = std::move(decoded.meta.labels);
  for (auto& [key, value] : decoded.meta.annotations) {
    if (key.rfind(kCaAnnotationPrefix, 0) == 0) {
      n.meta.annotations.emplace_hint(n.meta.annotations.end(), key, std::move(value));
    }
  }
  n.spec = std::move(decoded.spec);
  for (auto& [name, q] : decoded.status.capacity) {
    if (KeptCapacity(name)) {
      n.status.capacity.emplace_hint(n.status.capacity.end(), name, std::move(q));
    }
  }
  n.status.allocatable = std::move(decoded.status.allocatable);
  if (const api::NodeCondition* ready = decoded.FindCondition("Ready"); ready != nullptr) {
    api::NodeCondition c;
    c.type = "Ready";
    c.status = ready->status;
    c.last_transition_time = ready->last_transition_time;
    n.status.conditions.push_back(std::move(c));
  }
  return n;
}

class KubeClusterCache::Controllers final : public autoscaler::ControllerLister {
 public:
  struct Kind {
    const char* kind;
    const char* resource;  // the lister's NotFound names "<resource>.<group>"
    const char* path;
  };
  static constexpr Kind kKinds[] = {
      {"ReplicaSet", "replicaset.apps", "/apis/apps/v1/replicasets"},
      {"StatefulSet", "statefulset.apps", "/apis/apps/v1/statefulsets"},
      {"Job", "job.batch", "/apis/batch/v1/jobs"},
  };
  // DaemonSets are looked up in the cache's own DaemonSet informer (the one that keeps their
  // template pods), not watched a second time; its handler calls Changed().

  // `factory`, when not null, makes the informers (driven ones: see KubeClusterCache's
  // constructor); otherwise they are this object's own.
  Controllers(const client::RestClient& client, const Clock& clock, log::Logger* logger,
              uint64_t seed, client::SharedInformerFactory* factory) {
    uint64_t s = seed + 10;
    for (const Kind& k : kKinds) {
      client::InformerOptions o;
      o.name = std::string(k.resource);
      o.path = k.path;
      o.seed = s++;
      o.transform = [](json&& obj) {
        json slim = {{"metadata", json::object()}};
        for (const char* f : {"name", "namespace", "resourceVersion"}) {
          if (auto it = obj["metadata"].find(f); it != obj["metadata"].end()) slim["metadata"][f] = *it;
        }
        if (obj.contains("spec") && obj["spec"].is_object() && obj["spec"].contains("replicas")) {
          slim["spec"]["replicas"] = obj["spec"]["replicas"];
        }
        return slim;
      };
      o.transform_name = "workload-replicas";
      std::shared_ptr<client::Informer> inf =
          client::MakeInformer(factory, client, clock, std::move(o), logger);
      auto bump = [this](const client::ObjectRef&) { version_.fetch_add(1); };
      inf->AddEventHandlers({[bump](const client::ObjectRef& x, bool) { bump(x); },
                             [bump](const client::ObjectRef&, const client::ObjectRef& x) { bump(x); },
                             [bump](const client::ObjectRef& x, bool) { bump(x); }});
      informers_.push_back(std::move(inf));
    }
  }
  void Start() {
    for (auto& i : informers_) i->Start();
  }
  void RequestStop() {
    for (auto& i : informers_) i->RequestStop();
  }
  void Stop() {
    for (auto& i : informers_) i->Stop();
  }
  bool HasSynced() const {
    for (const auto& i : informers_) {
      if (!i->HasSynced()) return false;
    }
    return true;
  }
  bool WaitForSync(Duration timeout) const {
    for (const auto& i : informers_) {
      if (!i->WaitForSync(timeout)) return false;
    }
    return true;
  }
  void SetDaemonSets(const client::Informer* daemonsets) { daemonsets_ = daemonsets; }
  void Changed() { version_.fetch_add(1); }

  StatusOr<std::optional<int32_t>> Replicas(std::string_view kind, std::string_view ns,
                                            std::string_view name) const override {
    const std::string key = std::string(ns) + "/" + std::string(name);
    if (kind == "DaemonSet") {
      if (daemonsets_ == nullptr || daemonsets_->Get(key) == nullptr) {
        return NotFoundError("daemonset.apps \"" + std::string(name) + "\" not found");
      }
      return std::optional<int32_t>();
    }
    for (size_t i = 0; i < informers_.size(); ++i) {
      if (kind != kKinds[i].kind) continue;
      client::ObjectRef o = informers_[i]->Get(key);
      if (o == nullptr) {
        return NotFoundError(std::string(kKinds[i].resource) + " \"" + std::string(name) + "\" not found");
      }
      const json* r = nullptr;
      if (auto spec = o->find("spec"); spec != o->end()) {
        if (auto it = spec->find("replicas"); it != spec->end() && it->is_number_integer()) r = &*it;
      }
      if (r == nullptr) return std::optional<int32_t>();
      return std::optional<int32_t>(r->get<int32_t>());
    }
    return std::optional<int32_t>();  // ReplicationController (not served) or another kind
  }
  uint64_t version() const override { return version_.load(); }

 private:
  std::vector<std::shared_ptr<client::Informer>> informers_;
  const client::Informer* daemonsets_ = nullptr;
  std::atomic<uint64_t> version_{0};
};

KubeClusterCache::KubeClusterCache(const client::RestClient& client, const Clock& clock,
                                   log::Logger* logger, uint64_t seed,
                                   client::SharedInformerFactory* informers, TimerService* executor)
    : logger_(logger),
      driven_(executor != nullptr),
      controllers_(std::make_shared<Controllers>(client, clock, logger, seed,
                                                 driven_ ? informers : nullptr)) {
  // CA never reads managedFields; dropping them halves what a pod costs to decode. The
  // handlers below decode each object once into what the engine keeps (an api::Node, a compact
  // PodInfo, a budget's selector); the informer itself keeps only metadata stubs for its
  // relists, not a JSON tree of every pod.
  auto make = [&](const std::string& name, const std::string& path, uint64_t s) {
    return client::MakeDecodingInformer(informers, client, clock, name, path, seed + s, logger);
  };
  nodes_ = make("nodes", "/api/v1/nodes", 1);
  pods_ = make("pods", "/api/v1/pods", 2);
  pdbs_ = make("poddisruptionbudgets", "/apis/policy/v1/poddisruptionbudgets", 3);
  daemonsets_ = make("daemonset-templates", "/apis/apps/v1/daemonsets", 9);
  controllers_->SetDaemonSets(daemonsets_.get());
  nodes_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnNode(o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnNode(o, false); },
       [this](const client::ObjectRef& o, bool) { OnNode(o, true); }});
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnPod(o, false); },
       [this](const client::ObjectRef& o, bool) { OnPod(o, true); }});
  pdbs_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPdb(o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnPdb(o, false); },
       [this](const client::ObjectRef& o, bool) { OnPdb(o, true); }});
  daemonsets_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnDaemonSet(o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnDaemonSet(o, false); },
       [this](const client::ObjectRef& o, bool) { OnDaemonSet(o, true); }});
}

KubeClusterCache::~KubeClusterCache() { Stop(); }

void KubeClusterCache::Start() {
  if (driven_) return;  // the driver's informers
  nodes_->Start();
  pods_->Start();
  pdbs_->Start();
  controllers_->Start();
  daemonsets_->Start();
}

void KubeClusterCache::Stop() {
  if (driven_) return;  // the driver's informers
  // All asked first, so that they wind down together (a watch notices within its poll).
  controllers_->RequestStop();
  client::StopAll({nodes_.get(), pods_.get(), pdbs_.get(), daemonsets_.get()});
  controllers_->Stop();
}

bool KubeClusterCache::WaitForSync(Duration timeout) const {
  if (driven_) return HasSynced();  // synced by the driver's lists, on this thread: no waiting
  // Each informer gets the whole timeout; they list in parallel, so this is rarely longer.
  return nodes_->WaitForSync(timeout) && pods_->WaitForSync(timeout) &&
         pdbs_->WaitForSync(timeout) && controllers_->WaitForSync(timeout) &&
         daemonsets_->WaitForSync(timeout);
}

bool KubeClusterCache::HasSynced() const {
  return nodes_->HasSynced() && pods_->HasSynced() && pdbs_->HasSynced() &&
         controllers_->HasSynced() && daemonsets_->HasSynced();
}

void KubeClusterCache::OnNode(const client::ObjectRef& obj, bool deleted) {
  const std::string key = client::Informer::KeyOf(*obj);
  if (deleted) {
    std::lock_guard<std::mutex> lock(mu_);
    ++version_;
    node_map_.erase(key);
    return;
  }
  StatusOr<api::NodeConstSharedPtr> node = client::DecodedNode(obj);
  std::optional<api::Node> kept;
  if (node.ok()) {
    kept = NodeForCache(api::Node(**node));
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++version_;
  if (!node.ok()) {
    ++decode_errors_;
    if (logger_ != nullptr) {
      logger_->Warning("Failed to decode node", {{"node", key}, {"err", node.status().ToString()}});
    }
    node_map_.erase(key);
    return;
  }
  auto [it, inserted] = node_map_.try_emplace(key);
  if (!inserted && it->second != nullptr && *it->second == *kept) {
    return;  // nothing the engine reads changed: keep the node it already has
  }
  it->second = std::make_shared<const api::Node>(std::move(*kept));
}

void KubeClusterCache::OnPod(const client::ObjectRef& obj, bool deleted) {
  const std::string key = client::Informer::KeyOf(*obj);
  if (deleted) {
    std::lock_guard<std::mutex> lock(mu_);
    ++version_;
    EraseKey(pod_map_, std::string_view(key));
    return;
  }
  StatusOr<api::PodConstSharedPtr> pod = client::DecodedPod(obj);
  if (!pod.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++version_;
    ++decode_errors_;
    if (logger_ != nullptr) {
      logger_->Warning("Failed to decode pod", {{"pod", key}, {"err", pod.status().ToString()}});
    }
    EraseKey(pod_map_, std::string_view(key));
    return;
  }
  if ((*pod)->Terminal()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++version_;
    EraseKey(pod_map_, std::string_view(key));
    return;
  }
  // The scheduler's precomputed view of the pod (requests, tolerations, affinity), built once
  // per change rather than once per loop.
  scheduler::PodInfoConstSharedPtr info = scheduler::MakePodInfo(**pod);
  std::lock_guard<std::mutex> lock(mu_);
  ++version_;
  // The entry is keyed by the PodInfo itself: replacing it swaps the PodInfo of the set's node
  // (same key, same place).
  InsertOrReplace(pod_map_, std::string_view(key), std::move(info));
}

void KubeClusterCache::OnPdb(const client::ObjectRef& obj, bool deleted) {
  const std::string key = client::Informer::KeyOf(*obj);
  if (deleted) {
    std::lock_guard<std::mutex> lock(mu_);
    ++version_;
    pdb_map_.erase(key);
    return;
  }
  StatusOr<api::PodDisruptionBudget> pdb = api::codec::PodDisruptionBudgetFromJson(*obj);
  if (!pdb.ok()) {
    // Kept as a budget that covers nothing: the API server would not have stored it so.
    if (logger_ != nullptr) {
      logger_->Warning("Ignoring the selector of PodDisruptionBudget",
                       {{"pdb", key}, {"err", pdb.status().ToString()}});
    }
    pdb = api::PodDisruptionBudget{};
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++version_;
  pdb_map_[key] = std::make_shared<const api::PodDisruptionBudget>(std::move(*pdb));
}

void KubeClusterCache::OnDaemonSet(const client::ObjectRef& obj, bool deleted) {
  controllers_->Changed();  // the replica-count rule's DaemonSet lookups read this informer
  const std::string key = client::Informer::KeyOf(*obj);
  if (deleted) {
    std::lock_guard<std::mutex> lock(mu_);
    ++version_;
    daemonset_pod_map_.erase(key);
    return;
  }
  // The pod the DaemonSet controller would make (before pinning it to a node).
  const json& ds = *obj;
  const json& meta = ds.contains("metadata") ? ds["metadata"] : json::object();
  json tmpl = controllers::daemonset::DaemonPodTemplate(ds, "", "");
  json pod_meta = tmpl["metadata"];
  pod_meta["name"] = meta.value("name", "") + "-pod";
  pod_meta["namespace"] = meta.value("namespace", "");
  pod_meta["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"},
                                              {"kind", "DaemonSet"},
                                              {"name", meta.value("name", "")},
                                              {"uid", meta.value("uid", "")},
                                              {"controller", true}}});
  StatusOr<api::Pod> pod = api::codec::PodFromJson(
      {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", pod_meta}, {"spec", tmpl["spec"]}});
  std::lock_guard<std::mutex> lock(mu_);
  ++version_;
  if (!pod.ok()) {
    ++decode_errors_;
    daemonset_pod_map_.erase(key);
    return;
  }
  daemonset_pod_map_[key] = scheduler::MakePodInfo(*pod);
}

autoscaler::ClusterView KubeClusterCache::View() const { return *SharedView(); }

std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> KubeClusterCache::PodsOnNodes(
    const std::set<std::string, std::less<>>& nodes) const {
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> out;
  if (nodes.empty()) return out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const scheduler::PodInfoConstSharedPtr& info : pod_map_) {
    if (!info->node_name().empty() && nodes.count(info->node_name()) > 0) {
      out[std::string(info->node_name())].push_back(info);
    }
  }
  return out;
}

std::shared_ptr<const autoscaler::ClusterView> KubeClusterCache::SharedView() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (view_ != nullptr && view_version_ == version_) return view_;
  auto shared = std::make_shared<autoscaler::ClusterView>();
  autoscaler::ClusterView& view = *shared;
  view.nodes.reserve(node_map_.size());
  for (const auto& [key, node] : node_map_) {
    view.nodes.push_back(node);
  }
  for (const scheduler::PodInfoConstSharedPtr& info : pod_map_) {
    if (info->node_name().empty()) {
      view.pending_pods.push_back(info);
    } else {
      view.scheduled_pods.push_back(info);
    }
  }
  view.pdbs.reserve(pdb_map_.size());
  for (const auto& [key, pdb] : pdb_map_) view.pdbs.push_back(pdb);
  view.controllers = controllers_;
  view.daemonset_pods.reserve(daemonset_pod_map_.size());
  for (const auto& [key, pod] : daemonset_pod_map_) view.daemonset_pods.push_back(pod);
  view_ = std::move(shared);
  view_version_ = version_;
  return view_;
}

std::map<std::string, client::InformerStats> KubeClusterCache::Stats() const {
  return {{"nodes", nodes_->stats()},
          {"pods", pods_->stats()},
          {"poddisruptionbudgets", pdbs_->stats()},
          {"daemonset-templates", daemonsets_->stats()}};
}

uint64_t KubeClusterCache::decode_errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return decode_errors_;
}

// ---- KubeClusterWriter -------------------------------------------------------------------------

namespace {

// client-go's retry.RetryOnConflict with retry.DefaultRetry (5 steps): read, change, update;
// a 409 Conflict (Aborted) reads again.
Status UpdateNode(const client::RestClient& client, const std::string& node,
                  const std::function<bool(json& node)>& change) {
  Status last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    TIDEPOOL_ASSIGN_OR_RETURN(json obj, client.Get(NodePath(node)));
    if (!change(obj)) {
      return OkStatus();  // nothing to do
    }
    StatusOr<json> updated = client.Update(NodePath(node), obj);
    if (updated.ok()) {
      return OkStatus();
    }
    last = updated.status();
    if (last.code() != StatusCode::kAborted) {
      return last;
    }
  }
  return last;
}

}  // namespace

Status KubeClusterWriter::AddNodeTaint(const std::string& node, const api::Taint& taint) {
  return UpdateNode(client_, node, [&](json& obj) {
    json& spec = obj["spec"];
    json taints = spec.contains("taints") && spec["taints"].is_array() ? spec["taints"]
                                                                       : json::array();
    const std::string effect(api::TaintEffectName(taint.effect));
    json next = json::array();
    for (const json& t : taints) {
      if (t.value("key", "") == taint.key && t.value("effect", "") == effect) continue;
      next.push_back(t);
    }
    json t = {{"key", taint.key}, {"effect", effect}};
    if (!taint.value.empty()) t["value"] = taint.value;
    if (taint.time_added.has_value()) t["timeAdded"] = FormatRfc3339(*taint.time_added);
    next.push_back(std::move(t));
    spec["taints"] = std::move(next);
    return true;
  });
}

Status KubeClusterWriter::RemoveNodeTaint(const std::string& node, const std::string& key) {
  Status s = UpdateNode(client_, node, [&](json& obj) {
    json& spec = obj["spec"];
    if (!spec.contains("taints") || !spec["taints"].is_array()) return false;
    json next = json::array();
    for (const json& t : spec["taints"]) {
      if (t.value("key", "") != key) next.push_back(t);
    }
    if (next.size() == spec["taints"].size()) return false;
    if (next.empty()) {
      spec.erase("taints");
    } else {
      spec["taints"] = std::move(next);
    }
    return true;
  });
  // A node that is gone has no taint left to remove.
  return s.code() == StatusCode::kNotFound ? OkStatus() : s;
}

Status KubeClusterWriter::EvictPod(const std::string& namespace_, const std::string& name,
                                   int64_t grace_period_seconds) {
  const json eviction = {{"apiVersion", "policy/v1"},
                         {"kind", "Eviction"},
                         {"metadata", {{"name", name}, {"namespace", namespace_}}},
                         {"deleteOptions", {{"gracePeriodSeconds", grace_period_seconds}}}};
  client::RestRequest req;
  req.method = "POST";
  req.path = "/api/v1/namespaces/" + namespace_ + "/pods/" + name + "/eviction";
  req.body = eviction;
  client::RestResult r = client_.Do(req);
  return r.status;  // 429 (a PDB forbids it now) is ResourceExhausted
}

// ---- KubeEventRecorder -------------------------------------------------------------------------

namespace {
constexpr size_t kMaxQueuedEvents = 1000;                      // client-go's maxQueuedEvents
constexpr Duration kAggregationWindow = std::chrono::minutes(10);  // EventCorrelator's cache TTL
// Names tried for one event whose name is taken (see Post).
constexpr int kEventNameAttempts = 64;
}  // namespace

KubeEventRecorder::KubeEventRecorder(const client::RestClient& client, const Clock& clock,
                                     std::string component, log::Logger* logger,
                                     TimerService* executor)
    : client_(client), clock_(clock), component_(std::move(component)), logger_(logger) {
  if (executor != nullptr) {
    executor_ = std::make_unique<ActorTimers>(clock, executor);
    return;
  }
  thread_ = std::thread([this] { Run(); });
}

KubeEventRecorder::~KubeEventRecorder() {
  if (executor_) {
    executor_->Stop();  // nothing of this recorder runs later
    return;
  }
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(5), [this] { return queue_.empty() && !busy_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void KubeEventRecorder::Event(const autoscaler::ObjectRef& object, std::string_view type,
                              std::string_view reason, std::string message) {
  EventOnHost(object, type, reason, std::move(message), "");
}

void KubeEventRecorder::EventOnHost(const autoscaler::ObjectRef& object, std::string_view type,
                                    std::string_view reason, std::string message,
                                    std::string host) {
  Pending p{object,       std::string(type), std::string(reason), std::move(message),
            clock_.Now(), std::move(host)};
  std::lock_guard<std::mutex> lock(mu_);
  const size_t queued = executor_ ? executor_->Pending() : queue_.size();
  if (queued >= kMaxQueuedEvents) {
    ++dropped_;
    return;
  }
  if (executor_) {
    executor_->Post([this, p = std::move(p)] {
      Post(p);
      std::lock_guard<std::mutex> l(mu_);
      ++posted_;
    });
    return;
  }
  queue_.push_back(std::move(p));
  cv_.notify_all();
}

void KubeEventRecorder::Flush() {
  if (executor_) return;  // what the executor ran is posted; the rest is its to run
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return (queue_.empty() && !busy_) || stop_; });
}

uint64_t KubeEventRecorder::posted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return posted_;
}

uint64_t KubeEventRecorder::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void KubeEventRecorder::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) {
      return;  // stopping
    }
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Post(p);
    lock.lock();
    busy_ = false;
    ++posted_;
    cv_.notify_all();
  }
}

void KubeEventRecorder::Post(const Pending& p) {
  const std::string key = p.object.kind + "/" + p.object.namespace_ + "/" + p.object.name + "/" +
                          p.object.uid + "/" + p.type + "/" + p.reason + "/" + p.message + "/" +
                          p.host;
  // Forget repeats older than the window: the oldest entries of expiry_ first, each only if it
  // is still its event's latest (amortised O(1) a post, not a pass over every event seen).
  while (!expiry_.empty() && expiry_.front().first + kAggregationWindow < p.at) {
    auto old = seen_.find(expiry_.front().second);
    if (old != seen_.end() && old->second.last == expiry_.front().first) seen_.erase(old);
    expiry_.pop_front();
  }
  // client-go's EventCorrelator: the repeat is counted, then the spam filter may skip the
  // write (the next written repeat carries the count).
  const bool allowed =
      spam_.Allow(component_ + "/" + p.host + "/" + p.object.kind + "/" + p.object.namespace_ +
                      "/" + p.object.name + "/" + p.object.uid + "/" + p.type,
                  p.at);
  auto it = seen_.find(key);
  if (it != seen_.end() && !allowed) {
    ++it->second.count;
    it->second.last = p.at;
    expiry_.emplace_back(p.at, key);
    ++filtered_;
    return;
  }
  if (!allowed) {
    ++filtered_;
    return;
  }
  if (it != seen_.end()) {
    Seen& s = it->second;
    client::RestRequest req;
    req.method = "PATCH";
    req.path = "/api/v1/namespaces/" + s.namespace_ + "/events/" + s.name;
    req.content_type = std::string(client::PatchContentType(client::PatchType::kStrategicMerge));
    req.body = {{"count", s.count + 1}, {"lastTimestamp", FormatRfc3339(p.at)}};
    req.decode_body = false;  // the answer is never read
    if (client_.Do(req).ok()) {
      ++s.count;
      s.last = p.at;
      expiry_.emplace_back(p.at, key);
      return;
    }
    seen_.erase(it);  // gone (TTL) or refused: write a new one
  }
  sim::EventRecord e;
  e.involved_object = p.object;
  e.type = p.type;
  e.reason = p.reason;
  e.message = p.message;
  e.source.component = component_;
  e.source.host = p.host;
  e.first_timestamp = p.at;
  e.last_timestamp = p.at;
  const std::string ns = EventNamespace(p.object);
  // Two events of one object at the same instant (common on a simulated clock) would share the
  // name; a real client's clock would have moved on by a nanosecond, so the name's does: it
  // never goes back or stands still within this recorder. Another recorder's event may still
  // hold the name: then the next nanosecond is tried.
  client::RestRequest req;
  req.method = "POST";
  req.path = "/api/v1/namespaces/" + ns + "/events";
  req.decode_body = false;  // the answer is never read
  client::RestResult r;
  r.status = AlreadyExistsError("");
  for (int i = 0; i < kEventNameAttempts && r.status.code() == StatusCode::kAlreadyExists; ++i) {
    last_name_at_ = std::max(p.at, last_name_at_ + std::chrono::nanoseconds(1));
    e.name = sim::EventName(p.object.name, last_name_at_);
    req.body = EventJson(e);
    r = client_.Do(req);
  }
  if (!r.ok()) {
    if (logger_ != nullptr) {
      logger_->Warning("Server rejected event (will not retry!)",
                       {{"reason", p.reason}, {"err", r.status.ToString()}});
    }
    return;
  }
  seen_[key] = Seen{e.name, ns, p.at, p.at, 1};
  expiry_.emplace_back(p.at, key);
}

// ---- Status ConfigMap --------------------------------------------------------------------------

std::string GoTimeString(TimePoint t) {
  std::string s = FormatRfc3339(t);  // 2026-11-29T22:50:22Z
  std::string out = s.substr(0, 10) + " " + s.substr(11, 8);
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count() %
      1000000000LL;
  if (nanos != 0) {
    char frac[16];
    std::snprintf(frac, sizeof(frac), "%09lld", static_cast<long long>(nanos));
    std::string f = frac;
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out + " +0000 UTC";
}

Status WriteStatusConfigMap(const client::RestClient& client, const std::string& namespace_,
                            const std::string& name, const std::string& status, TimePoint now) {
  const std::string path = "/api/v1/namespaces/" + namespace_ + "/configmaps/" + name;
  const std::string updated = GoTimeString(now);
  StatusOr<json> cur = client.Get(path);
  if (cur.ok()) {
    json next = *cur;
    next["data"] = {{"status", status}};
    next["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/last-updated"] = updated;
    return client.Update(path, next).status();
  }
  if (cur.status().code() != StatusCode::kNotFound) {
    return cur.status();
  }
  const json cm = {
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       {{"name", name},
        {"namespace", namespace_},
        {"annotations", {{"cluster-autoscaler.kubernetes.io/last-updated", updated}}}}},
      {"data", {{"status", status}}}};
  return client.Create("/api/v1/namespaces/" + namespace_ + "/configmaps", cm).status();
}

api::PodConstSharedPtr DecodePodOrStub(const client::ObjectRef& ref, Status* error) {
  StatusOr<api::PodConstSharedPtr> pod = client::DecodedPod(ref);
  if (pod.ok()) return *std::move(pod);
  if (error != nullptr) *error = pod.status();
  const json& obj = *ref;
  api::Pod stub;
  if (const auto m = obj.find("metadata"); m != obj.end() && m->is_object()) {
    stub.meta.name = m->value("name", "");
    stub.meta.namespace_ = m->value("namespace", "");
  }
  return std::make_shared<const api::Pod>(std::move(stub));
}

}  // namespace tidepool::runtime
