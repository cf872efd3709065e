#include "controllers/disruption/disruption_controller.h"

#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::disruption {
namespace {

using nlohmann::json;

constexpr char kPdbsPath[] = "/apis/policy/v1/poddisruptionbudgets";

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

const json& Meta(const json& obj) {
  static const json kEmpty = json::object();
  auto m = obj.find("metadata");
  return m != obj.end() && m->is_object() ? *m : kEmpty;
}

PodFacts FactsOf(const json& pod) {
  const json& m = Meta(pod);
  PodFacts f;
  f.name = m.value("name", "");
  f.labels = controllers::LabelsOf(controllers::Member(m, "labels"));
  f.deleting = m.contains("deletionTimestamp") && !m["deletionTimestamp"].is_null();
  if (auto st = pod.find("status"); st != pod.end() && st->is_object()) {
    if (auto c = st->find("conditions"); c != st->end() && c->is_array()) {
      for (const json& x : *c) {
        if (x.is_object() && x.value("type", "") == "Ready") f.ready = x.value("status", "") == "True";
      }
    }
  }
  if (auto owners = m.find("ownerReferences"); owners != m.end() && owners->is_array()) {
    for (const json& o : *owners) {
      if (!o.is_object() || !o.value("controller", false)) continue;
      f.controller_kind = o.value("kind", "");
      f.controller_api_version = o.value("apiVersion", "");
      f.controller_name = o.value("name", "");
      f.controller_uid = o.value("uid", "");
      break;
    }
  }
  return f;
}

// A budget's selector: nullopt selects nothing (null, absent or one that does not decode).
std::optional<api::LabelSelector> SelectorOf(const json& pdb) {
  auto spec = pdb.find("spec");
  if (spec == pdb.end() || !spec->is_object()) return std::nullopt;
  auto sel = spec->find("selector");
  if (sel == spec->end() || sel->is_null()) return std::nullopt;
  StatusOr<api::LabelSelector> s = api::codec::LabelSelectorFromJson(*sel);
  if (!s.ok()) return std::nullopt;
  return *s;
}

}  // namespace

DisruptionController::DisruptionController(const client::RestClient& client, const Clock& clock,
                                           DisruptionControllerOptions options,
                                           autoscaler::EventRecorder* recorder, log::Logger* logger,
                                           client::SharedInformerFactory* informers,
                                           TimerService* executor)
    : client_(client), clock_(clock), options_(options), recorder_(recorder), log_(logger) {
  executor_ = executor;
  queue_ = std::make_unique<WorkQueue>(
      clock_, [this](const std::string& key) { return Sync(key); }, [this] { return HasSynced(); },
      std::chrono::milliseconds(50), executor_);
  // The handlers keep PodFacts: the decoding informer of pods (shared when given a factory).
  pods_ = client::MakeInformer(
      informers, client_, clock_,
      client::DecodingInformerOptions("pods", "/api/v1/pods", options.seed), logger);
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(o); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnPod(o); },
       [this](const client::ObjectRef& o, bool) { OnPodDeleted(o); }});
  client::InformerOptions pdbs;
  pdbs.path = kPdbsPath;
  pdbs.name = "poddisruptionbudgets";
  pdbs.seed = options.seed + 1;
  pdbs_ = client::MakeInformer(informers, client_, clock_, pdbs, logger);
  auto mark = [this](const client::ObjectRef& o) {
    const json& m = Meta(*o);
    Mark(Key(m.value("namespace", ""), m.value("name", "")), clock_.Now());
  };
  pdbs_->AddEventHandlers({[mark](const client::ObjectRef& o, bool) { mark(o); },
                           [mark](const client::ObjectRef&, const client::ObjectRef& o) { mark(o); },
                           nullptr});
}

DisruptionController::~DisruptionController() { Stop(); }

void DisruptionController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    pods_->Start();
    pdbs_->Start();
  }
  queue_->Start();
}

void DisruptionController::Stop() {
  queue_->Stop();
  client::StopAll({pods_.get(), pdbs_.get()});
}

bool DisruptionController::HasSynced() const { return pods_->HasSynced() && pdbs_->HasSynced(); }

uint64_t DisruptionController::writes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return writes_;
}

void DisruptionController::OnPod(const client::ObjectRef& obj) {
  const std::string ns = Meta(*obj).value("namespace", "");
  PodFacts facts = FactsOf(*obj);
  const api::Labels labels = facts.labels;
  std::optional<api::Labels> old_labels;  // what the pod had, from the controller's own facts
  {
    std::lock_guard<std::mutex> lock(mu_);
    PodFacts& kept = pods_by_ns_[ns][facts.name];
    if (!kept.name.empty() && kept.labels != labels) old_labels = std::move(kept.labels);
    kept = std::move(facts);
  }
  MarkBudgetsFor(ns, labels);
  if (old_labels.has_value()) MarkBudgetsFor(ns, *old_labels);
}

void DisruptionController::OnPodDeleted(const client::ObjectRef& obj) {
  const json& m = Meta(*obj);
  const std::string ns = m.value("namespace", "");
  api::Labels labels;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_by_ns_.find(ns);
    if (it == pods_by_ns_.end()) return;
    auto p = it->second.find(m.value("name", ""));
    if (p == it->second.end()) return;
    labels = p->second.labels;  // a deletion inferred from a relist has no labels of its own
    it->second.erase(p);
    if (it->second.empty()) pods_by_ns_.erase(it);
  }
  MarkBudgetsFor(ns, labels);
}

void DisruptionController::MarkBudgetsFor(const std::string& ns, const api::Labels& labels) {
  if (!pdbs_->HasSynced()) return;  // every budget is marked when its informer lists it
  const std::string prefix = ns + "/";
  for (const client::ObjectRef& pdb : pdbs_->List()) {
    const json& m = Meta(*pdb);
    if (m.value("namespace", "") != ns) continue;
    std::optional<api::LabelSelector> sel = SelectorOf(*pdb);
    if (sel.has_value() && sel->Matches(labels)) Mark(prefix + m.value("name", ""), clock_.Now());
  }
}

void DisruptionController::Mark(const std::string& key, TimePoint at) { queue_->AddAt(key, at); }

std::optional<TimePoint> DisruptionController::Sync(const std::string& key) {
  const client::ObjectRef pdb = pdbs_->Get(key);
  if (pdb == nullptr) return std::nullopt;
  const json& m = Meta(*pdb);
  const std::string ns = m.value("namespace", ""), name = m.value("name", "");
  const autoscaler::ObjectRef ref{"PodDisruptionBudget", ns, name, m.value("uid", "")};

  // getPodsForPdb: the pods of its namespace its selector selects.
  std::vector<PodFacts> pods;
  if (std::optional<api::LabelSelector> sel = SelectorOf(*pdb)) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = pods_by_ns_.find(ns); it != pods_by_ns_.end()) {
      for (const auto& [pod_name, facts] : it->second) {
        if (sel->Matches(facts.labels)) pods.push_back(facts);
      }
    }
  }
  if (pods.empty() && recorder_ != nullptr) {
    recorder_->Event(ref, "Normal", "NoPods", "No matching pods found");
  }
  BudgetInputs in;
  in.pdb = pdb.get();
  for (const PodFacts& p : pods) in.pods.push_back(&p);
  in.scale = [this, &ns](const PodFacts& p) { return ControllerScale(ns, p); };
  in.now = clock_.Now();
  in.deletion_timeout = options_.deletion_timeout;
  BudgetResult r = ComputeBudgetStatus(in);
  if (recorder_ != nullptr) {
    if (!r.unmanaged_warning.empty()) recorder_->Event(ref, "Warning", "UnmanagedPods", r.unmanaged_warning);
    for (const std::string& pod : r.not_deleted) {
      // kcm's text (it names the budget's namespace twice).
      recorder_->Event({"Pod", ns, pod, ""}, "Warning", "NotDeleted",
                       "Pod was expected by PDB " + ns + "/" + ns + " to be deleted but it wasn't");
    }
  }
  if (!r.changed) return r.recheck;
  json next = *pdb;
  next["status"] = r.status;
  const std::string path = "/apis/policy/v1/namespaces/" + ns + "/poddisruptionbudgets/" + name + "/status";
  Status s = client_.UpdateUnread(path, next);
  if (!s.ok()) {
    if (log_ != nullptr && s.code() != StatusCode::kAborted && s.code() != StatusCode::kNotFound) {
      log_->Warning("Failed to sync PodDisruptionBudget", {{"pdb", key}, {"err", s.ToString()}});
    }
    if (s.code() == StatusCode::kNotFound) return std::nullopt;
    return clock_.Now() + options_.retry_after;  // a conflict: the informer has a newer one
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++writes_;
  }
  return r.recheck;
}

StatusOr<int32_t> DisruptionController::ControllerScale(const std::string& ns,
                                                        const PodFacts& pod) const {
  auto replicas = [](const json& obj) -> int32_t {
    auto spec = obj.find("spec");
    if (spec == obj.end() || !spec->is_object()) return 1;
    auto r = spec->find("replicas");
    return r != spec->end() && r->is_number_integer() ? static_cast<int32_t>(r->get<int64_t>()) : 1;
  };
  auto get = [&](const std::string& group_version, const std::string& resource,
                 const std::string& name, const std::string& uid) -> StatusOr<json> {
    const std::string base = group_version == "v1" ? "/api/v1" : "/apis/" + group_version;
    StatusOr<json> obj = client_.Get(base + "/namespaces/" + ns + "/" + resource + "/" + name);
    if (!obj.ok()) return obj.status();
    if (Meta(*obj).value("uid", "") != uid) return NotFoundError(name);
    return obj;
  };
  // kcm's finders, in order: ReplicaSet (its Deployment when it has one), ReplicationController,
  // StatefulSet (a custom scale subresource is not served).
  const std::string& kind = pod.controller_kind;
  if (kind == "ReplicaSet" && pod.controller_api_version.rfind("apps/", 0) == 0) {
    TIDEPOOL_ASSIGN_OR_RETURN(json rs, get("apps/v1", "replicasets", pod.controller_name,
                                           pod.controller_uid));
    if (auto owners = Meta(rs).find("ownerReferences"); owners != Meta(rs).end() && owners->is_array()) {
      for (const json& o : *owners) {
        if (o.is_object() && o.value("controller", false) && o.value("kind", "") == "Deployment") {
          StatusOr<json> d = get("apps/v1", "deployments", o.value("name", ""), o.value("uid", ""));
          if (d.ok()) return replicas(*d);
          if (d.status().code() != StatusCode::kNotFound) return d.status();
          return NotFoundError(pod.name);  // an orphan's owner gone: no controller
        }
      }
    }
    return replicas(rs);
  }
  if (kind == "ReplicationController" && pod.controller_api_version == "v1") {
    TIDEPOOL_ASSIGN_OR_RETURN(json rc, get("v1", "replicationcontrollers", pod.controller_name,
                                           pod.controller_uid));
    return replicas(rc);
  }
  if (kind == "StatefulSet" && pod.controller_api_version.rfind("apps/", 0) == 0) {
    TIDEPOOL_ASSIGN_OR_RETURN(json ss, get("apps/v1", "statefulsets", pod.controller_name,
                                           pod.controller_uid));
    return replicas(ss);
  }
  return NotFoundError(pod.name);
}

}  // namespace tidepool::controllers::disruption
