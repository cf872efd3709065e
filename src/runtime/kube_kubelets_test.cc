#include "runtime/kube_kubelets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::runtime {
namespace {

using client::ResourcePath;
using nlohmann::json;
using std::chrono::milliseconds;

json Node(const std::string& name) {
  const json resources = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"status", {{"capacity", resources}, {"allocatable", resources}}}};
}

json BoundPod(const std::string& name, const std::string& node, const std::string& duration = "",
              const std::string& restart = "Always") {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"nodeName", node},
                {"restartPolicy", restart},
                {"containers", json::array({{{"name", "c"}, {"image", "busybox:1.36"}}})}}}};
  if (!duration.empty()) pod["metadata"]["annotations"] = {{"tidepool.dev/duration", duration}};
  return pod;
}

class KubeKubeletsTest : public ::testing::Test {
 protected:
  KubeKubeletsTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_, "kubelet/v1.32.4")) {
    kubelets_ = std::make_unique<KubeKubelets>(client_, api_.clock(), FastOptions(), nullptr, 1);
    // What kcm's root-ca-cert-publisher keeps in every namespace: the pods' token volumes
    // (kube-api-access-xxxxx, added by the API's admission) mount it.
    Create("configmaps",
           {{"metadata", {{"name", "kube-root-ca.crt"}}}, {"data", {{"ca.crt", ""}}}});
  }
  // The kubelets' durations in milliseconds, so that the tests run fast.
  static kubelet::KubeletOptions FastOptions() {
    kubelet::KubeletOptions o;
    o.start_delay = milliseconds(200);
    o.image_pull = milliseconds(100);
    o.termination = milliseconds(100);
    o.node_lease_renew_interval = milliseconds(100);
    o.node_status_report_frequency = milliseconds(200);
    o.mount_retry_initial = milliseconds(20);
    o.mount_retry_max = milliseconds(100);
    o.config_retry = milliseconds(100);
    return o;
  }
  ~KubeKubeletsTest() override { kubelets_->Stop(); }

  void Create(const std::string& resource, const json& obj) {
    const std::string ns = resource == "nodes" ? "" : "default";
    auto r = client_.Create(ResourcePath("", "v1", resource, ns), obj);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  StatusOr<json> Pod(const std::string& name) {
    return client_.Get(ResourcePath("", "v1", "pods", "default", name));
  }
  std::string Phase(const std::string& name) {
    auto p = Pod(name);
    return p.ok() && p->contains("status") ? (*p)["status"].value("phase", "") : "";
  }
  std::vector<std::string> Events(const std::string& pod) {
    std::vector<std::string> out;
    auto list = client_.List(ResourcePath("", "v1", "events", "default"));
    if (!list.ok()) return out;
    for (const json& e : (*list)["items"]) {
      if (e["involvedObject"].value("name", "") != pod) continue;
      out.push_back(e["source"].value("component", "") + "/" + e["source"].value("host", "") + " " +
                    e.value("reason", "") + ": " + e.value("message", ""));
    }
    return out;
  }
  bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return pred();
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  std::unique_ptr<KubeKubelets> kubelets_;
};

TEST_F(KubeKubeletsTest, ABoundPodRunsWithContainerStatusesAddressesAndKubeletEvents) {
  Create("nodes", Node("n1"));
  Create("pods", BoundPod("p", "n1"));
  kubelets_->Start();
  ASSERT_TRUE(Eventually([&] { return Phase("p") == "Running"; }));
  const json status = (*Pod("p"))["status"];
  ASSERT_EQ(status["containerStatuses"].size(), 1u);
  const json& c = status["containerStatuses"][0];
  EXPECT_EQ(c["name"], "c");
  EXPECT_EQ(c["ready"], true);
  EXPECT_TRUE(c["state"].contains("running"));
  EXPECT_EQ(c["image"], "busybox:1.36");
  EXPECT_TRUE(status.contains("podIP"));
  EXPECT_TRUE(status.contains("hostIP"));
  EXPECT_TRUE(status.contains("startTime"));
  EXPECT_TRUE(Eventually([&] { return Events("p").size() >= 4; }));
  EXPECT_EQ(Events("p"), std::vector<std::string>({
                             "kubelet/n1 Pulling: Pulling image \"busybox:1.36\"",
                             "kubelet/n1 Pulled: Successfully pulled image \"busybox:1.36\" in 100ms "
                             "(100ms including waiting). Image size: " +
                                 Events("p")[1].substr(Events("p")[1].rfind(": ") + 2),
                             "kubelet/n1 Created: Created container: c",
                             "kubelet/n1 Started: Started container c",
                         }));
}

// The kubelet's condition order: conditions of other writers first, as they were, then its own
// with PodScheduled last (generateAPIPodStatus and mergePodStatus), what describe shows.
TEST_F(KubeKubeletsTest, PodConditionsAreInTheKubeletsOrder) {
  Create("nodes", Node("n1"));
  Create("pods", BoundPod("p", "n1"));
  const json conditions = {
      {"status",
       {{"conditions", json::array({{{"type", "PodScheduled"}, {"status", "True"}},
                                    {{"type", "example.com/Gate"}, {"status", "True"}}})}}}};
  ASSERT_TRUE(client_
                  .Patch(ResourcePath("", "v1", "pods", "default", "p", "status"),
                         client::PatchType::kMerge, conditions)
                  .ok());
  kubelets_->Start();
  ASSERT_TRUE(Eventually([&] { return Phase("p") == "Running"; }));
  const json pod = *Pod("p");
  std::vector<std::string> types;
  for (const json& c : pod["status"]["conditions"]) types.push_back(c["type"]);
  EXPECT_EQ(types,
            (std::vector<std::string>{"example.com/Gate", "PodReadyToStartContainers",
                                      "Initialized", "Ready", "ContainersReady", "PodScheduled"}));
}

// The kubelet's shouldPullImage: IfNotPresent pulls an image the node lacks, Always pulls at
// every start (and restart), Never does not pull and the pod waits with ErrImageNeverPull.
TEST_F(KubeKubeletsTest, ImagePullPolicies) {
  Create("nodes", Node("n1"));
  kubelets_->Start();
  auto pod = [](const std::string& name, const std::string& image, const std::string& policy) {
    json p = BoundPod(name, "n1");
    p["spec"]["containers"][0]["image"] = image;
    p["spec"]["containers"][0]["imagePullPolicy"] = policy;
    return p;
  };
  auto reasons = [&](const std::string& name) {
    std::vector<std::string> out;
    for (const std::string& e : Events(name)) out.push_back(e.substr(0, e.find(':')));
    return out;
  };
  const std::vector<std::string> pulled = {"kubelet/n1 Pulling", "kubelet/n1 Pulled",
                                           "kubelet/n1 Created", "kubelet/n1 Started"};
  // (The status may land before the events: each waits for its events.)
  auto has_events = [&](const std::string& name, size_t n) {
    return Eventually([&] { return reasons(name).size() >= n; });
  };
  Create("pods", pod("first", "busybox:1.36", "IfNotPresent"));
  ASSERT_TRUE(Eventually([&] { return Phase("first") == "Running"; }));
  ASSERT_TRUE(has_events("first", 4));
  EXPECT_EQ(reasons("first"), pulled);
  // The image is on the node now.
  Create("pods", pod("again", "busybox:1.36", "IfNotPresent"));
  ASSERT_TRUE(Eventually([&] { return Phase("again") == "Running"; }));
  ASSERT_TRUE(has_events("again", 3));
  EXPECT_EQ(reasons("again"),
            (std::vector<std::string>{"kubelet/n1 Pulled", "kubelet/n1 Created",
                                      "kubelet/n1 Started"}));
  EXPECT_EQ(Events("again")[0],
            "kubelet/n1 Pulled: Container image \"busybox:1.36\" already present on machine");
  Create("pods", pod("always", "busybox:1.36", "Always"));
  ASSERT_TRUE(Eventually([&] { return Phase("always") == "Running"; }));
  ASSERT_TRUE(has_events("always", 4));
  EXPECT_EQ(reasons("always"), pulled);
  EXPECT_EQ(Events("always")[1].rfind(
                "kubelet/n1 Pulled: Successfully pulled image \"busybox:1.36\" in 100ms", 0),
            0u);
  Create("pods", pod("never", "absent:1", "Never"));
  ASSERT_TRUE(Eventually([&] { return !Events("never").empty(); }));
  EXPECT_EQ(Events("never"),
            (std::vector<std::string>{"kubelet/n1 ErrImageNeverPull: Container image "
                                      "\"absent:1\" is not present with pull policy of Never"}));
  ASSERT_TRUE(Eventually([&] {
    auto p = Pod("never");
    return p.ok() && (*p)["status"].contains("containerStatuses") &&
           (*p)["status"]["containerStatuses"][0]["state"]["waiting"].value("reason", "") ==
               "ErrImageNeverPull";
  }));
  EXPECT_EQ(Phase("never"), "Pending");
  const json waiting = (*Pod("never"))["status"];
  EXPECT_TRUE(waiting.contains("startTime"));
  std::vector<std::string> types;
  for (const json& c : waiting["conditions"]) types.push_back(c["type"]);
  EXPECT_EQ(types, (std::vector<std::string>{"PodReadyToStartContainers", "Initialized", "Ready",
                                             "ContainersReady"}));
  // Another pod brings the image to the node: the waiting pod starts (the kubelet's next sync).
  Create("pods", pod("bringer", "absent:1", "IfNotPresent"));
  ASSERT_TRUE(Eventually([&] { return Phase("never") == "Running"; }));
}

// The waiting state of the pod's first container: "reason: message".
std::string Waiting(const StatusOr<json>& pod) {
  if (!pod.ok() || !(*pod)["status"].contains("containerStatuses")) return "";
  const json& w = (*pod)["status"]["containerStatuses"][0]["state"]["waiting"];
  return w.is_object() ? w.value("reason", "") + ": " + w.value("message", "") : "";
}

// A volume whose ConfigMap is missing does not mount (FailedMount, PodReadyToStartContainers
// False, nothing pulled); once it exists the pod starts at the next retry.
TEST_F(KubeKubeletsTest, APodWaitsForTheConfigMapItsVolumeMounts) {
  Create("nodes", Node("n1"));
  kubelets_->Start();
  json p = BoundPod("mounts", "n1");
  p["spec"]["volumes"] = {{{"name", "cfg"}, {"configMap", {{"name", "app-config"}}}},
                          {{"name", "unused"}, {"secret", {{"secretName", "absent"}}}}};
  p["spec"]["containers"][0]["volumeMounts"] = {{{"name", "cfg"}, {"mountPath", "/etc/app"}}};
  Create("pods", p);
  // A volume no container uses is not mounted: its Secret may be missing.
  json unused = BoundPod("unused", "n1");
  unused["spec"]["volumes"] = {{{"name", "unused"}, {"secret", {{"secretName", "absent"}}}}};
  Create("pods", unused);
  ASSERT_TRUE(Eventually([&] { return Phase("unused") == "Running"; }));
  const std::string failed =
      "kubelet/n1 FailedMount: MountVolume.SetUp failed for volume \"cfg\" : configmap "
      "\"app-config\" not found";
  ASSERT_TRUE(Eventually([&] { return !Events("mounts").empty(); }));
  EXPECT_EQ(Events("mounts"), std::vector<std::string>{failed});
  const json status = (*Pod("mounts"))["status"];
  EXPECT_EQ(status["phase"], "Pending");
  EXPECT_EQ(status["conditions"][0]["type"], "PodReadyToStartContainers");
  EXPECT_EQ(status["conditions"][0]["status"], "False");
  EXPECT_EQ(Waiting(Pod("mounts")), "ContainerCreating: ");
  Create("configmaps", {{"metadata", {{"name", "app-config"}}}, {"data", {{"k", "v"}}}});
  ASSERT_TRUE(Eventually([&] { return Phase("mounts") == "Running"; }));
  ASSERT_TRUE(Eventually([&] { return Events("mounts").size() >= 4; }));  // Started may lag
  const std::vector<std::string> events = Events("mounts");
  EXPECT_EQ(events[0], failed);
  // (The unused pod brought the image.)
  EXPECT_EQ(events[1],
            "kubelet/n1 Pulled: Container image \"busybox:1.36\" already present on machine");
  EXPECT_EQ((*Pod("mounts"))["status"]["conditions"][0]["status"], "True");
}

// A container whose environment reads a missing ConfigMap, then a key it lacks, waits with
// CreateContainerConfigError (event Failed "Error: ..."), and runs once the key is there.
TEST_F(KubeKubeletsTest, AContainerWaitsForTheConfigMapKeyItsEnvironmentReads) {
  Create("nodes", Node("n1"));
  kubelets_->Start();
  json p = BoundPod("env", "n1");
  p["spec"]["containers"][0]["env"] = {
      {{"name", "MODE"},
       {"valueFrom", {{"configMapKeyRef", {{"name", "app-config"}, {"key", "mode"}}}}}}};
  Create("pods", p);
  ASSERT_TRUE(Eventually([&] {
    return Waiting(Pod("env")) == "CreateContainerConfigError: configmap \"app-config\" not found";
  }));
  EXPECT_EQ(Phase("env"), "Pending");
  auto has = [&](const std::string& event) {
    const std::vector<std::string> events = Events("env");
    return std::find(events.begin(), events.end(), event) != events.end();
  };
  // The recorder writes events on its own: the status may land first.
  EXPECT_TRUE(Eventually(
      [&] { return has("kubelet/n1 Failed: Error: configmap \"app-config\" not found"); }));
  Create("configmaps", {{"metadata", {{"name", "app-config"}}}, {"data", {{"other", "v"}}}});
  ASSERT_TRUE(Eventually([&] {
    return Waiting(Pod("env")) ==
           "CreateContainerConfigError: couldn't find key mode in ConfigMap default/app-config";
  }));
  ASSERT_TRUE(client_
                  .Patch(ResourcePath("", "v1", "configmaps", "default", "app-config"),
                         client::PatchType::kMerge, json{{"data", {{"mode", "fast"}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Phase("env") == "Running"; }));
  EXPECT_TRUE(Eventually([&] { return has("kubelet/n1 Started: Started container c"); }));
}

// Two pods that start together pull the same image: each reports its pull (Pulling, then
// Pulled "Successfully pulled image"), as the kubelet does for each pod's EnsureImageExists.
TEST_F(KubeKubeletsTest, PodsPullingOneImageTogetherEachReportTheirPull) {
  // A pull long enough that both pods start within it on a busy machine.
  kubelet::KubeletOptions o = FastOptions();
  o.start_delay = milliseconds(3000);
  o.image_pull = milliseconds(2000);
  kubelets_ = std::make_unique<KubeKubelets>(client_, api_.clock(), o, nullptr, 1);
  Create("nodes", Node("n1"));
  for (const char* name : {"a", "b"}) Create("pods", BoundPod(name, "n1"));
  kubelets_->Start();  // both pods are listed, and start, at once
  ASSERT_TRUE(Eventually([&] { return Phase("a") == "Running" && Phase("b") == "Running"; }));
  for (const char* name : {"a", "b"}) {
    SCOPED_TRACE(name);
    const std::vector<std::string> events = Events(name);
    ASSERT_GE(events.size(), 2u);
    EXPECT_EQ(events[0].rfind("kubelet/n1 Pulling", 0), 0u);
    EXPECT_EQ(events[1].rfind("kubelet/n1 Pulled: Successfully pulled image", 0), 0u);
  }
}

// A crash-looping container whose imagePullPolicy is Always is pulled again at each restart.
TEST_F(KubeKubeletsTest, AnAlwaysContainerIsPulledAtEveryRestart) {
  Create("nodes", Node("n1"));
  json p = BoundPod("crash", "n1", "10ms");
  p["spec"]["containers"][0]["imagePullPolicy"] = "Always";
  p["metadata"]["annotations"]["tidepool.dev/exit-code"] = "1";
  Create("pods", p);
  kubelets_->Start();
  auto count = [&](const std::string& reason) {
    int n = 0;
    auto list = client_.List(ResourcePath("", "v1", "events", "default"));
    if (!list.ok()) return 0;
    for (const json& e : (*list)["items"]) {
      if (e.value("reason", "") == reason) n += e.value("count", 1);
    }
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return count("Started") >= 2; }));
  EXPECT_GE(count("Pulling"), 2);
  EXPECT_EQ(count("Pulling"), count("Pulled"));
}

TEST_F(KubeKubeletsTest, AFinishedRunEndsTheNeverRestartedPodSucceeded) {
  Create("nodes", Node("n1"));
  kubelets_->Start();
  Create("pods", BoundPod("job", "n1", "300ms", "Never"));
  ASSERT_TRUE(Eventually([&] { return Phase("job") == "Succeeded"; }));
  const json c = (*Pod("job"))["status"]["containerStatuses"][0];
  EXPECT_EQ(c["state"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(c["state"]["terminated"]["exitCode"], 0);
}

TEST_F(KubeKubeletsTest, AGracefulDeleteStopsTheContainersThenTheKubeletRemovesThePod) {
  Create("nodes", Node("n1"));
  Create("pods", BoundPod("p", "n1"));
  kubelets_->Start();
  ASSERT_TRUE(Eventually([&] { return Phase("p") == "Running"; }));
  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "pods", "default", "p")).ok());
  EXPECT_TRUE(Eventually([&] { return Pod("p").status().code() == StatusCode::kNotFound; }));
  EXPECT_TRUE(Eventually([&] {
    for (const std::string& e : Events("p")) {
      if (e == "kubelet/n1 Killing: Stopping container c") return true;
    }
    return false;
  }));
}

TEST_F(KubeKubeletsTest, APodBoundBeforeItsNodeExistsRunsOnceTheNodeRegisters) {
  kubelets_->Start();
  Create("pods", BoundPod("early", "n2"));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(Phase("early"), "Pending");
  Create("nodes", Node("n2"));
  EXPECT_TRUE(Eventually([&] { return Phase("early") == "Running"; }));
}

TEST_F(KubeKubeletsTest, AKwokNodeTurnsReadyAndEveryRegisteredNodeKeepsALease) {
  // The kubelets' Leases live in kube-node-lease (the API server's system namespace).
  ASSERT_TRUE(client_
                  .Create(ResourcePath("", "v1", "namespaces"),
                          {{"apiVersion", "v1"},
                           {"kind", "Namespace"},
                           {"metadata", {{"name", "kube-node-lease"}}}})
                  .ok());
  json kwok = Node("kwok-1");
  kwok["metadata"]["annotations"] = {{"kwok.x-k8s.io/node", "fake"}};
  Create("nodes", kwok);
  // A node a kubelet registered (it has conditions), and one nobody runs (no conditions).
  json registered = Node("n1");
  registered["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
  Create("nodes", registered);
  Create("nodes", Node("bare"));
  kubelets_->Start();
  auto node = [&](const std::string& name) {
    return *client_.Get(ResourcePath("", "v1", "nodes", "", name));
  };
  ASSERT_TRUE(Eventually([&] { return node("kwok-1")["status"].contains("conditions"); }));
  const json st = node("kwok-1")["status"];
  EXPECT_EQ(st["conditions"][0]["type"], "Ready");
  EXPECT_EQ(st["conditions"][0]["status"], "True");
  EXPECT_EQ(st["phase"], "Running");
  EXPECT_EQ(st["capacity"]["cpu"], "4");  // kept: only absent fields get KWOK's defaults
  auto lease = [&](const std::string& name) {
    return client_.Get(
        ResourcePath("coordination.k8s.io", "v1", "leases", "kube-node-lease", name));
  };
  for (const std::string name : {"kwok-1", "n1"}) {
    ASSERT_TRUE(Eventually([&] { return lease(name).ok(); })) << name;
    const json l = *lease(name);
    EXPECT_EQ(l["spec"]["holderIdentity"], name);
    EXPECT_EQ(l["metadata"]["ownerReferences"][0]["uid"], node(name)["metadata"]["uid"]);
    const std::string first = l["spec"]["renewTime"];
    EXPECT_TRUE(Eventually([&] { return (*lease(name))["spec"]["renewTime"] != first; })) << name;
  }
  EXPECT_EQ(lease("bare").status().code(), StatusCode::kNotFound);
  // The status heartbeat touches lastHeartbeatTime only (a strategic merge by type).
  ASSERT_TRUE(Eventually(
      [&] { return node("n1")["status"]["conditions"][0].contains("lastHeartbeatTime"); }));
  EXPECT_EQ(node("n1")["status"]["conditions"][0]["status"], "True");
  EXPECT_EQ(node("n1")["status"]["conditions"].size(), 1u);
}

TEST_F(KubeKubeletsTest, ANodeMarkedUnknownWhileItsKubeletLivesIsReportedAgain) {
  json registered = Node("n1");
  registered["status"]["conditions"] = json::array(
      {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"},
        {"message", "kubelet is posting ready status"}}});
  Create("nodes", registered);
  kubelets_->Start();
  auto ready = [&] {
    return (*client_.Get(ResourcePath("", "v1", "nodes", "", "n1")))["status"]["conditions"][0];
  };
  // Its kubelet started: it reported the node's status.
  ASSERT_TRUE(Eventually([&] { return ready().contains("lastHeartbeatTime"); }));
  const std::string path = ResourcePath("", "v1", "nodes", "", "n1", "status");
  // The node lifecycle controller, after this process stalled past the grace period.
  ASSERT_TRUE(client_
                  .Patch(path, client::PatchType::kStrategicMerge,
                         {{"status",
                           {{"conditions", json::array({{{"type", "Ready"},
                                                         {"status", "Unknown"},
                                                         {"reason", "NodeStatusUnknown"},
                                                         {"message", "Kubelet stopped posting node status."}}})}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return ready()["status"] == "True"; })) << ready().dump();
  EXPECT_EQ(ready()["reason"], "KubeletReady");
  EXPECT_EQ(ready()["message"], "kubelet is posting ready status");
  EXPECT_TRUE(ready().contains("lastTransitionTime"));
}

TEST_F(KubeKubeletsTest, APodMarkedNotReadyByAnotherWriterIsReadyAgainWhileItRuns) {
  Create("nodes", Node("n1"));
  Create("pods", BoundPod("p", "n1"));
  kubelets_->Start();
  auto ready = [&] {
    for (const json& c : (*Pod("p"))["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "Ready") return c.value("status", "");
    }
    return std::string();
  };
  ASSERT_TRUE(Eventually([&] { return ready() == "True"; }));
  // The node lifecycle controller's MarkPodsNotReady while the node was Unknown.
  ASSERT_TRUE(client_
                  .Patch(ResourcePath("", "v1", "pods", "default", "p", "status"),
                         client::PatchType::kStrategicMerge,
                         {{"status", {{"conditions", json::array({{{"type", "Ready"},
                                                                  {"status", "False"}}})}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] { return ready() == "True"; })) << ready();
  EXPECT_EQ(Phase("p"), "Running");
}

}  // namespace
}  // namespace tidepool::runtime
