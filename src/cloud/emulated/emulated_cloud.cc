#include "cloud/emulated/emulated_cloud.h"

#include "cloud/emulated/emulated_cloud_state.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

namespace tidepool::cloud::emulated {
namespace {

// GKE limits node pool names to 40 characters of an RFC 1035 label.
constexpr size_t kMaxNodePoolNameLength = 40;
// GCE instance names are at most 63 characters.
constexpr size_t kMaxInstanceNameLength = 63;
// GKE's smallest boot disk.
constexpr int64_t kMinDiskSizeGb = 10;

bool IsRfc1035Label(std::string_view s) {
  if (s.empty() || s.front() < 'a' || s.front() > 'z' || s.back() == '-') {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

std::string Hex8(uint64_t v) {
  char buf[9];
  std::snprintf(buf, sizeof(buf), "%08x", static_cast<unsigned>(v & 0xffffffffu));
  return buf;
}

// "gke-<cluster>-<pool>", cut so that "<prefix>-<8 hex>-<4 chars>" fits GCE's 63 characters
// (an approximation of GKE's own truncation of long cluster and pool names).
std::string InstancePrefix(const std::string& cluster, const std::string& pool) {
  std::string prefix = "gke-" + cluster + "-" + pool;
  const size_t max = kMaxInstanceNameLength - (1 + 8 + 1 + 4);
  if (prefix.size() > max) {
    prefix.resize(max);
  }
  while (!prefix.empty() && prefix.back() == '-') {
    prefix.pop_back();
  }
  return prefix;
}

std::string FormatInt(int v) { return std::to_string(v); }

api::NodeCondition Condition(std::string type, api::ConditionStatus status, std::string reason,
                             std::string message, TimePoint heartbeat, TimePoint transition) {
  api::NodeCondition c;
  c.type = std::move(type);
  c.status = status;
  c.reason = std::move(reason);
  c.message = std::move(message);
  c.last_heartbeat_time = heartbeat;
  c.last_transition_time = transition;
  return c;
}

// The kubelet's conditions (pkg/kubelet/nodestatus/setters.go): no pressure since
// `registered`, Ready (since `ready_since`) or not yet. Heartbeats are not emulated:
// last_heartbeat_time is `now`, the time of the publish.
std::vector<api::NodeCondition> KubeletConditions(bool ready, TimePoint now, TimePoint registered,
                                                  TimePoint ready_since) {
  using api::ConditionStatus;
  std::vector<api::NodeCondition> c;
  c.push_back(Condition("MemoryPressure", ConditionStatus::kFalse, "KubeletHasSufficientMemory",
                        "kubelet has sufficient memory available", now, registered));
  c.push_back(Condition("DiskPressure", ConditionStatus::kFalse, "KubeletHasNoDiskPressure",
                        "kubelet has no disk pressure", now, registered));
  c.push_back(Condition("PIDPressure", ConditionStatus::kFalse, "KubeletHasSufficientPID",
                        "kubelet has sufficient PID available", now, registered));
  if (ready) {
    c.push_back(Condition("Ready", ConditionStatus::kTrue, "KubeletReady",
                          "kubelet is posting ready status", now, ready_since));
  } else {
    c.push_back(Condition("Ready", ConditionStatus::kFalse, "KubeletNotReady",
                          "container runtime status check may not have completed yet", now,
                          ready_since));
  }
  return c;
}

}  // namespace

// ---- Names --------------------------------------------------------------------------------------

std::string_view CloudEventKindName(CloudEventKind kind) {
  switch (kind) {
    case CloudEventKind::kInstanceRequested:
      return "InstanceRequested";
    case CloudEventKind::kInstanceRunning:
      return "InstanceRunning";
    case CloudEventKind::kInstanceFailed:
      return "InstanceFailed";
    case CloudEventKind::kNodeRegistered:
      return "NodeRegistered";
    case CloudEventKind::kNodeReady:
      return "NodeReady";
    case CloudEventKind::kGpuReady:
      return "GpuReady";
    case CloudEventKind::kInstanceStopping:
      return "InstanceStopping";
    case CloudEventKind::kInstanceDeleted:
      return "InstanceDeleted";
    case CloudEventKind::kNodePoolStatusChanged:
      return "NodePoolStatusChanged";
    case CloudEventKind::kNodePoolDeleted:
      return "NodePoolDeleted";
  }
  return "Unknown";
}

std::string_view NodePoolStatusName(NodePoolStatus status) {
  switch (status) {
    case NodePoolStatus::kProvisioning:
      return "PROVISIONING";
    case NodePoolStatus::kRunning:
      return "RUNNING";
    case NodePoolStatus::kReconciling:
      return "RECONCILING";
    case NodePoolStatus::kStopping:
      return "STOPPING";
    case NodePoolStatus::kError:
      return "ERROR";
  }
  return "STATUS_UNSPECIFIED";
}

std::string_view VmStatusName(VmStatus status) {
  switch (status) {
    case VmStatus::kProvisioning:
      return "PROVISIONING";
    case VmStatus::kRunning:
      return "RUNNING";
    case VmStatus::kStopping:
      return "STOPPING";
    case VmStatus::kFailed:
      return "FAILED";
  }
  return "UNKNOWN";
}

// ---- Construction -------------------------------------------------------------------------------

EmulatedCloud::EmulatedCloud(std::string project, std::string cluster, std::string default_zone,
                             TimerService& timers, NodeSink& sink, Random& random,
                             EmulatedCloudOptions options)
    : project_(std::move(project)),
      cluster_(std::move(cluster)),
      default_zone_(std::move(default_zone)),
      timers_(timers),
      sink_(sink),
      random_(random),
      options_(std::move(options)),
      provider_(std::make_unique<EmulatedCloudProvider>(*this)) {}

EmulatedCloud::~EmulatedCloud() {
  for (auto& [name, vm] : vms_) {
    CancelStep(vm);
  }
}

std::string EmulatedCloud::RegionOf(std::string_view zone) {
  const size_t dash = zone.rfind('-');
  return std::string(dash == std::string_view::npos ? zone : zone.substr(0, dash));
}

void EmulatedCloud::AddObserver(CloudObserver* observer) { observers_.push_back(observer); }

void EmulatedCloud::RemoveObserver(CloudObserver* observer) {
  observers_.erase(std::remove(observers_.begin(), observers_.end(), observer), observers_.end());
}

std::string EmulatedCloud::NodePoolPath(std::string_view pool) const {
  return "projects/" + project_ + "/locations/" + default_zone_ + "/clusters/" + cluster_ +
         "/nodePools/" + std::string(pool);
}

EmulatedCloud::Pool* EmulatedCloud::FindPool(std::string_view name) {
  auto it = pools_.find(name);
  return it == pools_.end() ? nullptr : &it->second;
}

const EmulatedCloud::Pool* EmulatedCloud::FindPool(std::string_view name) const {
  auto it = pools_.find(name);
  return it == pools_.end() ? nullptr : &it->second;
}

Status EmulatedCloud::NotFound(std::string_view pool) const {
  // GKE's 404 message shape.
  return NotFoundError("Not found: " + NodePoolPath(pool) + ".");
}

// ---- Node pool API ------------------------------------------------------------------------------

Status EmulatedCloud::CreateNodePool(NodePoolSpec spec) {
  // Validation messages are tidepool's, shaped like GKE's field errors unless noted.
  if (!IsRfc1035Label(spec.name) || spec.name.size() > kMaxNodePoolNameLength) {
    return InvalidArgumentError("Invalid value for field \"node_pool.name\": \"" + spec.name +
                                "\": must be 1-40 lowercase letters, digits or '-', start with "
                                "a letter and not end with '-'.");
  }
  if (FindPool(spec.name) != nullptr) {
    // GKE's 409 message.
    return AlreadyExistsError("Already exists: " + NodePoolPath(spec.name) + ".");
  }
  if (spec.zones.empty()) {
    spec.zones.push_back(default_zone_);
  }
  const std::string region = style().RegionOf(default_zone_);
  for (size_t i = 0; i < spec.zones.size(); ++i) {
    const std::string& z = spec.zones[i];
    if (style().RegionOf(z) != region || z.size() <= region.size() || z.back() == '-') {
      return InvalidArgumentError("Invalid value for field \"node_pool.locations\": \"" + z +
                                  "\": node locations must be zones of region " + region + ".");
    }
    if (std::find(spec.zones.begin(), spec.zones.begin() + i, z) != spec.zones.begin() + i) {
      return InvalidArgumentError("Invalid value for field \"node_pool.locations\": zone " + z +
                                  " is listed twice.");
    }
  }
  if (spec.min_nodes < 0 || spec.max_nodes < spec.min_nodes ||
      (spec.autoscaling && spec.max_nodes < 1)) {
    return InvalidArgumentError(
        "Invalid value for field \"node_pool.autoscaling\": need 0 <= min_node_count <= "
        "max_node_count and max_node_count >= 1 (min " +
        FormatInt(spec.min_nodes) + ", max " + FormatInt(spec.max_nodes) + ").");
  }
  if (spec.initial_node_count < 0) {
    return InvalidArgumentError(
        "Invalid value for field \"node_pool.initial_node_count\": must be non-negative.");
  }
  if (spec.disk_size_gb == 0) spec.disk_size_gb = style().DefaultDiskGb();
  if (spec.group_id.empty()) spec.group_id = style().DefaultGroupId(spec.name);
  if (spec.disk_size_gb < kMinDiskSizeGb) {
    return InvalidArgumentError("Invalid value for field \"node_pool.config.disk_size_gb\": " +
                                std::to_string(spec.disk_size_gb) + ": must be at least 10.");
  }
  for (const api::Taint& t : spec.taints) {
    if (t.key.empty() || t.effect == api::TaintEffect::kNone) {
      return InvalidArgumentError("Invalid value for field \"node_pool.config.taints\": \"" +
                                  t.ToString() + "\": a taint needs a key and an effect.");
    }
  }
  if (spec.accelerator.has_value() && !spec.accelerator->sharing.empty()) {
    const Accelerator& a = *spec.accelerator;
    if (a.sharing != "TIME_SHARING" && a.sharing != "MPS") {
      return InvalidArgumentError(
          "Invalid value for field \"node_pool.config.accelerators[0].gpu_sharing_config."
          "gpu_sharing_strategy\": \"" +
          a.sharing + "\": must be TIME_SHARING or MPS.");
    }
    if (a.max_shared_clients < 2 || a.max_shared_clients > 48) {
      return InvalidArgumentError(
          "Invalid value for field \"node_pool.config.accelerators[0].gpu_sharing_config."
          "max_shared_clients_per_gpu\": " +
          std::to_string(a.max_shared_clients) + ": must be between 2 and 48.");
    }
  }
  // The machine and accelerator must be offered in every zone of the pool.
  std::optional<Accelerator> accelerator;
  for (const std::string& z : spec.zones) {
    TIDEPOOL_ASSIGN_OR_RETURN(accelerator,
                              options_.catalog.Resolve(spec.machine_type, spec.accelerator, z));
  }
  if (accelerator.has_value() && spec.accelerator.has_value()) {
    accelerator->sharing = spec.accelerator->sharing;
    accelerator->max_shared_clients = spec.accelerator->max_shared_clients;
  }

  Pool pool;
  pool.machine = options_.catalog.FindMachineType(spec.machine_type);
  pool.accelerator = accelerator;
  pool.prefix = InstancePrefix(cluster_, spec.name);
  pool.spec = std::move(spec);
  // GKE's automatic taint on GPU pools, unless the user gave it already.
  if (pool.accelerator.has_value() && style().TaintsGpuPools()) {
    api::Taint gpu{std::string(kTaintGpuKey), std::string(kTaintGpuValue),
                   api::TaintEffect::kNoSchedule, std::nullopt};
    const bool present = std::any_of(pool.spec.taints.begin(), pool.spec.taints.end(),
                                     [&](const api::Taint& t) { return t.MatchTaint(gpu); });
    if (!present) {
      pool.spec.taints.push_back(std::move(gpu));
    }
  }
  TIDEPOOL_RETURN_IF_ERROR(CheckQuota(pool, pool.spec.initial_node_count));
  for (size_t i = 0; i < pool.spec.zones.size(); ++i) {
    pool.hashes.push_back(Hex8(random_.Next()));
  }

  const std::string name = pool.spec.name;
  FlushOnExit flush{*this};
  Pool& p = pools_.emplace(name, std::move(pool)).first->second;
  TouchPool(name);
  Notify(CloudEventKind::kNodePoolStatusChanged, name, "", "",
         std::string(NodePoolStatusName(p.status)));
  std::vector<std::string> created;
  for (int i = 0; i < p.spec.initial_node_count; ++i) {
    created.push_back(RequestInstance(p));
  }
  BeginOperation(p, NodePoolStatus::kProvisioning, created);
  return OkStatus();
}

Status EmulatedCloud::DeleteNodePool(std::string_view name) {
  Pool* p = FindPool(name);
  if (p == nullptr || p->deleting) {
    return NotFound(name);
  }
  const std::string pool_name(name);
  FlushOnExit flush{*this};
  TouchPool(pool_name);
  p->deleting = true;
  p->settling.clear();
  SetStatus(*p, NodePoolStatus::kStopping);
  const std::vector<std::string> names = p->instances;
  for (const std::string& n : names) {
    auto it = vms_.find(n);
    if (it != vms_.end()) {
      RemoveInstance(it->second);
    }
  }
  p = FindPool(pool_name);
  if (p != nullptr && p->instances.empty()) {
    pools_.erase(pool_name);
    TouchPool(pool_name);
    Notify(CloudEventKind::kNodePoolDeleted, pool_name, "", "");
  }
  return OkStatus();
}

Status EmulatedCloud::SetAutoscaling(std::string_view name, bool enabled, int min_nodes,
                                     int max_nodes) {
  Pool* p = FindPool(name);
  if (p == nullptr || p->deleting) {
    return NotFound(name);
  }
  if (min_nodes < 0 || max_nodes < min_nodes || (enabled && max_nodes < 1)) {
    return InvalidArgumentError(
        "Invalid value for field \"autoscaling\": need 0 <= min_node_count <= max_node_count "
        "and max_node_count >= 1 (min " +
        FormatInt(min_nodes) + ", max " + FormatInt(max_nodes) + ").");
  }
  FlushOnExit flush{*this};
  TouchPool(p->spec.name);
  p->spec.autoscaling = enabled;
  p->spec.min_nodes = min_nodes;
  p->spec.max_nodes = max_nodes;
  return OkStatus();
}

Status EmulatedCloud::SetNodeConfig(std::string_view name, std::optional<api::Labels> labels,
                                    std::optional<std::vector<api::Taint>> taints) {
  Pool* p = FindPool(name);
  if (p == nullptr || p->deleting) {
    return NotFound(name);
  }
  FlushOnExit flush{*this};
  TouchPool(p->spec.name);
  if (labels.has_value()) p->spec.labels = std::move(*labels);
  if (taints.has_value()) p->spec.taints = std::move(*taints);
  for (const std::string& instance : p->instances) {
    auto it = vms_.find(instance);
    if (it == vms_.end() || !it->second.registered || it->second.status == VmStatus::kStopping) {
      continue;
    }
    Vm& vm = it->second;
    Publish(vm, vm.gpu_ready ? NodeStage::kGpuReady
                             : (vm.ready ? NodeStage::kReady : NodeStage::kRegistered));
  }
  return OkStatus();
}

Status EmulatedCloud::SetSize(std::string_view name, int node_count) {
  Pool* p = FindPool(name);
  if (p == nullptr || p->deleting) {
    return NotFound(name);
  }
  if (node_count < 0) {
    return InvalidArgumentError("Invalid value for field \"node_count\": " + FormatInt(node_count) +
                                ": must be non-negative.");
  }
  FlushOnExit flush{*this};
  const int target = TargetSizeOf(*p);
  if (node_count > target) {
    TIDEPOOL_RETURN_IF_ERROR(CheckQuota(*p, node_count - target));
    std::vector<std::string> created;
    for (int i = target; i < node_count; ++i) {
      created.push_back(RequestInstance(*p));
    }
    BeginOperation(*p, NodePoolStatus::kReconciling, created);
  } else if (node_count < target) {
    std::vector<std::string> stopping;
    for (const std::string& n : PickVictims(*p, target - node_count, /*registered_too=*/true)) {
      RemoveInstance(vms_.find(n)->second);
      auto it = vms_.find(n);
      if (it != vms_.end()) {
        stopping.push_back(n);
      }
    }
    BeginOperation(*p, NodePoolStatus::kReconciling, stopping);
  }
  return OkStatus();
}

std::string EmulatedCloud::PoolOfNode(const api::Node& node) const {
  auto it = node.meta.labels.find(std::string(style().PoolLabel()));
  return it == node.meta.labels.end() ? "" : it->second;
}

int EmulatedCloud::NodeGpuCount(const api::Node& node) const {
  const api::Labels& labels = node.meta.labels;
  if (auto pool = labels.find(std::string(style().PoolLabel())); pool != labels.end()) {
    StatusOr<NodePoolInfo> info = GetNodePoolConfig(pool->second);
    if (info.ok() && info->accelerator.has_value()) return info->accelerator->count;
  }
  if (int n = static_cast<int>(api::Get(node.status.capacity, api::kResourceNvidiaGpu).Value());
      n > 0) {
    return n;
  }
  auto machine = labels.find(std::string(kLabelInstanceType));
  if (machine == labels.end()) return 0;
  const MachineType* m = options_.catalog.FindMachineType(machine->second);
  return m == nullptr ? 0 : m->builtin_accelerator_count;
}

StatusOr<NodePoolInfo> EmulatedCloud::GetNodePoolConfig(std::string_view name) const {
  const Pool* p = FindPool(name);
  if (p == nullptr) {
    return NotFound(name);
  }
  NodePoolInfo info;
  info.spec = p->spec;
  info.accelerator = p->accelerator;
  info.status = p->status;
  return info;
}

StatusOr<NodePoolInfo> EmulatedCloud::GetNodePool(std::string_view name) const {
  TIDEPOOL_ASSIGN_OR_RETURN(NodePoolInfo info, GetNodePoolConfig(name));
  const Pool* p = FindPool(name);
  info.target_size = TargetSizeOf(*p);
  for (const std::string& h : p->hashes) {
    info.instance_groups.push_back(p->prefix + "-" + h + "-grp");
  }
  return info;
}

std::vector<NodePoolInfo> EmulatedCloud::ListNodePools() const {
  std::vector<NodePoolInfo> out;
  for (const auto& [name, pool] : pools_) {
    out.push_back(*GetNodePool(name));
  }
  return out;
}

std::vector<InstanceInfo> EmulatedCloud::ListInstances() const {
  std::vector<InstanceInfo> out;
  for (const auto& [name, vm] : vms_) {
    const Pool* p = FindPool(vm.pool);
    InstanceInfo i;
    i.name = vm.name;
    i.node_pool = vm.pool;
    i.zone = vm.zone;
    i.machine_type = p != nullptr ? p->spec.machine_type : "";
    i.provider_id = vm.provider_id;
    i.spot = p != nullptr && p->spec.spot;
    i.status = vm.status;
    i.registered = vm.registered;
    i.ready = vm.ready;
    i.gpu_ready = vm.gpu_ready;
    i.error = vm.error;
    i.requested_at = vm.requested_at;
    out.push_back(std::move(i));
  }
  return out;
}

// ---- NodeGroup operations -----------------------------------------------------------------------

std::vector<std::string> EmulatedCloud::AutoscaledNodePools() const {
  std::vector<std::string> out;
  for (const auto& [name, pool] : pools_) {
    if (pool.spec.autoscaling && !pool.deleting) {
      out.push_back(name);
    }
  }
  return out;
}

int EmulatedCloud::TargetSizeOf(const Pool& pool) const {
  int n = 0;
  for (const auto& [zone, live] : pool.live_by_zone) n += live;
  return n;
}

void EmulatedCloud::CountLive(const Vm& vm, int delta) {
  Pool* p = FindPool(vm.pool);
  if (p == nullptr) return;
  p->live_by_zone[vm.zone] += delta;
}

int EmulatedCloud::LiveInstances(std::string_view pool) const {
  const Pool* p = FindPool(pool);
  return p == nullptr ? 0 : TargetSizeOf(*p);
}

StatusOr<int> EmulatedCloud::TargetSize(std::string_view pool) const {
  const Pool* p = FindPool(pool);
  if (p == nullptr || p->deleting) {
    return NotFound(pool);
  }
  return TargetSizeOf(*p);
}

Status EmulatedCloud::IncreaseSize(std::string_view pool, int delta) {
  Pool* p = FindPool(pool);
  if (p == nullptr || p->deleting) {
    return NotFound(pool);
  }
  if (delta <= 0) {
    // cluster-autoscaler's GCE text.
    return InvalidArgumentError("size increase must be positive");
  }
  const int target = TargetSizeOf(*p);
  if (target + delta > p->spec.max_nodes) {
    // cluster-autoscaler's GCE text.
    return InvalidArgumentError("size increase too large - desired:" + FormatInt(target + delta) +
                                " max:" + FormatInt(p->spec.max_nodes));
  }
  TIDEPOOL_RETURN_IF_ERROR(CheckQuota(*p, delta));
  FlushOnExit flush{*this};
  for (int i = 0; i < delta; ++i) {
    RequestInstance(*p);
  }
  return OkStatus();
}

Status EmulatedCloud::DeleteNodes(std::string_view pool, const std::vector<std::string>& names) {
  Pool* p = FindPool(pool);
  if (p == nullptr || p->deleting) {
    return NotFound(pool);
  }
  std::vector<std::string> victims;
  int live = 0;
  for (const std::string& given : names) {
    auto it = vms_.find(VmName(given));
    if (it == vms_.end()) {
      return NotFoundError("node " + given + " is not an instance of any node pool");
    }
    const Vm& vm = it->second;
    if (vm.pool != pool) {
      return InvalidArgumentError(given + " belongs to a different node group than " +
                                  std::string(pool));
    }
    if (vm.status == VmStatus::kStopping ||
        std::find(victims.begin(), victims.end(), vm.name) != victims.end()) {
      continue;
    }
    if (vm.status != VmStatus::kFailed) {
      ++live;
    }
    victims.push_back(vm.name);
  }
  if (live > 0 && TargetSizeOf(*p) - static_cast<int>(victims.size()) < p->spec.min_nodes) {
    // cluster-autoscaler's GCE text.
    return FailedPreconditionError("min size reached, nodes will not be deleted");
  }
  FlushOnExit flush{*this};
  for (const std::string& name : victims) {
    RemoveInstance(vms_.find(name)->second);
  }
  return OkStatus();
}

Status EmulatedCloud::DecreaseTargetSize(std::string_view pool, int delta) {
  Pool* p = FindPool(pool);
  if (p == nullptr || p->deleting) {
    return NotFound(pool);
  }
  if (delta >= 0) {
    // cluster-autoscaler's GCE text.
    return InvalidArgumentError("size decrease must be negative");
  }
  const int target = TargetSizeOf(*p);
  int registered = 0;
  for (const std::string& name : p->instances) {
    const Vm& vm = vms_.find(name)->second;
    if (vm.registered && vm.status != VmStatus::kStopping) {
      ++registered;
    }
  }
  if (target + delta < registered) {
    // cluster-autoscaler's GCE text.
    return FailedPreconditionError(
        "attempt to delete existing nodes targetSize:" + FormatInt(target) +
        " delta:" + FormatInt(delta) + " existingNodes: " + FormatInt(registered));
  }
  FlushOnExit flush{*this};
  for (const std::string& name : PickVictims(*p, -delta, /*registered_too=*/false)) {
    RemoveInstance(vms_.find(name)->second);
  }
  return OkStatus();
}

std::optional<std::string> EmulatedCloud::PoolOfInstance(
    std::string_view name_or_provider_id) const {
  auto it = vms_.find(VmName(name_or_provider_id));
  if (it == vms_.end()) {
    return std::nullopt;
  }
  return it->second.pool;
}

StatusOr<std::vector<Instance>> EmulatedCloud::Instances(std::string_view pool) const {
  const Pool* p = FindPool(pool);
  if (p == nullptr || p->deleting) {
    return NotFound(pool);
  }
  std::vector<Instance> out;
  for (const std::string& name : p->instances) {
    const Vm& vm = vms_.find(name)->second;
    Instance i;
    i.id = vm.provider_id;
    switch (vm.status) {
      case VmStatus::kProvisioning:
      case VmStatus::kFailed:  // cluster-autoscaler's convention: creating, with an error
        i.state = InstanceState::kCreating;
        break;
      case VmStatus::kRunning:
        i.state = InstanceState::kRunning;
        break;
      case VmStatus::kStopping:
        i.state = InstanceState::kDeleting;
        break;
    }
    i.error = vm.error;
    out.push_back(std::move(i));
  }
  return out;
}

StatusOr<api::Node> EmulatedCloud::TemplateNode(std::string_view pool) const {
  const Pool* p = FindPool(pool);
  if (p == nullptr || p->deleting) {
    return NotFound(pool);
  }
  const TimePoint now = Now();
  return BuildNode(*p, "template-node-for-" + p->spec.name, p->spec.zones.front(),
                   NodeStage::kGpuReady, now, now);
}

// ---- Instances ----------------------------------------------------------------------------------

std::optional<QuotaUse> EmulatedCloud::QuotaOf(const Pool& pool) const {
  return style().QuotaOf(options_.catalog, *pool.machine, pool.accelerator, pool.spec.spot);
}

std::optional<int64_t> EmulatedCloud::QuotaLimit(const QuotaUse& use) const {
  auto limit = options_.faults.gpu_quota.find(use.metric);
  if (limit == options_.faults.gpu_quota.end()) return std::nullopt;
  return limit->second;
}

int64_t EmulatedCloud::QuotaUsed(const QuotaUse& use, const std::string& region) const {
  int64_t used = 0;
  for (const auto& [name, vm] : vms_) {
    if (vm.status == VmStatus::kFailed || vm.over_quota || style().RegionOf(vm.zone) != region) {
      continue;
    }
    const Pool* other = FindPool(vm.pool);
    if (other == nullptr) continue;
    std::optional<QuotaUse> u = QuotaOf(*other);
    if (u.has_value() && u->metric == use.metric) used += u->amount;
  }
  return used;
}

Status EmulatedCloud::CheckQuota(const Pool& pool, int new_instances) const {
  if (new_instances <= 0 || style().QuotaFailsLaunches()) return OkStatus();
  const std::optional<QuotaUse> use = QuotaOf(pool);
  if (!use.has_value()) return OkStatus();
  const std::optional<int64_t> limit = QuotaLimit(*use);
  if (!limit.has_value()) return OkStatus();
  const std::string region = style().RegionOf(pool.spec.zones.front());
  if (QuotaUsed(*use, region) + int64_t{new_instances} * use->amount > *limit) {
    char limit_text[32];
    std::snprintf(limit_text, sizeof(limit_text), "%.1f", static_cast<double>(*limit));
    // Compute Engine's QUOTA_EXCEEDED message.
    const std::string message = "Quota '" + use->metric + "' exceeded.  Limit: " + limit_text +
                                " in region " + region + ".";
    if (options_.logger != nullptr) {
      options_.logger->Warning("GPU quota exceeded",
                               {{"nodePool", pool.spec.name}, {"message", message}});
    }
    return ResourceExhaustedError(message);
  }
  return OkStatus();
}

bool EmulatedCloud::LaunchOverQuota(const Pool& pool, std::string_view zone) const {
  if (!style().QuotaFailsLaunches()) return false;
  const std::optional<QuotaUse> use = QuotaOf(pool);
  if (!use.has_value()) return false;
  const std::optional<int64_t> limit = QuotaLimit(*use);
  return limit.has_value() && QuotaUsed(*use, style().RegionOf(zone)) + use->amount > *limit;
}

bool EmulatedCloud::Matches(const FaultMatch& m, const Pool& pool, std::string_view zone) const {
  if (!m.node_pool.empty() && m.node_pool != pool.spec.name) {
    return false;
  }
  if (!m.zone.empty() && m.zone != zone) {
    return false;
  }
  if (!m.machine_type.empty() && m.machine_type != pool.spec.machine_type) {
    return false;
  }
  if (!m.accelerator.empty() &&
      (!pool.accelerator.has_value() || pool.accelerator->type != m.accelerator)) {
    return false;
  }
  return true;
}

bool EmulatedCloud::Fires(const std::vector<FaultMatch>& rules, const Pool& pool,
                          std::string_view zone) {
  for (const FaultMatch& m : rules) {
    // Bernoulli draws from the Random only for 0 < probability < 1.
    if (Matches(m, pool, zone) && random_.Bernoulli(m.probability)) {
      return true;
    }
  }
  return false;
}

std::string EmulatedCloud::PickZone(const Pool& pool) const {
  auto count = [&](const std::string& zone) {
    auto it = pool.live_by_zone.find(zone);
    return it == pool.live_by_zone.end() ? 0 : it->second;
  };
  const std::string* best = &pool.spec.zones.front();
  for (const std::string& z : pool.spec.zones) {
    if (count(z) < count(*best)) {
      best = &z;
    }
  }
  return *best;
}

std::string EmulatedCloud::VmName(std::string_view name_or_provider_id) const {
  if (name_or_provider_id.find("://") == std::string_view::npos)
    return std::string(name_or_provider_id);
  auto it = by_provider_id_.find(name_or_provider_id);
  return it == by_provider_id_.end() ? std::string() : it->second;
}

std::string EmulatedCloud::RequestInstance(Pool& pool) {
  const std::string zone = PickZone(pool);
  Vm vm;
  const size_t zone_index =
      std::find(pool.spec.zones.begin(), pool.spec.zones.end(), zone) - pool.spec.zones.begin();
  const std::string base = pool.prefix + "-" + pool.hashes[zone_index];
  VmIdentity id = style().NewVm({project_, pool.spec.name, zone, base}, random_,
                                [this](std::string_view n) { return vms_.find(n) != vms_.end(); });
  vm.name = std::move(id.name);
  vm.pool = pool.spec.name;
  vm.zone = zone;
  vm.provider_id = std::move(id.provider_id);
  vm.seq = next_seq_++;
  vm.requested_at = Now();
  // Faults, decided now, in a fixed order (so random draws replay).
  const Faults& f = options_.faults;
  vm.over_quota = LaunchOverQuota(pool, zone);
  const bool stockout = Fires(f.stockout, pool, zone);
  vm.never_registers = Fires(f.never_registers, pool, zone);
  Duration boot = options_.delays.provisioning;
  if (pool.spec.spot) {
    boot += options_.delays.spot_extra;
  }
  for (const SlowBoot& s : f.slow_boot) {
    if (Matches(s.match, pool, zone) && random_.Bernoulli(s.match.probability)) {
      boot += s.extra;
    }
  }
  vm.driver_never_ready = pool.accelerator.has_value() && Fires(f.driver_never_ready, pool, zone);

  const std::string name = vm.name;
  Vm& stored = vms_.emplace(name, std::move(vm)).first->second;
  by_provider_id_[stored.provider_id] = name;
  pool.instances.push_back(name);
  CountLive(stored, +1);
  TouchVm(name);
  Notify(CloudEventKind::kInstanceRequested, pool.spec.name, zone, name);
  if (stockout || stored.over_quota) {
    ScheduleStep(stored, f.stockout_delay, &EmulatedCloud::StepFailed);
  } else {
    ScheduleStep(stored, boot, &EmulatedCloud::StepRunning);
  }
  return name;
}

std::vector<std::string> EmulatedCloud::PickVictims(const Pool& pool, int n,
                                                    bool registered_too) const {
  std::vector<const Vm*> failed;
  std::vector<const Vm*> unregistered;
  std::vector<const Vm*> registered;
  for (const std::string& name : pool.instances) {
    const Vm& vm = vms_.find(name)->second;
    if (vm.status == VmStatus::kStopping) {
      continue;
    }
    if (vm.status == VmStatus::kFailed) {
      failed.push_back(&vm);
    } else if (!vm.registered) {
      unregistered.push_back(&vm);
    } else {
      registered.push_back(&vm);
    }
  }
  // pool.instances is in creation order: newest last.
  std::reverse(unregistered.begin(), unregistered.end());
  std::reverse(registered.begin(), registered.end());
  std::vector<std::string> out;
  for (const auto* group : {&failed, &unregistered, &registered}) {
    if (group == &registered && !registered_too) {
      break;
    }
    for (const Vm* vm : *group) {
      if (static_cast<int>(out.size()) == n) {
        return out;
      }
      out.push_back(vm->name);
    }
  }
  return out;
}

void EmulatedCloud::RemoveInstance(Vm& vm) {
  if (vm.status == VmStatus::kStopping) {
    return;
  }
  CancelStep(vm);
  const std::string name = vm.name;
  const std::string pool = vm.pool;
  const std::string zone = vm.zone;
  if (vm.status == VmStatus::kFailed) {
    // No VM exists: the failed creation is simply dropped.
    Erase(name);
    Notify(CloudEventKind::kInstanceDeleted, pool, zone, name);
    return;
  }
  CountLive(vm, -1);
  vm.status = VmStatus::kStopping;
  TouchVm(name);
  Notify(CloudEventKind::kInstanceStopping, pool, zone, name);
  ScheduleStep(vm, options_.delays.deletion, &EmulatedCloud::StepGone);
}

void EmulatedCloud::Erase(const std::string& name) {
  auto it = vms_.find(name);
  if (it == vms_.end()) {
    return;
  }
  CancelStep(it->second);
  if (it->second.status != VmStatus::kStopping) CountLive(it->second, -1);
  if (Pool* p = FindPool(it->second.pool)) {
    p->instances.erase(std::remove(p->instances.begin(), p->instances.end(), name),
                       p->instances.end());
    if (p->settling.erase(name) > 0) TouchPool(p->spec.name);
  }
  by_provider_id_.erase(it->second.provider_id);
  vms_.erase(it);
  TouchVm(name);
}

// ---- Lifecycle ----------------------------------------------------------------------------------

void EmulatedCloud::ScheduleStep(Vm& vm, Duration after, Step step) {
  ScheduleStepAt(vm, Now() + after, step);
}

void EmulatedCloud::ScheduleStepAt(Vm& vm, TimePoint due, Step step) {
  CancelStep(vm);
  const uint64_t token = next_token_++;
  vm.token = token;
  vm.step = step;
  vm.step_due = due;
  TouchVm(vm.name);
  const std::string name = vm.name;
  const TimerService::TimerId id = timers_.ScheduleAt(due, [this, name, token, step] {
    auto it = vms_.find(name);
    if (it == vms_.end() || it->second.token != token) {
      return;  // cancelled or superseded
    }
    FlushOnExit flush{*this};
    it->second.token = 0;
    it->second.timer_pending = false;
    it->second.step = nullptr;
    TouchVm(name);
    (this->*step)(it->second);
  });
  // The callback may already have run (a due time in the past): keep the id only if pending.
  auto it = vms_.find(name);
  if (it != vms_.end() && it->second.token == token) {
    it->second.timer = id;
    it->second.timer_pending = true;
  }
}

void EmulatedCloud::CancelStep(Vm& vm) {
  if (vm.timer_pending) {
    timers_.Cancel(vm.timer);
    vm.timer_pending = false;
  }
  vm.token = 0;
  if (vm.step != nullptr) {
    vm.step = nullptr;
    TouchVm(vm.name);
  }
}

void EmulatedCloud::StepRunning(Vm& vm) {
  vm.status = VmStatus::kRunning;
  Notify(CloudEventKind::kInstanceRunning, vm.pool, vm.zone, vm.name);
  if (vm.never_registers) {
    return;
  }
  ScheduleStep(vm, options_.delays.registration, &EmulatedCloud::StepRegistered);
}

void EmulatedCloud::StepFailed(Vm& vm) {
  vm.status = VmStatus::kFailed;
  const Pool* of = FindPool(vm.pool);
  const bool spot = of != nullptr && of->spec.spot;
  const std::optional<QuotaUse> use = of != nullptr ? QuotaOf(*of) : std::nullopt;
  if (vm.over_quota && use.has_value()) {
    vm.error = style().QuotaError(*use, QuotaLimit(*use).value_or(0), spot);
  } else {
    vm.error = style().StockoutError(project_, vm.zone,
                                     of != nullptr ? *of->machine : MachineType{}, spot);
  }
  if (options_.logger != nullptr) {
    options_.logger->Warning("Instance creation failed",
                             {{"instance", vm.name}, {"error", vm.error->error_message}});
  }
  const std::string name = vm.name;
  const std::string pool = vm.pool;
  Notify(CloudEventKind::kInstanceFailed, pool, vm.zone, name, vm.error->error_message);
  if (Pool* p = FindPool(pool)) {
    Settle(*p, name, /*failed=*/true);
  }
}

void EmulatedCloud::StepRegistered(Vm& vm) {
  vm.registered = true;
  vm.registered_at = Now();
  Publish(vm, NodeStage::kRegistered);
  Notify(CloudEventKind::kNodeRegistered, vm.pool, vm.zone, vm.name);
  ScheduleStep(vm, options_.delays.kubelet_ready, &EmulatedCloud::StepReady);
}

void EmulatedCloud::StepReady(Vm& vm) {
  vm.ready = true;
  vm.ready_at = Now();
  Publish(vm, NodeStage::kReady);
  const std::string name = vm.name;
  Notify(CloudEventKind::kNodeReady, vm.pool, vm.zone, name);
  Pool* p = FindPool(vm.pool);
  if (p == nullptr) {
    return;
  }
  if (p->accelerator.has_value() && !vm.driver_never_ready) {
    ScheduleStep(vm, options_.delays.driver, &EmulatedCloud::StepGpuReady);
  }
  Settle(*p, name, /*failed=*/false);
  if (p->status == NodePoolStatus::kError && p->settling.empty()) {
    SetStatus(*p, NodePoolStatus::kRunning);
  }
}

void EmulatedCloud::StepGpuReady(Vm& vm) {
  vm.gpu_ready = true;
  Publish(vm, NodeStage::kGpuReady);
  Notify(CloudEventKind::kGpuReady, vm.pool, vm.zone, vm.name);
}

void EmulatedCloud::StepGone(Vm& vm) {
  const std::string name = vm.name;
  const std::string pool = vm.pool;
  const std::string zone = vm.zone;
  if (vm.registered) {
    Flush();  // the VM's record (STOPPING) is durable before its Node goes
    Status s = sink_.DeleteNode(name);
    if (!s.ok() && s.code() != StatusCode::kNotFound && options_.logger != nullptr) {
      options_.logger->Warning("Failed to delete node", {{"node", name}, {"err", s.ToString()}});
    }
  }
  Pool* p = FindPool(pool);
  if (p != nullptr) {
    Settle(*p, name, /*failed=*/false);
  }
  Erase(name);
  Notify(CloudEventKind::kInstanceDeleted, pool, zone, name);
  p = FindPool(pool);
  if (p != nullptr && p->deleting && p->instances.empty()) {
    pools_.erase(pool);
    TouchPool(pool);
    Notify(CloudEventKind::kNodePoolDeleted, pool, "", "");
  }
}

// ---- Nodes --------------------------------------------------------------------------------------

void EmulatedCloud::AddGkeNodeLabels(api::Labels& l, std::string_view node, std::string_view zone,
                                     const MachineType& machine, std::string_view pool, bool spot,
                                     std::string_view accelerator_type) {
  const std::string region = RegionOf(zone);
  l[std::string(api::kLabelHostname)] = node;
  l["kubernetes.io/arch"] = "amd64";
  l["kubernetes.io/os"] = "linux";
  l["beta.kubernetes.io/arch"] = "amd64";
  l["beta.kubernetes.io/os"] = "linux";
  l[std::string(kLabelInstanceType)] = machine.name;
  l["beta.kubernetes.io/instance-type"] = machine.name;
  l[std::string(kLabelZone)] = zone;
  l[std::string(kLabelRegion)] = region;
  l["failure-domain.beta.kubernetes.io/zone"] = zone;
  l["failure-domain.beta.kubernetes.io/region"] = region;
  l["topology.gke.io/zone"] = zone;
  l[std::string(kLabelGkeNodePool)] = pool;
  l[std::string(kLabelMachineFamily)] = machine.family;
  l["cloud.google.com/gke-os-distribution"] = "cos";
  l["cloud.google.com/gke-container-runtime"] = "containerd";
  l["cloud.google.com/gke-boot-disk"] = "pd-balanced";
  l["cloud.google.com/gke-max-pods-per-node"] = std::to_string(kDefaultMaxPodsPerNode);
  l[std::string(kLabelGkeProvisioning)] = spot ? "spot" : "standard";
  if (spot) l[std::string(kLabelGkeSpot)] = "true";
  if (!accelerator_type.empty()) l[std::string(kLabelGkeAccelerator)] = accelerator_type;
}

void EmulatedCloud::AddGpuSharingLabels(api::Labels& l, const Accelerator& accelerator) {
  if (accelerator.sharing.empty()) return;
  l[std::string(kLabelGpuSharingStrategy)] = accelerator.sharing == "MPS" ? "mps" : "time-sharing";
  l[std::string(kLabelMaxSharedClientsPerGpu)] = std::to_string(accelerator.max_shared_clients);
}

void EmulatedCloud::AddGpuFeatureLabels(api::Labels& l, const Catalog& catalog,
                                        const Accelerator& accelerator) {
  const AcceleratorType* type = catalog.FindAcceleratorType(accelerator.type);
  l[std::string(kLabelGpuPresent)] = "true";
  l[std::string(kLabelGpuProduct)] = type != nullptr ? type->product : accelerator.type;
  l[std::string(kLabelGpuCount)] = std::to_string(accelerator.count);
}

api::Node EmulatedCloud::BuildTemplateNode(const NodeStyle& style, const Catalog& catalog,
                                           const TemplateSpec& spec, TimePoint now) {
  api::Node node;
  node.meta.name = spec.name;
  node.meta.creation_timestamp = now;
  // The pool's labels first; the cloud's and the kubelet's own labels win.
  api::Labels& l = node.meta.labels;
  l = spec.labels;
  style.AddNodeLabels(l, {spec.name, spec.zone, spec.pool, spec.machine, spec.spot,
                          spec.gpus.has_value() ? std::string_view(spec.gpus->type) : ""});
  if (spec.gpus.has_value()) {
    AddGpuSharingLabels(l, *spec.gpus);
    AddGpuFeatureLabels(l, catalog, *spec.gpus);
  }
  node.spec.taints = spec.taints;
  if (spec.gpus.has_value() && style.TaintsGpuPools()) {
    // GKE's automatic taint on GPU pools, unless given.
    api::Taint gpu{std::string(kTaintGpuKey), std::string(kTaintGpuValue),
                   api::TaintEffect::kNoSchedule, std::nullopt};
    if (std::none_of(node.spec.taints.begin(), node.spec.taints.end(),
                     [&](const api::Taint& t) { return t.MatchTaint(gpu); })) {
      node.spec.taints.push_back(std::move(gpu));
    }
  }
  const int64_t disk = spec.disk_gb > 0 ? spec.disk_gb : style.DefaultDiskGb();
  node.status.capacity = style.Capacity(*spec.machine, spec.gpus, disk);
  node.status.allocatable = style.Allocatable(*spec.machine, spec.gpus, disk);
  node.status.conditions = KubeletConditions(/*ready=*/true, now, now, now);
  return node;
}

api::Node EmulatedCloud::BuildNode(const Pool& pool, const std::string& name,
                                   const std::string& zone, NodeStage stage,
                                   TimePoint registered_at, TimePoint ready_at) const {
  const MachineType& machine = *pool.machine;
  const bool is_template = name.rfind("template-node-for-", 0) == 0;
  api::Node node;
  node.meta.name = name;
  node.meta.creation_timestamp = registered_at;

  // The pool's labels first; GKE's and the kubelet's own labels win.
  api::Labels& l = node.meta.labels;
  l = pool.spec.labels;
  style().AddNodeLabels(
      l, {name, zone, pool.spec.name, &machine, pool.spec.spot,
          pool.accelerator.has_value() ? std::string_view(pool.accelerator->type) : ""});
  if (pool.accelerator.has_value()) AddGpuSharingLabels(l, *pool.accelerator);
  const bool gpu_up = stage == NodeStage::kGpuReady && pool.accelerator.has_value();
  if (gpu_up) AddGpuFeatureLabels(l, options_.catalog, *pool.accelerator);
  if (options_.gpu_operator_labels && pool.accelerator.has_value() && !is_template) {
    l["nvidia.com/gpu.deploy.device-plugin"] = "true";
  }

  node.spec.taints = pool.spec.taints;
  if (auto vm = vms_.find(name); !is_template && vm != vms_.end()) {
    node.spec.provider_id = vm->second.provider_id;
  }

  const std::optional<Accelerator> gpus = gpu_up ? pool.accelerator : std::nullopt;
  node.status.capacity = style().Capacity(machine, gpus, pool.spec.disk_size_gb);
  node.status.allocatable = style().Allocatable(machine, gpus, pool.spec.disk_size_gb);
  if (!gpu_up && pool.accelerator.has_value() &&
      options_.gpu_before_driver == GpuResourceBeforeDriver::kZeroAllocatable) {
    node.status.capacity[std::string(api::kResourceNvidiaGpu)] =
        api::Quantity::FromInt(pool.accelerator->Advertised(), api::QuantityFormat::kDecimalSI);
    node.status.allocatable[std::string(api::kResourceNvidiaGpu)] = api::Quantity();
  }

  const bool ready = stage != NodeStage::kRegistered;
  node.status.conditions =
      KubeletConditions(ready, Now(), registered_at, ready ? ready_at : registered_at);
  return node;
}

void EmulatedCloud::Publish(Vm& vm, NodeStage stage) {
  const Pool* p = FindPool(vm.pool);
  if (p == nullptr) {
    return;
  }
  Flush();  // the cloud's records are durable before the Node they explain
  Status s =
      sink_.UpsertNode(BuildNode(*p, vm.name, vm.zone, stage, vm.registered_at, vm.ready_at));
  if (!s.ok() && options_.logger != nullptr) {
    options_.logger->Warning("Failed to publish node", {{"node", vm.name}, {"err", s.ToString()}});
  }
}

// ---- Node pool status ---------------------------------------------------------------------------

void EmulatedCloud::BeginOperation(Pool& pool, NodePoolStatus during,
                                   const std::vector<std::string>& names) {
  TouchPool(pool.spec.name);
  if (names.empty()) {
    if (pool.settling.empty() && pool.status == NodePoolStatus::kProvisioning) {
      SetStatus(pool, NodePoolStatus::kRunning);
    }
    return;
  }
  if (pool.settling.empty()) {
    pool.op_total = 0;
    pool.op_failed = 0;
  }
  for (const std::string& n : names) {
    if (pool.settling.insert(n).second) {
      ++pool.op_total;
    }
  }
  if (pool.status != NodePoolStatus::kProvisioning) {
    SetStatus(pool, during);
  }
}

void EmulatedCloud::Settle(Pool& pool, const std::string& name, bool failed) {
  if (pool.settling.erase(name) == 0) {
    return;
  }
  TouchPool(pool.spec.name);
  if (failed) {
    ++pool.op_failed;
  }
  if (pool.settling.empty() && (pool.status == NodePoolStatus::kProvisioning ||
                                pool.status == NodePoolStatus::kReconciling)) {
    SetStatus(pool, pool.op_total > 0 && pool.op_failed == pool.op_total
                        ? NodePoolStatus::kError
                        : NodePoolStatus::kRunning);
  }
}

void EmulatedCloud::SetStatus(Pool& pool, NodePoolStatus status) {
  if (pool.status == status) {
    return;
  }
  pool.status = status;
  TouchPool(pool.spec.name);
  Notify(CloudEventKind::kNodePoolStatusChanged, pool.spec.name, "", "",
         std::string(NodePoolStatusName(status)));
}

void EmulatedCloud::Notify(CloudEventKind kind, const std::string& pool, const std::string& zone,
                           const std::string& instance, std::string detail) {
  CloudEvent e{Now(), kind, pool, zone, instance, std::move(detail)};
  if (options_.logger != nullptr && options_.logger->Enabled(2)) {
    options_.logger->V(2, "Emulated cloud event",
                       {{"event", std::string(CloudEventKindName(kind))},
                        {"nodePool", pool},
                        {"instance", instance},
                        {"detail", e.detail}});
  }
  const std::vector<CloudObserver*> observers = observers_;  // an observer may remove itself
  for (CloudObserver* o : observers) {
    o->OnCloudEvent(e);
  }
}

}  // namespace tidepool::cloud::emulated
