// File: namespace/namespace_controller.h
//
// NamespaceController: kube-controller-manager 1.32's namespace controller
// (pkg/controller/namespace, its NamespacedResourcesDeleter), an actor like the others (an
// informer of namespaces in, API writes out). A namespace being deleted (the API server marks
// it: deletionTimestamp, status.phase Terminating) that still has the "kubernetes" finalizer
// in spec.finalizers has its contents deleted, then the finalizer removed through the
// namespace's finalize subresource, after which the API server removes it:
//   - the namespaced resources are discovered (api_discovery.h: every served resource with
//     delete and list, custom resources included); each is emptied with a deletecollection
//     (list and delete each object where the verb is not served);
//   - what is left (pods terminating on their nodes, objects with finalizers) is listed; the
//     namespace's status conditions say so, with kcm's types, reasons and texts
//     (NamespaceDeletionDiscoveryFailure, NamespaceDeletionGroupVersionParsingFailure,
//     NamespaceDeletionContentFailure, NamespaceContentRemaining "Some resources are remaining:
//     pods. has 1 resource instances", NamespaceFinalizersRemaining), written with a PUT of
//     namespaces/<name>/status; the namespace is looked at again after `retry_after`;
//   - once nothing is left: PUT namespaces/<name>/finalize without "kubernetes".
//
// Durations are emulated time (`tidepool up --speed N` divides them).
//
// Threads: as the other controllers (podgc_controller.h): without an executor, Start() starts
// the informer and the queue's worker thread; with one (`tidepool simulate`), syncs run as
// callbacks of `executor` and a driver feeds the informer.
//
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::ns {

struct NamespaceControllerOptions {
  // When a namespace whose contents are not gone yet is looked at again.
  Duration retry_after = std::chrono::seconds(2);
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("retryAfter", retry_after, TimeBase::kEmulated);
  }
};

class NamespaceController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `logger`,
  // `informers` and `executor` may be null.
  NamespaceController(const client::RestClient& client, const Clock& clock,
                      NamespaceControllerOptions options, log::Logger* logger = nullptr,
                      client::SharedInformerFactory* informers = nullptr,
                      TimerService* executor = nullptr);
  ~NamespaceController();
  NamespaceController(const NamespaceController&) = delete;
  NamespaceController& operator=(const NamespaceController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  // One namespace; returns when to look again (contents left), nullopt when done.
  std::optional<TimePoint> Sync(const std::string& name);
  // Deletes what is in `ns` and writes its conditions; whether anything is left.
  StatusOr<bool> DeleteContents(const std::string& ns, const nlohmann::json& namespace_object);
  Status Finalize(const nlohmann::json& namespace_object);

  const client::RestClient& client_;
  const Clock& clock_;
  const NamespaceControllerOptions options_;
  log::Logger* log_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> namespaces_;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::ns
