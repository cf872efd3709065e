#include "sim/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "testing/temp_dir.h"

namespace tidepool::sim {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const std::string kExample = std::string(TIDEPOOL_SOURCE_DIR) + "/examples/seed-walkthrough.yaml";

TEST(ScenarioTest, TheSeedWalkthroughExampleLoads) {
  auto sc = LoadScenario(kExample);
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  const WorldOptions& w = sc->world;
  EXPECT_EQ(w.seed, 1u);
  EXPECT_EQ(w.project, "tidepool-local");
  EXPECT_EQ(w.cluster, "tidepool");
  EXPECT_EQ(w.zone, "us-central1-a");
  EXPECT_TRUE(w.autoscaler);
  EXPECT_EQ(w.autoscaling.scan_interval, seconds(10));
  EXPECT_EQ(w.autoscaling.scale_down_unneeded_time, minutes(10));
  ASSERT_EQ(w.node_pools.size(), 2u);
  const auto& gpu = w.node_pools[1];
  EXPECT_EQ(gpu.name, "gpu-pool");
  EXPECT_EQ(gpu.machine_type, "n1-standard-4");
  ASSERT_TRUE(gpu.accelerator.has_value());
  EXPECT_EQ(gpu.accelerator->type, "nvidia-tesla-t4");
  EXPECT_EQ(gpu.accelerator->count, 1);
  EXPECT_TRUE(gpu.autoscaling);
  EXPECT_EQ(gpu.min_nodes, 0);
  EXPECT_EQ(gpu.max_nodes, 5);
  ASSERT_EQ(gpu.taints.size(), 1u);
  EXPECT_EQ(gpu.taints[0].ToString(), "nvidia.com/gpu=present:NoSchedule");
  EXPECT_EQ(gpu.labels.at("app-type"), "gpu-workloads");
  EXPECT_FALSE(w.node_pools[0].autoscaling);
  EXPECT_EQ(w.node_pools[0].initial_node_count, 3);

  ASSERT_EQ(sc->timeline.size(), 2u);
  const ScenarioAction& apply = sc->timeline[0];
  EXPECT_EQ(apply.kind, ScenarioAction::Kind::kApply);
  EXPECT_EQ(apply.at, Duration::zero());
  EXPECT_EQ(apply.source, "gpu-test-pod.yaml");
  ASSERT_EQ(apply.manifests.size(), 1u);
  const auto pod = nlohmann::json::parse(apply.manifests[0]);
  EXPECT_EQ(pod["spec"]["tolerations"][0]["key"], "nvidia.com/gpu");  // corrected
  const ScenarioAction& del = sc->timeline[1];
  EXPECT_EQ(del.kind, ScenarioAction::Kind::kDelete);
  EXPECT_EQ(del.resource_type, "pod");
  EXPECT_EQ(del.at, minutes(10));
  EXPECT_EQ(del.name, "gpu-test-pod");
  EXPECT_EQ(sc->run_for, minutes(35));
}

TEST(ScenarioTest, TheEksExampleIsAnEksCluster) {
  auto sc = LoadScenario(std::string(TIDEPOOL_SOURCE_DIR) + "/examples/eks/simulate.yaml");
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  const WorldOptions& w = sc->world;
  EXPECT_EQ(w.cloud.style->ProviderName(), "aws");
  EXPECT_NE(w.cloud.catalog.FindMachineType("g4dn.xlarge"), nullptr);
  EXPECT_EQ(w.cloud.catalog.FindMachineType("n1-standard-4"), nullptr);
  ASSERT_EQ(w.node_pools.size(), 2u);
  EXPECT_EQ(w.node_pools[1].disk_size_gb, 0);  // the cloud's default (EKS: 20 GB)

  auto bad = ParseScenario("cluster: {cloud: azure}\nrunFor: 1m\n", "s.yaml", ".");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "s.yaml: cluster.cloud: must be gke or aws, not azure");
}

TEST(ScenarioTest, EveryFieldIsChecked) {
  struct Case {
    std::string name;
    std::string yaml;
    std::string error;
  };
  const std::string pools = "nodePools: [{name: default-pool, machineType: e2-standard-4}]\n";
  const std::vector<Case> cases = {
      {"unknown top-level field", pools + "runFor: 1m\nrunfor: 2m\n",
       "s.yaml: runfor: unknown field (known: seed, cluster, autoscaler, kubelet, cloud, "
       "nodePools, timeline, runFor, heartbeats, trace, placement, scheduler)"},
      {"heartbeats is a bool", pools + "runFor: 1m\nheartbeats: often\n",
       "s.yaml: heartbeats: expected boolean, got string \"often\""},
      {"GPU sharing strategies",
       "nodePools: [{name: p, machineType: n1-standard-4, accelerator: {type: nvidia-tesla-t4, "
       "gpuSharingStrategy: slicing, maxSharedClientsPerGpu: 2}}]\nrunFor: 1m\n",
       "s.yaml: nodePools[0].accelerator.gpuSharingStrategy: must be time-sharing or mps, got "
       "\"slicing\""},
      {"GPU sharing needs its clients",
       "nodePools: [{name: p, machineType: n1-standard-4, accelerator: {type: nvidia-tesla-t4, "
       "gpuSharingStrategy: mps}}]\nrunFor: 1m\n",
       "s.yaml: nodePools[0].accelerator.maxSharedClientsPerGpu: required with gpuSharingStrategy"},
      {"an unknown packing policy", pools + "runFor: 1m\nscheduler: {packing: Tetris}\n",
       "s.yaml: scheduler.packing: unknown packing policy \"Tetris\" (known: Random, DotProd, "
       "GpuClustering, GpuPacking, BestFit, FGD)"},
      {"scheduler knows packing only", pools + "runFor: 1m\nscheduler: {policy: FGD}\n",
       "s.yaml: scheduler.policy: unknown field (known: packing)"},
      {"placement needs the trace's nodes", "placement: {policies: [FGD]}\n",
       "s.yaml: placement: needs trace.file and trace.nodes (the trace's own nodes)"},
      {"placement's policies", "placement: {policies: [FGD, Tetris]}\n",
       "s.yaml: placement.policies[1]: unknown policy \"Tetris\" (known: Random, DotProd, "
       "GpuClustering, GpuPacking, BestFit, FGD)"},
      {"placement's seeds", "placement: {seeds: [1, -2]}\n",
       "s.yaml: placement.seeds[1]: expected a non-negative integer, got integer -2"},
      {"placement's tune", "placement: {tune: 0}\n",
       "s.yaml: placement.tune: must be in [0.01, 10]"},
      {"runFor is required", pools, "s.yaml: runFor: required (how long to simulate, e.g. 35m)"},
      {"node pools are required", "runFor: 1m\n",
       "s.yaml: nodePools: required (at least the cluster's default-pool)"},
      {"a bad duration", pools + "runFor: 35 minutes\n",
       "s.yaml: runFor: time: unknown unit \" minutes\" in duration \"35 minutes\""},
      {"an unknown autoscaler flag", pools + "runFor: 1m\nautoscaler: {scan-intervall: 10s}\n",
       "s.yaml: autoscaler: unknown flag \"scan-intervall\""},
      {"a flag of the wrong type", pools + "runFor: 1m\nautoscaler: {scan-interval: 10}\n",
       "s.yaml: autoscaler.scan-interval: expected a duration such as \"30s\" or \"10m\", got "
       "integer 10"},
      {"a threshold out of range",
       pools + "runFor: 1m\nautoscaler: {scale-down-utilization-threshold: 2}\n",
       "s.yaml: autoscaler.scale-down-utilization-threshold: must be between 0 and 1"},
      {"maxNodes as a word",
       "runFor: 1m\nnodePools: [{name: gpu-pool, machineType: n1-standard-4, maxNodes: five}]\n",
       "s.yaml: nodePools[0].maxNodes: expected integer, got string \"five\""},
      {"a bad taint",
       "runFor: 1m\nnodePools: [{name: p, machineType: n1-standard-4, taints: [\"a=b\"]}]\n",
       "s.yaml: nodePools[0].taints[0]: "},
      {"a pool without a machine type", "runFor: 1m\nnodePools: [{name: p}]\n",
       "s.yaml: nodePools[0].machineType: required, e.g. n1-standard-4"},
      {"two pools with one name",
       "runFor: 1m\nnodePools: [{name: p, machineType: e2-standard-4}, {name: p, machineType: "
       "e2-standard-4}]\n",
       "s.yaml: nodePools[1].name: duplicate node pool \"p\""},
      {"two actions in one entry",
       pools + "runFor: 1m\ntimeline: [{at: 1s, delete: pod/a, deleteNodePool: p}]\n",
       "s.yaml: timeline[0]: needs exactly one action (apply, delete, scale, resize, autoscaling, "
       "createNodePool, deleteNodePool, faults), found 2"},
      {"an action without a time", pools + "runFor: 1m\ntimeline: [{delete: pod/a}]\n",
       "s.yaml: timeline[0].at: required (the time since the start, e.g. 30s)"},
      {"deleting without a type", pools + "runFor: 1m\ntimeline: [{at: 1s, delete: a}]\n",
       "s.yaml: timeline[0].delete: expected <type>/<name> (as kubectl delete takes it, e.g. "
       "pod/p or deployment/web), got \"a\""},
      {"scaling without replicas",
       pools + "runFor: 1m\ntimeline: [{at: 1s, scale: {resource: deployment/web}}]\n",
       "s.yaml: timeline[0].scale: needs resource (e.g. deployment/web) and replicas"},
      {"scaling to a negative count",
       pools +
           "runFor: 1m\ntimeline: [{at: 1s, scale: {resource: deployment/web, replicas: -1}}]\n",
       "s.yaml: timeline[0].scale.replicas: must be non-negative"},
      {"a namespace for a node pool",
       pools + "runFor: 1m\ntimeline: [{at: 1s, deleteNodePool: p, namespace: x}]\n",
       "s.yaml: timeline[0].namespace: only with delete or scale"},
      {"deleting a/b/c", pools + "runFor: 1m\ntimeline: [{at: 1s, delete: pod/a/b}]\n",
       "s.yaml: timeline[0].delete: expected <type>/<name>"},
      {"a missing manifest file",
       pools + "runFor: 1m\ntimeline: [{at: 1s, apply: /nonexistent/pod.yaml}]\n",
       "s.yaml: timeline[0].apply: open /nonexistent/pod.yaml: no such file or directory"},
      {"a manifest without a kind",
       pools + "runFor: 1m\ntimeline: [{at: 1s, apply: {apiVersion: v1, metadata: {name: a}}}]\n",
       "s.yaml: timeline[0].apply.kind: required"},
      {"a manifest without a name",
       pools + "runFor: 1m\ntimeline: [{at: 1s, apply: {apiVersion: v1, kind: Pod}}]\n",
       "s.yaml: timeline[0].apply.metadata.name: required (a manifest names its object)"},
      {"a scalar manifest", pools + "runFor: 1m\ntimeline: [{at: 1s, apply: [3]}]\n",
       "s.yaml: timeline[0].apply: expected a manifest, got integer 3"},
      {"annotations that are no map",
       pools + "runFor: 1m\ntimeline: [{at: 1s, apply: {apiVersion: v1, kind: Pod, metadata: "
               "{name: a, annotations: [x]}}}]\n",
       "s.yaml: timeline[0].apply.metadata.annotations: expected a map of strings, got array"},
      {"a label that is no string",
       pools + "runFor: 1m\ntimeline: [{at: 1s, apply: {apiVersion: v1, kind: Pod, metadata: "
               "{name: a, labels: {app: {x: 1}}}}}]\n",
       "s.yaml: timeline[0].apply.metadata.labels: expected a map of strings, got object"},
      {"a run time that is no duration",
       pools + "runFor: 1m\ntimeline: [{at: 1s, apply: {apiVersion: v1, kind: Pod, metadata: "
               "{name: a, annotations: {tidepool.dev/duration: soon}}}}]\n",
       "s.yaml: timeline[0].apply.metadata.annotations[tidepool.dev/duration]: must be a "
       "duration, e.g. 30m, got string \"soon\""},
      {"a template's run time that is no duration",
       pools + "runFor: 1m\ntimeline: [{at: 1s, apply: {apiVersion: batch/v1, kind: Job, "
               "metadata: {name: j}, spec: {template: {metadata: {annotations: "
               "{tidepool.dev/duration: 5}}}}}}]\n",
       "s.yaml: timeline[0].apply.spec.template.metadata.annotations[tidepool.dev/duration]: "
       "must be a duration, e.g. 30m, got integer 5"},
      {"a bad fault probability",
       pools + "runFor: 1m\ncloud: {faults: {stockout: [{nodePool: p, probability: 2}]}}\n",
       "s.yaml: cloud.faults.stockout[0].probability: must be between 0 and 1"},
      {"a negative seed", pools + "runFor: 1m\nseed: -1\n",
       "s.yaml: seed: expected a non-negative integer, got integer -1"},
      {"YAML syntax", "runFor: [1m\n", "s.yaml: yaml: line "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto sc = ParseScenario(c.yaml, "s.yaml", "");
    ASSERT_FALSE(sc.ok());
    EXPECT_EQ(sc.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(sc.status().message()).substr(0, c.error.size()), c.error);
  }
}

// Inputs the scenario fuzz target found (fuzz/scenario_fuzzer.cc) that threw an uncaught
// nlohmann::json type_error instead of returning an error, and their neighbours.
TEST(ScenarioTest, FuzzFoundInputsAreErrors) {
  const std::string head =
      "nodePools: [{name: default-pool, machineType: e2-standard-4}]\nrunFor: 1m\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"timeline: [{at: 1s, apply: {apiVersion: v1, kind: null}}]\n",
       "s.yaml: timeline[0].apply.kind: expected a non-empty string, got null"},
      {"timeline: [{at: 1s, apply: {apiVersion: v1, kind: 5}}]\n",
       "s.yaml: timeline[0].apply.kind: expected a non-empty string, got integer 5"},
      {"timeline: [{at: 1s, apply: [{apiVersion: v1, kind: Pod, metadata: {name: a}}, {apiVersion: "
       "v1, kind: [Pod]}]}]\n",
       "s.yaml: timeline[0].apply[1].kind: expected a non-empty string, got array"},
  };
  for (const auto& [yaml, error] : cases) {
    SCOPED_TRACE(yaml);
    auto sc = ParseScenario(head + yaml, "s.yaml", "");
    ASSERT_FALSE(sc.ok());
    EXPECT_EQ(sc.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(sc.status().message(), error);
  }
}

// A folded block scalar that libfyaml (the YAML library before libyaml) turned into bytes that
// are not UTF-8; naming it in the error threw type_error.316 (found by the scenario fuzz
// target). libyaml refuses its control characters.
// A manifest's string that is not UTF-8 (YAML scalars may carry any bytes) is kept with the
// bytes replaced, never thrown from nlohmann's dump.
TEST(ScenarioTest, AManifestThatIsNotUtf8IsKeptNotThrown) {
  const std::string yaml =
      "nodePools: [{name: default-pool, machineType: e2-standard-4}]\nrunFor: 1m\n"
      "timeline: [{at: 1s, apply: {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: "
      "{containers: [{name: c, image: \"\xff\xfe\"}]}}}]\n";
  auto sc = ParseScenario(yaml, "s.yaml", "");
  if (sc.ok()) {
    ASSERT_EQ(sc->timeline.size(), 1u);
    EXPECT_TRUE(nlohmann::json::accept(sc->timeline[0].manifests[0]));
  } else {
    EXPECT_EQ(sc.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(ScenarioTest, FuzzFoundTopLevelScalarIsAnError) {
  const std::string input(">-\0" "0\x17\x08`\0\x08\x17\0\x08``\x08", 15);
  auto sc = ParseScenario(input, "s.yaml", "");
  ASSERT_FALSE(sc.ok());
  EXPECT_EQ(sc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sc.status().message()), ::testing::StartsWith("s.yaml: "));
}

// tidepool up's --config: the same format, any YAML spelling (JSON too), runFor optional, no
// timeline.
TEST(ScenarioTest, AClusterConfigNeedsNoRunForAndRefusesATimeline) {
  const std::string json_config =
      R"({"cluster": {"name": "c"}, "nodePools": [{"name": "default-pool",)"
      R"( "machineType": "e2-standard-4", "initialNodeCount": 2}]})";
  auto sc = ParseScenario(json_config, "c.json", "", ScenarioUse::kClusterConfig);
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  ASSERT_EQ(sc->world.node_pools.size(), 1u);
  EXPECT_EQ(sc->world.node_pools[0].name, "default-pool");
  // The same text is no simulation: its length is missing.
  auto sim = ParseScenario(json_config, "c.json", "");
  EXPECT_EQ(sim.status().message(), "c.json: runFor: required (how long to simulate, e.g. 35m)");
  auto timeline = ParseScenario(
      "nodePools: [{name: default-pool, machineType: e2-standard-4}]\n"
      "timeline:\n- {at: 1m, deleteNodePool: default-pool}\n",
      "c.yaml", "", ScenarioUse::kClusterConfig);
  EXPECT_EQ(timeline.status().message(),
            "c.yaml: timeline: not supported by tidepool up (use kubectl and gcloud, or tidepool "
            "simulate)");
}

TEST(ScenarioTest, HeartbeatsAreOffInASimulationUnlessAsked) {
  const std::string base = "nodePools: [{name: default-pool, machineType: e2-standard-4}]\n";
  struct Case {
    std::string yaml;
    ScenarioUse use;
    bool heartbeats;
  };
  const std::vector<Case> cases = {
      {base + "runFor: 1m\n", ScenarioUse::kSimulation, false},
      {base + "runFor: 1m\nheartbeats: true\n", ScenarioUse::kSimulation, true},
      {base, ScenarioUse::kClusterConfig, true},
      {base + "heartbeats: false\n", ScenarioUse::kClusterConfig, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto sc = ParseScenario(c.yaml, "s.yaml", "", c.use);
    ASSERT_TRUE(sc.ok()) << sc.status().ToString();
    EXPECT_EQ(sc->world.kubelet.heartbeats, c.heartbeats);
    EXPECT_EQ(sc->world.autoscaling.status_heartbeat, c.heartbeats);
  }
}

TEST(ScenarioTest, AutoscalerFlagsMapToTheOptions) {
  auto sc = ParseScenario(R"(
runFor: 1m
nodePools: [{name: default-pool, machineType: e2-standard-4}]
autoscaler:
  scan-interval: 30s
  --scale-down-unneeded-time: 2m
  expander: price
  cores-total: "8:64"
  gpu-total: ["nvidia-tesla-t4:0:4"]
  max-nodes-total: 20
  scale-down-enabled: false
  v: 4
kubelet: {startDelay: 8s, imagePull: 6s}
cloud:
  delays: {driver: 5m}
  gpuBeforeDriver: zeroAllocatable
  faults: {stockout: [{nodePool: gpu-pool}], gpuQuota: {NVIDIA_T4_GPUS: 2}, slowBoot: [{extra: 1m}]}
)",
                          "s.yaml", "");
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  const auto& o = sc->world.autoscaling;
  EXPECT_EQ(o.scan_interval, seconds(30));
  EXPECT_EQ(o.scale_down_unneeded_time, minutes(2));
  EXPECT_EQ(o.expander, "price");
  EXPECT_EQ(o.cores_total.min, 8);
  EXPECT_EQ(o.cores_total.max, 64);
  EXPECT_EQ(o.gpu_total.at("nvidia-tesla-t4").max, 4);
  EXPECT_EQ(o.max_nodes_total, 20);
  EXPECT_FALSE(o.scale_down_enabled);
  EXPECT_EQ(sc->world.autoscaler_verbosity, 4);
  EXPECT_EQ(sc->world.kubelet.start_delay, seconds(8));
  EXPECT_EQ(sc->world.cloud.delays.driver, minutes(5));
  EXPECT_EQ(sc->world.cloud.gpu_before_driver,
            cloud::emulated::GpuResourceBeforeDriver::kZeroAllocatable);
  ASSERT_EQ(sc->world.cloud.faults.stockout.size(), 1u);
  EXPECT_EQ(sc->world.cloud.faults.stockout[0].node_pool, "gpu-pool");
  EXPECT_EQ(sc->world.cloud.faults.gpu_quota.at("NVIDIA_T4_GPUS"), 2);
  EXPECT_EQ(sc->world.cloud.faults.slow_boot[0].extra, minutes(1));
}

}  // namespace
}  // namespace tidepool::sim
