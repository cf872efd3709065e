// File: volumeprotection/volume_protection_controller.h
//
// kube-controller-manager 1.32's pvc-protection and pv-protection controllers
// (pkg/controller/volume/{pvcprotection,pvprotection}): the StorageObjectInUseProtection
// admission plugin gives every new claim the finalizer kubernetes.io/pvc-protection and every
// new volume kubernetes.io/pv-protection; these controllers take the finalizer off an object
// being deleted once nothing uses it, so that a claim in use by a pod, or a volume bound to a
// claim, outlives its deletion until then. An object without its finalizer and not being
// deleted gets it (what admission would have given it). No events, as kcm's.
//
//   - a claim is in use while a pod scheduled to a node (spec.nodeName set) has a
//     persistentVolumeClaim volume naming it - whatever the pod's phase: a Succeeded pod still
//     holds its claim until it is deleted (podUsesPVC). The pods' informer index answers first;
//     when it says "unused", a live list of the namespace's pods confirms (askAPIServer), so a
//     pod the cache has not seen yet still counts. Ephemeral volumes' claims are not modelled
//     (tidepool has no ephemeral volume controller).
//   - a volume is in use while its status.phase is Bound.
//
// In: informers of persistentvolumeclaims and pods (PvcProtectionController), of
// persistentvolumes (PvProtectionController). Out: an Update of the object with the finalizer
// removed or added (a conflict is retried after 1 s). A pod deleted, or unbound from its claim,
// queues the claims it used.
// One worker each (work_queue.h). Threads as the other controllers (without an executor,
// Start() starts the informers and the worker; with one, a driver feeds the informers and syncs
// run on the executor).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::volumeprotection {

inline constexpr char kPvcProtectionFinalizer[] = "kubernetes.io/pvc-protection";
inline constexpr char kPvProtectionFinalizer[] = "kubernetes.io/pv-protection";

struct VolumeProtectionOptions {
  uint64_t seed = 1;
  template <typename F>
  void ForEachDuration(F&&) {}
};

// The claims a pod holds as podUsesPVC counts them ("ns/claim" keys): none unless the pod is
// scheduled to a node.
std::vector<std::string> ClaimsHeldBy(const nlohmann::json& pod);

class PvcProtectionController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `informers`
  // and `executor` may be null.
  PvcProtectionController(const client::RestClient& client, const Clock& clock,
                          VolumeProtectionOptions options,
                          client::SharedInformerFactory* informers = nullptr,
                          TimerService* executor = nullptr);
  ~PvcProtectionController();
  PvcProtectionController(const PvcProtectionController&) = delete;
  PvcProtectionController& operator=(const PvcProtectionController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  std::optional<TimePoint> Sync(const std::string& key);
  // nullopt: unknown (the pods could not be listed).
  std::optional<bool> InUse(const std::string& ns, const std::string& name) const;
  // Keeps users_ for a pod that changed (`now` null: deleted) and queues the claims it no
  // longer holds.
  void OnPod(const std::string& pod_key, const nlohmann::json* now);

  const client::RestClient& client_;
  const Clock& clock_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> claims_;
  std::shared_ptr<client::Informer> pods_;
  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> users_;    // claim key -> pod keys
  std::map<std::string, std::vector<std::string>> held_;  // pod key -> claim keys
  WorkQueue queue_;
};

class PvProtectionController {
 public:
  PvProtectionController(const client::RestClient& client, const Clock& clock,
                         VolumeProtectionOptions options,
                         client::SharedInformerFactory* informers = nullptr,
                         TimerService* executor = nullptr);
  ~PvProtectionController();
  PvProtectionController(const PvProtectionController&) = delete;
  PvProtectionController& operator=(const PvProtectionController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  std::optional<TimePoint> Sync(const std::string& name);

  const client::RestClient& client_;
  const Clock& clock_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> volumes_;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::volumeprotection
