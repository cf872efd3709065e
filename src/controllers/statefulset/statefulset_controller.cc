#include "controllers/statefulset/statefulset_controller.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "controllers/controller_ref.h"
#include "controllers/history/controller_history.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::statefulset {
namespace {

using nlohmann::json;

constexpr char kPodNameLabel[] = "statefulset.kubernetes.io/pod-name";
constexpr char kPodIndexLabel[] = "apps.kubernetes.io/pod-index";
constexpr char kRevisionLabel[] = "controller-revision-hash";

int64_t Int(const json& v, int64_t def) { return v.is_number_integer() ? v.get<int64_t>() : def; }
const json& Spec(const json& obj) { return Member(obj, "spec"); }



SetPod PodOf(const json& pod) {
  const json& m = Meta(pod);
  SetPod p;
  p.ns = Str(Member(m, "namespace"));
  p.name = Str(Member(m, "name"));
  p.uid = Str(Member(m, "uid"));
  p.labels = LabelsOf(Member(m, "labels"));
  p.deleting = !Member(m, "deletionTimestamp").is_null();
  if (const json* o = ControllerOf(pod)) {
    p.controller_uid = Str(Member(*o, "uid"));
    p.controller_kind = Str(Member(*o, "kind"));
  }
  const json& st = Member(pod, "status");
  p.phase = Str(Member(st, "phase"));
  for (const json& c : Member(st, "conditions")) {
    if (Str(Member(c, "type")) != "Ready") continue;
    p.ready = Str(Member(c, "status")) == "True";
    if (p.ready) p.ready_since = TimeOf(Member(c, "lastTransitionTime"));
  }
  return p;
}

std::optional<api::LabelSelector> SelectorOf(const json& set) {
  const json& sel = Member(Spec(set), "selector");
  if (sel.is_null()) return std::nullopt;
  StatusOr<api::LabelSelector> s = api::codec::LabelSelectorFromJson(sel);
  if (!s.ok()) return std::nullopt;
  return *s;
}

json ControllerRef(const json& set) {
  const json& m = Meta(set);
  return {{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}, {"name", Member(m, "name")},
          {"uid", Member(m, "uid")},  {"controller", true},   {"blockOwnerDeletion", true}};
}

std::string ClaimsPath(const std::string& ns, const std::string& name = "") {
  return client::ResourcePath("", "v1", "persistentvolumeclaims", ns, name);
}

std::string ClaimName(const json& claim_template, const std::string& set, int ordinal) {
  return Str(Member(Meta(claim_template), "name")) + "-" + set + "-" + std::to_string(ordinal);
}

}  // namespace

std::string SetPod::Revision() const {
  auto it = labels.find(kRevisionLabel);
  return it == labels.end() ? std::string() : it->second;
}

bool SetPod::Available(Duration min_ready, TimePoint now) const {
  if (!RunningAndReady()) return false;
  if (min_ready <= Duration::zero()) return true;
  return ready_since.has_value() && *ready_since + min_ready <= now;
}

int OrdinalOf(const std::string& pod_name, const std::string& set_name) {
  // kcm's statefulPodRegex "(.*)-([0-9]+)$", the parent being the set's name.
  const size_t dash = pod_name.rfind('-');
  if (dash == std::string::npos || dash + 1 >= pod_name.size()) return -1;
  if (pod_name.compare(0, dash, set_name) != 0 || dash != set_name.size()) return -1;
  const std::string digits = pod_name.substr(dash + 1);
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return -1;
  }
  return std::stoi(digits);
}

// One sync of one StatefulSet: kcm's updateStatefulSet over the set's pods.
struct StatefulSetController::Sync {
  StatefulSetController& c;
  const json& set;
  std::string ns, name;
  int start = 0, replicas = 0;
  bool monotonic = true;
  Duration min_ready{};
  TimePoint now;
  std::string current_revision, update_revision;
  json current_template, update_template;
  // Ordinal start..start+replicas-1; nullopt: not made yet.
  std::vector<std::optional<SetPod>> members;
  std::vector<SetPod> condemned;  // descending ordinal
  std::optional<TimePoint> next;  // when to look again

  void Event(std::string_view type, std::string_view reason, std::string message) {
    if (c.recorder_ == nullptr) return;
    const json& m = Meta(set);
    c.recorder_->Event({"StatefulSet", ns, name, Str(Member(m, "uid"))}, type, reason,
                       std::move(message));
  }
  void PodEvent(const std::string& verb, const std::string& pod, const Status& s) {
    std::string Verb = verb;
    Verb[0] = static_cast<char>(std::toupper(Verb[0]));
    if (s.ok()) {
      Event("Normal", "Successful" + Verb, verb + " Pod " + pod + " in StatefulSet " + name + " successful");
    } else {
      Event("Warning", "Failed" + Verb,
            verb + " Pod " + pod + " in StatefulSet " + name + " failed error: " + std::string(s.message()));
    }
  }
  void Recheck(TimePoint at) { next = next.has_value() ? std::min(*next, at) : at; }
  bool Available(const std::optional<SetPod>& p) {
    if (!p.has_value()) return false;
    if (p->RunningAndReady() && !p->Available(min_ready, now) && p->ready_since.has_value()) {
      Recheck(*p->ready_since + min_ready);
    }
    return p->Available(min_ready, now);
  }

  const json& ClaimTemplates() { return Member(Spec(set), "volumeClaimTemplates"); }
  std::string RetentionPolicy(const char* when) {
    const std::string v = Str(Member(Member(Spec(set), "persistentVolumeClaimRetentionPolicy"), when));
    return v.empty() ? "Retain" : v;
  }

  // kcm's newVersionedStatefulSetPod.
  json NewPod(int ordinal) {
    const json& strategy = Member(Spec(set), "updateStrategy");
    const bool rolling = Str(Member(strategy, "type")) != "OnDelete";
    const int partition = static_cast<int>(Int(Member(Member(strategy, "rollingUpdate"), "partition"), 0));
    const bool at_current = rolling && ordinal < start + partition;
    const json& tmpl = at_current ? current_template : update_template;
    const std::string& revision = at_current ? current_revision : update_revision;
    const std::string pod_name = name + "-" + std::to_string(ordinal);
    json meta = {{"name", pod_name}, {"namespace", ns}, {"ownerReferences", json::array({ControllerRef(set)})}};
    for (const char* k : {"labels", "annotations", "finalizers"}) {
      if (const json& v = Member(Meta(tmpl), k); !v.is_null()) meta[k] = v;
    }
    if (!meta["labels"].is_object()) meta["labels"] = json::object();
    meta["labels"][kPodNameLabel] = pod_name;
    meta["labels"][kPodIndexLabel] = std::to_string(ordinal);
    meta["labels"][kRevisionLabel] = revision;
    json spec = Member(tmpl, "spec");
    if (!spec.is_object()) spec = json::object();
    // updateStorage: a volume per claim template, replacing the template's of that name.
    const json& claims = ClaimTemplates();
    if (claims.is_array() && !claims.empty()) {
      json volumes = json::array();
      std::set<std::string> claimed;
      for (const json& ct : claims) {
        const std::string vol = Str(Member(Meta(ct), "name"));
        claimed.insert(vol);
        volumes.push_back({{"name", vol},
                           {"persistentVolumeClaim", {{"claimName", ClaimName(ct, name, ordinal)}}}});
      }
      for (const json& v : Member(spec, "volumes")) {
        if (!claimed.count(Str(Member(v, "name")))) volumes.push_back(v);
      }
      spec["volumes"] = std::move(volumes);
    }
    spec["hostname"] = pod_name;
    if (const std::string svc = Str(Member(Spec(set), "serviceName")); !svc.empty()) spec["subdomain"] = svc;
    return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(meta)}, {"spec", std::move(spec)}};
  }

  // createPersistentVolumeClaims: the pod's missing claims.
  Status CreateClaims(const std::string& pod_name, int ordinal) {
    Status failure;
    for (const json& ct : ClaimTemplates()) {
      const std::string claim_name = ClaimName(ct, name, ordinal);
      StatusOr<json> existing = c.client_.Get(ClaimsPath(ns, claim_name));
      if (existing.ok()) continue;
      Status s = existing.status();
      if (s.code() == StatusCode::kNotFound) {
        json claim = {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}};
        json meta = {{"name", claim_name}, {"namespace", ns}};
        json labels = Member(Meta(ct), "labels");
        if (!labels.is_object()) labels = json::object();
        for (const auto& [k, v] : Member(Member(Spec(set), "selector"), "matchLabels").items()) labels[k] = v;
        meta["labels"] = labels;
        if (const json& a = Member(Meta(ct), "annotations"); a.is_object()) meta["annotations"] = a;
        if (json refs = ClaimRefs(json::array(), nullptr); !refs.empty()) meta["ownerReferences"] = refs;
        claim["metadata"] = std::move(meta);
        claim["spec"] = Member(ct, "spec").is_object() ? Spec(ct) : json::object();
        s = c.client_.Create(ClaimsPath(ns), claim).status();
        if (s.code() == StatusCode::kAlreadyExists) continue;
        if (s.ok()) {
          Event("Normal", "SuccessfulCreate",
                "create Claim " + claim_name + " Pod " + pod_name + " in StatefulSet " + name + " success");
          continue;
        }
        s = Status(s.code(), "Failed to create PVC " + claim_name + ": " + std::string(s.message()));
      } else {
        s = Status(s.code(), "Failed to retrieve PVC " + claim_name + ": " + std::string(s.message()));
      }
      Event("Warning", "FailedCreate",
            "create Claim " + claim_name + " for Pod " + pod_name + " in StatefulSet " + name +
                " failed error: " + std::string(s.message()));
      if (failure.ok()) failure = s;
    }
    return failure;
  }

  Status CreatePod(int ordinal) {
    const std::string pod_name = name + "-" + std::to_string(ordinal);
    if (Status s = CreateClaims(pod_name, ordinal); !s.ok()) {
      PodEvent("create", pod_name, s);
      return s;
    }
    StatusOr<json> created = c.client_.Create(PodsPath(ns), NewPod(ordinal));
    if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists) return created.status();
    PodEvent("create", pod_name, created.status());
    if (created.ok()) {
      // Seen now, so the next sync does not make it again; never over what the informer
      // already delivered (it may be newer: Ready already).
      SetPod pod = PodOf(*created);
      std::lock_guard<std::mutex> lock(c.mu_);
      if (!c.pods_by_key_.count(Key(ns, pod_name))) c.Index(std::move(pod));
    }
    return created.status();
  }

  Status DeletePod(const SetPod& p) {
    Status s = c.client_.Delete(PodsPath(ns, p.name)).status();
    PodEvent("delete", p.name, s);
    if (s.ok()) {
      std::lock_guard<std::mutex> lock(c.mu_);
      auto it = c.pods_by_key_.find(Key(ns, p.name));
      if (it != c.pods_by_key_.end()) it->second.deleting = true;
    }
    return s;
  }

  // updateClaimOwnerRefForSetAndPod: `refs` without the set's and `scaled_down`'s, then the
  // controller references the retention policy asks for - the set's while the claim's pod is in
  // range and whenDeleted is Delete, the condemned pod's when whenScaled is Delete.
  json ClaimRefs(const json& refs, const SetPod* scaled_down) {
    const std::string set_uid = Str(Member(Meta(set), "uid"));
    json out = json::array();
    for (const json& r : refs) {
      const std::string uid = Str(Member(r, "uid"));
      if (uid == set_uid || (scaled_down != nullptr && uid == scaled_down->uid)) continue;
      out.push_back(r);
    }
    const bool scaled = RetentionPolicy("whenScaled") == "Delete";
    const bool deleted = RetentionPolicy("whenDeleted") == "Delete";
    if (scaled && scaled_down != nullptr) {
      out.push_back({{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", scaled_down->name},
                     {"uid", scaled_down->uid}, {"controller", true}, {"blockOwnerDeletion", true}});
    } else if (deleted && (scaled_down == nullptr || !scaled)) {
      out.push_back(ControllerRef(set));
    }
    return out;
  }

  // A condemned pod's claims, their ownerReferences as the retention policy says
  // (ClaimsMatchRetentionPolicy / UpdatePodClaimForRetentionPolicy).
  Status FixCondemnedClaims(const SetPod& p) {
    if (p.uid.empty()) return Status();
    const int ordinal = OrdinalOf(p.name, name);
    for (const json& ct : ClaimTemplates()) {
      const std::string claim_name = ClaimName(ct, name, ordinal);
      StatusOr<json> claim = c.client_.Get(ClaimsPath(ns, claim_name));
      if (!claim.ok()) {
        if (claim.status().code() == StatusCode::kNotFound) continue;
        return claim.status();
      }
      json refs = Member(Meta(*claim), "ownerReferences");
      if (!refs.is_array()) refs = json::array();
      json want = ClaimRefs(refs, &p);
      if (want == refs) continue;
      json patch = {{"metadata", {{"ownerReferences", want.empty() ? json(nullptr) : want}}}};
      if (Status s = c.client_.Patch(ClaimsPath(ns, claim_name), client::PatchType::kMerge, patch).status();
          !s.ok()) {
        return s;
      }
    }
    return Status();
  }

  // processReplica; true: stop here (monotonic) or wait.
  bool ProcessReplica(size_t i, Status& err) {
    const int ordinal = start + static_cast<int>(i);
    std::optional<SetPod>& p = members[i];
    if (p.has_value() && (p->phase == "Failed" || p->phase == "Succeeded")) {
      if (!p->deleting) err = DeletePod(*p);
      return true;
    }
    if (!p.has_value()) {
      err = CreatePod(ordinal);
      if (!err.ok() || monotonic) return true;
      return false;
    }
    if (p->deleting && monotonic) return true;
    if (!p->RunningAndReady() && monotonic) return true;
    if (!Available(p) && monotonic) return true;
    return false;
  }

  void Run(Status& err) {
    // processReplica over the members.
    if (monotonic) {
      for (size_t i = 0; i < members.size(); ++i) {
        if (ProcessReplica(i, err)) return;
      }
    } else {
      // slowStartBatch(1, ...): a batch with a failure ends it.
      size_t i = 0;
      for (size_t batch = 1; i < members.size() && err.ok(); batch = std::min<size_t>(batch * 2, 500)) {
        for (size_t end = std::min(members.size(), i + batch); i < end; ++i) {
          Status s;
          ProcessReplica(i, s);
          if (!s.ok() && s.code() != StatusCode::kAlreadyExists && err.ok()) err = s;
        }
      }
      if (!err.ok()) return;
    }
    // The first unhealthy pod: members in order, then condemned from the lowest ordinal.
    std::optional<std::string> first_unhealthy;
    for (const auto& p : members) {
      if (!Available(p)) {
        first_unhealthy = p.has_value() ? p->name : std::string();
        break;
      }
    }
    if (!first_unhealthy.has_value()) {
      for (auto it = condemned.rbegin(); it != condemned.rend(); ++it) {
        if (!Available(*it)) {
          first_unhealthy = it->name;
          break;
        }
      }
    }
    // Claims of the condemned, then the condemned themselves (processCondemned).
    for (const SetPod& p : condemned) {
      if (Status s = FixCondemnedClaims(p); !s.ok()) {
        err = s;
        return;
      }
    }
    for (const SetPod& p : condemned) {
      if (p.deleting) {
        if (monotonic) return;
        continue;
      }
      if (monotonic && !Available(p) && (!first_unhealthy.has_value() || *first_unhealthy != p.name)) return;
      Status s = DeletePod(p);
      if (monotonic) {
        if (!s.ok()) err = s;
        return;
      }
      if (!s.ok() && err.ok()) err = s;
    }
    if (!err.ok()) return;
    const json& strategy = Member(Spec(set), "updateStrategy");
    if (Str(Member(strategy, "type")) == "OnDelete") return;
    // RollingUpdate: from the highest ordinal down to the partition, one pod at a time.
    const int partition = static_cast<int>(Int(Member(Member(strategy, "rollingUpdate"), "partition"), 0));
    for (int target = static_cast<int>(members.size()) - 1; target >= partition; --target) {
      const std::optional<SetPod>& p = members[target];
      if (!p.has_value()) return;
      if (p->Revision() != update_revision && !p->deleting) {
        Status s = DeletePod(*p);
        if (!s.ok() && s.code() != StatusCode::kNotFound) err = s;
        return;
      }
      if (!Available(p)) return;
    }
  }
};

StatefulSetController::StatefulSetController(const client::RestClient& client, const Clock& clock,
                                             StatefulSetControllerOptions options,
                                             autoscaler::EventRecorder* recorder,
                                             log::Logger* logger,
                                             client::SharedInformerFactory* informers,
                                             TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  executor_ = executor;
  // The handlers keep SetPods: the decoding informer of pods (shared with the other
  // controllers when they share a factory).
  const client::InformerOptions pods =
      client::DecodingInformerOptions("pods", "/api/v1/pods", options.seed);
  pods_ = client::MakeInformer(informers, client_, clock_, pods, logger);
  pods_->AddEventHandlers({[this](const client::ObjectRef& o, bool) { OnPod(o); },
                           [this](const client::ObjectRef&, const client::ObjectRef& o) { OnPod(o); },
                           [this](const client::ObjectRef& o, bool) { OnPodDeleted(o); }});
  client::InformerOptions sets;
  sets.path = "/apis/apps/v1/statefulsets";
  sets.name = "statefulsets";
  sets.seed = options.seed + 1;
  sets_ = client::MakeInformer(informers, client_, clock_, sets, logger);
  auto queue = [this](const client::ObjectRef& o) { queue_->Add(client::Informer::KeyOf(*o)); };
  sets_->AddEventHandlers(
      {[queue](const client::ObjectRef& o, bool) { queue(o); },
       [queue](const client::ObjectRef&, const client::ObjectRef& o) { queue(o); },
       [queue](const client::ObjectRef& o, bool) { queue(o); }});
  // kcm's StatefulSet controller lists revisions and registers no handlers on them.
  history_ = std::make_unique<history::History>(client_, clock_, informers, options.seed + 2,
                                                logger, nullptr);
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return SyncSet(key); },
      [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor_);
}

StatefulSetController::~StatefulSetController() { Stop(); }

void StatefulSetController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    pods_->Start();
    sets_->Start();
    history_->informer().Start();
  }
  queue_->Start();
}

void StatefulSetController::Stop() {
  queue_->Stop();
  client::StopAll({pods_.get(), sets_.get(), &history_->informer()});
}

bool StatefulSetController::HasSynced() const {
  return pods_->HasSynced() && sets_->HasSynced() && history_->informer().HasSynced();
}

void StatefulSetController::Index(SetPod pod) {
  const std::string key = Key(pod.ns, pod.name);
  Unindex(key);
  if (pod.controller_uid.empty()) {
    orphans_[pod.ns].insert(key);
  } else {
    by_controller_[pod.controller_uid].insert(key);
  }
  pods_by_key_[key] = std::move(pod);
}

void StatefulSetController::Unindex(const std::string& key) {
  auto it = pods_by_key_.find(key);
  if (it == pods_by_key_.end()) return;
  const SetPod& p = it->second;
  const bool orphan = p.controller_uid.empty();
  auto index = orphan ? orphans_.find(p.ns) : by_controller_.find(p.controller_uid);
  auto& map = orphan ? orphans_ : by_controller_;
  if (index != map.end()) {
    index->second.erase(key);
    if (index->second.empty()) map.erase(index);
  }
  pods_by_key_.erase(it);
}

void StatefulSetController::OnPod(const client::ObjectRef& obj) {
  SetPod pod = PodOf(*obj);
  std::optional<SetPod> before;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = Key(pod.ns, pod.name);
    if (auto it = pods_by_key_.find(key); it != pods_by_key_.end()) before = it->second;
    Index(pod);
  }
  QueueFor(pod);
  if (before.has_value() && before->controller_uid != pod.controller_uid) QueueFor(*before);
}

void StatefulSetController::OnPodDeleted(const client::ObjectRef& obj) {
  const std::string key = client::Informer::KeyOf(*obj);
  std::optional<SetPod> pod;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_by_key_.find(key);
    if (it == pods_by_key_.end()) return;
    pod = it->second;
    Unindex(key);
  }
  QueueFor(*pod);
}

void StatefulSetController::QueueFor(const SetPod& p) {
  if (!p.controller_uid.empty() && p.controller_kind != "StatefulSet") return;  // a ReplicaSet's, a Job's
  for (const client::ObjectRef& set : sets_->List()) {
    const json& m = Meta(*set);
    if (Str(Member(m, "namespace")) != p.ns) continue;
    if (!p.controller_uid.empty()) {
      if (Str(Member(m, "uid")) == p.controller_uid) queue_->Add(client::Informer::KeyOf(*set));
      continue;
    }
    if (p.deleting) continue;
    std::optional<api::LabelSelector> sel = SelectorOf(*set);
    if (sel.has_value() && !sel->Empty() && sel->Matches(p.labels)) queue_->Add(client::Informer::KeyOf(*set));
  }
}

StatusOr<std::vector<SetPod>> StatefulSetController::PodsOf(const json& set) {
  const json& m = Meta(set);
  const std::string ns = Str(Member(m, "namespace")), uid = Str(Member(m, "uid")),
                    name = Str(Member(m, "name"));
  std::optional<api::LabelSelector> sel = SelectorOf(set);
  const bool deleting = !Member(m, "deletionTimestamp").is_null();
  // kcm's isMemberOf with the selector: the match of its ClaimPods.
  const auto member = [&](const SetPod& p) {
    return sel.has_value() && !sel->Empty() && sel->Matches(p.labels) &&
           OrdinalOf(p.name, name) >= 0;
  };
  std::vector<SetPod> owned, orphans;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_controller_.find(uid); it != by_controller_.end()) {
      for (const std::string& k : it->second) owned.push_back(pods_by_key_.at(k));
    }
    if (auto it = orphans_.find(ns); it != orphans_.end() && !deleting) {
      for (const std::string& k : it->second) {
        const SetPod& p = pods_by_key_.at(k);
        if (!p.deleting && member(p)) orphans.push_back(p);
      }
    }
  }
  // No usable selector: nothing is adopted or released (kcm's sync stops at the selector).
  if (!sel.has_value() || sel->Empty()) return owned;
  const json ref = ControllerRef(set);
  return ClaimPods(client_, ClaimOwnerOf(client_, set, "statefulsets", "StatefulSet", ref),
                   std::move(owned), member, std::move(orphans));
}

StatusOr<json> StatefulSetController::Revisions(const json& set,
                                                const std::vector<client::ObjectRef>& revisions,
                                                int32_t* collisions) {
  const int64_t next = revisions.empty() ? 1 : history::RevisionOf(*revisions.back()) + 1;
  json update = history::NewRevision(set, ControllerRef(set),
                                     Member(Meta(Member(Spec(set), "template")), "labels"),
                                     history::TemplatePatch(set), next, *collisions);
  // newRevision: the set's annotations too (kubectl's change-cause among them).
  if (const json& a = Member(Meta(set), "annotations"); a.is_object())
    update["metadata"]["annotations"] = a;
  const json* equal = nullptr;  // the last revision equal to the update
  for (const client::ObjectRef& cr : revisions) {
    if (history::EqualRevision(*cr, update)) equal = cr.get();
  }
  // The newest revision is it: unchanged. An older one: rolled back to, renumbered newest.
  if (equal != nullptr && equal == revisions.back().get()) return *equal;
  if (equal != nullptr) return history_->UpdateRevision(*equal, next);
  return history_->Create(set, update, collisions);
}

// kcm's truncateHistory: of the revisions neither current, nor update, nor any pod's, those
// beyond spec.revisionHistoryLimit go, oldest first.
Status StatefulSetController::TruncateHistory(const json& set,
                                              const std::vector<client::ObjectRef>& revisions,
                                              const std::set<std::string>& live) {
  std::vector<const json*> old;
  for (const client::ObjectRef& cr : revisions) {
    if (!live.count(Str(Member(Meta(*cr), "name")))) old.push_back(cr.get());
  }
  const int64_t limit = Int(Member(Spec(set), "revisionHistoryLimit"), 10);
  // The oldest go (all of them when a limit below 0 slipped past validation).
  const int64_t size = static_cast<int64_t>(old.size());
  const int64_t excess = std::min(size, size - limit);
  for (int64_t i = 0; i < excess; ++i) TIDEPOOL_RETURN_IF_ERROR(history_->Delete(*old[i]));
  return OkStatus();
}

std::optional<TimePoint> StatefulSetController::SyncSet(const std::string& key) {
  const client::ObjectRef obj = sets_->Get(key);
  if (obj == nullptr) return std::nullopt;
  const json& set = *obj;
  const json& m = Meta(set);
  const json& spec = Spec(set);
  const json& old_status = Member(set, "status");
  Sync s{*this, set};
  s.ns = Str(Member(m, "namespace"));
  s.name = Str(Member(m, "name"));
  s.start = static_cast<int>(Int(Member(Member(spec, "ordinals"), "start"), 0));
  s.replicas = static_cast<int>(Int(Member(spec, "replicas"), 1));
  s.monotonic = Str(Member(spec, "podManagementPolicy")) != "Parallel";
  s.min_ready = std::chrono::seconds(Int(Member(spec, "minReadySeconds"), 0));
  s.now = clock_.Now();

  // Revisions: kcm's getStatefulSetRevisions over the set's ControllerRevisions.
  int32_t collisions = static_cast<int32_t>(Int(Member(old_status, "collisionCount"), 0));
  StatusOr<std::vector<SetPod>> claimed = PodsOf(set);
  if (!claimed.ok()) {
    if (log_ != nullptr && claimed.status().code() != StatusCode::kAborted) {
      log_->Warning("Failed to claim pods of StatefulSet",
                    {{"statefulSet", key}, {"err", claimed.status().ToString()}});
    }
    return s.now + options_.retry_after;
  }
  std::vector<SetPod> pods = *std::move(claimed);
  std::vector<client::ObjectRef> revisions;
  if (std::optional<api::LabelSelector> sel = SelectorOf(set); sel.has_value() && !sel->Empty()) {
    StatusOr<std::vector<client::ObjectRef>> controlled =
        history_->Controlled(set, *sel, ControllerRef(set), [&] {
          return RecheckDeletionTimestamp(
              client_, client::ResourcePath("apps", "v1", "statefulsets", s.ns, s.name),
              Str(Member(m, "uid")), "StatefulSet");
        });
    if (!controlled.ok()) {
      if (log_ != nullptr && controlled.status().code() != StatusCode::kAborted) {
        log_->Warning("Failed to claim revisions of StatefulSet",
                      {{"statefulSet", key}, {"err", controlled.status().ToString()}});
      }
      return s.now + options_.retry_after;
    }
    revisions = *std::move(controlled);
  }
  history::SortByRevision(&revisions);
  StatusOr<json> update = Revisions(set, revisions, &collisions);
  if (!update.ok()) {
    if (log_ != nullptr && update.status().code() != StatusCode::kAborted) {
      log_->Warning("Failed to construct revisions of StatefulSet",
                    {{"statefulSet", key}, {"err", update.status().ToString()}});
    }
    return s.now + options_.retry_after;
  }
  s.update_revision = Str(Member(Meta(*update), "name"));
  s.update_template = history::TemplateOf(*update);
  if (s.update_template.is_null()) s.update_template = Member(spec, "template");
  const json* current_cr = &*update;
  for (const client::ObjectRef& cr : revisions) {
    if (Str(Member(Meta(*cr), "name")) == Str(Member(old_status, "currentRevision")))
      current_cr = cr.get();
  }
  s.current_revision = Str(Member(Meta(*current_cr), "name"));
  s.current_template = history::TemplateOf(*current_cr);
  if (s.current_template.is_null()) s.current_template = s.update_template;
  const std::string set_uid = Str(Member(m, "uid"));
  std::set<std::string> live = {s.current_revision, s.update_revision};
  for (const SetPod& p : pods) live.insert(p.Revision());

  // Members by ordinal, and the condemned (descending).
  s.members.assign(static_cast<size_t>(std::max(0, s.replicas)), std::nullopt);
  for (SetPod& p : pods) {
    const int ord = OrdinalOf(p.name, s.name);
    if (ord < 0) continue;
    if (ord >= s.start && ord < s.start + s.replicas) {
      s.members[ord - s.start] = std::move(p);
    } else {
      s.condemned.push_back(std::move(p));
    }
  }
  std::sort(s.condemned.begin(), s.condemned.end(), [&](const SetPod& a, const SetPod& b) {
    return OrdinalOf(a.name, s.name) > OrdinalOf(b.name, s.name);
  });

  Status err;
  if (Member(m, "deletionTimestamp").is_null()) s.Run(err);
  if (Status t = TruncateHistory(set, revisions, live); err.ok()) err = t;

  // Status over the pods as they are now (the index holds this sync's own writes).
  int32_t replicas = 0, ready = 0, available = 0, current = 0, updated = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_controller_.find(set_uid); it != by_controller_.end()) {
      for (const std::string& k : it->second) {
        const SetPod& p = pods_by_key_.at(k);
        if (OrdinalOf(p.name, s.name) < 0) continue;
        ++replicas;
        if (p.RunningAndReady()) {
          ++ready;
          if (p.Available(s.min_ready, s.now)) available++;
        }
        if (!p.deleting) {
          if (p.Revision() == s.current_revision) ++current;
          if (p.Revision() == s.update_revision) ++updated;
        }
      }
    }
  }
  // completeRollingUpdate.
  const bool rolling = Str(Member(Member(spec, "updateStrategy"), "type")) != "OnDelete";
  if (rolling && updated == s.replicas && ready == s.replicas && replicas == s.replicas) {
    current = updated;
    s.current_revision = s.update_revision;
  }
  json status = json::object();
  if (const json& g = Member(m, "generation"); g.is_number_integer()) status["observedGeneration"] = g;
  status["replicas"] = replicas;
  if (ready > 0) status["readyReplicas"] = ready;
  if (current > 0) status["currentReplicas"] = current;
  if (updated > 0) status["updatedReplicas"] = updated;
  status["currentRevision"] = s.current_revision;
  status["updateRevision"] = s.update_revision;
  status["collisionCount"] = collisions;
  status["availableReplicas"] = available;
  if (const json& conds = Member(old_status, "conditions"); conds.is_array()) status["conditions"] = conds;
  if (status != old_status) {
    json next = set;
    next["status"] = status;
    Status st = client_.UpdateUnread(
        client::ResourcePath("apps", "v1", "statefulsets", s.ns, s.name, "status"), next);
    if (!st.ok() && st.code() != StatusCode::kNotFound) {
      if (log_ != nullptr && st.code() != StatusCode::kAborted) {
        log_->Warning("Failed to update StatefulSet status", {{"statefulSet", key}, {"err", st.ToString()}});
      }
      return s.now + options_.retry_after;
    }
  }
  if (!err.ok() && err.code() != StatusCode::kAlreadyExists) return s.now + options_.retry_after;
  // minReadySeconds: look again when a Ready pod becomes available.
  if (s.min_ready > Duration::zero() && ready != available) s.Recheck(s.now + s.min_ready);
  return s.next;
}

}  // namespace tidepool::controllers::statefulset
