// File: clusterrole_aggregation_controller.h
//
// ClusterRoleAggregationController: kube-controller-manager 1.32's clusterrole-aggregation
// controller (pkg/controller/clusterroleaggregation). A ClusterRole with an aggregationRule
// (admin, edit and view of the bootstrap policy; any user's) gets as its rules those of every
// other ClusterRole its clusterRoleSelectors select, selector by selector, the selected roles
// by name, each rule once (the first time it appears); when they differ from its rules, they
// are written by a server-side apply of {name, rules} with fieldManager
// clusterrole-aggregation-controller and force, as kcm applies them.
//
// Any ClusterRole added, changed or deleted queues every aggregated ClusterRole (kcm's
// enqueue: cluster roles are few).
//
// An actor: one informer (clusterroles), writes clusterroles. One worker (work_queue.h).
// Threads as the other controllers (without an executor, Start() starts the informer and the
// worker; with one, a driver feeds the informer and syncs run on the executor).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::clusterroleaggregation {

struct ClusterRoleAggregationControllerOptions {
  uint64_t seed = 1;
  template <typename F>
  void ForEachDuration(F&&) {}
};

class ClusterRoleAggregationController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `logger`,
  // `informers` and `executor` may be null.
  ClusterRoleAggregationController(const client::RestClient& client, const Clock& clock,
                                   ClusterRoleAggregationControllerOptions options,
                                   log::Logger* logger = nullptr,
                                   client::SharedInformerFactory* informers = nullptr,
                                   TimerService* executor = nullptr);
  ~ClusterRoleAggregationController();
  ClusterRoleAggregationController(const ClusterRoleAggregationController&) = delete;
  ClusterRoleAggregationController& operator=(const ClusterRoleAggregationController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  // syncClusterRole of one aggregated ClusterRole (its name).
  std::optional<TimePoint> Sync(const std::string& name);
  void EnqueueAggregated();

  const client::RestClient& client_;
  const Clock& clock_;
  const ClusterRoleAggregationControllerOptions options_;
  log::Logger* log_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> roles_;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::clusterroleaggregation
