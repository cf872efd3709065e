// File: emulated_gke_control.h
//
// EmulatedGkeControl: GkeControl straight on an EmulatedCloud, for single-threaded use (tests,
// and anything else that owns the cloud's thread). `tidepool up` uses runtime/gke_control.h
// instead, which runs the same calls on the cloud's thread.
//
// Threading: not thread-safe (the EmulatedCloud is not); GkeApi's mutex serializes Handle().
#pragma once

#include <string>
#include <vector>

#include "cloud/gke/gke_api.h"

namespace tidepool::cloud::gke {

class EmulatedGkeControl : public GkeControl {
 public:
  // `cloud` must outlive this. `cluster`'s project, name and zone should be the cloud's.
  EmulatedGkeControl(cloud::emulated::EmulatedCloud& cloud, ClusterInfo cluster);

  ClusterInfo Cluster() override { return cluster_; }
  std::vector<cloud::emulated::NodePoolInfo> ListNodePools() override;
  StatusOr<cloud::emulated::NodePoolInfo> GetNodePool(const std::string& name) override;
  Status CreateNodePool(cloud::emulated::NodePoolSpec spec) override;
  Status DeleteNodePool(const std::string& name) override;
  Status SetAutoscaling(const std::string& name, bool enabled, int min_nodes,
                        int max_nodes) override;
  Status SetSize(const std::string& name, int node_count) override;
  Status SetLabels(const std::string& name, const api::Labels& labels) override;
  Status SetTaints(const std::string& name, const std::vector<api::Taint>& taints) override;
  // Accelerators from the pools; no internal IPs.
  std::vector<VmInfo> ListVms() override;
  Status DeleteInstances(const std::string& pool, const std::vector<std::string>& names) override;
  StatusOr<cloud::emulated::MachineType> GetMachineType(const std::string& zone,
                                                        const std::string& name) override;

 protected:
  cloud::emulated::EmulatedCloud& cloud() { return cloud_; }

 private:
  cloud::emulated::EmulatedCloud& cloud_;
  const ClusterInfo cluster_;
};

// The machine type `name` if the catalog offers it in `zone`; NotFound otherwise. Shared by the
// GkeControl implementations.
StatusOr<cloud::emulated::MachineType> FindMachineType(const cloud::emulated::Catalog& catalog,
                                                       const std::string& zone,
                                                       const std::string& name);

}  // namespace tidepool::cloud::gke
