// File: endpoint/endpoints_controller.h
//
// EndpointsController: kube-controller-manager 1.32's endpoints controller
// (pkg/controller/endpoint), an actor like the others (informers of services and pods in,
// Endpoints writes out). Every Service with a selector has an Endpoints object of its name
// whose subsets hold the pods the selector matches that have an IP and are not terminal or
// being deleted: ready pods (condition Ready True) under `addresses`, the others under
// `notReadyAddresses` (all under `addresses` with publishNotReadyAddresses), each with its ip,
// nodeName and targetRef; the ports are the Service's, each targetPort resolved for the pod (a
// named one by the pod's container port of that name), pods with the same resolution sharing
// a subset. A Service without a selector is left alone (its Endpoints are the user's, as the
// kubernetes Service's); a deleted Service's Endpoints are deleted.
//
// With a second client (options.slice_client), it is kcm's endpointslice controller too
// (pkg/controller/endpointslice, k8s.io/endpointslice's reconciler), on the same informers:
// every selecting Service that is not ExternalName has IPv4 EndpointSlices named
// "<service>-<5 characters>", owned by the Service (controller, blockOwnerDeletion), labelled
// as the Service plus kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by:
// endpointslice-controller.k8s.io (service.kubernetes.io/headless: "" for a headless one).
// Their endpoints are the selected pods that have an IP and are not terminal - being deleted
// ones too, with conditions {ready: publishNotReadyAddresses or (Ready and not terminating),
// serving: Ready, terminating} - each with its address, targetRef, nodeName and its node's
// topology.kubernetes.io/zone, in pod-name order; pods whose ports resolve alike share slices
// of at most 100 endpoints, whose ports are the resolved ones ({name ("" when unnamed), port,
// protocol, appProtocol}). With no endpoint, one placeholder slice without endpoints or ports.
// Slices are updated in place when their ports match, made when missing, deleted when not
// needed; a deleted Service's go with it (the garbage collector).
//
// Threads: as the other controllers (podgc_controller.h).
//
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/selector.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::endpoint {

struct EndpointsControllerOptions {
  uint64_t seed = 1;
  // The endpointslice controller's client (see above); null: no EndpointSlices. It must
  // outlive the controller.
  const client::RestClient* slice_client = nullptr;
  template <typename F>
  void ForEachDuration(F&&) {}
};

class EndpointsController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `logger`,
  // `informers` and `executor` may be null.
  EndpointsController(const client::RestClient& client, const Clock& clock,
                      EndpointsControllerOptions options, log::Logger* logger = nullptr,
                      client::SharedInformerFactory* informers = nullptr,
                      TimerService* executor = nullptr);
  ~EndpointsController();
  EndpointsController(const EndpointsController&) = delete;
  EndpointsController& operator=(const EndpointsController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  struct PodFacts {
    std::string ns, name, uid, ip, node;
    bool ready = false;
    bool live = false;         // has an IP, not terminal
    bool terminating = false;  // being deleted
    api::Labels labels;
    std::map<std::string, int64_t> named_ports;  // container port name -> number
  };
  // One Service ("<ns>/<name>").
  std::optional<TimePoint> Sync(const std::string& key);
  nlohmann::json SubsetsLocked(const nlohmann::json& service) const;
  // The EndpointSlices `service` should have (names and metadata left to SyncSlices).
  std::vector<nlohmann::json> SlicesLocked(const nlohmann::json& service) const;
  std::optional<TimePoint> SyncSlices(const nlohmann::json& service);
  std::optional<TimePoint> SyncEndpoints(const nlohmann::json& service);
  void EnqueueMatching(const std::string& ns, const api::Labels& labels);

  const client::RestClient& client_;
  const Clock& clock_;
  const EndpointsControllerOptions options_;
  log::Logger* log_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> services_;
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> nodes_;  // for their zones (slices only)
  mutable std::mutex mu_;
  std::map<std::string, PodFacts> pods_by_key_;
  std::map<std::string, std::string> zones_;  // node name -> topology.kubernetes.io/zone
  // Services with a selector, by namespace, name -> selector.
  std::map<std::string, std::map<std::string, api::LabelSelector>> selectors_;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::endpoint
