// EmulatedNodeGroup and EmulatedCloudProvider: thin adapters from cluster-autoscaler's
// CloudProvider / NodeGroup shape to EmulatedCloud's node pool operations.
#include <chrono>
#include <cmath>

#include "cloud/emulated/emulated_cloud.h"

namespace tidepool::cloud::emulated {

// ---- EmulatedNodeGroup --------------------------------------------------------------------------

EmulatedNodeGroup::EmulatedNodeGroup(EmulatedCloud& cloud, std::string pool)
    : cloud_(cloud), pool_(std::move(pool)) {}

int EmulatedNodeGroup::MinSize() const {
  StatusOr<NodePoolInfo> info = cloud_.GetNodePoolConfig(pool_);
  return info.ok() ? info->spec.min_nodes : 0;
}

int EmulatedNodeGroup::MaxSize() const {
  StatusOr<NodePoolInfo> info = cloud_.GetNodePoolConfig(pool_);
  return info.ok() ? info->spec.max_nodes : 0;
}

StatusOr<int> EmulatedNodeGroup::TargetSize() const { return cloud_.TargetSize(pool_); }

Status EmulatedNodeGroup::IncreaseSize(int delta) { return cloud_.IncreaseSize(pool_, delta); }

Status EmulatedNodeGroup::DeleteNodes(const std::vector<std::string>& node_names) {
  return cloud_.DeleteNodes(pool_, node_names);
}

Status EmulatedNodeGroup::DecreaseTargetSize(int delta) {
  return cloud_.DecreaseTargetSize(pool_, delta);
}

StatusOr<std::vector<Instance>> EmulatedNodeGroup::Nodes() const { return cloud_.Instances(pool_); }

std::string EmulatedNodeGroup::Id() const {
  StatusOr<NodePoolInfo> info = cloud_.GetNodePoolConfig(pool_);
  return info.ok() && !info->spec.group_id.empty() ? info->spec.group_id : pool_;
}

uint64_t EmulatedNodeGroup::NodesVersion() const { return cloud_.InstancesVersion(); }

StatusOr<api::Node> EmulatedNodeGroup::TemplateNode() const { return cloud_.TemplateNode(pool_); }

std::string EmulatedNodeGroup::Debug() const {
  return Id() + " (" + std::to_string(MinSize()) + ":" + std::to_string(MaxSize()) + ")";
}

// ---- EmulatedCloudProvider ----------------------------------------------------------------------

EmulatedCloudProvider::EmulatedCloudProvider(EmulatedCloud& cloud) : cloud_(cloud) {}

std::string_view EmulatedCloudProvider::Name() const {
  return cloud_.options().style->ProviderName();
}

std::string EmulatedCloudProvider::GpuLabel() const {
  return std::string(cloud_.options().style->GpuLabel());
}

EmulatedNodeGroup* EmulatedCloudProvider::GroupFor(const std::string& pool) {
  auto it = groups_.find(pool);
  if (it == groups_.end()) {
    it = groups_.emplace(pool, std::make_unique<EmulatedNodeGroup>(cloud_, pool)).first;
  }
  return it->second.get();
}

std::vector<NodeGroup*> EmulatedCloudProvider::NodeGroups() {
  std::vector<NodeGroup*> out;
  for (const std::string& pool : cloud_.AutoscaledNodePools()) {  // sorted
    out.push_back(GroupFor(pool));
  }
  return out;
}

NodeGroup* EmulatedCloudProvider::NodeGroupForNode(const api::Node& node) {
  // The pool label, as GKE (EKS) sets it; else the instance behind the provider id (a node CA
  // builds for an instance with no registered node has only that).
  std::string pool;
  auto label = node.meta.labels.find(std::string(cloud_.options().style->PoolLabel()));
  if (label != node.meta.labels.end()) {
    pool = label->second;
  } else if (node.spec.provider_id.empty()) {
    return nullptr;
  } else if (std::optional<std::string> of = cloud_.PoolOfInstance(node.spec.provider_id)) {
    pool = *of;
  } else {
    return nullptr;
  }
  StatusOr<NodePoolInfo> info = cloud_.GetNodePoolConfig(pool);
  if (!info.ok() || !info->spec.autoscaling || info->status == NodePoolStatus::kStopping) {
    return nullptr;
  }
  return GroupFor(pool);
}

std::optional<GpuConfig> EmulatedCloudProvider::GetNodeGpuConfig(const api::Node& node) const {
  return NodeGpuConfigByLabel(node, GpuLabel());
}

std::vector<std::string> EmulatedCloudProvider::AvailableGpuTypes() const {
  return cloud_.catalog().AcceleratorTypeNames();
}

StatusOr<double> EmulatedCloudProvider::NodePrice(const api::Node& node, TimePoint start,
                                                  TimePoint end) const {
  if (end < start) {
    return InvalidArgumentError("node price: end is before start");
  }
  const api::Labels& labels = node.meta.labels;
  auto machine = labels.find(std::string(kLabelInstanceType));
  if (machine == labels.end()) {
    return NotFoundError("node " + node.Name() + " has no " + std::string(kLabelInstanceType) +
                         " label");
  }
  std::optional<Accelerator> accelerator;
  // Attached GPUs are priced on their own; built-in ones are in the machine's price (and a GPU
  // label a user set on an EKS node group names no price).
  const MachineType* m = cloud_.catalog().FindMachineType(machine->second);
  if (auto type = labels.find(GpuLabel());
      type != labels.end() && m != nullptr && m->AcceptsAttachedAccelerators()) {
    accelerator = Accelerator{type->second, cloud_.NodeGpuCount(node)};
  }
  const bool is_spot = cloud_.options().style->IsSpot(labels);
  TIDEPOOL_ASSIGN_OR_RETURN(const double per_hour,
                            cloud_.catalog().HourlyPrice(machine->second, accelerator, is_spot));
  const double hours = std::chrono::duration<double>(end - start).count() / 3600.0;
  return per_hour * hours;
}

StatusOr<double> EmulatedCloudProvider::PodPrice(const api::Pod& pod, TimePoint start,
                                                 TimePoint end) const {
  if (end < start) {
    return InvalidArgumentError("pod price: end is before start");
  }
  // CA's base rates (cloudprovider/gce/gce_price_info.go: cpuPricePerHour,
  // memoryPricePerHourPerGb, gpuPricePerHour) and its getHours (minutes rounded up).
  constexpr double kCpuPerHour = 0.033174;
  constexpr double kMemoryGibPerHour = 0.004446;
  constexpr double kGpuPerHour = 0.700;
  constexpr double kGib = 1024.0 * 1024.0 * 1024.0;
  const double minutes = std::ceil(std::chrono::duration<double>(end - start).count() / 60.0);
  const double hours = minutes / 60.0;
  double price = 0;
  for (const api::Container& c : pod.spec.containers) {
    const api::ResourceList& r = c.resources.requests;
    price += static_cast<double>(api::Get(r, "cpu").MilliValue()) / 1000.0 * kCpuPerHour * hours;
    price += static_cast<double>(api::Get(r, "memory").Value()) / kGib * kMemoryGibPerHour * hours;
    price += static_cast<double>(api::Get(r, api::kResourceNvidiaGpu).MilliValue()) / 1000.0 *
             kGpuPerHour * hours;
  }
  return price;
}

}  // namespace tidepool::cloud::emulated
