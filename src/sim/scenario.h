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
//   heartbeats: false                  # periodic writes only a reader of the live cluster
//                                      #   needs: kubelets renew Leases and report node status
//                                      #   (kubelet/pod_lifecycle.h), the autoscaler restamps
//                                      #   its status ConfigMap every loop. Nothing in a
//                                      #   simulation reads them, so off unless asked (each is
//                                      #   written once, and again when its content changes);
//                                      #   `tidepool up` always writes them
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
//     accelerator: {type: nvidia-tesla-t4, count: 1}   # also gpuSharingStrategy: time-sharing
//                                      # or mps, maxSharedClientsPerGpu: 2..48 (GKE's GPU sharing)
//     minNodes: 0                      # minNodes/maxNodes imply enableAutoscaling: true
//     maxNodes: 5
//     taints: ["nvidia.com/gpu=present:NoSchedule"]
//     labels: {app-type: gpu-workloads}
//     spot: false
//     zones: [us-central1-a]
//     diskSizeGb: 100
//   timeline:                          # `at` is the time since the start (a Go duration)
//   - at: 0s
//     apply: gpu-test-pod.yaml         # a file (relative to the scenario) of manifests of any
//   - at: 0s                           #   kind the API serves (Pods, Deployments, Jobs, ...),
//     as: gpu-test-pod.yaml            #   or an inline manifest (or a list of them); `as`
//     apply: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {...}}  # names it
//   - at: 10m
//     delete: pod/gpu-test-pod         # <type>/<name> as kubectl delete takes it
//                                      #   (deployment/web, job/train); `namespace:` for
//                                      #   another namespace than default
//   - at: 11m
//     scale: {resource: deployment/web, replicas: 5}   # kubectl scale --replicas (the /scale
//                                      #   subresource); `namespace:` as for delete
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
//   trace:                             # a real cluster's trace as workload (sim/trace.h):
//     file: traces/dlrm.csv            #   each row a pod created at its arrival; relative
//     format: dlrm                     #   to the scenario; dlrm, openb or csv (default: told
//     timeScale: 1                     #   by the header); times multiplied by timeScale;
//     sample: 1                        #   each row kept with probability sample; loadFactor
//     loadFactor: 1                    #   >= 1 adds copies; pods in `namespace` (default);
//     namespace: default               #   gpuModels maps the trace's GPU models to GKE
//     gpuModels: {T4: nvidia-tesla-t4} #   accelerators (the pods' node selector); classes
//     classes: [HN]                    #   keeps only rows of those classes; nodes: the
//     nodes: openb_node_list.csv       #   trace's own fixed nodes, created before its pods
//   runFor: 35m
//
// Actions at the same `at` run in file order; an action whose `at` is after runFor would never
// run, so the scenario is refused ("timeline[2].at: 40m0s is after runFor (35m0s): ..."). An
// action at exactly runFor runs. A manifest file whose documents are not objects is described
// without its content (kubectl's "error validating \"f\": error validating data: invalid object
// to validate"). When the scenario is loaded, manifests are checked as kubectl checks them
// before sending (YAML, apiVersion, kind, metadata.name) and so is the run-time annotation
// tidepool.dev/duration (a Pod's or a pod template's); the API server's validation happens
// when the action runs, so a refused manifest (e.g. the seed's `important:` toleration) is part
// of the story: the timeline shows kubectl's error. runtime/scenario_run.h runs scenarios.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/emulated/emulated_cloud.h"
#include "common/status_or.h"
#include "sim/placement.h"
#include "sim/trace.h"
#include "sim/world_options.h"

namespace tidepool::sim {

struct ScenarioAction {
  enum class Kind {
    kApply,
    kDelete,
    kScale,
    kCreateNodePool,
    kDeleteNodePool,
    kResize,
    kAutoscaling,
    kFaults,
  };
  Duration at{};
  Kind kind = Kind::kApply;
  // kApply: the documents, each one object as JSON text, in file order.
  std::vector<std::string> manifests;
  std::string source;  // what `kubectl apply -f` shows
  // kDelete, kScale: kubectl's TYPE argument as written ("pod", "deployment", "jobs", "po").
  std::string resource_type;
  // kScale
  int replicas = 0;
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
  // A trace as workload (sim/trace.h): its rows become pods on the timeline. Read when the
  // scenario runs (its sampling draws from the run's seed).
  std::optional<TraceOptions> trace;
  // The FGD paper's placement experiment on the trace instead of a timeline (sim/placement.h).
  std::optional<PlacementSpec> placement;
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

}  // namespace tidepool::sim
