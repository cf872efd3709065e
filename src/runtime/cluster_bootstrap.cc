#include "runtime/cluster_bootstrap.h"

#include <vector>

#include "apiserver/admission.h"
#include "apiserver/resources.h"
#include "apiserver/validation/scheduling.h"
#include "kubelet/status_json.h"
#include "runtime/bootstrap_policy.h"

namespace tidepool::runtime {
namespace {

using kubelet::Fnv;
using nlohmann::json;

constexpr char kOrigin[] = "system";
constexpr char kPdCsiDriver[] = "pd.csi.storage.gke.io";

const apiserver::Resource* Res(std::string_view group, std::string_view resource) {
  return apiserver::FindResource(group, "v1", resource);
}

// GKE's PD CSI driver addon: its CSIDriver and StorageClasses standard-rwo (the default,
// pd-balanced) and premium-rwo (pd-ssd), both WaitForFirstConsumer, and the in-tree class
// standard (pd-standard, Immediate; migrated to the CSI driver). Defaulted as the API would.
Status EnsureStorageObjects(apiserver::ObjectStore& store,
                            const apiserver::ObjectStore::WriteOptions& opts) {
  const apiserver::Resource* drivers =
      apiserver::FindResource("storage.k8s.io", "v1", "csidrivers");
  const json addon_labels = {{"addonmanager.kubernetes.io/mode", "EnsureExists"},
                             {"k8s-app", "gcp-compute-persistent-disk-csi-driver"}};
  if (!store.Get(*drivers, "", std::string(kPdCsiDriver)).ok()) {
    json obj = {{"apiVersion", "storage.k8s.io/v1"},
                {"kind", "CSIDriver"},
                {"metadata", {{"name", kPdCsiDriver}, {"labels", addon_labels}}},
                {"spec", {{"attachRequired", true}, {"podInfoOnMount", false}}}};
    apiserver::ApplyDefaults(*drivers, obj);
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*drivers, std::move(obj), opts).status());
  }
  struct Class {
    const char* name;
    const char* provisioner;
    const char* type;
    const char* binding_mode;
    bool is_default;
  };
  static constexpr Class kClasses[] = {
      {"premium-rwo", kPdCsiDriver, "pd-ssd", "WaitForFirstConsumer", false},
      {"standard", "kubernetes.io/gce-pd", "pd-standard", "Immediate", false},
      {"standard-rwo", kPdCsiDriver, "pd-balanced", "WaitForFirstConsumer", true},
  };
  const apiserver::Resource* classes =
      apiserver::FindResource("storage.k8s.io", "v1", "storageclasses");
  for (const Class& c : kClasses) {
    if (store.Get(*classes, "", c.name).ok()) continue;
    const bool csi = std::string_view(c.provisioner) == kPdCsiDriver;
    json meta = {
        {"name", c.name},
        {"labels", csi ? addon_labels : json{{"addonmanager.kubernetes.io/mode", "EnsureExists"}}}};
    if (csi) {
      meta["annotations"] = {{"components.gke.io/component-name", "pdcsi"},
                             {"components.gke.io/layer", "addon"}};
    }
    if (c.is_default) meta["annotations"]["storageclass.kubernetes.io/is-default-class"] = "true";
    json obj = {{"apiVersion", "storage.k8s.io/v1"},   {"kind", "StorageClass"},
                {"metadata", std::move(meta)},         {"provisioner", c.provisioner},
                {"parameters", {{"type", c.type}}},    {"reclaimPolicy", "Delete"},
                {"volumeBindingMode", c.binding_mode}, {"allowVolumeExpansion", true}};
    apiserver::ApplyDefaults(*classes, obj);
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*classes, std::move(obj), opts).status());
  }
  return Status::Ok();
}

Status EnsureSystemObjects(apiserver::ObjectStore& store, bool gpu_operator, bool gke_storage,
                           const api::Ipv4Cidr& service_range) {
  const apiserver::ObjectStore::WriteOptions opts{kOrigin, false};
  const apiserver::Resource* namespaces = Res("", "namespaces");
  for (const char* ns : {"default", "kube-node-lease", "kube-public", "kube-system"}) {
    if (store.Get(*namespaces, "", ns).ok()) continue;
    json obj = {{"apiVersion", "v1"},
                {"kind", "Namespace"},
                {"metadata", {{"name", ns}, {"labels", {{"kubernetes.io/metadata.name", ns}}}}},
                {"spec", {{"finalizers", {"kubernetes"}}}},
                {"status", {{"phase", "Active"}}}};
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*namespaces, std::move(obj), opts).status());
  }
  TIDEPOOL_RETURN_IF_ERROR(EnsureBootstrapPolicy(store, opts));
  if (gke_storage) TIDEPOOL_RETURN_IF_ERROR(EnsureStorageObjects(store, opts));
  // kube-apiserver's scheduling/bootstrap-system-priority-classes
  // (scheduling.SystemPriorityClasses).
  const apiserver::Resource* classes =
      apiserver::FindResource("scheduling.k8s.io", "v1", "priorityclasses");
  for (const auto& pc : apiserver::validation::kSystemPriorityClasses) {
    if (store.Get(*classes, "", pc.name).ok()) continue;
    json obj = {
        {"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"},
        {"metadata", {{"name", pc.name}}},      {"value", pc.value},
        {"description", pc.description},        {"preemptionPolicy", "PreemptLowerPriority"}};
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*classes, std::move(obj), opts).status());
  }
  // The kubernetes Service of the default namespace, its Endpoints and EndpointSlice (the API
  // server's own reconciler's, with the first address of the service range and GKE's control-plane
  // endpoint).
  const apiserver::Resource* services = Res("", "services");
  if (!store.Get(*services, "default", "kubernetes").ok()) {
    json svc = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata",
         {{"name", "kubernetes"},
          {"namespace", "default"},
          {"labels", {{"component", "apiserver"}, {"provider", "kubernetes"}}}}},
        {"spec",
         {{"clusterIP", api::Ipv4String(service_range.Address(1))},
          {"clusterIPs", json::array({api::Ipv4String(service_range.Address(1))})},
          {"internalTrafficPolicy", "Cluster"},
          {"ipFamilies", json::array({"IPv4"})},
          {"ipFamilyPolicy", "SingleStack"},
          {"ports",
           json::array(
               {{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}, {"targetPort", 443}}})},
          {"sessionAffinity", "None"},
          {"type", "ClusterIP"}}},
        {"status", {{"loadBalancer", json::object()}}}};
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*services, std::move(svc), opts).status());
  }
  // GKE's kube-dns Service (its pods are kube-system's, below; kcm's endpoints controller
  // lists them).
  if (!store.Get(*services, "kube-system", "kube-dns").ok()) {
    json svc = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata",
         {{"name", "kube-dns"},
          {"namespace", "kube-system"},
          {"labels",
           {{"addonmanager.kubernetes.io/mode", "Reconcile"},
            {"k8s-app", "kube-dns"},
            {"kubernetes.io/cluster-service", "true"},
            {"kubernetes.io/name", "KubeDNS"}}}}},
        {"spec",
         {{"clusterIP", api::Ipv4String(service_range.Address(10))},
          {"clusterIPs", json::array({api::Ipv4String(service_range.Address(10))})},
          {"internalTrafficPolicy", "Cluster"},
          {"ipFamilies", json::array({"IPv4"})},
          {"ipFamilyPolicy", "SingleStack"},
          {"ports",
           json::array(
               {{{"name", "dns"}, {"port", 53}, {"protocol", "UDP"}, {"targetPort", 53}},
                {{"name", "dns-tcp"}, {"port", 53}, {"protocol", "TCP"}, {"targetPort", 53}}})},
          {"selector", {{"k8s-app", "kube-dns"}}},
          {"sessionAffinity", "None"},
          {"type", "ClusterIP"}}},
        {"status", {{"loadBalancer", json::object()}}}};
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*services, std::move(svc), opts).status());
  }
  const apiserver::Resource* endpoints = Res("", "endpoints");
  if (!store.Get(*endpoints, "default", "kubernetes").ok()) {
    json ep = {{"apiVersion", "v1"},
               {"kind", "Endpoints"},
               {"metadata",
                {{"name", "kubernetes"},
                 {"namespace", "default"},
                 {"labels", {{"endpointslice.kubernetes.io/skip-mirror", "true"}}}}},
               {"subsets",
                json::array(
                    {{{"addresses", json::array({{{"ip", "172.16.0.2"}}})},
                      {"ports",
                       json::array({{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}}})}}})}};
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*endpoints, std::move(ep), opts).status());
  }
  // ... and its EndpointSlice, as that reconciler's endpointsadapter writes it beside them.
  const apiserver::Resource* slices = Res("discovery.k8s.io", "endpointslices");
  if (!store.Get(*slices, "default", "kubernetes").ok()) {
    json slice = {
        {"apiVersion", "discovery.k8s.io/v1"},
        {"kind", "EndpointSlice"},
        {"metadata",
         {{"name", "kubernetes"},
          {"namespace", "default"},
          {"labels", {{"kubernetes.io/service-name", "kubernetes"}}}}},
        {"addressType", "IPv4"},
        {"endpoints", json::array({{{"addresses", json::array({"172.16.0.2"})},
                                    {"conditions", {{"ready", true}}}}})},
        {"ports", json::array({{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}}})}};
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*slices, std::move(slice), opts).status());
  }
  if (!gpu_operator) return Status::Ok();
  if (!store.Get(*namespaces, "", "gpu-operator").ok()) {
    json obj = {
        {"apiVersion", "v1"},
        {"kind", "Namespace"},
        {"metadata",
         {{"name", "gpu-operator"}, {"labels", {{"kubernetes.io/metadata.name", "gpu-operator"}}}}},
        {"spec", {{"finalizers", {"kubernetes"}}}},
        {"status", {{"phase", "Active"}}}};
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*namespaces, std::move(obj), opts).status());
  }
  const apiserver::Resource* ds = Res("apps", "daemonsets");
  auto existing = store.Get(*ds, "gpu-operator", "nvidia-device-plugin-daemonset");
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
            {"tolerations",
             json::array(
                 {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
            {"priorityClassName", "system-node-critical"},
            {"containers",
             json::array({{{"name", "nvidia-device-plugin"},
                           {"image", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}}})}}}}}}}};
  return store.Create(*ds, std::move(obj), opts).status();
}

// The names of the stored nodes, after the emulated cloud's that it no longer has are deleted.
std::vector<std::string> PruneNodes(apiserver::ObjectStore& store,
                                    const ClusterBootstrapOptions& options) {
  const apiserver::Resource* nodes = Res("", "nodes");
  const std::string ours = "gce://" + options.project + "/";
  std::vector<std::string> out;
  for (const apiserver::ObjectPtr& o : store.List(*nodes, "").items) {
    const json& v = o->view;
    const std::string name = v["metadata"].value("name", "");
    const std::string provider =
        v.contains("spec") && v["spec"].is_object() ? v["spec"].value("providerID", "") : "";
    if (provider.rfind(ours, 0) == 0 && options.cloud_nodes.count(name) == 0) {
      (void)store.Delete(*nodes, "", name, {kOrigin, false});
      continue;
    }
    out.push_back(name);
  }
  return out;
}

struct SystemPod {
  std::string name, app, container, image, cpu, memory;
};

// A kube-system pod of GKE's, bound to `host`.
json SystemPodJson(const SystemPod& p, const std::string& host) {
  return {{"apiVersion", "v1"},
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
            {"tolerations", json::array({{{"key", "CriticalAddonsOnly"}, {"operator", "Exists"}},
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
}

}  // namespace

StatusOr<std::string> BootstrapCluster(apiserver::ObjectStore& store,
                                       const ClusterBootstrapOptions& options) {
  TIDEPOOL_RETURN_IF_ERROR(
      EnsureSystemObjects(store, options.gpu_operator, options.gke_storage, options.service_range));
  const std::vector<std::string> nodes = PruneNodes(store, options);
  const apiserver::Resource* pods = Res("", "pods");
  std::string autoscaler_pod;
  // kube-system's pods of a GKE cluster, on the first default-pool node.
  std::string host;
  for (const std::string& n : nodes) {
    if (n.find("default-pool") != std::string::npos) {
      host = n;
      break;
    }
  }
  if (host.empty() && !nodes.empty()) host = *nodes.begin();
  bool have_dns = false;
  for (const apiserver::ObjectPtr& o : store.List(*pods, "kube-system").items) {
    const std::string name = o->view["metadata"].value("name", "");
    if (name.rfind("cluster-autoscaler-", 0) == 0) autoscaler_pod = name;
    if (name.rfind("kube-dns-", 0) == 0) have_dns = true;
  }
  const uint64_t h = Fnv(options.cluster + options.project);
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
  if (autoscaler_pod.empty() && options.autoscaler_pod) {
    autoscaler_pod = "cluster-autoscaler-" + suffix(h, 10) + "-" + suffix(h >> 20, 5);
    system.push_back({autoscaler_pod, "cluster-autoscaler", "cluster-autoscaler",
                      "registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1", "10m", "300Mi"});
  }
  if (!have_dns) {
    system.push_back({"kube-dns-" + suffix(h >> 7, 10) + "-" + suffix(h >> 29, 5), "kube-dns",
                      "kubedns", "gke.gcr.io/k8s-dns-kube-dns:1.26.0-gke.1", "100m", "70Mi"});
  }
  if (!host.empty()) {
    for (const SystemPod& p : system) {
      json pod = SystemPodJson(p, host);
      auto created = store.Create(*pods, std::move(pod), {"system", false});
      if (!created.ok()) return created.status();
    }
  }
  return autoscaler_pod;
}

}  // namespace tidepool::runtime
