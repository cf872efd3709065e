// File: gke_control.h
//
// WorldGkeControl: cloud::gke::GkeControl on `tidepool up`'s sim::World. Every call is run on
// the world's thread through the WorldExecutor (it blocks until the world ran it), so the GKE
// API's HTTP threads never touch the World directly. Node pool changes go through the World's
// gcloud actions (World::CreateNodePool / DeleteNodePool / ResizeNodePool /
// SetNodePoolAutoscaling), so the autoscaler sees them at once; reads go to world.cloud().
//
// SetLabels / SetTaints change the pool's node config in the emulated cloud, which republishes
// the registered nodes (taints replaced; labels added or overwritten, as the node merge does).
//
// Thread-safe; must not be called from the world's thread (it would wait for itself).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cloud/gke/gke_api.h"
#include "runtime/world_executor.h"
#include "sim/world.h"

namespace tidepool::runtime {

class WorldGkeControl final : public cloud::gke::GkeControl {
 public:
  // `world` and `executor` must outlive this. `cluster` is reported as is (its project, name
  // and zone should be the World's). `node_ip` gives a node's InternalIP (empty: none).
  WorldGkeControl(sim::World& world, WorldExecutor& executor, cloud::gke::ClusterInfo cluster,
                  std::function<std::string(const std::string&)> node_ip = {});

  cloud::gke::ClusterInfo Cluster() override { return cluster_; }
  std::vector<cloud::emulated::NodePoolInfo> ListNodePools() override;
  StatusOr<cloud::emulated::NodePoolInfo> GetNodePool(const std::string& name) override;
  Status CreateNodePool(cloud::emulated::NodePoolSpec spec) override;
  Status DeleteNodePool(const std::string& name) override;
  Status SetAutoscaling(const std::string& name, bool enabled, int min_nodes,
                        int max_nodes) override;
  Status SetSize(const std::string& name, int node_count) override;
  Status SetLabels(const std::string& name, const api::Labels& labels) override;
  Status SetTaints(const std::string& name, const std::vector<api::Taint>& taints) override;
  std::vector<cloud::gke::VmInfo> ListVms() override;
  // The emulated cloud's DeleteNodes (the World's autoscaler, if on, sees the VMs go).
  Status DeleteInstances(const std::string& pool, const std::vector<std::string>& names) override;
  // From the cloud's catalog (constant after construction; still read on the world's thread).
  StatusOr<cloud::emulated::MachineType> GetMachineType(const std::string& zone,
                                                        const std::string& name) override;

 private:
  sim::World& world_;
  WorldExecutor& executor_;
  const cloud::gke::ClusterInfo cluster_;
  const std::function<std::string(const std::string&)> node_ip_;
};

}  // namespace tidepool::runtime
