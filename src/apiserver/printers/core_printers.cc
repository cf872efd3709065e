// Printers for the core group (except pods): printers.go printNode, printEvent, printNamespace,
// printConfigMap, printSecret, printServiceAccount, printService, printEndpoints,
// printPersistentVolumeClaim, printPersistentVolume and printReplicationController
// (kube-apiserver 1.32), plus events.k8s.io/v1 events, which kube-apiserver converts to core
// events before printing.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/printers/internal.h"
#include "apiserver/printers/resource_printers.h"

namespace tidepool::apiserver::printers::internal {
namespace {

using nlohmann::json;

std::string OrDefault(std::string s, std::string_view def) {
  return s.empty() ? std::string(def) : s;
}

// ---- nodes -----------------------------------------------------------------------------------

// The first status.addresses entry of `type`, or "<none>".
std::string NodeAddress(const json& node, std::string_view type) {
  const json* address = FirstOfType(Path(node, "status", "addresses"), type);
  return address != nullptr ? Str(Field(address, "address")) : "<none>";
}

json NodeCells(const json& node, TimePoint now) {
  // Only the Ready condition counts; the last one listed wins, as in the condition map.
  std::vector<std::string> status;
  const json* ready = nullptr;
  ForEach(Path(node, "status", "conditions"), [&](const json& c) {
    if (Str(Field(c, "type")) == "Ready") {
      ready = &c;
    }
  });
  if (ready != nullptr) {
    status.push_back(Str(Field(ready, "status")) == "True" ? "Ready" : "NotReady");
  } else {
    status.push_back("Unknown");
  }
  if (Bool(Path(node, "spec", "unschedulable"))) {
    status.push_back("SchedulingDisabled");
  }

  // node-role.kubernetes.io/<role> labels and the value of kubernetes.io/role, sorted.
  std::set<std::string> roles;
  if (const json* labels = Path(node, "metadata", "labels"); labels && labels->is_object()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    for (auto it = labels->begin(); it != labels->end(); ++it) {
      const std::string& key = it.key();
      if (key.compare(0, kPrefix.size(), kPrefix) == 0) {
        if (key.size() > kPrefix.size()) {
          roles.insert(key.substr(kPrefix.size()));
        }
      } else if (key == "kubernetes.io/role") {
        if (std::string v = Str(&it.value()); !v.empty()) {
          roles.insert(v);
        }
      }
    }
  }

  const json* info = Path(node, "status", "nodeInfo");
  return json::array({
      Name(node),
      Join(status, ","),
      roles.empty() ? "<none>" : Join({roles.begin(), roles.end()}, ","),
      Age(node, now),
      Str(Field(info, "kubeletVersion")),
      NodeAddress(node, "InternalIP"),
      NodeAddress(node, "ExternalIP"),
      OrDefault(Str(Field(info, "osImage")), "<unknown>"),
      OrDefault(Str(Field(info, "kernelVersion")), "<unknown>"),
      OrDefault(Str(Field(info, "containerRuntimeVersion")), "<unknown>"),
  });
}

// ---- events ----------------------------------------------------------------------------------

std::string FirstNonEmpty(std::string a, std::string b) { return a.empty() ? b : a; }

// An Event's row, from core/v1's fields: events.k8s.io/v1 Events are stored as core's
// (conversion.h) and printed from the same fields, as kube-apiserver prints its one internal
// Event.
json CoreEventCells(const json& event, TimePoint now) {
  std::string first_seen = TimeField(Field(event, "firstTimestamp")).has_value()
                               ? Since(Field(event, "firstTimestamp"), now)
                               : Since(Field(event, "eventTime"), now);
  std::string last_seen = TimeField(Field(event, "lastTimestamp")).has_value()
                              ? Since(Field(event, "lastTimestamp"), now)
                              : first_seen;
  int64_t count = Int(Field(event, "count"));
  if (const json* series = Field(event, "series"); series != nullptr && !series->is_null()) {
    last_seen = Since(Field(series, "lastObservedTime"), now);
    count = Int(Field(series, "count"));
  } else if (count == 0) {
    count = 1;  // singleton events have no count in the new API
  }

  const json* involved = Field(event, "involvedObject");
  const std::string kind = ToLower(Str(Field(involved, "kind")));
  const std::string involved_name = Str(Field(involved, "name"));
  const std::string target = involved_name.empty() ? kind : kind + "/" + involved_name;

  const json* source = Field(event, "source");
  const std::string component =
      FirstNonEmpty(Str(Field(source, "component")), Str(Field(event, "reportingComponent")));
  const std::string instance =
      FirstNonEmpty(Str(Field(source, "host")), Str(Field(event, "reportingInstance")));
  const std::string source_str = instance.empty() ? component : component + ", " + instance;

  return json::array({
      last_seen,
      Str(Field(event, "type")),
      Str(Field(event, "reason")),
      target,
      Str(Field(involved, "fieldPath")),
      source_str,
      TrimSpace(Str(Field(event, "message"))),
      first_seen,
      count,
      Name(event),
  });
}

std::vector<Column> EventColumns() {
  return {
      {"Last Seen", "string", "",
       "The time at which the most recent occurrence of this event was "
       "recorded.",
       0},
      {"Type", "string", "",
       "Type of this event (Normal, Warning), new types could be added in the "
       "future",
       0},
      {"Reason", "string", "",
       "This should be a short, machine understandable string that gives "
       "the reason for the transition into the object's current status.",
       0},
      {"Object", "string", "", "The object that this event is about.", 0},
      {"Subobject", "string", "",
       "If referring to a piece of an object instead of an entire "
       "object, this string should contain a valid JSON/Go field access "
       "statement, such as desiredState.manifest.containers[2].",
       1},
      {"Source", "string", "",
       "The component reporting this event. Should be a short machine "
       "understandable string.",
       1},
      {"Message", "string", "", "A human-readable description of the status of this operation.", 0},
      {"First Seen", "string", "",
       "The time at which the event was first recorded. (Time of "
       "server receipt is in TypeMeta.)",
       1},
      {"Count", "string", "", "The number of times this event has occurred.", 1},
      {"Name", "string", "name", kNameDescription, 1},
  };
}

// ---- namespaces, configmaps, secrets, serviceaccounts ------------------------------------------

json NamespaceCells(const json& ns, TimePoint now) {
  return json::array({Name(ns), Str(Path(ns, "status", "phase")), Age(ns, now)});
}

// printComponentStatus: the Healthy condition's status (Healthy / Unhealthy; Unknown without
// one), message and error.
json ComponentStatusCells(const json& cs, TimePoint) {
  std::string status = "Unknown", message, error;
  if (const json* conds = Field(cs, "conditions"); conds != nullptr && conds->is_array()) {
    for (const json& c : *conds) {
      if (Str(Field(c, "type")) != "Healthy") continue;
      status = Str(Field(c, "status")) == "True" ? "Healthy" : "Unhealthy";
      message = Str(Field(c, "message"));
      error = Str(Field(c, "error"));
      break;
    }
  }
  return json::array({Name(cs), status, message, error});
}

json ConfigMapCells(const json& cm, TimePoint now) {
  return json::array(
      {Name(cm), Size(Field(cm, "data")) + Size(Field(cm, "binaryData")), Age(cm, now)});
}

json SecretCells(const json& secret, TimePoint now) {
  return json::array(
      {Name(secret), Str(Field(secret, "type")), Size(Field(secret, "data")), Age(secret, now)});
}

// printResourceQuota: "<resource>: <used>/<hard>" for every resource of status.hard (sorted),
// limits.* in the Limit column, the rest in Request.
json ResourceQuotaCells(const json& quota, TimePoint now) {
  std::string request, limit;
  const json* hard = Path(quota, "status", "hard");
  if (hard != nullptr && hard->is_object()) {
    for (auto it = hard->begin(); it != hard->end(); ++it) {  // nlohmann: sorted keys
      const std::string& resource = it.key();
      const std::string used = QuantityString(Path(quota, "status", "used", resource));
      const std::string max = QuantityString(Path(quota, "status", "hard", resource));
      std::string& column = resource.rfind("limits.", 0) == 0 ? limit : request;
      if (!column.empty()) column += ", ";
      column += resource + ": " + used + "/" + max;
    }
  }
  return json::array({Name(quota), Age(quota, now), request, limit});
}

json ServiceAccountCells(const json& sa, TimePoint now) {
  int64_t secrets = 0;
  ForEach(Field(sa, "secrets"), [&](const json&) { ++secrets; });
  return json::array({Name(sa), secrets, Age(sa, now)});
}

// ---- services --------------------------------------------------------------------------------

std::vector<std::string> Strings(const json* list) {
  std::vector<std::string> out;
  ForEach(list, [&](const json& e) { out.push_back(Str(&e)); });
  return out;
}

// printers.go getServiceExternalIP with wide=true (the load-balancer list is not clipped).
std::string ServiceExternalIP(const json& svc, const std::string& type) {
  const std::vector<std::string> external_ips = Strings(Path(svc, "spec", "externalIPs"));
  if (type == "ClusterIP" || type == "NodePort") {
    return external_ips.empty() ? "<none>" : Join(external_ips, ",");
  }
  if (type == "LoadBalancer") {
    std::set<std::string> lb;  // sets.NewString(...).List(): unique and sorted
    ForEach(Path(svc, "status", "loadBalancer", "ingress"), [&](const json& ing) {
      if (std::string ip = Str(Field(ing, "ip")); !ip.empty()) {
        lb.insert(ip);
      } else if (std::string host = Str(Field(ing, "hostname")); !host.empty()) {
        lb.insert(host);
      }
    });
    std::vector<std::string> results(lb.begin(), lb.end());
    if (!external_ips.empty()) {
      results.insert(results.end(), external_ips.begin(), external_ips.end());
      return Join(results, ",");
    }
    return results.empty() ? "<pending>" : Join(results, ",");
  }
  if (type == "ExternalName") {
    return Str(Path(svc, "spec", "externalName"));
  }
  return "<unknown>";
}

json ServiceCells(const json& svc, TimePoint now) {
  const json* spec = Field(svc, "spec");
  // API defaulting: an unset type is ClusterIP.
  const std::string type = OrDefault(Str(Field(spec, "type")), "ClusterIP");
  // spec.clusterIP wins over spec.clusterIPs, as in the v1 -> internal conversion.
  std::string cluster_ip = Str(Field(spec, "clusterIP"));
  if (cluster_ip.empty()) {
    if (const json* ips = Field(spec, "clusterIPs"); NonEmptyArray(ips)) {
      cluster_ip = Str(&(*ips)[0]);
    }
  }
  std::vector<std::string> ports;
  ForEach(Field(spec, "ports"), [&](const json& p) {
    const std::string protocol = OrDefault(Str(Field(p, "protocol")), "TCP");
    const int64_t node_port = Int(Field(p, "nodePort"));
    std::string s = std::to_string(Int(Field(p, "port")));
    if (node_port > 0) {
      s += ":" + std::to_string(node_port);
    }
    ports.push_back(s + "/" + protocol);
  });
  return json::array({
      Name(svc),
      type,
      cluster_ip.empty() ? "<none>" : cluster_ip,
      ServiceExternalIP(svc, type),
      ports.empty() ? "<none>" : Join(ports, ","),
      Age(svc, now),
      FormatLabels(Field(spec, "selector")),
  });
}

// ---- endpoints, persistentvolumeclaims ---------------------------------------------------------

// net.JoinHostPort.
std::string JoinHostPort(const std::string& host, int64_t port) {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

// printers.go formatEndpoints(endpoints, nil): up to three addresses, then "+ N more...".
std::string FormatEndpoints(const json& ep) {
  const json* subsets = Field(ep, "subsets");
  if (!NonEmptyArray(subsets)) {
    return "<none>";
  }
  constexpr size_t kMax = 3;
  std::vector<std::string> list;
  bool more = false;
  int64_t count = 0;
  for (const json& ss : *subsets) {
    const json* addresses = Field(ss, "addresses");
    const int64_t n_addresses =
        addresses != nullptr && addresses->is_array() ? static_cast<int64_t>(addresses->size()) : 0;
    const json* ports = Field(ss, "ports");
    if (!NonEmptyArray(ports)) {
      // Headless services may have no ports.
      count += n_addresses;
      for (int64_t i = 0; i < n_addresses; ++i) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(Str(Field((*addresses)[i], "ip")));
      }
      continue;
    }
    for (const json& port : *ports) {
      count += n_addresses;
      for (int64_t i = 0; i < n_addresses; ++i) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(JoinHostPort(Str(Field((*addresses)[i], "ip")), Int(Field(port, "port"))));
      }
    }
  }
  std::string ret = Join(list, ",");
  if (more) {
    ret += " + " + std::to_string(count - static_cast<int64_t>(kMax)) + " more...";
  }
  return ret;
}

json EndpointsCells(const json& ep, TimePoint now) {
  return json::array({Name(ep), FormatEndpoints(ep), Age(ep, now)});
}

// helper.GetAccessModesAsString: de-duplicated, in a fixed order.
std::string AccessModes(const json* modes) {
  std::set<std::string> present;
  ForEach(modes, [&](const json& m) { present.insert(Str(&m)); });
  std::vector<std::string> out;
  for (const auto& [mode, abbreviation] :
       {std::pair<const char*, const char*>{"ReadWriteOnce", "RWO"},
        {"ReadOnlyMany", "ROX"},
        {"ReadWriteMany", "RWX"},
        {"ReadWriteOncePod", "RWOP"}}) {
    if (present.count(mode) > 0) {
      out.push_back(abbreviation);
    }
  }
  return Join(out, ",");
}

// helper.GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation wins
// over spec.storageClassName.
std::string StorageClassOf(const json& object) {
  if (const json* a =
          Path(object, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class");
      a != nullptr) {
    return Str(a);
  }
  return Str(Path(object, "spec", "storageClassName"));
}

// "Terminating" while metadata.deletionTimestamp is set, else status.phase.
std::string PhaseOrTerminating(const json& object) {
  const json* deletion = Path(object, "metadata", "deletionTimestamp");
  if (deletion != nullptr && !deletion->is_null()) {
    return "Terminating";
  }
  return Str(Path(object, "status", "phase"));
}

json PersistentVolumeCells(const json& pv, TimePoint now) {
  const json* spec = Field(pv, "spec");
  std::string claim;
  if (const json* ref = Field(spec, "claimRef"); ref != nullptr && ref->is_object()) {
    claim = Str(Field(ref, "namespace")) + "/" + Str(Field(ref, "name"));
  }
  const json* vac = Field(spec, "volumeAttributesClassName");
  return json::array({
      Name(pv), QuantityString(Path(spec, "capacity", "storage")),
      AccessModes(Field(spec, "accessModes")),
      OrDefault(Str(Field(spec, "persistentVolumeReclaimPolicy")), "Retain"),  // API default
      PhaseOrTerminating(pv), claim, StorageClassOf(pv),
      vac != nullptr && vac->is_string() ? Str(vac) : "<unset>", Str(Path(pv, "status", "reason")),
      Age(pv, now), OrDefault(Str(Field(spec, "volumeMode")), "Filesystem"),  // API default
  });
}

json ReplicationControllerCells(const json& rc, TimePoint now) {
  const ContainerCells containers =
      LayoutContainers(Path(rc, "spec", "template", "spec", "containers"));
  return json::array({
      Name(rc),
      Int(Path(rc, "spec", "replicas"), 1),  // API default 1
      Int(Path(rc, "status", "replicas")),
      Int(Path(rc, "status", "readyReplicas")),
      Age(rc, now),
      containers.names,
      containers.images,
      FormatLabels(Path(rc, "spec", "selector")),
  });
}

json PodTemplateCells(const json& pt, TimePoint) {
  const ContainerCells containers = LayoutContainers(Path(pt, "template", "spec", "containers"));
  return json::array({Name(pt), containers.names, containers.images,
                      FormatLabels(Path(pt, "template", "metadata", "labels"))});
}

json PersistentVolumeClaimCells(const json& pvc, TimePoint now) {
  const json* spec = Field(pvc, "spec");
  const json* deletion = Path(pvc, "metadata", "deletionTimestamp");
  std::string phase = Str(Path(pvc, "status", "phase"));
  if (deletion != nullptr && !deletion->is_null()) {
    phase = "Terminating";
  }
  const std::string volume = Str(Field(spec, "volumeName"));
  std::string capacity;
  std::string access_modes;
  if (!volume.empty()) {
    access_modes = AccessModes(Path(pvc, "status", "accessModes"));
    capacity = Str(Path(pvc, "status", "capacity", "storage"));
    if (capacity.empty()) {
      capacity = "0";  // the zero Quantity
    }
  }
  const std::string storage_class = StorageClassOf(pvc);
  const std::string vac = Str(Field(spec, "volumeAttributesClassName"));
  const std::string volume_mode = Str(Field(spec, "volumeMode"));
  return json::array({
      Name(pvc), phase, volume, capacity, access_modes, storage_class,
      Field(spec, "volumeAttributesClassName") != nullptr &&
              Field(spec, "volumeAttributesClassName")->is_string()
          ? vac
          : "<unset>",
      Age(pvc, now),
      volume_mode.empty() ? "Filesystem" : volume_mode,  // API default
  });
}

}  // namespace

Printer MakeEndpointsPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Endpoints", "string", "", "The set of all endpoints is the union of all subsets.", 0},
      AgeColumn()};
  p.cells = &EndpointsCells;
  return p;
}

Printer MakePersistentVolumeClaimPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Status", "string", "", "phase represents the current phase of PersistentVolumeClaim.", 0},
      {"Volume", "string", "",
       "volumeName is the binding reference to the PersistentVolume backing this claim.", 0},
      {"Capacity", "string", "",
       "capacity represents the actual resources of the underlying volume.", 0},
      {"Access Modes", "string", "",
       "accessModes contains the actual access modes the volume backing the PVC has.", 0},
      {"StorageClass", "string", "", "StorageClass of the pvc", 0},
      {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0},
      AgeColumn(),
      {"VolumeMode", "string", "",
       "volumeMode defines what type of volume is required by the claim.", 1},
  };
  p.cells = &PersistentVolumeClaimCells;
  return p;
}

Printer MakePersistentVolumePrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Capacity", "string", "",
       "capacity is the description of the persistent volume's resources and capacity. More "
       "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
       0},
      {"Access Modes", "string", "",
       "accessModes contains all ways the volume can be mounted. More info: "
       "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
       0},
      {"Reclaim Policy", "string", "",
       "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released "
       "from its claim. Valid options are Retain (default for manually created "
       "PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and "
       "Recycle (deprecated). Recycle must be supported by the volume plugin underlying this "
       "PersistentVolume. More info: "
       "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
       0},
      {"Status", "string", "",
       "phase indicates if a volume is available, bound to a claim, or released by a claim. "
       "More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
       0},
      {"Claim", "string", "",
       "claimRef is part of a bi-directional binding between PersistentVolume and "
       "PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the "
       "authoritative bind between PV and PVC. More info: "
       "https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
       0},
      {"StorageClass", "string", "", "StorageClass of the pv", 0},
      {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0},
      {"Reason", "string", "",
       "reason is a brief CamelCase string that describes any failure and is meant for machine "
       "parsing and tidy display in the CLI.",
       0},
      AgeColumn(),
      {"VolumeMode", "string", "",
       "volumeMode defines if a volume is intended to be used with a formatted filesystem or to "
       "remain in raw block state. Value of Filesystem is implied when not included in spec.",
       1},
  };
  p.cells = &PersistentVolumeCells;
  return p;
}

Printer MakeReplicationControllerPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Desired", "integer", "",
       "Replicas is the number of desired replicas. This is a pointer to distinguish between "
       "explicit zero and unspecified. Defaults to 1. More info: "
       "https://kubernetes.io/docs/concepts/workloads/controllers/"
       "replicationcontroller#what-is-a-replicationcontroller",
       0},
      {"Current", "integer", "",
       "Replicas is the most recently observed number of replicas. More info: "
       "https://kubernetes.io/docs/concepts/workloads/controllers/"
       "replicationcontroller#what-is-a-replicationcontroller",
       0},
      {"Ready", "integer", "", "The number of ready replicas for this replication controller.", 0},
      AgeColumn(),
      {"Containers", "string", "", "Names of each container in the template.", 1},
      {"Images", "string", "", "Images referenced by each container in the template.", 1},
      {"Selector", "string", "",
       "Selector is a label query over pods that should match the Replicas count. If Selector "
       "is empty, it is defaulted to the labels present on the Pod template. Label keys and "
       "values that must match in order to be controlled by this replication controller, if "
       "empty defaulted to labels on Pod template. More info: "
       "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
       "labels/#label-selectors",
       1},
  };
  p.cells = &ReplicationControllerCells;
  return p;
}

Printer MakePodTemplatePrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Containers", "string", "", "Names of each container in the template.", 0},
      {"Images", "string", "", "Images referenced by each container in the template.", 0},
      {"Pod Labels", "string", "", "The labels for the pod template.", 0},
  };
  p.cells = &PodTemplateCells;
  return p;
}

Printer MakeNodePrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Status", "string", "", "The status of the node", 0},
      {"Roles", "string", "", "The roles of the node", 0},
      AgeColumn(),
      {"Version", "string", "", "Kubelet Version reported by the node.", 0},
      {"Internal-IP", "string", "", "List of addresses reachable to the node.", 1},
      {"External-IP", "string", "", "List of addresses reachable to the node.", 1},
      {"OS-Image", "string", "",
       "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
      {"Kernel-Version", "string", "",
       "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
      {"Container-Runtime", "string", "",
       "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
       "containerd://1.4.2).",
       1},
  };
  p.cells = &NodeCells;
  return p;
}

Printer MakeEventPrinter() {
  Printer p;
  p.columns = EventColumns();
  p.cells = &CoreEventCells;
  return p;
}

Printer MakeNamespacePrinter() {
  Printer p;
  p.columns = {
      NameColumn(), {"Status", "string", "", "The status of the namespace", 0}, AgeColumn()};
  p.cells = &NamespaceCells;
  return p;
}

Printer MakeComponentStatusPrinter() {
  Printer p;
  p.columns = {NameColumn(),
               {"Status", "string", "", "Status of the component conditions", 0},
               {"Message", "string", "", "Message of the component conditions", 0},
               {"Error", "string", "", "Error of the component conditions", 0}};
  p.cells = &ComponentStatusCells;
  return p;
}

Printer MakeConfigMapPrinter() {
  Printer p;
  p.columns = {NameColumn(),
               {"Data", "string", "",
                "Data contains the configuration data. Each key must consist of alphanumeric "
                "characters, '-', '_' or '.'.",
                0},
               AgeColumn()};
  p.cells = &ConfigMapCells;
  return p;
}

Printer MakeResourceQuotaPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      AgeColumn(),
      {"Request", "string", "",
       "Request represents a minimum amount of cpu/memory that a container may consume.", 0},
      {"Limit", "string", "",
       "Limits control the maximum amount of cpu/memory that a container may use "
       "independent of contention on the node.",
       0}};
  p.cells = &ResourceQuotaCells;
  return p;
}

Printer MakeSecretPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Type", "string", "", "Used to facilitate programmatic handling of secret data.", 0},
      {"Data", "string", "",
       "Data contains the secret data. Each key must consist of alphanumeric characters, "
       "'-', '_' or '.'.",
       0},
      AgeColumn()};
  p.cells = &SecretCells;
  return p;
}

Printer MakeServiceAccountPrinter() {
  Printer p;
  p.columns = {NameColumn(),
               {"Secrets", "string", "",
                "Secrets is a list of the secrets in the same namespace that pods running using "
                "this ServiceAccount are allowed to use.",
                0},
               AgeColumn()};
  p.cells = &ServiceAccountCells;
  return p;
}

Printer MakeServicePrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Type", "string", "", "type determines how the Service is exposed.", 0},
      {"Cluster-IP", "string", "",
       "clusterIP is the IP address of the service and is usually assigned randomly.", 0},
      {"External-IP", "string", "",
       "externalIPs is a list of IP addresses for which nodes in the cluster will also accept "
       "traffic for this service.",
       0},
      {"Port(s)", "string", "", "The list of ports that are exposed by this service.", 0},
      AgeColumn(),
      {"Selector", "string", "",
       "Route service traffic to pods with label keys and values matching this selector.", 1},
  };
  p.cells = &ServiceCells;
  return p;
}

}  // namespace tidepool::apiserver::printers::internal
