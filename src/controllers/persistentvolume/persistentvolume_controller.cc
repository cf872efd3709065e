#include "controllers/persistentvolume/persistentvolume_controller.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "api/codec/storage_json.h"
#include "controllers/persistentvolume/volume_json.h"

namespace tidepool::controllers::persistentvolume {

using nlohmann::json;

namespace {

constexpr Duration kRetry = std::chrono::seconds(1);
constexpr char kClaimPrefix[] = "claim/";
constexpr char kVolumePrefix[] = "volume/";

bool HasAnnotation(const json& obj, const char* key) {
  const json& a = Member(Meta(obj), "annotations");
  return a.is_object() && a.contains(key);
}

int64_t Capacity(const json& volume) {
  return StorageBytes(Member(Member(Spec(volume), "capacity"), "storage"));
}
std::string VolumeMode(const json& obj) {
  const std::string m = Str(Member(Spec(obj), "volumeMode"));
  return m.empty() ? "Filesystem" : m;
}
std::set<std::string> Modes(const json& obj) {
  std::set<std::string> out;
  const json& modes = Member(Spec(obj), "accessModes");
  if (modes.is_array()) {
    for (const json& m : modes) out.insert(Str(m));
  }
  return out;
}

// IsVolumeBoundToClaim: the claimRef names the claim (and its uid, when it has one).
bool BoundTo(const json& volume, const json& claim) {
  const json& ref = Member(Spec(volume), "claimRef");
  if (!ref.is_object()) return false;
  if (Str(Member(ref, "name")) != NameOf(claim) ||
      Str(Member(ref, "namespace")) != NamespaceOf(claim)) {
    return false;
  }
  const std::string uid = Str(Member(ref, "uid"));
  return uid.empty() || uid == UidOf(claim);
}

// checkVolumeSatisfyClaim: why `volume` cannot serve `claim` (nullptr: it can).
const char* Mismatch(const json& volume, const json& claim) {
  if (Capacity(volume) < Requested(claim)) return "requested PV is too small";
  if (api::codec::ClassNameOf(volume) != api::codec::ClassNameOf(claim)) {
    return "storageClassName does not match";
  }
  if (VolumeMode(volume) != VolumeMode(claim)) return "incompatible volumeMode";
  const std::set<std::string> have = Modes(volume), want = Modes(claim);
  if (!std::includes(have.begin(), have.end(), want.begin(), want.end())) {
    return "incompatible accessMode";
  }
  return nullptr;
}

}  // namespace

std::string ExternalProvisionerOf(const std::string& p) {
  if (p == "kubernetes.io/gce-pd") return "pd.csi.storage.gke.io";  // CSI migration (GKE)
  if (p.empty() || p.rfind("kubernetes.io/", 0) == 0) return "";
  return p;
}

PersistentVolumeController::PersistentVolumeController(const client::RestClient& client,
                                                       const Clock& clock,
                                                       PersistentVolumeControllerOptions options,
                                                       autoscaler::EventRecorder* events,
                                                       client::SharedInformerFactory* informers,
                                                       TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      events_(events),
      executor_(executor),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  auto make = [&](const char* name, const char* path, uint64_t seed) {
    return ObjectInformer(informers, client_, clock_, name, path, seed);
  };
  claims_ = make("pv-controller-claims", "/api/v1/persistentvolumeclaims", options.seed);
  volumes_ = make("pv-controller-volumes", "/api/v1/persistentvolumes", options.seed + 1);
  classes_ =
      make("pv-controller-classes", "/apis/storage.k8s.io/v1/storageclasses", options.seed + 2);
  pods_ = client::MakeDecodingInformer(informers, client_, clock_, "pv-controller-pods",
                                       "/api/v1/pods", options.seed + 3, nullptr);
  auto on_claim = [this](const client::ObjectRef& o) { queue_.Add(kClaimPrefix + ClaimKey(*o)); };
  claims_->AddEventHandlers(
      {[on_claim](const client::ObjectRef& o, bool) { on_claim(o); },
       [on_claim](const client::ObjectRef&, const client::ObjectRef& o) { on_claim(o); },
       // A deleted claim releases its volume.
       [this](const client::ObjectRef& o, bool) {
         std::set<std::string> volumes;
         const std::string volume = Str(Member(Spec(*o), "volumeName"));
         if (!volume.empty()) volumes.insert(volume);
         {
           std::lock_guard<std::mutex> lock(mu_);
           auto it = by_claim_.find(ClaimKey(*o));
           if (it != by_claim_.end()) volumes.insert(it->second.begin(), it->second.end());
         }
         for (const std::string& v : volumes) queue_.Add(kVolumePrefix + v);
       }});
  auto on_volume = [this](const client::ObjectRef& o, bool deleted) {
    const std::string name = NameOf(*o);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto drop = [&name](std::map<std::string, std::string>& of,
                          std::map<std::string, std::set<std::string>>& by) {
        auto it = of.find(name);
        if (it == of.end()) return;
        auto b = by.find(it->second);
        b->second.erase(name);
        if (b->second.empty()) by.erase(b);
        of.erase(it);
      };
      drop(class_of_, by_class_);
      drop(claim_of_, by_claim_);
      if (!deleted) {
        class_of_[name] = api::codec::ClassNameOf(*o);
        by_class_[api::codec::ClassNameOf(*o)].insert(name);
        const json& ref = Member(Spec(*o), "claimRef");
        if (ref.is_object()) {
          const std::string claim = Key(Str(Member(ref, "namespace")), Str(Member(ref, "name")));
          claim_of_[name] = claim;
          by_claim_[claim].insert(name);
        }
      }
    }
    if (!deleted) queue_.Add(kVolumePrefix + name);
    const json& ref = Member(Spec(*o), "claimRef");
    if (ref.is_object()) {
      queue_.Add(kClaimPrefix + Key(Str(Member(ref, "namespace")), Str(Member(ref, "name"))));
    }
  };
  volumes_->AddEventHandlers(
      {[on_volume](const client::ObjectRef& o, bool) { on_volume(o, false); },
       [on_volume](const client::ObjectRef&, const client::ObjectRef& o) { on_volume(o, false); },
       [on_volume](const client::ObjectRef& o, bool) { on_volume(o, true); }});
  // A new or changed class may let waiting claims go on: they are looked at again on resync.
  classes_->AddEventHandlers({nullptr, nullptr, nullptr});
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(client::Informer::KeyOf(*o), o.get()); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) {
         OnPod(client::Informer::KeyOf(*o), o.get());
       },
       [this](const client::ObjectRef& o, bool) { OnPod(client::Informer::KeyOf(*o), nullptr); }});
}

PersistentVolumeController::~PersistentVolumeController() { Stop(); }

void PersistentVolumeController::Start() {
  if (executor_ == nullptr) {
    claims_->Start();
    volumes_->Start();
    classes_->Start();
    pods_->Start();
  }
  queue_.Start();
}

void PersistentVolumeController::Stop() {
  queue_.Stop();
  client::StopAll({claims_.get(), volumes_.get(), classes_.get(), pods_.get()});
}

bool PersistentVolumeController::HasSynced() const {
  return claims_->HasSynced() && volumes_->HasSynced() && classes_->HasSynced() &&
         pods_->HasSynced();
}

void PersistentVolumeController::OnPod(const std::string& key, const json* now) {
  // findNonScheduledPodsByPVC: pods without a node that have not finished.
  std::set<std::string> claims;
  if (now != nullptr && Str(Member(Spec(*now), "nodeName")).empty() &&
      Member(Meta(*now), "deletionTimestamp").is_null()) {
    const std::string phase = Phase(*now);
    const json& volumes = Member(Spec(*now), "volumes");
    if (phase != "Succeeded" && phase != "Failed" && volumes.is_array()) {
      for (const json& v : volumes) {
        const std::string c = Str(Member(Member(v, "persistentVolumeClaim"), "claimName"));
        if (!c.empty()) claims.insert(Key(NamespaceOf(*now), c));
      }
    }
  }
  const std::string name = key.substr(key.find('/') + 1);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = pod_claims_.find(key); it != pod_claims_.end()) {
    for (const std::string& c : it->second) {
      auto w = waiting_pods_.find(c);
      if (w == waiting_pods_.end()) continue;
      w->second.erase(name);
      if (w->second.empty()) waiting_pods_.erase(w);
    }
    pod_claims_.erase(it);
  }
  if (claims.empty()) return;
  for (const std::string& c : claims) waiting_pods_[c].insert(name);
  pod_claims_[key] = std::move(claims);
}

std::optional<TimePoint> PersistentVolumeController::Sync(const std::string& key) {
  if (key.rfind(kClaimPrefix, 0) == 0) {
    const client::ObjectRef claim = claims_->Get(key.substr(sizeof(kClaimPrefix) - 1));
    return claim == nullptr ? std::nullopt : SyncClaim(*claim);
  }
  const client::ObjectRef volume = volumes_->Get(key.substr(sizeof(kVolumePrefix) - 1));
  return volume == nullptr ? std::nullopt : SyncVolume(*volume);
}

std::optional<TimePoint> PersistentVolumeController::SyncClaim(const json& claim) {
  if (!HasAnnotation(claim, kAnnBindCompleted)) return SyncUnboundClaim(claim);
  // syncBoundClaim.
  const std::string name = Str(Member(Spec(claim), "volumeName"));
  const client::ObjectRef volume = name.empty() ? nullptr : volumes_->Get(name);
  if (volume == nullptr) {
    if (Phase(claim) == "Lost") return std::nullopt;
    if (!SetClaimPhase(claim, "Lost")) return clock_.Now() + kRetry;
    ClaimEvent(claim, "Warning", "ClaimLost",
               name.empty() ? "Bound claim has lost reference to PersistentVolume. Data on the "
                              "volume is lost!"
                            : "Bound claim has lost its PersistentVolume. Data on the volume is "
                              "lost!");
    return std::nullopt;
  }
  if (BoundTo(*volume, claim) || Member(Spec(*volume), "claimRef").is_null()) {
    // The claim is bound: make sure both say so (bind is idempotent).
    if (Phase(claim) == "Bound" && Phase(*volume) == "Bound" && BoundTo(*volume, claim)) {
      return std::nullopt;
    }
    return Bind(*volume, claim) ? std::nullopt : std::optional(clock_.Now() + kRetry);
  }
  if (Phase(claim) != "Lost" && SetClaimPhase(claim, "Lost")) {
    ClaimEvent(claim, "Warning", "ClaimMisbound",
               "Two claims are bound to the same volume, this one is bound incorrectly");
  }
  return std::nullopt;
}

std::optional<TimePoint> PersistentVolumeController::SyncUnboundClaim(const json& claim) {
  const TimePoint now = clock_.Now();
  const std::string wanted = Str(Member(Spec(claim), "volumeName"));
  if (!wanted.empty()) {
    // Pre-bound by its user.
    const client::ObjectRef volume = volumes_->Get(wanted);
    if (volume == nullptr) {
      if (Phase(claim) != "Pending" && !SetClaimPhase(claim, "Pending")) return now + kRetry;
      return now + options_.resync;
    }
    if (!Member(Spec(*volume), "claimRef").is_null() && !BoundTo(*volume, claim)) {
      ClaimEvent(claim, "Warning", "FailedBinding",
                 "volume \"" + wanted + "\" already bound to a different claim.");
      return now + options_.resync;
    }
    // A free volume must satisfy the claim; one already bound to it is just finished.
    const char* mismatch =
        Member(Spec(*volume), "claimRef").is_null() ? Mismatch(*volume, claim) : nullptr;
    if (mismatch != nullptr) {
      if (Phase(claim) != "Pending" && !SetClaimPhase(claim, "Pending")) return now + kRetry;
      ClaimEvent(claim, "Warning", "VolumeMismatch",
                 "Cannot bind to requested volume \"" + wanted + "\": " + mismatch);
      return now + options_.resync;
    }
    return Bind(*volume, claim) ? std::nullopt : std::optional(now + kRetry);
  }
  const std::string class_name = api::codec::ClassNameOf(claim);
  client::ObjectRef sc = class_name.empty() ? nullptr : classes_->Get(class_name);
  const bool delay =
      sc != nullptr && Str(Member(*sc, "volumeBindingMode")) == "WaitForFirstConsumer";
  if (const client::ObjectRef volume = FindMatchingVolume(claim, delay)) {
    return Bind(*volume, claim) ? std::nullopt : std::optional(now + kRetry);
  }
  if (!api::codec::ClaimHasClass(claim)) {
    // Retroactive default StorageClass assignment.
    const std::string def = DefaultClass();
    if (!def.empty()) {
      json updated = claim;
      updated["spec"]["storageClassName"] = def;
      const client::RestResult r = client_.UpdateResult(ClaimPath(claim), updated);
      return r.ok() || r.http_status == 404 ? std::nullopt : std::optional(now + kRetry);
    }
  }
  // The writes below start from what this one wrote (not the cache's older copy).
  json current = claim;
  if (Phase(claim) != "Pending") {
    std::optional<json> written = WriteClaimPhase(claim, "Pending");
    if (!written.has_value()) return now + kRetry;
    if (written->is_object()) current = *std::move(written);
  }
  if (delay && Annotation(claim, kAnnSelectedNode).empty()) {
    std::vector<std::string> pods;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = waiting_pods_.find(ClaimKey(claim));
      if (it != waiting_pods_.end()) pods.assign(it->second.begin(), it->second.end());
    }
    if (pods.empty()) {
      ClaimEvent(claim, "Normal", "WaitForFirstConsumer",
                 "waiting for first consumer to be created before binding");
    } else {
      std::string names;
      for (const std::string& p : pods) names += (names.empty() ? "" : ",") + p;
      ClaimEvent(claim, "Normal", "WaitForPodScheduled",
                 std::string(pods.size() == 1 ? "waiting for pod " : "waiting for pods ") + names +
                     " to be scheduled");
    }
    return now + options_.resync;
  }
  if (class_name.empty()) {
    ClaimEvent(claim, "Normal", "FailedBinding",
               "no persistent volumes available for this claim and no storage class is set");
    return now + options_.resync;
  }
  if (sc == nullptr) {
    ClaimEvent(claim, "Warning", "ProvisioningFailed",
               "storageclass.storage.k8s.io \"" + class_name + "\" not found");
    return now + options_.resync;
  }
  const std::string class_provisioner = Str(Member(*sc, "provisioner"));
  const std::string provisioner = ExternalProvisionerOf(class_provisioner);
  if (provisioner.empty()) {
    ClaimEvent(claim, "Warning", "ProvisioningFailed",
               "no volume plugin matched name: " + class_provisioner);
    return now + options_.resync;
  }
  // provisionClaimOperationExternal: the claim names its provisioner, then waits for it.
  // A migrated in-tree class: the claim also says to which driver (updateMigrationAnnotations).
  const bool migrated = provisioner != class_provisioner;
  if (Annotation(claim, kAnnStorageProvisioner) != provisioner ||
      Annotation(claim, kAnnBetaStorageProvisioner) != provisioner ||
      (migrated && Annotation(claim, kAnnMigratedTo) != provisioner)) {
    json updated = current;
    updated["metadata"]["annotations"][kAnnStorageProvisioner] = provisioner;
    updated["metadata"]["annotations"][kAnnBetaStorageProvisioner] = provisioner;
    if (migrated) updated["metadata"]["annotations"][kAnnMigratedTo] = provisioner;
    const client::RestResult r = client_.UpdateResult(ClaimPath(claim), updated);
    if (r.http_status == 404) return std::nullopt;
    if (!r.ok()) return now + kRetry;
  }
  ClaimEvent(claim, "Normal", "ExternalProvisioning",
             "Waiting for a volume to be created either by the external provisioner '" +
                 provisioner +
                 "' or manually by the system administrator. If volume creation is delayed, "
                 "please verify that the provisioner is running and correctly registered.");
  return now + options_.resync;
}

client::ObjectRef PersistentVolumeController::FindMatchingVolume(const json& claim,
                                                                 bool delay_binding) const {
  const std::string class_name = api::codec::ClassNameOf(claim);
  // The volumes whose claimRef names the claim (pre-bound: of any class), then the class's.
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_claim_.find(ClaimKey(claim)); it != by_claim_.end()) {
      names.assign(it->second.begin(), it->second.end());
    }
    if (auto it = by_class_.find(class_name); it != by_class_.end()) {
      names.insert(names.end(), it->second.begin(), it->second.end());
    }
  }
  const int64_t requested = Requested(claim);
  const std::string mode = VolumeMode(claim);
  const std::set<std::string> modes = Modes(claim);
  client::ObjectRef best;
  int64_t best_capacity = 0;
  for (const std::string& name : names) {
    client::ObjectRef v = volumes_->Get(name);
    if (v == nullptr) continue;
    const bool claimed = !Member(Spec(*v), "claimRef").is_null();
    if (claimed && !BoundTo(*v, claim)) continue;
    const int64_t capacity = Capacity(*v);
    if (capacity < requested || VolumeMode(*v) != mode ||
        !Member(Meta(*v), "deletionTimestamp").is_null()) {
      continue;
    }
    if (claimed) return v;        // pre-bound to this claim
    if (delay_binding) continue;  // the scheduler's to choose
    if (Phase(*v) != "Available" || api::codec::ClassNameOf(*v) != class_name) continue;
    const std::set<std::string> have = Modes(*v);
    if (!std::includes(have.begin(), have.end(), modes.begin(), modes.end())) continue;
    if (best == nullptr || capacity < best_capacity) {
      best = v;
      best_capacity = capacity;
    }
  }
  return best;
}

bool PersistentVolumeController::Bind(const json& volume, const json& claim) {
  // bindVolumeToClaim.
  json v = volume;
  if (!BoundTo(volume, claim) || Str(Member(Member(Spec(volume), "claimRef"), "uid")).empty()) {
    const bool prebound = BoundTo(volume, claim);
    v["spec"]["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                             {"namespace", NamespaceOf(claim)},
                             {"name", NameOf(claim)},
                             {"uid", UidOf(claim)},
                             {"apiVersion", "v1"},
                             {"resourceVersion", Str(Member(Meta(claim), "resourceVersion"))}};
    if (!prebound) v["metadata"]["annotations"][kAnnBoundByController] = "yes";
    const client::RestResult r = client_.UpdateResult(VolumePath(volume), v);
    if (!r.ok()) return r.http_status == 404;
    v = r.body;
  }
  if (Phase(v) != "Bound" && !SetVolumePhase(v, "Bound")) return false;
  // bindClaimToVolume.
  json c = claim;
  bool changed = false;
  if (Str(Member(Spec(claim), "volumeName")) != NameOf(volume)) {
    c["spec"]["volumeName"] = NameOf(volume);
    c["metadata"]["annotations"][kAnnBoundByController] = "yes";
    changed = true;
  }
  if (!HasAnnotation(claim, kAnnBindCompleted)) {
    c["metadata"]["annotations"][kAnnBindCompleted] = "yes";
    changed = true;
  }
  if (changed) {
    const client::RestResult r = client_.UpdateResult(ClaimPath(claim), c);
    if (!r.ok()) return r.http_status == 404;
    c = r.body;
  }
  // updateClaimStatus(Bound, volume).
  if (Phase(c) == "Bound") return true;
  c["status"]["phase"] = "Bound";
  c["status"]["accessModes"] = Member(Spec(volume), "accessModes");
  c["status"]["capacity"] = Member(Spec(volume), "capacity");
  const client::RestResult r = client_.UpdateResult(ClaimPath(claim) + "/status", c);
  return r.ok() || r.http_status == 404;
}

std::optional<json> PersistentVolumeController::WriteClaimPhase(const json& claim,
                                                                const std::string& phase) {
  json c = claim;
  c["status"]["phase"] = phase;
  client::RestResult r = client_.UpdateResult(ClaimPath(claim) + "/status", c);
  if (r.ok()) return std::move(r.body);
  if (r.http_status == 404) return json();
  return std::nullopt;
}

bool PersistentVolumeController::SetClaimPhase(const json& claim, const std::string& phase) {
  return WriteClaimPhase(claim, phase).has_value();
}

bool PersistentVolumeController::SetVolumePhase(const json& volume, const std::string& phase) {
  json v = volume;
  v["status"]["phase"] = phase;
  const client::RestResult r = client_.UpdateResult(VolumePath(volume) + "/status", v);
  return r.ok() || r.http_status == 404;
}

std::optional<TimePoint> PersistentVolumeController::SyncVolume(const json& volume) {
  const TimePoint now = clock_.Now();
  const json& ref = Member(Spec(volume), "claimRef");
  if (ref.is_null() || Str(Member(ref, "uid")).empty()) {
    // Unbound, or pre-bound and waiting for its claim: Available, whatever it was (a Released
    // volume whose claimRef its user removed is reused).
    if (Phase(volume) == "Available") return std::nullopt;
    return SetVolumePhase(volume, "Available") ? std::nullopt : std::optional(now + kRetry);
  }
  const std::string claim_key = Key(Str(Member(ref, "namespace")), Str(Member(ref, "name")));
  client::ObjectRef claim = claims_->Get(claim_key);
  json live;
  if (claim == nullptr) {
    // The cache may be behind (a claim restored after its volume): ask the API server before
    // releasing, as kcm does.
    auto r =
        client_.Get(client::ResourcePath("", "v1", "persistentvolumeclaims",
                                         Str(Member(ref, "namespace")), Str(Member(ref, "name"))));
    if (r.ok()) {
      live = *std::move(r);
    } else if (r.status().code() != StatusCode::kNotFound) {
      return now + kRetry;
    }
  }
  const json* c = claim != nullptr ? claim.get() : (live.is_object() ? &live : nullptr);
  if (c == nullptr || UidOf(*c) != Str(Member(ref, "uid"))) {
    // The claim is gone: Released (then reclaimed: an external provisioner deletes it).
    if (Phase(volume) == "Released" || Phase(volume) == "Failed") return std::nullopt;
    return SetVolumePhase(volume, "Released") ? std::nullopt : std::optional(now + kRetry);
  }
  const std::string bound_to = Str(Member(Spec(*c), "volumeName"));
  if (bound_to.empty()) {
    queue_.Add(kClaimPrefix + claim_key);  // syncClaim binds
    return std::nullopt;
  }
  if (bound_to == NameOf(volume)) {
    if (Phase(volume) == "Bound") return std::nullopt;
    return SetVolumePhase(volume, "Bound") ? std::nullopt : std::optional(now + kRetry);
  }
  // The claim is bound to another volume. One this controller bound is unbound (Available
  // again); one its user pre-bound is Released.
  if (Annotation(volume, kAnnBoundByController) == "yes") {
    json unbound = volume;
    unbound["spec"].erase("claimRef");
    unbound["metadata"]["annotations"].erase(kAnnBoundByController);
    const client::RestResult r = client_.UpdateResult(VolumePath(volume), unbound);
    if (r.http_status == 404) return std::nullopt;
    if (!r.ok()) return now + kRetry;
    return SetVolumePhase(r.body, "Available") ? std::nullopt : std::optional(now + kRetry);
  }
  if (Phase(volume) == "Released" || Phase(volume) == "Failed") return std::nullopt;
  return SetVolumePhase(volume, "Released") ? std::nullopt : std::optional(now + kRetry);
}

std::string PersistentVolumeController::DefaultClass() const {
  const std::vector<client::ObjectRef> list = classes_->List();
  std::vector<const json*> classes;
  classes.reserve(list.size());
  for (const client::ObjectRef& sc : list) classes.push_back(sc.get());
  return api::codec::DefaultStorageClassName(classes);
}

void PersistentVolumeController::ClaimEvent(const json& claim, const char* type, const char* reason,
                                            std::string message) {
  if (events_ == nullptr) return;
  events_->Event({"PersistentVolumeClaim", NamespaceOf(claim), NameOf(claim), UidOf(claim)}, type,
                 reason, std::move(message));
}

}  // namespace tidepool::controllers::persistentvolume
