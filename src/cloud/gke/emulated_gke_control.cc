// File: emulated_gke_control.cc
#include "cloud/gke/emulated_gke_control.h"

#include <map>
#include <optional>
#include <utility>

namespace tidepool::cloud::gke {

namespace emu = cloud::emulated;

StatusOr<emu::MachineType> FindMachineType(const emu::Catalog& catalog, const std::string& zone,
                                           const std::string& name) {
  const emu::MachineType* m = catalog.FindMachineType(name);
  if (m == nullptr || !catalog.OfferedIn(name, zone)) {
    return NotFoundError("machine type " + name + " is not offered in " + zone);
  }
  return *m;
}

EmulatedGkeControl::EmulatedGkeControl(emu::EmulatedCloud& cloud, ClusterInfo cluster)
    : cloud_(cloud), cluster_(std::move(cluster)) {}

std::vector<emu::NodePoolInfo> EmulatedGkeControl::ListNodePools() {
  return cloud_.ListNodePools();
}

StatusOr<emu::NodePoolInfo> EmulatedGkeControl::GetNodePool(const std::string& name) {
  return cloud_.GetNodePool(name);
}

Status EmulatedGkeControl::CreateNodePool(emu::NodePoolSpec spec) {
  return cloud_.CreateNodePool(std::move(spec));
}

Status EmulatedGkeControl::DeleteNodePool(const std::string& name) {
  return cloud_.DeleteNodePool(name);
}

Status EmulatedGkeControl::SetAutoscaling(const std::string& name, bool enabled, int min_nodes,
                                          int max_nodes) {
  return cloud_.SetAutoscaling(name, enabled, min_nodes, max_nodes);
}

Status EmulatedGkeControl::SetSize(const std::string& name, int node_count) {
  return cloud_.SetSize(name, node_count);
}

Status EmulatedGkeControl::SetLabels(const std::string& name, const api::Labels& labels) {
  return cloud_.SetNodeConfig(name, labels, std::nullopt);
}

Status EmulatedGkeControl::SetTaints(const std::string& name,
                                     const std::vector<api::Taint>& taints) {
  return cloud_.SetNodeConfig(name, std::nullopt, taints);
}

std::vector<VmInfo> EmulatedGkeControl::ListVms() {
  std::map<std::string, std::optional<emu::Accelerator>> accel;
  for (const emu::NodePoolInfo& p : cloud_.ListNodePools()) accel[p.spec.name] = p.accelerator;
  std::vector<VmInfo> out;
  for (const emu::InstanceInfo& i : cloud_.ListInstances()) {
    VmInfo v;
    v.instance = i;
    if (auto it = accel.find(i.node_pool); it != accel.end()) v.accelerator = it->second;
    out.push_back(std::move(v));
  }
  return out;
}

Status EmulatedGkeControl::DeleteInstances(const std::string& pool,
                                           const std::vector<std::string>& names) {
  return cloud_.DeleteNodes(pool, names);
}

StatusOr<emu::MachineType> EmulatedGkeControl::GetMachineType(const std::string& zone,
                                                              const std::string& name) {
  return FindMachineType(cloud_.catalog(), zone, name);
}

}  // namespace tidepool::cloud::gke
