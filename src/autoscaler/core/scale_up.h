// File: scale_up.h
//
// The scale-up orchestrator (CA's core/scaleup/orchestrator/orchestrator.go): for pods that fit
// no existing or upcoming node, find which node groups could take them, estimate how many nodes
// each would need, let the expander choose, cap by the limits, and ask the cloud. Texts of logs
// and events are CA's.
//
//   skip reasons          "in backoff after failed scale-up", "not ready for scale-up",
//                         "max node group size reached", "max cluster <resource> limit reached"
//   predicate errors      the scheduler's own reasons on the group's template node
//   TriggeredScaleUp      "pod triggered scale-up: [{gpu-pool 0->1 (max: 5)}]"
//   NotTriggerScaleUp     "pod didn't trigger scale-up: 1 max node group size reached, ..."
//                         (CA prints the reasons in map order; tidepool sorts them)
//   log                   "Best option to resize: gpu-pool", "Estimated 1 nodes needed in
//                         gpu-pool", "Final scale-up plan: [{gpu-pool 0->1 (max: 5)}]",
//                         "Scale-up: setting group gpu-pool size to 1 instead of 0 (max: 5)"
#pragma once

#include <map>
#include <string>
#include <vector>

#include "autoscaler/estimator/binpacking_estimator.h"
#include "autoscaler/events.h"
#include "autoscaler/expander/expander.h"
#include "autoscaler/options.h"
#include "cloud/cloud_provider.h"
#include "common/log.h"

namespace tidepool::autoscaler {

struct ScaleUpInfo {
  std::string group;
  int current_size = 0;
  int new_size = 0;
  int max_size = 0;
};
// CA prints []ScaleUpInfo with %v: "[{gpu-pool 0->1 (max: 5)}]".
std::string FormatScaleUpInfos(const std::vector<ScaleUpInfo>& infos);

// Cluster-wide resource totals, as CA counts them for --cores-total, --memory-total and
// --gpu-total (node capacity; GPUs keyed by the GPU type label).
struct ClusterResources {
  int64_t cores = 0;
  int64_t memory_bytes = 0;
  std::map<std::string, int64_t> gpus_by_type;
};

struct ScaleUpContext {
  // Groups the cluster state says must not scale up now, with CA's reason.
  std::map<std::string, std::string> skipped_groups;
  // The node a new node of each group would be (a real ready node of the group when there is
  // one, else the cloud's template). Groups without one are "not ready for scale-up".
  std::map<std::string, api::Node> templates;
  // The pods a fresh node of each group runs from the start (simulator/daemonset_pods.h): they
  // are on every template copy scale-up adds to the snapshot.
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> template_pods;
  // Nodes in the cluster, registered and upcoming (for --max-nodes-total).
  int total_nodes = 0;
  ClusterResources resources;
};

struct ScaleUpResult {
  enum class Kind { kNotNeeded, kSuccessful, kNoOptionsAvailable, kError };
  Kind kind = Kind::kNotNeeded;
  std::vector<ScaleUpInfo> infos;
  std::vector<scheduler::PodInfoConstSharedPtr> pods_triggered;
  std::vector<scheduler::PodInfoConstSharedPtr> pods_remain_unschedulable;
  // For each pod that remained: "<count> <reason>, ..." over the node groups considered,
  // sorted; empty when no group gave a reason.
  std::map<std::string, std::string> reasons_by_pod;
  // kError: the group whose IncreaseSize the cloud refused, and why.
  std::string failed_group;
  Status error;
};

class ScaleUpOrchestrator {
 public:
  // Every reference must outlive the orchestrator.
  ScaleUpOrchestrator(const AutoscalingOptions& options, cloud::CloudProvider& cloud,
                      const scheduler::Framework& framework, expander::Strategy& expander,
                      EventRecorder& recorder, log::Logger& logger);

  // `pending`: pods no existing or upcoming node can take. `snapshot` holds the cluster (real
  // and upcoming nodes); it is forked and reverted. Emits the events and log lines.
  ScaleUpResult ScaleUp(TimePoint now, const std::vector<scheduler::PodInfoConstSharedPtr>& pending,
                        scheduler::ClusterSnapshot& snapshot, const ScaleUpContext& context);

 private:
  // How many nodes of `template_node` the cluster-wide limits still allow; empty reason if at
  // least one.
  int AllowedByResourceLimits(const api::Node& template_node, const ClusterResources& usage,
                              std::string& reason) const;
  void EmitEvents(const ScaleUpResult& result);

  const AutoscalingOptions& options_;
  cloud::CloudProvider& cloud_;
  const scheduler::Framework& framework_;
  expander::Strategy& expander_;
  EventRecorder& recorder_;
  log::Logger& log_;
  BinpackingEstimator estimator_;
};

ObjectRef RefOf(const api::Pod& pod);
ObjectRef RefOf(const scheduler::PodInfo& pod);

}  // namespace tidepool::autoscaler
