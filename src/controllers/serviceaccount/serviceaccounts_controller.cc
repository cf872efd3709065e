#include "controllers/serviceaccount/serviceaccounts_controller.h"

#include <utility>

#include "controllers/object_json.h"

namespace tidepool::controllers::serviceaccount {

using nlohmann::json;

const char kRootCaDescription[] =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters.";

namespace {

bool Terminating(const client::RestResult& r) {
  const json& causes = Member(Member(r.body, "details"), "causes");
  if (r.http_status != 403 || !causes.is_array()) return false;
  for (const json& c : causes) {
    if (Str(Member(c, "reason")) == "NamespaceTerminating") return true;
  }
  return false;
}

}  // namespace

PerNamespaceObjectController::PerNamespaceObjectController(const client::RestClient& client,
                                                           const Clock& clock, Kind kind, Want want,
                                                           uint64_t seed,
                                                           client::SharedInformerFactory* informers,
                                                           TimerService* executor)
    : client_(client),
      clock_(clock),
      kind_(std::move(kind)),
      want_(std::move(want)),
      executor_(executor),
      queue_(
          clock, [this](const std::string& ns) { return Sync(ns); }, [this] { return HasSynced(); },
          std::chrono::milliseconds(50), executor) {
  client::InformerOptions namespaces;
  namespaces.path = "/api/v1/namespaces";
  namespaces.name = "namespaces";
  namespaces.seed = seed;
  namespaces_ = client::MakeInformer(informers, client_, clock_, namespaces, nullptr);
  client::InformerOptions objects;
  objects.path = "/api/v1/" + kind_.resource;
  objects.name = kind_.informer_name;
  objects.seed = seed + 1;
  objects_ = client::MakeInformer(informers, client_, clock_, objects, nullptr);
  auto on_namespace = [this](const client::ObjectRef& o) {
    queue_.Add(Str(Member(Meta(*o), "name")));
  };
  namespaces_->AddEventHandlers(
      {[on_namespace](const client::ObjectRef& o, bool) { on_namespace(o); },
       [on_namespace](const client::ObjectRef&, const client::ObjectRef& o) { on_namespace(o); },
       nullptr});
  // The kept object changed or went: its namespace is looked at again.
  auto on_object = [this](const client::ObjectRef& o) {
    if (Str(Member(Meta(*o), "name")) == kind_.name) {
      queue_.Add(Str(Member(Meta(*o), "namespace")));
    }
  };
  objects_->AddEventHandlers(
      {nullptr, [on_object](const client::ObjectRef&, const client::ObjectRef& o) { on_object(o); },
       [on_object](const client::ObjectRef& o, bool) { on_object(o); }});
}

PerNamespaceObjectController::~PerNamespaceObjectController() { Stop(); }

void PerNamespaceObjectController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    namespaces_->Start();
    objects_->Start();
  }
  queue_.Start();
}

void PerNamespaceObjectController::Stop() {
  queue_.Stop();
  client::StopAll({namespaces_.get(), objects_.get()});
}

bool PerNamespaceObjectController::HasSynced() const {
  return namespaces_->HasSynced() && objects_->HasSynced();
}

std::optional<TimePoint> PerNamespaceObjectController::Sync(const std::string& ns) {
  const client::ObjectRef space = namespaces_->Get(ns);
  // Gone, or being deleted: nothing is created there.
  if (space == nullptr || Str(Member(Member(*space, "status"), "phase")) != "Active") {
    return std::nullopt;
  }
  const client::ObjectRef have = objects_->Get(ns + "/" + kind_.name);
  const json want = want_(ns, have != nullptr ? *have : json());
  if (want.is_null()) return std::nullopt;
  const std::string collection = "/api/v1/namespaces/" + ns + "/" + kind_.resource;
  if (have == nullptr) {
    client::RestResult r = client_.CreateResult(collection, want);
    // Created, there already (the cache was behind), or the namespace is gone or terminating
    // (a 403 with the NamespaceTerminating cause; any other 403, a quota's, is retried).
    if (r.ok() || r.http_status == 409 || r.http_status == 404 || Terminating(r)) {
      return std::nullopt;
    }
  } else {
    client::RestResult r = client_.UpdateResult(collection + "/" + kind_.name, want);
    // A conflict is retried; a deletion queues the namespace again.
    if (r.ok() || r.http_status == 404) return std::nullopt;
  }
  return clock_.Now() + std::chrono::seconds(1);
}

std::unique_ptr<PerNamespaceObjectController> NewServiceAccountsController(
    const client::RestClient& client, const Clock& clock, ServiceAccountsControllerOptions options,
    client::SharedInformerFactory* informers, TimerService* executor) {
  auto want = [](const std::string& ns, const json& have) -> json {
    if (!have.is_null()) return json();
    return {{"apiVersion", "v1"},
            {"kind", "ServiceAccount"},
            {"metadata", {{"name", kDefaultServiceAccount}, {"namespace", ns}}}};
  };
  return std::make_unique<PerNamespaceObjectController>(
      client, clock,
      PerNamespaceObjectController::Kind{"serviceaccounts", "serviceaccounts",
                                         kDefaultServiceAccount},
      want, options.seed, informers, executor);
}

std::unique_ptr<PerNamespaceObjectController> NewRootCaCertPublisher(
    const client::RestClient& client, const Clock& clock, RootCaCertPublisherOptions options,
    client::SharedInformerFactory* informers, TimerService* executor) {
  auto want = [ca = options.ca_pem](const std::string& ns, const json& have) -> json {
    const json data = {{kRootCaKey, ca}};
    if (have.is_null()) {
      return {{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata",
               {{"name", kRootCaConfigMap},
                {"namespace", ns},
                {"annotations", {{kDescriptionAnnotation, kRootCaDescription}}}}},
              {"data", data}};
    }
    const json& annotations = Member(Meta(have), "annotations");
    if (Member(have, "data") == data && !Str(Member(annotations, kDescriptionAnnotation)).empty()) {
      return json();
    }
    json fixed = have;
    fixed["data"] = data;
    fixed["metadata"]["annotations"][kDescriptionAnnotation] = kRootCaDescription;
    return fixed;
  };
  return std::make_unique<PerNamespaceObjectController>(
      client, clock,
      PerNamespaceObjectController::Kind{"root-ca-configmaps", "configmaps", kRootCaConfigMap},
      want, options.seed, informers, executor);
}

}  // namespace tidepool::controllers::serviceaccount
