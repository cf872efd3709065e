// File: scenario.h
//
// Scenarios for `tidepool simulate`: a YAML file describing a cluster, its node pools, the
// autoscaler's flags, the emulated cloud's delays and faults, and a timeline of actions, run on
// virtual time. Every key is checked: an unknown key, a wrong type or a bad value is an
// InvalidArgument naming the file and the field, e.g.
//   "seed-walkthrough.yaml: nodePools[1].maxNodes: expected integer, got string \"five\""
//   "seed-walkthrough.yaml: autoscaler: unknown flag \"scan-intervall\""
//
// Format (every section but nodePools and runFor is optional; defaults shown):
//
//   seed: 1                            # every random draw derives from it
//   cluster:
//     project: tidepool-local
//     name: tidepool
//     zone: us-central1-a
//   autoscaler:                        # `false` turns the autoscaler off; otherwise CA's flags
//     scan-interval: 10s               #   by name (cluster-autoscaler/main.go), e.g.
//     scale-down-unneeded-time: 10m    #   expander, max-nodes-total, cores-total ("0:320000"),
//     expander: least-waste            #   memory-total, gpu-total (["nvidia-tesla-t4:0:8"]),
//     v: 0                             #   max-node-provision-time, scale-down-delay-after-add,
//                                      #   scale-down-utilization-threshold, ..., v (klog
//                                      #   verbosity), batching-window (tidepool's), enabled
//   kubelet:
//     startDelay: 5s                   # binding -> Running
//     imagePull: 4s                    # the part of it spent pulling a new image
//     termination: 2s                  # SIGTERM -> gone (capped by the grace period)
//   cloud:
//     delays: {provisioning: 35s, registration: 15s, kubeletReady: 30s, driver: 120s,
//              deletion: 30s, spotExtra: 0s}
//     gpuBeforeDriver: absent          # or zeroAllocatable
//     taintNotReady: true
//     faults:                          # each match: nodePool, zone, machineType, accelerator,
//       stockout: [{nodePool: gpu-pool, probability: 1}]   # probability (all optional)
//       stockoutDelay: 20s
//       gpuQuota: {NVIDIA_T4_GPUS: 4}
//       neverRegisters: []
//       slowBoot: [{nodePool: gpu-pool, extra: 60s}]
//       driverNeverReady: []
//   nodePools:                         # created before the scenario starts (1 h of warm-up)
//   - name: default-pool
//     machineType: e2-standard-4
//     initialNodeCount: 3
//   - name: gpu-pool                   # gcloud container node-pools create gpu-pool ...
//     machineType: n1-standard-4
//     accelerator: {type: nvidia-tesla-t4, count: 1}
//     minNodes: 0                      # minNodes/maxNodes imply enableAutoscaling: true
//     maxNodes: 5
//     taints: ["nvidia.com/gpu=present:NoSchedule"]
//     labels: {app-type: gpu-workloads}
//     spot: false
//     zones: [us-central1-a]
//     diskSizeGb: 100
//   timeline:                          # `at` is the time since the start (a Go duration)
//   - at: 0s
//     apply: gpu-test-pod.yaml         # a file (relative to the scenario) of Pod manifests,
//   - at: 0s                           #   or an inline Pod manifest (or a list of them);
//     as: gpu-test-pod.yaml            #   `as` names an inline manifest on the timeline
//     apply: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {...}}
//   - at: 10m
//     delete: pod/gpu-test-pod         # pod/<name>; `namespace:` for another namespace
//   - at: 12m
//     resize: {nodePool: gpu-pool, nodeCount: 2}
//   - at: 13m
//     autoscaling: {nodePool: gpu-pool, enabled: true, minNodes: 0, maxNodes: 3}
//   - at: 14m
//     createNodePool: {name: l4-pool, machineType: g2-standard-8, maxNodes: 2}
//   - at: 15m
//     deleteNodePool: l4-pool
//   - at: 16m
//     faults: {stockout: []}           # replaces the cloud's faults from now on
//   runFor: 35m
//
// Actions at the same `at` run in file order; an action whose `at` is after runFor would never
// run, so the scenario is refused ("timeline[2].at: 40m0s is after runFor (35m0s): ..."). An
// action at exactly runFor runs. A manifest file that is not a Pod manifest is described
// without its content (kubectl's "error validating \"f\": error validating data: invalid object
// to validate"). Manifests are decoded when the scenario is
// loaded (a malformed one is a scenario error); the API server's validation happens when the
// action runs, so a refused manifest (e.g. the seed's `important:` toleration) is part of the
// story: the timeline shows kubectl's error.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "cloud/emulated/emulated_cloud.h"
#include "common/status_or.h"
#include "sim/world.h"

namespace tidepool::sim {

struct ScenarioAction {
  enum class Kind {
    kApply,
    kDeletePod,
    kCreateNodePool,
    kDeleteNodePool,
    kResize,
    kAutoscaling,
    kFaults,
  };
  Duration at{};
  Kind kind = Kind::kApply;
  // kApply
  std::vector<api::Pod> pods;
  std::string source;  // what `kubectl apply -f` shows
  // kDeletePod
  std::string namespace_;
  std::string name;  // also the pool of kDeleteNodePool / kResize / kAutoscaling
  // kCreateNodePool
  cloud::emulated::NodePoolSpec pool;
  // kResize
  int node_count = 0;
  // kAutoscaling
  bool enabled = true;
  int min_nodes = 0;
  int max_nodes = 0;
  // kFaults
  cloud::emulated::Faults faults;
};

struct Scenario {
  std::string path;  // as given, for messages
  // seed, cluster, node pools, cloud, kubelet, autoscaler.
  WorldOptions world;
  std::vector<ScenarioAction> timeline;
  Duration run_for{};
};

// What a parsed file is for: a simulation (runFor required) or the cluster of `tidepool up`
// (--config: the same format without a timeline; runFor, a simulation's length, optional).
enum class ScenarioUse { kSimulation, kClusterConfig };

// Parses a scenario. `path` names it in errors; `base_dir` resolves relative manifest paths.
StatusOr<Scenario> ParseScenario(std::string_view yaml, const std::string& path,
                                 const std::string& base_dir,
                                 ScenarioUse use = ScenarioUse::kSimulation);
// Reads and parses a scenario file. NotFound `open <path>: no such file or directory`.
StatusOr<Scenario> LoadScenario(const std::string& path);

// Builds the world, schedules the timeline's actions and runs until `until` (default: the
// scenario's runFor) after the start, then records the summary. Action errors are part of the
// timeline, not failures; world construction errors are returned.
StatusOr<std::unique_ptr<World>> RunScenario(const Scenario& scenario,
                                             std::optional<Duration> until = std::nullopt);

}  // namespace tidepool::sim
