#include "controllers/persistentvolume/external_provisioner.h"

#include <algorithm>
#include <utility>

#include "api/codec/storage_json.h"
#include "common/fnv.h"
#include "controllers/persistentvolume/persistentvolume_controller.h"
#include "controllers/persistentvolume/volume_json.h"

namespace tidepool::controllers::persistentvolume {

using nlohmann::json;

namespace {

constexpr Duration kRetry = std::chrono::seconds(1);
constexpr char kClaimPrefix[] = "claim/";
constexpr char kVolumePrefix[] = "volume/";

// The claim's storage request in whole GiB, rounded up (the PD driver's sizes); at least 1.
int64_t Gibibytes(const json& claim) {
  constexpr int64_t kGi = int64_t{1} << 30;
  return std::max<int64_t>(1, (Requested(claim) + kGi - 1) / kGi);
}

}  // namespace

ExternalProvisioner::ExternalProvisioner(const client::RestClient& client, const Clock& clock,
                                         ExternalProvisionerOptions options,
                                         autoscaler::EventRecorder* events,
                                         client::SharedInformerFactory* informers,
                                         TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      events_(events),
      executor_(executor),
      // external-provisioner's identity: start time in ms, a number, the driver.
      identity_(std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   clock.Now().time_since_epoch())
                                   .count()) +
                "-" + std::to_string(options_.seed % 10000) + "-" + options_.driver),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  auto make = [&](const char* name, const char* path, uint64_t seed) {
    return ObjectInformer(informers, client_, clock_, name, path, seed);
  };
  claims_ = make("provisioner-claims", "/api/v1/persistentvolumeclaims", options_.seed);
  volumes_ = make("provisioner-volumes", "/api/v1/persistentvolumes", options_.seed + 1);
  classes_ =
      make("provisioner-classes", "/apis/storage.k8s.io/v1/storageclasses", options_.seed + 2);
  auto on_claim = [this](const client::ObjectRef& o) { queue_.Add(kClaimPrefix + ClaimKey(*o)); };
  claims_->AddEventHandlers(
      {[on_claim](const client::ObjectRef& o, bool) { on_claim(o); },
       [on_claim](const client::ObjectRef&, const client::ObjectRef& o) { on_claim(o); }, nullptr});
  auto on_volume = [this](const client::ObjectRef& o) { queue_.Add(kVolumePrefix + NameOf(*o)); };
  volumes_->AddEventHandlers(
      {[on_volume](const client::ObjectRef& o, bool) { on_volume(o); },
       [on_volume](const client::ObjectRef&, const client::ObjectRef& o) { on_volume(o); },
       nullptr});
  classes_->AddEventHandlers({nullptr, nullptr, nullptr});
}

ExternalProvisioner::~ExternalProvisioner() { Stop(); }

void ExternalProvisioner::Start() {
  if (executor_ == nullptr) {
    claims_->Start();
    volumes_->Start();
    classes_->Start();
  }
  queue_.Start();
}

void ExternalProvisioner::Stop() {
  queue_.Stop();
  client::StopAll({claims_.get(), volumes_.get(), classes_.get()});
}

bool ExternalProvisioner::HasSynced() const {
  return claims_->HasSynced() && volumes_->HasSynced() && classes_->HasSynced();
}

std::optional<TimePoint> ExternalProvisioner::Sync(const std::string& key) {
  if (key.rfind(kClaimPrefix, 0) == 0) {
    const std::string claim_key = key.substr(sizeof(kClaimPrefix) - 1);
    const client::ObjectRef claim = claims_->Get(claim_key);
    if (claim == nullptr) {
      provisioning_.erase(claim_key);
      return std::nullopt;
    }
    return SyncClaim(claim_key, *claim);
  }
  const client::ObjectRef volume = volumes_->Get(key.substr(sizeof(kVolumePrefix) - 1));
  return volume == nullptr ? std::nullopt : SyncVolume(*volume);
}

std::optional<TimePoint> ExternalProvisioner::SyncClaim(const std::string& key, const json& claim) {
  // shouldProvision.
  std::string provisioner = Annotation(claim, kAnnStorageProvisioner);
  if (provisioner.empty()) provisioner = Annotation(claim, kAnnBetaStorageProvisioner);
  const client::ObjectRef sc = classes_->Get(api::codec::ClassNameOf(claim));
  const bool wait =
      sc != nullptr && Str(Member(*sc, "volumeBindingMode")) == "WaitForFirstConsumer";
  const std::string selected = Annotation(claim, kAnnSelectedNode);
  const std::string volume_name = "pvc-" + UidOf(claim);
  if (provisioner != options_.driver || !Str(Member(Spec(claim), "volumeName")).empty() ||
      BeingDeleted(claim) || (wait && selected.empty()) || volumes_->Get(volume_name) != nullptr) {
    provisioning_.erase(key);
    return std::nullopt;
  }
  // Its class not seen yet (the cache behind, or created after the claim): look again.
  if (sc == nullptr) return clock_.Now() + 5 * kRetry;
  const TimePoint now = clock_.Now();
  auto it = provisioning_.find(key);
  if (it == provisioning_.end()) {
    Event(claim, "Normal", "Provisioning",
          "External provisioner is provisioning volume for claim \"" + key + "\"");
    it = provisioning_.emplace(key, now + options_.provisioning).first;
  }
  if (now < it->second) return it->second;
  std::string zone;
  if (wait) {
    auto node = client_.Get(client::ResourcePath("", "v1", "nodes", "", selected));
    if (!node.ok()) {
      if (node.status().code() != StatusCode::kNotFound) return now + kRetry;
      provisioning_.erase(it);
      Event(claim, "Warning", "ProvisioningFailed",
            "failed to get target node: node \"" + selected + "\" not found");
      // ProvisioningReschedule: the scheduler chooses another node.
      const client::RestResult r =
          client_.PatchResult(ClaimPath(claim), client::PatchType::kMerge,
                              json{{"metadata", {{"annotations", {{kAnnSelectedNode, nullptr}}}}}});
      return r.ok() || r.http_status == 404 ? std::nullopt : std::optional(now + kRetry);
    }
    zone = Str(Member(Member(Meta(*node), "labels"), options_.zone_label.c_str()));
  } else if (!options_.zones.empty()) {
    zone = options_.zones[Fnv1a64(UidOf(claim)) % options_.zones.size()];
  }
  const client::RestResult r =
      client_.CreateResult("/api/v1/persistentvolumes", VolumeFor(claim, *sc, zone));
  if (!r.ok() && r.http_status != 409) return now + kRetry;
  provisioning_.erase(it);
  if (r.ok()) {
    Event(claim, "Normal", "ProvisioningSucceeded",
          "Successfully provisioned volume " + volume_name);
  }
  return std::nullopt;
}

json ExternalProvisioner::VolumeFor(const json& claim, const json& sc,
                                    const std::string& zone) const {
  const std::string name = "pvc-" + UidOf(claim);
  std::string policy = Str(Member(sc, "reclaimPolicy"));
  if (policy.empty()) policy = "Delete";
  std::string mode = Str(Member(Spec(claim), "volumeMode"));
  if (mode.empty()) mode = "Filesystem";
  json v = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolume"},
      {"metadata", {{"name", name}, {"annotations", {{kAnnProvisionedBy, options_.driver}}}}},
      {"spec",
       {{"accessModes", Member(Spec(claim), "accessModes")},
        {"capacity", {{"storage", std::to_string(Gibibytes(claim)) + "Gi"}}},
        {"claimRef",
         {{"kind", "PersistentVolumeClaim"},
          {"namespace", NamespaceOf(claim)},
          {"name", NameOf(claim)},
          {"uid", UidOf(claim)},
          {"apiVersion", "v1"},
          {"resourceVersion", Str(Member(Meta(claim), "resourceVersion"))}}},
        {"csi",
         {{"driver", options_.driver},
          {"fsType", "ext4"},
          {"volumeAttributes", {{"storage.kubernetes.io/csiProvisionerIdentity", identity_}}},
          {"volumeHandle", "projects/" + options_.project + "/zones/" + zone + "/disks/" + name}}},
        {"persistentVolumeReclaimPolicy", policy},
        {"storageClassName", api::codec::ClassNameOf(claim)},
        {"volumeMode", mode}}}};
  // The finalizer that keeps the object until the disk is deleted: only what is reclaimed.
  if (policy == "Delete") v["metadata"]["finalizers"] = json::array({kProvisionerFinalizer});
  if (!zone.empty()) {
    v["spec"]["nodeAffinity"] = {
        {"required",
         {{"nodeSelectorTerms",
           json::array(
               {{{"matchExpressions", json::array({{{"key", options_.zone_label},
                                                    {"operator", "In"},
                                                    {"values", json::array({zone})}}})}}})}}}};
  }
  return v;
}

std::optional<TimePoint> ExternalProvisioner::SyncVolume(const json& volume) {
  if (Annotation(volume, kAnnProvisionedBy) != options_.driver) return std::nullopt;
  const std::string phase = Str(Member(Member(volume, "status"), "phase"));
  const bool deleting = !Member(Meta(volume), "deletionTimestamp").is_null();
  // Released with policy Delete: the disk is deleted, then the object. Being deleted
  // otherwise (and no longer Bound): only the finalizer comes off; the disk stays.
  const bool reclaim =
      phase == "Released" && Str(Member(Spec(volume), "persistentVolumeReclaimPolicy")) == "Delete";
  if (!reclaim && !(deleting && phase != "Bound")) return std::nullopt;
  const std::string path = VolumePath(volume);
  // The disk is deleted; then the finalizer comes off and the object goes.
  const json& finalizers = Member(Meta(volume), "finalizers");
  if (finalizers.is_array()) {
    json kept = json::array();
    for (const json& f : finalizers) {
      if (Str(f) != kProvisionerFinalizer) kept.push_back(f);
    }
    if (kept.size() != finalizers.size()) {
      json updated = volume;
      updated["metadata"]["finalizers"] = kept;
      const client::RestResult r = client_.UpdateResult(path, updated);
      if (r.http_status == 404) return std::nullopt;
      if (!r.ok()) return clock_.Now() + kRetry;
    }
  }
  if (reclaim && !deleting) {
    auto r = client_.Delete(path);
    if (!r.ok() && r.status().code() != StatusCode::kNotFound) return clock_.Now() + kRetry;
  }
  return std::nullopt;
}

void ExternalProvisioner::Event(const json& claim, const char* type, const char* reason,
                                std::string message) {
  if (events_ == nullptr) return;
  events_->Event({"PersistentVolumeClaim", NamespaceOf(claim), NameOf(claim), UidOf(claim)}, type,
                 reason, std::move(message));
}

}  // namespace tidepool::controllers::persistentvolume
