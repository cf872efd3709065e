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
    bool serving = false;  // has an IP, not terminal, not being deleted
    api::Labels labels;
    std::map<std::string, int64_t> named_ports;  // container port name -> number
  };
  // One Service ("<ns>/<name>").
  std::optional<TimePoint> Sync(const std::string& key);
  nlohmann::json SubsetsLocked(const nlohmann::json& service) const;
  void EnqueueMatching(const std::string& ns, const api::Labels& labels);

  const client::RestClient& client_;
  const Clock& clock_;
  const EndpointsControllerOptions options_;
  log::Logger* log_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> services_;
  std::shared_ptr<client::Informer> pods_;
  mutable std::mutex mu_;
  std::map<std::string, PodFacts> pods_by_key_;
  // Services with a selector, by namespace, name -> selector.
  std::map<std::string, std::map<std::string, api::LabelSelector>> selectors_;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::endpoint
