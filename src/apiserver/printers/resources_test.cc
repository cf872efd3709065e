// Printers other than pods: nodes, events and the smaller core and group resources.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/printers/printers.h"

namespace tidepool::apiserver::printers {
namespace {

using ::nlohmann::json;

constexpr int64_t k2026 = 1767225600;                                 // 2026-01-01T00:00:00Z
const TimePoint kNow = TimePoint(std::chrono::seconds(k2026 + 600));  // 00:10:00

// Every object below was created at 2026-01-01T00:00:00Z, so its age at kNow is "10m".
json Meta(std::string_view name) {
  return {{"name", name}, {"creationTimestamp", "2026-01-01T00:00:00Z"}};
}

struct CellsCase {
  std::string name;
  json object;
  json want;  // the full cell array
};

void ExpectCells(std::string_view group, std::string_view resource,
                 const std::vector<CellsCase>& cases) {
  const size_t columns = ColumnsFor(group, resource).size();
  for (const CellsCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    json cells = Cells(group, resource, tc.object, kNow);
    EXPECT_EQ(cells.size(), columns);
    EXPECT_EQ(cells, tc.want) << cells.dump();
  }
}

// ---- nodes -------------------------------------------------------------------------------------

json Node(json labels, json conditions, bool unschedulable = false,
          json node_info = {{"kubeletVersion", "v1.32.0"},
                            {"osImage", "Ubuntu 22.04.4 LTS"},
                            {"kernelVersion", "5.15.0"},
                            {"containerRuntimeVersion", "containerd://1.7.2"}}) {
  json meta = Meta("node-1");
  if (!labels.is_null()) {
    meta["labels"] = labels;
  }
  json node = {{"kind", "Node"}, {"apiVersion", "v1"}, {"metadata", meta}};
  if (unschedulable) {
    node["spec"]["unschedulable"] = true;
  }
  node["status"]["conditions"] = conditions;
  node["status"]["nodeInfo"] = node_info;
  node["status"]["addresses"] = json::parse(
      R"([{"type":"Hostname","address":"node-1"},{"type":"InternalIP","address":"10.0.0.1"},)"
      R"({"type":"InternalIP","address":"10.0.0.2"}])");
  return node;
}

json ReadyCondition(std::string_view status) {
  return json::array({{{"type", "MemoryPressure"}, {"status", "False"}},
                      {{"type", "Ready"}, {"status", status}, {"reason", "KubeletReady"}}});
}

TEST(NodePrinterTest, StatusRolesAndWideColumns) {
  const json wide_tail = {"10.0.0.1", "<none>", "Ubuntu 22.04.4 LTS", "5.15.0",
                          "containerd://1.7.2"};
  auto row = [&](std::string status, std::string roles) {
    json r = {"node-1", status, roles, "10m", "v1.32.0"};
    for (const auto& c : wide_tail) {
      r.push_back(c);
    }
    return r;
  };
  ExpectCells(
      "", "nodes",
      {
          {"ready control plane",
           Node({{"node-role.kubernetes.io/control-plane", ""}}, ReadyCondition("True")),
           row("Ready", "control-plane")},
          {"not ready", Node(nullptr, ReadyCondition("False")), row("NotReady", "<none>")},
          {"ready condition Unknown is NotReady", Node(nullptr, ReadyCondition("Unknown")),
           row("NotReady", "<none>")},
          {"cordoned", Node(nullptr, ReadyCondition("True"), true),
           row("Ready,SchedulingDisabled", "<none>")},
          {"cordoned and not ready", Node(nullptr, ReadyCondition("False"), true),
           row("NotReady,SchedulingDisabled", "<none>")},
          {"no Ready condition", Node(nullptr, json::array()), row("Unknown", "<none>")},
          {"no Ready condition, cordoned", Node(nullptr, nullptr, true),
           row("Unknown,SchedulingDisabled", "<none>")},
          {"the last Ready condition wins",
           Node(nullptr, json::parse(R"([{"type":"Ready","status":"False"},)"
                                     R"({"type":"Ready","status":"True"}])")),
           row("Ready", "<none>")},
          {"roles sorted, kubernetes.io/role value, empty suffix ignored",
           Node({{"node-role.kubernetes.io/worker", ""},
                 {"node-role.kubernetes.io/control-plane", "true"},
                 {"node-role.kubernetes.io/", ""},
                 {"kubernetes.io/role", "gpu"},
                 {"kubernetes.io/hostname", "node-1"}},
                ReadyCondition("True")),
           row("Ready", "control-plane,gpu,worker")},
          {"duplicate role from both label kinds",
           Node({{"node-role.kubernetes.io/master", ""}, {"kubernetes.io/role", "master"}},
                ReadyCondition("True")),
           row("Ready", "master")},
          {"empty kubernetes.io/role is ignored",
           Node({{"kubernetes.io/role", ""}}, ReadyCondition("True")), row("Ready", "<none>")},
      });
}

TEST(NodePrinterTest, MissingInfoAndAddresses) {
  json node = {{"metadata", {{"name", "bare"}}}};
  ExpectCells("", "nodes",
              {{"nothing but a name",
                node,
                {"bare", "Unknown", "<none>", "<unknown>", "", "<none>", "<none>", "<unknown>",
                 "<unknown>", "<unknown>"}}});
  json with_external = Node(nullptr, ReadyCondition("True"), false, json::object());
  with_external["status"]["addresses"].push_back({{"type", "ExternalIP"}, {"address", "1.2.3.4"}});
  ExpectCells("", "nodes",
              {{"external IP, empty nodeInfo",
                with_external,
                {"node-1", "Ready", "<none>", "10m", "", "10.0.0.1", "1.2.3.4", "<unknown>",
                 "<unknown>", "<unknown>"}}});
}

// ---- events ------------------------------------------------------------------------------------

TEST(EventPrinterTest, CoreEvents) {
  // Columns: Last Seen, Type, Reason, Object, Subobject, Source, Message, First Seen, Count, Name.
  const json scheduled = json::parse(R"({
    "kind":"Event","apiVersion":"v1",
    "metadata":{"name":"gpu-pod.18ec915d0aaeb60f","namespace":"default",
                "creationTimestamp":"2026-01-01T00:08:00Z"},
    "involvedObject":{"kind":"Pod","namespace":"default","name":"gpu-pod","uid":"u",
                      "apiVersion":"v1","fieldPath":"spec.containers{cuda}"},
    "reason":"Scheduled","message":"  Successfully assigned default/gpu-pod to node-1\n",
    "source":{"component":"default-scheduler","host":"node-1"},
    "firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:08:00Z",
    "count":3,"type":"Normal","eventTime":null,"reportingComponent":"x","reportingInstance":""})");
  json no_times = scheduled;
  no_times.erase("firstTimestamp");
  no_times.erase("lastTimestamp");
  json event_time_only = no_times;
  event_time_only["eventTime"] = "2026-01-01T00:09:30.123456Z";
  json first_only = scheduled;
  first_only.erase("lastTimestamp");
  json series = event_time_only;
  series["series"] = {{"count", 7}, {"lastObservedTime", "2026-01-01T00:09:58.000001Z"}};
  json singleton = scheduled;
  singleton.erase("count");
  json node_event = json::parse(R"({
    "metadata":{"name":"node-1.abc"},
    "involvedObject":{"kind":"Node","name":"node-1","uid":"node-1"},
    "reason":"NodeReady","message":"Node node-1 status is now: NodeReady","type":"Normal",
    "source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2026-01-01T00:00:00Z",
    "lastTimestamp":"2026-01-01T00:00:00Z","count":1})");
  json unnamed = node_event;
  unnamed["involvedObject"].erase("name");
  json reporting = node_event;
  reporting.erase("source");
  reporting["reportingComponent"] = "kubelet";
  reporting["reportingInstance"] = "node-7";
  json component_only = node_event;
  component_only["source"] = {{"component", "kubelet"}};

  ExpectCells("", "events",
              {
                  {"count over a time span",
                   scheduled,
                   {"2m", "Normal", "Scheduled", "pod/gpu-pod", "spec.containers{cuda}",
                    "default-scheduler, node-1", "Successfully assigned default/gpu-pod to node-1",
                    "10m", 3, "gpu-pod.18ec915d0aaeb60f"}},
                  {"no timestamps at all",
                   no_times,
                   {"<unknown>", "Normal", "Scheduled", "pod/gpu-pod", "spec.containers{cuda}",
                    "default-scheduler, node-1", "Successfully assigned default/gpu-pod to node-1",
                    "<unknown>", 3, "gpu-pod.18ec915d0aaeb60f"}},
                  {"eventTime stands in for both",
                   event_time_only,
                   {"29s", "Normal", "Scheduled", "pod/gpu-pod", "spec.containers{cuda}",
                    "default-scheduler, node-1", "Successfully assigned default/gpu-pod to node-1",
                    "29s", 3, "gpu-pod.18ec915d0aaeb60f"}},
                  {"last seen falls back to first seen",
                   first_only,
                   {"10m", "Normal", "Scheduled", "pod/gpu-pod", "spec.containers{cuda}",
                    "default-scheduler, node-1", "Successfully assigned default/gpu-pod to node-1",
                    "10m", 3, "gpu-pod.18ec915d0aaeb60f"}},
                  {"series gives last seen and count",
                   series,
                   {"1s", "Normal", "Scheduled", "pod/gpu-pod", "spec.containers{cuda}",
                    "default-scheduler, node-1", "Successfully assigned default/gpu-pod to node-1",
                    "29s", 7, "gpu-pod.18ec915d0aaeb60f"}},
                  {"a missing count is 1",
                   singleton,
                   {"2m", "Normal", "Scheduled", "pod/gpu-pod", "spec.containers{cuda}",
                    "default-scheduler, node-1", "Successfully assigned default/gpu-pod to node-1",
                    "10m", 1, "gpu-pod.18ec915d0aaeb60f"}},
                  {"node event",
                   node_event,
                   {"10m", "Normal", "NodeReady", "node/node-1", "", "kubelet, node-1",
                    "Node node-1 status is now: NodeReady", "10m", 1, "node-1.abc"}},
                  {"involved object without a name",
                   unnamed,
                   {"10m", "Normal", "NodeReady", "node", "", "kubelet, node-1",
                    "Node node-1 status is now: NodeReady", "10m", 1, "node-1.abc"}},
                  {"reporting controller and instance stand in for the source",
                   reporting,
                   {"10m", "Normal", "NodeReady", "node/node-1", "", "kubelet, node-7",
                    "Node node-1 status is now: NodeReady", "10m", 1, "node-1.abc"}},
                  {"source without host",
                   component_only,
                   {"10m", "Normal", "NodeReady", "node/node-1", "", "kubelet",
                    "Node node-1 status is now: NodeReady", "10m", 1, "node-1.abc"}},
              });
}

// events.k8s.io/v1 Events are stored as core's (conversion.h): their rows are printed from the
// stored form, as kube prints its one internal Event. Below, events.k8s.io Events as the store
// keeps them (regarding -> involvedObject, note -> message, reportingController ->
// reportingComponent, deprecated* -> their core fields).
TEST(EventPrinterTest, EventsK8sIoV1) {
  const json event = json::parse(R"({
    "kind":"Event","apiVersion":"v1",
    "metadata":{"name":"e1","namespace":"default"},
    "eventTime":"2026-01-01T00:05:00.000000Z","firstTimestamp":null,"lastTimestamp":null,
    "reportingComponent":"default-scheduler","reportingInstance":"default-scheduler-node-1",
    "action":"Binding","reason":"Scheduled","type":"Normal","source":{},
    "involvedObject":{"kind":"Pod","namespace":"default","name":"gpu-pod"},
    "message":"Successfully assigned default/gpu-pod to node-1"})");
  json deprecated = event;
  deprecated["source"] = {{"component", "kubelet"}, {"host", "node-1"}};
  deprecated["firstTimestamp"] = "2026-01-01T00:01:00Z";
  deprecated["lastTimestamp"] = "2026-01-01T00:09:00Z";
  deprecated["count"] = 4;
  EXPECT_EQ(ColumnsFor("events.k8s.io", "events").size(), ColumnsFor("", "events").size());
  ExpectCells("events.k8s.io", "events",
              {
                  {"new-style event",
                   event,
                   {"5m", "Normal", "Scheduled", "pod/gpu-pod", "",
                    "default-scheduler, default-scheduler-node-1",
                    "Successfully assigned default/gpu-pod to node-1", "5m", 1, "e1"}},
                  {"deprecated core fields",
                   deprecated,
                   {"60s", "Normal", "Scheduled", "pod/gpu-pod", "", "kubelet, node-1",
                    "Successfully assigned default/gpu-pod to node-1", "9m", 4, "e1"}},
              });
}

// ---- small core resources ----------------------------------------------------------------------

TEST(CorePrintersTest, NamespacesConfigMapsSecretsServiceAccounts) {
  ExpectCells("", "namespaces",
              {{"active",
                {{"metadata", Meta("default")}, {"status", {{"phase", "Active"}}}},
                {"default", "Active", "10m"}},
               {"terminating",
                {{"metadata", Meta("old")}, {"status", {{"phase", "Terminating"}}}},
                {"old", "Terminating", "10m"}},
               {"no status", {{"metadata", Meta("x")}}, {"x", "", "10m"}}});
  ExpectCells("", "configmaps",
              {{"data and binaryData count together",
                {{"metadata", Meta("cm")},
                 {"data", {{"a", "1"}, {"b", "2"}}},
                 {"binaryData", {{"c", "AAAA"}}}},
                {"cm", 3, "10m"}},
               {"empty", {{"metadata", Meta("empty")}}, {"empty", 0, "10m"}}});
  ExpectCells("", "secrets",
              {{"opaque",
                {{"metadata", Meta("s")}, {"type", "Opaque"}, {"data", {{"k", "dg=="}}}},
                {"s", "Opaque", 1, "10m"}},
               {"no type, no data", {{"metadata", Meta("t")}}, {"t", "", 0, "10m"}}});
  ExpectCells("", "serviceaccounts",
              {{"default", {{"metadata", Meta("default")}}, {"default", 0, "10m"}},
               {"with a legacy token secret",
                {{"metadata", Meta("builder")}, {"secrets", {{{"name", "builder-token"}}}}},
                {"builder", 1, "10m"}}});
}

TEST(CorePrintersTest, Services) {
  auto svc = [](json spec, json status = nullptr) {
    json s = {{"metadata", Meta("svc")}, {"spec", spec}};
    if (!status.is_null()) {
      s["status"] = status;
    }
    return s;
  };
  ExpectCells(
      "", "services",
      {
          {"cluster IP with selector",
           svc({{"type", "ClusterIP"},
                {"clusterIP", "10.96.0.10"},
                {"clusterIPs", {"10.96.0.10"}},
                {"ports",
                 {{{"port", 53}, {"protocol", "UDP"}}, {{"port", 53}, {"protocol", "TCP"}}}},
                {"selector", {{"k8s-app", "kube-dns"}, {"app", "dns"}}}}),
           {"svc", "ClusterIP", "10.96.0.10", "<none>", "53/UDP,53/TCP", "10m",
            "app=dns,k8s-app=kube-dns"}},
          {"defaults: type ClusterIP, protocol TCP, no ports, no selector",
           svc({{"clusterIPs", {"10.96.0.1"}}}),
           {"svc", "ClusterIP", "10.96.0.1", "<none>", "<none>", "10m", "<none>"}},
          {"headless",
           svc({{"type", "ClusterIP"}, {"clusterIP", "None"}, {"ports", {{{"port", 80}}}}}),
           {"svc", "ClusterIP", "None", "<none>", "80/TCP", "10m", "<none>"}},
          {"node port with external IPs",
           svc({{"type", "NodePort"},
                {"clusterIP", "10.96.1.1"},
                {"externalIPs", {"1.1.1.1", "2.2.2.2"}},
                {"ports", {{{"port", 80}, {"nodePort", 30080}, {"protocol", "TCP"}}}}}),
           {"svc", "NodePort", "10.96.1.1", "1.1.1.1,2.2.2.2", "80:30080/TCP", "10m", "<none>"}},
          {"pending load balancer",
           svc({{"type", "LoadBalancer"},
                {"clusterIP", "10.96.2.2"},
                {"ports", {{{"port", 443}, {"nodePort", 31443}, {"protocol", "TCP"}}}}}),
           {"svc", "LoadBalancer", "10.96.2.2", "<pending>", "443:31443/TCP", "10m", "<none>"}},
          {"load balancer ingress sorted and unique, then external IPs",
           svc({{"type", "LoadBalancer"}, {"clusterIP", "10.96.2.2"}, {"externalIPs", {"9.9.9.9"}}},
               {{"loadBalancer",
                 {{"ingress",
                   {{{"ip", "5.5.5.5"}},
                    {{"hostname", "lb.example.com"}},
                    {{"ip", "4.4.4.4"}},
                    {{"ip", "5.5.5.5"}}}}}}}),
           {"svc", "LoadBalancer", "10.96.2.2", "4.4.4.4,5.5.5.5,lb.example.com,9.9.9.9", "<none>",
            "10m", "<none>"}},
          {"external name",
           svc({{"type", "ExternalName"}, {"externalName", "db.example.com"}}),
           {"svc", "ExternalName", "<none>", "db.example.com", "<none>", "10m", "<none>"}},
          {"unknown type",
           svc({{"type", "Bogus"}}),
           {"svc", "Bogus", "<none>", "<unknown>", "<none>", "10m", "<none>"}},
      });
}

TEST(CorePrintersTest, EndpointsAndPersistentVolumeClaims) {
  auto ep = [](std::string_view subsets) {
    return json{{"metadata", Meta("ep")}, {"subsets", json::parse(subsets)}};
  };
  ExpectCells(
      "", "endpoints",
      {
          {"no subsets", {{"metadata", Meta("ep")}}, {"ep", "<none>", "10m"}},
          {"one address, one port",
           ep(R"([{"addresses":[{"ip":"10.244.0.5"}],"ports":[{"port":8080}]}])"),
           {"ep", "10.244.0.5:8080", "10m"}},
          {"IPv6 address",
           ep(R"([{"addresses":[{"ip":"fd00::5"}],"ports":[{"port":53,"protocol":"UDP"}]}])"),
           {"ep", "[fd00::5]:53", "10m"}},
          {"headless without ports",
           ep(R"([{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}]}])"),
           {"ep", "10.0.0.1,10.0.0.2", "10m"}},
          {"more than three",
           ep(R"([{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],)"
              R"("ports":[{"port":80},{"port":443}]}])"),
           {"ep", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...", "10m"}},
          {"subset without addresses",
           ep(R"([{"notReadyAddresses":[{"ip":"10.0.0.9"}]}])"),
           {"ep", "", "10m"}},
      });
  const json bound = json::parse(R"({
    "metadata":{"name":"data","creationTimestamp":"2026-01-01T00:00:00Z"},
    "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"10Gi"}},
            "storageClassName":"standard","volumeName":"pvc-123","volumeMode":"Filesystem"},
    "status":{"phase":"Bound","accessModes":["ReadWriteMany","ReadWriteOnce","ReadWriteOnce"],
              "capacity":{"storage":"10Gi"}}})");
  json pending = json::parse(R"({
    "metadata":{"name":"wait","creationTimestamp":"2026-01-01T00:00:00Z",
                "annotations":{"volume.beta.kubernetes.io/storage-class":"legacy"}},
    "spec":{"storageClassName":"standard","volumeAttributesClassName":"gold","volumeMode":"Block"},
    "status":{"phase":"Pending"}})");
  json deleting = bound;
  deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:09:00Z";
  ExpectCells("", "persistentvolumeclaims",
              {
                  {"bound",
                   bound,
                   {"data", "Bound", "pvc-123", "10Gi", "RWO,RWX", "standard", "<unset>", "10m",
                    "Filesystem"}},
                  {"pending, beta class annotation",
                   pending,
                   {"wait", "Pending", "", "", "", "legacy", "gold", "10m", "Block"}},
                  {"terminating",
                   deleting,
                   {"data", "Terminating", "pvc-123", "10Gi", "RWO,RWX", "standard", "<unset>",
                    "10m", "Filesystem"}},
                  {"nothing set",
                   {{"metadata", Meta("x")}},
                   {"x", "", "", "", "", "", "<unset>", "10m", "Filesystem"}},
              });
}

// ---- apps, batch -------------------------------------------------------------------------------

json PodTemplate() {
  return json::parse(R"({"spec":{"containers":[{"name":"app","image":"nginx:1.27"},)"
                     R"({"name":"sidecar","image":"envoy:v1"}],)"
                     R"("nodeSelector":{"gpu":"true","zone":"a"}}})");
}

TEST(AppsPrintersTest, DeploymentsReplicaSetsDaemonSets) {
  json deploy = {
      {"metadata", Meta("web")},
      {"spec",
       {{"replicas", 3},
        {"selector",
         {{"matchLabels", {{"app", "web"}}},
          {"matchExpressions", {{{"key", "tier"}, {"operator", "In"}, {"values", {"b", "a"}}}}}}},
        {"template", PodTemplate()}}},
      {"status", {{"readyReplicas", 2}, {"updatedReplicas", 3}, {"availableReplicas", 2}}}};
  json scaled_default = {{"metadata", Meta("one")}, {"spec", {{"selector", json::object()}}}};
  json bad_selector = {
      {"metadata", Meta("bad")},
      {"spec",
       {{"replicas", 0},
        {"selector", {{"matchExpressions", {{{"key", "a"}, {"operator", "Is"}}}}}}}}};
  ExpectCells(
      "apps", "deployments",
      {{"rolling",
        deploy,
        {"web", "2/3", 3, 2, "10m", "app,sidecar", "nginx:1.27,envoy:v1", "app=web,tier in (a,b)"}},
       {"replicas default to 1, empty selector",
        scaled_default,
        {"one", "0/1", 0, 0, "10m", "", "", ""}},
       {"invalid selector", bad_selector, {"bad", "0/0", 0, 0, "10m", "", "", "<invalid>"}}});

  json rs = {{"metadata", Meta("web-5d4f")},
             {"spec",
              {{"replicas", 2},
               {"selector", {{"matchLabels", {{"app", "web"}, {"pod-template-hash", "5d4f"}}}}},
               {"template", PodTemplate()}}},
             {"status", {{"replicas", 2}, {"readyReplicas", 1}}}};
  ExpectCells(
      "apps", "replicasets",
      {{"replica set",
        rs,
        {"web-5d4f", 2, 2, 1, "10m", "app,sidecar", "nginx:1.27,envoy:v1",
         "app=web,pod-template-hash=5d4f"}},
       {"no selector", {{"metadata", Meta("x")}}, {"x", 1, 0, 0, "10m", "", "", "<none>"}}});

  json sts = {{"metadata", Meta("db")},
              {"spec", {{"replicas", 3}, {"template", PodTemplate()}}},
              {"status", {{"readyReplicas", 2}}}};
  ExpectCells("apps", "statefulsets",
              {{"stateful set", sts, {"db", "2/3", "10m", "app,sidecar", "nginx:1.27,envoy:v1"}},
               {"defaults", {{"metadata", Meta("x")}}, {"x", "0/1", "10m", "", ""}}});

  json ds = {{"metadata", Meta("nvidia-device-plugin-daemonset")},
             {"spec",
              {{"selector", {{"matchLabels", {{"name", "nvidia-device-plugin-ds"}}}}},
               {"template", PodTemplate()}}},
             {"status",
              {{"desiredNumberScheduled", 2},
               {"currentNumberScheduled", 2},
               {"numberReady", 1},
               {"updatedNumberScheduled", 2},
               {"numberAvailable", 1}}}};
  ExpectCells("apps", "daemonsets",
              {{"device plugin",
                ds,
                {"nvidia-device-plugin-daemonset", 2, 2, 1, 2, 1, "gpu=true,zone=a", "10m",
                 "app,sidecar", "nginx:1.27,envoy:v1", "name=nvidia-device-plugin-ds"}},
               {"nothing set",
                {{"metadata", Meta("x")}},
                {"x", 0, 0, 0, 0, 0, "<none>", "10m", "", "", "<none>"}}});
}

TEST(BatchPrintersTest, Jobs) {
  auto job = [](json spec, json status, bool deleting = false) {
    json meta = Meta("train");
    if (deleting) {
      meta["deletionTimestamp"] = "2026-01-01T00:09:00Z";
    }
    spec["template"] = PodTemplate();
    spec["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", "u1"}}}};
    return json{{"metadata", meta}, {"spec", spec}, {"status", status}};
  };
  const json wide = {"app,sidecar", "nginx:1.27,envoy:v1", "batch.kubernetes.io/controller-uid=u1"};
  auto row = [&](std::string status, std::string completions, std::string duration) {
    json r = {"train", status, completions, duration, "10m"};
    for (const auto& c : wide) {
      r.push_back(c);
    }
    return r;
  };
  const json complete_cond = json::parse(R"([{"type":"Complete","status":"True"}])");
  ExpectCells(
      "batch", "jobs",
      {
          {"complete",
           job({{"completions", 1}, {"parallelism", 1}},
               {{"succeeded", 1},
                {"startTime", "2026-01-01T00:00:00Z"},
                {"completionTime", "2026-01-01T00:02:03Z"},
                {"conditions", complete_cond}}),
           row("Complete", "1/1", "2m3s")},
          {"running, duration until now",
           job({{"completions", 4}}, {{"succeeded", 1}, {"startTime", "2026-01-01T00:01:00Z"}}),
           row("Running", "1/4", "9m")},
          {"not started", job({{"completions", 1}}, json::object()), row("Running", "0/1", "")},
          {"work queue with parallelism",
           job({{"parallelism", 3}}, {{"startTime", "2026-01-01T00:09:00Z"}}),
           row("Running", "0/1 of 3", "60s")},
          {"failed",
           job({{"completions", 1}},
               json::parse(R"({"conditions":[{"type":"Failed","status":"True"}]})")),
           row("Failed", "0/1", "")},
          {"terminating", job({{"completions", 1}}, json::object(), true),
           row("Terminating", "0/1", "")},
          {"suspended",
           job({{"completions", 1}},
               json::parse(R"({"conditions":[{"type":"Suspended","status":"True"}]})")),
           row("Suspended", "0/1", "")},
          {"failure target",
           job({{"completions", 1}},
               json::parse(R"({"conditions":[{"type":"FailureTarget","status":"True"}]})")),
           row("FailureTarget", "0/1", "")},
          {"a False condition does not count",
           job({{"completions", 1}},
               json::parse(R"({"conditions":[{"type":"Complete","status":"False"}]})")),
           row("Running", "0/1", "")},
      });
}

TEST(BatchPrintersTest, CronJobs) {
  auto cronjob = [](json spec, json status) {
    spec["jobTemplate"] = {{"spec", {{"template", PodTemplate()}}}};
    return json{{"metadata", Meta("nightly")}, {"spec", spec}, {"status", status}};
  };
  ExpectCells(
      "batch", "cronjobs",
      {
          {"never run",
           cronjob({{"schedule", "0 3 * * *"}, {"suspend", false}}, json::object()),
           {"nightly", "0 3 * * *", "<none>", "False", 0, "<none>", "10m", "app,sidecar",
            "nginx:1.27,envoy:v1", "<none>"}},
          {"in a zone, two active, scheduled 4 minutes ago",
           cronjob({{"schedule", "*/2 * * * *"}, {"timeZone", "Europe/Berlin"}, {"suspend", true}},
                   {{"active", json::array({{{"name", "a"}}, {{"name", "b"}}})},
                    {"lastScheduleTime", "2026-01-01T00:06:00Z"}}),
           {"nightly", "*/2 * * * *", "Europe/Berlin", "True", 2, "4m", "10m", "app,sidecar",
            "nginx:1.27,envoy:v1", "<none>"}},
          {"suspend unset",
           cronjob({{"schedule", "@hourly"}}, json::object()),
           {"nightly", "@hourly", "<none>", "<unset>", 0, "<none>", "10m", "app,sidecar",
            "nginx:1.27,envoy:v1", "<none>"}},
      });
}

// ---- coordination, policy, rbac, scheduling, default ------------------------------------------

TEST(GroupPrintersTest, LeasesPdbsBindingsPriorityClasses) {
  ExpectCells("coordination.k8s.io", "leases",
              {{"node lease",
                {{"metadata", Meta("node-1")}, {"spec", {{"holderIdentity", "node-1"}}}},
                {"node-1", "node-1", "10m"}},
               {"no holder", {{"metadata", Meta("free")}}, {"free", "", "10m"}}});
  ExpectCells("discovery.k8s.io", "endpointslices",
              {{"ports and endpoints",
                {{"metadata", Meta("web-abcde")},
                 {"addressType", "IPv4"},
                 {"ports", json::array({{{"name", ""}, {"port", 80}},
                                        {{"name", "metrics"}},
                                        {{"name", "a"}, {"port", 1}},
                                        {{"port", 2}}})},
                 {"endpoints", json::array({{{"addresses", {"10.0.0.1", "10.0.0.2"}}},
                                            {{"addresses", {"10.0.0.3"}}},
                                            {{"addresses", {"10.0.0.4"}}}})}},
                {"web-abcde", "IPv4", "80,metrics,1 + 1 more...",
                 "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...", "10m"}},
               {"a placeholder",
                {{"metadata", Meta("web-fghij")}, {"addressType", "IPv4"}},
                {"web-fghij", "IPv4", "<unset>", "<unset>", "10m"}}});
  ExpectCells("policy", "poddisruptionbudgets",
              {{"min available",
                {{"metadata", Meta("pdb")},
                 {"spec", {{"minAvailable", 2}}},
                 {"status", {{"disruptionsAllowed", 1}}}},
                {"pdb", "2", "N/A", 1, "10m"}},
               {"max unavailable percent",
                {{"metadata", Meta("pdb")}, {"spec", {{"maxUnavailable", "25%"}}}},
                {"pdb", "N/A", "25%", 0, "10m"}}});
  const json subjects =
      json::parse(R"([{"kind":"User","name":"alice"},{"kind":"Group","name":"system:masters"},)"
                  R"({"kind":"ServiceAccount","name":"builder","namespace":"ci"},)"
                  R"({"kind":"User","name":"bob"},{"kind":"Robot","name":"r2"}])");
  ExpectCells(
      "rbac.authorization.k8s.io", "rolebindings",
      {{"mixed subjects",
        {{"metadata", Meta("rb")},
         {"roleRef",
          {{"kind", "Role"}, {"name", "reader"}, {"apiGroup", "rbac.authorization.k8s.io"}}},
         {"subjects", subjects}},
        {"rb", "Role/reader", "10m", "alice, bob", "system:masters", "ci/builder"}}});
  ExpectCells(
      "rbac.authorization.k8s.io", "clusterrolebindings",
      {{"no subjects",
        {{"metadata", Meta("crb")}, {"roleRef", {{"kind", "ClusterRole"}, {"name", "admin"}}}},
        {"crb", "ClusterRole/admin", "10m", "", "", ""}}});
  ExpectCells("scheduling.k8s.io", "priorityclasses",
              {{"system critical",
                {{"metadata", Meta("system-node-critical")},
                 {"value", 2000001000},
                 {"preemptionPolicy", "PreemptLowerPriority"}},
                {"system-node-critical", 2000001000, false, "10m", "PreemptLowerPriority"}},
               {"global default that never preempts",
                {{"metadata", Meta("batch")},
                 {"value", 100},
                 {"globalDefault", true},
                 {"preemptionPolicy", "Never"}},
                {"batch", 100, true, "10m", "Never"}},
               {"policy defaults",
                {{"metadata", Meta("p")}},
                {"p", 0, false, "10m", "PreemptLowerPriority"}}});
}

// printControllerRevision: the controller as "<kind>.<group>/<name>" in lower case.
TEST(GroupPrintersTest, ControllerRevisions) {
  json owned = {{"metadata", Meta("web-6c5d8f7b9")}, {"revision", 3}};
  owned["metadata"]["ownerReferences"] =
      json::array({{{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", "x"}, {"uid", "u0"}},
                   {{"apiVersion", "apps/v1"},
                    {"kind", "StatefulSet"},
                    {"name", "web"},
                    {"uid", "u1"},
                    {"controller", true}}});
  json core = {{"metadata", Meta("c")}, {"revision", 1}};
  core["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "v1"},
                                                      {"kind", "ReplicationController"},
                                                      {"name", "rc"},
                                                      {"uid", "u2"},
                                                      {"controller", true}}});
  ExpectCells("apps", "controllerrevisions",
              {{"owned", owned, {"web-6c5d8f7b9", "statefulset.apps/web", 3, "10m"}},
               {"core group", core, {"c", "replicationcontroller/rc", 1, "10m"}},
               {"none", {{"metadata", Meta("o")}}, {"o", "<none>", 0, "10m"}}});
}

// printIngress / printIngressClass: formatHosts (at most three, then "+ N more..."; "*" for
// none), the load balancer's addresses sorted and unique, "80, 443" with TLS.
TEST(GroupPrintersTest, IngressesAndIngressClasses) {
  auto rules = [](std::vector<std::string> hosts) {
    json r = json::array();
    for (const std::string& h : hosts) r.push_back(h.empty() ? json::object() : json{{"host", h}});
    return r;
  };
  ExpectCells(
      "networking.k8s.io", "ingresses",
      {{"no rules, no class", {{"metadata", Meta("a")}}, {"a", "<none>", "*", "", "80", "10m"}},
       {"two hosts, TLS, addresses",
        {{"metadata", Meta("b")},
         {"spec",
          {{"ingressClassName", "nginx"},
           {"rules", rules({"foo.com", "", "bar.com"})},
           {"tls", json::array({{{"hosts", {"foo.com"}}}})}}},
         {"status",
          {{"loadBalancer",
            {{"ingress", json::parse(R"([{"ip":"34.1.2.3"},{"hostname":"lb.example"},)"
                                     R"({"ip":"10.0.0.9"},{"ip":"34.1.2.3"}])")}}}}}},
        {"b", "nginx", "foo.com,bar.com", "10.0.0.9,34.1.2.3,lb.example", "80, 443", "10m"}},
       {"five hosts",
        {{"metadata", Meta("c")}, {"spec", {{"rules", rules({"a", "b", "c", "d", "e"})}}}},
        {"c", "<none>", "a,b,c + 2 more...", "", "80", "10m"}}});
  ExpectCells(
      "networking.k8s.io", "ingressclasses",
      {{"with parameters",
        {{"metadata", Meta("nginx")},
         {"spec",
          {{"controller", "k8s.io/ingress-nginx"},
           {"parameters", {{"apiGroup", "k8s.example.com"}, {"kind", "Params"}, {"name", "lb"}}}}}},
        {"nginx", "k8s.io/ingress-nginx", "Params.k8s.example.com/lb", "10m"}},
       {"without",
        {{"metadata", Meta("gce")}, {"spec", {{"controller", "k8s.io/ingress-gce"}}}},
        {"gce", "k8s.io/ingress-gce", "<none>", "10m"}}});
}

// ---- persistent volumes, replication controllers, storage.k8s.io --------------------------------

TEST(CorePrintersTest, PersistentVolumes) {
  const json bound = {{"metadata", Meta("pv-1")},
                      {"spec",
                       {{"capacity", {{"storage", "10Gi"}}},
                        {"accessModes", {"ReadOnlyMany", "ReadWriteOnce", "ReadOnlyMany"}},
                        {"persistentVolumeReclaimPolicy", "Delete"},
                        {"claimRef", {{"namespace", "default"}, {"name", "data"}}},
                        {"storageClassName", "standard-rwo"},
                        {"volumeMode", "Block"}}},
                      {"status", {{"phase", "Bound"}}}};
  json terminating = bound;
  terminating["metadata"]["deletionTimestamp"] = "2026-01-01T00:05:00Z";
  terminating["metadata"]["annotations"] = {{"volume.beta.kubernetes.io/storage-class", "old"}};
  terminating["spec"]["capacity"]["storage"] = "1024Mi";
  terminating["spec"]["volumeAttributesClassName"] = "gold";
  terminating["status"]["reason"] = "Failed";
  ExpectCells("", "persistentvolumes",
              {{"bound",
                bound,
                {"pv-1", "10Gi", "RWO,ROX", "Delete", "Bound", "default/data", "standard-rwo",
                 "<unset>", "", "10m", "Block"}},
               {"terminating: beta class annotation, canonical capacity",
                terminating,
                {"pv-1", "1Gi", "RWO,ROX", "Delete", "Terminating", "default/data", "old", "gold",
                 "Failed", "10m", "Block"}},
               {"nothing set: the API defaults",
                {{"metadata", Meta("bare")}},
                {"bare", "0", "", "Retain", "", "", "", "<unset>", "", "10m", "Filesystem"}}});
}

TEST(CorePrintersTest, ReplicationControllers) {
  const json containers =
      json::parse(R"([{"name":"web","image":"nginx:1.27"},{"name":"log","image":"busybox"}])");
  ExpectCells("", "replicationcontrollers",
              {{"scaled",
                {{"metadata", Meta("web")},
                 {"spec",
                  {{"replicas", 3},
                   {"selector", {{"tier", "fe"}, {"app", "web"}}},
                   {"template", {{"spec", {{"containers", containers}}}}}}},
                 {"status", {{"replicas", 2}, {"readyReplicas", 1}}}},
                {"web", 3, 2, 1, "10m", "web,log", "nginx:1.27,busybox", "app=web,tier=fe"}},
               {"nothing set: one replica, no selector",
                {{"metadata", Meta("bare")}},
                {"bare", 1, 0, 0, "10m", "", "", "<none>"}}});
}

TEST(StoragePrintersTest, StorageClasses) {
  json standard = {{"metadata", Meta("standard-rwo")},
                   {"provisioner", "pd.csi.storage.gke.io"},
                   {"reclaimPolicy", "Retain"},
                   {"volumeBindingMode", "WaitForFirstConsumer"},
                   {"allowVolumeExpansion", true}};
  standard["metadata"]["annotations"] = {{"storageclass.kubernetes.io/is-default-class", "true"}};
  json beta = {{"metadata", Meta("premium")}, {"provisioner", "p"}};
  beta["metadata"]["annotations"] = {{"storageclass.beta.kubernetes.io/is-default-class", "true"}};
  json not_default = {{"metadata", Meta("slow")}, {"provisioner", "p"}};
  not_default["metadata"]["annotations"] = {
      {"storageclass.kubernetes.io/is-default-class", "True"}};
  ExpectCells("storage.k8s.io", "storageclasses",
              {{"the default class",
                standard,
                {"standard-rwo (default)", "pd.csi.storage.gke.io", "Retain",
                 "WaitForFirstConsumer", true, "10m"}},
               {"the beta annotation",
                beta,
                {"premium (default)", "p", "Delete", "Immediate", false, "10m"}},
               {"only \"true\" makes a default",
                not_default,
                {"slow", "p", "Delete", "Immediate", false, "10m"}}});
}

TEST(StoragePrintersTest, CsiDriversNodesAndCapacities) {
  ExpectCells(
      "storage.k8s.io", "csidrivers",
      {{"defaulted",
        {{"metadata", Meta("pd.csi.storage.gke.io")},
         {"spec",
          {{"attachRequired", true},
           {"podInfoOnMount", false},
           {"storageCapacity", false},
           {"requiresRepublish", false},
           {"volumeLifecycleModes", {"Persistent"}}}}},
        {"pd.csi.storage.gke.io", true, false, false, "<unset>", false, "Persistent", "10m"}},
       {"token requests and both modes",
        {{"metadata", Meta("secrets-store")},
         {"spec",
          {{"attachRequired", false},
           {"podInfoOnMount", true},
           {"storageCapacity", true},
           {"requiresRepublish", true},
           {"tokenRequests", json::parse(R"([{"audience":"vault"},{"audience":"gcp"}])")},
           {"volumeLifecycleModes", {"Persistent", "Ephemeral"}}}}},
        {"secrets-store", false, true, true, "vault,gcp", true, "Persistent,Ephemeral", "10m"}},
       {"nothing set",
        {{"metadata", Meta("bare")}},
        {"bare", true, false, false, "<unset>", false, "<none>", "10m"}}});
  ExpectCells("storage.k8s.io", "csinodes",
              {{"two drivers",
                {{"metadata", Meta("node-1")},
                 {"spec", {{"drivers", json::parse(R"([{"name":"a"},{"name":"b"}])")}}}},
                {"node-1", 2, "10m"}},
               {"no spec", {{"metadata", Meta("node-2")}}, {"node-2", 0, "10m"}}});
  ExpectCells("storage.k8s.io", "csistoragecapacities",
              {{"reported",
                {{"metadata", Meta("csisc-1")},
                 {"storageClassName", "standard-rwo"},
                 {"capacity", "1024Mi"}},
                {"csisc-1", "standard-rwo", "1Gi"}},
               {"unknown capacity",
                {{"metadata", Meta("csisc-2")}, {"storageClassName", "standard-rwo"}},
                {"csisc-2", "standard-rwo", "<unset>"}}});
}

TEST(DefaultPrinterTest, ResourcesWithoutPrinter) {
  for (const auto& [group, resource] : std::vector<std::pair<std::string, std::string>>{
           {"rbac.authorization.k8s.io", "clusterroles"},
           {"rbac.authorization.k8s.io", "roles"},
           {"example.com", "widgets"},
           {"", "deployments"}}) {
    SCOPED_TRACE(group + "/" + resource);
    const auto& columns = ColumnsFor(group, resource);
    ASSERT_EQ(columns.size(), 2u);
    EXPECT_EQ(columns[0].name, "Name");
    EXPECT_EQ(columns[0].format, "name");
    EXPECT_EQ(columns[1].name, "Created At");
    EXPECT_EQ(columns[1].type, "date");
    EXPECT_EQ(columns[1].format, "");
  }
  ExpectCells(
      "rbac.authorization.k8s.io", "clusterroles",
      {{"UTC", {{"metadata", Meta("admin")}}, {"admin", "2026-01-01T00:00:00Z"}},
       {"offset converted to UTC",
        {{"metadata", {{"name", "view"}, {"creationTimestamp", "2026-01-01T09:30:00+09:00"}}}},
        {"view", "2026-01-01T00:30:00Z"}},
       {"missing creationTimestamp is Go's zero time",
        {{"metadata", {{"name", "edit"}}}},
        {"edit", "0001-01-01T00:00:00Z"}}});
}

TEST(ColumnsTest, PrinterColumnNamesAndPriorities) {
  struct Case {
    std::string group, resource;
    std::vector<std::string> columns;  // "*" marks priority 1
  };
  const std::vector<Case> cases = {
      {"",
       "pods",
       {"Name", "Ready", "Status", "Restarts", "Age", "*IP", "*Node", "*Nominated Node",
        "*Readiness Gates"}},
      {"",
       "nodes",
       {"Name", "Status", "Roles", "Age", "Version", "*Internal-IP", "*External-IP", "*OS-Image",
        "*Kernel-Version", "*Container-Runtime"}},
      {"",
       "events",
       {"Last Seen", "Type", "Reason", "Object", "*Subobject", "*Source", "Message", "*First Seen",
        "*Count", "*Name"}},
      {"", "namespaces", {"Name", "Status", "Age"}},
      {"", "configmaps", {"Name", "Data", "Age"}},
      {"", "secrets", {"Name", "Type", "Data", "Age"}},
      {"", "serviceaccounts", {"Name", "Secrets", "Age"}},
      {"",
       "services",
       {"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "*Selector"}},
      {"", "endpoints", {"Name", "Endpoints", "Age"}},
      {"",
       "persistentvolumeclaims",
       {"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass",
        "VolumeAttributesClass", "Age", "*VolumeMode"}},
      {"apps", "statefulsets", {"Name", "Ready", "Age", "*Containers", "*Images"}},
      {"apps",
       "deployments",
       {"Name", "Ready", "Up-to-date", "Available", "Age", "*Containers", "*Images", "*Selector"}},
      {"apps",
       "daemonsets",
       {"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age",
        "*Containers", "*Images", "*Selector"}},
      {"apps",
       "replicasets",
       {"Name", "Desired", "Current", "Ready", "Age", "*Containers", "*Images", "*Selector"}},
      {"batch",
       "jobs",
       {"Name", "Status", "Completions", "Duration", "Age", "*Containers", "*Images", "*Selector"}},
      {"coordination.k8s.io", "leases", {"Name", "Holder", "Age"}},
      {"discovery.k8s.io", "endpointslices", {"Name", "AddressType", "Ports", "Endpoints", "Age"}},
      {"policy",
       "poddisruptionbudgets",
       {"Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"}},
      {"rbac.authorization.k8s.io",
       "rolebindings",
       {"Name", "Role", "Age", "*Users", "*Groups", "*ServiceAccounts"}},
      {"rbac.authorization.k8s.io",
       "clusterrolebindings",
       {"Name", "Role", "Age", "*Users", "*Groups", "*ServiceAccounts"}},
      {"scheduling.k8s.io",
       "priorityclasses",
       {"Name", "Value", "Global-Default", "Age", "PreemptionPolicy"}},
      {"events.k8s.io",
       "events",
       {"Last Seen", "Type", "Reason", "Object", "*Subobject", "*Source", "Message", "*First Seen",
        "*Count", "*Name"}},
      {"",
       "persistentvolumes",
       {"Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass",
        "VolumeAttributesClass", "Reason", "Age", "*VolumeMode"}},
      {"",
       "replicationcontrollers",
       {"Name", "Desired", "Current", "Ready", "Age", "*Containers", "*Images", "*Selector"}},
      {"storage.k8s.io",
       "storageclasses",
       {"Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion",
        "Age"}},
      {"storage.k8s.io",
       "csidrivers",
       {"Name", "AttachRequired", "PodInfoOnMount", "StorageCapacity", "TokenRequests",
        "RequiresRepublish", "Modes", "Age"}},
      {"storage.k8s.io", "csinodes", {"Name", "Drivers", "Age"}},
      {"storage.k8s.io", "csistoragecapacities", {"Name", "StorageClassName", "Capacity"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.group + "/" + tc.resource);
    std::vector<std::string> got;
    for (const Column& c : ColumnsFor(tc.group, tc.resource)) {
      got.push_back((c.priority == 1 ? "*" : "") + c.name);
      EXPECT_FALSE(c.description.empty()) << c.name;
      EXPECT_TRUE(c.type == "string" || c.type == "integer" || c.type == "boolean") << c.name;
      EXPECT_EQ(c.format, c.name == "Name" ? "name" : "") << c.name;
    }
    EXPECT_EQ(got, tc.columns);
  }
}

// Every printer, fed every field of a kitchen-sink object replaced by values of every JSON type,
// returns one cell per column and does not throw.
void Mutations(const json& node, const std::function<void(const json&)>& emit,
               const std::function<json(const json&)>& rebuild) {
  static const std::vector<json> kOdd = {nullptr,
                                         true,
                                         -1,
                                         18446744073709551615ull,
                                         2.5,
                                         "x",
                                         json::array(),
                                         json::object(),
                                         json::array({nullptr, 1, "y"}),
                                         "1700-01-01T00:00:00Z",
                                         "2250-01-01T00:00:00.5Z"};
  for (const json& odd : kOdd) {
    emit(rebuild(odd));
  }
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it.key();
      Mutations(it.value(), emit, [&](const json& replacement) {
        json copy = node;
        copy[key] = replacement;
        return rebuild(copy);
      });
    }
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) {
      Mutations(node[i], emit, [&, i](const json& replacement) {
        json copy = node;
        copy[i] = replacement;
        return rebuild(copy);
      });
    }
  }
}

TEST(RobustnessTest, EveryPrinterSurvivesMalformedFields) {
  const json sink = json::parse(R"({
    "kind":"Anything","apiVersion":"v1",
    "metadata":{"name":"n","namespace":"ns","creationTimestamp":"2026-01-01T00:00:00Z",
                "deletionTimestamp":"2026-01-01T00:01:00Z",
                "annotations":{"volume.beta.kubernetes.io/storage-class":"b"},
                "labels":{"node-role.kubernetes.io/a":"","kubernetes.io/role":"b"}},
    "spec":{"nodeName":"node-1","unschedulable":true,"replicas":2,"completions":1,"parallelism":2,
            "type":"LoadBalancer","clusterIP":"10.0.0.1","clusterIPs":["10.0.0.1"],
            "externalIPs":["1.1.1.1"],"externalName":"e","holderIdentity":"h",
            "minAvailable":"50%","maxUnavailable":1,"selector":{"matchLabels":{"a":"b"},
            "matchExpressions":[{"key":"k","operator":"In","values":["v"]}]},
            "ports":[{"port":80,"nodePort":30080,"protocol":"TCP"}],
            "readinessGates":[{"conditionType":"g"}],"volumeName":"v","volumeMode":"Block",
            "storageClassName":"s","volumeAttributesClassName":"g",
            "capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy":"Delete","claimRef":{"namespace":"n","name":"c"},
            "drivers":[{"name":"d"}],"tokenRequests":[{"audience":"a"}],
            "volumeLifecycleModes":["Persistent"],"attachRequired":false,
            "initContainers":[{"name":"i","restartPolicy":"Always"},{"name":"j"}],
            "containers":[{"name":"c","image":"img"}],
            "template":{"spec":{"containers":[{"name":"c","image":"img"}],
                                "nodeSelector":{"a":"b"}}}},
    "status":{"phase":"Running","reason":"r","podIP":"1.2.3.4","podIPs":[{"ip":"1.2.3.4"}],
              "nominatedNodeName":"x","startTime":"2026-01-01T00:00:00Z",
              "completionTime":"2026-01-01T00:01:00Z","succeeded":1,"replicas":1,
              "readyReplicas":1,"updatedReplicas":1,"availableReplicas":1,
              "desiredNumberScheduled":1,"currentNumberScheduled":1,"numberReady":1,
              "updatedNumberScheduled":1,"numberAvailable":1,"disruptionsAllowed":1,
              "loadBalancer":{"ingress":[{"ip":"5.5.5.5"},{"hostname":"h"}]},
              "addresses":[{"type":"InternalIP","address":"10.0.0.1"}],
              "accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"},
              "nodeInfo":{"kubeletVersion":"v1.32.0","osImage":"o"},
              "conditions":[{"type":"Ready","status":"True","reason":"SchedulingGated"},
                            {"type":"Initialized","status":"True"},
                            {"type":"Complete","status":"True"}],
              "initContainerStatuses":[{"name":"i","started":true,"ready":true,"restartCount":1,
                 "state":{"running":{}},
                 "lastState":{"terminated":{"finishedAt":"2026-01-01T00:00:30Z"}}},
                 {"name":"j","state":{"terminated":{"exitCode":1,"signal":2}}}],
              "containerStatuses":[{"name":"c","ready":true,"restartCount":2,
                 "state":{"waiting":{"reason":"CrashLoopBackOff"}},
                 "lastState":{"terminated":{"finishedAt":"2026-01-01T00:00:40Z"}}}]},
    "data":{"a":"b"},"binaryData":{"c":"d"},"type":"Opaque","secrets":[{"name":"s"}],
    "involvedObject":{"kind":"Pod","name":"p","fieldPath":"f"},"regarding":{"kind":"Pod"},
    "reason":"R","message":" m ","note":"n","source":{"component":"c","host":"h"},
    "firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:10Z",
    "eventTime":"2026-01-01T00:00:00.000001Z",
    "series":{"count":2,"lastObservedTime":"2026-01-01T00:00:20Z"},
    "count":3,"reportingComponent":"rc","reportingInstance":"ri",
    "roleRef":{"kind":"Role","name":"r"},
    "subjects":[{"kind":"ServiceAccount","name":"s","namespace":"n"}],
    "value":10,"globalDefault":true,"preemptionPolicy":"Never",
    "provisioner":"p","reclaimPolicy":"Retain","volumeBindingMode":"Immediate",
    "allowVolumeExpansion":true,"storageClassName":"s","capacity":"1Gi",
    "subsets":[{"addresses":[{"ip":"10.0.0.1"},{"ip":"fd00::1"}],"ports":[{"port":1},{"port":2}]},
               {"addresses":[{"ip":"10.0.0.3"}]}]
  })");
  const std::vector<std::pair<std::string, std::string>> resources = {
      {"", "pods"},
      {"", "nodes"},
      {"", "events"},
      {"", "namespaces"},
      {"", "configmaps"},
      {"", "secrets"},
      {"", "serviceaccounts"},
      {"", "services"},
      {"", "endpoints"},
      {"", "persistentvolumeclaims"},
      {"apps", "statefulsets"},
      {"apps", "deployments"},
      {"apps", "daemonsets"},
      {"apps", "replicasets"},
      {"batch", "jobs"},
      {"coordination.k8s.io", "leases"},
      {"policy", "poddisruptionbudgets"},
      {"rbac.authorization.k8s.io", "rolebindings"},
      {"rbac.authorization.k8s.io", "clusterrolebindings"},
      {"scheduling.k8s.io", "priorityclasses"},
      {"events.k8s.io", "events"},
      {"", "persistentvolumes"},
      {"", "replicationcontrollers"},
      {"storage.k8s.io", "storageclasses"},
      {"storage.k8s.io", "csidrivers"},
      {"storage.k8s.io", "csinodes"},
      {"storage.k8s.io", "csistoragecapacities"},
      {"rbac.authorization.k8s.io", "clusterroles"}};
  size_t variants = 0;
  Mutations(
      sink,
      [&](const json& object) {
        ++variants;
        for (const auto& [group, resource] : resources) {
          json cells = Cells(group, resource, object, kNow);
          ASSERT_EQ(cells.size(), ColumnsFor(group, resource).size()) << resource;
          for (const json& c : cells) {
            ASSERT_TRUE(c.is_string() || c.is_number_integer() || c.is_boolean()) << c.dump();
          }
        }
        json table = BuildTable("", "pods", {&object}, "1", kNow, IncludeObject::kMetadata, true);
        ASSERT_EQ(table["rows"].size(), 1u);
      },
      [](const json& whole) { return whole; });
  EXPECT_GT(variants, 1000u);
}

}  // namespace
}  // namespace tidepool::apiserver::printers
