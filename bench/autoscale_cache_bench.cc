// `tidepool autoscale`'s informer cache (issue 3): heap bytes KubeClusterCache holds per node
// and per pod once it has seen a realistic GKE cluster, beside the engine's snapshot
// (scheduler_bench.cc's BM_SnapshotMemory10kNodes300kPods).
//
// Each object is built as JSON as GKE (or `tidepool up`) serves it and handed to a real
// client::Informer configured as KubeClusterCache configures its own (the StripManagedFields
// transform, cache_metadata_only), as one watch event (Informer::ApplyForTest: the transform,
// the informer's store, then the handlers, without HTTP); its handlers are the cache's real ones
// (OnNodeForTest / OnPodForTest: decode, trim, keep). The JSON is then dropped, so what is
// counted is what the informers and the cache keep. Bytes are glibc's mallinfo2 deltas
// (uordblks: malloc'd and not freed), summed over all arenas.
//
// Counters (bytes; one pass, the parts told apart by what freeing each returns):
//   BM_AutoscaleCacheMemory/nodes/pods
//     cache_per_node        what KubeClusterCache holds per node (the kept api::Node, its
//                           shared_ptr block, the map entry and key)
//     node_object_per_node  of which the kept api::Node and its control block
//     cache_per_pod         per pod (the PodInfo, shared with the engine's snapshot, the map
//                           entry and key; 1/100 of a PodClass)
//     podinfo_per_pod       of which the PodInfo (with its share of the class)
//     map_entries_MB        the maps' entries and keys (nodes and pods)
//     cache_MB              all the cache holds (the object itself: cache_object)
//     informer_per_node, informer_per_pod, informers_MB
//                           the node and pod informers' stores (cache_metadata_only: key and
//                           resourceVersion packed per object), what freeing each informer
//                           returns less the empty informer's own bytes; not part of cache_MB
//   BM_DecodedNodeMemory   what the cache kept per node before NodeForCache: the whole decoded
//                          api::Node (the baseline).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "common/clock.h"
#include "runtime/kube_cluster.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool {
namespace {

using nlohmann::json;

const char* kZones[] = {"us-central1-a", "us-central1-b", "us-central1-c"};
constexpr int kPools = 50;
const std::string kT0 = "2026-11-29T08:00:00Z";

int64_t HeapBytes() { return static_cast<int64_t>(mallinfo2().uordblks); }

std::string Hex(uint64_t v, int digits) {
  static const char* d = "0123456789abcdef";
  std::string s(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i) {
    s[static_cast<size_t>(i)] = d[v & 15];
    v >>= 4;
  }
  return s;
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A 36-character uid in the API server's form.
std::string Uid(uint64_t n) {
  const uint64_t a = Mix(n), b = Mix(n + 1);
  return Hex(a >> 32, 8) + "-" + Hex(a >> 16, 4) + "-4" + Hex(a, 3) + "-8" + Hex(b >> 48, 3) +
         "-" + Hex(b, 12);
}

std::string NodeName(int i) {
  const int pool = i % kPools;
  // 40503 is odd: i -> i * 40503 mod 2^16 is one-to-one, so the 4-character suffixes differ.
  return "gke-prod-pool-" + std::to_string(pool) + "-" + Hex(Mix(pool) & 0xffffffff, 8) + "-" +
         Hex((static_cast<uint64_t>(i) * 40503u) & 0xffff, 4);
}

json Condition(const std::string& type, const std::string& status, const std::string& reason,
               const std::string& message) {
  return {{"type", type},
          {"status", status},
          {"lastHeartbeatTime", "2026-11-29T09:12:41Z"},
          {"lastTransitionTime", kT0},
          {"reason", reason},
          {"message", message}};
}

// A GKE node of a 50-pool cluster over three zones, as the API serves it (metadata with 19-20
// labels, 6 annotations and managedFields; providerID; GPU taint on 1 pool in 5; capacity and
// allocatable; 8 conditions; addresses, daemonEndpoints, nodeInfo, images).
json GkeNodeJson(int i) {
  const int pool = i % kPools;
  const bool gpu = pool % 5 == 0;
  const std::string zone = kZones[i % 3];
  const std::string name = NodeName(i);
  const std::string machine = gpu ? "a2-highgpu-8g" : "n2-standard-32";
  const std::string pool_name = "pool-" + std::to_string(pool);
  json labels = {{"beta.kubernetes.io/arch", "amd64"},
                 {"beta.kubernetes.io/instance-type", machine},
                 {"beta.kubernetes.io/os", "linux"},
                 {"cloud.google.com/gke-boot-disk", "pd-balanced"},
                 {"cloud.google.com/gke-container-runtime", "containerd"},
                 {"cloud.google.com/gke-cpu-scaling-level", gpu ? "96" : "32"},
                 {"cloud.google.com/gke-max-pods-per-node", "110"},
                 {"cloud.google.com/gke-nodepool", pool_name},
                 {"cloud.google.com/gke-os-distribution", "cos"},
                 {"cloud.google.com/gke-provisioning", "standard"},
                 {"cloud.google.com/machine-family", gpu ? "a2" : "n2"},
                 {"failure-domain.beta.kubernetes.io/region", "us-central1"},
                 {"failure-domain.beta.kubernetes.io/zone", zone},
                 {"kubernetes.io/arch", "amd64"},
                 {"kubernetes.io/hostname", name},
                 {"kubernetes.io/os", "linux"},
                 {"node.kubernetes.io/instance-type", machine},
                 {"topology.kubernetes.io/region", "us-central1"},
                 {"topology.kubernetes.io/zone", zone}};
  if (gpu) labels["cloud.google.com/gke-accelerator"] = "nvidia-tesla-a100";
  json annotations = {
      {"container.googleapis.com/instance_id", std::to_string(Mix(i) % 9000000000000000000ull)},
      {"csi.volume.kubernetes.io/nodeid",
       R"({"pd.csi.storage.gke.io":"projects/tidepool-prod/zones/)" + zone + "/instances/" +
           name + R"("})"},
      {"node.alpha.kubernetes.io/ttl", "0"},
      {"node.gke.io/last-applied-node-labels",
       "cloud.google.com/gke-boot-disk=pd-balanced,cloud.google.com/gke-container-runtime="
       "containerd,cloud.google.com/gke-nodepool=" +
           pool_name + ",cloud.google.com/gke-os-distribution=cos"},
      {"node.gke.io/last-applied-node-taints", gpu ? "nvidia.com/gpu=present:NoSchedule" : ""},
      {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}};
  json managed = json::array(
      {{{"manager", "kubelet"},
        {"operation", "Update"},
        {"apiVersion", "v1"},
        {"time", kT0},
        {"fieldsType", "FieldsV1"},
        {"fieldsV1",
         {{"f:metadata", {{"f:labels", {{"f:kubernetes.io/hostname", json::object()}}}}},
          {"f:spec", {{"f:providerID", json::object()}}}}}},
       {{"manager", "node-problem-detector"},
        {"operation", "Update"},
        {"apiVersion", "v1"},
        {"time", kT0},
        {"fieldsType", "FieldsV1"},
        {"subresource", "status"},
        {"fieldsV1",
         {{"f:status",
           {{"f:conditions", {{"k:{\"type\":\"KernelDeadlock\"}", json::object()}}}}}}}}});
  json spec = {{"podCIDR", "10.4." + std::to_string(i % 250) + ".0/24"},
               {"podCIDRs", json::array({"10.4." + std::to_string(i % 250) + ".0/24"})},
               {"providerID", "gce://tidepool-prod/" + zone + "/" + name}};
  if (gpu) {
    spec["taints"] =
        json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}});
  }
  json capacity = {{"cpu", gpu ? "96" : "32"},
                   {"ephemeral-storage", "98831908Ki"},
                   {"hugepages-1Gi", "0"},
                   {"hugepages-2Mi", "0"},
                   {"memory", gpu ? "696867516Ki" : "131896380Ki"},
                   {"pods", "110"}};
  json allocatable = {{"cpu", gpu ? "95690m" : "31850m"},
                      {"ephemeral-storage", "47060071478"},
                      {"hugepages-1Gi", "0"},
                      {"hugepages-2Mi", "0"},
                      {"memory", gpu ? "669574332Ki" : "126020412Ki"},
                      {"pods", "110"}};
  if (gpu) {
    capacity["nvidia.com/gpu"] = "8";
    allocatable["nvidia.com/gpu"] = "8";
  }
  json conditions = json::array(
      {Condition("KernelDeadlock", "False", "KernelHasNoDeadlock", "kernel has no deadlock"),
       Condition("ReadonlyFilesystem", "False", "FilesystemIsNotReadOnly",
                 "Filesystem is not read-only"),
       Condition("FrequentContainerdRestart", "False", "NoFrequentContainerdRestart",
                 "containerd is functioning properly"),
       Condition("NetworkUnavailable", "False", "RouteCreated", "NodeController create implicit route"),
       Condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                 "kubelet has sufficient memory available"),
       Condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
       Condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
       Condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")});
  const std::string ip = "10.128." + std::to_string(i / 250) + "." + std::to_string(i % 250);
  json images = json::array();
  for (int k = 0; k < 6; ++k) {
    images.push_back({{"names", json::array({"gke.gcr.io/component-" + std::to_string(k) +
                                             "@sha256:" + Hex(Mix(k), 16) + Hex(Mix(k + 9), 16),
                                             "gke.gcr.io/component-" + std::to_string(k) +
                                                 ":v1.31.2-gke.1"})},
                      {"sizeBytes", 20000000 + k * 1234567}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"uid", Uid(1000000 + i)},
            {"resourceVersion", std::to_string(200000 + i)},
            {"creationTimestamp", kT0},
            {"labels", labels},
            {"annotations", annotations},
            {"managedFields", managed}}},
          {"spec", spec},
          {"status",
           {{"capacity", capacity},
            {"allocatable", allocatable},
            {"conditions", conditions},
            {"addresses", json::array({{{"type", "InternalIP"}, {"address", ip}},
                                       {{"type", "ExternalIP"}, {"address", "34.1.2.3"}},
                                       {{"type", "Hostname"}, {"address", name}}})},
            {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
            {"nodeInfo",
             {{"machineID", Hex(Mix(i + 7), 16) + Hex(Mix(i + 8), 16)},
              {"systemUUID", Uid(i + 77)},
              {"bootID", Uid(i + 99)},
              {"kernelVersion", "6.6.72+"},
              {"osImage", "Container-Optimized OS from Google"},
              {"containerRuntimeVersion", "containerd://1.7.24"},
              {"kubeletVersion", "v1.31.2-gke.1"},
              {"kubeProxyVersion", "v1.31.2-gke.1"},
              {"operatingSystem", "linux"},
              {"architecture", "amd64"}}},
            {"images", images}}}};
}

// A pod of one of 1,000 ReplicaSets (`pods`/1000 pods each), bound to a node of the pool its
// nodeSelector names:
// owner reference, requests and a limit, a nodeSelector, tolerations (the GPU one and the two
// defaults), status with five conditions and a container status; managedFields.
json PodJson(int i, int pods, int nodes) {
  const int per_rs = std::max(1, pods / 1000);
  const int rs = i / per_rs;
  // A ReplicaSet's pods select its pool (rs mod 50) and spread over that pool's nodes.
  const int pool = rs % kPools;
  const int node = pool + kPools * (i % std::max(1, nodes / kPools));
  const std::string ns = "team-" + std::to_string(rs % 20);
  const std::string hash = Hex(Mix(rs) & 0xffffffffff, 10);
  const std::string rs_name = "web-" + std::to_string(rs) + "-" + hash;
  // One-to-one for i < 2^20, as a ReplicaSet's random suffixes never collide.
  const std::string name =
      rs_name + "-" + Hex((static_cast<uint64_t>(i) * 2654435761u) & 0xfffff, 5);
  json tolerations = json::array(
      {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}},
       {{"key", "node.kubernetes.io/not-ready"},
        {"operator", "Exists"},
        {"effect", "NoExecute"},
        {"tolerationSeconds", 300}},
       {{"key", "node.kubernetes.io/unreachable"},
        {"operator", "Exists"},
        {"effect", "NoExecute"},
        {"tolerationSeconds", 300}}});
  json container = {
      {"name", "app"},
      {"image", "us-docker.pkg.dev/tidepool-prod/apps/web:1.4." + std::to_string(rs % 7)},
      {"imagePullPolicy", "IfNotPresent"},
      {"ports", json::array({{{"containerPort", 8080}, {"protocol", "TCP"}}})},
      {"resources",
       {{"requests", {{"cpu", "250m"}, {"memory", "512Mi"}}}, {"limits", {{"memory", "512Mi"}}}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"},
      {"volumeMounts", json::array({{{"name", "kube-api-access-" + Hex(Mix(i + 3) & 0xfffff, 5)},
                                     {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                                     {"readOnly", true}}})}};
  json conditions = json::array();
  for (const char* t :
       {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
    conditions.push_back({{"type", t},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", kT0}});
  }
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"generateName", rs_name + "-"},
        {"namespace", ns},
        {"uid", Uid(50000000 + i)},
        {"resourceVersion", std::to_string(300000 + i)},
        {"creationTimestamp", kT0},
        {"labels", {{"app", "web-" + std::to_string(rs)}, {"pod-template-hash", hash}}},
        {"ownerReferences", json::array({{{"apiVersion", "apps/v1"},
                                          {"kind", "ReplicaSet"},
                                          {"name", rs_name},
                                          {"uid", Uid(90000000 + rs)},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}})},
        {"managedFields",
         json::array({{{"manager", "kube-controller-manager"},
                       {"operation", "Update"},
                       {"apiVersion", "v1"},
                       {"time", kT0},
                       {"fieldsType", "FieldsV1"},
                       {"fieldsV1", {{"f:metadata", {{"f:generateName", json::object()}}}}}}})}}},
      {"spec",
       {{"containers", json::array({container})},
        {"nodeSelector", {{"cloud.google.com/gke-nodepool", "pool-" + std::to_string(pool)}}},
        {"tolerations", tolerations},
        {"nodeName", NodeName(node)},
        {"restartPolicy", "Always"},
        {"terminationGracePeriodSeconds", 30},
        {"dnsPolicy", "ClusterFirst"},
        {"serviceAccountName", "default"},
        {"serviceAccount", "default"},
        {"schedulerName", "default-scheduler"},
        {"priority", 0},
        {"enableServiceLinks", true},
        {"preemptionPolicy", "PreemptLowerPriority"}}},
      {"status",
       {{"phase", "Running"},
        {"conditions", conditions},
        {"hostIP", "10.128.0.1"},
        {"podIP", "10.4.0." + std::to_string(i % 250)},
        {"startTime", kT0},
        {"qosClass", "Burstable"},
        {"containerStatuses",
         json::array({{{"name", "app"},
                       {"ready", true},
                       {"started", true},
                       {"restartCount", 0},
                       {"image", container["image"]},
                       {"imageID", "us-docker.pkg.dev/tidepool-prod/apps/web@sha256:" +
                                       Hex(Mix(rs), 16) + Hex(Mix(rs + 1), 16)},
                       {"containerID", "containerd://" + Hex(Mix(i + 5), 16) + Hex(Mix(i + 6), 16)},
                       {"state", {{"running", {{"startedAt", kT0}}}}}}})}}}};
}

// As the informer hands an object to its handlers: transformed, immutable, shared.
client::ObjectRef Prepared(json&& obj) {
  return std::make_shared<const json>(client::StripManagedFields(std::move(obj)));
}

// An informer as KubeClusterCache makes its own (kube_cluster.cc), feeding `on_object`.
std::unique_ptr<client::Informer> CacheInformer(
    const client::RestClient& rest, const Clock& clock, const std::string& path,
    std::function<void(const client::ObjectRef&, bool deleted)> on_object) {
  client::InformerOptions o;
  o.path = path;
  o.transform = client::StripManagedFields;
  o.cache_metadata_only = true;
  auto inf = std::make_unique<client::Informer>(rest, clock, std::move(o));
  inf->AddEventHandlers({[on_object](const client::ObjectRef& obj, bool) { on_object(obj, false); },
                         [on_object](const client::ObjectRef&, const client::ObjectRef& obj) {
                           on_object(obj, false);
                         },
                         [on_object](const client::ObjectRef& obj, bool) { on_object(obj, true); }});
  return inf;
}

void BM_AutoscaleCacheMemory(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int pods = static_cast<int>(state.range(1));
  SimulatedClock clock;
  client::RestClient rest(client::RestConfig{}, clock);
  for (auto _ : state) {
    // One pass: every object goes through an informer into the cache's handler; the parts are
    // then told apart by what freeing each one returns.
    const int64_t h0 = HeapBytes();
    auto cache = std::make_unique<runtime::KubeClusterCache>(rest, clock, nullptr, 1);
    const int64_t hc = HeapBytes();
    runtime::KubeClusterCache* c = cache.get();
    auto node_informer = CacheInformer(rest, clock, "/api/v1/nodes",
                                       [c](const client::ObjectRef& o, bool d) { c->OnNodeForTest(o, d); });
    const int64_t empty_informer = HeapBytes() - hc;
    auto pod_informer = CacheInformer(rest, clock, "/api/v1/pods",
                                      [c](const client::ObjectRef& o, bool d) { c->OnPodForTest(o, d); });
    const int64_t hi = HeapBytes();
    for (int i = 0; i < nodes; ++i) node_informer->ApplyForTest("ADDED", GkeNodeJson(i));
    const int64_t h1 = HeapBytes();
    for (int i = 0; i < pods; ++i) pod_informer->ApplyForTest("ADDED", PodJson(i, pods, nodes));
    const int64_t h2 = HeapBytes();
    autoscaler::ClusterView view = cache->View();
    if (static_cast<int>(view.nodes.size()) != nodes ||
        static_cast<int>(view.scheduled_pods.size()) != pods || cache->decode_errors() != 0 ||
        static_cast<int>(node_informer->Size()) != nodes ||
        static_cast<int>(pod_informer->Size()) != pods) {
      state.SkipWithError("the cache or an informer did not keep every object");
      return;
    }
    const int64_t hv = HeapBytes();
    node_informer.reset();
    const int64_t stub_nodes = hv - HeapBytes() - empty_informer;
    int64_t h = HeapBytes();
    pod_informer.reset();
    const int64_t stub_pods = h - HeapBytes() - empty_informer;
    h = HeapBytes();
    cache.reset();  // the maps' entries and keys; the view still holds nodes and PodInfos
    const int64_t maps = h - HeapBytes();
    h = HeapBytes();
    view.nodes.clear();
    view.nodes.shrink_to_fit();
    const int64_t node_objects = h - HeapBytes();
    h = HeapBytes();
    view.scheduled_pods.clear();
    view.scheduled_pods.shrink_to_fit();
    const int64_t pod_infos = h - HeapBytes();
    const double n = nodes, p = std::max(pods, 1);
    state.counters["cache_object"] = static_cast<double>(hc - h0);
    state.counters["cache_per_node"] = static_cast<double>(h1 - hi - stub_nodes) / n;
    state.counters["node_object_per_node"] = static_cast<double>(node_objects) / n;
    state.counters["cache_per_pod"] = static_cast<double>(h2 - h1 - stub_pods) / p;
    state.counters["podinfo_per_pod"] = static_cast<double>(pod_infos) / p;
    state.counters["map_entries_MB"] = static_cast<double>(maps) / 1e6;
    state.counters["cache_MB"] =
        static_cast<double>((hc - h0) + (h2 - hi) - stub_nodes - stub_pods) / 1e6;
    state.counters["informer_per_node"] = static_cast<double>(stub_nodes) / n;
    state.counters["informer_per_pod"] = static_cast<double>(stub_pods) / p;
    state.counters["informers_MB"] = static_cast<double>(stub_nodes + stub_pods) / 1e6;
  }
}
BENCHMARK(BM_AutoscaleCacheMemory)
    ->ArgNames({"nodes", "pods"})
    ->Args({10000, 100000})
    ->Args({10000, 300000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The baseline: the whole decoded api::Node per node, as the cache kept it before NodeForCache.
void BM_DecodedNodeMemory(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::map<std::string, api::NodeConstSharedPtr> kept;
    const int64_t h0 = HeapBytes();
    for (int i = 0; i < nodes; ++i) {
      client::ObjectRef o = Prepared(GkeNodeJson(i));
      StatusOr<api::Node> n = api::codec::NodeFromJson(*o);
      kept[client::Informer::KeyOf(*o)] = std::make_shared<const api::Node>(std::move(*n));
    }
    state.counters["decoded_per_node"] = static_cast<double>(HeapBytes() - h0) / nodes;
    state.counters["decoded_MB"] = static_cast<double>(HeapBytes() - h0) / 1e6;
  }
}
BENCHMARK(BM_DecodedNodeMemory)->ArgNames({"nodes"})->Arg(10000)->Iterations(1)->Unit(
    benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool

BENCHMARK_MAIN();
