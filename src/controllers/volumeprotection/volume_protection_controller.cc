#include "controllers/volumeprotection/volume_protection_controller.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "controllers/object_json.h"

namespace tidepool::controllers::volumeprotection {

using nlohmann::json;

namespace {

constexpr Duration kRetry = std::chrono::seconds(1);

bool HasFinalizer(const json& obj, std::string_view finalizer) {
  const json& list = Member(Meta(obj), "finalizers");
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(), [&](const json& f) { return Str(f) == finalizer; });
}

bool BeingDeleted(const json& obj) { return !Member(Meta(obj), "deletionTimestamp").is_null(); }

// The object with `finalizer` added or removed.
json WithFinalizer(json obj, std::string_view finalizer, bool present) {
  json& list = obj["metadata"]["finalizers"];
  json out = json::array();
  if (list.is_array()) {
    for (const json& f : list) {
      if (Str(f) != finalizer) out.push_back(f);
    }
  }
  if (present) out.push_back(finalizer);
  if (out.empty()) {
    obj["metadata"].erase("finalizers");
  } else {
    list = std::move(out);
  }
  return obj;
}

// processPVC / processPV once the cached object is read: the finalizer's removal from an object
// being deleted that `in_use` does not hold, or its addition to one that lacks it. nullopt:
// done (written, or nothing to write, or gone).
std::optional<TimePoint> KeepFinalizer(const client::RestClient& client, const Clock& clock,
                                       const std::string& path, const json& obj,
                                       std::string_view finalizer,
                                       const std::function<bool()>& in_use) {
  const bool has = HasFinalizer(obj, finalizer);
  std::optional<bool> want;
  if (BeingDeleted(obj) && has && !in_use()) want = false;
  if (!BeingDeleted(obj) && !has) want = true;
  if (!want.has_value()) return std::nullopt;
  const client::RestResult r = client.UpdateResult(path, WithFinalizer(obj, finalizer, *want));
  if (r.ok() || r.http_status == 404) return std::nullopt;
  return clock.Now() + kRetry;  // a conflict: the cache is behind; read it again
}

}  // namespace

std::vector<std::string> ClaimsHeldBy(const json& pod) {
  std::vector<std::string> out;
  if (Str(Member(Member(pod, "spec"), "nodeName")).empty()) return out;
  const std::string ns = Str(Member(Meta(pod), "namespace"));
  const json& volumes = Member(Member(pod, "spec"), "volumes");
  if (!volumes.is_array()) return out;
  for (const json& v : volumes) {
    const std::string claim = Str(Member(Member(v, "persistentVolumeClaim"), "claimName"));
    if (!claim.empty()) out.push_back(Key(ns, claim));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---- PvcProtectionController ---------------------------------------------------------------

PvcProtectionController::PvcProtectionController(const client::RestClient& client,
                                                 const Clock& clock,
                                                 VolumeProtectionOptions options,
                                                 client::SharedInformerFactory* informers,
                                                 TimerService* executor)
    : client_(client),
      clock_(clock),
      executor_(executor),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  client::InformerOptions claims;
  claims.path = "/api/v1/persistentvolumeclaims";
  claims.name = "pvc-protection-claims";
  claims.seed = options.seed;
  claims_ = client::MakeInformer(informers, client_, clock_, claims, nullptr);
  // The handlers read what they keep: the shared pods informer, whose cache holds stubs.
  pods_ = client::MakeDecodingInformer(informers, client_, clock_, "pvc-protection-pods",
                                       "/api/v1/pods", options.seed + 1, nullptr);
  // A claim is looked at when it needs the finalizer or is a deletion candidate.
  auto on_claim = [this](const client::ObjectRef& o) {
    const bool has = HasFinalizer(*o, kPvcProtectionFinalizer);
    if (BeingDeleted(*o) == has) {
      queue_.Add(Key(Str(Member(Meta(*o), "namespace")), Str(Member(Meta(*o), "name"))));
    }
  };
  claims_->AddEventHandlers(
      {[on_claim](const client::ObjectRef& o, bool) { on_claim(o); },
       [on_claim](const client::ObjectRef&, const client::ObjectRef& o) { on_claim(o); }, nullptr});
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(client::Informer::KeyOf(*o), o.get()); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) {
         OnPod(client::Informer::KeyOf(*o), o.get());
       },
       [this](const client::ObjectRef& o, bool) { OnPod(client::Informer::KeyOf(*o), nullptr); }});
}

PvcProtectionController::~PvcProtectionController() { Stop(); }

void PvcProtectionController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    claims_->Start();
    pods_->Start();
  }
  queue_.Start();
}

void PvcProtectionController::Stop() {
  queue_.Stop();
  client::StopAll({claims_.get(), pods_.get()});
}

bool PvcProtectionController::HasSynced() const {
  return claims_->HasSynced() && pods_->HasSynced();
}

void PvcProtectionController::OnPod(const std::string& pod_key, const json* now) {
  std::vector<std::string> held = now != nullptr ? ClaimsHeldBy(*now) : std::vector<std::string>();
  std::vector<std::string> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = held_.find(pod_key);
    if (it != held_.end()) {
      for (const std::string& claim : it->second) {
        if (std::binary_search(held.begin(), held.end(), claim)) continue;
        released.push_back(claim);
        auto u = users_.find(claim);
        if (u == users_.end()) continue;
        u->second.erase(pod_key);
        if (u->second.empty()) users_.erase(u);
      }
    }
    for (const std::string& claim : held) users_[claim].insert(pod_key);
    if (held.empty()) {
      if (it != held_.end()) held_.erase(it);
    } else {
      held_[pod_key] = std::move(held);
    }
  }
  for (const std::string& claim : released) queue_.Add(claim);
}

std::optional<bool> PvcProtectionController::InUse(const std::string& ns,
                                                   const std::string& name) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (users_.count(Key(ns, name)) != 0) return true;
  }
  // askAPIServer: the cache may not have seen a pod that was just bound.
  auto pods = client_.List("/api/v1/namespaces/" + ns + "/pods");
  if (!pods.ok()) return std::nullopt;
  const json& items = Member(*pods, "items");
  if (!items.is_array()) return false;
  const std::string key = Key(ns, name);
  for (json pod : items) {
    if (!pod.is_object() || !Meta(pod).is_object()) continue;
    pod["metadata"]["namespace"] = ns;
    const std::vector<std::string> held = ClaimsHeldBy(pod);
    if (std::binary_search(held.begin(), held.end(), key)) return true;
  }
  return false;
}

std::optional<TimePoint> PvcProtectionController::Sync(const std::string& key) {
  const client::ObjectRef claim = claims_->Get(key);
  if (claim == nullptr) return std::nullopt;
  const std::string ns = Str(Member(Meta(*claim), "namespace"));
  const std::string name = Str(Member(Meta(*claim), "name"));
  bool unknown = false;
  auto in_use = [&] {
    const std::optional<bool> used = InUse(ns, name);
    unknown = !used.has_value();
    return used.value_or(true);
  };
  auto again = KeepFinalizer(client_, clock_,
                             client::ResourcePath("", "v1", "persistentvolumeclaims", ns, name),
                             *claim, kPvcProtectionFinalizer, in_use);
  // The pods could not be listed: look again (no pod event may come).
  if (unknown) return clock_.Now() + kRetry;
  return again;
}

// ---- PvProtectionController ----------------------------------------------------------------

PvProtectionController::PvProtectionController(const client::RestClient& client, const Clock& clock,
                                               VolumeProtectionOptions options,
                                               client::SharedInformerFactory* informers,
                                               TimerService* executor)
    : client_(client),
      clock_(clock),
      executor_(executor),
      queue_(
          clock, [this](const std::string& name) { return Sync(name); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  client::InformerOptions volumes;
  volumes.path = "/api/v1/persistentvolumes";
  volumes.name = "pv-protection-volumes";
  volumes.seed = options.seed;
  volumes_ = client::MakeInformer(informers, client_, clock_, volumes, nullptr);
  auto on_volume = [this](const client::ObjectRef& o) {
    const bool has = HasFinalizer(*o, kPvProtectionFinalizer);
    if (BeingDeleted(*o) == has) queue_.Add(Str(Member(Meta(*o), "name")));
  };
  volumes_->AddEventHandlers(
      {[on_volume](const client::ObjectRef& o, bool) { on_volume(o); },
       [on_volume](const client::ObjectRef&, const client::ObjectRef& o) { on_volume(o); },
       nullptr});
}

PvProtectionController::~PvProtectionController() { Stop(); }

void PvProtectionController::Start() {
  if (executor_ == nullptr) volumes_->Start();
  queue_.Start();
}

void PvProtectionController::Stop() {
  queue_.Stop();
  client::StopAll({volumes_.get()});
}

bool PvProtectionController::HasSynced() const { return volumes_->HasSynced(); }

std::optional<TimePoint> PvProtectionController::Sync(const std::string& name) {
  const client::ObjectRef volume = volumes_->Get(name);
  if (volume == nullptr) return std::nullopt;
  auto bound = [&] { return Str(Member(Member(*volume, "status"), "phase")) == "Bound"; };
  return KeepFinalizer(client_, clock_,
                       client::ResourcePath("", "v1", "persistentvolumes", "", name), *volume,
                       kPvProtectionFinalizer, bound);
}

}  // namespace tidepool::controllers::volumeprotection
