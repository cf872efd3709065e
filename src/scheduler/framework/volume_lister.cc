#include "scheduler/framework/volume_lister.h"

namespace tidepool::scheduler {
namespace {

std::string ClaimKey(const std::string& ns, const std::string& name) { return ns + "/" + name; }

bool Unbound(const api::PersistentVolume& v) {
  return !v.claim_ref.has_value() || v.claim_ref->uid.empty();
}

// Whether an object of resourceVersion `incoming` replaces one of `kept`: not when older; not
// when the same version (the same object) unless assumed.
bool Replaces(const std::string& incoming, const std::string& kept, bool assume) {
  if (api::ResourceVersionOlder(incoming, kept)) return false;
  return assume || incoming.empty() || incoming != kept;
}

}  // namespace

bool VolumeCache::KeepClaim(api::PersistentVolumeClaimConstSharedPtr claim, bool assume) {
  const std::string key = ClaimKey(claim->meta.namespace_, claim->meta.name);
  auto it = claims_.find(key);
  if (it == claims_.end()) {
    if (assume) return false;
    it = claims_.emplace(key, nullptr).first;
  } else if (!Replaces(claim->meta.resource_version, it->second->meta.resource_version, assume)) {
    return false;
  }
  ++generation_;
  it->second = std::move(claim);
  return true;
}

void VolumeCache::PutClaim(api::PersistentVolumeClaimConstSharedPtr claim) {
  std::lock_guard<std::mutex> lock(mu_);
  KeepClaim(std::move(claim), false);
}

bool VolumeCache::AssumeClaim(api::PersistentVolumeClaimConstSharedPtr claim) {
  std::lock_guard<std::mutex> lock(mu_);
  return KeepClaim(std::move(claim), true);
}

void VolumeCache::RemoveClaim(const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  claims_.erase(ClaimKey(ns, name));
}

void VolumeCache::Unindex(const api::PersistentVolume& v) {
  // Drops `v` from index[key], and the key with its last volume.
  auto drop = [&v](auto& index, const std::string& key) {
    auto it = index.find(key);
    if (it == index.end()) return;
    it->second.erase(v.meta.name);
    if (it->second.empty()) index.erase(it);
  };
  drop(unbound_, v.ClassName());
  if (v.claim_ref.has_value()) drop(claimed_, ClaimKey(v.claim_ref->namespace_, v.claim_ref->name));
}

bool VolumeCache::KeepVolume(api::PersistentVolumeConstSharedPtr volume, bool assume) {
  const std::string name = volume->meta.name;
  auto it = volumes_.find(name);
  if (it == volumes_.end()) {
    if (assume) return false;
  } else if (!Replaces(volume->meta.resource_version, it->second->meta.resource_version, assume)) {
    return false;
  } else {
    Unindex(*it->second);
  }
  ++generation_;
  if (Unbound(*volume)) {
    unbound_[volume->ClassName()][name] = volume;
  } else {
    claimed_[ClaimKey(volume->claim_ref->namespace_, volume->claim_ref->name)][name] = volume;
  }
  volumes_[name] = std::move(volume);
  return true;
}

void VolumeCache::PutVolume(api::PersistentVolumeConstSharedPtr volume) {
  std::lock_guard<std::mutex> lock(mu_);
  KeepVolume(std::move(volume), false);
}

bool VolumeCache::AssumeVolume(api::PersistentVolumeConstSharedPtr volume) {
  std::lock_guard<std::mutex> lock(mu_);
  return KeepVolume(std::move(volume), true);
}

void VolumeCache::RemoveVolume(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  auto it = volumes_.find(name);
  if (it == volumes_.end()) return;
  Unindex(*it->second);
  volumes_.erase(it);
}

void VolumeCache::PutClass(api::StorageClassConstSharedPtr sc) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  classes_[sc->name] = std::move(sc);
}

void VolumeCache::RemoveClass(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  classes_.erase(name);
}

api::PersistentVolumeClaimConstSharedPtr VolumeCache::Claim(const std::string& ns,
                                                            const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = claims_.find(ClaimKey(ns, name));
  return it == claims_.end() ? nullptr : it->second;
}

api::PersistentVolumeConstSharedPtr VolumeCache::Volume(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = volumes_.find(name);
  return it == volumes_.end() ? nullptr : it->second;
}

api::StorageClassConstSharedPtr VolumeCache::Class(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

std::vector<api::PersistentVolumeConstSharedPtr> VolumeCache::UnboundVolumes(
    const std::string& class_name) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<api::PersistentVolumeConstSharedPtr> out;
  auto it = unbound_.find(class_name);
  if (it == unbound_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [name, v] : it->second) out.push_back(v);
  return out;
}

api::PersistentVolumeConstSharedPtr VolumeCache::VolumeClaimedBy(const std::string& ns,
                                                                 const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = claimed_.find(ClaimKey(ns, name));
  return it == claimed_.end() ? nullptr : it->second.begin()->second;
}

}  // namespace tidepool::scheduler
