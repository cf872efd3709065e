// File: volume_lister.h
//
// VolumeLister: what kube-scheduler's VolumeBinding plugin reads of the cluster's storage
// through its listers (PersistentVolumeClaims, PersistentVolumes, StorageClasses), for the
// scheduler and for the autoscaler's estimator alike (carried in PluginArgs::volumes; when none
// is given the plugin skips every pod, as for a pod without claims).
//
// VolumeCache is the one implementation: filled by whoever watches the objects (runtime's
// KubeScheduler from its informers: Put/Remove; a test by hand) and by the scheduler with the
// API's answers to its own writes (Assume, as kube-scheduler's assume cache), read by the
// plugins. As the assume cache: a claim or volume not newer (by resourceVersion) than the one
// kept does not replace it, and Assume only replaces an object the cache has. Thread-safe: a
// read returns shared pointers to immutable objects, consistent per call.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api/storage.h"

namespace tidepool::scheduler {

class VolumeLister {
 public:
  virtual ~VolumeLister() = default;
  // Null when absent.
  virtual api::PersistentVolumeClaimConstSharedPtr Claim(const std::string& ns,
                                                         const std::string& name) const = 0;
  virtual api::PersistentVolumeConstSharedPtr Volume(const std::string& name) const = 0;
  virtual api::StorageClassConstSharedPtr Class(const std::string& name) const = 0;
  // The volumes whose class (ClassName()) is `class_name` and that no claim is bound to
  // (no spec.claimRef, or one without uid), by name: the candidates for a delayed binding.
  virtual std::vector<api::PersistentVolumeConstSharedPtr> UnboundVolumes(
      const std::string& class_name) const = 0;
  // The volume whose claimRef names the claim `ns`/`name` with a uid (bound, or being bound by
  // the scheduler or the PV controller), the first by name; null when none.
  virtual api::PersistentVolumeConstSharedPtr VolumeClaimedBy(const std::string& ns,
                                                              const std::string& name) const = 0;
  // Changes each time anything above changes (a memo of answers that read it compares it).
  virtual uint64_t generation() const = 0;
};

class VolumeCache final : public VolumeLister {
 public:
  void PutClaim(api::PersistentVolumeClaimConstSharedPtr claim);
  // The API's answer to a write of a claim or volume the cache has: kept unless older than the
  // one kept; false (nothing kept) when the cache does not have it (deleted meanwhile).
  bool AssumeClaim(api::PersistentVolumeClaimConstSharedPtr claim);
  bool AssumeVolume(api::PersistentVolumeConstSharedPtr volume);
  void RemoveClaim(const std::string& ns, const std::string& name);
  void PutVolume(api::PersistentVolumeConstSharedPtr volume);
  void RemoveVolume(const std::string& name);
  void PutClass(api::StorageClassConstSharedPtr sc);
  void RemoveClass(const std::string& name);

  api::PersistentVolumeClaimConstSharedPtr Claim(const std::string& ns,
                                                 const std::string& name) const override;
  api::PersistentVolumeConstSharedPtr Volume(const std::string& name) const override;
  api::StorageClassConstSharedPtr Class(const std::string& name) const override;
  std::vector<api::PersistentVolumeConstSharedPtr> UnboundVolumes(
      const std::string& class_name) const override;
  api::PersistentVolumeConstSharedPtr VolumeClaimedBy(const std::string& ns,
                                                      const std::string& name) const override;
  uint64_t generation() const override { return generation_.load(); }

 private:
  // Keeps `claim` unless the one kept is as new (Put) or newer (Assume). Under mu_.
  bool KeepClaim(api::PersistentVolumeClaimConstSharedPtr claim, bool assume);
  bool KeepVolume(api::PersistentVolumeConstSharedPtr volume, bool assume);
  void Unindex(const api::PersistentVolume& v);

  std::atomic<uint64_t> generation_{0};
  mutable std::mutex mu_;
  std::map<std::string, api::PersistentVolumeClaimConstSharedPtr> claims_;  // "ns/name"
  std::map<std::string, api::PersistentVolumeConstSharedPtr> volumes_;
  // Unbound volumes by class, then name.
  std::map<std::string, std::map<std::string, api::PersistentVolumeConstSharedPtr>> unbound_;
  // Volumes whose claimRef has a uid, by the claim's "ns/name", then the volume's name.
  std::map<std::string, std::map<std::string, api::PersistentVolumeConstSharedPtr>> claimed_;
  std::map<std::string, api::StorageClassConstSharedPtr> classes_;
};

}  // namespace tidepool::scheduler
