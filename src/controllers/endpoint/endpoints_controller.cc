#include "controllers/endpoint/endpoints_controller.h"

#include <vector>

#include "controllers/object_json.h"

namespace tidepool::controllers::endpoint {
namespace {

using json = nlohmann::json;

constexpr char kManagedBy[] = "endpointslice.kubernetes.io/managed-by";
constexpr char kSliceController[] = "endpointslice-controller.k8s.io";
constexpr char kServiceName[] = "kubernetes.io/service-name";
constexpr char kHeadless[] = "service.kubernetes.io/headless";
constexpr size_t kMaxEndpointsPerSlice = 100;  // kcm's --max-endpoints-per-slice

// A Service's selector: a plain map, as labels.SelectorFromSet makes it.
api::LabelSelector SelectorOf(const json& service) {
  return api::LabelSelector{LabelsOf(Member(Member(service, "spec"), "selector")), {}};
}

// An absent, null or empty list: what a slice without endpoints or ports holds.
bool NoItems(const json& v) { return !v.is_array() || v.empty(); }
bool SameItems(const json& a, const json& b) { return NoItems(a) ? NoItems(b) : a == b; }

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
  if (options_.slice_client != nullptr) {
    nodes_ = make("endpoint-nodes", "/api/v1/nodes", 2);
    auto on_node = [this](const client::ObjectRef& o, bool deleted) {
      const std::string name = Str(Member(Meta(*o), "name"));
      const std::string zone =
          Str(Member(Member(Meta(*o), "labels"), "topology.kubernetes.io/zone"));
      std::lock_guard<std::mutex> lock(mu_);
      if (deleted || zone.empty()) {
        zones_.erase(name);
      } else {
        zones_[name] = zone;
      }
    };
    nodes_->AddEventHandlers(
        {[on_node](const client::ObjectRef& o, bool) { on_node(o, false); },
         [on_node](const client::ObjectRef&, const client::ObjectRef& o) { on_node(o, false); },
         [on_node](const client::ObjectRef& o, bool) { on_node(o, true); }});
  }
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
    f.live = !deleted && !f.ip.empty() && phase != "Succeeded" && phase != "Failed";
    f.terminating = !Member(m, "deletionTimestamp").is_null();
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
    if (nodes_ != nullptr) nodes_->Start();
  }
  queue_.Start();
}

void EndpointsController::Stop() {
  queue_.Stop();
  services_->Stop();
  pods_->Stop();
  if (nodes_ != nullptr) nodes_->Stop();
}

bool EndpointsController::HasSynced() const {
  return services_->HasSynced() && pods_->HasSynced() && (nodes_ == nullptr || nodes_->HasSynced());
}

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

namespace {

// The Service's ports as `pod` serves them: each targetPort resolved (a named one by the pod's
// container port of that name; a port the pod does not serve is left out), as {name (when
// `always_named` or non-empty), port, protocol, appProtocol (when set)}.
json ResolvePorts(const json& ports, const std::map<std::string, int64_t>& named_ports,
                  bool always_named) {
  json resolved = json::array();
  if (!ports.is_array()) return resolved;
  for (const json& p : ports) {
    const json& target = Member(p, "targetPort");
    int64_t port = 0;
    if (target.is_number_integer()) {
      port = target.get<int64_t>();
    } else if (target.is_string()) {
      auto it = named_ports.find(target.get<std::string>());
      if (it == named_ports.end()) continue;  // the pod does not serve this port
      port = it->second;
    } else if (Member(p, "port").is_number_integer()) {
      port = Member(p, "port").get<int64_t>();
    }
    json ep = {{"port", port},
               {"protocol", Str(Member(p, "protocol")).empty() ? std::string("TCP")
                                                               : Str(Member(p, "protocol"))}};
    if (always_named || !Str(Member(p, "name")).empty()) ep["name"] = Str(Member(p, "name"));
    if (!Str(Member(p, "appProtocol")).empty()) ep["appProtocol"] = Str(Member(p, "appProtocol"));
    resolved.push_back(ep);
  }
  return resolved;
}

}  // namespace

json EndpointsController::SubsetsLocked(const json& service) const {
  const std::string ns = Str(Member(Meta(service), "namespace"));
  const json& spec = Member(service, "spec");
  const api::LabelSelector selector = SelectorOf(service);
  const bool publish_not_ready = Member(spec, "publishNotReadyAddresses") == json(true);
  const json& ports = Member(spec, "ports");
  // Subsets by their resolved ports (JSON text), in first-seen order of the sorted pods.
  std::vector<std::pair<std::string, json>> subsets;
  for (const auto& [key, pod] : pods_by_key_) {
    if (pod.ns != ns || !pod.live || pod.terminating || !selector.Matches(pod.labels)) continue;
    json resolved = ResolvePorts(ports, pod.named_ports, false);
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
  const std::optional<TimePoint> slices = SyncSlices(svc.body);
  const std::optional<TimePoint> endpoints = SyncEndpoints(svc.body);
  if (!slices) return endpoints;
  if (!endpoints) return slices;
  return std::min(*slices, *endpoints);
}

std::optional<TimePoint> EndpointsController::SyncEndpoints(const json& service) {
  const std::string ns = Str(Member(Meta(service), "namespace"));
  const std::string name = Str(Member(Meta(service), "name"));
  const std::string ep_path = "/api/v1/namespaces/" + ns + "/endpoints/" + name;
  const TimePoint retry = clock_.Now() + std::chrono::seconds(1);
  json subsets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    subsets = SubsetsLocked(service);
  }
  auto current = client_.GetResult(ep_path);
  if (current.http_status == 404) {
    json ep = {{"apiVersion", "v1"},
               {"kind", "Endpoints"},
               {"metadata", {{"name", name}, {"namespace", ns}}}};
    const json& labels = Member(Meta(service), "labels");
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

std::vector<json> EndpointsController::SlicesLocked(const json& service) const {
  const std::string ns = Str(Member(Meta(service), "namespace"));
  const json& spec = Member(service, "spec");
  const api::LabelSelector selector = SelectorOf(service);
  const bool publish_not_ready = Member(spec, "publishNotReadyAddresses") == json(true);
  // Endpoints by their resolved ports (JSON text), in first-seen order of the sorted pods.
  std::vector<std::pair<std::string, std::pair<json, json>>> groups;
  for (const auto& [key, pod] : pods_by_key_) {
    if (pod.ns != ns || !pod.live || !selector.Matches(pod.labels)) continue;
    json ports = ResolvePorts(Member(spec, "ports"), pod.named_ports, true);
    const std::string sig = ports.dump();
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == sig; });
    if (it == groups.end()) {
      groups.push_back({sig, {std::move(ports), json::array()}});
      it = groups.end() - 1;
    }
    json endpoint = {
        {"addresses", json::array({pod.ip})},
        {"conditions",
         {{"ready", publish_not_ready || (pod.ready && !pod.terminating)},
          {"serving", pod.ready},
          {"terminating", pod.terminating}}},
        {"targetRef",
         {{"kind", "Pod"}, {"namespace", pod.ns}, {"name", pod.name}, {"uid", pod.uid}}}};
    if (!pod.node.empty()) {
      endpoint["nodeName"] = pod.node;
      if (auto z = zones_.find(pod.node); z != zones_.end()) endpoint["zone"] = z->second;
    }
    it->second.second.push_back(std::move(endpoint));
  }
  std::vector<json> out;
  for (auto& [sig, group] : groups) {
    const json& all = group.second;
    for (size_t i = 0; i < all.size(); i += kMaxEndpointsPerSlice) {
      json chunk(all.begin() + static_cast<std::ptrdiff_t>(i),
                 all.begin() +
                     static_cast<std::ptrdiff_t>(std::min(all.size(), i + kMaxEndpointsPerSlice)));
      out.push_back(
          {{"ports", group.first.empty() ? json() : group.first}, {"endpoints", std::move(chunk)}});
    }
  }
  // No endpoint: one placeholder slice, without ports.
  if (out.empty()) out.push_back({{"ports", nullptr}, {"endpoints", nullptr}});
  return out;
}

std::optional<TimePoint> EndpointsController::SyncSlices(const json& service) {
  const client::RestClient* client = options_.slice_client;
  const json& spec = Member(service, "spec");
  if (client == nullptr || Str(Member(spec, "type")) == "ExternalName") return std::nullopt;
  const std::string ns = Str(Member(Meta(service), "namespace"));
  const std::string name = Str(Member(Meta(service), "name"));
  const TimePoint retry = clock_.Now() + std::chrono::seconds(1);
  std::vector<json> want;
  {
    std::lock_guard<std::mutex> lock(mu_);
    want = SlicesLocked(service);
  }
  const std::string collection =
      client::ResourcePath("discovery.k8s.io", "v1", "endpointslices", ns);
  client::ListOptions mine;
  mine.label_selector =
      std::string(kServiceName) + "=" + name + "," + kManagedBy + "=" + kSliceController;
  client::RestResult listed = client->ListResult(collection, mine);
  if (!listed.ok()) return retry;
  std::vector<json> have;
  if (const json& items = Member(listed.body, "items"); items.is_array()) {
    have.assign(items.begin(), items.end());
  }
  std::sort(have.begin(), have.end(), [](const json& a, const json& b) {
    return Str(Member(Meta(a), "name")) < Str(Member(Meta(b), "name"));
  });
  // The slices' labels: the Service's, then the controller's own.
  json labels = json::object();
  if (const json& own = Member(Meta(service), "labels"); own.is_object()) labels = own;
  for (const char* reserved : {kServiceName, kManagedBy, kHeadless}) labels.erase(reserved);
  labels[kServiceName] = name;
  labels[kManagedBy] = kSliceController;
  if (Str(Member(spec, "clusterIP")) == "None") labels[kHeadless] = "";
  const std::string uid = Str(Member(Meta(service), "uid"));
  const json owners = json::array({{{"apiVersion", "v1"},
                                    {"kind", "Service"},
                                    {"name", name},
                                    {"uid", uid},
                                    {"controller", true},
                                    {"blockOwnerDeletion", true}}});
  // Each wanted slice updates an existing one with its ports, else one that would be deleted
  // (kcm's finalize turns a create and a delete into an update), else is created.
  // Slices of another address type, another owner (an earlier Service of the name, being
  // collected) or being deleted are never reused: they go (kcm's slicesToDelete).
  auto reusable = [&](const json& slice) {
    const json* controller = ControllerOf(slice);
    return Str(Member(slice, "addressType")) == "IPv4" && controller != nullptr &&
           Str(Member(*controller, "uid")) == uid &&
           Member(Meta(slice), "deletionTimestamp").is_null();
  };
  std::vector<bool> used(have.size(), false);
  std::vector<int> target(want.size(), -1);
  for (size_t w = 0; w < want.size(); ++w) {
    for (size_t i = 0; i < have.size() && target[w] < 0; ++i) {
      if (!used[i] && reusable(have[i]) && SameItems(Member(have[i], "ports"), want[w]["ports"])) {
        used[i] = true;
        target[w] = static_cast<int>(i);
      }
    }
  }
  for (size_t w = 0; w < want.size(); ++w) {
    for (size_t i = 0; i < have.size() && target[w] < 0; ++i) {
      if (!used[i] && reusable(have[i])) {
        used[i] = true;
        target[w] = static_cast<int>(i);
      }
    }
  }
  bool failed = false;
  for (size_t w = 0; w < want.size(); ++w) {
    json& slice = want[w];
    if (target[w] >= 0) {
      json& current = have[static_cast<size_t>(target[w])];
      if (SameItems(Member(current, "endpoints"), slice["endpoints"]) &&
          SameItems(Member(current, "ports"), slice["ports"]) &&
          Member(Meta(current), "labels") == labels &&
          Member(Meta(current), "ownerReferences") == owners) {
        continue;
      }
      current["endpoints"] = slice["endpoints"];
      current["ports"] = slice["ports"];
      current["metadata"]["labels"] = labels;
      current["metadata"]["ownerReferences"] = owners;
      failed |=
          !client->UpdateResult(collection + "/" + Str(Member(Meta(current), "name")), current)
               .ok();
      continue;
    }
    json made = {{"apiVersion", "discovery.k8s.io/v1"},
                 {"kind", "EndpointSlice"},
                 {"metadata",
                  {{"generateName", name + "-"},
                   {"namespace", ns},
                   {"labels", labels},
                   {"ownerReferences", owners}}},
                 {"addressType", "IPv4"},
                 {"endpoints", slice["endpoints"]},
                 {"ports", slice["ports"]}};
    failed |= !client->CreateResult(collection, made).ok();
  }
  for (size_t i = 0; i < have.size(); ++i) {
    if (used[i]) continue;
    client::RestResult d =
        client->DeleteResult(collection + "/" + Str(Member(Meta(have[i]), "name")));
    failed |= !d.ok() && d.http_status != 404;
  }
  return failed ? std::optional<TimePoint>(retry) : std::nullopt;
}

}  // namespace tidepool::controllers::endpoint
