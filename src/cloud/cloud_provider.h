// File: cloud_provider.h
//
// The autoscaler's view of a cloud, shaped like the Cluster Autoscaler's CloudProvider /
// NodeGroup (cloudprovider/cloud_provider.go), with the optional capabilities split out into
// their own small interfaces instead of methods that return "not implemented".
//
// Implementations: cloud/emulated (the emulated GPU cloud of `tidepool up` and `simulate`) and,
// later, cloud/gke (the live GKE provider of `tidepool autoscale`).
//
// Threading: the autoscaler calls these from its one control-loop thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "api/pod.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::cloud {

enum class InstanceState { kCreating, kRunning, kDeleting };

// Why an instance failed to come up (cloudprovider.InstanceErrorInfo).
struct InstanceErrorInfo {
  enum class Class { kOutOfResources, kOther };
  Class error_class = Class::kOther;
  std::string error_code;     // e.g. "ZONE_RESOURCE_POOL_EXHAUSTED", "QUOTA_EXCEEDED"
  std::string error_message;  // the cloud's own text
};

struct Instance {
  // The provider id, as the Node's spec.providerID will be: "gce://<project>/<zone>/<name>".
  std::string id;
  InstanceState state = InstanceState::kCreating;
  std::optional<InstanceErrorInfo> error;
};

// What a GPU node offers (cloudprovider.GpuConfig).
struct GpuConfig {
  std::string label;          // the node label that carries the type
  std::string type;           // e.g. "nvidia-tesla-t4"
  std::string resource_name;  // "nvidia.com/gpu"
};

class NodeGroup {
 public:
  virtual ~NodeGroup() = default;

  // A stable, unique id, e.g. "gpu-pool". Implementation required.
  virtual std::string Id() const = 0;
  virtual int MinSize() const = 0;
  virtual int MaxSize() const = 0;
  // The number of instances the cloud is asked to keep, registered or not. Implementation
  // required.
  virtual StatusOr<int> TargetSize() const = 0;
  // Asks for `delta` more instances (delta > 0). Fails without change if the new size would
  // exceed MaxSize or the cloud refuses at once (e.g. quota). A stockout is usually known only
  // later, through Instance::error. Implementation required.
  virtual Status IncreaseSize(int delta) = 0;
  // Deletes the given registered nodes (by name) and lowers the target accordingly; refuses to
  // go below MinSize. Implementation required.
  virtual Status DeleteNodes(const std::vector<std::string>& node_names) = 0;
  // Lowers the target by `delta` (delta < 0) without deleting registered nodes: only capacity
  // that has not registered yet is given up. Implementation required.
  virtual Status DecreaseTargetSize(int delta) = 0;
  // The group's instances, including those still creating or failed. Implementation required.
  virtual StatusOr<std::vector<Instance>> Nodes() const = 0;
  // A value that changes whenever Nodes() may answer differently, so a caller may keep what it
  // made of the last answer; 0 (the default): unknown, ask Nodes() every time.
  virtual uint64_t NodesVersion() const { return 0; }
  // A node as a new instance of this group would register once fully ready — capacity,
  // allocatable (GPUs included), labels, taints — for scaling from zero. Implementation
  // required.
  virtual StatusOr<api::Node> TemplateNode() const = 0;
  // One line for logs. Implementation required.
  virtual std::string Debug() const = 0;
};

// CA's GetNodeGPUFromCloudProvider for providers whose GPU type is a node label: the label's
// value; a node with nvidia.com/gpu allocatable but no label has an empty type; nullopt for a
// node without either.
inline std::optional<GpuConfig> NodeGpuConfigByLabel(const api::Node& node,
                                                     std::string_view gpu_label) {
  const std::string label(gpu_label);
  if (auto it = node.meta.labels.find(label); it != node.meta.labels.end()) {
    return GpuConfig{label, it->second, std::string(api::kResourceNvidiaGpu)};
  }
  if (api::Get(node.status.allocatable, api::kResourceNvidiaGpu).Sign() > 0) {
    return GpuConfig{label, "", std::string(api::kResourceNvidiaGpu)};
  }
  return std::nullopt;
}

// Optional capability: prices (cloudprovider.PricingModel).
class PricingModel {
 public:
  virtual ~PricingModel() = default;
  // The price, in dollars, of running `node` from `start` to `end`.
  virtual StatusOr<double> NodePrice(const api::Node& node, TimePoint start,
                                     TimePoint end) const = 0;
  // The price, in dollars, of the resources `pod` requests from `start` to `end` (CA's price
  // expander weighs node prices against it); Unimplemented unless a model offers it.
  virtual StatusOr<double> PodPrice(const api::Pod& /*pod*/, TimePoint /*start*/,
                                    TimePoint /*end*/) const {
    return UnimplementedError("this pricing model offers no pod prices");
  }
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;

  virtual std::string_view Name() const = 0;
  // The autoscaled groups, sorted by Id.
  virtual std::vector<NodeGroup*> NodeGroups() = 0;
  // The group a node belongs to; nullptr for nodes the autoscaler must not touch.
  virtual NodeGroup* NodeGroupForNode(const api::Node& node) = 0;
  // The label that names a node's GPU type (e.g. "cloud.google.com/gke-accelerator").
  virtual std::string GpuLabel() const = 0;
  // The GPU a node has or will have once its driver is up; nullopt for CPU nodes.
  virtual std::optional<GpuConfig> GetNodeGpuConfig(const api::Node& node) const = 0;
  // The GPU types (values of GpuLabel()) the cloud offers, sorted (CA's GetAvailableGPUTypes);
  // empty when the provider does not know them.
  virtual std::vector<std::string> AvailableGpuTypes() const { return {}; }
  // Prices, or nullptr when the cloud does not offer them.
  virtual const PricingModel* Pricing() const { return nullptr; }
  // Refreshes cached cloud state at the start of a loop.
  virtual Status Refresh() = 0;
};

}  // namespace tidepool::cloud
