// File: persistentvolume/persistentvolume_controller.h
//
// PersistentVolumeController: kube-controller-manager 1.32's persistent-volume-binder
// (pkg/controller/volume/persistentvolume; client "persistent-volume-binder", event source
// "persistentvolume-controller"), for the cases a GKE cluster meets: claims bound to existing
// volumes, claims of provisioning classes handed to their external provisioner, and volumes
// released when their claim goes. Events and annotations as kcm's:
//
// A claim not yet bound (no pv.kubernetes.io/bind-completed):
//   - without any class (no spec.storageClassName, not even "") while a default class exists:
//     the default class is written into it (retroactive default StorageClass assignment);
//   - spec.volumeName empty: the best Available volume is looked for (FindMatchingVolume: a
//     volume pre-bound to it by claimRef wins; else, unless its class binds
//     WaitForFirstConsumer, an Available volume of its class, not being deleted, whose access
//     modes include the claim's, of its volume mode, large enough; the smallest, then by name)
//     and bound. None:
//       - WaitForFirstConsumer and no volume.kubernetes.io/selected-node: Normal
//         WaitForFirstConsumer "waiting for first consumer to be created before binding", or
//         WaitForPodScheduled "waiting for pod(s) <names> to be scheduled" while unscheduled pods
//         use it;
//       - a class with an external provisioner (a name without the kubernetes.io/ prefix, or
//         kubernetes.io/gce-pd, migrated to pd.csi.storage.gke.io on GKE): the annotations
//         volume.kubernetes.io/storage-provisioner and its beta key set to it, and Normal
//         ExternalProvisioning "Waiting for a volume to be created either by the external
//         provisioner '<p>' or manually by the system administrator. If volume creation is
//         delayed, please verify that the provisioner is running and correctly registered.";
//       - another kubernetes.io/ provisioner (kubernetes.io/no-provisioner): Warning
//         ProvisioningFailed "no volume plugin matched name: <p>";
//       - no class: Normal FailedBinding "no persistent volumes available for this claim and no
//         storage class is set".
//     Each is emitted again at every resync (15 s, PVClaimBinderSyncPeriod) while the claim
//     waits; the API's event correlation counts them.
//   - spec.volumeName set (pre-bound by its user): bound to that volume when it is free or
//     pre-bound to it and satisfies the claim; Warning FailedBinding "volume \"<v>\" already
//     bound to a different claim." when another claim has it, Warning VolumeMismatch "Cannot
//     bind to requested volume \"<v>\": <requested PV is too small | storageClassName does not
//     match | incompatible volumeMode | incompatible accessMode>" when it does not fit; waits
//     while it does not exist.
// Binding writes, in kcm's order: the volume's spec.claimRef (kind, namespace, name, uid,
// apiVersion, resourceVersion) and pv.kubernetes.io/bound-by-controller "yes" unless it was
// pre-bound; its status.phase Bound; the claim's spec.volumeName (with bound-by-controller when
// set here) and pv.kubernetes.io/bind-completed "yes"; its status phase Bound, accessModes and
// capacity from the volume.
// A bound claim whose volume is gone: status Lost and Warning ClaimLost "Bound claim has lost
// its PersistentVolume. Data on the volume is lost!".
// A migrated class's claim also gets pv.kubernetes.io/migrated-to.
// A volume: no claimRef, or one without uid: Available (a Released volume whose claimRef was
// removed is reused). Its claim gone (or another uid; a claim missing from the cache is asked
// of the API server first): Released; then, with reclaim policy Delete and provisioned by an
// external provisioner, it is that provisioner's to delete; Retain keeps it Released. Its claim
// bound to another volume: unbound (Available) when this controller bound it, else Released.
// A deleted claim queues every volume whose claimRef names it.
// Not modelled: label selectors on claims, volume expansion, in-tree provisioners and
// deleters, recycling, VolumeAttributesClasses, the claim-to-volume access-mode index order.
//
// In: informers of persistentvolumeclaims, persistentvolumes, storageclasses and pods. Out: API
// writes and events. One worker (work_queue.h), keys "claim/<ns>/<name>" and "volume/<name>".
// Threads as the other controllers.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::persistentvolume {

inline constexpr char kAnnBindCompleted[] = "pv.kubernetes.io/bind-completed";
inline constexpr char kAnnBoundByController[] = "pv.kubernetes.io/bound-by-controller";
inline constexpr char kAnnSelectedNode[] = "volume.kubernetes.io/selected-node";
inline constexpr char kAnnStorageProvisioner[] = "volume.kubernetes.io/storage-provisioner";
inline constexpr char kAnnBetaStorageProvisioner[] =
    "volume.beta.kubernetes.io/storage-provisioner";
inline constexpr char kAnnProvisionedBy[] = "pv.kubernetes.io/provisioned-by";
inline constexpr char kAnnMigratedTo[] = "pv.kubernetes.io/migrated-to";

struct PersistentVolumeControllerOptions {
  // PVClaimBinderSyncPeriod: how often waiting claims and volumes are looked at again.
  Duration resync = std::chrono::seconds(15);
  uint64_t seed = 1;

  template <typename F>
  void ForEachDuration(F&& f) {
    f("resync", resync, TimeBase::kEmulated);
  }
};

// The provisioner that creates a class's volumes: the class's own, or the CSI driver an
// in-tree one is migrated to (kubernetes.io/gce-pd: pd.csi.storage.gke.io); "" when none
// (kubernetes.io/no-provisioner, another in-tree name).
std::string ExternalProvisionerOf(const std::string& class_provisioner);

class PersistentVolumeController {
 public:
  // `client`, `clock` and `events` (and `executor` when given) must outlive the controller;
  // `informers` and `executor` may be null.
  PersistentVolumeController(const client::RestClient& client, const Clock& clock,
                             PersistentVolumeControllerOptions options,
                             autoscaler::EventRecorder* events,
                             client::SharedInformerFactory* informers = nullptr,
                             TimerService* executor = nullptr);
  ~PersistentVolumeController();
  PersistentVolumeController(const PersistentVolumeController&) = delete;
  PersistentVolumeController& operator=(const PersistentVolumeController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  std::optional<TimePoint> Sync(const std::string& key);
  std::optional<TimePoint> SyncClaim(const nlohmann::json& claim);
  std::optional<TimePoint> SyncUnboundClaim(const nlohmann::json& claim);
  std::optional<TimePoint> SyncVolume(const nlohmann::json& volume);
  // The volume FindMatchingVolume picks for `claim` (null: none).
  client::ObjectRef FindMatchingVolume(const nlohmann::json& claim, bool delay_binding) const;
  // bind(): false when a write failed (retried).
  bool Bind(const nlohmann::json& volume, const nlohmann::json& claim);
  bool SetClaimPhase(const nlohmann::json& claim, const std::string& phase);
  // The claim as written (null when it is gone); nullopt when the write failed.
  std::optional<nlohmann::json> WriteClaimPhase(const nlohmann::json& claim,
                                                const std::string& phase);
  bool SetVolumePhase(const nlohmann::json& volume, const std::string& phase);
  // The default StorageClass's name (GetDefaultClass), "" when none.
  std::string DefaultClass() const;
  void OnPod(const std::string& key, const nlohmann::json* now);
  void ClaimEvent(const nlohmann::json& claim, const char* type, const char* reason,
                  std::string message);

  const client::RestClient& client_;
  const Clock& clock_;
  const PersistentVolumeControllerOptions options_;
  autoscaler::EventRecorder* const events_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> claims_;
  std::shared_ptr<client::Informer> volumes_;
  std::shared_ptr<client::Informer> classes_;
  std::shared_ptr<client::Informer> pods_;
  mutable std::mutex mu_;
  // Volume names by class (ClassName()).
  std::map<std::string, std::set<std::string>> by_class_;
  std::map<std::string, std::string> class_of_;  // volume name -> its class
  // Volume names by the claim their claimRef names ("ns/name"), and back.
  std::map<std::string, std::set<std::string>> by_claim_;
  std::map<std::string, std::string> claim_of_;
  // Unscheduled, unfinished pods by the claims they use ("ns/claim" -> pod names).
  std::map<std::string, std::set<std::string>> waiting_pods_;
  std::map<std::string, std::set<std::string>> pod_claims_;  // pod key -> claim keys
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::persistentvolume
