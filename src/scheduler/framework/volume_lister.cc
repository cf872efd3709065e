#include "scheduler/framework/volume_lister.h"

namespace tidepool::scheduler {
namespace {

std::string ClaimKey(const std::string& ns, const std::string& name) { return ns + "/" + name; }

bool Unbound(const api::PersistentVolume& v) {
  return !v.claim_ref.has_value() || v.claim_ref->uid.empty();
}

}  // namespace

void VolumeCache::PutClaim(api::PersistentVolumeClaimConstSharedPtr claim) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& kept = claims_[ClaimKey(claim->meta.namespace_, claim->meta.name)];
  // The assume cache's rule: an object older than the one kept does not replace it (the
  // API's answer to a write, kept at once, is not undone by an informer event from before it).
  if (kept != nullptr &&
      api::ResourceVersionOlder(claim->meta.resource_version, kept->meta.resource_version)) {
    return;
  }
  ++generation_;
  kept = std::move(claim);
}

void VolumeCache::RemoveClaim(const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  claims_.erase(ClaimKey(ns, name));
}

void VolumeCache::PutVolume(api::PersistentVolumeConstSharedPtr volume) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = volume->meta.name;
  if (auto it = volumes_.find(name); it != volumes_.end()) {
    if (api::ResourceVersionOlder(volume->meta.resource_version,
                                  it->second->meta.resource_version)) {
      return;
    }
    auto u = unbound_.find(it->second->ClassName());
    if (u != unbound_.end()) {
      u->second.erase(name);
      if (u->second.empty()) unbound_.erase(u);
    }
  }
  ++generation_;
  if (Unbound(*volume)) unbound_[volume->ClassName()][name] = volume;
  volumes_[name] = std::move(volume);
}

void VolumeCache::RemoveVolume(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  auto it = volumes_.find(name);
  if (it == volumes_.end()) return;
  auto u = unbound_.find(it->second->ClassName());
  if (u != unbound_.end()) {
    u->second.erase(name);
    if (u->second.empty()) unbound_.erase(u);
  }
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

}  // namespace tidepool::scheduler
