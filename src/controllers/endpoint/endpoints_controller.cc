#include "controllers/endpoint/endpoints_controller.h"

#include <vector>

#include "controllers/object_json.h"

namespace tidepool::controllers::endpoint {
namespace {

using json = nlohmann::json;

// A Service's selector: a plain map, as labels.SelectorFromSet makes it.
api::LabelSelector SelectorOf(const json& service) {
  return api::LabelSelector{LabelsOf(Member(Member(service, "spec"), "selector")), {}};
}

}  // namespace

EndpointsController::EndpointsController(const client::RestClient& client, const Clock& clock,
                                         EndpointsControllerOptions options, log::Logger* logger,
                                         client::SharedInformerFactory* informers,
                                         TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      log_(logger),
      executor_(executor),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  auto make = [&](const char* name, const char* path, uint64_t s) {
    return client::MakeDecodingInformer(informers, client_, clock_, name, path, options_.seed + s,
                                        logger);
  };
  services_ = make("endpoint-services", "/api/v1/services", 0);
  pods_ = make("endpoint-pods", "/api/v1/pods", 1);
  auto on_service = [this](const client::ObjectRef& o, bool deleted) {
    const std::string ns = Str(Member(Meta(*o), "namespace"));
    const std::string name = Str(Member(Meta(*o), "name"));
    api::LabelSelector selector = SelectorOf(*o);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (deleted || selector.Empty()) {
        selectors_[ns].erase(name);
      } else {
        selectors_[ns][name] = std::move(selector);
      }
    }
    queue_.Add(Key(ns, name));
  };
  services_->AddEventHandlers(
      {[on_service](const client::ObjectRef& o, bool) { on_service(o, false); },
       [on_service](const client::ObjectRef&, const client::ObjectRef& o) { on_service(o, false); },
       [on_service](const client::ObjectRef& o, bool) { on_service(o, true); }});
  auto on_pod = [this](const client::ObjectRef& o, bool deleted) {
    PodFacts f;
    const json& m = Meta(*o);
    f.ns = Str(Member(m, "namespace"));
    f.name = Str(Member(m, "name"));
    f.uid = Str(Member(m, "uid"));
    f.labels = LabelsOf(Member(m, "labels"));
    const json& status = Member(*o, "status");
    f.ip = Str(Member(status, "podIP"));
    f.node = Str(Member(Member(*o, "spec"), "nodeName"));
    const std::string phase = Str(Member(status, "phase"));
    f.serving = !deleted && !f.ip.empty() && phase != "Succeeded" && phase != "Failed" &&
                Member(m, "deletionTimestamp").is_null();
    const json& conditions = Member(status, "conditions");
    if (conditions.is_array()) {
      for (const json& c : conditions) {
        if (Str(Member(c, "type")) == "Ready") f.ready = Str(Member(c, "status")) == "True";
      }
    }
    const json& containers = Member(Member(*o, "spec"), "containers");
    if (containers.is_array()) {
      for (const json& c : containers) {
        const json& ports = Member(c, "ports");
        if (!ports.is_array()) continue;
        for (const json& p : ports) {
          const json& n = Member(p, "containerPort");
          if (!Str(Member(p, "name")).empty() && n.is_number_integer()) {
            f.named_ports.emplace(Str(Member(p, "name")), n.get<int64_t>());
          }
        }
      }
    }
    const std::string key = Key(f.ns, f.name);
    const std::string ns = f.ns;
    const auto labels = f.labels;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (deleted) {
        pods_by_key_.erase(key);
      } else {
        pods_by_key_[key] = std::move(f);
      }
    }
    EnqueueMatching(ns, labels);
  };
  pods_->AddEventHandlers(
      {[on_pod](const client::ObjectRef& o, bool) { on_pod(o, false); },
       [on_pod](const client::ObjectRef&, const client::ObjectRef& o) { on_pod(o, false); },
       [on_pod](const client::ObjectRef& o, bool) { on_pod(o, true); }});
}

EndpointsController::~EndpointsController() { Stop(); }

void EndpointsController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    services_->Start();
    pods_->Start();
  }
  queue_.Start();
}

void EndpointsController::Stop() {
  queue_.Stop();
  services_->Stop();
  pods_->Stop();
}

bool EndpointsController::HasSynced() const { return services_->HasSynced() && pods_->HasSynced(); }

void EndpointsController::EnqueueMatching(const std::string& ns, const api::Labels& labels) {
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = selectors_.find(ns);
    if (it == selectors_.end()) return;
    for (const auto& [name, selector] : it->second) {
      if (selector.Matches(labels)) keys.push_back(Key(ns, name));
    }
  }
  for (const std::string& k : keys) queue_.Add(k);
}

json EndpointsController::SubsetsLocked(const json& service) const {
  const std::string ns = Str(Member(Meta(service), "namespace"));
  const json& spec = Member(service, "spec");
  const api::LabelSelector selector = SelectorOf(service);
  const bool publish_not_ready = Member(spec, "publishNotReadyAddresses") == json(true);
  const json& ports = Member(spec, "ports");
  // Subsets by their resolved ports (JSON text), in first-seen order of the sorted pods.
  std::vector<std::pair<std::string, json>> subsets;
  for (const auto& [key, pod] : pods_by_key_) {
    if (pod.ns != ns || !pod.serving || !selector.Matches(pod.labels)) continue;
    json resolved = json::array();
    if (ports.is_array()) {
      for (const json& p : ports) {
        const json& target = Member(p, "targetPort");
        int64_t port = 0;
        if (target.is_number_integer()) {
          port = target.get<int64_t>();
        } else if (target.is_string()) {
          auto it = pod.named_ports.find(target.get<std::string>());
          if (it == pod.named_ports.end()) continue;  // the pod does not serve this port
          port = it->second;
        } else if (Member(p, "port").is_number_integer()) {
          port = Member(p, "port").get<int64_t>();
        }
        json ep = {{"port", port},
                   {"protocol", Str(Member(p, "protocol")).empty() ? std::string("TCP")
                                                                   : Str(Member(p, "protocol"))}};
        if (!Str(Member(p, "name")).empty()) ep["name"] = Str(Member(p, "name"));
        resolved.push_back(ep);
      }
    }
    const std::string sig = resolved.dump();
    auto it =
        std::find_if(subsets.begin(), subsets.end(), [&](const auto& s) { return s.first == sig; });
    if (it == subsets.end()) {
      subsets.push_back({sig, {{"ports", resolved}}});
      it = subsets.end() - 1;
    }
    json address = {
        {"ip", pod.ip},
        {"targetRef",
         {{"kind", "Pod"}, {"namespace", pod.ns}, {"name", pod.name}, {"uid", pod.uid}}}};
    if (!pod.node.empty()) address["nodeName"] = pod.node;
    const char* list = pod.ready || publish_not_ready ? "addresses" : "notReadyAddresses";
    it->second[list].push_back(address);
  }
  json out = json::array();
  for (auto& [sig, subset] : subsets) {
    if (subset["ports"].empty()) subset.erase("ports");
    out.push_back(std::move(subset));
  }
  return out;
}

std::optional<TimePoint> EndpointsController::Sync(const std::string& key) {
  const std::string ns = key.substr(0, key.find('/'));
  const std::string name = key.substr(key.find('/') + 1);
  const std::string svc_path = "/api/v1/namespaces/" + ns + "/services/" + name;
  const std::string ep_path = "/api/v1/namespaces/" + ns + "/endpoints/" + name;
  const TimePoint retry = clock_.Now() + std::chrono::seconds(1);
  auto svc = client_.GetResult(svc_path);
  if (svc.http_status == 404) {
    auto d = client_.DeleteResult(ep_path);
    return d.ok() || d.http_status == 404 ? std::nullopt : std::optional<TimePoint>(retry);
  }
  if (!svc.ok()) return retry;
  if (SelectorOf(svc.body).Empty()) return std::nullopt;
  json subsets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    subsets = SubsetsLocked(svc.body);
  }
  auto current = client_.GetResult(ep_path);
  if (current.http_status == 404) {
    json ep = {{"apiVersion", "v1"},
               {"kind", "Endpoints"},
               {"metadata", {{"name", name}, {"namespace", ns}}}};
    const json& labels = Member(Meta(svc.body), "labels");
    if (labels.is_object() && !labels.empty()) ep["metadata"]["labels"] = labels;
    if (!subsets.empty()) ep["subsets"] = subsets;
    auto created = client_.CreateResult("/api/v1/namespaces/" + ns + "/endpoints", ep);
    return created.ok() || created.http_status == 409 ? std::nullopt
                                                      : std::optional<TimePoint>(retry);
  }
  if (!current.ok()) return retry;
  const json& have = Member(current.body, "subsets");
  if ((have.is_null() && subsets.empty()) || have == subsets) return std::nullopt;
  json ep = current.body;
  if (subsets.empty()) {
    ep.erase("subsets");
  } else {
    ep["subsets"] = subsets;
  }
  auto put = client_.UpdateResult(ep_path, ep);
  return put.ok() ? std::nullopt : std::optional<TimePoint>(retry);
}

}  // namespace tidepool::controllers::endpoint
