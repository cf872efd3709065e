#include "runtime/cluster_bridge.h"

#include <cstdio>
#include <set>

#include "api/codec/json_codec.h"
#include "apiserver/deletion.h"
#include "kubelet/status_json.h"
#include "runtime/event_json.h"

namespace tidepool::runtime {

using nlohmann::json;

namespace {

constexpr char kOrigin[] = "world";
constexpr char kKubeletVersion[] = "v1.32.4-gke.1106006";

using kubelet::Fnv;
using kubelet::Hex;
using kubelet::NodeIp;

// metav1.MicroTime's wire format (leases): RFC 3339 with exactly six fractional digits.
std::string FormatMicroTime(TimePoint t) {
  const std::string base = FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(t));
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          t.time_since_epoch() % std::chrono::seconds(1))
                          .count();
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%06lld", static_cast<long long>(micros < 0 ? 0 : micros));
  return base.substr(0, base.size() - 1) + frac + "Z";
}

const apiserver::Resource* Res(std::string_view group, std::string_view resource) {
  return apiserver::FindResource(group, "v1", resource);
}

}  // namespace

ClusterBridge::ClusterBridge(sim::World& world, apiserver::ObjectStore& store,
                             apiserver::PodLogs& logs, bool gpu_operator,
                             bool autoscaler_pod)
    : world_(world),
      store_(store),
      logs_(logs),
      gpu_operator_(gpu_operator),
      want_autoscaler_pod_(autoscaler_pod),
      pods_(Res("", "pods")),
      nodes_(Res("", "nodes")),
      events_(Res("", "events")),
      namespaces_(Res("", "namespaces")),
      leases_(Res("coordination.k8s.io", "leases")) {}

ClusterBridge::~ClusterBridge() { world_.store().RemoveObserver(this); }

Status ClusterBridge::EnsureSystemObjects() {
  const apiserver::ObjectStore::WriteOptions opts{kOrigin, false};
  for (const char* ns : {"default", "kube-node-lease", "kube-public", "kube-system"}) {
    if (store_.Get(*namespaces_, "", ns).ok()) continue;
    json obj = {{"apiVersion", "v1"},
                {"kind", "Namespace"},
                {"metadata", {{"name", ns}, {"labels", {{"kubernetes.io/metadata.name", ns}}}}},
                {"spec", {{"finalizers", {"kubernetes"}}}},
                {"status", {{"phase", "Active"}}}};
    TIDEPOOL_RETURN_IF_ERROR(store_.Create(*namespaces_, std::move(obj), opts).status());
  }
  if (!gpu_operator_) return Status::Ok();
  if (!store_.Get(*namespaces_, "", "gpu-operator").ok()) {
    json obj = {{"apiVersion", "v1"},
                {"kind", "Namespace"},
                {"metadata",
                 {{"name", "gpu-operator"},
                  {"labels", {{"kubernetes.io/metadata.name", "gpu-operator"}}}}},
                {"spec", {{"finalizers", {"kubernetes"}}}},
                {"status", {{"phase", "Active"}}}};
    TIDEPOOL_RETURN_IF_ERROR(store_.Create(*namespaces_, std::move(obj), opts).status());
  }
  const apiserver::Resource* ds = Res("apps", "daemonsets");
  auto existing = store_.Get(*ds, "gpu-operator", "nvidia-device-plugin-daemonset");
  if (existing.ok()) return Status::Ok();
  json labels = {{"app", "nvidia-device-plugin-daemonset"}};
  json obj = {
      {"apiVersion", "apps/v1"},
      {"kind", "DaemonSet"},
      {"metadata", {{"name", "nvidia-device-plugin-daemonset"}, {"namespace", "gpu-operator"}}},
      {"spec",
       {{"selector", {{"matchLabels", labels}}},
        {"template",
         {{"metadata", {{"labels", labels}}},
          {"spec",
           {{"nodeSelector", {{"nvidia.com/gpu.deploy.device-plugin", "true"}}},
            {"tolerations", json::array({{{"key", "nvidia.com/gpu"},
                                          {"operator", "Exists"},
                                          {"effect", "NoSchedule"}}})},
            {"priorityClassName", "system-node-critical"},
            {"containers",
             json::array({{{"name", "nvidia-device-plugin"},
                           {"image", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}}})}}}}}}}};
  return store_.Create(*ds, std::move(obj), opts).status();
}

Status ClusterBridge::Start() {
  TIDEPOOL_RETURN_IF_ERROR(EnsureSystemObjects());
  const apiserver::ObjectStore::WriteOptions opts{kOrigin, false};
  // Nodes: the world's are the truth; a stored node the world does not have (a VM of a run
  // before a restart) is gone, and so are the pods bound to it (the pod garbage collector).
  std::set<std::string> world_nodes;
  for (const api::NodeConstSharedPtr& n : world_.store().ListNodes()) {
    world_nodes.insert(n->meta.name);
    // A node stored before a restart keeps what users set on it (labels, taints, cordon).
    if (auto stored = store_.Get(*nodes_, "", n->meta.name); stored.ok()) {
      apiserver::WatchEvent e;
      e.type = apiserver::EventType::kModified;
      e.resource = nodes_;
      e.object = *stored;
      ApplyApiNode(e);
    }
  }
  for (const api::NodeConstSharedPtr& n : world_.store().ListNodes()) {
    WriteNode(*n);
  }
  for (const apiserver::ObjectPtr& o : store_.List(*nodes_, "").items) {
    const std::string name = o->view["metadata"].value("name", "");
    if (world_nodes.count(name) == 0) (void)store_.Delete(*nodes_, "", name, opts);
  }
  for (const sim::EventRecord& e : world_.store().events()) WriteEvent(e);
  // kube-system's pods of a GKE cluster, on the first default-pool node.
  std::string host;
  for (const std::string& n : world_nodes) {
    if (n.find("default-pool") != std::string::npos) {
      host = n;
      break;
    }
  }
  if (host.empty() && !world_nodes.empty()) host = *world_nodes.begin();
  bool have_dns = false;
  for (const apiserver::ObjectPtr& o : store_.List(*pods_, "kube-system").items) {
    const std::string name = o->view["metadata"].value("name", "");
    if (name.rfind("cluster-autoscaler-", 0) == 0) autoscaler_pod_ = name;
    if (name.rfind("kube-dns-", 0) == 0) have_dns = true;
  }
  struct SystemPod {
    std::string name, app, container, image, cpu, memory;
  };
  const uint64_t h = Fnv(world_.options().cluster + world_.options().project);
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  auto suffix = [&](uint64_t seed, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
      s += kAlphabet[seed % (sizeof(kAlphabet) - 1)];
      seed /= (sizeof(kAlphabet) - 1);
    }
    return s;
  };
  std::vector<SystemPod> system;
  // No cluster-autoscaler pod when the embedded autoscaler is off (`--no-autoscaler`: another
  // autoscaler, e.g. `tidepool autoscale`, manages the cluster).
  if (autoscaler_pod_.empty() && want_autoscaler_pod_) {
    autoscaler_pod_ = "cluster-autoscaler-" + suffix(h, 10) + "-" + suffix(h >> 20, 5);
    system.push_back({autoscaler_pod_, "cluster-autoscaler", "cluster-autoscaler",
                      "registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1", "10m", "300Mi"});
  }
  if (!have_dns) {
    system.push_back({"kube-dns-" + suffix(h >> 7, 10) + "-" + suffix(h >> 29, 5), "kube-dns",
                      "kubedns", "gke.gcr.io/k8s-dns-kube-dns:1.26.0-gke.1", "100m", "70Mi"});
  }
  if (!host.empty()) {
    for (const SystemPod& p : system) {
      json pod = {
          {"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", p.name},
            {"namespace", "kube-system"},
            {"labels", {{"k8s-app", p.app}}},
            {"annotations", {{"components.gke.io/component-name", p.app}}}}},
          {"spec",
           {{"nodeName", host},
            {"priorityClassName", "system-cluster-critical"},
            {"priority", 2000000000},
            {"restartPolicy", "Always"},
            {"terminationGracePeriodSeconds", 30},
            {"dnsPolicy", "ClusterFirst"},
            {"schedulerName", "default-scheduler"},
            {"serviceAccountName", p.app},
            {"serviceAccount", p.app},
            {"securityContext", json::object()},
            {"enableServiceLinks", true},
            {"preemptionPolicy", "PreemptLowerPriority"},
            {"tolerations",
             json::array({{{"key", "CriticalAddonsOnly"}, {"operator", "Exists"}},
                          {{"key", "node.kubernetes.io/not-ready"},
                           {"operator", "Exists"},
                           {"effect", "NoExecute"},
                           {"tolerationSeconds", 300}},
                          {{"key", "node.kubernetes.io/unreachable"},
                           {"operator", "Exists"},
                           {"effect", "NoExecute"},
                           {"tolerationSeconds", 300}}})},
            {"containers",
             json::array({{{"name", p.container},
                           {"image", p.image},
                           {"imagePullPolicy", "IfNotPresent"},
                           {"resources", {{"requests", {{"cpu", p.cpu}, {"memory", p.memory}}}}},
                           {"terminationMessagePath", "/dev/termination-log"},
                           {"terminationMessagePolicy", "File"}}})}}},
          {"status", {{"phase", "Pending"}, {"qosClass", "Burstable"}}}};
      auto created = store_.Create(*pods_, std::move(pod), {"system", false});
      if (!created.ok()) return created.status();
    }
  }
  // The autoscaler's log is the cluster-autoscaler pod's.
  const std::string ca_pod = autoscaler_pod_;
  if (!ca_pod.empty()) world_.autoscaler_log().AddSink([this, ca_pod](std::string_view line) {
    std::string text(line);
    text += '\n';
    logs_.Append("kube-system", ca_pod, "cluster-autoscaler", text);
  });
  world_.store().AddObserver(this);
  // Unbounded: the world must see every write to a node, and this thread drains it every tick.
  auto watch = store_.OpenWatch(nodes_, "", store_.resource_version(),
                                apiserver::ObjectStore::Backlog::kUnbounded);
  if (!watch.ok()) return watch.status();
  watch_ = std::move(watch).value();
  return Status::Ok();
}

void ClusterBridge::WaitForApi(Duration timeout) {
  // Peeks by waiting for one event and handing it to PumpApi through the watch itself is not
  // possible; a short wait on the watch's condition is enough: Drain picks everything up.
  apiserver::WatchEvent e;
  if (watch_->Next(timeout, &e) == apiserver::Watch::Result::kEvent) ApplyApiEvent(e);
}

size_t ClusterBridge::PumpApi() {
  std::vector<apiserver::EventPtr> events;
  watch_->Drain(&events);
  size_t n = 0;
  for (const apiserver::EventPtr& e : events) {
    if (ApplyApiEvent(*e)) ++n;
  }
  return n;
}

bool ClusterBridge::ApplyApiEvent(const apiserver::WatchEvent& e) {
  if (e.origin == kOrigin) return false;
  if (e.resource == nodes_) {
    ApplyApiNode(e);
    return true;
  }
  return false;
}

void ClusterBridge::ApplyApiNode(const apiserver::WatchEvent& e) {
  const std::string name = e.object->view["metadata"].value("name", "");
  sim::Store& ws = world_.store();
  if (e.type == apiserver::EventType::kDeleted) {
    if (ws.GetNode(name) != nullptr) (void)ws.DeleteNode(name);
    return;
  }
  if (ws.GetNode(name) == nullptr) return;  // nodes come from the emulated cloud
  auto node = api::codec::NodeFromJson(e.object->Parse());
  if (!node.ok()) return;
  (void)ws.UpdateNodeFromApi(name, node->meta.labels, node->meta.annotations, node->spec.taints,
                             node->spec.unschedulable);
}

void ClusterBridge::OnNodeChange(const sim::NodeChange& change) {
  if (change.type == sim::ChangeType::kDeleted) {
    const std::string& name = change.node->meta.name;
    (void)store_.Delete(*nodes_, "", name, {kOrigin, false});
    (void)store_.Delete(*leases_, "kube-node-lease", name, {kOrigin, false});
    return;
  }
  WriteNode(*change.node);
}

void ClusterBridge::OnPodChange(const sim::PodChange&) {
  // The world holds no pods under `up`: pods are the API's, run by its scheduler and kubelets.
}

void ClusterBridge::OnEvent(const sim::EventChange& change) { WriteEvent(change.event); }

void ClusterBridge::WriteNode(const api::Node& n) {
  const json typed = api::codec::NodeToJson(n);
  const std::string name = n.meta.name;
  const std::string ip = NodeIp(name);
  auto up = store_.Update(
      *nodes_, "", name,
      [&](const apiserver::StoredObject* cur) -> StatusOr<json> {
        json next = cur ? cur->Parse() : json::object();
        json& meta = next["metadata"];
        if (!meta.is_object()) meta = json::object();
        const json& tm = typed["metadata"];
        meta["labels"] = tm.value("labels", json::object());
        if (tm.contains("annotations")) {
          meta["annotations"] = tm["annotations"];
        } else {
          meta.erase("annotations");
        }
        if (!cur) {
          meta["uid"] = n.meta.uid;
          if (tm.contains("creationTimestamp")) meta["creationTimestamp"] = tm["creationTimestamp"];
        }
        json spec = typed.value("spec", json::object());
        next["spec"] = spec;
        json status = typed.value("status", json::object());
        status["addresses"] = json::array({{{"type", "InternalIP"}, {"address", ip}},
                                           {{"type", "Hostname"}, {"address", name}}});
        status["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
        status["nodeInfo"] = {
            {"machineID", Hex(Fnv(name + "/machine"), 16) + Hex(Fnv(name + "/m2"), 16)},
            {"systemUUID", Hex(Fnv(name + "/uuid"), 8) + "-" + Hex(Fnv(name + "/u2"), 4) + "-" +
                               Hex(Fnv(name + "/u3"), 4) + "-" + Hex(Fnv(name + "/u4"), 4) + "-" +
                               Hex(Fnv(name + "/u5"), 12)},
            {"bootID", Hex(Fnv(name + "/boot"), 8) + "-" + Hex(Fnv(name + "/b2"), 4) + "-" +
                           Hex(Fnv(name + "/b3"), 4) + "-" + Hex(Fnv(name + "/b4"), 4) + "-" +
                           Hex(Fnv(name + "/b5"), 12)},
            {"kernelVersion", "6.6.72+"},
            {"osImage", "Container-Optimized OS from Google"},
            {"containerRuntimeVersion", "containerd://1.7.24"},
            {"kubeletVersion", kKubeletVersion},
            {"kubeProxyVersion", kKubeletVersion},
            {"operatingSystem", "linux"},
            {"architecture", "amd64"}};
        next["status"] = status;
        if (cur) next["metadata"]["resourceVersion"] = std::to_string(cur->resource_version);
        return next;
      },
      {kOrigin, false}, /*allow_create=*/true);
  // The node's uid as the API has it (a restart keeps the stored one): the Lease's owner.
  const std::string node_uid =
      up.ok() ? up->object->view["metadata"].value("uid", n.meta.uid) : n.meta.uid;
  // The node's Lease, renewed by its kubelet.
  json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata",
                 {{"name", name},
                  {"namespace", "kube-node-lease"},
                  {"ownerReferences",
                   json::array({{{"apiVersion", "v1"},
                                 {"kind", "Node"},
                                 {"name", name},
                                 {"uid", node_uid}}})}}},
                {"spec",
                 {{"holderIdentity", name},
                  {"leaseDurationSeconds", 40},
                  {"renewTime", FormatMicroTime(world_.Now())}}}};
  (void)store_.Update(
      *leases_, "kube-node-lease", name,
      [&](const apiserver::StoredObject* cur) -> StatusOr<json> {
        json next = lease;
        if (cur) {
          next["metadata"] = cur->Parse()["metadata"];
          next["metadata"]["resourceVersion"] = std::to_string(cur->resource_version);
        }
        return next;
      },
      {kOrigin, false}, /*allow_create=*/true);
}

void ClusterBridge::WriteEvent(const sim::EventRecord& e) {
  const std::string ns = EventNamespace(e.involved_object);
  const json ev = EventJson(e);
  (void)store_.Update(
      *events_, ns, e.name,
      [&](const apiserver::StoredObject* cur) -> StatusOr<json> {
        json next = ev;
        if (cur) {
          next["metadata"] = cur->Parse()["metadata"];
          next["metadata"]["resourceVersion"] = std::to_string(cur->resource_version);
        }
        return next;
      },
      {kOrigin, false}, /*allow_create=*/true);
}

}  // namespace tidepool::runtime
