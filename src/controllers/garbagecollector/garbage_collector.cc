#include "controllers/garbagecollector/garbage_collector.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "controllers/api_discovery.h"

namespace tidepool::controllers::garbagecollector {
namespace {

using nlohmann::json;

constexpr char kForeground[] = "foregroundDeletion";
constexpr char kOrphan[] = "orphan";
// How often the worker looks again while the monitors have not synced, and tries discovery
// again while it fails.
constexpr Duration kNotSyncedPoll = std::chrono::milliseconds(20);
constexpr Duration kDiscoveryRetry = std::chrono::milliseconds(200);

const json& Meta(const json& obj) {
  static const json kEmpty = json::object();
  auto m = obj.find("metadata");
  return m != obj.end() && m->is_object() ? *m : kEmpty;
}

std::string StrOf(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool Deleting(const json& meta) {
  auto ts = meta.find("deletionTimestamp");
  return ts != meta.end() && ts->is_string();
}

bool HasFinalizer(const json& meta, std::string_view f) {
  auto it = meta.find("finalizers");
  if (it == meta.end() || !it->is_array()) return false;
  for (const json& x : *it) {
    if (x.is_string() && x.get<std::string_view>() == f) return true;
  }
  return false;
}

// What the collector keeps of an object: kcm watches metadata only.
json SlimMeta(json&& obj) {
  json slim = {{"metadata", json::object()}};
  const json& m = Meta(obj);
  for (const char* k : {"name", "namespace", "uid", "resourceVersion", "ownerReferences",
                        "finalizers", "deletionTimestamp"}) {
    if (auto it = m.find(k); it != m.end()) slim["metadata"][k] = *it;
  }
  return slim;
}

std::string AbsentKey(const std::string& uid, const std::string& api_version,
                      const std::string& kind, const std::string& name, const std::string& ns) {
  return uid + "|" + api_version + "|" + kind + "|" + name + "|" + ns;
}

}  // namespace

GarbageCollector::GarbageCollector(const client::RestClient& client, const Clock& clock,
                                   GarbageCollectorOptions options,
                                   autoscaler::EventRecorder* recorder, log::Logger* logger,
                                   client::SharedInformerFactory* informers, TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  factory_ = informers;
  if (executor == nullptr) own_timers_ = std::make_unique<ThreadTimerService>(clock_);
  timers_ = executor != nullptr ? executor : own_timers_.get();
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return SyncItem(key); },
      [this] { return HasSynced(); }, kNotSyncedPoll, timers_);
}

GarbageCollector::~GarbageCollector() { Stop(); }

void GarbageCollector::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    bootstrap_ = timers_->ScheduleAt(clock_.Now(), [this] { Bootstrap(); });
  }
  queue_->Start();
  if (own_timers_ != nullptr) own_timers_->Start();
}

void GarbageCollector::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
    if (bootstrap_.has_value()) timers_->Cancel(*bootstrap_);
    bootstrap_.reset();
  }
  queue_->Stop();
  // A callback in progress finishes; then the worker is joined (informers_ is settled).
  if (own_timers_ != nullptr) own_timers_->Stop();
  // Each informer's Stop waits for its watch to notice; they are stopped together.
  std::vector<std::shared_ptr<client::Informer>> held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    held = informers_;
  }
  std::vector<client::Informer*> informers;
  for (const auto& i : held) {
    if (i != nullptr) informers.push_back(i.get());
  }
  client::StopAll(informers);
}

bool GarbageCollector::HasSynced() const {
  std::vector<std::shared_ptr<client::Informer>> informers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!discovered_) return false;
    informers = informers_;
  }
  for (const auto& i : informers) {
    if (i != nullptr && !i->HasSynced()) return false;
  }
  return true;
}

GarbageCollector::Stats GarbageCollector::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.nodes = nodes_.size();
  s.monitors = discovered_
                   ? static_cast<size_t>(std::count_if(informers_.begin(), informers_.end(),
                                                       [](const auto& i) { return i != nullptr; }))
                   : 0;
  return s;
}

// ---- Discovery and monitors ------------------------------------------------------------------

std::optional<std::vector<GarbageCollector::Discovered>> GarbageCollector::Discover() const {
  // GetDeletableResources: every version's kinds map to the group/resource's first (preferred)
  // entry, which is the one watched.
  auto all = DiscoverApiResources(client_, /*preferred_only=*/false);
  if (!all.ok()) return std::nullopt;
  std::vector<Discovered> found;
  std::map<std::string, size_t> seen;  // group/resource -> its entry
  for (const ApiResource& a : *all) {
    if (!a.Can("delete") || !a.Can("list") || !a.Can("watch")) continue;
    // kcm's ignored resources: Events, core and events.k8s.io.
    if (a.resource == "events" && (a.group.empty() || a.group == "events.k8s.io")) continue;
    auto [it, inserted] = seen.emplace(a.group + "/" + a.resource, found.size());
    if (inserted) {
      found.push_back({ResourceInfo{a.group_version, a.resource, a.kind, a.namespaced}, {}});
    }
    found[it->second].gvk_gk.emplace_back(a.group_version + "/" + a.kind, a.group + "/" + a.kind);
  }
  return found;
}

void GarbageCollector::Bootstrap() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    bootstrap_.reset();
    if (stop_) return;
  }
  const auto found = Discover();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    if (!found.has_value()) {
      // (A CRD event may have scheduled one meanwhile: that one serves.)
      if (!bootstrap_.has_value()) {
        bootstrap_ = timers_->ScheduleAfter(kDiscoveryRetry, [this] { Bootstrap(); });
      }
      return;
    }
  }
  SyncMonitors(*found);
}

void GarbageCollector::ScheduleDiscovery() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_ || bootstrap_.has_value()) return;  // one pending discovery serves every event
  bootstrap_ = timers_->ScheduleAt(clock_.Now(), [this] { Bootstrap(); });
}

std::shared_ptr<client::Informer> GarbageCollector::MakeMonitor(size_t index,
                                                                const ResourceInfo& r) {
  client::InformerOptions o;
  o.path = (r.group_version.find('/') == std::string::npos ? "/api/" : "/apis/") + r.group_version +
           "/" + r.resource;
  o.name = "garbagecollector-" + r.resource;
  o.seed = options_.seed + index;
  o.transform = [](json&& obj) { return SlimMeta(std::move(obj)); };
  o.drop_managed_fields = true;  // SlimMeta does not keep them
  // The graph keeps what it needs; the informers keep only names and resourceVersions.
  o.cache_metadata_only = true;
  std::shared_ptr<client::Informer> inf = client::MakeInformer(factory_, client_, clock_, o, log_);
  // A CRD's change may add or remove served resources: discovery runs again.
  const bool crds = r.resource == "customresourcedefinitions" &&
                    r.group_version.rfind("apiextensions.k8s.io/", 0) == 0;
  auto upsert = [this, index, crds, api_version = r.group_version,
                 kind = r.kind](const client::ObjectRef& obj) {
    json o = *obj;
    o["apiVersion"] = api_version;
    o["kind"] = kind;
    OnUpsert(index, o);
    if (crds) ScheduleDiscovery();
  };
  inf->AddEventHandlers(
      {[upsert](const client::ObjectRef& obj, bool) { upsert(obj); },
       [upsert](const client::ObjectRef&, const client::ObjectRef& obj) { upsert(obj); },
       [this, index, crds](const client::ObjectRef& obj, bool) {
         OnDelete(index, *obj);
         if (crds) ScheduleDiscovery();
       }});
  return inf;
}

void GarbageCollector::SyncMonitors(const std::vector<Discovered>& found) {
  std::vector<std::shared_ptr<client::Informer>> started, stopped;
  std::vector<bool> served(resources_.size(), false);
  by_gvk_.clear();
  by_gk_.clear();
  for (const Discovered& d : found) {
    const std::string gr = GroupOfVersion(d.info.group_version) + "/" + d.info.resource;
    auto [at, added] = index_by_gr_.emplace(gr, resources_.size());
    const size_t i = at->second;
    if (added) {
      resources_.push_back(d.info);
      served.push_back(false);
      std::lock_guard<std::mutex> lock(mu_);
      informers_.emplace_back();
    }
    served[i] = true;
    for (const auto& [gvk, gk] : d.gvk_gk) {
      by_gvk_.emplace(gvk, i);
      by_gk_.emplace(gk, i);
    }
    if (informers_[i] != nullptr && resources_[i] == d.info) continue;
    if (informers_[i] != nullptr) stopped.push_back(informers_[i]);
    resources_[i] = d.info;
    auto inf = MakeMonitor(i, d.info);
    started.push_back(inf);
    std::lock_guard<std::mutex> lock(mu_);
    informers_[i] = std::move(inf);
  }
  std::vector<size_t> gone;
  for (size_t i = 0; i < served.size(); ++i) {
    if (served[i] || informers_[i] == nullptr) continue;
    stopped.push_back(informers_[i]);
    gone.push_back(i);
    std::lock_guard<std::mutex> lock(mu_);
    informers_[i] = nullptr;
  }
  std::vector<client::Informer*> to_stop;
  for (const auto& inf : stopped) to_stop.push_back(inf.get());
  client::StopAll(to_stop);
  // A resource no longer served: its objects went with it (a CRD's are deleted before it), but
  // its monitor may not have told the graph yet. Their nodes go now, as deletions would.
  for (size_t i : gone) ForgetResource(i);
  bool stopping;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping = stop_;
    if (!stopping) discovered_ = true;
  }
  if (stopping) {  // Stop ran meanwhile: the new monitors must not start after it
    to_stop.clear();
    for (const auto& inf : started) to_stop.push_back(inf.get());
    client::StopAll(to_stop);
    return;
  }
  // Without an executor they list and watch on threads of their own. With one, a driven
  // informer (the factory's, in simulate) is handed to its driver - Start makes no thread -
  // and one that is not driven is left alone: nothing may block the executor.
  for (auto& inf : started) {
    if (own_timers_ != nullptr || inf->driven()) inf->Start();
  }
}

void GarbageCollector::ForgetResource(size_t resource) {
  const std::string prefix = std::to_string(resource) + "|";
  std::vector<json> objects;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, uid] : uid_by_key_) {
      if (key.rfind(prefix, 0) != 0) continue;
      const std::string ns_name = key.substr(prefix.size());
      const size_t slash = ns_name.find('/');
      objects.push_back({{"metadata",
                          {{"namespace", ns_name.substr(0, slash)},
                           {"name", ns_name.substr(slash + 1)},
                           {"uid", uid}}}});
    }
  }
  for (const json& o : objects) OnDelete(resource, o);
}

// ---- The graph (GraphBuilder) ------------------------------------------------------------------

void GarbageCollector::OnUpsert(size_t resource, const json& obj) {
  const json& meta = Meta(obj);
  const std::string uid = StrOf(meta, "uid");
  if (uid.empty()) return;
  const std::string key = std::to_string(resource) + "|" + StrOf(meta, "namespace") + "/" +
                          StrOf(meta, "name");
  Identity id{StrOf(obj, "apiVersion"), StrOf(obj, "kind"), StrOf(meta, "name"),
              StrOf(meta, "namespace"), uid};
  std::vector<OwnerRef> owners;
  if (auto refs = meta.find("ownerReferences"); refs != meta.end() && refs->is_array()) {
    for (const json& r : *refs) {
      if (!r.is_object()) continue;
      owners.push_back({StrOf(r, "apiVersion"), StrOf(r, "kind"), StrOf(r, "name"),
                        StrOf(r, "uid"), r.value("blockOwnerDeletion", false)});
    }
  }
  const bool deleting = Deleting(meta);
  const TimePoint now = clock_.Now();
  std::lock_guard<std::mutex> lock(mu_);
  uid_by_key_[key] = uid;
  auto it = nodes_.find(uid);
  // What the previous state was doing (processTransitions compares with it).
  const bool was_orphaning = it != nodes_.end() && it->second.orphaning;
  const bool was_foreground = it != nodes_.end() && it->second.deleting_dependents;
  if (it == nodes_.end()) {
    Node n;
    n.id = id;
    n.owners = owners;
    n.observed = true;
    n.being_deleted = deleting;
    InsertNode(std::move(n));
    it = nodes_.find(uid);
  } else {
    Node& n = it->second;
    if (!n.observed) {
      // A virtual node observed: when its dependents named it otherwise, they are checked.
      if (n.id.api_version != id.api_version || n.id.kind != id.kind || n.id.name != id.name) {
        for (const std::string& dep : n.dependents) Enqueue(Queue::kDelete, dep, now);
      }
      n.observed = true;
    }
    n.id = id;
    if (!(n.owners == owners)) {
      std::vector<OwnerRef> added, removed;
      for (const OwnerRef& o : owners) {
        auto old = std::find_if(n.owners.begin(), n.owners.end(),
                                [&](const OwnerRef& x) { return x.uid == o.uid; });
        if (old == n.owners.end()) {
          added.push_back(o);
        } else if (old->block_owner_deletion && !o.block_owner_deletion) {
          removed.push_back(*old);  // unblocked: the owner may be waiting for it
        }
      }
      for (const OwnerRef& o : n.owners) {
        if (std::none_of(owners.begin(), owners.end(),
                         [&](const OwnerRef& x) { return x.uid == o.uid; })) {
          removed.push_back(o);
        }
      }
      // addUnblockedOwnersToDeleteQueue: owners waiting for this dependent look again.
      for (const OwnerRef& o : removed) {
        if (!o.block_owner_deletion) continue;
        auto owner = nodes_.find(o.uid);
        if (owner != nodes_.end() && owner->second.deleting_dependents) {
          Enqueue(Queue::kDelete, o.uid, now);
        }
      }
      std::vector<OwnerRef> gone;
      for (const OwnerRef& o : n.owners) {
        if (std::none_of(owners.begin(), owners.end(),
                         [&](const OwnerRef& x) { return x.uid == o.uid; })) {
          gone.push_back(o);
        }
      }
      n.owners = owners;
      Node copy;  // its identity is all the owners' side needs
      copy.id = n.id;
      AddDependentToOwners(copy, added);
      RemoveDependentFromOwners(copy, gone);
      it = nodes_.find(uid);
    }
    if (deleting) it->second.being_deleted = true;
  }
  // processTransitions.
  Node& n = it->second;
  n.orphaning = deleting && HasFinalizer(meta, kOrphan);
  if (n.orphaning && !was_orphaning) Enqueue(Queue::kOrphan, uid, now);
  n.deleting_dependents = deleting && HasFinalizer(meta, kForeground);
  if (n.deleting_dependents && !was_foreground) {
    for (const std::string& dep : n.dependents) Enqueue(Queue::kDelete, dep, now);
    Enqueue(Queue::kDelete, uid, now);
  }
}

void GarbageCollector::OnDelete(size_t resource, const json& obj) {
  const json& meta = Meta(obj);
  const std::string key = std::to_string(resource) + "|" + StrOf(meta, "namespace") + "/" +
                          StrOf(meta, "name");
  std::lock_guard<std::mutex> lock(mu_);
  // A deletion inferred from a relist comes with the name only.
  std::string uid = StrOf(meta, "uid");
  auto k = uid_by_key_.find(key);
  if (k != uid_by_key_.end()) {
    if (uid.empty() || uid == k->second) {
      uid = k->second;
      uid_by_key_.erase(k);
    }
  }
  auto it = nodes_.find(uid);
  if (it == nodes_.end()) return;
  if (!it->second.dependents.empty()) {
    const Identity& id = it->second.id;
    RememberAbsent(AbsentKey(uid, id.api_version, id.kind, id.name, id.namespace_));
  }
  RemoveNode(uid);
}

void GarbageCollector::InsertNode(Node node) {
  const std::string uid = node.id.uid;
  const std::vector<OwnerRef> owners = node.owners;
  auto [it, inserted] = nodes_.emplace(uid, std::move(node));
  if (!inserted) return;
  Node copy;
  copy.id = it->second.id;
  AddDependentToOwners(copy, owners);
}

void GarbageCollector::AddDependentToOwners(const Node& n, const std::vector<OwnerRef>& owners) {
  const TimePoint now = clock_.Now();
  for (const OwnerRef& o : owners) {
    if (o.uid.empty()) continue;
    auto it = nodes_.find(o.uid);
    if (it == nodes_.end()) {
      // A virtual owner: created as referenced, verified by the worker.
      Node v;
      v.id = {o.api_version, o.kind, o.name, n.id.namespace_, o.uid};
      v.dependents.insert(n.id.uid);
      nodes_.emplace(o.uid, std::move(v));
      Enqueue(Queue::kDelete, o.uid, now);
      continue;
    }
    it->second.dependents.insert(n.id.uid);
  }
}

void GarbageCollector::RemoveDependentFromOwners(const Node& n,
                                                 const std::vector<OwnerRef>& owners) {
  for (const OwnerRef& o : owners) {
    auto it = nodes_.find(o.uid);
    if (it != nodes_.end()) it->second.dependents.erase(n.id.uid);
  }
}

void GarbageCollector::RemoveNode(const std::string& uid) {
  auto it = nodes_.find(uid);
  if (it == nodes_.end()) return;
  const Node n = std::move(it->second);
  nodes_.erase(it);
  RemoveDependentFromOwners(n, n.owners);
  const TimePoint now = clock_.Now();
  // Its dependents may have lost their last owner.
  for (const std::string& dep : n.dependents) Enqueue(Queue::kDelete, dep, now);
  // Owners waiting for their dependents' deletion look again.
  for (const OwnerRef& o : n.owners) {
    auto owner = nodes_.find(o.uid);
    if (owner != nodes_.end() && owner->second.deleting_dependents) {
      Enqueue(Queue::kDelete, o.uid, now);
    }
  }
}

void GarbageCollector::VirtualDelete(const Identity& id) {
  auto it = nodes_.find(id.uid);
  if (it == nodes_.end()) return;
  const TimePoint now = clock_.Now();
  RememberAbsent(AbsentKey(id.uid, id.api_version, id.kind, id.name, id.namespace_));
  if (it->second.observed) {
    // An informer still has it: only dependents that named it otherwise are checked.
    for (const std::string& dep : it->second.dependents) Enqueue(Queue::kDelete, dep, now);
    return;
  }
  RemoveNode(id.uid);
}

void GarbageCollector::Enqueue(Queue q, const std::string& uid, TimePoint at) {
  queue_->AddAt((q == Queue::kDelete ? "d/" : "o/") + uid, at);
}

void GarbageCollector::RecentSet::Insert(const std::string& key, size_t capacity) {
  if (!set.insert(key).second) return;
  order.push_back(key);
  while (order.size() > capacity) {
    set.erase(order.front());
    order.pop_front();
  }
}

bool GarbageCollector::AbsentCached(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return absent_.Contains(key);
}

void GarbageCollector::RememberAbsent(const std::string& key) {
  absent_.Insert(key, options_.absent_owner_cache_size);
}

// ---- The worker ----------------------------------------------------------------------------------

std::optional<TimePoint> GarbageCollector::SyncItem(const std::string& key) {
  const std::string uid = key.substr(2);
  const Outcome out = key[0] == 'd' ? AttemptToDelete(uid) : AttemptToOrphan(uid);
  if (out == Outcome::kDone) return std::nullopt;
  return clock_.Now() + options_.retry_after;
}

GarbageCollector::Outcome GarbageCollector::AttemptToDelete(const std::string& uid) {
  // A snapshot without the dependents (an owner of thousands is looked at once per dependent
  // gone): what needs them reads the graph again.
  Node item;
  bool has_dependents = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return Outcome::kDone;
    const Node& n = it->second;
    item.id = n.id;
    item.owners = n.owners;
    item.observed = n.observed;
    item.being_deleted = n.being_deleted;
    item.deleting_dependents = n.deleting_dependents;
    has_dependents = !n.dependents.empty();
  }
  // "Being deleted" is a one-way trip: its dependents are looked at once it is gone.
  if (item.being_deleted && !item.deleting_dependents) return Outcome::kDone;
  StatusOr<json> latest = GetObject(item.id);
  if (!latest.ok() && latest.status().code() == StatusCode::kNotFound) {
    std::lock_guard<std::mutex> lock(mu_);
    VirtualDelete(item.id);
    return Outcome::kDone;
  }
  if (!latest.ok()) return Outcome::kRetry;
  if (StrOf(Meta(*latest), "uid") != item.id.uid) {
    std::lock_guard<std::mutex> lock(mu_);
    VirtualDelete(item.id);
    return Outcome::kDone;
  }
  if (item.deleting_dependents) return ProcessDeletingDependents(item.id);

  const json& meta = Meta(*latest);
  std::vector<OwnerRef> refs;
  if (auto r = meta.find("ownerReferences"); r != meta.end() && r->is_array()) {
    for (const json& x : *r) {
      if (x.is_object()) {
        refs.push_back({StrOf(x, "apiVersion"), StrOf(x, "kind"), StrOf(x, "name"),
                        StrOf(x, "uid"), x.value("blockOwnerDeletion", false)});
      }
    }
  }
  if (refs.empty()) return item.observed ? Outcome::kDone : Outcome::kRetry;

  // classifyReferences.
  std::set<std::string> dangling, waiting;
  size_t solid = 0;
  for (const OwnerRef& ref : refs) {
    json owner;
    StatusOr<bool> d = IsDangling(ref, item.id.namespace_, &owner);
    if (!d.ok()) {
      if (d.status().code() == StatusCode::kFailedPrecondition) return Outcome::kDone;
      if (log_ != nullptr) {
        log_->V(2, "error syncing item",
                {{"item", item.id.kind + " " + item.id.namespace_ + "/" + item.id.name},
                 {"err", d.status().ToString()}});
      }
      return Outcome::kRetry;
    }
    if (*d) {
      dangling.insert(ref.uid);
    } else if (Deleting(Meta(owner)) && HasFinalizer(Meta(owner), kForeground)) {
      waiting.insert(ref.uid);
    } else {
      ++solid;
    }
  }
  bool all_orphaned = !dangling.empty();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& d : dangling) all_orphaned = all_orphaned && orphaned_.Contains(d);
  }
  Status s;
  if (solid == 0 && waiting.empty() && all_orphaned) {
    // Every owner it had was orphaned (see the file comment): it stays, without them.
    s = PatchOwnerReferences(item.id, dangling, false);
  } else if (solid > 0) {
    if (dangling.empty() && waiting.empty()) return Outcome::kDone;
    // The dangling references and those to owners waiting for their dependents go (an owner
    // waiting on this one would wait forever).
    std::set<std::string> remove = dangling;
    remove.insert(waiting.begin(), waiting.end());
    s = PatchOwnerReferences(item.id, remove, false);
  } else if (!waiting.empty() && has_dependents) {
    bool cycle = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = nodes_.find(uid); it != nodes_.end()) {
        for (const std::string& dep : it->second.dependents) {
          auto d = nodes_.find(dep);
          if (d != nodes_.end() && d->second.deleting_dependents) cycle = true;
        }
      }
    }
    // A dependent deleting its own dependents too: its references to this item stop blocking,
    // lest the two wait for each other.
    if (cycle) s = PatchOwnerReferences(item.id, {}, true);
    if (s.ok()) s = DeleteObject(item.id, "Foreground");
  } else {
    // No solid owner left: collected, with the propagation its own finalizers ask for.
    const std::string policy = HasFinalizer(meta, kOrphan)       ? "Orphan"
                               : HasFinalizer(meta, kForeground) ? "Foreground"
                                                                 : "Background";
    s = DeleteObject(item.id, policy);
  }
  if (!s.ok()) {
    if (log_ != nullptr && s.code() != StatusCode::kAborted) {
      log_->Warning("error syncing item",
                    {{"item", item.id.kind + " " + item.id.namespace_ + "/" + item.id.name},
                     {"err", s.ToString()}});
    }
    return Outcome::kRetry;
  }
  return item.observed ? Outcome::kDone : Outcome::kRetry;
}

GarbageCollector::Outcome GarbageCollector::ProcessDeletingDependents(const Identity& id) {
  std::vector<std::string> blocking;
  std::vector<std::string> to_delete;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = nodes_.find(id.uid);
    if (it == nodes_.end()) return Outcome::kDone;
    for (const std::string& dep : it->second.dependents) {
      auto d = nodes_.find(dep);
      if (d == nodes_.end()) continue;
      for (const OwnerRef& o : d->second.owners) {
        if (o.uid == id.uid && o.block_owner_deletion) {
          blocking.push_back(dep);
          if (!d->second.deleting_dependents) to_delete.push_back(dep);
          break;
        }
      }
    }
    for (const std::string& dep : to_delete) Enqueue(Queue::kDelete, dep, clock_.Now());
  }
  if (!blocking.empty()) return Outcome::kDone;  // looked at again as they go
  Status s = RemoveFinalizer(id, kForeground);
  return s.ok() ? Outcome::kDone : Outcome::kRetry;
}

GarbageCollector::Outcome GarbageCollector::AttemptToOrphan(const std::string& uid) {
  Node owner;
  std::vector<Identity> dependents;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return Outcome::kDone;
    owner = it->second;
    for (const std::string& dep : owner.dependents) {
      auto d = nodes_.find(dep);
      if (d != nodes_.end()) dependents.push_back(d->second.id);
    }
  }
  for (const Identity& dep : dependents) {
    Status s = PatchOwnerReferences(dep, {uid}, false);
    if (!s.ok()) {
      if (log_ != nullptr) {
        log_->Warning("orphanDependents for owner failed",
                      {{"owner", owner.id.kind + " " + owner.id.namespace_ + "/" + owner.id.name},
                       {"err", s.ToString()}});
      }
      return Outcome::kRetry;
    }
  }
  Status s = RemoveFinalizer(owner.id, kOrphan);
  if (!s.ok()) return Outcome::kRetry;
  std::lock_guard<std::mutex> lock(mu_);
  orphaned_.Insert(uid, options_.absent_owner_cache_size);
  return Outcome::kDone;
}

StatusOr<bool> GarbageCollector::IsDangling(const OwnerRef& ref, const std::string& ns,
                                            json* owner) {
  if (AbsentCached(AbsentKey(ref.uid, ref.api_version, ref.kind, ref.name, "")) ||
      AbsentCached(AbsentKey(ref.uid, ref.api_version, ref.kind, ref.name, ns))) {
    return true;
  }
  const ResourceInfo* r = Mapping(ref.api_version, ref.kind);
  if (r == nullptr) {
    return Status(StatusCode::kNotFound, "unable to get REST mapping for " + ref.api_version +
                                             "/" + ref.kind);
  }
  if (ns.empty() && r->namespaced) {
    // A cluster-scoped object cannot have a namespaced owner; retrying will not help.
    return Status(StatusCode::kFailedPrecondition, "cluster-scoped object refers to a namespaced owner");
  }
  const std::string owner_ns = r->namespaced ? ns : "";
  const std::string key = AbsentKey(ref.uid, ref.api_version, ref.kind, ref.name, owner_ns);
  StatusOr<json> got = client_.Get(PathOf(*r, owner_ns, ref.name));
  if (!got.ok() && got.status().code() == StatusCode::kNotFound) {
    std::lock_guard<std::mutex> lock(mu_);
    RememberAbsent(key);
    return true;
  }
  if (!got.ok()) return got.status();
  if (StrOf(Meta(*got), "uid") != ref.uid) {
    std::lock_guard<std::mutex> lock(mu_);
    RememberAbsent(key);
    return true;
  }
  *owner = std::move(got).value();
  return false;
}

// ---- REST ------------------------------------------------------------------------------------------

const GarbageCollector::ResourceInfo* GarbageCollector::Mapping(const std::string& api_version,
                                                                const std::string& kind) const {
  if (auto it = by_gvk_.find(api_version + "/" + kind); it != by_gvk_.end()) {
    return &resources_[it->second];
  }
  if (auto it = by_gk_.find(GroupOfVersion(api_version) + "/" + kind); it != by_gk_.end()) {
    return &resources_[it->second];
  }
  return nullptr;
}

std::string GarbageCollector::PathOf(const ResourceInfo& r, const std::string& ns,
                                     const std::string& name) const {
  std::string path = r.group_version.find('/') == std::string::npos ? "/api/" : "/apis/";
  path += r.group_version;
  if (r.namespaced && !ns.empty()) path += "/namespaces/" + ns;
  return path + "/" + r.resource + "/" + name;
}

StatusOr<json> GarbageCollector::GetObject(const Identity& id) const {
  const ResourceInfo* r = Mapping(id.api_version, id.kind);
  if (r == nullptr) {
    return Status(StatusCode::kInternal,
                  "unable to get REST mapping for " + id.api_version + "/" + id.kind);
  }
  return client_.Get(PathOf(*r, id.namespace_, id.name));
}

Status GarbageCollector::DeleteObject(const Identity& id, const std::string& policy) {
  const ResourceInfo* r = Mapping(id.api_version, id.kind);
  if (r == nullptr) return Status(StatusCode::kInternal, "no REST mapping for " + id.kind);
  const json options = {{"kind", "DeleteOptions"},
                        {"apiVersion", "v1"},
                        {"preconditions", {{"uid", id.uid}}},
                        {"propagationPolicy", policy}};
  if (log_ != nullptr) {
    log_->V(2, "Deleting item", {{"item", id.kind + " " + id.namespace_ + "/" + id.name},
                                 {"propagationPolicy", policy}});
  }
  StatusOr<json> d = client_.Delete(PathOf(*r, id.namespace_, id.name), options);
  if (!d.ok() && d.status().code() != StatusCode::kNotFound) return d.status();
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.deletes;
  return Status::Ok();
}

Status GarbageCollector::PatchOwnerReferences(const Identity& id,
                                              const std::set<std::string>& remove_uids,
                                              bool unblock) {
  const ResourceInfo* r = Mapping(id.api_version, id.kind);
  if (r == nullptr) return Status(StatusCode::kInternal, "no REST mapping for " + id.kind);
  // retry.DefaultBackoff's five steps on conflicts.
  for (int attempt = 0; attempt < 5; ++attempt) {
    StatusOr<json> obj = client_.Get(PathOf(*r, id.namespace_, id.name));
    if (!obj.ok() && obj.status().code() == StatusCode::kNotFound) return Status::Ok();
    if (!obj.ok()) return obj.status();
    const json& meta = Meta(*obj);
    if (StrOf(meta, "uid") != id.uid) return Status::Ok();  // another object now
    json refs = meta.value("ownerReferences", json::array());
    json next = json::array();
    size_t removed = 0;
    for (json ref : refs) {
      if (remove_uids.count(StrOf(ref, "uid"))) {
        ++removed;
        continue;
      }
      if (unblock && ref.value("blockOwnerDeletion", false)) ref["blockOwnerDeletion"] = false;
      next.push_back(std::move(ref));
    }
    if (next == refs) return Status::Ok();
    const json patch = {{"metadata",
                         {{"resourceVersion", StrOf(meta, "resourceVersion")},
                          {"ownerReferences", next.empty() ? json() : next}}}};
    StatusOr<json> p = client_.Patch(PathOf(*r, id.namespace_, id.name),
                                     client::PatchType::kMerge, patch);
    if (p.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.orphaned += removed;
      return Status::Ok();
    }
    if (p.status().code() == StatusCode::kNotFound) return Status::Ok();
    if (p.status().code() != StatusCode::kAborted) return p.status();
  }
  return Status(StatusCode::kAborted, "updateMaxRetries(5) has reached. The garbage collector "
                                      "will retry later for owner " + id.name);
}

Status GarbageCollector::RemoveFinalizer(const Identity& id, const std::string& finalizer) {
  const ResourceInfo* r = Mapping(id.api_version, id.kind);
  if (r == nullptr) return Status(StatusCode::kInternal, "no REST mapping for " + id.kind);
  for (int attempt = 0; attempt < 5; ++attempt) {
    StatusOr<json> obj = client_.Get(PathOf(*r, id.namespace_, id.name));
    if (!obj.ok() && obj.status().code() == StatusCode::kNotFound) return Status::Ok();
    if (!obj.ok()) return obj.status();
    const json& meta = Meta(*obj);
    if (StrOf(meta, "uid") != id.uid) return Status::Ok();
    json next = json::array();
    bool found = false;
    for (const json& f : meta.value("finalizers", json::array())) {
      if (f.is_string() && f.get<std::string>() == finalizer) {
        found = true;
        continue;
      }
      next.push_back(f);
    }
    if (!found) return Status::Ok();  // already removed
    const json patch = {{"metadata",
                         {{"resourceVersion", StrOf(meta, "resourceVersion")},
                          {"finalizers", next.empty() ? json() : next}}}};
    StatusOr<json> p = client_.Patch(PathOf(*r, id.namespace_, id.name),
                                     client::PatchType::kMerge, patch);
    if (p.ok() || p.status().code() == StatusCode::kNotFound) {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.finalizers_removed;
      return Status::Ok();
    }
    if (p.status().code() != StatusCode::kAborted) return p.status();
  }
  return Status(StatusCode::kAborted, "updateMaxRetries(5) has reached. The garbage collector "
                                      "will retry later for owner " + id.name);
}

}  // namespace tidepool::controllers::garbagecollector
