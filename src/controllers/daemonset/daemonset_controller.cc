#include "controllers/daemonset/daemonset_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "client/decoded.h"
#include "controllers/controller_ref.h"
#include "controllers/daemonset/daemon_pods.h"
#include "controllers/history/controller_history.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::daemonset {

using nlohmann::json;

namespace {




// What the controller keeps of a pod; node_name is the pod's target node (TargetNode).
DaemonPod FactsOf(const json& pod) {
  const json& m = Meta(pod);
  DaemonPod f;
  f.bound = !Str(Member(Member(pod, "spec"), "nodeName")).empty();
  f.ns = Str(Member(m, "namespace"));
  f.name = Str(Member(m, "name"));
  f.uid = Str(Member(m, "uid"));
  f.labels = LabelsOf(Member(m, "labels"));
  f.deleting = !Member(m, "deletionTimestamp").is_null();
  f.created = TimeOf(Member(m, "creationTimestamp"));
  if (const json* o = ControllerOf(pod)) {
    f.controller_uid = Str(Member(*o, "uid"));
    f.controller_kind = Str(Member(*o, "kind"));
    f.controller_name = Str(Member(*o, "name"));
  }
  f.node_name = TargetNode(pod);
  const json& st = Member(pod, "status");
  f.phase = Str(Member(st, "phase"));
  if (const json& conds = Member(st, "conditions"); conds.is_array()) {
    for (const json& c : conds) {
      if (Str(Member(c, "type")) != "Ready") continue;
      f.ready = Str(Member(c, "status")) == "True";
      if (f.ready) f.ready_since = TimeOf(Member(c, "lastTransitionTime"));
    }
  }
  return f;
}

std::optional<api::LabelSelector> SelectorOf(const json& ds) {
  const json& sel = Member(Member(ds, "spec"), "selector");
  if (sel.is_null()) return std::nullopt;
  StatusOr<api::LabelSelector> s = api::codec::LabelSelectorFromJson(sel);
  if (!s.ok()) return std::nullopt;
  return *s;
}

json ControllerRef(const json& ds) {
  const json& m = Meta(ds);
  return {{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"name", Member(m, "name")},
          {"uid", Member(m, "uid")},  {"controller", true}, {"blockOwnerDeletion", true}};
}

bool Terminal(const DaemonPod& p) { return p.phase == "Succeeded" || p.phase == "Failed"; }

}  // namespace

// One sync's view of a DaemonSet: every node's placement and daemon pods.
struct DaemonSetController::Plan {
  struct NodePlan {
    api::NodeConstSharedPtr node;
    Placement placement;
    const NodePods::Group* pods = &kNone;  // in kcm's order (OlderFirst); never null
    const std::string& name() const { return node->meta.name; }
  };
  static inline const NodePods::Group kNone;
  std::vector<NodePlan> nodes;         // every existing node, by name
  std::vector<DaemonPodPtr> orphaned;  // pods for nodes that do not exist
  // The groups of nodes with adopted pods (NodePlan::pods of those nodes point here).
  std::map<std::string, NodePods::Group> with_adopted;
  // The plan of the node `name`, or null.
  NodePlan* Find(const std::string& name) {
    auto it =
        std::lower_bound(nodes.begin(), nodes.end(), name,
                         [](const NodePlan& np, const std::string& n) { return np.name() < n; });
    return it != nodes.end() && it->name() == name ? &*it : nullptr;
  }
  json tmpl;
  std::string hash, generation;
  Duration min_ready{};
  TimePoint now;
  bool surge = false;
  int max_surge = 0, max_unavailable = 1;
  int desired = 0;
};

DaemonSetController::DaemonSetController(const client::RestClient& client, const Clock& clock,
                                         DaemonSetControllerOptions options,
                                         autoscaler::EventRecorder* recorder, log::Logger* logger,
                                         client::SharedInformerFactory* informers,
                                         TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  executor_ = executor;
  // The handlers keep DaemonPod: the decoding informer of pods (shared with the other
  // controllers when they share a factory).
  const client::InformerOptions pods =
      client::DecodingInformerOptions("pods", "/api/v1/pods", options.seed);
  pods_ = client::MakeInformer(informers, client_, clock_, pods, logger);
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(nullptr, o); },
       [this](const client::ObjectRef& old_obj, const client::ObjectRef& o) { OnPod(old_obj, o); },
       [this](const client::ObjectRef& o, bool) { OnPodDeleted(o); }});
  // The handlers keep the decoded nodes: the decoding informer of nodes (shared).
  nodes_ = client::MakeInformer(
      informers, client_, clock_,
      client::DecodingInformerOptions("nodes", "/api/v1/nodes", options.seed + 2), logger);
  nodes_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnNode(nullptr, o); },
       [this](const client::ObjectRef& old_obj, const client::ObjectRef& o) { OnNode(old_obj, o); },
       [this](const client::ObjectRef& o, bool) {
         {
           std::lock_guard<std::mutex> lock(mu_);
           node_facts_.erase(Str(Member(Meta(*o), "name")));
         }
         QueueAll();
       }});
  client::InformerOptions ds;
  ds.path = "/apis/apps/v1/daemonsets";
  ds.name = "daemonsets";
  ds.seed = options.seed + 1;
  daemonsets_ = client::MakeInformer(informers, client_, clock_, ds, logger);
  auto queue = [this](const client::ObjectRef& o) { queue_->Add(client::Informer::KeyOf(*o)); };
  daemonsets_->AddEventHandlers(
      {[queue](const client::ObjectRef& o, bool) { queue(o); },
       [queue](const client::ObjectRef&, const client::ObjectRef& o) { queue(o); },
       [this](const client::ObjectRef& o, bool) {
         const std::string key = client::Informer::KeyOf(*o);
         {
           std::lock_guard<std::mutex> lock(mu_);
           expectations_.erase(key);
         }
         queue_->Add(key);
       }});
  // kcm's addHistory/updateHistory/deleteHistory: a revision's change queues its DaemonSet
  // (an orphan's: those in its namespace whose selector matches it).
  history_ = std::make_unique<history::History>(client_, clock_, informers, options.seed + 3,
                                                logger, [this](const json& cr) { OnRevision(cr); });
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return Sync(key); }, [this] { return HasSynced(); },
      std::chrono::milliseconds(50), executor_);
}

DaemonSetController::~DaemonSetController() { Stop(); }

void DaemonSetController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    pods_->Start();
    nodes_->Start();
    daemonsets_->Start();
    history_->informer().Start();
  }
  queue_->Start();
}

void DaemonSetController::Stop() {
  queue_->Stop();
  client::StopAll({pods_.get(), nodes_.get(), daemonsets_.get(), &history_->informer()});
}

bool DaemonSetController::HasSynced() const {
  return pods_->HasSynced() && nodes_->HasSynced() && daemonsets_->HasSynced() &&
         history_->informer().HasSynced();
}

void DaemonSetController::OnRevision(const json& cr) {
  const json& m = Meta(cr);
  const std::string ns = Str(Member(m, "namespace"));
  if (const json* ref = ControllerOf(cr)) {
    if (Str(Member(*ref, "kind")) != "DaemonSet") return;
    const std::string key = Key(ns, Str(Member(*ref, "name")));
    const client::ObjectRef ds = daemonsets_->Get(key);
    if (ds != nullptr && Str(Member(Meta(*ds), "uid")) == Str(Member(*ref, "uid")))
      queue_->Add(key);
    return;
  }
  const api::Labels labels = LabelsOf(Member(m, "labels"));
  for (const client::ObjectRef& ds : daemonsets_->List()) {
    if (Str(Member(Meta(*ds), "namespace")) != ns) continue;
    std::optional<api::LabelSelector> sel = SelectorOf(*ds);
    if (sel.has_value() && !sel->Empty() && sel->Matches(labels))
      queue_->Add(client::Informer::KeyOf(*ds));
  }
}

// kcm's snapshot: the revision of the DaemonSet's template as it is now, named
// "<ds>-<hash>"; a name held by other data raises status.collisionCount and fails the sync.
StatusOr<json> DaemonSetController::Snapshot(const json& ds, int64_t revision) {
  const json& m = Meta(ds);
  const std::string ns = Str(Member(m, "namespace")), name = Str(Member(m, "name"));
  const std::string hash = TemplateHash(ds);
  json labels = Member(Meta(Member(Member(ds, "spec"), "template")), "labels");
  if (!labels.is_object()) labels = json::object();
  labels[kRevisionHashLabel] = hash;
  json meta = {{"name", name + "-" + hash},
               {"namespace", ns},
               {"labels", std::move(labels)},
               {"ownerReferences", json::array({ControllerRef(ds)})}};
  if (const json& a = Member(m, "annotations"); a.is_object()) meta["annotations"] = a;
  const json cr = {{"apiVersion", "apps/v1"},
                   {"kind", "ControllerRevision"},
                   {"metadata", std::move(meta)},
                   {"data", history::TemplatePatch(ds)},
                   {"revision", revision}};
  StatusOr<json> created = history_->CreateOrFindEqual(cr);
  if (created.ok() || created.status().code() != StatusCode::kAlreadyExists) return created;
  // A hash collision: bump the collision count (unless the one hashed was stale) and retry.
  const std::string ds_path = client::ResourcePath("apps", "v1", "daemonsets", ns, name);
  StatusOr<json> current = client_.Get(ds_path);
  if (!current.ok()) return current.status();
  const json& seen = Member(Member(ds, "status"), "collisionCount");
  json count = Member(Member(*current, "status"), "collisionCount");
  if (count != seen) {
    return AbortedError("found a stale collision count of DaemonSet \"" + name +
                        "\" while processing; will retry until it is updated");
  }
  (*current)["status"]["collisionCount"] = count.is_number_integer() ? count.get<int64_t>() + 1 : 1;
  TIDEPOOL_RETURN_IF_ERROR(client_.UpdateUnread(ds_path + "/status", *current));
  return created.status();
}

// kcm's constructHistory: the current revision (made, or renumbered to follow the old ones)
// and the old ones.
StatusOr<DaemonSetController::Revisions> DaemonSetController::ConstructHistory(
    const json& ds, const api::LabelSelector& selector) {
  Revisions out;
  const json patch = history::TemplatePatch(ds);
  std::vector<client::ObjectRef> current;
  const std::string ns = Str(Member(Meta(ds), "namespace"));
  const std::string ds_path =
      client::ResourcePath("apps", "v1", "daemonsets", ns, Str(Member(Meta(ds), "name")));
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<client::ObjectRef> controlled,
                            history_->Controlled(ds, selector, ControllerRef(ds), [&] {
                              return RecheckDeletionTimestamp(
                                  client_, ds_path, Str(Member(Meta(ds), "uid")), "DaemonSet");
                            }));
  for (client::ObjectRef cr : controlled) {
    if (Member(Member(Meta(*cr), "labels"), kRevisionHashLabel).is_null()) {  // named, not hashed
      json labelled = *cr;
      labelled["metadata"]["labels"][kRevisionHashLabel] = Member(Meta(*cr), "name");
      StatusOr<json> updated =
          client_.Update(client::ResourcePath("apps", "v1", "controllerrevisions", ns,
                                              Str(Member(Meta(*cr), "name"))),
                         labelled);
      if (!updated.ok()) return updated.status();
      cr = std::make_shared<const json>(*std::move(updated));
    }
    (Member(*cr, "data") == patch ? current : out.old).push_back(std::move(cr));
  }
  int64_t next = 1;
  for (const client::ObjectRef& cr : out.old) next = std::max(next, history::RevisionOf(*cr) + 1);
  if (current.empty()) {
    TIDEPOOL_ASSIGN_OR_RETURN(out.current, Snapshot(ds, next));
    return out;
  }
  // dedupCurHistories: the highest revision stays; the others' pods take its hash, then go.
  size_t keep = 0;
  for (size_t i = 0; i < current.size(); ++i) {
    if (history::RevisionOf(*current[i]) >= history::RevisionOf(*current[keep])) keep = i;
  }
  const std::string keep_hash =
      Str(Member(Member(Meta(*current[keep]), "labels"), kRevisionHashLabel));
  for (size_t i = 0; i < current.size(); ++i) {
    if (i == keep) continue;
    for (const DaemonPodPtr& pp : PodsControlledBy(Str(Member(Meta(ds), "uid")))) {
      const DaemonPod& p = *pp;
      auto h = p.labels.find(kRevisionHashLabel);
      if (h != p.labels.end() && h->second == keep_hash) continue;
      TIDEPOOL_RETURN_IF_ERROR(
          client_.PatchUnread(PodsPath(p.ns, p.name), client::PatchType::kStrategicMerge,
                              {{"metadata", {{"labels", {{kRevisionHashLabel, keep_hash}}}}}}));
    }
    TIDEPOOL_RETURN_IF_ERROR(history_->Delete(*current[i]));
  }
  out.current = *current[keep];
  if (history::RevisionOf(out.current) < next) {
    TIDEPOOL_ASSIGN_OR_RETURN(out.current, history_->UpdateRevision(out.current, next));
  }
  return out;
}

std::vector<DaemonPodPtr> DaemonSetController::PodsControlledBy(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_index_.Controlled(uid);
}

// kcm's cleanupHistory: old revisions beyond spec.revisionHistoryLimit go, oldest first, but
// never one a pod (a terminating one included) is still at.
Status DaemonSetController::CleanupHistory(const json& ds, const Plan& plan,
                                           std::vector<client::ObjectRef> old) {
  const json& limit = Member(Member(ds, "spec"), "revisionHistoryLimit");
  int64_t to_kill =
      static_cast<int64_t>(old.size()) - (limit.is_number_integer() ? limit.get<int64_t>() : 10);
  if (to_kill <= 0) return OkStatus();
  std::set<std::string> live;
  auto note = [&live](const DaemonPodPtr& p) {
    if (auto h = p->labels.find(kRevisionHashLabel); h != p->labels.end() && !h->second.empty())
      live.insert(h->second);
  };
  for (const Plan::NodePlan& np : plan.nodes) {
    for (const DaemonPodPtr& p : *np.pods) note(p);
  }
  for (const DaemonPodPtr& p : plan.orphaned) note(p);
  history::SortByRevision(&old);
  for (const client::ObjectRef& cr : old) {
    if (to_kill <= 0) break;
    if (live.count(Str(Member(Member(Meta(*cr), "labels"), kRevisionHashLabel)))) continue;
    TIDEPOOL_RETURN_IF_ERROR(history_->Delete(*cr));
    --to_kill;
  }
  return OkStatus();
}

void DaemonSetController::QueueAll() {
  for (const client::ObjectRef& ds : daemonsets_->List()) {
    queue_->Add(client::Informer::KeyOf(*ds));
  }
}

void DaemonSetController::OnNode(const client::ObjectRef& old_obj, const client::ObjectRef& obj) {
  StatusOr<api::NodeConstSharedPtr> node = client::DecodedNode(obj);
  if (!node.ok()) return;
  api::NodeConstSharedPtr next = *std::move(node);
  // Only what placement reads: labels, taints, unschedulable (kcm's shouldIgnoreNodeUpdate).
  const auto same_placement = [&next](const api::NodeConstSharedPtr& n) {
    return n != nullptr && n->meta.labels == next->meta.labels &&
           n->spec.taints == next->spec.taints && n->spec.unschedulable == next->spec.unschedulable;
  };
  api::NodeConstSharedPtr before;
  {
    std::lock_guard<std::mutex> lock(mu_);
    NodeFacts& seen = node_facts_[next->meta.name];
    if (old_obj != nullptr) before = seen.node;
    if (!same_placement(seen.node)) seen.placement_version = ++placement_versions_;
    seen.node = next;
  }
  if (same_placement(before)) return;
  QueueForNode(before.get(), *next);
}

void DaemonSetController::QueueForNode(const api::Node* before, const api::Node& now) {
  const std::vector<client::ObjectRef> sets = daemonsets_->List();
  if (shapes_.size() > sets.size()) shapes_.clear();  // forgets deleted DaemonSets
  for (const client::ObjectRef& ds : sets) {
    const DaemonPodShape& shape = ShapeFor(*ds);
    const Placement p = ShouldRun(shape, now);
    bool changed = p.should_run;  // addNode
    if (before != nullptr) {      // updateNode
      const Placement b = ShouldRun(shape, *before);
      changed =
          b.should_run != p.should_run || b.should_continue_running != p.should_continue_running;
    }
    if (changed) queue_->Add(client::Informer::KeyOf(*ds));
  }
}

const DaemonPodShape& DaemonSetController::ShapeFor(const json& ds) {
  const std::string key = client::Informer::KeyOf(ds);
  const std::string rv = Str(Member(Meta(ds), "resourceVersion"));
  auto it = shapes_.find(key);
  if (it == shapes_.end() || it->second.first != rv) {
    json tmpl = DaemonPodTemplate(ds, TemplateHash(ds), TemplateGeneration(ds));
    it = shapes_.insert_or_assign(key, std::pair(rv, ShapeOf(tmpl))).first;
  }
  return it->second.second;
}

void DaemonSetController::OnPod(const client::ObjectRef& old_obj, const client::ObjectRef& obj) {
  auto made = std::make_shared<const DaemonPod>(FactsOf(*obj));
  const DaemonPod& facts = *made;
  DaemonPodPtr before;
  const std::string key = Key(facts.ns, facts.name);
  {
    std::lock_guard<std::mutex> lock(mu_);
    before = pods_index_.Find(key);
    const bool seen_before = before != nullptr && old_obj != nullptr;
    if (facts.controller_kind == "DaemonSet") {
      auto e = expectations_.find(Key(facts.ns, facts.controller_name));
      if (e != expectations_.end()) {
        if (!seen_before && e->second.adds > 0) --e->second.adds;
        if (facts.deleting) e->second.deletes.erase(key);
      }
    }
    pods_index_.Put(key, made);
    if (before != nullptr) node_pods_.Changed(before->controller_uid, key);
    node_pods_.Changed(facts.controller_uid, key);
  }
  QueueFor(facts);
  if (before != nullptr &&
      (before->controller_uid != facts.controller_uid || before->labels != facts.labels)) {
    QueueFor(*before);
  }
}

void DaemonSetController::OnPodDeleted(const client::ObjectRef& obj) {
  const std::string key = client::Informer::KeyOf(*obj);
  DaemonPodPtr facts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    facts = pods_index_.Find(key);
    if (facts == nullptr) return;
    if (facts->controller_kind == "DaemonSet") {
      auto e = expectations_.find(Key(facts->ns, facts->controller_name));
      if (e != expectations_.end()) e->second.deletes.erase(key);
    }
    pods_index_.Remove(key);
    node_pods_.Changed(facts->controller_uid, key);
  }
  QueueFor(*facts);
}

void DaemonSetController::QueueFor(const DaemonPod& p) {
  if (!p.controller_uid.empty()) {
    if (p.controller_kind != "DaemonSet") return;
    const std::string key = Key(p.ns, p.controller_name);
    client::ObjectRef ds = daemonsets_->Get(key);
    if (ds != nullptr && Str(Member(Meta(*ds), "uid")) == p.controller_uid) queue_->Add(key);
    return;
  }
  if (p.deleting) return;
  for (const client::ObjectRef& ds : daemonsets_->List()) {
    if (Str(Member(Meta(*ds), "namespace")) != p.ns) continue;
    std::optional<api::LabelSelector> sel = SelectorOf(*ds);
    if (sel.has_value() && !sel->Empty() && sel->Matches(p.labels)) {
      queue_->Add(client::Informer::KeyOf(*ds));
    }
  }
}

bool DaemonSetController::Satisfied(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = expectations_.find(key);
  if (it == expectations_.end()) return true;
  if (it->second.adds <= 0 && it->second.deletes.empty()) return true;
  return clock_.Now() - it->second.at >= options_.expectations.get();
}

StatusOr<std::vector<DaemonPodPtr>> DaemonSetController::Claim(const json& ds,
                                                               const std::string& key,
                                                               const NodePods::Params& params) {
  const json& m = Meta(ds);
  const std::string ns = Str(Member(m, "namespace"));
  const std::optional<api::LabelSelector>& sel = params.selector;
  const bool deleting = !Member(m, "deletionTimestamp").is_null();
  std::vector<DaemonPodPtr> unmatched, orphans;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unmatched = node_pods_.Refresh(key, params, pods_index_).Unmatched();
    if (!deleting && sel.has_value() && !sel->Empty()) {
      orphans = pods_index_.Orphans(
          ns, [&sel](const DaemonPod& p) { return !p.deleting && sel->Matches(p.labels); });
    }
  }
  const json ref = ControllerRef(ds);
  // The controlled pods the selector matches are the NodePods'; those it does not are released.
  return ClaimPods(
      client_, ClaimOwnerOf(client_, ds, "daemonsets", "DaemonSet", ref), std::move(unmatched),
      [](const DaemonPodPtr&) { return false; }, std::move(orphans));
}

void DaemonSetController::Event(const json& ds, std::string_view type, std::string_view reason,
                                std::string message) {
  if (recorder_ == nullptr) return;
  const json& m = Meta(ds);
  recorder_->Event({"DaemonSet", Str(Member(m, "namespace")), Str(Member(m, "name")),
                    Str(Member(m, "uid"))},
                   type, reason, std::move(message));
}

void DaemonSetController::Manage(const json& ds, const std::string& key, const Plan& plan,
                                 std::vector<std::string>* create_on,
                                 std::vector<std::string>* delete_pods,
                                 std::optional<TimePoint>* recheck) {
  const std::string ds_uid = Str(Member(Meta(ds), "uid"));
  for (const Plan::NodePlan& np : plan.nodes) {
    const std::string& node = np.name();
    const bool exists = !np.pods->empty();
    if (np.placement.should_run && !exists) {
      create_on->push_back(node);
      continue;
    }
    if (!np.placement.should_continue_running) {
      for (const DaemonPodPtr& p : *np.pods) {
        if (!p->deleting) delete_pods->push_back(p->name);
      }
      continue;
    }
    std::vector<const DaemonPod*> running;
    for (const DaemonPodPtr& pp : *np.pods) {
      const DaemonPod& p = *pp;
      if (p.deleting) continue;
      if (p.phase == "Failed") {
        // failedPodsBackoff: one kill per backoff period per node.
        std::lock_guard<std::mutex> lock(mu_);
        Backoff& b = backoff_[ds_uid + "/" + node];
        if (b.delay > Duration::zero() && plan.now - b.last < b.delay) {
          const TimePoint at = b.last + b.delay;
          *recheck = recheck->has_value() ? std::min(**recheck, at) : at;
          continue;
        }
        b.delay = b.delay == Duration::zero()
                      ? options_.failed_pod_backoff
                      : std::min<Duration>(b.delay * 2, options_.failed_pod_backoff_max);
        b.last = plan.now;
        Event(ds, "Warning", "FailedDaemonPod",
              "Found failed daemon pod " + p.ns + "/" + p.name + " on node " + node +
                  ", will try to kill it");
        delete_pods->push_back(p.name);
      } else if (p.phase == "Succeeded") {
        delete_pods->push_back(p.name);
      } else {
        running.push_back(&p);
      }
    }
    if (running.size() <= 1) continue;
    if (!plan.surge) {
      for (size_t i = 1; i < running.size(); ++i) delete_pods->push_back(running[i]->name);
      continue;
    }
    // With surge: at most the oldest new pod and the oldest old pod; the old one goes once it
    // is not ready or the new one is available.
    const DaemonPod* oldest_new = nullptr;
    const DaemonPod* oldest_old = nullptr;
    for (const DaemonPod* p : running) {
      const bool is_new = IsUpdated(p->labels, plan.generation, plan.hash);
      const DaemonPod*& slot = is_new ? oldest_new : oldest_old;
      if (slot == nullptr) {
        slot = p;
        continue;
      }
      delete_pods->push_back(p->name);
    }
    if (oldest_new != nullptr && oldest_old != nullptr &&
        (!oldest_old->ready || oldest_new->Available(plan.min_ready, plan.now))) {
      delete_pods->push_back(oldest_old->name);
    }
  }
  // Pods pinned to nodes that no longer exist and never bound (getUnscheduledPodsWithoutNode:
  // spec.nodeName empty; a bound one is PodGC's). One already being deleted is not asked again.
  for (const DaemonPodPtr& p : plan.orphaned) {
    if (!p->bound && !p->deleting) delete_pods->push_back(p->name);
  }
  (void)key;
}

void DaemonSetController::RollingUpdate(const json& ds, const Plan& plan,
                                        std::vector<std::string>* create_on,
                                        std::vector<std::string>* delete_pods) {
  (void)ds;
  // findUpdatedPodsOnNode for each node with pods.
  struct OnNode {
    const DaemonPod* new_pod = nullptr;
    const DaemonPod* old_pod = nullptr;
    bool ok = true;
  };
  auto find = [&](const std::vector<DaemonPodPtr>& pods) {
    OnNode r;
    for (const DaemonPodPtr& p : pods) {
      if (p->deleting) continue;
      const DaemonPod*& slot =
          IsUpdated(p->labels, plan.generation, plan.hash) ? r.new_pod : r.old_pod;
      if (slot != nullptr) r.ok = false;
      slot = p.get();
    }
    return r;
  };
  int unavailable = 0;
  if (!plan.surge) {
    std::vector<std::string> allowed, candidates;
    for (const Plan::NodePlan& np : plan.nodes) {
      if (np.pods->empty()) continue;
      const OnNode r = find(*np.pods);
      if (!r.ok || (r.new_pod == nullptr) == (r.old_pod == nullptr)) {
        ++unavailable;
      } else if (r.new_pod != nullptr) {
        if (!r.new_pod->Available(plan.min_ready, plan.now)) ++unavailable;
      } else if (!r.old_pod->Available(plan.min_ready, plan.now)) {
        allowed.push_back(r.old_pod->name);
      } else if (unavailable < plan.max_unavailable) {
        candidates.push_back(r.old_pod->name);
      }
    }
    const int room = std::clamp(plan.max_unavailable - unavailable, 0, static_cast<int>(candidates.size()));
    delete_pods->insert(delete_pods->end(), allowed.begin(), allowed.end());
    delete_pods->insert(delete_pods->end(), candidates.begin(), candidates.begin() + room);
    return;
  }
  int surged = 0;
  std::vector<std::string> allowed, candidates;
  for (const Plan::NodePlan& np : plan.nodes) {
    const std::string& node = np.name();
    if (np.pods->empty()) continue;
    const OnNode r = find(*np.pods);
    if (!r.ok) {
      ++unavailable;
      continue;
    }
    if (r.old_pod == nullptr) continue;
    if (r.new_pod == nullptr) {
      if (!r.old_pod->Available(plan.min_ready, plan.now)) {
        allowed.push_back(node);
      } else if (surged < plan.max_surge) {
        candidates.push_back(node);
      }
      continue;
    }
    if (!r.new_pod->Available(plan.min_ready, plan.now)) {
      ++surged;
      continue;
    }
    delete_pods->push_back(r.old_pod->name);
  }
  const int room = std::clamp(plan.max_surge - surged, 0, static_cast<int>(candidates.size()));
  create_on->insert(create_on->end(), allowed.begin(), allowed.end());
  create_on->insert(create_on->end(), candidates.begin(), candidates.begin() + room);
}

Status DaemonSetController::SyncNodes(const json& ds, const std::string& key,
                                      const std::vector<std::string>& create_on_all,
                                      const std::vector<std::string>& delete_pods_all,
                                      const std::string& hash) {
  const std::string ns = Str(Member(Meta(ds), "namespace"));
  const std::string name = Str(Member(Meta(ds), "name"));
  std::vector<std::string> create_on(create_on_all.begin(),
                                     create_on_all.begin() +
                                         std::min<size_t>(create_on_all.size(), options_.burst_replicas));
  std::vector<std::string> delete_pods(
      delete_pods_all.begin(),
      delete_pods_all.begin() + std::min<size_t>(delete_pods_all.size(), options_.burst_replicas));
  {
    std::lock_guard<std::mutex> lock(mu_);
    Expectations& e = expectations_[key];
    e = {static_cast<int>(create_on.size()), {}, clock_.Now()};
    for (const std::string& p : delete_pods) e.deletes.insert(Key(ns, p));
  }
  const json tmpl = DaemonPodTemplate(ds, hash, TemplateGeneration(ds));
  Status failure;
  // slowStartBatch: 1, 2, 4, ...; a failed batch skips the rest.
  size_t next = 0, batch = 1;
  while (next < create_on.size() && failure.ok()) {
    const size_t end = std::min(create_on.size(), next + batch);
    for (; next < end; ++next) {
      json pinned = PinToNode(tmpl, create_on[next]);
      json meta = Member(pinned, "metadata");
      meta.erase("name");
      meta["generateName"] = name + "-";
      meta["namespace"] = ns;
      meta["ownerReferences"] = json::array({ControllerRef(ds)});
      json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(meta)},
                  {"spec", pinned["spec"]}};
      StatusOr<json> created = client_.Create(PodsPath(ns), pod);
      if (created.ok()) {
        Event(ds, "Normal", "SuccessfulCreate",
              "Created pod: " + Str(Member(Meta(*created), "name")));
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto e = expectations_.find(key);
        if (e != expectations_.end() && e->second.adds > 0) --e->second.adds;
      }
      if (failure.ok()) failure = created.status();
      Event(ds, "Warning", "FailedCreate", "Error creating: " + std::string(created.status().message()));
    }
    batch *= 2;
  }
  if (!failure.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto e = expectations_.find(key);
    if (e != expectations_.end()) e->second.adds = 0;
  }
  for (const std::string& p : delete_pods) {
    Status s = client_.Delete(PodsPath(ns, p)).status();
    if (s.ok()) {
      Event(ds, "Normal", "SuccessfulDelete", "Deleted pod: " + p);
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      expectations_[key].deletes.erase(Key(ns, p));
    }
    if (s.code() == StatusCode::kNotFound) continue;
    if (failure.ok()) failure = s;
    Event(ds, "Warning", "FailedDelete", "Error deleting: " + std::string(s.message()));
  }
  return failure;
}

void DaemonSetController::GroupPods(const NodePods& pods, std::vector<DaemonPodPtr> adopted,
                                    Plan* plan) {
  // Both by name: one walk of each. Pods for no node (neither bound nor pinned) are left out,
  // as kcm's getNodesToDaemonPods leaves out pods GetTargetNodeName fails on.
  auto np = plan->nodes.begin();
  for (const auto& [node, group] : pods.by_node()) {
    if (node.empty()) continue;
    while (np != plan->nodes.end() && np->name() < node) ++np;
    if (np != plan->nodes.end() && np->name() == node) {
      np->pods = &group;
    } else {
      plan->orphaned.insert(plan->orphaned.end(), group.begin(), group.end());
    }
  }
  // By name (the order they were claimed in before NodePods), adopted ones last.
  std::sort(plan->orphaned.begin(), plan->orphaned.end(),
            [](const DaemonPodPtr& a, const DaemonPodPtr& b) { return a->name < b->name; });
  // Adopted pods join their node's group for this sync (the informer has not shown them as
  // controlled yet).
  for (DaemonPodPtr& p : adopted) {
    if (p->node_name.empty()) continue;
    Plan::NodePlan* target = plan->Find(p->node_name);
    if (target == nullptr) {
      plan->orphaned.push_back(std::move(p));
      continue;
    }
    auto [it, made] = plan->with_adopted.try_emplace(p->node_name);
    NodePods::Group& group = it->second;
    if (made) group = *target->pods;
    group.insert(std::upper_bound(group.begin(), group.end(), p, OlderFirst), p);
    target->pods = &group;
  }
}

void DaemonSetController::PlaceNodes(const std::string& key, const std::string& shape_key,
                                     const DaemonPodShape& shape, Plan* plan) {
  // The nodes, by name, with their placement versions: taken under the lock, placed after it.
  std::vector<uint64_t> versions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    plan->nodes.reserve(node_facts_.size());
    versions.reserve(node_facts_.size());
    for (const auto& [name, facts] : node_facts_) {
      plan->nodes.push_back({facts.node, {}});  // pods: kNone
      versions.push_back(facts.placement_version);
    }
  }
  Placements& cache = placements_[key];
  if (cache.shape_key != shape_key) {
    cache.shape_key = shape_key;
    cache.by_node.clear();
  }
  // The plan and the cache are both by name: one walk of each, the cache's entries of nodes
  // gone dropped, those of nodes whose placement inputs changed computed again.
  auto c = cache.by_node.begin();
  for (size_t i = 0; i < plan->nodes.size(); ++i) {
    Plan::NodePlan& np = plan->nodes[i];
    const std::string& name = np.name();
    while (c != cache.by_node.end() && c->first < name) c = cache.by_node.erase(c);
    if (c == cache.by_node.end() || c->first != name) {
      c = cache.by_node.emplace_hint(c, name, std::pair(versions[i], ShouldRun(shape, *np.node)));
    } else if (c->second.first != versions[i]) {
      c->second = {versions[i], ShouldRun(shape, *np.node)};
    }
    np.placement = c->second.second;
    if (np.placement.should_run) ++plan->desired;
    ++c;
  }
  cache.by_node.erase(c, cache.by_node.end());
}

std::optional<TimePoint> DaemonSetController::Sync(const std::string& key) {
  const client::ObjectRef dsp = daemonsets_->Get(key);
  if (dsp == nullptr) {
    placements_.erase(key);
    std::lock_guard<std::mutex> lock(mu_);
    expectations_.erase(key);
    node_pods_.Forget(key);
    return std::nullopt;
  }
  const json& ds = *dsp;
  const json& m = Meta(ds);
  const std::string ns = Str(Member(m, "namespace")), name = Str(Member(m, "name"));
  std::optional<api::LabelSelector> sel = SelectorOf(ds);
  if (!sel.has_value() || sel->Empty()) {
    Event(ds, "Warning", "SelectingAll",
          "This daemon set is selecting all pods. A non-empty selector is required.");
    return std::nullopt;
  }
  if (!Member(m, "deletionTimestamp").is_null()) return std::nullopt;

  StatusOr<Revisions> revisions = ConstructHistory(ds, *sel);
  if (!revisions.ok()) {
    if (log_ != nullptr && revisions.status().code() != StatusCode::kAborted) {
      log_->Warning("Failed to construct revisions of DaemonSet",
                    {{"daemonSet", key}, {"err", revisions.status().ToString()}});
    }
    return clock_.Now() + options_.retry_after;
  }
  Plan plan;
  plan.now = clock_.Now();
  plan.hash = Str(Member(Member(Meta(revisions->current), "labels"), kRevisionHashLabel));
  plan.generation = TemplateGeneration(ds);
  plan.tmpl = DaemonPodTemplate(ds, plan.hash, plan.generation);
  const json& spec = Member(ds, "spec");
  if (const json& mrs = Member(spec, "minReadySeconds"); mrs.is_number_integer()) {
    plan.min_ready = std::chrono::seconds(mrs.get<int64_t>());
  }
  const DaemonPodShape shape = ShapeOf(plan.tmpl);  // decoded once, not once per node
  // The shape follows the template, its hash and generation (not status writes).
  const std::string uid = Str(Member(m, "uid"));
  PlaceNodes(key, uid + "/" + plan.generation + "/" + plan.hash, shape, &plan);
  const NodePods::Params params{uid, sel, plan.generation, plan.hash};
  StatusOr<std::vector<DaemonPodPtr>> adopted = Claim(ds, key, params);
  if (!adopted.ok()) {
    if (log_ != nullptr && adopted.status().code() != StatusCode::kAborted) {
      log_->Warning("Failed to claim pods of DaemonSet",
                    {{"daemonSet", key}, {"err", adopted.status().ToString()}});
    }
    return clock_.Now() + options_.retry_after;
  }
  const NodePods* pods = nullptr;
  {
    // Only this worker adds or erases node_pods_ entries: the pointer stays good unlocked.
    std::lock_guard<std::mutex> lock(mu_);
    pods = &node_pods_.At(params.uid);
  }
  // rollingUpdate has nothing to do when every pod is up to date.
  const bool outdated =
      pods->outdated() > 0 || std::any_of(adopted->begin(), adopted->end(), [&](const auto& p) {
        return !IsUpdated(p->labels, plan.generation, plan.hash);
      });
  GroupPods(*pods, std::move(*adopted), &plan);

  const json& strategy = Member(spec, "updateStrategy");
  const bool rolling = Str(Member(strategy, "type")) != "OnDelete";
  if (rolling) {
    const json& ru = Member(strategy, "rollingUpdate");
    plan.max_surge = std::max(0, ScaledValue(Member(ru, "maxSurge"), plan.desired, 0));
    plan.max_unavailable = std::max(0, ScaledValue(Member(ru, "maxUnavailable"), plan.desired, 1));
    plan.surge = ScaledValue(Member(ru, "maxSurge"), 1, 0) > 0;
    if (plan.max_surge == 0 && plan.max_unavailable == 0) plan.max_unavailable = 1;
  }

  std::optional<TimePoint> recheck;
  Status synced;
  if (Satisfied(key)) {
    std::vector<std::string> create_on, delete_pods;
    Manage(ds, key, plan, &create_on, &delete_pods, &recheck);
    if (create_on.empty() && delete_pods.empty() && rolling && outdated) {
      RollingUpdate(ds, plan, &create_on, &delete_pods);
    }
    if (!create_on.empty() || !delete_pods.empty()) {
      synced = SyncNodes(ds, key, create_on, delete_pods, plan.hash);
    }
    if (synced.ok()) synced = CleanupHistory(ds, plan, std::move(revisions->old));
  }

  // updateDaemonSetStatus.
  int32_t current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
  for (const Plan::NodePlan& np : plan.nodes) {
    std::vector<const DaemonPod*> pods;
    for (const DaemonPodPtr& p : *np.pods) {
      if (!(p->deleting && Terminal(*p))) pods.push_back(p.get());
    }
    if (!np.placement.should_run) {
      if (!pods.empty()) ++misscheduled;
      continue;
    }
    if (pods.empty()) continue;
    ++current;
    const DaemonPod& p = *pods.front();
    if (p.ready) {
      ++ready;
      if (p.Available(plan.min_ready, plan.now)) ++available;
    }
    if (IsUpdated(p.labels, plan.generation, plan.hash)) ++updated;
  }
  const json& old_status = Member(ds, "status");
  json status = old_status.is_object() ? old_status : json::object();
  status["desiredNumberScheduled"] = plan.desired;
  status["currentNumberScheduled"] = current;
  status["numberMisscheduled"] = misscheduled;
  status["numberReady"] = ready;
  status["updatedNumberScheduled"] = updated;
  status["numberAvailable"] = available;
  status["numberUnavailable"] = plan.desired - available;
  if (const json& g = Member(m, "generation"); g.is_number_integer()) status["observedGeneration"] = g;
  for (const char* k : {"numberAvailable", "numberUnavailable", "updatedNumberScheduled"}) {
    if (status[k] == 0) status.erase(k);  // omitempty
  }
  if (status != old_status) {
    json next = ds;
    next["status"] = status;
    Status s = client_.UpdateUnread(
        client::ResourcePath("apps", "v1", "daemonsets", ns, name, "status"), next);
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      if (log_ != nullptr && s.code() != StatusCode::kAborted) {
        log_->Warning("Failed to update DaemonSet status", {{"daemonSet", key}, {"err", s.ToString()}});
      }
      return plan.now + options_.retry_after;
    }
  }
  if (!synced.ok()) return plan.now + options_.retry_after;
  if (plan.min_ready > Duration::zero() && ready != available) {
    const TimePoint at = plan.now + plan.min_ready;
    recheck = recheck.has_value() ? std::min(*recheck, at) : at;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto e = expectations_.find(key);
    if (e != expectations_.end() && (e->second.adds > 0 || !e->second.deletes.empty())) {
      const TimePoint at = e->second.at + options_.expectations.get();
      recheck = recheck.has_value() ? std::min(*recheck, at) : at;
    }
  }
  return recheck;
}

}  // namespace tidepool::controllers::daemonset
