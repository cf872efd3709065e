// File: resourcequota/resourcequota_controller.h
//
// ResourceQuotaController: kube-controller-manager 1.32's resourcequota controller
// (pkg/controller/resourcequota), an actor like the others (informers of resource quotas and
// pods in, status writes out). Every quota's status is kept as kcm keeps it: status.hard is
// spec.hard, status.used the namespace's usage of each of those resources (api/quota.h):
//   - pods and what they request and limit (pods, count/pods, requests.*, limits.*, cpu,
//     memory, ephemeral-storage, requests.nvidia.com/gpu...), from the pod informer's events:
//     each pod's usage is computed once per event and summed per namespace when a quota of it
//     is synced; a pod that ends (Succeeded, Failed) or goes frees its share;
//   - object counts (count/<resource>[.<group>], configmaps, secrets, services,
//     persistentvolumeclaims, replicationcontrollers, resourcequotas): a list of the
//     namespace's objects when the quota is synced.
// A quota is synced when it is created or its spec changes, when a pod of its namespace
// changes, and every `resync` (kcm's --resource-quota-sync-period, 5 min: what catches object
// counts). The write is a PUT of resourcequotas/<name>/status, made only when the status differs.
// The API server's ResourceQuota admission (apiserver/quota_admission.h) checks creates
// against status.used and adds to it, as kube-apiserver's does.
//
// Durations are emulated time (`tidepool up --speed N` divides them).
//
// Threads: as the other controllers (podgc_controller.h).
//
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "api/resource_list.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::resourcequota {

struct ResourceQuotaControllerOptions {
  Duration resync = std::chrono::minutes(5);  // --resource-quota-sync-period
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("resync", resync, TimeBase::kEmulated);
  }
};

class ResourceQuotaController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `logger`,
  // `informers` and `executor` may be null.
  ResourceQuotaController(const client::RestClient& client, const Clock& clock,
                          ResourceQuotaControllerOptions options, log::Logger* logger = nullptr,
                          client::SharedInformerFactory* informers = nullptr,
                          TimerService* executor = nullptr);
  ~ResourceQuotaController();
  ResourceQuotaController(const ResourceQuotaController&) = delete;
  ResourceQuotaController& operator=(const ResourceQuotaController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  // One quota ("<ns>/<name>"); returns when to sync it again.
  std::optional<TimePoint> Sync(const std::string& key);
  // The namespace's usage of `resource` from its pods.
  api::Quantity PodUsageLocked(const std::string& ns, const std::string& resource) const;
  void OnPod(const std::string& key, const std::string& ns, api::ResourceList usage);
  void OnPodGone(const std::string& key);
  void EnqueueNamespace(const std::string& ns);

  const client::RestClient& client_;
  const Clock& clock_;
  const ResourceQuotaControllerOptions options_;
  log::Logger* log_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> quotas_;
  std::shared_ptr<client::Informer> pods_;
  mutable std::mutex mu_;
  struct PodFacts {
    std::string ns;
    api::ResourceList usage;
  };
  std::map<std::string, PodFacts> pods_by_key_;
  std::map<std::string, std::set<std::string>> pods_by_ns_;
  std::map<std::string, std::set<std::string>> quotas_by_ns_;  // quota names
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::resourcequota
