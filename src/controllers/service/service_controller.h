// File: service/service_controller.h
//
// ServiceController: the cloud's service controller (k8s.io/cloud-provider's
// controllers/service, as GKE's and EKS's cloud-controller-managers run it; its client and
// event source "service-controller"): a Service of type LoadBalancer without a
// loadBalancerClass gets a load balancer.
//   - Ensure: event Normal EnsuringLoadBalancer "Ensuring load balancer", the finalizer
//     service.kubernetes.io/load-balancer-cleanup added; `provisioning` later (the cloud
//     building it) the address in status.loadBalancer.ingress (the API defaults its ipMode to
//     VIP) and event Normal EnsuredLoadBalancer "Ensured load balancer". The address is the
//     cloud's (NodeStyle::LoadBalancer: GKE an external IP, EKS an ELB's DNS name): the lowest
//     index no other Service's status holds.
//   - Delete (a Service with the finalizer deleted, or no longer of type LoadBalancer): events
//     Normal DeletingLoadBalancer "Deleting load balancer" and DeletedLoadBalancer "Deleted load
//     balancer" when its load balancer was built, its status cleared, the finalizer removed (so
//     a deleted Service goes). A Service without the finalizer is not ours (another
//     loadBalancerClass's, or a status someone else wrote): left alone.
// Not done: re-ensuring on spec changes (ports, loadBalancerIP; upstream's needsUpdate and
// its Type / LoadbalancerIP events); spec.loadBalancerIP is not honoured.
// What `kubectl get svc -w` shows: EXTERNAL-IP <pending>, then the address.
//
// An actor: an informer on services (in), API writes and events (out); one worker
// (work_queue.h) keyed by namespace/name. Threads as the other controllers (without an
// executor, Start() starts the informer and the worker; with one, a driver feeds the informer
// and syncs run on the executor).
#pragma once

#include <functional>
#include <map>
#include <memory>
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

namespace tidepool::controllers::service {

inline constexpr char kLoadBalancerCleanupFinalizer[] =
    "service.kubernetes.io/load-balancer-cleanup";

struct ServiceControllerOptions {
  // How long the cloud takes to build a load balancer (GKE's passthrough Network Load
  // Balancer: about 45 s).
  Duration provisioning = std::chrono::seconds(45);
  uint64_t seed = 1;
  // The n-th load balancer's status.loadBalancer.ingress[0] for the Service of `uid` (the
  // cloud style's LoadBalancer); unset: {"ip": "34.41.0.<n+1>"}-like, GKE's.
  std::function<nlohmann::json(uint32_t n, const std::string& uid)> address;

  template <typename F>
  void ForEachDuration(F&& f) {
    f("provisioning", provisioning, TimeBase::kEmulated);
  }
};

class ServiceController {
 public:
  // `client`, `clock` and `events` (and `executor` when given) must outlive the controller;
  // `informers` and `executor` may be null.
  ServiceController(const client::RestClient& client, const Clock& clock,
                    ServiceControllerOptions options, autoscaler::EventRecorder* events,
                    client::SharedInformerFactory* informers = nullptr,
                    TimerService* executor = nullptr);
  ~ServiceController();
  ServiceController(const ServiceController&) = delete;
  ServiceController& operator=(const ServiceController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  std::optional<TimePoint> Sync(const std::string& key);
  std::optional<TimePoint> Ensure(const std::string& key, const nlohmann::json& svc);
  std::optional<TimePoint> Delete(const std::string& key, const nlohmann::json& svc);
  // The lowest-index address no other Service's status holds (by ip and hostname), nor one this
  // controller wrote that the informer does not show yet.
  nlohmann::json FreeAddress(const std::string& key, const std::string& uid) const;
  void Event(const nlohmann::json& svc, const char* reason, const char* message);

  const client::RestClient& client_;
  const Clock& clock_;
  const ServiceControllerOptions options_;
  autoscaler::EventRecorder* const events_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> services_;
  // Worker thread only. Services whose load balancer is being built (when it is ready); whose
  // address was written (until the informer shows it); being cleaned up (its events written);
  // cleaned up (until they want a load balancer again, or go).
  std::map<std::string, TimePoint> building_;
  std::set<std::string> written_, deleting_, cleaned_;
  // The addresses it wrote, by Service (AddressKey), until the Service no longer wants one.
  std::map<std::string, std::string> assigned_;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::service
