#include "controllers/deployment/deployment_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "controllers/controller_ref.h"
#include "controllers/deployment/rollout.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::deployment {
namespace {

using nlohmann::json;

constexpr char kRevision[] = "deployment.kubernetes.io/revision";
constexpr char kRevisionHistory[] = "deployment.kubernetes.io/revision-history";
constexpr char kDesiredReplicas[] = "deployment.kubernetes.io/desired-replicas";
constexpr char kMaxReplicas[] = "deployment.kubernetes.io/max-replicas";
constexpr char kHashLabel[] = "pod-template-hash";

int32_t Int(const json& v, int32_t def = 0) { return v.is_number_integer() ? v.get<int32_t>() : def; }
const json& Spec(const json& o) { return Member(o, "spec"); }
const json& StatusOf(const json& o) { return Member(o, "status"); }
int32_t SpecReplicas(const json& o) { return Int(Member(Spec(o), "replicas"), 1); }

std::string ControllerUid(const json& obj) {
  const json* o = ControllerOf(obj);
  return o != nullptr ? Str(Member(*o, "uid")) : "";
}

// copyDeploymentAnnotationsToReplicaSet: the Deployment's annotations onto a ReplicaSet's
// (`rs_ann`, an object), but kubectl's last-applied and the deployment.kubernetes.io ones; none
// is removed. Whether one was added or changed.
bool CopyDeploymentAnnotations(const json& deployment_ann, json& rs_ann) {
  bool changed = false;
  if (!deployment_ann.is_object()) return false;
  for (const auto& [k, v] : deployment_ann.items()) {
    if (k == "kubectl.kubernetes.io/last-applied-configuration" || k == kRevision ||
        k == kRevisionHistory || k == kDesiredReplicas || k == kMaxReplicas ||
        k == "deprecated.deployment.rollback.to") {
      continue;
    }
    if (rs_ann.contains(k) && rs_ann[k] == v) continue;
    rs_ann[k] = v;
    changed = true;
  }
  return changed;
}

int64_t Revision(const json& rs) {
  const std::string r = Str(Member(Member(Meta(rs), "annotations"), kRevision));
  return r.empty() ? 0 : std::atoll(r.c_str());
}

int64_t CreatedSeconds(const json& obj) {
  StatusOr<TimePoint> t = ParseRfc3339(Str(Member(Meta(obj), "creationTimestamp")));
  if (!t.ok()) return 0;
  return std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
}

// The template as compared: without pod-template-hash and creationTimestamp.
json Normalized(json tmpl) {
  if (!tmpl.is_object()) return json::object();
  if (auto m = tmpl.find("metadata"); m != tmpl.end() && m->is_object()) {
    m->erase("creationTimestamp");
    if (auto l = m->find("labels"); l != m->end() && l->is_object()) {
      l->erase(kHashLabel);
      if (l->empty()) m->erase("labels");
    }
    if (m->empty()) tmpl.erase("metadata");
  }
  return tmpl;
}

bool EqualIgnoreHash(const json& a, const json& b) { return Normalized(a) == Normalized(b); }

std::string DeploymentsPath(const std::string& ns, const std::string& name = "",
                            const std::string& sub = "") {
  return client::ResourcePath("apps", "v1", "deployments", ns, name, sub);
}
std::string ReplicaSetsPath(const std::string& ns, const std::string& name = "") {
  return client::ResourcePath("apps", "v1", "replicasets", ns, name);
}

json Condition(const std::string& type, const std::string& status, const std::string& reason,
               const std::string& message, TimePoint now) {
  const std::string t = FormatRfc3339(now);
  return {{"type", type},     {"status", status},   {"lastUpdateTime", t},
          {"lastTransitionTime", t}, {"reason", reason}, {"message", message}};
}

const json* FindCondition(const json& status, const std::string& type) {
  for (const json& c : Member(status, "conditions")) {
    if (Str(Member(c, "type")) == type) return &c;
  }
  return nullptr;
}

void RemoveCondition(json& status, const std::string& type) {
  if (!status.contains("conditions")) return;
  json kept = json::array();
  for (const json& c : status["conditions"]) {
    if (Str(Member(c, "type")) != type) kept.push_back(c);
  }
  if (kept.empty()) {
    status.erase("conditions");
  } else {
    status["conditions"] = std::move(kept);
  }
}

// SetDeploymentCondition: the same status and reason changes nothing; the same status keeps
// lastTransitionTime; the condition moves to the end.
void SetCondition(json& status, json cond) {
  const std::string type = Str(cond["type"]);
  if (const json* cur = FindCondition(status, type)) {
    if (Member(*cur, "status") == cond["status"] && Member(*cur, "reason") == cond["reason"]) return;
    if (Member(*cur, "status") == cond["status"]) cond["lastTransitionTime"] = Member(*cur, "lastTransitionTime");
  }
  RemoveCondition(status, type);
  status["conditions"].push_back(std::move(cond));
}

void SetOrErase(json& obj, const char* key, int64_t v) {
  if (v != 0) {
    obj[key] = v;
  } else {
    obj.erase(key);
  }
}

}  // namespace

// One sync of one Deployment (kcm's syncDeployment and what it calls).
class DeploymentController::Sync {
 public:
  Sync(DeploymentController& c, json d) : c_(c), d_(std::move(d)) {
    const json& m = Meta(d_);
    ns_ = Str(Member(m, "namespace"));
    name_ = Str(Member(m, "name"));
    uid_ = Str(Member(m, "uid"));
    replicas_ = SpecReplicas(d_);
    recreate_ = Str(Member(Member(Spec(d_), "strategy"), "type")) == "Recreate";
    fence_ = recreate_ ? Fenceposts{0, 0}
                       : ResolveFenceposts(Member(Member(Spec(d_), "strategy"), "rollingUpdate"), replicas_);
    status_ = StatusOf(d_).is_object() ? StatusOf(d_) : json::object();
  }

  std::optional<TimePoint> Run();

 private:
  Status Claim();
  // RecheckDeletionTimestamp of the Deployment (controller_ref.h; see the callers).
  Status Recheck();
  Status EnsureNewReplicaSet(bool create);
  Status CreateNewReplicaSet();
  Status ScaleReplicaSet(json& rs, int32_t to);
  Status Rolling();
  Status RecreateRollout();
  Status ScaleOnly();
  Status Cleanup();
  Status WriteRevisionAnnotation();
  // calculateStatus (+ syncRolloutStatus's Progressing when `rollout`), written if changed.
  std::optional<TimePoint> WriteStatus(bool rollout);
  bool Complete(const json& st) const;
  void Event(std::string_view type, std::string_view reason, std::string message) {
    if (c_.recorder_ != nullptr) {
      c_.recorder_->Event({"Deployment", ns_, name_, uid_}, type, reason, std::move(message));
    }
  }
  RsState StateOf(const json& rs) const {
    RsState s;
    s.name = Str(Member(Meta(rs), "name"));
    s.spec_replicas = SpecReplicas(rs);
    s.status_replicas = Int(Member(StatusOf(rs), "replicas"));
    s.available = Int(Member(StatusOf(rs), "availableReplicas"));
    const std::string max = Str(Member(Member(Meta(rs), "annotations"), kMaxReplicas));
    if (!max.empty()) s.max_replicas_annotation = std::atoi(max.c_str());
    s.created_seconds = CreatedSeconds(rs);
    return s;
  }
  std::vector<json*> All() {
    std::vector<json*> out;
    for (json& r : old_) out.push_back(&r);
    if (new_.has_value()) out.push_back(&*new_);
    return out;
  }

  DeploymentController& c_;
  json d_;
  std::string ns_, name_, uid_;
  int32_t replicas_ = 1;
  bool recreate_ = false;
  Fenceposts fence_;
  json status_;                // the status being built
  std::vector<json> owned_;    // claimed ReplicaSets
  std::optional<json> new_;    // the new ReplicaSet
  std::vector<json> old_;      // the others, oldest first
};

Status DeploymentController::Sync::Claim() {
  std::optional<api::LabelSelector> sel;
  if (StatusOr<api::LabelSelector> s = api::codec::LabelSelectorFromJson(Member(Spec(d_), "selector")); s.ok()) {
    sel = *s;
  }
  const bool deleting = !Member(Meta(d_), "deletionTimestamp").is_null();
  std::vector<std::string> owned, orphans;
  {
    std::lock_guard<std::mutex> lock(c_.mu_);
    if (auto it = c_.by_controller_.find(uid_); it != c_.by_controller_.end()) {
      owned.assign(it->second.begin(), it->second.end());
    }
    if (auto it = c_.orphans_.find(ns_); it != c_.orphans_.end()) orphans.assign(it->second.begin(), it->second.end());
  }
  for (const std::string& k : owned) {
    if (client::ObjectRef rs = c_.replicasets_->Get(k)) owned_.push_back(*rs);
  }
  if (deleting || !sel.has_value() || sel->Empty()) return Status();
  bool rechecked = false;
  for (const std::string& k : orphans) {
    client::ObjectRef rs = c_.replicasets_->Get(k);
    if (rs == nullptr || !Member(Meta(*rs), "deletionTimestamp").is_null()) continue;
    api::Labels labels;
    for (const auto& [lk, lv] : Member(Meta(*rs), "labels").items()) {
      if (lv.is_string()) labels[lk] = lv.get<std::string>();
    }
    if (!sel->Matches(labels)) continue;
    // kcm's RecheckDeletionTimestamp: once, before the first adoption.
    if (!rechecked) {
      TIDEPOOL_RETURN_IF_ERROR(Recheck());
      rechecked = true;
    }
    json refs = Member(Meta(*rs), "ownerReferences");
    if (!refs.is_array()) refs = json::array();
    refs.push_back({{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name_}, {"uid", uid_},
                    {"controller", true}, {"blockOwnerDeletion", true}});
    const std::string rs_name = Str(Member(Meta(*rs), "name"));
    json patch = {{"metadata", {{"ownerReferences", refs}, {"uid", Member(Meta(*rs), "uid")}}}};
    StatusOr<json> adopted = c_.client_.Patch(ReplicaSetsPath(ns_, rs_name), client::PatchType::kMerge, patch);
    if (adopted.ok()) owned_.push_back(*adopted);
  }
  return Status();
}

Status DeploymentController::Sync::EnsureNewReplicaSet(bool create) {
  const json& tmpl = Member(Spec(d_), "template");
  if (new_.has_value() || !old_.empty()) {
    // Called again in this sync: start from what earlier steps wrote.
    owned_ = old_;
    if (new_.has_value()) owned_.push_back(*new_);
  }
  std::vector<json> sorted = owned_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const json& a, const json& b) {
    if (CreatedSeconds(a) != CreatedSeconds(b)) return CreatedSeconds(a) < CreatedSeconds(b);
    return Str(Member(Meta(a), "name")) < Str(Member(Meta(b), "name"));
  });
  new_.reset();
  old_.clear();
  for (json& rs : sorted) {
    if (!new_.has_value() && EqualIgnoreHash(Member(Spec(rs), "template"), tmpl)) {
      new_ = std::move(rs);
    } else {
      old_.push_back(std::move(rs));
    }
  }
  int64_t max_old = 0;
  for (const json& rs : old_) max_old = std::max(max_old, Revision(rs));
  const std::string revision = std::to_string(max_old + 1);
  if (new_.has_value()) {
    // An old template made current again (`rollout undo`) takes the next revision.
    json& rs = *new_;
    const int64_t had = Revision(rs);
    const int32_t min_ready = Int(Member(Spec(d_), "minReadySeconds"));
    json copied = Member(Meta(rs), "annotations");
    if (!copied.is_object()) copied = json::object();
    // kcm's SetNewReplicaSetAnnotations: `kubectl annotate deploy x kubernetes.io/change-cause=`
    // reaches the current ReplicaSet, so `rollout history` shows it.
    const bool annotations_changed =
        CopyDeploymentAnnotations(Member(Meta(d_), "annotations"), copied);
    if (annotations_changed || had < max_old + 1 ||
        Int(Member(Spec(rs), "minReadySeconds")) != min_ready) {
      json next = rs;
      next["metadata"]["annotations"] = std::move(copied);
      json& ann = next["metadata"]["annotations"];
      if (had != 0 && had < max_old + 1) {
        const std::string hist = Str(Member(ann, kRevisionHistory));
        ann[kRevisionHistory] = hist.empty() ? std::to_string(had) : hist + "," + std::to_string(had);
      }
      if (had < max_old + 1) ann[kRevision] = revision;
      if (min_ready != 0) {
        next["spec"]["minReadySeconds"] = min_ready;
      } else {
        next["spec"].erase("minReadySeconds");
      }
      StatusOr<json> up = c_.client_.Update(ReplicaSetsPath(ns_, Str(Member(Meta(rs), "name"))), next);
      if (!up.ok()) return up.status();
      rs = std::move(up).value();
    }
    if (FindCondition(status_, "Progressing") == nullptr) {
      SetCondition(status_, Condition("Progressing", "True", "FoundNewReplicaSet",
                                      "Found new replica set \"" + Str(Member(Meta(rs), "name")) + "\"",
                                      c_.clock_.Now()));
    }
    return WriteRevisionAnnotation();
  }
  if (!create) return Status();
  return CreateNewReplicaSet();
}

Status DeploymentController::Sync::Recheck() {
  return RecheckDeletionTimestamp(c_.client_, DeploymentsPath(ns_, name_), uid_, "Deployment");
}

Status DeploymentController::Sync::CreateNewReplicaSet() {
  // Not kcm's: the Deployment is read live before a ReplicaSet is made for it. Its informers
  // can show a ReplicaSet deleted (kubectl delete deploy,rs --all --cascade=orphan) before they
  // show the Deployment's own deletion; a ReplicaSet made then is orphaned by the garbage
  // collector and left behind. kcm has the same window, narrower where watches arrive together.
  if (Status s = Recheck(); !s.ok())
    return s.code() == StatusCode::kNotFound || s.code() == StatusCode::kAborted ? Status() : s;
  int64_t max_old = 0;
  for (const json& rs : old_) max_old = std::max(max_old, Revision(rs));
  std::optional<int32_t> collisions;
  if (const json& cc = Member(status_, "collisionCount"); cc.is_number_integer()) collisions = cc.get<int32_t>();
  json tmpl = Member(Spec(d_), "template");
  const std::string hash = PodTemplateHash(tmpl, collisions);
  tmpl["metadata"]["labels"][kHashLabel] = hash;
  json selector = Member(Spec(d_), "selector");
  selector["matchLabels"][kHashLabel] = hash;
  json annotations = json::object();
  CopyDeploymentAnnotations(Member(Meta(d_), "annotations"), annotations);
  annotations[kRevision] = std::to_string(max_old + 1);
  annotations[kDesiredReplicas] = std::to_string(replicas_);
  annotations[kMaxReplicas] = std::to_string(replicas_ + fence_.max_surge);
  const std::string rs_name = name_ + "-" + hash;
  int32_t size = replicas_;
  if (!recreate_) {
    std::vector<RsState> all;
    for (const json& r : old_) all.push_back(StateOf(r));
    RsState fresh;
    all.push_back(fresh);
    size = NewRsNewReplicas(replicas_, fence_, all, fresh);
  }
  json labels = Member(Meta(tmpl), "labels");
  json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata",
              {{"name", rs_name},
               {"namespace", ns_},
               {"labels", labels},
               {"annotations", annotations},
               {"ownerReferences",
                json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name_},
                              {"uid", uid_}, {"controller", true}, {"blockOwnerDeletion", true}}})}}},
             {"spec", {{"replicas", size}, {"selector", selector}, {"template", tmpl}}}};
  if (const int32_t mr = Int(Member(Spec(d_), "minReadySeconds")); mr != 0) rs["spec"]["minReadySeconds"] = mr;
  StatusOr<json> created = c_.client_.Create(ReplicaSetsPath(ns_), rs);
  if (!created.ok()) {
    if (created.status().code() != StatusCode::kAlreadyExists) {
      SetCondition(status_, Condition("Progressing", "False", "ReplicaSetCreateError",
                                      "Failed to create new replica set \"" + rs_name +
                                          "\": " + std::string(created.status().message()),
                                      c_.clock_.Now()));
      return created.status();
    }
    // A hash collision with a ReplicaSet that is not this template's: try the next name.
    StatusOr<json> existing = c_.client_.Get(ReplicaSetsPath(ns_, rs_name));
    if (existing.ok() && ControllerUid(*existing) == uid_ &&
        EqualIgnoreHash(Member(Spec(*existing), "template"), Member(Spec(d_), "template"))) {
      new_ = std::move(existing).value();
      return WriteRevisionAnnotation();
    }
    status_["collisionCount"] = collisions.value_or(0) + 1;
    return AbortedError("hash collision for ReplicaSet " + rs_name);
  }
  new_ = std::move(created).value();
  if (size > 0) Event("Normal", "ScalingReplicaSet", "Scaled up replica set " + rs_name + " to " + std::to_string(size));
  SetCondition(status_, Condition("Progressing", "True", "NewReplicaSetCreated",
                                  "Created new replica set \"" + rs_name + "\"", c_.clock_.Now()));
  return WriteRevisionAnnotation();
}

Status DeploymentController::Sync::WriteRevisionAnnotation() {
  if (!new_.has_value()) return Status();
  const std::string rev = Str(Member(Member(Meta(*new_), "annotations"), kRevision));
  if (rev.empty() || Str(Member(Member(Meta(d_), "annotations"), kRevision)) == rev) return Status();
  json patch = {{"metadata", {{"annotations", {{kRevision, rev}}}}}};
  StatusOr<json> up = c_.client_.Patch(DeploymentsPath(ns_, name_), client::PatchType::kMerge, patch);
  if (!up.ok()) return up.status();
  d_["metadata"] = (*up)["metadata"];
  return Status();
}

Status DeploymentController::Sync::ScaleReplicaSet(json& rs, int32_t to) {
  const int32_t from = SpecReplicas(rs);
  const json& ann = Member(Meta(rs), "annotations");
  const std::string desired = std::to_string(replicas_);
  const std::string max = std::to_string(replicas_ + fence_.max_surge);
  if (from == to && Str(Member(ann, kDesiredReplicas)) == desired && Str(Member(ann, kMaxReplicas)) == max) {
    return Status();
  }
  json next = rs;
  next["spec"]["replicas"] = to;
  next["metadata"]["annotations"][kDesiredReplicas] = desired;
  next["metadata"]["annotations"][kMaxReplicas] = max;
  const std::string rs_name = Str(Member(Meta(rs), "name"));
  StatusOr<json> up = c_.client_.Update(ReplicaSetsPath(ns_, rs_name), next);
  if (!up.ok()) return up.status();
  rs = std::move(up).value();
  if (from != to) {
    Event("Normal", "ScalingReplicaSet",
          std::string("Scaled ") + (to > from ? "up" : "down") + " replica set " + rs_name + " to " +
              std::to_string(to) + " from " + std::to_string(from));
  }
  return Status();
}

Status DeploymentController::Sync::Rolling() {
  TIDEPOOL_RETURN_IF_ERROR(EnsureNewReplicaSet(true));
  // reconcileNewReplicaSet.
  if (new_.has_value()) {
    const int32_t cur = SpecReplicas(*new_);
    int32_t want = cur;
    if (cur > replicas_) {
      want = replicas_;
    } else if (cur < replicas_) {
      std::vector<RsState> all;
      for (json* r : All()) all.push_back(StateOf(*r));
      want = NewRsNewReplicas(replicas_, fence_, all, StateOf(*new_));
    }
    if (want != cur) return ScaleReplicaSet(*new_, want);
  }
  // reconcileOldReplicaSets.
  std::vector<RsState> old;
  for (const json& r : old_) old.push_back(StateOf(r));
  std::optional<RsState> fresh;
  if (new_.has_value()) fresh = StateOf(*new_);
  const std::vector<int32_t> to = OldScaleDowns(replicas_, fence_, old, fresh ? &*fresh : nullptr);
  bool scaled = false;
  for (size_t i = 0; i < old_.size(); ++i) {
    if (to[i] != old[i].spec_replicas) {
      TIDEPOOL_RETURN_IF_ERROR(ScaleReplicaSet(old_[i], to[i]));
      scaled = true;
    }
  }
  if (scaled) return Status();
  return Cleanup();
}

Status DeploymentController::Sync::RecreateRollout() {
  TIDEPOOL_RETURN_IF_ERROR(EnsureNewReplicaSet(false));
  bool scaled = false;
  for (json& r : old_) {
    if (SpecReplicas(r) != 0) {
      TIDEPOOL_RETURN_IF_ERROR(ScaleReplicaSet(r, 0));
      scaled = true;
    }
  }
  if (scaled) return Status();
  for (const json& r : old_) {
    if (Int(Member(StatusOf(r), "replicas")) > 0) return Status();  // old pods still running
  }
  if (!new_.has_value()) TIDEPOOL_RETURN_IF_ERROR(EnsureNewReplicaSet(true));
  if (new_.has_value() && SpecReplicas(*new_) != replicas_) {
    TIDEPOOL_RETURN_IF_ERROR(ScaleReplicaSet(*new_, replicas_));
  }
  return Cleanup();
}

// dc.scale: a paused Deployment or a scaling event.
Status DeploymentController::Sync::ScaleOnly() {
  TIDEPOOL_RETURN_IF_ERROR(EnsureNewReplicaSet(false));
  std::vector<json*> active;
  for (json* r : All()) {
    if (SpecReplicas(*r) > 0) active.push_back(r);
  }
  if (active.size() <= 1) {
    // FindActiveOrLatest: the active one, else the new one, else the newest old one.
    json* target = active.empty() ? (new_.has_value() ? &*new_ : (old_.empty() ? nullptr : &old_.back()))
                                  : active[0];
    if (target == nullptr) return Status();
    return ScaleReplicaSet(*target, replicas_);
  }
  if (new_.has_value() && SpecReplicas(*new_) == replicas_ &&
      Int(Member(StatusOf(*new_), "availableReplicas")) == replicas_) {
    for (json& r : old_) TIDEPOOL_RETURN_IF_ERROR(ScaleReplicaSet(r, 0));
    return Status();
  }
  if (recreate_) return Status();
  std::vector<RsState> states;
  for (json* r : active) states.push_back(StateOf(*r));
  const std::vector<int32_t> to =
      Proportional(replicas_, fence_, states, Int(Member(StatusOf(d_), "replicas")));
  for (size_t i = 0; i < active.size(); ++i) TIDEPOOL_RETURN_IF_ERROR(ScaleReplicaSet(*active[i], to[i]));
  return Status();
}

// cleanupDeployment: old ReplicaSets at 0 beyond revisionHistoryLimit, oldest revision first.
Status DeploymentController::Sync::Cleanup() {
  const json& limit_v = Member(Spec(d_), "revisionHistoryLimit");
  if (!limit_v.is_number_integer()) return Status();
  const int64_t limit = limit_v.get<int64_t>();
  std::vector<const json*> cleanable;
  for (const json& r : old_) {
    if (Member(Meta(r), "deletionTimestamp").is_null()) cleanable.push_back(&r);
  }
  int64_t diff = static_cast<int64_t>(cleanable.size()) - limit;
  if (diff <= 0) return Status();
  std::stable_sort(cleanable.begin(), cleanable.end(),
                   [](const json* a, const json* b) { return Revision(*a) < Revision(*b); });
  for (const json* r : cleanable) {
    if (diff <= 0) break;
    if (SpecReplicas(*r) != 0 || Int(Member(StatusOf(*r), "replicas")) != 0) continue;
    const json& st = StatusOf(*r);
    if (Member(Meta(*r), "generation") != Member(st, "observedGeneration")) continue;
    Status s = c_.client_.Delete(ReplicaSetsPath(ns_, Str(Member(Meta(*r), "name")))).status();
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
    --diff;
  }
  return Status();
}

bool DeploymentController::Sync::Complete(const json& st) const {
  return Int(Member(st, "updatedReplicas")) == replicas_ && Int(Member(st, "replicas")) == replicas_ &&
         Int(Member(st, "availableReplicas")) == replicas_ &&
         Member(st, "observedGeneration") == Member(Meta(d_), "generation");
}

std::optional<TimePoint> DeploymentController::Sync::WriteStatus(bool rollout) {
  const TimePoint now = c_.clock_.Now();
  json st = status_;
  int32_t available = 0, total_spec = 0, actual = 0, ready = 0;
  for (json* r : All()) {
    available += Int(Member(StatusOf(*r), "availableReplicas"));
    total_spec += SpecReplicas(*r);
    actual += Int(Member(StatusOf(*r), "replicas"));
    ready += Int(Member(StatusOf(*r), "readyReplicas"));
  }
  SetOrErase(st, "observedGeneration", Member(Meta(d_), "generation").is_number_integer()
                                           ? Member(Meta(d_), "generation").get<int64_t>() : 0);
  SetOrErase(st, "replicas", actual);
  SetOrErase(st, "updatedReplicas", new_.has_value() ? Int(Member(StatusOf(*new_), "replicas")) : 0);
  SetOrErase(st, "readyReplicas", ready);
  SetOrErase(st, "availableReplicas", available);
  SetOrErase(st, "unavailableReplicas", std::max(0, total_spec - available));
  const int32_t max_unavailable = std::min(fence_.max_unavailable, replicas_);
  if (available >= replicas_ - max_unavailable) {
    SetCondition(st, Condition("Available", "True", "MinimumReplicasAvailable",
                               "Deployment has minimum availability.", now));
  } else {
    SetCondition(st, Condition("Available", "False", "MinimumReplicasUnavailable",
                               "Deployment does not have minimum availability.", now));
  }
  const json& deadline_v = Member(Spec(d_), "progressDeadlineSeconds");
  const bool has_deadline = deadline_v.is_number_integer() && deadline_v.get<int64_t>() != 2147483647;
  std::optional<TimePoint> requeue;
  const std::string subject = new_.has_value()
                                  ? "ReplicaSet \"" + Str(Member(Meta(*new_), "name")) + "\""
                                  : "Deployment \"" + name_ + "\"";
  if (!has_deadline) RemoveCondition(st, "Progressing");
  const json* cur = FindCondition(st, "Progressing");
  const bool complete_before = Int(Member(st, "replicas")) == Int(Member(st, "updatedReplicas")) &&
                               cur != nullptr && Str(Member(*cur, "reason")) == "NewReplicaSetAvailable";
  if (rollout && has_deadline && !complete_before) {
    const json& old = StatusOf(d_);
    const bool progressing =
        Int(Member(st, "updatedReplicas")) > Int(Member(old, "updatedReplicas")) ||
        Int(Member(st, "replicas")) - Int(Member(st, "updatedReplicas")) <
            Int(Member(old, "replicas")) - Int(Member(old, "updatedReplicas")) ||
        ready > Int(Member(old, "readyReplicas")) || available > Int(Member(old, "availableReplicas"));
    const Duration deadline = std::chrono::seconds(deadline_v.get<int64_t>());
    if (Complete(st)) {
      SetCondition(st, Condition("Progressing", "True", "NewReplicaSetAvailable",
                                 subject + " has successfully progressed.", now));
    } else if (progressing) {
      json cond = Condition("Progressing", "True", "ReplicaSetUpdated", subject + " is progressing.", now);
      if (cur != nullptr && Str(Member(*cur, "status")) == "True") {
        cond["lastTransitionTime"] = Member(*cur, "lastTransitionTime");
      }
      RemoveCondition(st, "Progressing");
      st["conditions"].push_back(std::move(cond));
      requeue = now + deadline;
    } else if (cur != nullptr && Str(Member(*cur, "reason")) != "ProgressDeadlineExceeded") {
      StatusOr<TimePoint> from = ParseRfc3339(Str(Member(*cur, "lastUpdateTime")));
      if (from.ok() && now > *from + deadline) {
        SetCondition(st, Condition("Progressing", "False", "ProgressDeadlineExceeded",
                                   subject + " has timed out progressing.", now));
      } else if (from.ok()) {
        requeue = *from + deadline + std::chrono::seconds(1);
      }
    }
  }
  // A ReplicaSet's ReplicaFailure becomes the Deployment's.
  RemoveCondition(st, "ReplicaFailure");
  for (json* r : All()) {
    if (const json* f = FindCondition(StatusOf(*r), "ReplicaFailure")) {
      json cond = Condition("ReplicaFailure", Str(Member(*f, "status")), Str(Member(*f, "reason")),
                            Str(Member(*f, "message")), now);
      st["conditions"].push_back(std::move(cond));
      break;
    }
  }
  if (st == StatusOf(d_)) return requeue;
  json next = d_;
  next["status"] = st;
  Status s = c_.client_.UpdateUnread(DeploymentsPath(ns_, name_, "status"), next);
  if (!s.ok() && s.code() != StatusCode::kNotFound) return now + c_.options_.retry_after;
  return requeue;
}

std::optional<TimePoint> DeploymentController::Sync::Run() {
  const TimePoint now = c_.clock_.Now();
  const json& sel = Member(Spec(d_), "selector");
  if (!sel.is_object() || (Member(sel, "matchLabels").empty() && Member(sel, "matchExpressions").empty())) {
    Event("Warning", "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.");
    if (Member(StatusOf(d_), "observedGeneration") != Member(Meta(d_), "generation")) {
      json next = d_;
      next["status"]["observedGeneration"] = Member(Meta(d_), "generation");
      (void)c_.client_.UpdateUnread(DeploymentsPath(ns_, name_, "status"), next);
    }
    return std::nullopt;
  }
  if (Status s = Claim(); !s.ok()) return now + c_.options_.retry_after;
  if (!Member(Meta(d_), "deletionTimestamp").is_null()) {
    (void)EnsureNewReplicaSet(false);
    return WriteStatus(false);
  }
  // checkPausedConditions.
  const bool paused = Member(Spec(d_), "paused").is_boolean() && Spec(d_)["paused"].get<bool>();
  const json* prog = FindCondition(status_, "Progressing");
  const bool paused_cond = prog != nullptr && Str(Member(*prog, "reason")) == "DeploymentPaused";
  if (Member(Spec(d_), "progressDeadlineSeconds").is_number_integer()) {
    if (paused && !paused_cond) {
      SetCondition(status_, Condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", now));
    } else if (!paused && paused_cond) {
      SetCondition(status_, Condition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", now));
    }
  }
  bool scaling_event = false;
  {
    (void)EnsureNewReplicaSet(false);
    for (json* r : All()) {
      if (SpecReplicas(*r) <= 0) continue;
      const std::string desired = Str(Member(Member(Meta(*r), "annotations"), kDesiredReplicas));
      if (!desired.empty() && desired != std::to_string(replicas_)) scaling_event = true;
    }
  }
  Status s;
  bool rollout = true;
  if (paused || scaling_event) {
    s = ScaleOnly();
    rollout = false;
  } else if (recreate_) {
    s = RecreateRollout();
  } else {
    s = Rolling();
  }
  if (!s.ok()) {
    if (c_.log_ != nullptr && s.code() != StatusCode::kAborted) {
      c_.log_->Warning("Failed to sync Deployment", {{"deployment", Key(ns_, name_)}, {"err", s.ToString()}});
    }
    (void)WriteStatus(rollout);
    return now + c_.options_.retry_after;
  }
  return WriteStatus(rollout);
}

DeploymentController::DeploymentController(const client::RestClient& client, const Clock& clock,
                                           DeploymentControllerOptions options,
                                           autoscaler::EventRecorder* recorder, log::Logger* logger,
                                           client::SharedInformerFactory* informers,
                                           TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  executor_ = executor;
  client::InformerOptions d;
  d.path = "/apis/apps/v1/deployments";
  d.name = "deployments";
  d.seed = options.seed;
  deployments_ = client::MakeInformer(informers, client_, clock_, d, logger);
  auto queue = [this](const client::ObjectRef& o) { queue_->Add(client::Informer::KeyOf(*o)); };
  deployments_->AddEventHandlers({[queue](const client::ObjectRef& o, bool) { queue(o); },
                                  [queue](const client::ObjectRef&, const client::ObjectRef& o) { queue(o); },
                                  [queue](const client::ObjectRef& o, bool) { queue(o); }});
  client::InformerOptions rs;
  rs.path = "/apis/apps/v1/replicasets";
  rs.name = "replicasets";
  rs.seed = options.seed + 1;
  replicasets_ = client::MakeInformer(informers, client_, clock_, rs, logger);
  replicasets_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnReplicaSet(nullptr, o); },
       [this](const client::ObjectRef& old_obj, const client::ObjectRef& o) { OnReplicaSet(old_obj, o); },
       [this](const client::ObjectRef& o, bool) { OnReplicaSetDeleted(o); }});
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return SyncKey(key); },
      [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor_);
}

DeploymentController::~DeploymentController() { Stop(); }

void DeploymentController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    deployments_->Start();
    replicasets_->Start();
  }
  queue_->Start();
}

void DeploymentController::Stop() {
  queue_->Stop();
  client::StopAll({deployments_.get(), replicasets_.get()});
}

bool DeploymentController::HasSynced() const {
  return deployments_->HasSynced() && replicasets_->HasSynced();
}

void DeploymentController::OnReplicaSet(const client::ObjectRef& old_obj, const client::ObjectRef& obj) {
  const std::string key = client::Informer::KeyOf(*obj);
  const std::string ns = Str(Member(Meta(*obj), "namespace"));
  const std::string uid = ControllerUid(*obj);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = controller_of_.find(key); it != controller_of_.end()) {
      auto& set = it->second.empty() ? orphans_[ns] : by_controller_[it->second];
      set.erase(key);
    }
    controller_of_[key] = uid;
    (uid.empty() ? orphans_[ns] : by_controller_[uid]).insert(key);
  }
  QueueOwnerOf(*obj);
  if (old_obj != nullptr && ControllerUid(*old_obj) != uid) QueueOwnerOf(*old_obj);
  if (uid.empty()) {
    // An orphan: every Deployment of its namespace that could adopt it.
    for (const client::ObjectRef& d : deployments_->List()) {
      if (Str(Member(Meta(*d), "namespace")) == ns) queue_->Add(client::Informer::KeyOf(*d));
    }
  }
}

void DeploymentController::OnReplicaSetDeleted(const client::ObjectRef& obj) {
  const std::string key = client::Informer::KeyOf(*obj);
  const std::string ns = Str(Member(Meta(*obj), "namespace"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = controller_of_.find(key);
    if (it != controller_of_.end()) {
      auto& set = it->second.empty() ? orphans_[ns] : by_controller_[it->second];
      set.erase(key);
      controller_of_.erase(it);
    }
  }
  QueueOwnerOf(*obj);
}

void DeploymentController::QueueOwnerOf(const json& rs) {
  const json* o = ControllerOf(rs);
  if (o == nullptr || Str(Member(*o, "kind")) != "Deployment") return;
  const std::string key = Key(Str(Member(Meta(rs), "namespace")), Str(Member(*o, "name")));
  client::ObjectRef d = deployments_->Get(key);
  if (d != nullptr && Str(Member(Meta(*d), "uid")) == Str(Member(*o, "uid"))) queue_->Add(key);
}

std::optional<TimePoint> DeploymentController::SyncKey(const std::string& key) {
  client::ObjectRef d = deployments_->Get(key);
  if (d == nullptr) return std::nullopt;
  Sync sync(*this, *d);
  return sync.Run();
}

}  // namespace tidepool::controllers::deployment
