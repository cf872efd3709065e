// File: serviceaccount/serviceaccounts_controller.h
//
// Two of kube-controller-manager 1.32's per-namespace controllers, each an actor with informers
// of namespaces and of the one kind it keeps (in), API writes (out):
//
//   - ServiceAccountsController (pkg/controller/serviceaccount; its client
//   "service-account-controller"):
//     every active namespace has a ServiceAccount "default", created bare ({name, namespace})
//     when missing: on a namespace added or changed, and on that ServiceAccount deleted. A
//     namespace that is not Active (being deleted) is left alone, and a create refused because
//     it is terminating, or because it exists, is done.
//   - RootCaCertPublisher (pkg/controller/certificates/rootcacertpublisher,
//     "root-ca-cert-publisher"): every active namespace has a ConfigMap "kube-root-ca.crt"
//     whose data is {"ca.crt": <the cluster's CA, PEM>} and whose annotation
//     kubernetes.io/description says what it is for; created when missing, and put back when
//     deleted, or changed in its data or without the annotation (the data exactly that, the
//     annotation set, other fields kept). The CA is what clients
//     verify the API server with (`tidepool up`: its HTTPS endpoint's, cloud/gke/tls_endpoint.h).
//
// One worker each (work_queue.h), keyed by namespace. Threads as the other controllers (without
// an executor, Start() starts the informers and the worker; with one, a driver feeds the
// informers and syncs run on the executor).
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::serviceaccount {

// The ServiceAccount kcm ensures in every namespace.
inline constexpr char kDefaultServiceAccount[] = "default";
// The root CA ConfigMap, its data key and its annotation.
inline constexpr char kRootCaConfigMap[] = "kube-root-ca.crt";
inline constexpr char kRootCaKey[] = "ca.crt";
inline constexpr char kDescriptionAnnotation[] = "kubernetes.io/description";
extern const char kRootCaDescription[];

struct ServiceAccountsControllerOptions {
  uint64_t seed = 1;
  template <typename F>
  void ForEachDuration(F&&) {}
};

struct RootCaCertPublisherOptions {
  uint64_t seed = 1;
  std::string ca_pem;  // the CA to publish
  template <typename F>
  void ForEachDuration(F&&) {}
};

// One object of one kind, named `name`, kept in every active namespace: `want` makes it for a
// namespace from what is stored (null when absent), and is null when what is stored is right.
// The two controllers above are this with their own kind and `want`.
class PerNamespaceObjectController {
 public:
  using Want = std::function<nlohmann::json(const std::string& ns, const nlohmann::json& have)>;
  struct Kind {
    std::string informer_name;  // "serviceaccounts"
    std::string resource;       // core/v1 resource, "serviceaccounts"
    std::string name;           // the object kept, "default"
  };
  // `client` and `clock` (and `executor` when given) must outlive the controller; `informers`
  // and `executor` may be null.
  PerNamespaceObjectController(const client::RestClient& client, const Clock& clock, Kind kind,
                               Want want, uint64_t seed,
                               client::SharedInformerFactory* informers = nullptr,
                               TimerService* executor = nullptr);
  ~PerNamespaceObjectController();
  PerNamespaceObjectController(const PerNamespaceObjectController&) = delete;
  PerNamespaceObjectController& operator=(const PerNamespaceObjectController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

 private:
  std::optional<TimePoint> Sync(const std::string& ns);

  const client::RestClient& client_;
  const Clock& clock_;
  const Kind kind_;
  const Want want_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> namespaces_;
  std::shared_ptr<client::Informer> objects_;
  WorkQueue queue_;
};

std::unique_ptr<PerNamespaceObjectController> NewServiceAccountsController(
    const client::RestClient& client, const Clock& clock, ServiceAccountsControllerOptions options,
    client::SharedInformerFactory* informers = nullptr, TimerService* executor = nullptr);

std::unique_ptr<PerNamespaceObjectController> NewRootCaCertPublisher(
    const client::RestClient& client, const Clock& clock, RootCaCertPublisherOptions options,
    client::SharedInformerFactory* informers = nullptr, TimerService* executor = nullptr);

}  // namespace tidepool::controllers::serviceaccount
