// File: gke_api.cc
#include "cloud/gke/gke_api.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cloud/gke/request_schema.h"
#include "common/strings.h"

namespace tidepool::cloud::gke {

namespace emu = cloud::emulated;
using json = nlohmann::json;

namespace {

constexpr std::string_view kContainerBase = "https://container.googleapis.com/v1/";
constexpr std::string_view kComputeBase = "https://www.googleapis.com/compute/v1/";

// The scopes gcloud sends by default (and GKE echoes).
const char* const kDefaultScopes[] = {
    "https://www.googleapis.com/auth/devstorage.read_only",
    "https://www.googleapis.com/auth/logging.write",
    "https://www.googleapis.com/auth/monitoring",
    "https://www.googleapis.com/auth/service.management.readonly",
    "https://www.googleapis.com/auth/servicecontrol",
    "https://www.googleapis.com/auth/trace.append",
};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view RpcStatusName(int http) {
  switch (http) {
    case 400: return "INVALID_ARGUMENT";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 405: return "METHOD_NOT_ALLOWED";
    case 409: return "ALREADY_EXISTS";
    case 501: return "UNIMPLEMENTED";
    case 503: return "UNAVAILABLE";
    default: return "UNKNOWN";
  }
}

GkeResponse Error(int code, const std::string& message, std::string_view status = "") {
  json e = {{"code", code},
            {"message", message},
            {"status", status.empty() ? RpcStatusName(code) : status}};
  return GkeResponse{code, json{{"error", e}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

// Compute Engine's error shape (errors[].reason).
GkeResponse ComputeError(int code, const std::string& message, std::string_view reason) {
  json e = {{"code", code},
            {"message", message},
            {"errors", json::array({{{"message", message}, {"domain", "global"},
                                     {"reason", reason}}})}};
  return GkeResponse{code, json{{"error", e}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

// A body the front end refuses before GKE sees it (request_schema.h): INVALID_ARGUMENT with a
// google.rpc.BadRequest field violation, as Google's APIs answer.
GkeResponse RequestInvalid(const RequestError& e) {
  json error = {{"code", 400}, {"message", e.message}, {"status", "INVALID_ARGUMENT"}};
  error["details"] = json::array(
      {{{"@type", "type.googleapis.com/google.rpc.BadRequest"},
        {"fieldViolations", json::array({{{"field", e.field}, {"description", e.message}}})}}});
  return GkeResponse{400, json{{"error", error}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

// The request message of a container API call with a body, by route (seg: projects/P/
// locations/L/clusters[/C[:verb]][/nodePools[/NP[:verb]]]); empty when the call takes none.
std::string ContainerRequestMessage(const std::string& method, const std::vector<std::string>& seg) {
  if (seg.size() < 5 || seg[4] != "clusters") return "";
  if (seg.size() == 5) return method == "POST" ? "CreateClusterRequest" : "";
  const bool cluster_verb = seg[5].find(':') != std::string::npos;
  if (seg.size() == 6) return method == "PUT" && !cluster_verb ? "UpdateClusterRequest" : "";
  if (seg[6] != "nodePools") return "";
  if (seg.size() == 7) return method == "POST" ? "CreateNodePoolRequest" : "";
  if (seg.size() != 8) return "";
  const size_t colon = seg[7].find(':');
  if (colon == std::string::npos) return method == "PUT" ? "UpdateNodePoolRequest" : "";
  const std::string verb = seg[7].substr(colon + 1);
  if (method != "POST") return "";
  if (verb == "setSize") return "SetNodePoolSizeRequest";
  if (verb == "setAutoscaling") return "SetNodePoolAutoscalingRequest";
  return "";
}

GkeResponse FromStatus(const Status& s) {
  const std::string msg(s.message());
  switch (s.code()) {
    case StatusCode::kNotFound: return Error(404, msg);
    case StatusCode::kAlreadyExists: return Error(409, msg);
    case StatusCode::kInvalidArgument: return Error(400, msg);
    case StatusCode::kFailedPrecondition: return Error(400, msg, "FAILED_PRECONDITION");
    case StatusCode::kResourceExhausted: return Error(403, msg, "RESOURCE_EXHAUSTED");
    case StatusCode::kPermissionDenied: return Error(403, msg);
    case StatusCode::kUnimplemented: return Error(501, msg);
    default: return Error(503, msg, "UNAVAILABLE");  // 500 would be retried for ~30 s
  }
}

GkeResponse Ok(const json& j) { return GkeResponse{200, j.dump(-1, ' ', false, json::error_handler_t::replace)}; }

// An int32/int64 field sent as a number or a string. nullopt when absent.
StatusOr<std::optional<int64_t>> GetInt(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return std::optional<int64_t>();
  const json& v = obj[key];
  if (v.is_number_integer()) return std::optional<int64_t>(v.get<int64_t>());
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    char* end = nullptr;
    long long n = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end != nullptr && *end == '\0') return std::optional<int64_t>(n);
  }
  return InvalidArgumentError(std::string("Invalid value at '") + key + "': " + v.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string Hex8(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08llx", static_cast<unsigned long long>(v & 0xffffffffULL));
  return buf;
}

std::string Rfc3339Nanos(TimePoint t) {
  // "2026-01-01T00:00:00.123456789Z"
  std::string s = FormatRfc3339(t);
  const auto ns = t.time_since_epoch().count() % 1000000000;
  char frac[16];
  std::snprintf(frac, sizeof(frac), ".%09lld", static_cast<long long>(ns < 0 ? 0 : ns));
  if (!s.empty() && s.back() == 'Z') s.insert(s.size() - 1, frac);
  return s;
}

std::string RegionOf(const std::string& zone) { return emu::EmulatedCloud::RegionOf(zone); }

}  // namespace

bool IsGkePath(std::string_view path) {
  return StartsWith(path, "/v1/projects/") || StartsWith(path, "/v1beta1/projects/") ||
         StartsWith(path, "/compute/v1/");
}

StatusOr<emu::Accelerator> GkeApi::ParseAcceleratorConfig(const json& a) {
  emu::Accelerator out;
  if (!a.is_object()) return out;
  auto count = GetInt(a, "acceleratorCount");
  if (!count.ok()) return count.status();
  out.type = a.value("acceleratorType", "");
  out.count = static_cast<int>(count->value_or(1));
  auto sharing = a.find("gpuSharingConfig");
  if (sharing != a.end() && sharing->is_object()) {
    const std::string strategy = sharing->value("gpuSharingStrategy", "");
    auto clients = GetInt(*sharing, "maxSharedClientsPerGpu");
    if (!clients.ok()) return clients.status();
    if (!strategy.empty() && strategy != "GPU_SHARING_STRATEGY_UNSPECIFIED") {
      out.sharing = strategy;
      out.max_shared_clients = static_cast<int>(clients->value_or(0));
    }
  }
  return out;
}

json GkeApi::AcceleratorConfigJson(const emu::Accelerator& a) {
  json j = {{"acceleratorCount", std::to_string(a.count)}, {"acceleratorType", a.type}};
  if (!a.sharing.empty()) {
    j["gpuSharingConfig"] = {{"gpuSharingStrategy", a.sharing},
                             {"maxSharedClientsPerGpu", std::to_string(a.max_shared_clients)}};
  }
  return j;
}

StatusOr<api::TaintEffect> GkeApi::ParseGkeEffect(std::string_view effect) {
  if (effect == "NO_SCHEDULE") return api::TaintEffect::kNoSchedule;
  if (effect == "PREFER_NO_SCHEDULE") return api::TaintEffect::kPreferNoSchedule;
  if (effect == "NO_EXECUTE") return api::TaintEffect::kNoExecute;
  return InvalidArgumentError("Invalid value at 'node_pool.config.taints[0].effect' "
                              "(type.googleapis.com/google.container.v1.NodeTaint.Effect), \"" +
                              std::string(effect) + "\"");
}

std::string_view GkeApi::GkeEffectName(api::TaintEffect effect) {
  switch (effect) {
    case api::TaintEffect::kNoSchedule: return "NO_SCHEDULE";
    case api::TaintEffect::kPreferNoSchedule: return "PREFER_NO_SCHEDULE";
    case api::TaintEffect::kNoExecute: return "NO_EXECUTE";
    default: return "EFFECT_UNSPECIFIED";
  }
}

struct GkeApi::Operation {
  std::string name;
  std::string type;
  std::string location;
  std::string target;  // relative: projects/P/locations/L/clusters/C[/nodePools/NP]
  std::string pool;    // watched pool; empty: done at once
  bool deleting = false;
  TimePoint start{};
  std::optional<TimePoint> end;
  std::string status_message;  // non-empty: failed
  std::string journaled;       // the record last written to the journal
};

struct GkeApi::Impl {
  GkeControl& control;
  const Clock& clock;
  GkeApiOptions options;
  std::mutex mu;
  std::map<std::string, Operation> ops;  // by name
  std::vector<std::string> op_order;
  uint64_t op_seq = 0;
  // Taints the user asked for, per pool (GKE's automatic GPU taint is not in config.taints).
  std::map<std::string, std::vector<api::Taint>> requested_taints;
  // "container/v1" or "container/v1beta1": the API version of the request being handled.
  std::string container_api;

  Impl(GkeControl& c, const Clock& k, GkeApiOptions o) : control(c), clock(k), options(o) {
    Restore();
  }

  // ---- Journal (GkeApiOptions::journal; at the end of this file) ----
  void Restore();
  void Journal(std::string_view kind, const std::string& name, const json* value);
  void SaveOperation(Operation& op);
  void SetRequestedTaints(const std::string& pool, const std::vector<api::Taint>* taints);

  GkeResponse Handle(const GkeRequest& r);
  GkeResponse HandleContainer(const GkeRequest& r, const std::vector<std::string>& seg,
                              const ClusterInfo& c);
  GkeResponse HandleCompute(const GkeRequest& r, const std::vector<std::string>& seg,
                            const ClusterInfo& c);
  // projects/P/zones/Z/instanceGroupManagers[/IGM[/verb]]; Z is known.
  GkeResponse HandleIgm(const GkeRequest& r, const std::vector<std::string>& seg,
                        const ClusterInfo& c);

  // A managed instance group: pool `pool`'s VMs in `zone`.
  struct Igm {
    std::string name;
    std::string zone;
    emu::NodePoolInfo pool;
  };
  std::vector<Igm> ListIgms();
  json IgmJson(const ClusterInfo& c, const Igm& igm, const std::vector<VmInfo>& vms);
  json ManagedInstanceJson(const ClusterInfo& c, const Igm& igm, const VmInfo& vm);
  json MachineTypeJson(const ClusterInfo& c, const std::string& zone, const emu::MachineType& m);
  // Records a DONE compute operation on `igm` (error: code + message, or none) and returns it.
  json NewComputeOperation(const ClusterInfo& c, const Igm& igm, const std::string& type,
                           const std::vector<std::pair<std::string, std::string>>& errors,
                           int http_error = 0);
  // Compute operations by "<zone>/<name>".
  std::map<std::string, json> compute_ops;
  uint64_t compute_op_seq = 0;

  std::string ClusterPath(const ClusterInfo& c) const {
    return "projects/" + c.project + "/locations/" + c.zone + "/clusters/" + c.name;
  }
  json NodePoolJson(const ClusterInfo& c, const emu::NodePoolInfo& p);
  json ClusterJson(const ClusterInfo& c);
  json OperationJson(const ClusterInfo& c, Operation& op);
  void Refresh(Operation& op);
  Operation& NewOperation(const ClusterInfo& c, std::string type, std::string target,
                          std::string pool);

  GkeResponse CreateNodePool(const ClusterInfo& c, const json& body);
  GkeResponse UpdateCluster(const ClusterInfo& c, const json& body);
  GkeResponse UpdateNodePool(const ClusterInfo& c, const std::string& pool, const json& body);
  GkeResponse SetSize(const ClusterInfo& c, const std::string& pool, const json& body);
  GkeResponse SetAutoscaling(const ClusterInfo& c, const std::string& pool, const json& autoscaling,
                             const char* op_type, const std::string& op_target);
};

GkeApi::GkeApi(GkeControl& control, const Clock& clock, GkeApiOptions options)
    : impl_(std::make_unique<Impl>(control, clock, options)) {}
GkeApi::~GkeApi() = default;

GkeResponse GkeApi::Handle(const GkeRequest& request) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->Handle(request);
}

GkeResponse GkeApi::Impl::Handle(const GkeRequest& r) {
  std::string_view path = r.path;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const ClusterInfo c = control.Cluster();
  if (StartsWith(path, "/compute/v1/")) {
    return HandleCompute(r, SplitString(path.substr(std::string_view("/compute/v1/").size()), '/'),
                         c);
  }
  std::vector<std::string> seg = SplitString(path.substr(1), '/');
  // seg[0] = v1 | v1beta1, seg[1] = projects, seg[2] = P, ...
  if (seg.size() < 3) return Error(404, "Not found: " + std::string(r.path));
  container_api = "container/" + seg[0];
  seg.erase(seg.begin());
  // serviceusage: projects/P/services/S
  if (seg.size() == 4 && seg[2] == "services") {
    if (r.method != "GET") return Error(405, "Method not allowed: " + r.method);
    return Ok({{"name", "projects/" + c.project + "/services/" + seg[3]},
               {"parent", "projects/" + c.project},
               {"state", "ENABLED"}});
  }
  if (seg.size() >= 4 && seg[2] == "zones") seg[2] = "locations";
  return HandleContainer(r, seg, c);
}

json GkeApi::Impl::NodePoolJson(const ClusterInfo& c, const emu::NodePoolInfo& p) {
  const emu::NodePoolSpec& s = p.spec;
  const int zones = std::max<int>(1, static_cast<int>(s.zones.size()));
  json config = {{"machineType", s.machine_type},
                 {"diskSizeGb", s.disk_size_gb},
                 {"diskType", "pd-balanced"},
                 {"imageType", "COS_CONTAINERD"},
                 {"serviceAccount", "default"},
                 {"metadata", {{"disable-legacy-endpoints", "true"}}},
                 {"oauthScopes", std::vector<std::string>(std::begin(kDefaultScopes),
                                                          std::end(kDefaultScopes))}};
  if (!s.labels.empty()) config["labels"] = s.labels;
  if (s.accelerator.has_value() && s.accelerator->count > 0) {
    config["accelerators"] = json::array({GkeApi::AcceleratorConfigJson(*s.accelerator)});
  }
  std::vector<api::Taint> taints = s.taints;
  if (auto it = requested_taints.find(s.name); it != requested_taints.end()) taints = it->second;
  if (!taints.empty()) {
    json t = json::array();
    for (const api::Taint& x : taints) {
      t.push_back({{"key", x.key}, {"value", x.value}, {"effect", GkeEffectName(x.effect)}});
    }
    config["taints"] = t;
  }
  if (s.spot) config["spot"] = true;
  json j = {{"name", s.name}, {"config", config}, {"initialNodeCount", s.initial_node_count / zones},
            {"locations", s.zones}};
  if (s.autoscaling) {
    j["autoscaling"] = {{"enabled", true},
                        {"minNodeCount", s.min_nodes / zones},
                        {"maxNodeCount", s.max_nodes / zones},
                        {"locationPolicy", "BALANCED"}};
  }
  j["management"] = {{"autoRepair", true}, {"autoUpgrade", true}};
  j["maxPodsConstraint"] = {{"maxPodsPerNode", std::to_string(emu::kDefaultMaxPodsPerNode)}};
  j["upgradeSettings"] = {{"maxSurge", 1}, {"strategy", "SURGE"}};
  j["selfLink"] = std::string(kContainerBase) + ClusterPath(c) + "/nodePools/" + s.name;
  j["version"] = c.version;
  json igs = json::array();
  for (size_t i = 0; i < p.instance_groups.size(); ++i) {
    const std::string& z = i < s.zones.size() ? s.zones[i] : c.zone;
    igs.push_back(std::string(kComputeBase) + "projects/" + c.project + "/zones/" + z +
                  "/instanceGroupManagers/" + p.instance_groups[i]);
  }
  j["instanceGroupUrls"] = igs;
  j["status"] = emu::NodePoolStatusName(p.status);
  j["podIpv4CidrSize"] = 24;
  j["etag"] = Hex8(std::hash<std::string>{}(j.dump(-1, ' ', false, json::error_handler_t::replace)));
  return j;
}

json GkeApi::Impl::ClusterJson(const ClusterInfo& c) {
  json pools = json::array();
  for (const emu::NodePoolInfo& p : control.ListNodePools()) pools.push_back(NodePoolJson(c, p));
  int nodes = 0;
  for (const VmInfo& vm : control.ListVms()) {
    if (vm.instance.status != emu::VmStatus::kFailed) ++nodes;
  }
  json j = {{"name", c.name},
            {"nodePools", pools},
            {"locations", {c.zone}},
            {"network", "default"},
            {"subnetwork", "default"},
            {"clusterIpv4Cidr", "10.4.0.0/14"},
            {"servicesIpv4Cidr", c.services_ipv4_cidr},
            {"loggingService", "logging.googleapis.com/kubernetes"},
            {"monitoringService", "monitoring.googleapis.com/kubernetes"},
            {"selfLink", std::string(kContainerBase) + ClusterPath(c)},
            {"zone", c.zone},
            {"location", c.zone},
            {"endpoint", c.endpoint},
            {"initialClusterVersion", c.version},
            {"currentMasterVersion", c.version},
            {"currentNodeVersion", c.version},
            {"createTime", FormatRfc3339(c.create_time)},
            {"status", "RUNNING"},
            {"currentNodeCount", nodes},
            {"id", Hex8(std::hash<std::string>{}(ClusterPath(c))) +
                       Hex8(std::hash<std::string>{}(c.name + "/id"))}};
  json auth = json::object();
  if (!c.ca_pem.empty()) {
    // base64 of the PEM, as GKE sends it.
    static const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::string& in = c.ca_pem;
    std::string out;
    for (size_t i = 0; i < in.size(); i += 3) {
      uint32_t v = static_cast<uint8_t>(in[i]) << 16;
      if (i + 1 < in.size()) v |= static_cast<uint8_t>(in[i + 1]) << 8;
      if (i + 2 < in.size()) v |= static_cast<uint8_t>(in[i + 2]);
      out += kB64[(v >> 18) & 63];
      out += kB64[(v >> 12) & 63];
      out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
      out += i + 2 < in.size() ? kB64[v & 63] : '=';
    }
    auth["clusterCaCertificate"] = out;
  }
  j["masterAuth"] = auth;
  return j;
}

void GkeApi::Impl::Refresh(Operation& op) {
  if (op.end.has_value()) return;
  bool done = true;
  if (!op.pool.empty()) {
    auto p = control.GetNodePool(op.pool);
    if (!p.ok()) {
      done = true;  // gone (a delete has finished)
    } else if (op.deleting || p->status == emu::NodePoolStatus::kProvisioning ||
               p->status == emu::NodePoolStatus::kReconciling ||
               p->status == emu::NodePoolStatus::kStopping) {
      done = false;
    } else if (p->status == emu::NodePoolStatus::kError) {
      int expected = 0, running = 0;
      std::string errors;
      for (const VmInfo& vm : control.ListVms()) {
        if (vm.instance.node_pool != op.pool) continue;
        ++expected;
        if (vm.instance.status == emu::VmStatus::kRunning) ++running;
        if (vm.instance.error.has_value() && errors.size() < 2000) {
          errors += (errors.empty() ? "" : "; ") + std::string("[") +
                    vm.instance.error->error_code + "]: Instance '" + vm.instance.name +
                    "' creation failed: " + vm.instance.error->error_message;
        }
      }
      op.status_message = "Google Compute Engine: Not all instances running in IGM. Expected " +
                          std::to_string(expected) + ", running " + std::to_string(running) +
                          ". Current errors: " + errors;
    }
  }
  if (done) op.end = clock.Now();
}

GkeApi::Operation& GkeApi::Impl::NewOperation(const ClusterInfo& c, std::string type,
                                              std::string target, std::string pool) {
  const TimePoint now = clock.Now();
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  ++op_seq;
  Operation op;
  op.name = "operation-" + std::to_string(ms) + "-" +
            Hex8(std::hash<std::string>{}(std::to_string(op_seq) + target + type));
  op.type = std::move(type);
  op.location = c.zone;
  op.target = std::move(target);
  op.pool = std::move(pool);
  op.start = now;
  op_order.push_back(op.name);
  auto [it, inserted] = ops.emplace(op.name, std::move(op));
  return it->second;
}

json GkeApi::Impl::OperationJson(const ClusterInfo& c, Operation& op) {
  Refresh(op);
  const std::string base = std::string(kContainerBase) + "projects/" + c.project + "/locations/";
  json j = {{"name", op.name},
            {"zone", op.location},
            {"operationType", op.type},
            {"status", op.end.has_value() ? "DONE" : "RUNNING"},
            {"selfLink", base + op.location + "/operations/" + op.name},
            {"targetLink", std::string(kContainerBase) + op.target},
            {"location", std::string(kContainerBase) + "projects/" + c.project + "/locations/" +
                             op.location},
            {"startTime", Rfc3339Nanos(op.start)}};
  if (op.end.has_value()) j["endTime"] = Rfc3339Nanos(*op.end);
  if (!op.status_message.empty()) {
    j["statusMessage"] = op.status_message;
    j["error"] = {{"code", 8}, {"message", op.status_message}};
  }
  SaveOperation(op);
  return j;
}

GkeResponse GkeApi::Impl::HandleContainer(const GkeRequest& r, const std::vector<std::string>& seg,
                                          const ClusterInfo& c) {
  // seg: projects P locations L <collection> [id[:verb]] [nodePools [id[:verb]]]
  if (seg.size() < 5 || seg[0] != "projects" || seg[2] != "locations") {
    return Error(404, "Not found: " + r.path);
  }
  const std::string& project = seg[1];
  const std::string& location = seg[3];
  const std::string& collection = seg[4];
  const bool any_location = location == "-";
  const bool our_place = project == c.project && (any_location || location == c.zone ||
                                                  location == RegionOf(c.zone));
  json body = json::object();
  if (!r.body.empty()) {
    body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded() || !body.is_object()) {
      return Error(400, "Invalid JSON payload received.");
    }
  }
  if (const std::string message = ContainerRequestMessage(r.method, seg); !message.empty()) {
    if (auto e = DecodeRequest(container_api, message, body)) return RequestInvalid(*e);
  }
  const std::string here = "projects/" + project + "/locations/" + location;

  if (collection == "operations") {
    if (r.method != "GET") return Error(405, "Method not allowed: " + r.method);
    if (seg.size() == 5) {
      json list = json::array();
      if (our_place) {
        for (const std::string& n : op_order) list.push_back(OperationJson(c, ops.at(n)));
      }
      return Ok({{"operations", list}});
    }
    std::string id = seg[5];
    if (auto colon = id.find(':'); colon != std::string::npos) {
      // operations/ID:cancel
      return Error(400, "Operation " + id.substr(0, colon) + " cannot be cancelled.",
                   "FAILED_PRECONDITION");
    }
    auto it = ops.find(id);
    if (!our_place || it == ops.end()) {
      return Error(404, "Not found: " + here + "/operations/" + id + ".");
    }
    return Ok(OperationJson(c, it->second));
  }
  if (collection != "clusters") return Error(404, "Not found: " + r.path);

  if (seg.size() == 5) {
    if (r.method == "GET") {
      json list = json::array();
      if (our_place) list.push_back(ClusterJson(c));
      return Ok({{"clusters", list}});
    }
    if (r.method == "POST") {
      const std::string name = body.contains("cluster") && body["cluster"].is_object()
                                   ? body["cluster"].value("name", "")
                                   : "";
      if (our_place && name == c.name) {
        return Error(409, "Already exists: " + ClusterPath(c) + ".");
      }
      return Error(400, "tidepool up emulates one cluster (" + ClusterPath(c) +
                            "); creating another one is not supported.",
                   "FAILED_PRECONDITION");
    }
    return Error(405, "Method not allowed: " + r.method);
  }

  std::string cluster = seg[5];
  std::string cluster_verb;
  if (auto colon = cluster.find(':'); colon != std::string::npos) {
    cluster_verb = cluster.substr(colon + 1);
    cluster.resize(colon);
  }
  if (!our_place || any_location || cluster != c.name) {
    return Error(404, "Not found: " + here + "/clusters/" + cluster + ".");
  }

  if (seg.size() == 6) {
    if (!cluster_verb.empty()) {
      return Error(501, "clusters:" + cluster_verb + " is not supported by tidepool up.");
    }
    if (r.method == "GET") return Ok(ClusterJson(c));
    if (r.method == "PUT") return UpdateCluster(c, body);
    if (r.method == "DELETE") {
      return Error(400, "tidepool up's cluster " + c.name +
                            " cannot be deleted; stop tidepool up instead.",
                   "FAILED_PRECONDITION");
    }
    return Error(405, "Method not allowed: " + r.method);
  }
  if (seg[6] != "nodePools" || seg.size() > 8) return Error(404, "Not found: " + r.path);

  if (seg.size() == 7) {
    if (r.method == "GET") {
      json list = json::array();
      for (const emu::NodePoolInfo& p : control.ListNodePools()) list.push_back(NodePoolJson(c, p));
      return Ok({{"nodePools", list}});
    }
    if (r.method == "POST") return CreateNodePool(c, body);
    return Error(405, "Method not allowed: " + r.method);
  }

  std::string pool = seg[7];
  std::string verb;
  if (auto colon = pool.find(':'); colon != std::string::npos) {
    verb = pool.substr(colon + 1);
    pool.resize(colon);
  }
  const std::string pool_path = ClusterPath(c) + "/nodePools/" + pool;
  if (!verb.empty()) {
    if (r.method != "POST") return Error(405, "Method not allowed: " + r.method);
    if (verb == "setSize") return SetSize(c, pool, body);
    if (verb == "setAutoscaling") {
      return SetAutoscaling(c, pool, body.value("autoscaling", json::object()),
                            "SET_NODE_POOL_AUTOSCALING", pool_path);
    }
    return Error(501, "nodePools:" + verb + " is not supported by tidepool up.");
  }
  if (r.method == "GET") {
    auto p = control.GetNodePool(pool);
    if (!p.ok()) return Error(404, "Not found: " + pool_path + ".");
    return Ok(NodePoolJson(c, *p));
  }
  if (r.method == "PUT") return UpdateNodePool(c, pool, body);
  if (r.method == "DELETE") {
    Status s = control.DeleteNodePool(pool);
    if (!s.ok()) {
      if (s.code() == StatusCode::kNotFound) return Error(404, "Not found: " + pool_path + ".");
      return FromStatus(s);
    }
    SetRequestedTaints(pool, nullptr);
    Operation& op = NewOperation(c, "DELETE_NODE_POOL", pool_path, pool);
    op.deleting = true;
    return Ok(OperationJson(c, op));
  }
  return Error(405, "Method not allowed: " + r.method);
}

GkeResponse GkeApi::Impl::CreateNodePool(const ClusterInfo& c, const json& body) {
  const json& np = body.contains("nodePool") ? body["nodePool"] : json();
  if (!np.is_object()) return Error(400, "Node pool must be specified.");
  emu::NodePoolSpec spec;
  spec.name = np.value("name", "");
  if (spec.name.empty()) return Error(400, "Node pool name must be specified.");
  const json& cfg = np.value("config", json::object());
  spec.machine_type = cfg.value("machineType", "e2-medium");
  auto disk = GetInt(cfg, "diskSizeGb");
  if (!disk.ok()) return FromStatus(disk.status());
  if (disk->has_value() && **disk > 0) spec.disk_size_gb = **disk;
  spec.spot = cfg.value("spot", false) || cfg.value("preemptible", false);
  if (cfg.contains("labels") && cfg["labels"].is_object()) {
    for (auto& [k, v] : cfg["labels"].items()) {
      if (v.is_string()) spec.labels[k] = v.get<std::string>();
    }
  }
  if (cfg.contains("accelerators") && cfg["accelerators"].is_array() &&
      !cfg["accelerators"].empty()) {
    if (cfg["accelerators"].size() > 1) {
      return Error(400, "Only one accelerator type per node pool is supported.");
    }
    auto accelerator = GkeApi::ParseAcceleratorConfig(cfg["accelerators"][0]);
    if (!accelerator.ok()) return FromStatus(accelerator.status());
    spec.accelerator = *std::move(accelerator);
  }
  std::vector<api::Taint> taints;
  if (cfg.contains("taints") && cfg["taints"].is_array()) {
    for (const json& t : cfg["taints"]) {
      auto effect = GkeApi::ParseGkeEffect(t.value("effect", ""));
      if (!effect.ok()) return FromStatus(effect.status());
      taints.push_back(api::Taint{t.value("key", ""), t.value("value", ""), *effect, std::nullopt});
    }
  }
  spec.taints = taints;
  if (np.contains("locations") && np["locations"].is_array()) {
    for (const json& z : np["locations"]) {
      if (z.is_string()) spec.zones.push_back(z.get<std::string>());
    }
  }
  const int zones = std::max<int>(1, static_cast<int>(spec.zones.size()));
  auto initial = GetInt(np, "initialNodeCount");
  if (!initial.ok()) return FromStatus(initial.status());
  spec.initial_node_count = static_cast<int>(initial->value_or(0)) * zones;
  const json& as = np.value("autoscaling", json::object());
  spec.autoscaling = as.is_object() && as.value("enabled", false);
  if (spec.autoscaling) {
    auto mn = GetInt(as, "minNodeCount");
    auto mx = GetInt(as, "maxNodeCount");
    if (!mn.ok()) return FromStatus(mn.status());
    if (!mx.ok()) return FromStatus(mx.status());
    spec.min_nodes = static_cast<int>(mn->value_or(0)) * zones;
    spec.max_nodes = static_cast<int>(mx->value_or(0)) * zones;
    if (spec.min_nodes > spec.max_nodes) {
      // GKE's message.
      return Error(400, "Autoscaling min_node_count (" + std::to_string(spec.min_nodes / zones) +
                            ") must be less than or equal to max_node_count (" +
                            std::to_string(spec.max_nodes / zones) + ").");
    }
    if (options.autoscaled_pools_start_at_min) spec.initial_node_count = spec.min_nodes;
  }
  const std::string name = spec.name;
  const std::string pool_path = ClusterPath(c) + "/nodePools/" + name;
  Status s = control.CreateNodePool(std::move(spec));
  if (s.code() == StatusCode::kResourceExhausted) {
    Operation& op = NewOperation(c, "CREATE_NODE_POOL", pool_path, "");
    op.status_message = "Insufficient quota to satisfy the request: " + std::string(s.message());
    return Ok(OperationJson(c, op));
  }
  if (!s.ok()) return FromStatus(s);
  SetRequestedTaints(name, &taints);
  return Ok(OperationJson(c, NewOperation(c, "CREATE_NODE_POOL", pool_path, name)));
}

GkeResponse GkeApi::Impl::SetAutoscaling(const ClusterInfo& c, const std::string& pool,
                                         const json& as, const char* op_type,
                                         const std::string& op_target) {
  auto p = control.GetNodePool(pool);
  const std::string pool_path = ClusterPath(c) + "/nodePools/" + pool;
  if (!p.ok()) return Error(404, "Not found: " + pool_path + ".");
  const int zones = std::max<int>(1, static_cast<int>(p->spec.zones.size()));
  const bool enabled = as.is_object() && as.value("enabled", false);
  auto mn = GetInt(as, "minNodeCount");
  auto mx = GetInt(as, "maxNodeCount");
  if (!mn.ok()) return FromStatus(mn.status());
  if (!mx.ok()) return FromStatus(mx.status());
  int min_nodes = static_cast<int>(mn->value_or(0));
  int max_nodes = static_cast<int>(mx->value_or(0));
  if (!enabled) min_nodes = max_nodes = 0;
  if (enabled && min_nodes > max_nodes) {
    return Error(400, "Autoscaling min_node_count (" + std::to_string(min_nodes) +
                          ") must be less than or equal to max_node_count (" +
                          std::to_string(max_nodes) + ").");
  }
  Status s = control.SetAutoscaling(pool, enabled, min_nodes * zones, max_nodes * zones);
  if (!s.ok()) return FromStatus(s);
  return Ok(OperationJson(c, NewOperation(c, op_type, op_target, "")));
}

GkeResponse GkeApi::Impl::UpdateCluster(const ClusterInfo& c, const json& body) {
  const json& u = body.value("update", json::object());
  if (!u.is_object() || u.empty()) return Error(400, "Update must be specified.");
  for (auto& [k, v] : u.items()) {
    if (k != "desiredNodePoolAutoscaling" && k != "desiredNodePoolId") {
      return Error(501, "Cluster update field " + k + " is not supported by tidepool up.");
    }
  }
  if (!u.contains("desiredNodePoolAutoscaling") || !u.contains("desiredNodePoolId")) {
    return Error(400, "desired_node_pool_id must be specified with desired_node_pool_autoscaling.");
  }
  const std::string pool = u["desiredNodePoolId"].is_string()
                               ? u["desiredNodePoolId"].get<std::string>()
                               : std::string();
  return SetAutoscaling(c, pool, u["desiredNodePoolAutoscaling"], "UPDATE_CLUSTER",
                        ClusterPath(c));
}

GkeResponse GkeApi::Impl::UpdateNodePool(const ClusterInfo& c, const std::string& pool,
                                         const json& body) {
  const std::string pool_path = ClusterPath(c) + "/nodePools/" + pool;
  auto p = control.GetNodePool(pool);
  if (!p.ok()) return Error(404, "Not found: " + pool_path + ".");
  bool any = false;
  if (body.contains("labels")) {
    any = true;
    api::Labels labels;
    const json& l = body["labels"].value("labels", json::object());
    for (auto& [k, v] : l.items()) {
      if (v.is_string()) labels[k] = v.get<std::string>();
    }
    Status s = control.SetLabels(pool, labels);
    if (!s.ok()) return FromStatus(s);
  }
  if (body.contains("taints")) {
    any = true;
    std::vector<api::Taint> taints;
    const json& t = body["taints"].value("taints", json::array());
    for (const json& x : t) {
      auto effect = GkeApi::ParseGkeEffect(x.value("effect", ""));
      if (!effect.ok()) return FromStatus(effect.status());
      taints.push_back(api::Taint{x.value("key", ""), x.value("value", ""), *effect, std::nullopt});
    }
    Status s = control.SetTaints(pool, taints);
    if (!s.ok()) return FromStatus(s);
    SetRequestedTaints(pool, &taints);
  }
  if (!any) {
    return Error(501, "This node pool update is not supported by tidepool up (only labels and "
                      "taints; autoscaling goes through the cluster update).");
  }
  return Ok(OperationJson(c, NewOperation(c, "UPDATE_CLUSTER", pool_path, pool)));
}

GkeResponse GkeApi::Impl::SetSize(const ClusterInfo& c, const std::string& pool,
                                  const json& body) {
  const std::string pool_path = ClusterPath(c) + "/nodePools/" + pool;
  auto p = control.GetNodePool(pool);
  if (!p.ok()) return Error(404, "Not found: " + pool_path + ".");
  const int zones = std::max<int>(1, static_cast<int>(p->spec.zones.size()));
  auto n = GetInt(body, "nodeCount");
  if (!n.ok()) return FromStatus(n.status());
  Status s = control.SetSize(pool, static_cast<int>(n->value_or(0)) * zones);
  if (s.code() == StatusCode::kResourceExhausted) {
    Operation& op = NewOperation(c, "SET_NODE_POOL_SIZE", pool_path, "");
    op.status_message = "Insufficient quota to satisfy the request: " + std::string(s.message());
    return Ok(OperationJson(c, op));
  }
  if (!s.ok()) return FromStatus(s);
  return Ok(OperationJson(c, NewOperation(c, "SET_NODE_POOL_SIZE", pool_path, pool)));
}

GkeResponse GkeApi::Impl::HandleCompute(const GkeRequest& r, const std::vector<std::string>& seg,
                                        const ClusterInfo& c) {
  if (seg.size() < 3 || seg[0] != "projects") {
    return ComputeError(404, "The resource '" + r.path + "' was not found", "notFound");
  }
  const std::string& project = seg[1];
  if (project != c.project) {
    return ComputeError(404, "The resource 'projects/" + project + "' was not found", "notFound");
  }
  const std::string region = RegionOf(c.zone);
  auto known_zone = [&](const std::string& z) {
    return RegionOf(z) == region && z.size() == region.size() + 2 && z.back() >= 'a' &&
           z.back() <= 'f';
  };
  // projects/P/zones/Z/{instanceGroupManagers,operations,machineTypes}/...
  if (seg.size() >= 5 && seg[2] == "zones" &&
      (seg[4] == "instanceGroupManagers" || seg[4] == "operations" ||
       seg[4] == "machineTypes")) {
    if (!known_zone(seg[3])) {
      return ComputeError(404, "The resource 'projects/" + project + "/zones/" + seg[3] +
                                   "' was not found",
                          "notFound");
    }
    if (seg[4] == "instanceGroupManagers") return HandleIgm(r, seg, c);
    if (r.method != "GET") return ComputeError(405, "Method not allowed", "methodNotAllowed");
    if (seg.size() == 6 && seg[4] == "operations") {
      auto it = compute_ops.find(seg[3] + "/" + seg[5]);
      if (it == compute_ops.end()) {
        return ComputeError(404, "The resource 'projects/" + project + "/zones/" + seg[3] +
                                     "/operations/" + seg[5] + "' was not found",
                            "notFound");
      }
      return Ok(it->second);
    }
    if (seg.size() == 6 && seg[4] == "machineTypes") {
      auto m = control.GetMachineType(seg[3], seg[5]);
      if (!m.ok()) {
        return ComputeError(404, "The resource 'projects/" + project + "/zones/" + seg[3] +
                                     "/machineTypes/" + seg[5] + "' was not found",
                            "notFound");
      }
      return Ok(MachineTypeJson(c, seg[3], *m));
    }
    return ComputeError(404, "The resource '" + r.path + "' was not found", "notFound");
  }
  if (r.method != "GET") return ComputeError(405, "Method not allowed", "methodNotAllowed");
  auto zone_json = [&](const std::string& z) {
    return json{{"kind", "compute#zone"},
                {"id", std::to_string(2000 + (z.back() - 'a'))},
                {"name", z},
                {"description", z},
                {"status", "UP"},
                {"region", std::string(kComputeBase) + "projects/" + c.project + "/regions/" + region},
                {"selfLink", std::string(kComputeBase) + "projects/" + c.project + "/zones/" + z},
                {"availableCpuPlatforms", {"Intel Cascade Lake", "AMD Milan"}}};
  };
  auto instance_json = [&](const VmInfo& vm) {
    const emu::InstanceInfo& in = vm.instance;
    const std::string zurl = std::string(kComputeBase) + "projects/" + c.project + "/zones/" + in.zone;
    json ni = {{"name", "nic0"}, {"network", std::string(kComputeBase) + "projects/" + c.project +
                                                  "/global/networks/default"}};
    if (!vm.internal_ip.empty()) ni["networkIP"] = vm.internal_ip;
    json j = {{"kind", "compute#instance"},
              {"id", std::to_string(std::hash<std::string>{}(in.name) % 9000000000000000000ULL)},
              {"name", in.name},
              {"zone", zurl},
              {"machineType", zurl + "/machineTypes/" + in.machine_type},
              {"status", emu::VmStatusName(in.status)},
              {"creationTimestamp", FormatRfc3339(in.requested_at)},
              {"scheduling", {{"preemptible", in.spot},
                              {"provisioningModel", in.spot ? "SPOT" : "STANDARD"},
                              {"automaticRestart", !in.spot},
                              {"onHostMaintenance", vm.accelerator ? "TERMINATE" : "MIGRATE"}}},
              {"networkInterfaces", json::array({ni})},
              {"labels", {{"goog-gke-node", ""}, {"goog-k8s-cluster-name", c.name},
                          {"goog-k8s-node-pool-name", in.node_pool}}},
              {"selfLink", zurl + "/instances/" + in.name}};
    if (vm.accelerator.has_value() && vm.accelerator->count > 0) {
      j["guestAccelerators"] = json::array(
          {{{"acceleratorCount", vm.accelerator->count},
            {"acceleratorType", zurl + "/acceleratorTypes/" + vm.accelerator->type}}});
    }
    return j;
  };
  auto listed = [&](const std::string& zone_filter) {
    json items = json::array();
    for (const VmInfo& vm : control.ListVms()) {
      if (vm.instance.status == emu::VmStatus::kFailed) continue;  // GCE lists no VM
      if (!zone_filter.empty() && vm.instance.zone != zone_filter) continue;
      items.push_back(instance_json(vm));
    }
    return items;
  };
  // projects/P/zones[/Z[/instances]]
  if (seg[2] == "zones") {
    if (seg.size() == 3) {
      json items = json::array();
      for (char l = 'a'; l <= 'f'; ++l) {
        const std::string z = region + "-" + std::string(1, l);
        items.push_back(zone_json(z));
      }
      return Ok({{"kind", "compute#zoneList"}, {"items", items}});
    }
    const std::string& zone = seg[3];
    if (!known_zone(zone)) {
      return ComputeError(404, "The resource 'projects/" + project + "/zones/" + zone +
                                   "' was not found",
                          "notFound");
    }
    if (seg.size() == 4) return Ok(zone_json(zone));
    if (seg.size() == 5 && seg[4] == "instances") {
      return Ok({{"kind", "compute#instanceList"}, {"items", listed(zone)}});
    }
    if (seg.size() == 6 && seg[4] == "instances") {
      for (const VmInfo& vm : control.ListVms()) {
        if (vm.instance.name == seg[5] && vm.instance.zone == zone &&
            vm.instance.status != emu::VmStatus::kFailed) {
          return Ok(instance_json(vm));
        }
      }
      return ComputeError(404, "The resource 'projects/" + project + "/zones/" + zone +
                                   "/instances/" + seg[5] + "' was not found",
                          "notFound");
    }
  }
  if (seg.size() == 4 && seg[2] == "aggregated" && seg[3] == "instances") {
    json items = json::object();
    std::map<std::string, json> by_zone;
    for (json& i : listed("")) {
      std::string z = i["zone"].get<std::string>();
      z = z.substr(z.rfind('/') + 1);
      by_zone["zones/" + z].push_back(std::move(i));
    }
    for (auto& [k, v] : by_zone) items[k] = {{"instances", v}};
    return Ok({{"kind", "compute#instanceAggregatedList"}, {"items", items}});
  }
  return ComputeError(404, "The resource '" + r.path + "' was not found", "notFound");
}

// ---- Managed instance groups (compute v1) ----------------------------------------------------

namespace {

// "2026-01-01T00:00:00.000Z": Compute Engine's timestamps carry milliseconds.
std::string ComputeTime(TimePoint t) {
  std::string s = FormatRfc3339(t);
  const auto ms = (t.time_since_epoch().count() / 1000000) % 1000;
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03lld", static_cast<long long>(ms < 0 ? 0 : ms));
  if (!s.empty() && s.back() == 'Z') s.insert(s.size() - 1, frac);
  return s;
}

std::string ComputeId(const std::string& key) {
  return std::to_string(std::hash<std::string>{}(key) % 9000000000000000000ULL +
                        1000000000000000000ULL);
}

// The instance name of a deleteInstances entry: a full URL, "projects/P/zones/Z/instances/N"
// or "zones/Z/instances/N". `zone` gets the zone when the entry names one.
std::string InstanceNameOf(const std::string& url, std::string* zone) {
  const size_t at = url.rfind("instances/");
  if (at == std::string::npos || (at > 0 && url[at - 1] != '/')) return "";
  const std::string name = url.substr(at + std::string_view("instances/").size());
  if (name.empty() || name.find('/') != std::string::npos) return "";
  const size_t z = url.rfind("zones/", at);
  if (z != std::string::npos && (z == 0 || url[z - 1] == '/')) {
    const size_t begin = z + std::string_view("zones/").size();
    *zone = url.substr(begin, at - 1 - begin);
  }
  return name;
}

GkeResponse ComputeFromStatus(const Status& s) {
  const std::string msg(s.message());
  switch (s.code()) {
    case StatusCode::kNotFound: return ComputeError(404, msg, "notFound");
    case StatusCode::kResourceExhausted: return ComputeError(403, msg, "quotaExceeded");
    case StatusCode::kInvalidArgument:
    case StatusCode::kFailedPrecondition: return ComputeError(400, msg, "invalid");
    default: return ComputeError(503, msg, "backendError");
  }
}

}  // namespace

std::vector<GkeApi::Impl::Igm> GkeApi::Impl::ListIgms() {
  std::vector<Igm> out;
  const ClusterInfo c = control.Cluster();
  for (emu::NodePoolInfo& p : control.ListNodePools()) {
    for (size_t i = 0; i < p.instance_groups.size(); ++i) {
      Igm igm;
      igm.name = p.instance_groups[i];
      igm.zone = i < p.spec.zones.size() ? p.spec.zones[i] : c.zone;
      igm.pool = p;
      out.push_back(std::move(igm));
    }
  }
  return out;
}

json GkeApi::Impl::ManagedInstanceJson(const ClusterInfo& c, const Igm& igm, const VmInfo& vm) {
  const emu::InstanceInfo& in = vm.instance;
  const std::string zurl =
      std::string(kComputeBase) + "projects/" + c.project + "/zones/" + igm.zone;
  std::string base = igm.name;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, "-grp") == 0) base.resize(base.size() - 4);
  json j = {{"instance", zurl + "/instances/" + in.name},
            {"name", in.name},
            {"version", {{"instanceTemplate", std::string(kComputeBase) + "projects/" +
                                                  c.project + "/global/instanceTemplates/" +
                                                  base}}}};
  switch (in.status) {
    case emu::VmStatus::kProvisioning:
      j["currentAction"] = "CREATING";
      j["instanceStatus"] = "PROVISIONING";
      break;
    case emu::VmStatus::kRunning:
      j["currentAction"] = "NONE";
      j["instanceStatus"] = "RUNNING";
      break;
    case emu::VmStatus::kStopping:
      j["currentAction"] = "DELETING";
      j["instanceStatus"] = "STOPPING";
      break;
    case emu::VmStatus::kFailed:
      // The MIG keeps retrying a failed creation: CREATING, no VM, the last attempt's errors.
      j["currentAction"] = "CREATING";
      break;
  }
  if (in.status != emu::VmStatus::kFailed) j["id"] = ComputeId(in.name);
  if (in.error.has_value()) {
    j["lastAttempt"] = {
        {"errors",
         {{"errors", json::array({{{"code", in.error->error_code},
                                   {"message", in.error->error_message}}})}}}};
  }
  return j;
}

json GkeApi::Impl::IgmJson(const ClusterInfo& c, const Igm& igm, const std::vector<VmInfo>& vms) {
  const std::string zurl =
      std::string(kComputeBase) + "projects/" + c.project + "/zones/" + igm.zone;
  std::string base = igm.name;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, "-grp") == 0) base.resize(base.size() - 4);
  int none = 0, creating = 0, deleting = 0, target = 0;
  for (const VmInfo& vm : vms) {
    if (vm.instance.node_pool != igm.pool.spec.name || vm.instance.zone != igm.zone) continue;
    switch (vm.instance.status) {
      case emu::VmStatus::kRunning: ++none; break;
      case emu::VmStatus::kProvisioning:
      case emu::VmStatus::kFailed: ++creating; break;
      case emu::VmStatus::kStopping: ++deleting; break;
    }
    if (vm.instance.status != emu::VmStatus::kStopping) ++target;
  }
  const std::string self = zurl + "/instanceGroupManagers/" + igm.name;
  const std::string tmpl =
      std::string(kComputeBase) + "projects/" + c.project + "/global/instanceTemplates/" + base;
  return json{
      {"kind", "compute#instanceGroupManager"},
      {"id", ComputeId(self)},
      {"creationTimestamp", ComputeTime(c.create_time)},
      {"name", igm.name},
      {"zone", zurl},
      {"instanceTemplate", tmpl},
      {"versions", json::array({{{"instanceTemplate", tmpl}}})},
      {"instanceGroup", zurl + "/instanceGroups/" + igm.name},
      {"baseInstanceName", base},
      {"fingerprint", Hex8(std::hash<std::string>{}(self)) + Hex8(target)},
      {"currentActions",
       {{"none", none}, {"creating", creating}, {"creatingWithoutRetries", 0},
        {"verifying", 0}, {"recreating", 0}, {"deleting", deleting}, {"abandoning", 0},
        {"restarting", 0}, {"refreshing", 0}, {"suspending", 0}, {"resuming", 0},
        {"stopping", 0}, {"starting", 0}}},
      {"status",
       {{"isStable", creating == 0 && deleting == 0},
        {"versionTarget", {{"isReached", true}}},
        {"stateful", {{"hasStatefulConfig", false},
                      {"perInstanceConfigs", {{"allEffective", true}}}}}}},
      {"targetSize", target},
      {"listManagedInstancesResults", "PAGELESS"},
      {"selfLink", self}};
}

json GkeApi::Impl::MachineTypeJson(const ClusterInfo& c, const std::string& zone,
                                   const emu::MachineType& m) {
  char gb[32];
  std::snprintf(gb, sizeof(gb), "%g", static_cast<double>(m.memory_mib) / 1024.0);
  json j = {{"kind", "compute#machineType"},
            {"id", ComputeId("machineTypes/" + m.name)},
            {"name", m.name},
            {"description", std::to_string(m.vcpus) + (m.vcpus == 1 ? " vCPU, " : " vCPUs, ") +
                                gb + " GB RAM"},
            {"guestCpus", m.vcpus},
            {"memoryMb", m.memory_mib},
            {"imageSpaceGb", 0},
            {"maximumPersistentDisks", 128},
            {"maximumPersistentDisksSizeGb", "263168"},
            {"zone", zone},
            {"isSharedCpu", m.shared_core},
            {"selfLink", std::string(kComputeBase) + "projects/" + c.project + "/zones/" + zone +
                             "/machineTypes/" + m.name}};
  if (!m.builtin_accelerator.empty() && m.builtin_accelerator_count > 0) {
    j["accelerators"] = json::array({{{"guestAcceleratorType", m.builtin_accelerator},
                                      {"guestAcceleratorCount", m.builtin_accelerator_count}}});
  }
  return j;
}

json GkeApi::Impl::NewComputeOperation(
    const ClusterInfo& c, const Igm& igm, const std::string& type,
    const std::vector<std::pair<std::string, std::string>>& errors, int http_error) {
  const TimePoint now = clock.Now();
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  ++compute_op_seq;
  const std::string key = std::to_string(compute_op_seq) + igm.name + type;
  const std::string name = "operation-" + std::to_string(ms) + "-" +
                           Hex8(std::hash<std::string>{}(key)) + "-" +
                           Hex8(std::hash<std::string>{}(key + "/2"));
  const std::string zurl =
      std::string(kComputeBase) + "projects/" + c.project + "/zones/" + igm.zone;
  const std::string target = zurl + "/instanceGroupManagers/" + igm.name;
  json op = {{"kind", "compute#operation"},
             {"id", ComputeId(name)},
             {"name", name},
             {"zone", zurl},
             {"operationType", type},
             {"targetLink", target},
             {"targetId", ComputeId(target)},
             {"status", "DONE"},
             {"user", "tidepool"},
             {"progress", 100},
             {"insertTime", ComputeTime(now)},
             {"startTime", ComputeTime(now)},
             {"endTime", ComputeTime(now)},
             {"selfLink", zurl + "/operations/" + name}};
  if (!errors.empty()) {
    json e = json::array();
    for (const auto& [code, message] : errors) e.push_back({{"code", code}, {"message", message}});
    op["error"] = {{"errors", e}};
  }
  if (http_error != 0) {
    op["httpErrorStatusCode"] = http_error;
    op["httpErrorMessage"] = http_error == 403 ? "FORBIDDEN" : "BAD REQUEST";
  }
  compute_ops[igm.zone + "/" + name] = op;
  Journal("computeoperations", name, &op);
  return op;
}

GkeResponse GkeApi::Impl::HandleIgm(const GkeRequest& r, const std::vector<std::string>& seg,
                                    const ClusterInfo& c) {
  const std::string& zone = seg[3];
  const std::string here = "projects/" + c.project + "/zones/" + zone;
  std::vector<Igm> igms = ListIgms();
  if (seg.size() == 5) {
    if (r.method != "GET") return ComputeError(405, "Method not allowed", "methodNotAllowed");
    const std::vector<VmInfo> vms = control.ListVms();
    json items = json::array();
    for (const Igm& igm : igms) {
      if (igm.zone == zone) items.push_back(IgmJson(c, igm, vms));
    }
    json list = {{"kind", "compute#instanceGroupManagerList"},
                 {"selfLink", std::string(kComputeBase) + here + "/instanceGroupManagers"}};
    if (!items.empty()) list["items"] = items;
    return Ok(list);
  }
  const Igm* igm = nullptr;
  for (const Igm& g : igms) {
    if (g.name == seg[5] && g.zone == zone) igm = &g;
  }
  if (igm == nullptr || seg.size() > 7) {
    return ComputeError(404, "The resource '" + here + "/instanceGroupManagers/" + seg[5] +
                                 "' was not found",
                        "notFound");
  }
  const std::string& pool = igm->pool.spec.name;
  if (seg.size() == 6) {
    if (r.method != "GET") return ComputeError(405, "Method not allowed", "methodNotAllowed");
    return Ok(IgmJson(c, *igm, control.ListVms()));
  }
  const std::string& verb = seg[6];
  if (r.method != "POST") return ComputeError(405, "Method not allowed", "methodNotAllowed");
  json body = json::object();
  if (!r.body.empty()) {
    body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded() || !body.is_object()) {
      return ComputeError(400, "Invalid JSON payload received.", "parseError");
    }
  }
  if (verb == "deleteInstances") {
    if (auto e = DecodeRequest("compute/v1", "InstanceGroupManagersDeleteInstancesRequest", body)) {
      return ComputeError(400, e->message, "invalid");
    }
  }
  if (verb == "listManagedInstances") {
    json items = json::array();
    for (const VmInfo& vm : control.ListVms()) {
      if (vm.instance.node_pool == pool && vm.instance.zone == zone) {
        items.push_back(ManagedInstanceJson(c, *igm, vm));
      }
    }
    json out = json::object();
    if (!items.empty()) out["managedInstances"] = items;  // empty lists are omitted, as GCE does
    return Ok(out);
  }
  if (verb == "deleteInstances") {
    if (!body.contains("instances") || !body["instances"].is_array() ||
        body["instances"].empty()) {
      return ComputeError(400, "Required field 'instances' not specified", "required");
    }
    const bool skip = body.value("skipInstancesOnValidationError", false);
    const std::vector<VmInfo> vms = control.ListVms();
    std::vector<std::string> names;
    std::vector<std::pair<std::string, std::string>> errors;
    // Codes and texts of these refusals are tidepool's: the compute reference documents the
    // behaviour (the operation fails) but not the wording.
    for (const json& u : body["instances"]) {
      const std::string url = u.is_string() ? u.get<std::string>() : u.dump(-1, ' ', false, json::error_handler_t::replace);
      std::string url_zone;
      const std::string name = InstanceNameOf(url, &url_zone);
      if (name.empty() || (!url_zone.empty() && url_zone != zone)) {
        errors.push_back({"INVALID_FIELD_VALUE",
                          "Invalid value for field 'instances': '" + url +
                              "'. The instance URL is malformed or names another zone than " +
                              zone + "."});
        continue;
      }
      const VmInfo* vm = nullptr;
      for (const VmInfo& v : vms) {
        if (v.instance.name == name && v.instance.node_pool == pool && v.instance.zone == zone) {
          vm = &v;
        }
      }
      if (vm == nullptr || vm->instance.status == emu::VmStatus::kStopping) {
        if (skip) continue;
        errors.push_back(
            {"RESOURCE_NOT_FOUND",
             vm == nullptr ? "The resource '" + here + "/instances/" + name +
                                 "' is not a member of instance group manager '" + igm->name +
                                 "'."
                           : "The resource '" + here + "/instances/" + name +
                                 "' is already being deleted."});
        continue;
      }
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    if (!errors.empty()) {
      return Ok(NewComputeOperation(c, *igm, "compute.instanceGroupManagers.deleteInstances",
                                    errors, 400));
    }
    if (!names.empty()) {
      Status s = control.DeleteInstances(pool, names);
      if (!s.ok()) {
        return Ok(NewComputeOperation(
            c, *igm, "compute.instanceGroupManagers.deleteInstances",
            {{s.code() == StatusCode::kNotFound ? "RESOURCE_NOT_FOUND" : "CONDITION_NOT_MET",
              std::string(s.message())}},
            400));
      }
    }
    return Ok(NewComputeOperation(c, *igm, "compute.instanceGroupManagers.deleteInstances", {}));
  }
  if (verb == "resize") {
    auto q = r.query.find("size");
    if (q == r.query.end()) {
      return ComputeError(400, "Required field 'size' not specified", "required");
    }
    char* end = nullptr;
    const long long size = std::strtoll(q->second.c_str(), &end, 10);
    if (q->second.empty() || end == nullptr || *end != '\0' || size < 0) {
      return ComputeError(400, "Invalid value for field 'size': '" + q->second +
                                   "'. Must be greater than or equal to 0.",
                          "invalid");
    }
    int others = 0;
    for (const VmInfo& vm : control.ListVms()) {
      if (vm.instance.node_pool == pool && vm.instance.zone != zone &&
          vm.instance.status != emu::VmStatus::kStopping) {
        ++others;
      }
    }
    Status s = control.SetSize(pool, others + static_cast<int>(size));
    if (s.code() == StatusCode::kResourceExhausted) {
      return Ok(NewComputeOperation(c, *igm, "compute.instanceGroupManagers.resize",
                                    {{"QUOTA_EXCEEDED", std::string(s.message())}}, 403));
    }
    if (!s.ok()) return ComputeFromStatus(s);
    return Ok(NewComputeOperation(c, *igm, "compute.instanceGroupManagers.resize", {}));
  }
  return ComputeError(400, "Invalid resource usage: 'instanceGroupManagers/" + verb +
                               "' is not supported by tidepool up.",
                      "invalidResourceUsage");
}

// ---- Journal ------------------------------------------------------------------------------------

namespace {

int64_t Nanos(TimePoint t) { return t.time_since_epoch().count(); }
TimePoint FromNanos(int64_t n) { return TimePoint(Duration(n)); }

// A string / integer member of a journal record, or the default when absent or mistyped.
std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
std::optional<int64_t> Int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

}  // namespace

void GkeApi::Impl::Journal(std::string_view kind, const std::string& name, const json* value) {
  if (options.journal == nullptr) return;
  // A failed write leaves the state in memory as the truth (as the emulated cloud does); the
  // API keeps answering.
  (void)(value != nullptr ? options.journal->Put(kind, name, value->dump())
                          : options.journal->Delete(kind, name));
}

void GkeApi::Impl::SaveOperation(Operation& op) {
  if (options.journal == nullptr) return;
  json j = {{"name", op.name},         {"type", op.type},
            {"location", op.location}, {"target", op.target},
            {"pool", op.pool},         {"deleting", op.deleting},
            {"start", Nanos(op.start)}, {"statusMessage", op.status_message}};
  if (op.end.has_value()) j["end"] = Nanos(*op.end);
  std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text == op.journaled) return;
  Journal("operations", op.name, &j);
  op.journaled = std::move(text);
}

void GkeApi::Impl::SetRequestedTaints(const std::string& pool,
                                      const std::vector<api::Taint>* taints) {
  if (taints == nullptr) {
    requested_taints.erase(pool);
    Journal("nodepooltaints", pool, nullptr);
    return;
  }
  requested_taints[pool] = *taints;
  json t = json::array();
  for (const api::Taint& x : *taints) {
    t.push_back({{"key", x.key}, {"value", x.value}, {"effect", GkeEffectName(x.effect)}});
  }
  Journal("nodepooltaints", pool, &t);
}

void GkeApi::Impl::Restore() {
  if (options.journal == nullptr) return;
  // Records this version cannot read are skipped: they only describe the past.
  if (auto records = options.journal->List("operations"); records.ok()) {
    std::vector<Operation*> order;
    for (const CloudRecord& r : *records) {
      json j = json::parse(r.json, nullptr, /*allow_exceptions=*/false);
      if (!j.is_object() || Str(j, "name") != r.name) continue;
      Operation op;
      op.name = r.name;
      op.type = Str(j, "type");
      op.location = Str(j, "location");
      op.target = Str(j, "target");
      op.pool = Str(j, "pool");
      auto deleting = j.find("deleting");
      op.deleting = deleting != j.end() && deleting->is_boolean() && deleting->get<bool>();
      op.start = FromNanos(Int(j, "start").value_or(0));
      if (auto end = Int(j, "end")) op.end = FromNanos(*end);
      op.status_message = Str(j, "statusMessage");
      op.journaled = j.dump(-1, ' ', false, json::error_handler_t::replace);
      order.push_back(&ops.emplace(op.name, std::move(op)).first->second);
    }
    std::stable_sort(order.begin(), order.end(), [](const Operation* a, const Operation* b) {
      return a->start < b->start;
    });
    for (const Operation* op : order) op_order.push_back(op->name);
    op_seq = order.size();
  }
  if (auto records = options.journal->List("nodepooltaints"); records.ok()) {
    for (const CloudRecord& r : *records) {
      json t = json::parse(r.json, nullptr, /*allow_exceptions=*/false);
      if (!t.is_array()) continue;
      std::vector<api::Taint>& taints = requested_taints[r.name];
      for (const json& x : t) {
        if (!x.is_object()) continue;
        auto effect = GkeApi::ParseGkeEffect(Str(x, "effect"));
        if (!effect.ok()) continue;
        taints.push_back(api::Taint{Str(x, "key"), Str(x, "value"), *effect, std::nullopt});
      }
    }
  }
  if (auto records = options.journal->List("computeoperations"); records.ok()) {
    for (const CloudRecord& r : *records) {
      json op = json::parse(r.json, nullptr, /*allow_exceptions=*/false);
      if (!op.is_object()) continue;
      // "zone" is the zone's URL: .../zones/<zone>.
      const std::string zone_url = Str(op, "zone");
      const std::string zone = zone_url.substr(zone_url.rfind('/') + 1);
      compute_ops[zone + "/" + r.name] = std::move(op);
      ++compute_op_seq;
    }
  }
}

}  // namespace tidepool::cloud::gke
