// Scenarios run whole on SimCluster (the API's object store, every actor on one queue) with the
// real autoscaler: the seed walkthrough, GPU fallbacks, and the actions' kubectl/gcloud texts.
#include "runtime/scenario_run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "client/rest_client.h"
#include "sim/html_report.h"
#include "testing/temp_dir.h"

namespace tidepool::runtime {
namespace {

// Nodes the run's report counts as created in `pool`.
int64_t NodesCreated(const sim::TimelineRecorder& recorder, const std::string& pool) {
  for (const sim::PoolReport& p : recorder.Summary().pools) {
    if (p.name == pool) return p.nodes_created;
  }
  return 0;
}

using nlohmann::json;
using sim::Timeline;
using std::chrono::minutes;
using std::chrono::seconds;

const std::string kExample = std::string(TIDEPOOL_SOURCE_DIR) + "/examples/seed-walkthrough.yaml";

std::unique_ptr<SimCluster> RunInline(const std::string& yaml, const std::string& dir = ".") {
  auto sc = sim::ParseScenario(yaml, "inline.yaml", dir);
  EXPECT_TRUE(sc.ok()) << sc.status().ToString();
  if (!sc.ok()) return nullptr;
  auto c = RunScenario(*sc);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(*c) : nullptr;
}

json ListOf(const SimCluster& c, const std::string& path) {
  auto list = c.kubectl().List(path);
  EXPECT_TRUE(list.ok()) << list.status().ToString();
  return list.ok() ? (*list)["items"] : json::array();
}

// ---- The seed walkthrough ----------------------------------------------------------------------

// The walkthrough runs once for the suite; its tests only read the result.
class SeedWalkthroughTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto sc = sim::LoadScenario(kExample);
    ASSERT_TRUE(sc.ok()) << sc.status().ToString();
    scenario_ = new sim::Scenario(*sc);
    auto c = RunScenario(*scenario_);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cluster_ = c->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    delete scenario_;
    cluster_ = nullptr;
    scenario_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(cluster_, nullptr); }
  static sim::Scenario* scenario_;
  static SimCluster* cluster_;
};
sim::Scenario* SeedWalkthroughTest::scenario_ = nullptr;
SimCluster* SeedWalkthroughTest::cluster_ = nullptr;

TEST_F(SeedWalkthroughTest, ScalesFromZeroRunsThePodAndScalesBackToZero) {
  const Timeline& t = cluster_->timeline();
  SCOPED_TRACE(t.ToText());
  const auto at = [&](int i) { return t.entries()[i].elapsed; };

  const int failed = t.Find(
      "FailedScheduling  pod/gpu-test-pod  default-scheduler  0/3 nodes are available: 3 "
      "Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption "
      "victims found for incoming pod.");
  ASSERT_GE(failed, 0);
  const int triggered = t.Find(
      "TriggeredScaleUp  pod/gpu-test-pod  cluster-autoscaler  pod triggered scale-up: "
      "[{gpu-pool 0->1 (max: 5)}]",
      failed);
  ASSERT_GT(triggered, failed);
  const int up = t.Find("pool    gpu-pool  0 -> 1", failed);
  ASSERT_GT(up, failed);
  const int not_ready = t.Find("NotReady  <none>", up);
  ASSERT_GT(not_ready, up);
  const std::string name = t.entries()[not_ready].object.substr(5);  // "node/<name>"
  const int ready = t.Find("node    " + name + "  Ready", not_ready);
  ASSERT_GT(ready, not_ready);
  const int gpu = t.Find("node    " + name + "  Ready     <none>", ready + 1);
  ASSERT_GT(gpu, ready);
  EXPECT_NE(t.entries()[gpu].text.find("nvidia.com/gpu: 1"), std::string::npos);
  const int scheduled = t.Find("Successfully assigned default/gpu-test-pod to " + name, gpu);
  ASSERT_GT(scheduled, gpu);
  const int running = t.Find("gpu-test-pod    1/1  Running", scheduled);
  ASSERT_GT(running, scheduled);

  // Step 5: the pod is deleted at 10m; the node goes only after 10 unneeded minutes.
  const int deleted = t.Find("pod     gpu-test-pod    deleted", running);
  ASSERT_GT(deleted, running);
  EXPECT_GE(at(deleted), minutes(10));
  const int taint =
      t.Find("node    " + name + "  taint added ToBeDeletedByClusterAutoscaler", deleted);
  ASSERT_GT(taint, deleted);
  EXPECT_GE(at(taint) - at(deleted), minutes(10));
  const int down = t.Find("pool    gpu-pool  1 -> 0", deleted);
  ASSERT_GT(down, deleted);
  const int removed = t.Find("node    " + name + "  deleted", down);
  ASSERT_GT(removed, down);
  EXPECT_LT(at(removed), minutes(35));

  // gpu-pool is back at 0, and exactly one node was ever created for the one pod.
  EXPECT_EQ(*cluster_->cloud().TargetSize("gpu-pool"), 0);
  EXPECT_EQ(NodesCreated(cluster_->recorder(), "gpu-pool"), 1);
  EXPECT_EQ(t.Find("pool    gpu-pool  1 -> 2"), -1);
  int triggered_events = 0;
  for (const json& e : ListOf(*cluster_, "/api/v1/events")) {
    if (e.value("reason", "") == "TriggeredScaleUp") triggered_events += e.value("count", 1);
  }
  EXPECT_EQ(triggered_events, 1);
  EXPECT_EQ(ListOf(*cluster_, "/api/v1/nodes").size(), 3u);
  // kube-scheduler 1.32's queueing hints: the pod was rejected for its GPU only
  // (NodeResourcesFit), so neither the new node (no GPUs yet), nor its Ready condition, nor its
  // not-ready taint going, nor a heartbeat retries it; the GPUs appearing do, and it is bound.
  const int retried = t.Find("FailedScheduling", ready);
  EXPECT_TRUE(retried < 0 || retried > scheduled) << t.entries()[retried].text;
  // The device plugin's DaemonSet pod ran on the GPU node; kcm's pod GC removed it after its
  // node was gone.
  EXPECT_GE(t.Find("pod     gpu-operator/nvidia-device-plugin-daemonset-"), 0);
  EXPECT_EQ(t.Find("summary pod gpu-operator/"), -1);
}

TEST_F(SeedWalkthroughTest, TheClusterExistedBeforeTheScenario) {
  const Timeline& t = cluster_->timeline();
  SCOPED_TRACE(t.ToText());
  // kube-dns has run since the warm-up; nothing of the cluster's own starts at 00:00:00.
  EXPECT_EQ(t.Find("kube-dns"), t.Find("1/1  Running            0  59m"));
  EXPECT_EQ(t.Find("Pulling image \"gke.gcr.io"), -1);
}

TEST_F(SeedWalkthroughTest, TheSameSeedGivesTheSameBytes) {
  auto again = RunScenario(*scenario_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(cluster_->timeline().ToText(), (*again)->timeline().ToText());
  EXPECT_EQ(cluster_->timeline().ToJson(), (*again)->timeline().ToJson());
}

// ---- GPU scenarios (issue 3's acceptance) ------------------------------------------------------

// The seed's GPU pod, applied at 0s, running `sleep <seconds>`; `requests` adds resource
// requests (YAML flow mapping) beside the GPU limit.
std::string GpuPodAction(int seconds, const std::string& requests = "") {
  return R"(
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
          command: ["/bin/bash", "-c", "sleep )" +
         std::to_string(seconds) + R"("]
          resources:
            limits: {nvidia.com/gpu: 1})" +
         (requests.empty() ? "" : "\n            requests: " + requests) + R"(
        tolerations:
        - {key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}
)";
}
// 3 of n1-standard-4's 4 CPUs: T4 nodes waste least.
const std::string kGpuPod = GpuPodAction(3600, R"({cpu: "3", memory: 8Gi})");

TEST(GpuScenarioTest, AStockoutFallsBackToTheNextPoolWithoutWaitingForTheTimeout) {
  auto c = RunInline(std::string(R"(
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
timeline:)") + kGpuPod +
                     "runFor: 15m\n");
  ASSERT_NE(c, nullptr);
  const Timeline& t = c->timeline();
  SCOPED_TRACE(t.ToText());
  // Least-waste prefers the smaller T4 machine; it is out of stock.
  const int first = t.Find("pod triggered scale-up: [{t4-pool 0->1 (max: 5)}]");
  ASSERT_GE(first, 0);
  const int failed = t.Find("ScaleUpFailed", first);
  ASSERT_GT(failed, first);
  EXPECT_NE(t.entries()[failed].text.find("due to OutOfResource.ZONE_RESOURCE_POOL_EXHAUSTED"),
            std::string::npos);
  const int fallback = t.Find("pod triggered scale-up: [{l4-pool 0->1 (max: 5)}]", failed);
  ASSERT_GT(fallback, failed);
  // As soon as the failure is known: well before the 15-minute max-node-provision-time.
  EXPECT_LE(t.entries()[fallback].elapsed - t.entries()[failed].elapsed, seconds(15));
  const int running = t.Find("gpu-test-pod    1/1  Running", fallback);
  ASSERT_GT(running, fallback);
  EXPECT_LT(t.entries()[running].elapsed, minutes(6));
  EXPECT_EQ(NodesCreated(c->recorder(), "l4-pool"), 1);
}

TEST(GpuScenarioTest, ASlowDriverInstallNeverCausesASecondScaleUp) {
  auto c = RunInline(std::string(R"(
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
timeline:)") + kGpuPod +
                     "runFor: 20m\n");
  ASSERT_NE(c, nullptr);
  const Timeline& t = c->timeline();
  SCOPED_TRACE(t.ToText());
  ASSERT_GE(t.Find("pool    gpu-pool  0 -> 1"), 0);
  EXPECT_EQ(t.Find("pool    gpu-pool  1 -> 2"), -1);
  EXPECT_EQ(NodesCreated(c->recorder(), "gpu-pool"), 1);
  // The node is Ready long before its GPUs appear; the pod runs once they do.
  const int gpu = t.Find("nvidia.com/gpu: 1");
  ASSERT_GE(gpu, 0);
  EXPECT_GT(t.entries()[gpu].elapsed, minutes(12));
  EXPECT_GT(t.Find("gpu-test-pod    1/1  Running", gpu), gpu);
}

// ---- The actions' texts ------------------------------------------------------------------------

constexpr char kCpuCluster[] = R"(
runFor: 5m
autoscaler: false
nodePools: [{name: default-pool, machineType: e2-standard-4, initialNodeCount: 2}]
)";

TEST(ScenarioActionsTest, ManifestFilesAreRelativeToTheScenario) {
  const std::string dir = tidepool::testing::TestTempDir();
  std::ofstream(dir + "/two-pods.yaml")
      << "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, "
         "image: busybox}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: "
         "{containers: [{name: c, image: busybox}]}\n";
  auto c = RunInline(std::string(kCpuCluster) +
                         "timeline: [{at: 5s, apply: two-pods.yaml}, {at: 30s, delete: pod/b}]\n",
                     dir);
  ASSERT_NE(c, nullptr);
  const std::string text = c->timeline().ToText();
  EXPECT_NE(text.find("[00:00:05] $ kubectl apply -f two-pods.yaml\n[00:00:05]   pod/a created\n"
                      "[00:00:05]   pod/b created\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[00:00:30] $ kubectl delete pod b\n[00:00:30]   pod \"b\" deleted\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(c->kubectl().Get("/api/v1/namespaces/default/pods/a").ok());
}

TEST(ScenarioActionsTest, KubectlsTextsForWhatTheApiRefuses) {
  auto c = RunInline(std::string(kCpuCluster) + R"(
timeline:
- at: 0s
  as: gpu-test-pod.yaml
  apply:   # the seed's original manifest: `important:` for `key:`
    apiVersion: v1
    kind: Pod
    metadata: {name: gpu-test-pod}
    spec:
      containers: [{name: c, image: busybox}]
      tolerations: [{important: nvidia.com/gpu, operator: Equal, value: present}]
- at: 1s
  as: bad.yaml
  apply: {apiVersion: v1, kind: Pod, metadata: {name: bad}, spec: {containers: [{name: c}]}}
- at: 2s
  as: crd.yaml
  apply: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}
- {at: 3s, delete: pod/nope}
- {at: 4s, delete: widgets/w}
- {at: 5s, resize: {nodePool: no-such-pool, nodeCount: 1}}
)");
  ASSERT_NE(c, nullptr);
  const std::string text = c->timeline().ToText();
  for (const char* line : {
           "[00:00:00]   Error from server (BadRequest): error when creating "
           "\"gpu-test-pod.yaml\": Pod in version \"v1\" cannot be handled as a Pod: strict "
           "decoding error: unknown field \"spec.tolerations[0].important\"\n",
           "[00:00:01]   The Pod \"bad\" is invalid: spec.containers[0].image: Required value\n",
           "[00:00:02]   error: resource mapping not found for name: \"w\" namespace: \"\" from "
           "\"crd.yaml\": no matches for kind \"Widget\" in version \"example.com/v1\"\n"
           "[00:00:02]   ensure CRDs are installed first\n",
           "[00:00:03]   Error from server (NotFound): pods \"nope\" not found\n",
           "[00:00:04]   error: the server doesn't have a resource type \"widgets\"\n",
           "[00:00:05]   ERROR: (gcloud.container.clusters.resize) ",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

// Workloads in a scenario: a Deployment gets its ReplicaSet and pods; applying it again is
// `unchanged`, a changed manifest `configured` (the patch reaches the object); deleting it takes
// its pods along (the garbage collector).
TEST(ScenarioActionsTest, ADeploymentIsAppliedChangedAndDeleted) {
  const std::string deployment = R"({apiVersion: apps/v1, kind: Deployment,
      metadata: {name: web}, spec: {replicas: REPLICAS, selector: {matchLabels: {app: web}},
      template: {metadata: {labels: {app: web}},
                 spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}}}})";
  const auto with = [&](const std::string& n) {
    std::string d = deployment;
    d.replace(d.find("REPLICAS"), 8, n);
    return d;
  };
  auto c = RunInline(std::string(kCpuCluster) + "timeline:\n- {at: 0s, as: web.yaml, apply: " +
                     with("2") + "}\n- {at: 30s, as: web.yaml, apply: " + with("2") +
                     "}\n- {at: 40s, as: web.yaml, apply: " + with("3") +
                     "}\n- {at: 90s, scale: {resource: deployment/web, replicas: 1}}"
                     "\n- {at: 95s, scale: {resource: pod/x, replicas: 1}}"
                     "\n- {at: 2m, delete: deployment/web}\n");
  ASSERT_NE(c, nullptr);
  const std::string text = c->timeline().ToText();
  SCOPED_TRACE(text);
  EXPECT_NE(text.find("[00:00:00]   deployment.apps/web created\n"), std::string::npos);
  EXPECT_NE(text.find("[00:00:30]   deployment.apps/web unchanged\n"), std::string::npos);
  EXPECT_NE(text.find("[00:00:40]   deployment.apps/web configured\n"), std::string::npos);
  EXPECT_NE(text.find("[00:01:30] $ kubectl scale deployment/web --replicas=1\n"
                      "[00:01:30]   deployment.apps/web scaled\n"),
            std::string::npos);
  EXPECT_NE(text.find("[00:01:35]   Error from server (NotFound): the server could not find the "
                      "requested resource\n"),
            std::string::npos);
  // Scaled to 1: two of the three pods terminate before the deployment goes.
  EXPECT_LT(text.find("Killing"), text.find("[00:02:00]"));
  EXPECT_NE(text.find("[00:02:00]   deployment.apps \"web\" deleted\n"), std::string::npos);
  // Three pods ran (two, then a third after the patch) and none is left.
  int running = 0;
  for (const sim::TimelineEntry& e : c->timeline().entries()) {
    if (e.kind == "pod" && e.object.rfind("pod/web-", 0) == 0 &&
        e.text.find("1/1  Running") != std::string::npos) {
      ++running;
    }
  }
  EXPECT_EQ(running, 3);
  EXPECT_EQ(ListOf(*c, "/api/v1/namespaces/default/pods").size(), 0u);
  EXPECT_EQ(ListOf(*c, "/apis/apps/v1/namespaces/default/replicasets").size(), 0u);
}

// kubectl apply merges three ways: applying the same manifest after `kubectl scale` puts the
// manifest's replicas back (configured); applied once more it is unchanged. Inline manifests
// are STDIN in kubectl's messages.
TEST(ScenarioActionsTest, ApplyRestoresWhatTheManifestSaysAndNamesStdin) {
  const std::string web = R"({apiVersion: apps/v1, kind: Deployment, metadata: {name: web},
      spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels:
      {app: web}}, spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu:
      100m}}}]}}}})";
  auto c = RunInline(std::string(kCpuCluster) + "timeline:\n- {at: 0s, apply: " + web +
                     "}\n- {at: 20s, scale: {resource: deployment/web, replicas: 1}}"
                     "\n- {at: 40s, apply: " +
                     web + "}\n- {at: 60s, apply: " + web +
                     "}\n- {at: 70s, apply: {apiVersion: v1, kind: Pod, metadata: {name: bad},"
                     " spec: {containers: [{name: c, image: busybox, bogus: 1}]}}}\n");
  ASSERT_NE(c, nullptr);
  const std::string text = c->timeline().ToText();
  SCOPED_TRACE(text);
  EXPECT_NE(
      text.find("[00:00:40] $ kubectl apply -f -\n[00:00:40]   deployment.apps/web configured\n"),
      std::string::npos);
  EXPECT_NE(text.find("[00:01:00]   deployment.apps/web unchanged\n"), std::string::npos);
  EXPECT_NE(
      text.find("[00:01:10]   Error from server (BadRequest): error when creating \"STDIN\": "),
      std::string::npos);
  auto d = c->kubectl().Get("/apis/apps/v1/namespaces/default/deployments/web");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)["spec"]["replicas"], 2);
  // The annotation is kubectl's: the manifest with its namespace and an annotations map.
  const json applied = json::parse(
      (*d)["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
          .get<std::string>());
  EXPECT_EQ(applied["metadata"]["namespace"], "default");
  EXPECT_EQ(applied["metadata"]["annotations"], json::object());
}

// delete and scale in another namespace.
TEST(ScenarioActionsTest, ActionsInAnotherNamespace) {
  auto c = RunInline(std::string(kCpuCluster) + R"(timeline:
- {at: 0s, as: ns.yaml, apply: {apiVersion: v1, kind: Namespace, metadata: {name: team}}}
- at: 1s
  as: rs.yaml
  apply: {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: r, namespace: team},
          spec: {replicas: 1, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}},
          spec: {containers: [{name: c, image: nginx}]}}}}
- {at: 30s, scale: {resource: rs/r, replicas: 2}, namespace: team}
- {at: 60s, delete: ReplicaSet/r, namespace: team}
)");
  ASSERT_NE(c, nullptr);
  const std::string text = c->timeline().ToText();
  SCOPED_TRACE(text);
  EXPECT_NE(text.find("[00:00:00]   namespace/team created\n"), std::string::npos);
  EXPECT_NE(text.find("[00:00:30] $ kubectl scale rs/r --replicas=2 -n team\n"
                      "[00:00:30]   replicaset.apps/r scaled\n"),
            std::string::npos);
  EXPECT_NE(text.find("[00:01:00] $ kubectl delete ReplicaSet r -n team\n"
                      "[00:01:00]   replicaset.apps \"r\" deleted\n"),
            std::string::npos);
}

const std::string kNoAutoscalerScenario = R"(
seed: 7
autoscaler: false
nodePools:
- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 3}
- name: gpu-pool
  machineType: n1-standard-4
  accelerator: {type: nvidia-tesla-t4, count: 1}
  minNodes: 0
  maxNodes: 5
  taints: ["nvidia.com/gpu=present:NoSchedule"]
timeline:)" + GpuPodAction(600) + R"(
  - at: 1m
    resize: {nodePool: gpu-pool, nodeCount: 2}
  - at: 20m
    resize: {nodePool: gpu-pool, nodeCount: 0}
runFor: 30m
)";

TEST(ScenarioRunTest, SameScenarioAndSeedGiveTheSameBytes) {
  auto sc = sim::ParseScenario(kNoAutoscalerScenario, "s.yaml", "");
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  auto a = RunScenario(*sc);
  auto b = RunScenario(*sc);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string text = (*a)->timeline().ToText();
  EXPECT_EQ(text, (*b)->timeline().ToText());
  EXPECT_EQ((*a)->timeline().ToJson(), (*b)->timeline().ToJson());
  EXPECT_NE(text.find("Completed"), std::string::npos);

  sim::Scenario other = *sc;
  other.world.seed = 8;
  auto c = RunScenario(other);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(text, (*c)->timeline().ToText());  // other instance names
}

// ---- Trace replay
// --------------------------------------------------------------------------------

TEST(TraceReplayTest, ATracesPodsArriveRunAndEndAndTheReportCountsThem) {
  // A T4 pool at 0 nodes (max 2), a CSV trace: two 1-GPU training pods at 0 s and 60 s that
  // run 10 minutes, one serving pod deleted at 20 minutes, one that can never fit (3 GPUs on a
  // 1-GPU pool), and one arriving after the end.
  const std::string dir = tidepool::testing::TestTempDir();
  std::ofstream(dir + "/t.csv") << "name,arrival,duration,end,cpu,memory,gpus,class\n"
                                   "train-1,0,10m,,1,1Gi,1,training\n"
                                   "train-2,60,10m,,1,1Gi,1,training\n"
                                   "serve-1,0,,20m,500m,1Gi,0,serving\n"
                                   "too-big,0,,,1,1Gi,3,training\n"
                                   "late,2h,1m,,1,1Gi,0,serving\n";
  const std::string scenario =
      "seed: 3\n"
      "nodePools:\n"
      "- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 1}\n"
      "- {name: t4, machineType: n1-standard-4, accelerator: {type: nvidia-tesla-t4, count: 1},\n"
      "   minNodes: 0, maxNodes: 2, taints: [\"nvidia.com/gpu=present:NoSchedule\"]}\n"
      "trace: {file: t.csv}\n"
      "runFor: 1h\n";
  auto c = RunInline(scenario, dir);
  ASSERT_NE(c, nullptr);
  const std::string text = c->timeline().ToText(/*summary_only=*/true);
  EXPECT_NE(text.find("[00:00:00] trace   " + dir +
                      "/t.csv (csv): 5 rows, 5 pods after sampling, "
                      "4 arriving before the end\n"),
            std::string::npos)
      << text;
  // The training pods ran 10 minutes and completed (then went with their nodes: kcm's pod GC);
  // the serving pod was deleted at 20 minutes; the late one never came.
  const std::string all = c->timeline().ToText();
  EXPECT_NE(all.find("[00:13:55] pod     train-1         0/1  Completed"), std::string::npos)
      << all;
  EXPECT_NE(all.find("[00:20:00] pod     serve-1         1/1  Terminating"), std::string::npos)
      << all;
  const json pods = ListOf(*c, "/api/v1/namespaces/default/pods");
  std::map<std::string, std::string> phase;
  for (const json& p : pods) phase[p["metadata"]["name"]] = p["status"].value("phase", "");
  EXPECT_EQ(phase["too-big"], "Pending");
  EXPECT_EQ(phase.count("serve-1"), 0u);
  EXPECT_EQ(phase.count("late"), 0u);
  const sim::ReportSummary r = c->recorder().Summary();
  ASSERT_EQ(r.classes.size(), 2u);
  const sim::ClassReport& serving = r.classes[0];
  EXPECT_EQ(serving.name, "serving");
  EXPECT_EQ(serving.scheduled, 1);
  EXPECT_LE(serving.max, 5);  // fits the default pool at once
  const sim::ClassReport& training = r.classes[1];
  EXPECT_EQ(training.pods, 3);
  EXPECT_EQ(training.scheduled, 2);
  EXPECT_EQ(training.never_scheduled, 1);
  // Scale-up from 0: the pods wait for a node and its driver, minutes, not seconds.
  EXPECT_GT(training.p50, 60);
  EXPECT_LT(training.max, 600);
  ASSERT_EQ(r.unscheduled_reasons.size(), 1u);
  EXPECT_NE(r.unscheduled_reasons[0].first.find("Insufficient nvidia.com/gpu"), std::string::npos)
      << r.unscheduled_reasons[0].first;
  // 2 GPU pods x (5 s to start + 10 minutes) allocated; the two T4 nodes were paid for longer.
  EXPECT_NEAR(r.gpu_hours_allocated, 2 * (10.0 / 60 + 5.0 / 3600), 1e-9);
  EXPECT_GT(r.gpu_hours_provisioned, r.gpu_hours_allocated);
  EXPECT_GT(r.cost, 0);
  // The CSV carries the same figures.
  const std::string csv = c->timeline().SummaryCsv();
  EXPECT_NE(csv.find("class,training,neverScheduled,1\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("cluster,,gpuHoursAllocated,0.34\n"), std::string::npos) << csv;
}

TEST(TraceReplayTest, AnOpenbTraceOnItsOwnNodes) {
  // openb's formats: two nodes of the trace (a V100 node with 8 GPUs, a P100 node with 2) and
  // its pods, one constrained to V100s; no autoscaling - the trace's cluster is fixed.
  const std::string dir = tidepool::testing::TestTempDir();
  std::ofstream(dir + "/nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\n"
                                       "node-v100,96000,786432,8,V100M16\n"
                                       "node-p100,64000,262144,2,P100\n";
  std::ofstream(dir + "/pods.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
         "deletion_time,scheduled_time\n"
         "p-1,8000,16384,4,1000,V100M16|V100M32,LS,Running,0,600,0\n"
         "p-2,4000,8192,1,1000,,BE,Running,10,610,10\n"
         "p-3,4000,8192,1,500,,BE,Running,20,620,20\n";
  const std::string scenario =
      "autoscaler: false\n"
      "nodePools: [{name: default-pool, machineType: e2-standard-4, initialNodeCount: 1}]\n"
      "trace: {file: pods.csv, nodes: nodes.csv, gpuModels: {V100M16: nvidia-tesla-v100, "
      "V100M32: nvidia-tesla-v100, P100: nvidia-tesla-p100}}\n"
      "runFor: 5m\n";
  auto c = RunInline(scenario, dir);
  ASSERT_NE(c, nullptr);
  const std::string text = c->timeline().ToText(/*summary_only=*/true);
  EXPECT_NE(text.find("/nodes.csv: 2 nodes with 10 GPUs\n"), std::string::npos) << text;
  EXPECT_NE(text.find("3 rows, 3 pods after sampling, 3 arriving before the end; 1 asked for a "
                      "share of a GPU and get a whole one"),
            std::string::npos)
      << text;
  std::map<std::string, std::string> node_of;
  for (const json& p : ListOf(*c, "/api/v1/namespaces/default/pods")) {
    EXPECT_EQ(p["status"].value("phase", ""), "Running") << p.dump();
    node_of[p["metadata"]["name"]] = p["spec"].value("nodeName", "");
  }
  EXPECT_EQ(node_of["p-1"], "node-v100");  // its affinity: a V100 node
  EXPECT_EQ(node_of.size(), 3u);
  const sim::ReportSummary r = c->recorder().Summary();
  EXPECT_NEAR(r.gpu_hours_provisioned, 10 * 5.0 / 60, 0.01);  // the trace's nodes, 5 minutes
  bool found = false;
  for (const sim::PoolReport& p : r.pools) {
    if (p.name != "trace-nodes") continue;
    found = true;
    EXPECT_EQ(p.size, 2);
    EXPECT_EQ(p.nodes_created, 2);
  }
  EXPECT_TRUE(found);
}

TEST(TraceReplayTest, TheSameTraceScenarioAndSeedGiveTheSameBytes) {
  const std::string dir = tidepool::testing::TestTempDir();
  std::ofstream(dir + "/t.csv") << "arrival,duration,cpu,memory,gpus,class\n"
                                   "0,5m,1,1Gi,1,a\n10,20m,1,1Gi,1,b\n30,1m,1,1Gi,0,a\n";
  const std::string scenario =
      "nodePools:\n"
      "- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 1}\n"
      "- {name: t4, machineType: n1-standard-4, accelerator: {type: nvidia-tesla-t4, count: 1},\n"
      "   minNodes: 0, maxNodes: 2}\n"
      "trace: {file: t.csv, sample: 0.9}\n"
      "runFor: 40m\n";
  auto a = RunInline(scenario, dir);
  auto b = RunInline(scenario, dir);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->timeline().ToText(), b->timeline().ToText());
  EXPECT_EQ(a->timeline().ToJson(), b->timeline().ToJson());
  EXPECT_EQ(a->timeline().SummaryCsv(), b->timeline().SummaryCsv());
  const auto html = [](SimCluster& c) {
    return sim::HtmlReport("t", "s", c.recorder().Summary(), c.recorder().Series());
  };
  EXPECT_EQ(html(*a), html(*b));
  EXPECT_GT(a->recorder().Summary().gpu_hours_allocated, 0);
}

}  // namespace
}  // namespace tidepool::runtime
