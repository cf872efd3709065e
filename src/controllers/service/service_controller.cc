#include "controllers/service/service_controller.h"

#include <set>
#include <utility>

#include "controllers/object_json.h"

namespace tidepool::controllers::service {

using nlohmann::json;

namespace {

// wantsLoadBalancer, and not being deleted (needsCleanup's other half).
bool WantsLoadBalancer(const json& svc) {
  const json& spec = Member(svc, "spec");
  return Str(Member(spec, "type")) == "LoadBalancer" &&
         Str(Member(spec, "loadBalancerClass")).empty() &&
         Member(Meta(svc), "deletionTimestamp").is_null();
}

bool HasFinalizer(const json& svc) {
  const json& finalizers = Member(Meta(svc), "finalizers");
  if (!finalizers.is_array()) return false;
  for (const json& f : finalizers) {
    if (f.is_string() && f.get_ref<const std::string&>() == kLoadBalancerCleanupFinalizer) {
      return true;
    }
  }
  return false;
}

const json& Ingress(const json& svc) {
  return Member(Member(Member(svc, "status"), "loadBalancer"), "ingress");
}

bool HasIngress(const json& svc) {
  const json& ingress = Ingress(svc);
  return ingress.is_array() && !ingress.empty();
}

// An ingress entry's identity: its ip and hostname.
std::string AddressKey(const json& ingress) {
  return Str(Member(ingress, "ip")) + "|" + Str(Member(ingress, "hostname"));
}

std::string ServicePath(const json& svc) {
  return "/api/v1/namespaces/" + Str(Member(Meta(svc), "namespace")) + "/services/" +
         Str(Member(Meta(svc), "name"));
}

}  // namespace

ServiceController::ServiceController(const client::RestClient& client, const Clock& clock,
                                     ServiceControllerOptions options,
                                     autoscaler::EventRecorder* events,
                                     client::SharedInformerFactory* informers,
                                     TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      events_(events),
      executor_(executor),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  client::InformerOptions o;
  o.path = "/api/v1/services";
  o.name = "services";
  o.seed = options_.seed;
  services_ = client::MakeInformer(informers, client_, clock_, o, nullptr);
  auto mark = [this](const client::ObjectRef& s) { queue_.Add(client::Informer::KeyOf(*s)); };
  services_->AddEventHandlers(
      {[mark](const client::ObjectRef& s, bool) { mark(s); },
       [mark](const client::ObjectRef&, const client::ObjectRef& s) { mark(s); },
       [mark](const client::ObjectRef& s, bool) { mark(s); }});
}

ServiceController::~ServiceController() { Stop(); }

void ServiceController::Start() {
  if (executor_ == nullptr) services_->Start();  // with an executor, a driver feeds it
  queue_.Start();
}

void ServiceController::Stop() {
  queue_.Stop();
  client::StopAll({services_.get()});
}

bool ServiceController::HasSynced() const { return services_->HasSynced(); }

std::optional<TimePoint> ServiceController::Sync(const std::string& key) {
  const client::ObjectRef svc = services_->Get(key);
  if (svc == nullptr) {
    building_.erase(key);
    written_.erase(key);
    assigned_.erase(key);
    deleting_.erase(key);
    cleaned_.erase(key);
    return std::nullopt;
  }
  if (WantsLoadBalancer(*svc)) {
    deleting_.erase(key);
    cleaned_.erase(key);
    return Ensure(key, *svc);
  }
  building_.erase(key);
  written_.erase(key);
  assigned_.erase(key);
  // needsCleanup: only a Service carrying our finalizer has a load balancer of ours.
  if (cleaned_.count(key) > 0 || !HasFinalizer(*svc)) return std::nullopt;
  return Delete(key, *svc);
}

std::optional<TimePoint> ServiceController::Ensure(const std::string& key, const json& svc) {
  if (HasIngress(svc)) written_.erase(key);
  if ((HasIngress(svc) && HasFinalizer(svc)) || written_.count(key) > 0) {
    building_.erase(key);
    return std::nullopt;
  }
  const TimePoint now = clock_.Now();
  auto it = building_.find(key);
  if (it == building_.end()) {
    Event(svc, "EnsuringLoadBalancer", "Ensuring load balancer");
    it = building_.emplace(key, now + options_.provisioning).first;
  }
  if (!HasFinalizer(svc)) {
    const client::RestResult r = client_.PatchResult(
        ServicePath(svc), client::PatchType::kStrategicMerge,
        json{{"metadata", {{"finalizers", json::array({kLoadBalancerCleanupFinalizer})}}}});
    if (r.http_status == 404) return std::nullopt;
    if (!r.ok()) return now + std::chrono::seconds(1);
  }
  if (HasIngress(svc)) {
    building_.erase(key);
    return std::nullopt;
  }
  if (now < it->second) return it->second;
  const json address = FreeAddress(key, Str(Member(Meta(svc), "uid")));
  const client::RestResult r = client_.PatchResult(
      ServicePath(svc) + "/status", client::PatchType::kMerge,
      json{{"status", {{"loadBalancer", {{"ingress", json::array({address})}}}}}});
  if (r.http_status == 404) return std::nullopt;
  if (!r.ok()) return now + std::chrono::seconds(1);
  building_.erase(key);
  written_.insert(key);
  assigned_[key] = AddressKey(address);
  Event(svc, "EnsuredLoadBalancer", "Ensured load balancer");
  return std::nullopt;
}

std::optional<TimePoint> ServiceController::Delete(const std::string& key, const json& svc) {
  const TimePoint now = clock_.Now();
  // A load balancer that was built (its address written): deleted with its events; one still
  // being built is abandoned quietly (upstream: GetLoadBalancer finds none).
  if (HasIngress(svc) && deleting_.insert(key).second) {
    Event(svc, "DeletingLoadBalancer", "Deleting load balancer");
    Event(svc, "DeletedLoadBalancer", "Deleted load balancer");
  }
  if (HasFinalizer(svc)) {
    // removeFinalizer: the list without it, guarded by the resourceVersion read.
    json finalizers = json::array();
    for (const json& f : Member(Meta(svc), "finalizers")) {
      if (!(f.is_string() && f.get_ref<const std::string&>() == kLoadBalancerCleanupFinalizer)) {
        finalizers.push_back(f);
      }
    }
    const client::RestResult r = client_.PatchResult(
        ServicePath(svc), client::PatchType::kMerge,
        json{{"metadata",
              {{"finalizers", finalizers},
               {"resourceVersion", Str(Member(Meta(svc), "resourceVersion"))}}}});
    if (r.http_status == 404) return std::nullopt;
    if (!r.ok()) return now + std::chrono::seconds(1);  // a conflict: read again
  }
  if (HasIngress(svc) && Member(Meta(svc), "deletionTimestamp").is_null()) {
    const client::RestResult r =
        client_.PatchResult(ServicePath(svc) + "/status", client::PatchType::kMerge,
                            json{{"status", {{"loadBalancer", {{"ingress", nullptr}}}}}});
    if (r.http_status == 404) return std::nullopt;
    if (!r.ok()) return now + std::chrono::seconds(1);
  }
  deleting_.erase(key);
  cleaned_.insert(key);
  return std::nullopt;
}

json ServiceController::FreeAddress(const std::string& key, const std::string& uid) const {
  std::set<std::string> taken;
  for (const client::ObjectRef& s : services_->List()) {
    const json& ingress = Ingress(*s);
    if (!ingress.is_array() || client::Informer::KeyOf(*s) == key) continue;
    for (const json& i : ingress) taken.insert(AddressKey(i));
  }
  // And those written that the informer may not show yet.
  for (const auto& [other, address] : assigned_) {
    if (other != key) taken.insert(address);
  }
  json address;
  for (uint32_t n = 0; n < (1u << 16); ++n) {  // bounded: an address may ignore n (EKS's)
    address = options_.address ? options_.address(n, uid)
                               : json{{"ip", "34.41." + std::to_string(((n + 1) >> 8) & 255) + "." +
                                                 std::to_string((n + 1) & 255)}};
    if (taken.count(AddressKey(address)) == 0) break;
  }
  return address;
}

void ServiceController::Event(const json& svc, const char* reason, const char* message) {
  if (events_ == nullptr) return;
  const json& m = Meta(svc);
  events_->Event(
      {"Service", Str(Member(m, "namespace")), Str(Member(m, "name")), Str(Member(m, "uid"))},
      "Normal", reason, message);
}

}  // namespace tidepool::controllers::service
