#include "controllers/replicaset/replicaset_controller.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "controllers/controller_ref.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::replicaset {
namespace {

using nlohmann::json;

constexpr char kDeletionCost[] = "controller.kubernetes.io/pod-deletion-cost";




PodFacts FactsOf(const json& pod) {
  const json& m = Meta(pod);
  PodFacts f;
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
  if (const std::string cost = Str(Member(Member(m, "annotations"), kDeletionCost)); !cost.empty()) {
    f.deletion_cost = std::atoi(cost.c_str());
  }
  f.node_name = Str(Member(Member(pod, "spec"), "nodeName"));
  const json& st = Member(pod, "status");
  f.phase = Str(Member(st, "phase"));
  if (const json& conds = Member(st, "conditions"); conds.is_array()) {
    for (const json& c : conds) {
      if (Str(Member(c, "type")) != "Ready") continue;
      f.ready = Str(Member(c, "status")) == "True";
      if (f.ready) f.ready_since = TimeOf(Member(c, "lastTransitionTime"));
    }
  }
  if (const json& cs = Member(st, "containerStatuses"); cs.is_array()) {
    for (const json& c : cs) {
      if (const json& r = Member(c, "restartCount"); r.is_number_integer()) {
        f.restarts = std::max(f.restarts, r.get<int32_t>());
      }
    }
  }
  return f;
}

int32_t Replicas(const json& rs) {
  const json& r = Member(Member(rs, "spec"), "replicas");
  return r.is_number_integer() ? r.get<int32_t>() : 1;
}

std::optional<api::LabelSelector> SelectorOf(const json& rs) {
  const json& sel = Member(Member(rs, "spec"), "selector");
  if (sel.is_null()) return std::nullopt;
  StatusOr<api::LabelSelector> s = api::codec::LabelSelectorFromJson(sel);
  if (!s.ok()) return std::nullopt;
  return *s;
}

json ControllerRef(const json& rs) {
  const json& m = Meta(rs);
  return {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", Member(m, "name")},
          {"uid", Member(m, "uid")},  {"controller", true},  {"blockOwnerDeletion", true}};
}

// controller.GetPodFromTemplate.
json PodFromTemplate(const json& rs) {
  const json& m = Meta(rs);
  const json& tmpl = Member(Member(rs, "spec"), "template");
  const json& tm = Meta(tmpl);
  json meta = {{"generateName", Str(Member(m, "name")) + "-"},
               {"namespace", Member(m, "namespace")},
               {"ownerReferences", json::array({ControllerRef(rs)})}};
  for (const char* k : {"labels", "annotations", "finalizers"}) {
    if (const json& v = Member(tm, k); !v.is_null()) meta[k] = v;
  }
  json spec = Member(tmpl, "spec");
  if (!spec.is_object()) spec = json::object();
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(meta)}, {"spec", std::move(spec)}};
}

json Condition(const std::string& reason, const std::string& message, TimePoint now) {
  return {{"type", "ReplicaFailure"}, {"status", "True"},
          {"lastTransitionTime", FormatRfc3339(now)}, {"reason", reason}, {"message", message}};
}

}  // namespace

ReplicaSetController::ReplicaSetController(const client::RestClient& client, const Clock& clock,
                                           ReplicaSetControllerOptions options,
                                           autoscaler::EventRecorder* recorder, log::Logger* logger,
                                           client::SharedInformerFactory* informers,
                                           TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  executor_ = executor;
  // The handlers keep PodFacts: the decoding informer of pods (shared with the other
  // controllers when they share a factory).
  const client::InformerOptions pods =
      client::DecodingInformerOptions("pods", "/api/v1/pods", options.seed);
  pods_ = client::MakeInformer(informers, client_, clock_, pods, logger);
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(nullptr, o); },
       [this](const client::ObjectRef& old_obj, const client::ObjectRef& o) { OnPod(old_obj, o); },
       [this](const client::ObjectRef& o, bool) { OnPodDeleted(o); }});
  client::InformerOptions rs;
  rs.path = "/apis/apps/v1/replicasets";
  rs.name = "replicasets";
  rs.seed = options.seed + 1;
  replicasets_ = client::MakeInformer(informers, client_, clock_, rs, logger);
  auto queue = [this](const client::ObjectRef& o) { queue_->Add(client::Informer::KeyOf(*o)); };
  replicasets_->AddEventHandlers(
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
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return Sync(key); }, [this] { return HasSynced(); },
      std::chrono::milliseconds(50), executor_);
}

ReplicaSetController::~ReplicaSetController() { Stop(); }

void ReplicaSetController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    pods_->Start();
    replicasets_->Start();
  }
  queue_->Start();
}

void ReplicaSetController::Stop() {
  queue_->Stop();
  client::StopAll({pods_.get(), replicasets_.get()});
}

bool ReplicaSetController::HasSynced() const {
  return pods_->HasSynced() && replicasets_->HasSynced();
}

void ReplicaSetController::OnPod(const client::ObjectRef& old_obj, const client::ObjectRef& obj) {
  auto made = std::make_shared<const PodFacts>(FactsOf(*obj));
  const PodFacts& facts = *made;
  PodFactsPtr before;
  const std::string key = Key(facts.ns, facts.name);
  {
    std::lock_guard<std::mutex> lock(mu_);
    before = pods_index_.Find(key);
    const bool seen_before = before != nullptr && old_obj != nullptr;
    if (!facts.controller_kind.empty() && facts.controller_kind == "ReplicaSet") {
      const std::string rs_key = Key(facts.ns, facts.controller_name);
      auto e = expectations_.find(rs_key);
      if (e != expectations_.end()) {
        if (!seen_before && e->second.adds > 0) --e->second.adds;  // creationObserved
        if (facts.deleting) e->second.deletes.erase(key);           // deletionObserved
      }
    }
    pods_index_.Put(key, made);
    if (before != nullptr) tallies_.Changed(before->controller_uid, key);
    tallies_.Changed(facts.controller_uid, key);
  }
  QueueFor(facts);
  if (before != nullptr &&
      (before->controller_uid != facts.controller_uid || before->labels != facts.labels)) {
    QueueFor(*before);
  }
}

void ReplicaSetController::OnPodDeleted(const client::ObjectRef& obj) {
  const std::string key = client::Informer::KeyOf(*obj);
  PodFactsPtr facts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    facts = pods_index_.Find(key);
    if (facts == nullptr) return;
    if (facts->controller_kind == "ReplicaSet") {
      auto e = expectations_.find(Key(facts->ns, facts->controller_name));
      if (e != expectations_.end()) e->second.deletes.erase(key);
    }
    pods_index_.Remove(key);
    tallies_.Changed(facts->controller_uid, key);
  }
  QueueFor(*facts);
}

void ReplicaSetController::QueueFor(const PodFacts& p) {
  if (!p.controller_uid.empty()) {
    if (p.controller_kind != "ReplicaSet") return;
    const std::string key = Key(p.ns, p.controller_name);
    client::ObjectRef rs = replicasets_->Get(key);
    if (rs != nullptr && Str(Member(Meta(*rs), "uid")) == p.controller_uid) queue_->Add(key);
    return;
  }
  if (p.deleting) return;
  for (const client::ObjectRef& rs : replicasets_->List()) {
    if (Str(Member(Meta(*rs), "namespace")) != p.ns) continue;
    std::optional<api::LabelSelector> sel = SelectorOf(*rs);
    if (sel.has_value() && !sel->Empty() && sel->Matches(p.labels)) {
      queue_->Add(client::Informer::KeyOf(*rs));
    }
  }
}

bool ReplicaSetController::Satisfied(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = expectations_.find(key);
  if (it == expectations_.end()) return true;
  if (it->second.adds <= 0 && it->second.deletes.empty()) return true;
  return clock_.Now() - it->second.at >= options_.expectations.get();
}

StatusOr<std::vector<PodFactsPtr>> ReplicaSetController::Claim(const json& rs,
                                                               const std::string& key,
                                                               const Tally::Params& params) {
  const json& m = Meta(rs);
  const std::string ns = Str(Member(m, "namespace"));
  const std::optional<api::LabelSelector>& sel = params.selector;
  const bool deleting = !Member(m, "deletionTimestamp").is_null();
  std::vector<PodFactsPtr> unmatched, orphans;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unmatched = tallies_.Refresh(key, params, pods_index_).Unmatched();
    if (!deleting && sel.has_value() && !sel->Empty()) {
      orphans = pods_index_.Orphans(
          ns, [&sel](const PodFacts& p) { return p.Active() && sel->Matches(p.labels); });
    }
  }
  const json ref = ControllerRef(rs);
  // kcm claims active pods only (FilterActivePods before claimPods). The owned ones the
  // selector matches are the tally's; those it does not are released.
  return ClaimPods(
      client_, ClaimOwnerOf(client_, rs, "replicasets", "ReplicaSet", ref), std::move(unmatched),
      [](const PodFactsPtr&) { return false; }, std::move(orphans));
}

void ReplicaSetController::Event(const json& rs, std::string_view type, std::string_view reason,
                                 std::string message) {
  if (recorder_ == nullptr) return;
  const json& m = Meta(rs);
  recorder_->Event({"ReplicaSet", Str(Member(m, "namespace")), Str(Member(m, "name")),
                    Str(Member(m, "uid"))},
                   type, reason, std::move(message));
}

Status ReplicaSetController::CreatePods(const json& rs, const std::string& key, int count) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    expectations_[key] = {count, {}, clock_.Now()};
  }
  const std::string ns = Str(Member(Meta(rs), "namespace"));
  const json pod = PodFromTemplate(rs);
  // slowStartBatch: 1, 2, 4, ... ; the first failure ends it.
  int remaining = count, batch = 1;
  Status failure;
  while (remaining > 0 && failure.ok()) {
    const int n = std::min(batch, remaining);
    for (int i = 0; i < n; ++i) {
      StatusOr<json> created = client_.Create(PodsPath(ns), pod);
      if (created.ok()) {
        Event(rs, "Normal", "SuccessfulCreate",
              "Created pod: " + Str(Member(Meta(*created), "name")));
        continue;
      }
      if (failure.ok()) failure = created.status();
      Event(rs, "Warning", "FailedCreate", "Error creating: " + std::string(created.status().message()));
    }
    remaining -= n;
    batch *= 2;
  }
  if (!failure.ok()) {
    // The pods never made and never to be observed: lower the expectations (kcm's skipped
    // and failed creations).
    std::lock_guard<std::mutex> lock(mu_);
    auto e = expectations_.find(key);
    if (e != expectations_.end()) e->second.adds = 0;
  }
  return failure;
}

Status ReplicaSetController::DeletePods(const json& rs, const std::string& key,
                                        const std::vector<PodFactsPtr>& active, int count) {
  // Related pods: those of every ReplicaSet with the same controller (a Deployment's), or
  // this one's, counted per node.
  const json& m = Meta(rs);
  const std::string ns = Str(Member(m, "namespace"));
  const json* owner = ControllerOf(rs);
  const std::string owner_uid = owner != nullptr ? Str(Member(*owner, "uid")) : "";
  std::map<std::string, int> per_node;
  {
    std::vector<std::string> related_uids = {Str(Member(m, "uid"))};
    if (!owner_uid.empty()) {
      related_uids.clear();
      for (const client::ObjectRef& other : replicasets_->List()) {
        const json& om = Meta(*other);
        if (Str(Member(om, "namespace")) != ns) continue;
        for (const json& o : Member(om, "ownerReferences")) {
          if (Str(Member(o, "uid")) == owner_uid) related_uids.push_back(Str(Member(om, "uid")));
        }
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& uid : related_uids) {
      pods_index_.ForEachControlled(uid, [&per_node](const PodFactsPtr& p) {
        if (p->Active() && !p->node_name.empty()) ++per_node[p->node_name];
      });
    }
  }
  std::vector<RankedPod> ranked;
  for (const PodFactsPtr& p : active) {
    auto it = per_node.find(p->node_name);
    ranked.push_back({p.get(), p->node_name.empty() || it == per_node.end() ? 0 : it->second});
  }
  SortForDeletion(ranked, clock_.Now());
  ranked.resize(std::min<size_t>(ranked.size(), static_cast<size_t>(count)));
  {
    std::lock_guard<std::mutex> lock(mu_);
    Expectations& e = expectations_[key];
    e = {0, {}, clock_.Now()};
    for (const RankedPod& r : ranked) e.deletes.insert(Key(ns, r.pod->name));
  }
  Status failure;
  for (const RankedPod& r : ranked) {
    Status s = client_.Delete(PodsPath(ns, r.pod->name)).status();
    if (s.ok() || s.code() == StatusCode::kNotFound) {
      if (s.ok()) Event(rs, "Normal", "SuccessfulDelete", "Deleted pod: " + r.pod->name);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        expectations_[key].deletes.erase(Key(ns, r.pod->name));
      }
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      expectations_[key].deletes.erase(Key(ns, r.pod->name));
    }
    if (failure.ok()) failure = s;
    Event(rs, "Warning", "FailedDelete", "Error deleting: " + std::string(s.message()));
  }
  return failure;
}

Status ReplicaSetController::Manage(const json& rs, const std::string& key, const std::string& uid,
                                    int32_t active, const std::vector<PodFactsPtr>& adopted,
                                    int32_t replicas) {
  const int diff = active - replicas;
  if (diff < 0) return CreatePods(rs, key, std::min(-diff, options_.burst_replicas));
  if (diff == 0) return Status();
  std::vector<PodFactsPtr> pods;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pods = tallies_.At(uid).Active();
  }
  pods.insert(pods.end(), adopted.begin(), adopted.end());  // active, as Claim adopts
  return DeletePods(rs, key, pods, std::min(diff, options_.burst_replicas));
}

std::optional<TimePoint> ReplicaSetController::Sync(const std::string& key) {
  const client::ObjectRef rs = replicasets_->Get(key);
  if (rs == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    expectations_.erase(key);
    tallies_.Forget(key);
    return std::nullopt;
  }
  const json& m = Meta(*rs);
  const std::string ns = Str(Member(m, "namespace")), name = Str(Member(m, "name"));
  const json& spec = Member(*rs, "spec");
  Tally::Params params;
  params.uid = Str(Member(m, "uid"));
  params.selector = SelectorOf(*rs);
  params.template_labels = LabelsOf(Member(Meta(Member(spec, "template")), "labels"));
  params.min_ready = std::chrono::seconds(Member(spec, "minReadySeconds").is_number_integer()
                                              ? spec["minReadySeconds"].get<int64_t>()
                                              : 0);
  const bool needs_sync = Satisfied(key);
  StatusOr<std::vector<PodFactsPtr>> adopted = Claim(*rs, key, params);
  if (!adopted.ok()) {
    if (log_ != nullptr && adopted.status().code() != StatusCode::kAborted) {
      log_->Warning("Failed to claim pods of ReplicaSet",
                    {{"replicaSet", key}, {"err", adopted.status().ToString()}});
    }
    return clock_.Now() + options_.retry_after;
  }
  int32_t active = 0;
  {
    // Claim adopts active pods only (kcm's FilterActivePods runs before claimPods).
    std::lock_guard<std::mutex> lock(mu_);
    active = tallies_.At(params.uid).replicas() + static_cast<int32_t>(adopted->size());
  }
  const int32_t replicas = Replicas(*rs);
  Status manage;
  bool managed = false;
  if (needs_sync && Member(m, "deletionTimestamp").is_null()) {
    manage = Manage(*rs, key, params.uid, active, *adopted, replicas);
    managed = true;
  }

  // calculateStatus: the tally's counts and the adopted pods'.
  const TimePoint now = clock_.Now();
  Tally::Counts counts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Tally& tally = tallies_.At(params.uid);
    counts = tally.CountsAt(now);
    for (const PodFactsPtr& p : *adopted) counts.Add(tally.CountsOf(*p, now));
  }
  const std::optional<TimePoint> recheck = counts.recheck;
  const json& old_status = Member(*rs, "status");
  json status = json::object();
  status["replicas"] = counts.replicas;
  if (counts.fully_labeled > 0) status["fullyLabeledReplicas"] = counts.fully_labeled;
  if (counts.ready > 0) status["readyReplicas"] = counts.ready;
  if (counts.available > 0) status["availableReplicas"] = counts.available;
  if (const json& g = Member(m, "generation"); g.is_number_integer()) status["observedGeneration"] = g;
  json conditions = json::array();
  for (const json& c : Member(old_status, "conditions")) {
    if (Str(Member(c, "type")) == "ReplicaFailure") {
      if (managed && !manage.ok()) conditions.push_back(c);
      else if (!managed) conditions.push_back(c);
    } else {
      conditions.push_back(c);
    }
  }
  if (managed && !manage.ok() && conditions.empty()) {
    const bool create = active < replicas;
    conditions.push_back(Condition(create ? "FailedCreate" : "FailedDelete", std::string(manage.message()), now));
  }
  if (!conditions.empty()) status["conditions"] = conditions;
  if (status != old_status) {
    json next = *rs;
    next["status"] = status;
    Status s = client_.UpdateUnread(
        client::ResourcePath("apps", "v1", "replicasets", ns, name, "status"), next);
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      if (log_ != nullptr && s.code() != StatusCode::kAborted) {
        log_->Warning("Failed to update ReplicaSet status", {{"replicaSet", key}, {"err", s.ToString()}});
      }
      return now + options_.retry_after;
    }
  }
  if (managed && !manage.ok()) return now + options_.retry_after;
  if (!needs_sync) {
    // Expectations expire: look again then.
    std::lock_guard<std::mutex> lock(mu_);
    auto e = expectations_.find(key);
    if (e != expectations_.end()) return e->second.at + options_.expectations.get();
  }
  return recheck;
}

}  // namespace tidepool::controllers::replicaset
