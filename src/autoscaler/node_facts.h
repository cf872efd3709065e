// File: node_facts.h
//
// What every control loop asks about every node — its group, its GPU and whether the GPU is
// allocatable yet, readiness, the ToBeDeleted taint, the scale-down-disabled annotation, its
// capacity — computed once per node object instead of once per loop. Nodes are immutable and
// shared: informers and the simulator hand out the same pointer for an unchanged node, so a
// node's facts are recomputed only when its pointer changes. Its group is also asked again
// whenever the provider's set of groups changes, and every loop while it has none (an
// instance the provider does not list yet may be listed by the next refresh).
//
// CA asks its cloud provider and walks each node's objects again in every loop (clusterstate,
// the scale-down planner, the resource limits); over thousands of unchanged nodes that was
// most of a quiet loop's cost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/node.h"
#include "cloud/cloud_provider.h"
#include "common/clock.h"

namespace tidepool::autoscaler {

struct NodeFacts {
  api::NodeConstSharedPtr node;
  // NodeGroupForNode's answer; nullptr for a node of no autoscaled group.
  cloud::NodeGroup* group = nullptr;
  // The provider's GPU config (GetNodeGpuConfig), and whether that resource is not allocatable
  // yet (the driver or device plugin is not up: CA's FilterOutNodesWithUnreadyResources).
  std::optional<cloud::GpuConfig> cloud_gpu;
  bool cloud_gpu_unready = false;
  // Scale-down's GPU (scaledown::NodeGpuConfig: the provider's, else any known GPU resource
  // allocatable) and scaledown::GpuNotReady for it.
  std::optional<cloud::GpuConfig> gpu;
  bool gpu_unready = false;
  bool ready = false;  // the Ready condition is True
  // lastTransitionTime of the Ready condition, when there is one with a time.
  std::optional<TimePoint> ready_since;
  bool has_to_be_deleted_taint = false;
  // The ToBeDeleted taint's value as a time (CA's GetToBeDeletedTime); nullopt when absent or
  // unparsable.
  std::optional<TimePoint> to_be_deleted_time;
  bool scale_down_disabled = false;  // cluster-autoscaler.kubernetes.io/scale-down-disabled=true
  // status.capacity's cpu (whole cores, rounded up as Quantity::Value), memory (bytes) and the
  // provider GPU's resource (0 without one).
  int64_t capacity_cores = 0;
  int64_t capacity_memory = 0;
  int64_t capacity_gpus = 0;
};

// The facts of the cluster's current nodes, kept from loop to loop.
class NodeFactsCache {
 public:
  // Brings the cache up to `nodes` (the view's nodes, any order): facts of changed or new
  // nodes are computed, those of nodes gone are dropped. Asks `cloud` for the groups of new
  // and changed nodes, of nodes without one, and of every node when NodeGroups() differs from
  // the last call's. Returns the facts in name order; valid until the next Sync.
  const std::vector<const NodeFacts*>& Sync(const std::vector<api::NodeConstSharedPtr>& nodes,
                                            cloud::CloudProvider& cloud);

  // Changes whenever a Sync changes any node's facts (a node added, changed, gone, or given
  // another group); equal values mean the very same facts of the very same node objects.
  uint64_t generation() const { return generation_; }

  // The facts of a node of the last Sync; nullptr if it had no such node.
  const NodeFacts* Find(std::string_view name) const;

  // Computes a node's facts (group included) without a cache.
  static NodeFacts Compute(const api::NodeConstSharedPtr& node, cloud::CloudProvider& cloud);

 private:
  std::unordered_map<std::string_view, NodeFacts> by_name_;  // keys view the node's own name
  std::vector<const NodeFacts*> sorted_;
  std::vector<std::pair<cloud::NodeGroup*, std::string>> groups_;  // NodeGroups() last time
  // The nodes of the last call, held so that no new object can take one's address.
  std::vector<api::NodeConstSharedPtr> last_nodes_;
  uint64_t generation_ = 0;
  size_t without_group_ = 0;  // facts whose group is nullptr, as of the last Sync
};

}  // namespace tidepool::autoscaler
