// File: gke_control.cc
#include "runtime/gke_control.h"

#include "cloud/gke/emulated_gke_control.h"

#include <map>
#include <optional>
#include <utility>

namespace tidepool::runtime {

namespace emu = cloud::emulated;

WorldGkeControl::WorldGkeControl(sim::World& world, WorldExecutor& executor,
                                 cloud::gke::ClusterInfo cluster,
                                 std::function<std::string(const std::string&)> node_ip)
    : world_(world), executor_(executor), cluster_(std::move(cluster)),
      node_ip_(std::move(node_ip)) {}

std::vector<emu::NodePoolInfo> WorldGkeControl::ListNodePools() {
  std::vector<emu::NodePoolInfo> out;
  executor_.Run([&] { out = world_.cloud().ListNodePools(); });
  return out;
}

StatusOr<emu::NodePoolInfo> WorldGkeControl::GetNodePool(const std::string& name) {
  std::optional<StatusOr<emu::NodePoolInfo>> out;
  executor_.Run([&] { out.emplace(world_.cloud().GetNodePool(name)); });
  return std::move(*out);
}

Status WorldGkeControl::CreateNodePool(emu::NodePoolSpec spec) {
  Status s;
  executor_.Run([&] { s = world_.CreateNodePool(std::move(spec)); });
  return s;
}

Status WorldGkeControl::DeleteNodePool(const std::string& name) {
  Status s;
  executor_.Run([&] { s = world_.DeleteNodePool(name); });
  return s;
}

Status WorldGkeControl::SetAutoscaling(const std::string& name, bool enabled, int min_nodes,
                                       int max_nodes) {
  Status s;
  executor_.Run([&] { s = world_.SetNodePoolAutoscaling(name, enabled, min_nodes, max_nodes); });
  return s;
}

Status WorldGkeControl::SetSize(const std::string& name, int node_count) {
  Status s;
  executor_.Run([&] { s = world_.ResizeNodePool(name, node_count); });
  return s;
}

Status WorldGkeControl::SetLabels(const std::string& name, const api::Labels& labels) {
  Status s;
  executor_.Run([&] { s = world_.cloud().SetNodeConfig(name, labels, std::nullopt); });
  return s;
}

Status WorldGkeControl::SetTaints(const std::string& name, const std::vector<api::Taint>& taints) {
  Status s;
  executor_.Run([&] { s = world_.cloud().SetNodeConfig(name, std::nullopt, taints); });
  return s;
}

std::vector<cloud::gke::VmInfo> WorldGkeControl::ListVms() {
  std::vector<cloud::gke::VmInfo> out;
  executor_.Run([&] {
    std::map<std::string, std::optional<emu::Accelerator>> accel;
    for (const emu::NodePoolInfo& p : world_.cloud().ListNodePools()) {
      accel[p.spec.name] = p.accelerator;
    }
    for (const emu::InstanceInfo& i : world_.cloud().ListInstances()) {
      cloud::gke::VmInfo v;
      v.instance = i;
      if (auto it = accel.find(i.node_pool); it != accel.end()) v.accelerator = it->second;
      out.push_back(std::move(v));
    }
  });
  if (node_ip_) {
    for (auto& v : out) v.internal_ip = node_ip_(v.instance.name);
  }
  return out;
}

Status WorldGkeControl::DeleteInstances(const std::string& pool,
                                        const std::vector<std::string>& names) {
  Status s;
  executor_.Run([&] { s = world_.cloud().DeleteNodes(pool, names); });
  return s;
}

StatusOr<emu::MachineType> WorldGkeControl::GetMachineType(const std::string& zone,
                                                           const std::string& name) {
  std::optional<StatusOr<emu::MachineType>> out;
  executor_.Run(
      [&] { out.emplace(cloud::gke::FindMachineType(world_.cloud().catalog(), zone, name)); });
  return std::move(*out);
}

}  // namespace tidepool::runtime
