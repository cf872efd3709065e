// File: gke_control.h
//
// QueuedGkeControl: cloud::gke::GkeControl on `tidepool up`'s emulated cloud. Every call is run
// on the cloud's thread through the QueueExecutor (it blocks until that thread ran it), so the
// GKE API's HTTP threads never touch the cloud directly.
//
// SetLabels / SetTaints change the pool's node config in the emulated cloud, which republishes
// the registered nodes (taints replaced; labels added or overwritten, as the node merge does).
//
// Thread-safe; must not be called from the cloud's thread (it would wait for itself).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cloud/emulated/emulated_cloud.h"
#include "cloud/gke/gke_api.h"
#include "runtime/queue_executor.h"

namespace tidepool::runtime {

class QueuedGkeControl final : public cloud::gke::GkeControl {
 public:
  // `cloud` and `executor` must outlive this. `cluster` is reported as is (its project, name
  // and zone should be the cloud's). `node_ip` gives a node's InternalIP (empty: none).
  QueuedGkeControl(cloud::emulated::EmulatedCloud& cloud, QueueExecutor& executor,
                   cloud::gke::ClusterInfo cluster,
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
  // The emulated cloud's DeleteNodes.
  Status DeleteInstances(const std::string& pool, const std::vector<std::string>& names) override;
  // From the cloud's catalog (constant after construction; still read on the cloud's thread).
  StatusOr<cloud::emulated::MachineType> GetMachineType(const std::string& zone,
                                                        const std::string& name) override;

 private:
  cloud::emulated::EmulatedCloud& cloud_;
  QueueExecutor& executor_;
  const cloud::gke::ClusterInfo cluster_;
  const std::function<std::string(const std::string&)> node_ip_;
};

}  // namespace tidepool::runtime
