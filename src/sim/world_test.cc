#include "sim/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/scenario.h"
#include "testing/builders.h"

namespace tidepool::sim {
namespace {

namespace emu = cloud::emulated;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::MakePod;

constexpr char kSeedMessage[] =
    "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are "
    "available: 3 No preemption victims found for incoming pod.";

WorldOptions WalkthroughCluster() {
  WorldOptions o;
  o.autoscaler = false;
  emu::NodePoolSpec def;
  def.name = "default-pool";
  def.machine_type = "e2-standard-4";
  def.initial_node_count = 3;
  emu::NodePoolSpec gpu;
  gpu.name = "gpu-pool";
  gpu.machine_type = "n1-standard-4";
  gpu.accelerator = emu::Accelerator{"nvidia-tesla-t4", 1};
  gpu.autoscaling = true;
  gpu.min_nodes = 0;
  gpu.max_nodes = 5;
  gpu.taints = {*api::Taint::Parse("nvidia.com/gpu=present:NoSchedule")};
  gpu.labels = {{"app-type", "gpu-workloads"}};
  o.node_pools = {def, gpu};
  return o;
}

api::Pod SeedPod() {
  api::Pod p = MakePod("gpu-test-pod", "").Limit("nvidia.com/gpu", "1").Obj();
  p.spec.restart_policy = "Never";
  p.spec.containers[0].name = "cuda-container";
  p.spec.containers[0].image = "nvidia/cuda:11.4.2-base-ubuntu20.04";
  p.spec.containers[0].command = {"/bin/bash", "-c", "sleep 3600"};
  api::Toleration t;
  t.key = "nvidia.com/gpu";
  t.op = api::TolerationOperator::kEqual;
  t.value = "present";
  t.effect = api::TaintEffect::kNoSchedule;
  p.spec.tolerations = {t};
  return p;
}

// Index of the first timeline entry at or after `from` whose text contains `needle`, or -1.
int Find(const Timeline& t, const std::string& needle, int from = 0) {
  const auto& e = t.entries();
  for (size_t i = static_cast<size_t>(std::max(from, 0)); i < e.size(); ++i) {
    if (e[i].text.find(needle) != std::string::npos) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::vector<const EventRecord*> Events(const Store& s, const std::string& reason) {
  std::vector<const EventRecord*> out;
  for (const EventRecord& e : s.events()) {
    if (e.reason == reason) {
      out.push_back(&e);
    }
  }
  return out;
}

TEST(WorldTest, TheClusterExistsAtTheStart) {
  auto w = World::Create(WalkthroughCluster());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  World& world = **w;
  EXPECT_EQ(world.Now(), world.start());
  const auto nodes = world.store().ListNodes();
  ASSERT_EQ(nodes.size(), 3u);
  for (const auto& n : nodes) {
    EXPECT_TRUE(n->IsReady());
    EXPECT_EQ(n->meta.labels.at("cloud.google.com/gke-nodepool"), "default-pool");
  }
  EXPECT_EQ(*world.cloud().TargetSize("gpu-pool"), 0);
  // The timeline starts with the pools and the three nodes; nothing from the warm-up.
  const Timeline& t = world.timeline();
  ASSERT_GE(t.entries().size(), 5u);
  EXPECT_EQ(t.entries()[0].text, "pool    default-pool  e2-standard-4  3 nodes  RUNNING");
  EXPECT_EQ(t.entries()[1].text,
            "pool    gpu-pool  n1-standard-4 + 1x nvidia-tesla-t4  0 nodes  RUNNING  autoscaling "
            "0..5  taints nvidia.com/gpu=present:NoSchedule  labels app-type=gpu-workloads");
  for (const TimelineEntry& e : t.entries()) {
    EXPECT_EQ(e.elapsed, Duration::zero());
  }
}

TEST(WorldTest, ACpuPodFitsTheDefaultPoolAndRuns) {
  auto w = World::Create(WalkthroughCluster());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  World& world = **w;
  ASSERT_TRUE(world.ApplyPod(MakePod("web", "").Req("cpu", "500m").Obj(), "web.yaml").ok());
  world.RunFor(seconds(10));
  const PodRecord* p = world.store().GetPod("default/web");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pod->status.phase, api::PodPhase::kRunning);
  EXPECT_EQ(p->pod->spec.node_name.rfind("gke-tidepool-default-pool-", 0), 0u);
  auto scheduled = Events(world.store(), "Scheduled");
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0]->message,
            "Successfully assigned default/web to " + p->pod->spec.node_name);
  EXPECT_TRUE(Events(world.store(), "FailedScheduling").empty());
  EXPECT_EQ(world.scheduler_loop().NumPending(), 0u);
}

TEST(WorldTest, AGpuPodWaitsUntilAGpuNodeJoins) {
  auto w = World::Create(WalkthroughCluster());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  World& world = **w;
  ASSERT_TRUE(world.ApplyPod(SeedPod(), "gpu-test-pod.yaml").ok());
  world.RunFor(minutes(2));

  // kube-scheduler's exact words, on the event and on the pod's condition.
  auto failed = Events(world.store(), "FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0]->message, kSeedMessage);
  EXPECT_EQ(failed[0]->type, "Warning");
  EXPECT_EQ(failed[0]->source.component, "default-scheduler");
  const api::Pod& pending = *world.store().GetPod("default/gpu-test-pod")->pod;
  const api::PodCondition* c = pending.FindCondition("PodScheduled");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, api::ConditionStatus::kFalse);
  EXPECT_EQ(c->reason, "Unschedulable");
  EXPECT_EQ(c->message, kSeedMessage);
  EXPECT_EQ(pending.status.phase, api::PodPhase::kPending);

  // gcloud container clusters resize tidepool --node-pool gpu-pool --num-nodes 1
  ASSERT_TRUE(world.ResizeNodePool("gpu-pool", 1).ok());
  world.RunFor(minutes(10));
  const api::Pod& running = *world.store().GetPod("default/gpu-test-pod")->pod;
  EXPECT_EQ(running.status.phase, api::PodPhase::kRunning);
  EXPECT_EQ(running.spec.node_name.rfind("gke-tidepool-gpu-pool-", 0), 0u);

  const Timeline& t = world.timeline();
  const std::string node = "node    " + running.spec.node_name;
  const int not_ready = Find(t, node + "  NotReady");
  const int ready = Find(t, node + "  Ready", not_ready);
  const int gpu = Find(t, "nvidia.com/gpu: 1", ready);
  const int scheduled = Find(t, "Successfully assigned default/gpu-test-pod", gpu);
  const int creating = Find(t, "ContainerCreating", scheduled);
  const int run = Find(t, "1/1  Running", creating);
  EXPECT_GE(not_ready, 0);
  EXPECT_GT(ready, not_ready);
  EXPECT_GT(gpu, ready);
  EXPECT_GT(scheduled, gpu);
  EXPECT_GT(creating, scheduled);
  EXPECT_GT(run, creating);
  // The delays of anchors-and-data.md §4.1 after the resize at 2m: boot 35 s, registration
  // 15 s, Ready 30 s, driver 120 s; then 5 s to Running.
  EXPECT_EQ(t.entries()[not_ready].elapsed, minutes(2) + seconds(50));
  EXPECT_EQ(t.entries()[ready].elapsed, minutes(3) + seconds(20));
  EXPECT_EQ(t.entries()[gpu].elapsed, minutes(5) + seconds(20));
  EXPECT_EQ(t.entries()[run].elapsed, minutes(5) + seconds(25));
  // While the node came up, kube-scheduler retried with the cluster's current reasons.
  EXPECT_GE(Find(t, "1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }"), 0);
}

TEST(WorldTest, TheSeedsTypoIsRefusedAsTheApiServerRefusesIt) {
  auto w = World::Create(WalkthroughCluster());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  World& world = **w;
  api::Pod p = SeedPod();
  p.spec.tolerations[0].key = "";  // `important:` is an unknown field: the key is empty
  Status s = world.ApplyPod(p, "gpu-test-pod.yaml");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      s.message().rfind("The Pod \"gpu-test-pod\" is invalid: spec.tolerations[0].operator", 0),
      0u);
  EXPECT_GE(Find(world.timeline(), "The Pod \"gpu-test-pod\" is invalid"), 0);
  EXPECT_EQ(world.store().NumPods(), 0u);
}

TEST(WorldTest, PodsOfARemovedNodeAreGarbageCollected) {
  auto w = World::Create(WalkthroughCluster());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  World& world = **w;
  ASSERT_TRUE(world.ApplyPod(SeedPod(), "gpu-test-pod.yaml").ok());
  ASSERT_TRUE(world.ResizeNodePool("gpu-pool", 1).ok());
  world.RunFor(minutes(6));
  ASSERT_EQ(world.store().GetPod("default/gpu-test-pod")->pod->status.phase,
            api::PodPhase::kRunning);
  ASSERT_TRUE(world.ResizeNodePool("gpu-pool", 0).ok());
  world.RunFor(minutes(1));
  EXPECT_EQ(world.store().ListNodes().size(), 3u);
  EXPECT_EQ(world.store().GetPod("default/gpu-test-pod"), nullptr);
  EXPECT_GE(Find(world.timeline(), "pool    gpu-pool  1 -> 0"), 0);
}

}  // namespace
}  // namespace tidepool::sim
