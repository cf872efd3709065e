// GPU scenarios of issue 3's acceptance, run whole in the simulator with the real autoscaler:
// a stockout falls back to another pool without waiting for the provision timeout, and a slow
// GPU driver install never causes a second scale-up.
#include <gtest/gtest.h>

#include <string>

#include "sim/scenario.h"

namespace tidepool::sim {
namespace {

int Find(const Timeline& t, std::string_view needle, int from = 0) {
  return t.Find(needle, from);
}

constexpr const char* kGpuPod = R"(
  - at: 0s
    as: gpu-test-pod.yaml
    apply:
      apiVersion: v1
      kind: Pod
      metadata: {name: gpu-test-pod}
      spec:
        restartPolicy: Never
        containers:
        - name: cuda-container
          image: nvidia/cuda:11.4.2-base-ubuntu20.04
          command: ["/bin/bash", "-c", "sleep 3600"]
          resources:
            limits: {nvidia.com/gpu: 1}
        tolerations:
        - {key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}
)";

std::unique_ptr<World> RunInline(const std::string& yaml) {
  auto sc = ParseScenario(yaml, "inline.yaml", ".");
  EXPECT_TRUE(sc.ok()) << sc.status().ToString();
  if (!sc.ok()) {
    return nullptr;
  }
  auto w = RunScenario(*sc);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return w.ok() ? std::move(*w) : nullptr;
}

TEST(GpuScenarioTest, AStockoutFallsBackToTheNextPoolWithoutWaitingForTheTimeout) {
  auto w = RunInline(std::string(R"(
seed: 3
cloud:
  faults:
    stockout: [{nodePool: t4-pool, probability: 1}]
    stockoutDelay: 20s
nodePools:
- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 3}
- name: t4-pool
  machineType: n1-standard-4
  accelerator: {type: nvidia-tesla-t4, count: 1}
  minNodes: 0
  maxNodes: 5
- name: l4-pool
  machineType: g2-standard-8
  minNodes: 0
  maxNodes: 5
timeline:)") + kGpuPod + "runFor: 15m\n");
  ASSERT_NE(w, nullptr);
  const Timeline& t = w->timeline();
  SCOPED_TRACE(t.ToText());
  // Least-waste prefers the smaller T4 machine; it is out of stock.
  const int first = Find(t, "pod triggered scale-up: [{t4-pool 0->1 (max: 5)}]");
  ASSERT_GE(first, 0);
  const int failed = Find(t, "ScaleUpFailed", first);
  ASSERT_GT(failed, first);
  EXPECT_NE(t.entries()[failed].text.find(
                "due to OutOfResource.ZONE_RESOURCE_POOL_EXHAUSTED"),
            std::string::npos);
  const int fallback = Find(t, "pod triggered scale-up: [{l4-pool 0->1 (max: 5)}]", failed);
  ASSERT_GT(fallback, failed);
  // As soon as the failure is known: well before the 15-minute max-node-provision-time.
  EXPECT_LE(t.entries()[fallback].elapsed - t.entries()[failed].elapsed, std::chrono::seconds(15));
  const int running = Find(t, "gpu-test-pod    1/1  Running", fallback);
  ASSERT_GT(running, fallback);
  EXPECT_LT(t.entries()[running].elapsed, std::chrono::minutes(6));
  EXPECT_EQ(w->recorder().nodes_created().at("l4-pool"), 1);
}

TEST(GpuScenarioTest, ASlowDriverInstallNeverCausesASecondScaleUp) {
  auto w = RunInline(std::string(R"(
seed: 4
cloud:
  delays: {driver: 12m}
nodePools:
- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 3}
- name: gpu-pool
  machineType: n1-standard-4
  accelerator: {type: nvidia-tesla-t4, count: 1}
  minNodes: 0
  maxNodes: 5
timeline:)") + kGpuPod + "runFor: 20m\n");
  ASSERT_NE(w, nullptr);
  const Timeline& t = w->timeline();
  SCOPED_TRACE(t.ToText());
  ASSERT_GE(Find(t, "pool    gpu-pool  0 -> 1"), 0);
  EXPECT_EQ(Find(t, "pool    gpu-pool  1 -> 2"), -1);
  EXPECT_EQ(w->recorder().nodes_created().at("gpu-pool"), 1);
  // The node is Ready long before its GPUs appear; the pod runs once they do.
  const int gpu = Find(t, "nvidia.com/gpu: 1");
  ASSERT_GE(gpu, 0);
  EXPECT_GT(t.entries()[gpu].elapsed, std::chrono::minutes(12));
  EXPECT_GT(Find(t, "gpu-test-pod    1/1  Running", gpu), gpu);
}

}  // namespace
}  // namespace tidepool::sim
