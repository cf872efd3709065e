// File: gke_control.cc
#include "runtime/gke_control.h"

#include "cloud/gke/emulated_gke_control.h"

#include <map>
#include <optional>
#include <utility>

namespace tidepool::runtime {

namespace emu = cloud::emulated;

QueuedGkeControl::QueuedGkeControl(emu::EmulatedCloud& cloud, QueueExecutor& executor,
                                   cloud::gke::ClusterInfo cluster,
                                   std::function<std::string(const std::string&)> node_ip)
    : cloud_(cloud),
      executor_(executor),
      cluster_(std::move(cluster)),
      node_ip_(std::move(node_ip)) {}

std::vector<emu::NodePoolInfo> QueuedGkeControl::ListNodePools() {
  std::vector<emu::NodePoolInfo> out;
  executor_.Run([&] { out = cloud_.ListNodePools(); });
  return out;
}

StatusOr<emu::NodePoolInfo> QueuedGkeControl::GetNodePool(const std::string& name) {
  std::optional<StatusOr<emu::NodePoolInfo>> out;
  executor_.Run([&] { out.emplace(cloud_.GetNodePool(name)); });
  return std::move(*out);
}

Status QueuedGkeControl::CreateNodePool(emu::NodePoolSpec spec) {
  Status s;
  executor_.Run([&] { s = cloud_.CreateNodePool(std::move(spec)); });
  return s;
}

Status QueuedGkeControl::DeleteNodePool(const std::string& name) {
  Status s;
  executor_.Run([&] { s = cloud_.DeleteNodePool(name); });
  return s;
}

Status QueuedGkeControl::SetAutoscaling(const std::string& name, bool enabled, int min_nodes,
                                        int max_nodes) {
  Status s;
  executor_.Run([&] { s = cloud_.SetAutoscaling(name, enabled, min_nodes, max_nodes); });
  return s;
}

Status QueuedGkeControl::SetSize(const std::string& name, int node_count) {
  Status s;
  executor_.Run([&] { s = cloud_.SetSize(name, node_count); });
  return s;
}

Status QueuedGkeControl::SetLabels(const std::string& name, const api::Labels& labels) {
  Status s;
  executor_.Run([&] { s = cloud_.SetNodeConfig(name, labels, std::nullopt); });
  return s;
}

Status QueuedGkeControl::SetTaints(const std::string& name, const std::vector<api::Taint>& taints) {
  Status s;
  executor_.Run([&] { s = cloud_.SetNodeConfig(name, std::nullopt, taints); });
  return s;
}

std::vector<cloud::gke::VmInfo> QueuedGkeControl::ListVms() {
  std::vector<cloud::gke::VmInfo> out;
  executor_.Run([&] {
    std::map<std::string, std::optional<emu::Accelerator>> accel;
    for (const emu::NodePoolInfo& p : cloud_.ListNodePools()) {
      accel[p.spec.name] = p.accelerator;
    }
    for (const emu::InstanceInfo& i : cloud_.ListInstances()) {
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

Status QueuedGkeControl::DeleteInstances(const std::string& pool,
                                         const std::vector<std::string>& names) {
  Status s;
  executor_.Run([&] { s = cloud_.DeleteNodes(pool, names); });
  return s;
}

StatusOr<emu::MachineType> QueuedGkeControl::GetMachineType(const std::string& zone,
                                                            const std::string& name) {
  std::optional<StatusOr<emu::MachineType>> out;
  executor_.Run([&] { out.emplace(cloud::gke::FindMachineType(cloud_.catalog(), zone, name)); });
  return std::move(*out);
}

}  // namespace tidepool::runtime
