// The runtime's actors on an executor (`tidepool simulate`'s mode): KubeScheduler,
// KubeKubelets, KubeEventRecorder, KubeClusterCache and EmbeddedAutoscaler on a
// tidepool::EventQueue, over the in-process transport to a real ApiServer and ObjectStore on the
// queue's simulated clock, their informers (the factory's) driven from the store
// by cluster::StoreInformerDriver. No thread is made; runs replay exactly.
#include <dirent.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "client/shared_informers.h"
#include "cluster/in_process_transport.h"
#include "cluster/store_informer_driver.h"
#include "common/event_queue.h"
#include "client/test_api_server.h"
#include "runtime/embedded_autoscaler.h"
#include "runtime/kube_cluster.h"
#include "runtime/kube_kubelets.h"
#include "runtime/kube_objects_for_test.h"
#include "runtime/kube_scheduler.h"
#include "testing/builders.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::runtime {
namespace {

using client::ResourcePath;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

// Threads of this process now.
size_t Threads() {
  size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') ++n;
    }
    closedir(d);
  }
  return n;
}

json Node(const std::string& name, const std::string& gpus = "1") {
  return testing::Node(name, gpus);
}

// What KubeClusterCache watches.
const std::vector<std::string> kAutoscalerPaths = {"/api/v1/nodes",
                                                   "/api/v1/pods",
                                                   "/apis/policy/v1/poddisruptionbudgets",
                                                   "/apis/apps/v1/daemonsets",
                                                   "/apis/apps/v1/replicasets",
                                                   "/apis/apps/v1/statefulsets",
                                                   "/apis/batch/v1/jobs"};
using testing::GpuPod;

// An API server and its store on an EventQueue's clock, with the actors' informers fed from
// the store.
class DrivenCluster {
 public:
  DrivenCluster()
      : store_(queue_.clock(), nullptr, apiserver::StoreOptions{}),
        api_(queue_.clock(), store_, logs_, client::testing::ComponentTestOptions()),
        transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), queue_.clock(),
                cluster::InProcessRestOptions(transport_, "tidepool-test")),
        factory_(client_, queue_.clock()),
        driver_(store_, queue_) {
    factory_.SetDriver(&driver_);
    for (const char* ns : {"default", "kube-system", "kube-node-lease"}) {
      Create(ResourcePath("", "v1", "namespaces"),
             {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
      // kcm's root-ca-cert-publisher: the pods' token volumes mount it.
      Create(ResourcePath("", "v1", "configmaps", ns),
             {{"metadata", {{"name", "kube-root-ca.crt"}}}, {"data", {{"ca.crt", ""}}}});
    }
    auto s = scheduler::Scheduler::Create();
    EXPECT_TRUE(s.ok());
    scheduler_ = std::move(s).value();
  }

  void Create(const std::string& collection, const json& obj) {
    auto r = client_.Create(collection, obj);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void CreateNode(const json& node) { Create(ResourcePath("", "v1", "nodes"), node); }
  void CreatePod(const json& pod) { Create(ResourcePath("", "v1", "pods", "default"), pod); }

  std::unique_ptr<KubeScheduler> MakeScheduler() {
    return std::make_unique<KubeScheduler>(client_, queue_.clock(), *scheduler_,
                                           scheduler::SchedulingQueueOptions{}, nullptr, 1,
                                           &factory_, &queue_);
  }
  std::unique_ptr<KubeKubelets> MakeKubelets(kubelet::KubeletOptions o = {}) {
    return std::make_unique<KubeKubelets>(client_, queue_.clock(), o, nullptr, 2, &factory_,
                                          &queue_);
  }
  // Starts the factory's informers: the driver lists each at the queue's now.
  void StartFeed() {
    factory_.Start();
    queue_.RunUntil(queue_.Now());
  }
  void RunFor(Duration d) { queue_.RunUntil(queue_.Now() + d); }

  json Get(const std::string& path) {
    auto r = client_.Get(path);
    return r.ok() ? *r : json();
  }
  json Pod(const std::string& name) { return Get(ResourcePath("", "v1", "pods", "default", name)); }
  static std::string NodeOf(const json& pod) {
    return pod.contains("spec") ? pod["spec"].value("nodeName", "") : "";
  }
  static json Condition(const json& pod, const std::string& type) {
    const json conditions = pod.value("status", json::object()).value("conditions", json::array());
    for (const json& c : conditions) {
      if (c.value("type", "") == type) return c;
    }
    return json::object();
  }
  // "<component> <reason> <involved name>: <message>" of every event in default.
  std::vector<std::string> Events() {
    std::vector<std::string> out;
    const json list = Get(ResourcePath("", "v1", "events", "default"));
    for (const json& e : list.value("items", json::array())) {
      out.push_back(e["source"].value("component", "") + " " + e.value("reason", "") + " " +
                    e["involvedObject"].value("name", "") + ": " + e.value("message", ""));
    }
    return out;
  }
  // Every object of the store as stored (resourceVersions, uids and timestamps included).
  std::string Dump() {
    std::string out;
    for (const auto& [group, resource] : std::vector<std::pair<std::string, std::string>>{
             {"", "nodes"}, {"", "pods"}, {"", "events"}, {"coordination.k8s.io", "leases"}}) {
      const apiserver::Resource* r = apiserver::FindResource(group, "v1", resource);
      for (const apiserver::ObjectPtr& o : store_.List(*r, "").items) out += o->text + "\n";
    }
    return out;
  }

  EventQueue queue_;
  apiserver::ObjectStore store_;
  apiserver::PodLogs logs_;
  apiserver::ApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  client::SharedInformerFactory factory_;
  cluster::StoreInformerDriver driver_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
};

TEST(ExecutorActorsTest, TheSchedulerBindsOnceItsInformersSyncedWithNoThread) {
  DrivenCluster c;
  c.CreateNode(Node("n1"));
  c.CreatePod(GpuPod("p"));
  const size_t threads = Threads();
  auto sched = c.MakeScheduler();
  sched->Start();
  // Not synced yet: nothing is scheduled (WaitForCacheSync), and Start did not wait.
  c.RunFor(seconds(2));
  EXPECT_FALSE(sched->HasSynced());
  EXPECT_EQ(c.NodeOf(c.Pod("p")), "");
  c.StartFeed();
  EXPECT_TRUE(sched->HasSynced());
  c.RunFor(seconds(1));
  EXPECT_EQ(c.NodeOf(c.Pod("p")), "n1");
  EXPECT_EQ(c.Condition(c.Pod("p"), "PodScheduled").value("status", ""), "True");
  EXPECT_EQ(c.Events(),
            std::vector<std::string>(
                {"default-scheduler Scheduled p: Successfully assigned default/p to n1"}));
  // An unschedulable pod gets its condition and event; a node created later takes it.
  c.CreatePod(GpuPod("q"));
  c.RunFor(seconds(1));
  EXPECT_EQ(c.Condition(c.Pod("q"), "PodScheduled").value("reason", ""), "Unschedulable");
  EXPECT_EQ(c.Events().size(), 2u);
  c.CreateNode(Node("n2"));
  c.RunFor(seconds(30));
  EXPECT_EQ(c.NodeOf(c.Pod("q")), "n2");
  EXPECT_EQ(Threads(), threads);
  sched->Stop();
  sched.reset();
  // Nothing of the stopped scheduler is left on the queue.
  EXPECT_TRUE(c.queue_.Empty());
}

TEST(ExecutorActorsTest, KubeletsRunABoundPodAndKeepTheNodesLeaseOnTheSimulatedClock) {
  DrivenCluster c;
  c.CreateNode(Node("n1"));
  json pod = GpuPod("p");
  pod["spec"]["nodeName"] = "n1";
  c.CreatePod(pod);
  const size_t threads = Threads();
  auto kubelets = c.MakeKubelets();
  kubelets->Start();
  c.StartFeed();
  const TimePoint start = c.queue_.Now();
  c.RunFor(seconds(4));
  EXPECT_EQ(c.Pod("p")["status"].value("phase", ""), "Pending");  // pulling (startDelay 5 s)
  c.RunFor(seconds(2));
  const json status = c.Pod("p")["status"];
  EXPECT_EQ(status.value("phase", ""), "Running");
  EXPECT_EQ(c.Condition(c.Pod("p"), "Ready").value("status", ""), "True");
  EXPECT_TRUE(status.contains("podIP"));
  EXPECT_EQ(status["containerStatuses"][0]["ready"], true);
  const std::vector<std::string> events = c.Events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0], "kubelet Pulling p: Pulling image \"busybox:1.36\"");
  EXPECT_EQ(events[3], "kubelet Started p: Started container c");
  // The Lease: created at once, renewed every 10 s (+ up to 4 %) of the simulated clock.
  const std::string lease_path =
      ResourcePath("coordination.k8s.io", "v1", "leases", "kube-node-lease", "n1");
  const json lease = c.Get(lease_path);
  EXPECT_EQ(lease["spec"]["renewTime"], client::FormatMicroTime(start));
  c.RunFor(seconds(10));
  const std::string renewed = c.Get(lease_path)["spec"]["renewTime"];
  EXPECT_NE(renewed, lease["spec"]["renewTime"]);
  EXPECT_GT(renewed, client::FormatMicroTime(start + seconds(10)));
  EXPECT_LE(renewed, client::FormatMicroTime(start + milliseconds(10400)));
  // The heartbeat: lastHeartbeatTime when the kubelet starts, then every 5 minutes.
  const std::string node_path = ResourcePath("", "v1", "nodes", "", "n1");
  const std::string beat =
      c.Get(node_path)["status"]["conditions"][0].value("lastHeartbeatTime", "");
  EXPECT_GE(beat, FormatRfc3339(start));
  EXPECT_LE(beat, FormatRfc3339(start + seconds(11)));
  c.RunFor(minutes(6));
  const json node = c.Get(node_path);
  EXPECT_GT(node["status"]["conditions"][0].value("lastHeartbeatTime", ""), beat);
  // A graceful delete: the containers stop (termination 2 s), then the kubelet removes the pod.
  ASSERT_TRUE(c.client_.Delete(ResourcePath("", "v1", "pods", "default", "p")).ok());
  c.RunFor(seconds(1));
  EXPECT_TRUE(c.Pod("p")["metadata"].contains("deletionTimestamp"));
  c.RunFor(seconds(2));
  EXPECT_TRUE(c.Pod("p").is_null());
  EXPECT_EQ(c.Events().back(), "kubelet Killing p: Stopping container c");
  EXPECT_EQ(Threads(), threads);
  kubelets.reset();
  EXPECT_TRUE(c.queue_.Empty());
}

TEST(ExecutorActorsTest, KubeletsWithoutHeartbeatsWriteTheLeaseAndTheHeartbeatOnce) {
  DrivenCluster c;
  c.CreateNode(Node("n1"));
  kubelet::KubeletOptions o;
  o.heartbeats = false;
  auto kubelets = c.MakeKubelets(o);
  kubelets->Start();
  c.StartFeed();
  c.RunFor(seconds(1));
  const std::string lease_path =
      ResourcePath("coordination.k8s.io", "v1", "leases", "kube-node-lease", "n1");
  const std::string node_path = ResourcePath("", "v1", "nodes", "", "n1");
  const json lease = c.Get(lease_path);
  ASSERT_TRUE(lease.is_object());
  const json node = c.Get(node_path);
  EXPECT_FALSE(node["status"]["conditions"][0].value("lastHeartbeatTime", "").empty());
  c.RunFor(minutes(11));
  EXPECT_EQ(c.Get(lease_path), lease);  // not renewed: same object, same resourceVersion
  EXPECT_EQ(c.Get(node_path), node);    // no status report either
  kubelets.reset();
  EXPECT_TRUE(c.queue_.Empty());
}

TEST(ExecutorActorsTest, TheEventRecorderWrites25EventsOfAnObjectThenOneEvery5Minutes) {
  // A pod the autoscaler cannot help: NotTriggerScaleUp every 10 s for an hour. client-go's
  // spam filter writes 25, then one per 300 s; every repeat is counted in the written event.
  DrivenCluster c;
  const autoscaler::ObjectRef pod{"Pod", "default", "p", "uid-1"};
  {
    KubeEventRecorder rec(c.client_, c.queue_.clock(), "cluster-autoscaler", nullptr, &c.queue_);
    for (int i = 0; i < 360; ++i) {
      // A new message every 20 events (as node counts change): a new event object.
      rec.Event(pod, "Normal", "NotTriggerScaleUp", "m" + std::to_string(i / 20));
      c.RunFor(seconds(10));
    }
    // Written: the burst of 25 (0 s to 240 s), then one per token, a token per 300 s: at
    // 300 s, 600 s, ..., 3,300 s (11 more).
    EXPECT_EQ(rec.posted(), 360u);  // every event handled...
    EXPECT_EQ(rec.filtered(), 360u - 36u);  // ...36 written
  }
  const json list = c.Get(ResourcePath("", "v1", "events", "default"));
  int64_t counted = 0;
  for (const json& e : list["items"]) counted += e.value("count", 0);
  // Messages m0 and m1 (written whole, 20 and 5 of the burst), then some of the later ones:
  // the counts written are at most the events recorded.
  EXPECT_LE(counted, 360);
  EXPECT_GE(counted, 25);
}

TEST(ExecutorActorsTest, TheEventRecorderPostsOnTheExecutorAndCorrelatesRepeats) {
  DrivenCluster c;
  const size_t threads = Threads();
  const autoscaler::ObjectRef pod{"Pod", "default", "p", "uid-1"};
  {
    KubeEventRecorder rec(c.client_, c.queue_.clock(), "cluster-autoscaler", nullptr, &c.queue_);
    EXPECT_EQ(Threads(), threads);
    rec.Event(pod, "Normal", "TriggeredScaleUp", "up");
    rec.Event(pod, "Normal", "NotTriggerScaleUp", "no");  // the same instant: another name
    rec.Event(pod, "Normal", "TriggeredScaleUp", "up");   // a repeat: count 2
    rec.Flush();                                          // at once
    EXPECT_TRUE(c.Events().empty());
    EXPECT_EQ(c.queue_.Size(), 3u);
    c.RunFor(minutes(11));
    rec.Event(pod, "Normal", "TriggeredScaleUp", "up");  // past the 10 minutes: a new event
    c.RunFor(seconds(1));
    EXPECT_EQ(rec.posted(), 4u);
    EXPECT_EQ(rec.dropped(), 0u);
    rec.Event(pod, "Normal", "Dropped", "never posted");  // the recorder goes first
  }
  EXPECT_TRUE(c.queue_.Empty());
  const json list = c.Get(ResourcePath("", "v1", "events", "default"));
  std::vector<std::string> got;
  for (const json& e : list["items"]) {
    got.push_back(e["metadata"].value("name", "") + " " + e.value("reason", "") + " " +
                  std::to_string(e.value("count", 0)));
  }
  // client-go's names, "<object>.<hex nanoseconds>"; the second of one instant a nanosecond on.
  const auto hex = [](TimePoint t) {
    char buf[24];
    std::snprintf(
        buf, sizeof(buf), "%llx",
        static_cast<unsigned long long>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count()));
    return std::string(buf);
  };
  const TimePoint t0 = SimulatedClock::kDefaultStart;
  EXPECT_EQ(got, std::vector<std::string>({
                     "p." + hex(t0) + " TriggeredScaleUp 2",
                     "p." + hex(t0 + std::chrono::nanoseconds(1)) + " NotTriggerScaleUp 1",
                     "p." + hex(t0 + minutes(11)) + " TriggeredScaleUp 1",
                 }));
}

TEST(ExecutorActorsTest, TheAutoscalersCacheNeverWaitsForDrivenInformers) {
  DrivenCluster c;
  c.CreateNode(Node("n1"));
  c.CreatePod(GpuPod("p"));
  const size_t threads = Threads();
  KubeClusterCache cache(c.client_, c.queue_.clock(), nullptr, 1, &c.factory_, &c.queue_);
  cache.Start();
  EXPECT_EQ(Threads(), threads);
  const RealClock wall;
  const TimePoint before = wall.Now();
  EXPECT_FALSE(cache.WaitForSync(std::chrono::hours(1)));  // no wait
  EXPECT_LT(wall.Now() - before, seconds(10));
  // Every informer of the cache comes from the factory: the workload controllers' too.
  c.StartFeed();
  EXPECT_EQ(c.factory_.informers(), kAutoscalerPaths.size());
  EXPECT_TRUE(cache.HasSynced());
  EXPECT_TRUE(cache.WaitForSync(std::chrono::hours(1)));
  autoscaler::ClusterView view = cache.View();
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.nodes[0]->meta.name, "n1");
  EXPECT_EQ(view.pending_pods.size(), 1u);
  c.CreateNode(Node("n2"));
  c.driver_.Deliver();
  EXPECT_EQ(cache.View().nodes.size(), 2u);
  cache.Stop();
  EXPECT_EQ(Threads(), threads);
}

// A node group's template: a 1xT4 node.
api::Node GpuTemplateNode() {
  return ::tidepool::testing::MakeNode("t")
      .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}})
      .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
      .Obj();
}

TEST(ExecutorActorsTest, TheEmbeddedAutoscalerScalesUpForAPodTheSchedulerCouldNotPlace) {
  DrivenCluster c;
  ::tidepool::testing::FakeCloudProvider cloud;
  ::tidepool::testing::FakeNodeGroup& gpu = cloud.AddGroup("gpu-pool", 0, 5, 0, GpuTemplateNode());
  log::Logger logger("cluster-autoscaler", c.queue_.clock(), false);
  c.CreateNode(Node("cpu-1", "0"));
  c.CreatePod(GpuPod("train"));
  const size_t threads = Threads();
  auto sched = c.MakeScheduler();
  auto a =
      EmbeddedAutoscaler::Create(autoscaler::AutoscalingOptions{}, c.transport_, cloud, c.queue_,
                                 c.queue_.clock(), logger, 3, &c.factory_, &c.queue_);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  sched->Start();
  (*a)->Start();
  c.StartFeed();
  EXPECT_EQ(c.factory_.informers(), kAutoscalerPaths.size());  // every one of them driven
  // A GPU pod waits 30 s for more (unschedulablePodWithGpuTimeBuffer); loops every 10 s.
  c.RunFor(seconds(25));
  EXPECT_EQ(c.Condition(c.Pod("train"), "PodScheduled").value("reason", ""), "Unschedulable");
  EXPECT_TRUE(gpu.increases.empty());
  c.RunFor(seconds(10));
  EXPECT_EQ(gpu.increases, std::vector<int>{1});
  bool triggered = false;
  for (const std::string& e : c.Events()) {
    if (e.rfind("cluster-autoscaler TriggeredScaleUp train", 0) == 0) triggered = true;
  }
  EXPECT_TRUE(triggered);
  EXPECT_TRUE(
      c.Get(ResourcePath("", "v1", "configmaps", "kube-system", "cluster-autoscaler-status"))
          .is_object());
  EXPECT_EQ((*a)->loops(), 4u);
  EXPECT_EQ(Threads(), threads);
  (*a)->Stop();
  sched->Stop();
  EXPECT_TRUE(c.queue_.Empty());
}

TEST(ExecutorActorsTest, LoopsWhoseInputsDidNotChangeAreSkippedWhenSettled) {
  // An idle cluster: the first loop runs and is settled (Autoscaler::SettledUntil); the next
  // ones see the same view and the same cloud and are skipped. A cloud that tells no version
  // (NodesVersion 0), status heartbeats and verbose logs each keep every loop running.
  struct Case {
    std::string name;
    uint64_t nodes_version;
    bool heartbeat;
    int verbosity;
    uint64_t want_skipped;
  };
  for (const Case& k : std::vector<Case>{{"settled", 1, false, 0, 3},
                                         {"no cloud version", 0, false, 0, 0},
                                         {"heartbeats", 1, true, 0, 0},
                                         {"verbose", 1, false, 1, 0}}) {
    SCOPED_TRACE(k.name);
    DrivenCluster c;
    ::tidepool::testing::FakeCloudProvider cloud;
    ::tidepool::testing::FakeNodeGroup& gpu =
        cloud.AddGroup("gpu-pool", 0, 5, 0, GpuTemplateNode());
    gpu.nodes_version = k.nodes_version;
    log::Logger logger("cluster-autoscaler", c.queue_.clock(), false);
    logger.SetVerbosity(k.verbosity);
    c.CreateNode(Node("cpu-1", "0"));
    auto sched = c.MakeScheduler();
    autoscaler::AutoscalingOptions o;
    o.status_heartbeat = k.heartbeat;
    auto a = EmbeddedAutoscaler::Create(o, c.transport_, cloud, c.queue_, c.queue_.clock(), logger,
                                        3, &c.factory_, &c.queue_);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    sched->Start();
    (*a)->Start();
    c.StartFeed();
    c.RunFor(seconds(31));
    EXPECT_EQ((*a)->loops(), 4u);
    EXPECT_EQ((*a)->skipped_loops(), k.want_skipped);
    // A GPU pod arrives at 31 s: the loops run again, and the one at 70 s (the pod 30 s old and
    // more: unschedulablePodWithGpuTimeBuffer) scales up, as without skipping.
    c.CreatePod(GpuPod("train"));
    c.RunFor(seconds(38));
    EXPECT_TRUE(gpu.increases.empty());
    c.RunFor(seconds(2));
    EXPECT_EQ(gpu.increases, std::vector<int>{1});
    EXPECT_EQ((*a)->skipped_loops(), k.want_skipped);
    (*a)->Stop();
    sched->Stop();
  }
}

TEST(ExecutorActorsTest, TheStatusConfigMapIsRestampedEveryLoopOnlyWithHeartbeats) {
  // CA writes its status with the loop's `time` every loop; without status_heartbeat the
  // ConfigMap is written when anything else in it changes.
  for (const bool heartbeat : {true, false}) {
    SCOPED_TRACE(heartbeat);
    DrivenCluster c;
    ::tidepool::testing::FakeCloudProvider cloud;
    cloud.AddGroup("gpu-pool", 0, 5, 0, GpuTemplateNode());
    log::Logger logger("cluster-autoscaler", c.queue_.clock(), false);
    c.CreateNode(Node("cpu-1", "0"));
    autoscaler::AutoscalingOptions o;
    o.status_heartbeat = heartbeat;
    auto a = EmbeddedAutoscaler::Create(o, c.transport_, cloud, c.queue_, c.queue_.clock(),
                                        logger, 3, &c.factory_, &c.queue_);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    (*a)->Start();
    c.StartFeed();
    const std::string path =
        ResourcePath("", "v1", "configmaps", "kube-system", "cluster-autoscaler-status");
    c.RunFor(seconds(1));
    const json first = c.Get(path);
    ASSERT_TRUE(first.is_object());
    c.RunFor(seconds(30));
    const json later = c.Get(path);
    EXPECT_EQ((*a)->loops(), 4u);
    EXPECT_EQ(later == first, !heartbeat) << later.dump();
    if (heartbeat) {
      EXPECT_NE(later["data"]["status"], first["data"]["status"]);  // a new `time:`
    }
    (*a)->Stop();
  }
}

// A scheduler and the kubelets together: pending pods bound, run, their node's Lease renewed -
// what the store holds afterwards, byte for byte.
std::string RunScenario() {
  DrivenCluster c;
  c.CreateNode(Node("n1"));
  c.CreateNode(Node("n2"));
  auto sched = c.MakeScheduler();
  auto kubelets = c.MakeKubelets();
  sched->Start();
  kubelets->Start();
  c.StartFeed();
  for (const char* name : {"a", "b", "c"}) c.CreatePod(GpuPod(name));
  c.RunFor(minutes(1));
  return c.Dump();
}

TEST(ExecutorActorsTest, ARunReplaysExactly) {
  const std::string first = RunScenario();
  EXPECT_NE(first.find("\"phase\":\"Running\""), std::string::npos);
  EXPECT_NE(first.find("FailedScheduling"), std::string::npos);  // c: two GPUs for three pods
  EXPECT_EQ(RunScenario(), first);
}

}  // namespace
}  // namespace tidepool::runtime
