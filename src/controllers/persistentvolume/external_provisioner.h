// File: persistentvolume/external_provisioner.h
//
// ExternalProvisioner: a CSI driver's external-provisioner sidecar (kubernetes-csi
// external-provisioner v5 on sig-storage-lib-external-provisioner v11) as GKE runs it for
// pd.csi.storage.gke.io, with the emulated cloud's disks:
//   - a claim the PV controller handed to it (volume.kubernetes.io/storage-provisioner, or the
//     beta key, naming the driver), not bound, not being deleted, whose class exists - and, for
//     a WaitForFirstConsumer class, that the scheduler gave a node
//     (volume.kubernetes.io/selected-node) - is provisioned: Normal Provisioning "External
//     provisioner is provisioning volume for claim \"<ns>/<name>\"", then, `provisioning` later
//     (the disk's creation), the PersistentVolume pvc-<claim uid> and Normal
//     ProvisioningSucceeded "Successfully provisioned volume pvc-<uid>". The volume: annotation
//     pv.kubernetes.io/provisioned-by, finalizer external-provisioner.volume.kubernetes.io/
//     finalizer (reclaim policy Delete only), the claim's access modes and volume mode, its request
//     rounded up to whole GiB, the class's reclaim policy, claimRef with the claim's uid, a csi
//     source (driver, fsType ext4, volumeHandle projects/<project>/zones/<zone>/disks/pvc-<uid>,
//     the provisioner's identity) and node affinity `<zone label> In [<zone>]`. The zone is the
//     selected node's label; for an Immediate class, one of `zones` (by the claim's uid). A
//     selected node that does not exist: Warning ProvisioningFailed "failed to get target node:
//     node \"<n>\" not found" and the annotation removed (the scheduler chooses again).
//   - a volume it provisioned whose claim is gone (phase Released) with reclaim policy Delete:
//     its disk is deleted, the finalizer removed and the volume deleted; one being deleted
//     otherwise and no longer Bound: only the finalizer removed. A claim whose class is not
//     known yet is looked at again 5 s later.
// The PV controller binds the claim to the new volume (persistentvolume_controller.h).
//
// In: informers of persistentvolumeclaims, persistentvolumes and storageclasses. Out: API
// writes and events (the recorder's source is the sidecar's identity). One worker, keys
// "claim/<ns>/<name>" and "volume/<name>". Threads as the other controllers.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::persistentvolume {

inline constexpr char kProvisionerFinalizer[] =
    "external-provisioner.volume.kubernetes.io/finalizer";

struct ExternalProvisionerOptions {
  std::string driver = "pd.csi.storage.gke.io";
  // How long a disk takes to create.
  Duration provisioning = std::chrono::seconds(3);
  std::string project = "tidepool-local";
  // Where an Immediate class's volumes go (none: no zone, no node affinity); the label a
  // node's zone is read from.
  std::vector<std::string> zones;
  std::string zone_label = "topology.gke.io/zone";
  uint64_t seed = 1;

  template <typename F>
  void ForEachDuration(F&& f) {
    f("provisioning", provisioning, TimeBase::kEmulated);
  }
};

class ExternalProvisioner {
 public:
  // `client`, `clock` and `events` (and `executor` when given) must outlive it; `informers`
  // and `executor` may be null.
  ExternalProvisioner(const client::RestClient& client, const Clock& clock,
                      ExternalProvisionerOptions options, autoscaler::EventRecorder* events,
                      client::SharedInformerFactory* informers = nullptr,
                      TimerService* executor = nullptr);
  ~ExternalProvisioner();
  ExternalProvisioner(const ExternalProvisioner&) = delete;
  ExternalProvisioner& operator=(const ExternalProvisioner&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

  // The volume it makes for `claim` of `sc` in `zone` (exposed for tests).
  nlohmann::json VolumeFor(const nlohmann::json& claim, const nlohmann::json& sc,
                           const std::string& zone) const;

 private:
  std::optional<TimePoint> Sync(const std::string& key);
  std::optional<TimePoint> SyncClaim(const std::string& key, const nlohmann::json& claim);
  std::optional<TimePoint> SyncVolume(const nlohmann::json& volume);
  void Event(const nlohmann::json& claim, const char* type, const char* reason,
             std::string message);

  const client::RestClient& client_;
  const Clock& clock_;
  const ExternalProvisionerOptions options_;
  autoscaler::EventRecorder* const events_;
  TimerService* const executor_;
  const std::string identity_;  // csiProvisionerIdentity
  std::shared_ptr<client::Informer> claims_;
  std::shared_ptr<client::Informer> volumes_;
  std::shared_ptr<client::Informer> classes_;
  // Claims being provisioned (worker only): key -> when the disk is ready.
  std::map<std::string, TimePoint> provisioning_;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::persistentvolume
