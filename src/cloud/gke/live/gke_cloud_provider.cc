// File: gke_cloud_provider.cc
#include "cloud/gke/live/gke_cloud_provider.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cloud/emulated/emulated_cloud.h"
#include "cloud/gke/gke_api.h"
#include "cloud/gke/live/google_error.h"

namespace tidepool::cloud::gke::live {

namespace emu = cloud::emulated;
using json = nlohmann::json;

namespace {

// cluster-autoscaler's InstanceErrorInfo codes (cloudprovider/gce/autoscaling_gce_client.go).
constexpr char kErrorCodeResourcePoolExhausted[] = "RESOURCE_POOL_EXHAUSTED";
constexpr char kErrorCodeQuotaExceeded[] = "QUOTA_EXCEEDED";
constexpr char kErrorIpSpaceExhausted[] = "IP_SPACE_EXHAUSTED";
constexpr char kErrorCodePermissions[] = "PERMISSIONS_ERROR";
constexpr char kErrorCodeVmExternalIpAccessPolicyConstraint[] =
    "VM_EXTERNAL_IP_ACCESS_POLICY_CONSTRAINT";
constexpr char kErrorCodeOther[] = "OTHER";

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

StatusOr<json> ParseJson(const std::string& text, std::string_view what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InternalError(std::string(what) + ": the reply is not a JSON object: " +
                         text.substr(0, 200));
  }
  return j;
}

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                : std::string();
}

// An int64 sent as a number or a string (proto3 JSON); `def` when absent or malformed.
int64_t Int(const json& j, const char* key, int64_t def = 0) {
  if (!j.is_object() || !j.contains(key)) return def;
  const json& v = j[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    char* end = nullptr;
    const long long n = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end != nullptr && *end == '\0') return n;
  }
  return def;
}

// "…/projects/P/zones/Z/<collection>/NAME" -> P, Z, NAME. False if the URL has another shape.
bool ParseZonalRef(std::string_view url, std::string_view collection, std::string* project,
                   std::string* zone, std::string* name) {
  const size_t p = url.rfind("projects/");
  if (p == std::string_view::npos) return false;
  std::vector<std::string> seg;
  std::string_view rest = url.substr(p);
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    seg.emplace_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  if (seg.size() != 6 || seg[0] != "projects" || seg[2] != "zones" || seg[4] != collection ||
      seg[5].empty()) {
    return false;
  }
  *project = seg[1];
  *zone = seg[3];
  *name = seg[5];
  return true;
}

// The canonical code of a failed operation's text or error codes.
StatusCode CodeOfFailure(std::string_view text, StatusCode fallback) {
  if (Contains(text, "QUOTA") || Contains(text, "Insufficient quota") ||
      Contains(text, "RESOURCE_POOL_EXHAUSTED") || Contains(text, "STOCKOUT")) {
    return StatusCode::kResourceExhausted;
  }
  return fallback;
}

}  // namespace

// ---- GkeNodeGroup -------------------------------------------------------------------------------

GkeNodeGroup::GkeNodeGroup(GkeCloudProvider& provider, std::string pool)
    : provider_(provider), pool_(std::move(pool)) {}

int GkeNodeGroup::MinSize() const {
  const GkeCloudProvider::Pool* p = provider_.FindPool(pool_);
  return p != nullptr ? p->min_nodes : 0;
}

int GkeNodeGroup::MaxSize() const {
  const GkeCloudProvider::Pool* p = provider_.FindPool(pool_);
  return p != nullptr ? p->max_nodes : 0;
}

StatusOr<int> GkeNodeGroup::TargetSize() const {
  const GkeCloudProvider::Pool* p = provider_.FindPool(pool_);
  if (p == nullptr) return NotFoundError("node pool " + pool_ + " not found");
  int total = 0;
  for (const auto& m : p->migs) total += m.target_size;
  return total;
}

Status GkeNodeGroup::IncreaseSize(int delta) { return provider_.IncreaseSize(pool_, delta); }

Status GkeNodeGroup::DeleteNodes(const std::vector<std::string>& node_names) {
  return provider_.DeleteNodes(pool_, node_names);
}

Status GkeNodeGroup::DecreaseTargetSize(int delta) {
  return provider_.DecreaseTargetSize(pool_, delta);
}

StatusOr<std::vector<Instance>> GkeNodeGroup::Nodes() const { return provider_.Instances(pool_); }

StatusOr<api::Node> GkeNodeGroup::TemplateNode() const { return provider_.TemplateNode(pool_); }

std::string GkeNodeGroup::Debug() const {
  return pool_ + " (" + std::to_string(MinSize()) + ":" + std::to_string(MaxSize()) + ")";
}

// ---- GkeCloudProvider: plumbing -----------------------------------------------------------------

GkeCloudProvider::GkeCloudProvider(GkeProviderOptions options, Transport& transport,
                                   TokenSource* tokens, const Clock& clock)
    : options_(std::move(options)), transport_(transport), tokens_(tokens), clock_(clock) {}

GkeCloudProvider::~GkeCloudProvider() = default;

void GkeCloudProvider::Stop() { stop_.Stop(); }

bool GkeCloudProvider::Sleep(Duration d) {
  return options_.sleep ? options_.sleep(d) : stop_.SleepFor(d);
}

void GkeCloudProvider::Log(const std::string& msg) const {
  if (options_.logger != nullptr) options_.logger->Warning(msg);
}

std::string GkeCloudProvider::ContainerUrl(const std::string& rest) const {
  return options_.container_endpoint + rest;
}

std::string GkeCloudProvider::ComputeUrl(const std::string& rest) const {
  return options_.compute_endpoint + rest;
}

StatusOr<std::string> GkeCloudProvider::Call(const std::string& method, const std::string& url,
                                             const std::string& body) const {
  HttpCall call;
  call.method = method;
  call.url = url;
  call.body = body;
  if (tokens_ != nullptr) {
    TIDEPOOL_ASSIGN_OR_RETURN(std::string token, tokens_->Token());
    call.headers.emplace_back("Authorization", "Bearer " + token);
  }
  if (method == "POST" || method == "PUT") {
    call.headers.emplace_back("Content-Type", "application/json");
  }
  TIDEPOOL_ASSIGN_OR_RETURN(HttpReply reply, transport_.Do(call));
  if (reply.status < 200 || reply.status >= 300) return GoogleApiError(reply.status, reply.body);
  return std::move(reply.body);
}

Status GkeCloudProvider::AwaitContainerOperation(const std::string& operation_json) {
  TIDEPOOL_ASSIGN_OR_RETURN(json op, ParseJson(operation_json, "container operation"));
  const std::string name = Str(op, "name");
  const TimePoint deadline = clock_.Now() + options_.container_operation_timeout;
  while (Str(op, "status") != "DONE") {
    if (clock_.Now() >= deadline || !Sleep(options_.poll_interval)) {
      if (options_.logger != nullptr) {
        options_.logger->V(2, "Operation " + name + " on " + Str(op, "targetLink") +
                                  " is still running; its outcome shows in the node group's "
                                  "instances");
      }
      return OkStatus();
    }
    StatusOr<std::string> got =
        Call("GET", ContainerUrl("v1/projects/" + options_.project + "/locations/" +
                                 options_.location + "/operations/" + name));
    if (!got.ok()) {
      // cluster-autoscaler's waitForOp: a failed poll is logged and polling goes on.
      Log("Error while getting operation " + name + ": " + std::string(got.status().message()));
      continue;
    }
    TIDEPOOL_ASSIGN_OR_RETURN(op, ParseJson(*got, "container operation"));
  }
  std::string message = Str(op, "statusMessage");
  int64_t code = 0;
  if (op.contains("error") && op["error"].is_object()) {
    if (message.empty()) message = Str(op["error"], "message");
    code = Int(op["error"], "code");
  }
  if (message.empty() && code == 0) return OkStatus();
  const StatusCode fallback = code > 0 && code <= static_cast<int64_t>(StatusCode::kUnauthenticated)
                                  ? static_cast<StatusCode>(code)
                                  : StatusCode::kUnknown;
  return Status(CodeOfFailure(message, fallback), message);
}

Status GkeCloudProvider::AwaitComputeOperation(const std::string& zone,
                                               const std::string& operation_json) {
  TIDEPOOL_ASSIGN_OR_RETURN(json op, ParseJson(operation_json, "compute operation"));
  const std::string name = Str(op, "name");
  const std::string target = Str(op, "targetLink");
  const TimePoint deadline = clock_.Now() + options_.compute_operation_timeout;
  while (Str(op, "status") != "DONE") {
    if (clock_.Now() >= deadline || !Sleep(options_.poll_interval)) {
      // cluster-autoscaler's text (autoscaling_gce_client.go waitForOp).
      return Status(StatusCode::kDeadlineExceeded, "timeout while waiting for operation " + name +
                                                       " on " + target + " to complete.");
    }
    StatusOr<std::string> got =
        Call("GET", ComputeUrl("projects/" + options_.project + "/zones/" + zone +
                               "/operations/" + name));
    if (!got.ok()) {
      Log("Error while getting operation " + name + " on " + target + ": " +
          std::string(got.status().message()));
      continue;
    }
    TIDEPOOL_ASSIGN_OR_RETURN(op, ParseJson(*got, "compute operation"));
  }
  if (!op.contains("error") || !op["error"].is_object() || !op["error"].contains("errors") ||
      !op["error"]["errors"].is_array() || op["error"]["errors"].empty()) {
    return OkStatus();
  }
  std::string message;
  StatusCode code = StatusCode::kUnknown;
  for (const json& e : op["error"]["errors"]) {
    const std::string c = Str(e, "code");
    if (!message.empty()) message += "; ";
    message += c + ": " + Str(e, "message");
    if (code != StatusCode::kUnknown) continue;
    if (c == "RESOURCE_NOT_FOUND") code = StatusCode::kNotFound;
    else if (c == "CONDITION_NOT_MET") code = StatusCode::kFailedPrecondition;
    else if (c == "INVALID_FIELD_VALUE") code = StatusCode::kInvalidArgument;
    else code = CodeOfFailure(c, StatusCode::kUnknown);
  }
  return Status(code, "operation " + name + " on " + target + " failed: " + message);
}

// ---- Refresh ------------------------------------------------------------------------------------

StatusOr<std::vector<GkeCloudProvider::Pool>> GkeCloudProvider::FetchPools() {
  const std::string cluster_path = "v1/projects/" + options_.project + "/locations/" +
                                   options_.location + "/clusters/" + options_.cluster;
  TIDEPOOL_ASSIGN_OR_RETURN(std::string text, Call("GET", ContainerUrl(cluster_path + "/nodePools")));
  TIDEPOOL_ASSIGN_OR_RETURN(json list, ParseJson(text, "nodePools.list"));
  std::vector<Pool> pools;
  if (!list.contains("nodePools") || !list["nodePools"].is_array()) return pools;
  for (const json& np : list["nodePools"]) {
    Pool p;
    p.name = Str(np, "name");
    if (p.name.empty()) continue;
    p.stopping = Str(np, "status") == "STOPPING";
    const json config = np.value("config", json::object());
    p.machine_type = Str(config, "machineType");
    if (p.machine_type.empty()) p.machine_type = "e2-medium";  // GKE's default
    if (config.contains("accelerators") && config["accelerators"].is_array() &&
        !config["accelerators"].empty()) {
      auto a = GkeApi::ParseAcceleratorConfig(config["accelerators"][0]);
      if (a.ok()) p.accelerator = *std::move(a);
    }
    if (config.contains("labels") && config["labels"].is_object()) {
      for (auto& [k, v] : config["labels"].items()) {
        if (v.is_string()) p.labels[k] = v.get<std::string>();
      }
    }
    if (config.contains("taints") && config["taints"].is_array()) {
      for (const json& t : config["taints"]) {
        StatusOr<api::TaintEffect> effect = GkeApi::ParseGkeEffect(Str(t, "effect"));
        if (!effect.ok()) continue;  // EFFECT_UNSPECIFIED: GKE applies nothing
        p.taints.push_back(api::Taint{Str(t, "key"), Str(t, "value"), *effect, std::nullopt});
      }
    }
    p.spot = config.value("spot", false) || config.value("preemptible", false);
    p.disk_size_gb = Int(config, "diskSizeGb", emu::kDefaultBootDiskGb);
    if (p.disk_size_gb <= 0) p.disk_size_gb = emu::kDefaultBootDiskGb;
    if (np.contains("instanceGroupUrls") && np["instanceGroupUrls"].is_array()) {
      for (const json& u : np["instanceGroupUrls"]) {
        Mig m;
        if (u.is_string() &&
            ParseZonalRef(u.get<std::string>(), "instanceGroupManagers", &m.project, &m.zone,
                          &m.name)) {
          p.migs.push_back(std::move(m));
        }
      }
    }
    if (np.contains("locations") && np["locations"].is_array()) {
      for (const json& z : np["locations"]) {
        if (z.is_string()) p.zones.push_back(z.get<std::string>());
      }
    }
    if (p.zones.empty()) {
      for (const Mig& m : p.migs) p.zones.push_back(m.zone);
    }
    if (p.zones.empty()) p.zones.push_back(options_.location);
    const json as = np.value("autoscaling", json::object());
    p.gke_autoscaling = as.is_object() && as.value("enabled", false);
    p.autoscaled = p.gke_autoscaling;
    if (p.autoscaled) {
      // GKE: min/maxNodeCount are per zone; totalMin/MaxNodeCount (when set) are totals.
      const int zones = static_cast<int>(p.zones.size());
      p.min_nodes = as.contains("totalMinNodeCount")
                        ? static_cast<int>(Int(as, "totalMinNodeCount"))
                        : static_cast<int>(Int(as, "minNodeCount")) * zones;
      p.max_nodes = as.contains("totalMaxNodeCount")
                        ? static_cast<int>(Int(as, "totalMaxNodeCount"))
                        : static_cast<int>(Int(as, "maxNodeCount")) * zones;
    }
    if (!options_.node_groups.empty()) {
      // Explicit groups (--nodes): exactly the pools named, with the limits given, whether or
      // not GKE's own autoscaling is on for them.
      const NodeGroupSpec* spec = ExplicitSpecFor(p);
      p.autoscaled = spec != nullptr;
      if (spec != nullptr) {
        p.min_nodes = spec->min_size;
        p.max_nodes = spec->max_size;
      }
    }
    if (p.autoscaled && !p.stopping) {
      std::vector<Mig> live;
      for (Mig& m : p.migs) {
        const std::string igm = "projects/" + m.project + "/zones/" + m.zone +
                                "/instanceGroupManagers/" + m.name;
        StatusOr<std::string> got = Call("GET", ComputeUrl(igm));
        if (got.ok()) {
          TIDEPOOL_ASSIGN_OR_RETURN(json g, ParseJson(*got, "instanceGroupManagers.get"));
          m.target_size = static_cast<int>(Int(g, "targetSize"));
          got = Call("POST", ComputeUrl(igm + "/listManagedInstances"));
        }
        if (!got.ok()) {
          if (got.status().code() == StatusCode::kNotFound) {
            Log("Instance group " + igm + " of node pool " + p.name + " not found; skipped");
            continue;
          }
          return got.status();
        }
        TIDEPOOL_ASSIGN_OR_RETURN(json mis, ParseJson(*got, "listManagedInstances"));
        if (mis.contains("managedInstances") && mis["managedInstances"].is_array()) {
          for (const json& mi : mis["managedInstances"]) {
            ManagedInstance i;
            i.url = Str(mi, "instance");
            if (!ParseZonalRef(i.url, "instances", &i.project, &i.zone, &i.name)) {
              return InternalError("listManagedInstances: unexpected instance URL " + i.url);
            }
            i.current_action = Str(mi, "currentAction");
            i.instance_status = Str(mi, "instanceStatus");
            if (mi.contains("lastAttempt") && mi["lastAttempt"].is_object()) {
              const json errs = mi["lastAttempt"].value("errors", json::object());
              if (errs.is_object() && errs.contains("errors") && errs["errors"].is_array()) {
                for (const json& e : errs["errors"]) {
                  i.errors.emplace_back(Str(e, "code"), Str(e, "message"));
                }
              }
            }
            m.instances.push_back(std::move(i));
          }
        }
        live.push_back(std::move(m));
      }
      p.migs = std::move(live);
    }
    pools.push_back(std::move(p));
  }
  std::sort(pools.begin(), pools.end(),
            [](const Pool& a, const Pool& b) { return a.name < b.name; });
  return pools;
}

namespace {

// Whether an explicit group's name is the URL of this instance group: CA's GCE form
// (".../projects/P/zones/Z/instanceGroups/NAME") or the instanceGroupManagers one GKE lists.
bool NamesMig(const NodeGroupSpec& spec, const GkeCloudProvider::Mig& mig) {
  std::string project, zone, name;
  if (!ParseZonalRef(spec.name, "instanceGroups", &project, &zone, &name) &&
      !ParseZonalRef(spec.name, "instanceGroupManagers", &project, &zone, &name)) {
    return false;
  }
  return mig.project == project && mig.zone == zone && mig.name == name;
}

}  // namespace

const NodeGroupSpec* GkeCloudProvider::ExplicitSpecFor(const Pool& pool) const {
  for (const NodeGroupSpec& spec : options_.node_groups) {
    if (spec.name == pool.name) return &spec;
    for (const Mig& m : pool.migs) {
      if (NamesMig(spec, m)) {
        // tidepool's node groups are pools: one instance group stands for its pool only when
        // the pool has no other.
        if (pool.migs.size() == 1) return &spec;
        WarnOnce("--nodes=" + NodeGroupSpecString(spec) + " names one instance group of node pool " +
                 pool.name + ", which has " + std::to_string(pool.migs.size()) +
                 " (one per zone); tidepool autoscales whole node pools: name the pool instead (" +
                 NodeGroupSpecString({spec.min_size, spec.max_size, pool.name}) +
                 ", sizes in total over its zones)");
        return nullptr;
      }
    }
  }
  return nullptr;
}

void GkeCloudProvider::WarnOnce(const std::string& msg) const {
  if (warned_.insert(msg).second && options_.logger != nullptr) options_.logger->Warning(msg);
}

Status GkeCloudProvider::Refresh() {
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<Pool> pools, FetchPools());
  pools_ = std::move(pools);
  pool_by_provider_id_.clear();
  for (const Pool& p : pools_) {
    if (p.autoscaled && groups_.find(p.name) == groups_.end()) {
      groups_.emplace(p.name, std::make_unique<GkeNodeGroup>(*this, p.name));
    }
    for (const Mig& m : p.migs) {
      for (const ManagedInstance& i : m.instances) pool_by_provider_id_[i.ProviderId()] = p.name;
    }
    if (!options_.node_groups.empty() && p.autoscaled && p.gke_autoscaling) {
      WarnOnce("Node pool " + p.name +
               " has GKE cluster autoscaling enabled: GKE's own autoscaler resizes it too. Turn "
               "it off (gcloud container node-pools update " + p.name +
               " --no-enable-autoscaling) for tidepool alone to manage the pool");
    }
  }
  for (const NodeGroupSpec& spec : options_.node_groups) {
    bool found = false;
    for (const Pool& p : pools_) {
      if (spec.name == p.name) found = true;
      for (const Mig& m : p.migs) found = found || NamesMig(spec, m);
    }
    if (!found) {
      WarnOnce("--nodes=" + NodeGroupSpecString(spec) + ": no node pool or instance group " +
               spec.name + " in cluster " + options_.cluster + "; it is not autoscaled");
    }
  }
  return OkStatus();
}

const GkeCloudProvider::Pool* GkeCloudProvider::FindPool(const std::string& name) const {
  for (const Pool& p : pools_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

GkeCloudProvider::Pool* GkeCloudProvider::FindPool(const std::string& name) {
  for (Pool& p : pools_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<NodeGroup*> GkeCloudProvider::NodeGroups() {
  std::vector<NodeGroup*> out;
  for (const Pool& p : pools_) {  // sorted by name
    if (!p.autoscaled || p.stopping) continue;
    auto it = groups_.find(p.name);
    if (it != groups_.end()) out.push_back(it->second.get());
  }
  return out;
}

NodeGroup* GkeCloudProvider::NodeGroupForNode(const api::Node& node) {
  std::string pool;
  if (!node.spec.provider_id.empty()) {
    auto it = pool_by_provider_id_.find(node.spec.provider_id);
    if (it != pool_by_provider_id_.end()) pool = it->second;
  }
  if (pool.empty()) {
    auto label = node.meta.labels.find(std::string(emu::kLabelGkeNodePool));
    if (label == node.meta.labels.end()) return nullptr;
    pool = label->second;
  }
  const Pool* p = FindPool(pool);
  if (p == nullptr || !p->autoscaled || p->stopping) return nullptr;
  auto it = groups_.find(pool);
  return it == groups_.end() ? nullptr : it->second.get();
}

std::string GkeCloudProvider::GpuLabel() const { return std::string(emu::kLabelGkeAccelerator); }

std::optional<GpuConfig> GkeCloudProvider::GetNodeGpuConfig(const api::Node& node) const {
  return NodeGpuConfigByLabel(node, emu::kLabelGkeAccelerator);
}

// ---- Node group operations ----------------------------------------------------------------------

Status GkeCloudProvider::ResizeMig(Pool& pool, Mig& mig, int size) {
  (void)pool;
  TIDEPOOL_ASSIGN_OR_RETURN(
      std::string reply,
      Call("POST", ComputeUrl("projects/" + mig.project + "/zones/" + mig.zone +
                              "/instanceGroupManagers/" + mig.name +
                              "/resize?size=" + std::to_string(size))));
  TIDEPOOL_RETURN_IF_ERROR(AwaitComputeOperation(mig.zone, reply));
  mig.target_size = size;
  return OkStatus();
}

Status GkeCloudProvider::IncreaseSize(const std::string& pool_name, int delta) {
  Pool* p = FindPool(pool_name);
  if (p == nullptr || !p->autoscaled) return NotFoundError("node pool " + pool_name + " not found");
  if (delta <= 0) return InvalidArgumentError("size increase must be positive");
  int size = 0;
  for (const Mig& m : p->migs) size += m.target_size;
  if (size + delta > p->max_nodes) {
    // cluster-autoscaler's text (gce_cloud_provider.go).
    return InvalidArgumentError("size increase too large - desired:" +
                                std::to_string(size + delta) +
                                " max:" + std::to_string(p->max_nodes));
  }
  if (p->migs.size() <= 1) {
    const std::string url = ContainerUrl("v1/projects/" + options_.project + "/locations/" +
                                         options_.location + "/clusters/" + options_.cluster +
                                         "/nodePools/" + pool_name + ":setSize");
    TIDEPOOL_ASSIGN_OR_RETURN(std::string reply,
                              Call("POST", url, json{{"nodeCount", size + delta}}.dump()));
    TIDEPOOL_RETURN_IF_ERROR(AwaitContainerOperation(reply));
    if (!p->migs.empty()) p->migs[0].target_size = size + delta;
    return OkStatus();
  }
  std::vector<int> targets;
  for (const Mig& m : p->migs) targets.push_back(m.target_size);
  for (int i = 0; i < delta; ++i) {
    ++*std::min_element(targets.begin(), targets.end());  // the first smallest
  }
  for (size_t i = 0; i < p->migs.size(); ++i) {
    if (targets[i] != p->migs[i].target_size) {
      TIDEPOOL_RETURN_IF_ERROR(ResizeMig(*p, p->migs[i], targets[i]));
    }
  }
  return OkStatus();
}

Status GkeCloudProvider::DeleteNodes(const std::string& pool_name,
                                     const std::vector<std::string>& names) {
  Pool* p = FindPool(pool_name);
  if (p == nullptr || !p->autoscaled) return NotFoundError("node pool " + pool_name + " not found");
  struct Victim {
    size_t mig;
    std::string url;
    std::string name;
  };
  std::vector<Victim> victims;
  int live = 0;
  for (const std::string& given : names) {
    std::string name = given;
    std::string zone;
    if (given.rfind("gce://", 0) == 0) {
      // gce://<project>/<zone>/<name>
      const std::string rest = given.substr(6);
      const size_t a = rest.find('/');
      const size_t b = rest.rfind('/');
      if (a == std::string::npos || a == b) {
        return InvalidArgumentError(
            "wrong id: expected format gce://<project-id>/<zone>/<name>, got " + given);
      }
      zone = rest.substr(a + 1, b - a - 1);
      name = rest.substr(b + 1);
    }
    std::optional<Victim> found;
    bool failed = false;
    bool deleting = false;
    for (size_t mi = 0; mi < p->migs.size() && !found; ++mi) {
      for (const ManagedInstance& i : p->migs[mi].instances) {
        if (i.name == name && (zone.empty() || i.zone == zone)) {
          found = Victim{mi, i.url, i.name};
          failed = !i.errors.empty() && i.instance_status.empty();
          deleting = i.current_action == "DELETING" || i.current_action == "ABANDONING";
          break;
        }
      }
    }
    if (!found && !zone.empty()) {
      for (size_t mi = 0; mi < p->migs.size(); ++mi) {
        if (p->migs[mi].zone == zone) {
          found = Victim{mi, "projects/" + p->migs[mi].project + "/zones/" + zone +
                                 "/instances/" + name,
                         name};
          break;
        }
      }
    }
    if (!found) {
      for (const Pool& other : pools_) {
        for (const Mig& m : other.migs) {
          for (const ManagedInstance& i : m.instances) {
            if (i.name == name && other.name != pool_name) {
              return InvalidArgumentError(given + " belongs to a different node group than " +
                                          pool_name);
            }
          }
        }
      }
      return NotFoundError("node " + given + " is not an instance of node pool " + pool_name);
    }
    if (deleting || std::any_of(victims.begin(), victims.end(),
                                [&](const Victim& v) { return v.name == found->name; })) {
      continue;
    }
    if (!failed) ++live;
    victims.push_back(*found);
  }
  int size = 0;
  for (const Mig& m : p->migs) size += m.target_size;
  if (live > 0 && size - static_cast<int>(victims.size()) < p->min_nodes) {
    // cluster-autoscaler's text (gce_cloud_provider.go).
    return FailedPreconditionError("min size reached, nodes will not be deleted");
  }
  for (size_t mi = 0; mi < p->migs.size(); ++mi) {
    Mig& m = p->migs[mi];
    json urls = json::array();
    std::vector<std::string> gone;
    for (const Victim& v : victims) {
      if (v.mig == mi) {
        urls.push_back(v.url);
        gone.push_back(v.name);
      }
    }
    if (urls.empty()) continue;
    TIDEPOOL_ASSIGN_OR_RETURN(
        std::string reply,
        Call("POST",
             ComputeUrl("projects/" + m.project + "/zones/" + m.zone + "/instanceGroupManagers/" +
                        m.name + "/deleteInstances"),
             json{{"instances", urls}}.dump()));
    TIDEPOOL_RETURN_IF_ERROR(AwaitComputeOperation(m.zone, reply));
    m.target_size -= static_cast<int>(gone.size());
    for (ManagedInstance& i : m.instances) {
      if (std::find(gone.begin(), gone.end(), i.name) != gone.end()) i.current_action = "DELETING";
    }
  }
  return OkStatus();
}

Status GkeCloudProvider::DecreaseTargetSize(const std::string& pool_name, int delta) {
  Pool* p = FindPool(pool_name);
  if (p == nullptr || !p->autoscaled) return NotFoundError("node pool " + pool_name + " not found");
  if (delta >= 0) return InvalidArgumentError("size decrease must be negative");
  int size = 0;
  int existing = 0;
  for (const Mig& m : p->migs) {
    size += m.target_size;
    for (const ManagedInstance& i : m.instances) {
      if (i.current_action != "DELETING" && i.current_action != "ABANDONING") ++existing;
    }
  }
  if (size + delta < existing) {
    // cluster-autoscaler's text (gce_cloud_provider.go).
    return FailedPreconditionError("attempt to delete existing nodes targetSize:" +
                                   std::to_string(size) + " delta:" + std::to_string(delta) +
                                   " existingNodes: " + std::to_string(existing));
  }
  std::vector<int> targets;
  for (const Mig& m : p->migs) targets.push_back(m.target_size);
  for (int i = 0; i < -delta; ++i) {
    auto it = std::max_element(targets.begin(), targets.end());
    if (it == targets.end() || *it == 0) break;
    --*it;
  }
  for (size_t i = 0; i < p->migs.size(); ++i) {
    if (targets[i] != p->migs[i].target_size) {
      TIDEPOOL_RETURN_IF_ERROR(ResizeMig(*p, p->migs[i], targets[i]));
    }
  }
  return OkStatus();
}

StatusOr<std::vector<Instance>> GkeCloudProvider::Instances(const std::string& pool_name) const {
  const Pool* p = FindPool(pool_name);
  if (p == nullptr || !p->autoscaled) return NotFoundError("node pool " + pool_name + " not found");
  std::vector<Instance> out;
  for (const Mig& m : p->migs) {
    for (const ManagedInstance& mi : m.instances) {
      Instance i;
      i.id = mi.ProviderId();
      const std::string& a = mi.current_action;
      if (a == "CREATING" || a == "RECREATING" || a == "CREATING_WITHOUT_RETRIES") {
        i.state = InstanceState::kCreating;
      } else if (a == "ABANDONING" || a == "DELETING") {
        i.state = InstanceState::kDeleting;
      } else {
        i.state = InstanceState::kRunning;
      }
      if (i.state == InstanceState::kCreating) {
        // cluster-autoscaler's FetchMigInstances mapping.
        InstanceErrorInfo info;
        std::string messages;
        bool found = false;
        const bool not_running_yet = mi.instance_status.empty() ||
                                     mi.instance_status == "PROVISIONING" ||
                                     mi.instance_status == "STAGING";
        for (const auto& [code, message] : mi.errors) {
          if (code == "RESOURCE_POOL_EXHAUSTED" || code == "ZONE_RESOURCE_POOL_EXHAUSTED" ||
              code == "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS") {
            info.error_class = InstanceErrorInfo::Class::kOutOfResources;
            info.error_code = kErrorCodeResourcePoolExhausted;
          } else if (Contains(code, "QUOTA")) {
            info.error_class = InstanceErrorInfo::Class::kOutOfResources;
            info.error_code = kErrorCodeQuotaExceeded;
          } else if (Contains(code, "IP_SPACE_EXHAUSTED")) {
            info.error_class = InstanceErrorInfo::Class::kOther;
            info.error_code = kErrorIpSpaceExhausted;
          } else if (Contains(code, "PERMISSIONS_ERROR")) {
            info.error_class = InstanceErrorInfo::Class::kOther;
            info.error_code = kErrorCodePermissions;
          } else if (Contains(code, "CONDITION_NOT_MET") &&
                     Contains(message, "Constraint constraints/compute.vmExternalIpAccess "
                                       "violated for project")) {
            info.error_class = InstanceErrorInfo::Class::kOther;
            info.error_code = kErrorCodeVmExternalIpAccessPolicyConstraint;
          } else if (not_running_yet) {
            if (!found) {
              info.error_class = InstanceErrorInfo::Class::kOther;
              info.error_code = kErrorCodeOther;
            }
          } else {
            continue;
          }
          found = true;
          if (!message.empty()) messages += (messages.empty() ? "" : "; ") + message;
        }
        info.error_message = messages;
        if (found) i.error = info;
      }
      out.push_back(std::move(i));
    }
  }
  return out;
}

// ---- Template nodes -----------------------------------------------------------------------------

StatusOr<emu::MachineType> GkeCloudProvider::MachineShape(const Pool& pool) const {
  if (const emu::MachineType* m = options_.catalog.FindMachineType(pool.machine_type)) return *m;
  if (auto it = machine_cache_.find(pool.machine_type); it != machine_cache_.end()) {
    return it->second;
  }
  const std::string zone = pool.zones.front();
  TIDEPOOL_ASSIGN_OR_RETURN(std::string text,
                            Call("GET", ComputeUrl("projects/" + options_.project + "/zones/" +
                                                   zone + "/machineTypes/" + pool.machine_type)));
  TIDEPOOL_ASSIGN_OR_RETURN(json j, ParseJson(text, "machineTypes.get"));
  emu::MachineType m;
  m.name = pool.machine_type;
  m.family = m.name.substr(0, m.name.find('-'));
  m.vcpus = static_cast<int>(Int(j, "guestCpus"));
  m.memory_mib = Int(j, "memoryMb");
  m.shared_core = j.value("isSharedCpu", false);
  if (j.contains("accelerators") && j["accelerators"].is_array() && !j["accelerators"].empty()) {
    m.builtin_accelerator = Str(j["accelerators"][0], "guestAcceleratorType");
    m.builtin_accelerator_count = static_cast<int>(Int(j["accelerators"][0], "guestAcceleratorCount"));
  }
  if (m.vcpus <= 0 || m.memory_mib <= 0) {
    return InternalError("machine type " + m.name + ": no guestCpus / memoryMb in " +
                         text.substr(0, 200));
  }
  machine_cache_[m.name] = m;
  return m;
}

StatusOr<api::Node> GkeCloudProvider::TemplateNode(const std::string& pool_name) const {
  const Pool* p = FindPool(pool_name);
  if (p == nullptr || !p->autoscaled) return NotFoundError("node pool " + pool_name + " not found");
  TIDEPOOL_ASSIGN_OR_RETURN(const emu::MachineType machine, MachineShape(*p));
  std::optional<emu::Accelerator> gpus;
  if (p->accelerator.has_value() && p->accelerator->count > 0) {
    gpus = p->accelerator;
  } else if (!machine.builtin_accelerator.empty() && machine.builtin_accelerator_count > 0) {
    gpus = emu::Accelerator{machine.builtin_accelerator, machine.builtin_accelerator_count};
  }
  emu::EmulatedCloud::TemplateSpec spec;
  spec.name = "template-node-for-" + p->name;
  spec.pool = p->name;
  spec.zone = p->zones.front();
  spec.machine = &machine;
  spec.gpus = gpus;
  spec.spot = p->spot;
  spec.labels = p->labels;
  spec.taints = p->taints;
  spec.disk_gb = p->disk_size_gb;
  return emu::EmulatedCloud::BuildTemplateNode(emu::GkeNodeStyle(), options_.catalog, spec,
                                               clock_.Now());
}

}  // namespace tidepool::cloud::gke::live
