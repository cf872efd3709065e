#include "kubelet/node_status.h"

#include "client/rest_client.h"
#include "kubelet/status_json.h"

namespace tidepool::kubelet {
namespace {

using json = nlohmann::json;

const json* Member(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const json* Path(const json& obj, std::string_view a, std::string_view b) {
  const json* first = Member(obj, a);
  return first == nullptr ? nullptr : Member(*first, b);
}

bool NonEmpty(const json* v) {
  return v != nullptr && !v->is_null() && !(v->is_object() && v->empty()) &&
         !(v->is_array() && v->empty()) &&
         !(v->is_string() && v->get_ref<const std::string&>().empty());
}

std::string Name(const json& node) {
  const json* n = Path(node, "metadata", "name");
  return n != nullptr && n->is_string() ? n->get<std::string>() : std::string();
}

// A UUID-shaped id of `name`: its five groups hashed from "<name>/<first>", "<name>/<tag>2", ...
// "<name>/<tag>5" (what the emulated nodes have reported since they were first registered).
std::string Uuid(std::string_view name, std::string_view first, std::string_view tag) {
  const std::string base = std::string(name) + "/";
  const std::string t = base + std::string(tag);
  return Hex(Fnv(base + std::string(first)), 8) + "-" + Hex(Fnv(t + "2"), 4) + "-" +
         Hex(Fnv(t + "3"), 4) + "-" + Hex(Fnv(t + "4"), 4) + "-" + Hex(Fnv(t + "5"), 12);
}

json Condition(std::string_view type, std::string_view status, std::string_view reason,
               std::string_view message, const std::string& heartbeat,
               const std::string& transition) {
  return {{"type", type},
          {"status", status},
          {"reason", reason},
          {"message", message},
          {"lastHeartbeatTime", heartbeat},
          {"lastTransitionTime", transition}};
}

}  // namespace

json NodeAddressesJson(std::string_view name) {
  return json::array({{{"type", "InternalIP"}, {"address", NodeIp(name)}},
                      {{"type", "Hostname"}, {"address", name}}});
}

json DaemonEndpointsJson() { return {{"kubeletEndpoint", {{"Port", 10250}}}}; }

json NodeInfoJson(std::string_view name, const cloud::emulated::NodeSystem& system) {
  const std::string n(name);
  return {{"machineID", Hex(Fnv(n + "/machine"), 16) + Hex(Fnv(n + "/m2"), 16)},
          {"systemUUID", Uuid(name, "uuid", "u")},
          {"bootID", Uuid(name, "boot", "b")},
          {"kernelVersion", system.kernel_version},
          {"osImage", system.os_image},
          {"containerRuntimeVersion", system.container_runtime_version},
          {"kubeletVersion", system.kubelet_version},
          {"kubeProxyVersion", system.kubelet_version},
          {"operatingSystem", "linux"},
          {"architecture", "amd64"}};
}

json NodeLeaseJson(std::string_view name, std::string_view node_uid, TimePoint renew) {
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata",
           {{"name", name},
            {"namespace", "kube-node-lease"},
            {"ownerReferences",
             json::array(
                 {{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", name}, {"uid", node_uid}}})}}},
          {"spec",
           {{"holderIdentity", name},
            {"leaseDurationSeconds", kNodeLeaseDurationSeconds},
            {"renewTime", client::FormatMicroTime(renew)}}}};
}

std::vector<std::string> NodeConditionTypes(const json& node) {
  std::vector<std::string> out;
  const json* conditions = Path(node, "status", "conditions");
  if (conditions == nullptr || !conditions->is_array()) return out;
  for (const json& c : *conditions) {
    const json* type = Member(c, "type");
    if (type != nullptr && type->is_string()) out.push_back(type->get<std::string>());
  }
  return out;
}

json NodeHeartbeatPatch(const std::vector<std::string>& condition_types, TimePoint now) {
  if (condition_types.empty()) return json();
  const std::string at = FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(now));
  json out = json::array();
  for (const std::string& type : condition_types) {
    out.push_back({{"type", type}, {"lastHeartbeatTime", at}});
  }
  return {{"status", {{"conditions", std::move(out)}}}};
}

bool IsKwokNode(const json& node) {
  const json* annotations = Path(node, "metadata", "annotations");
  const json* v = annotations == nullptr ? nullptr : Member(*annotations, kKwokNodeAnnotation);
  return v != nullptr && v->is_string() &&
         v->get_ref<const std::string&>() == kKwokNodeAnnotationValue;
}

const json* NodeConditions(const json& node) {
  const json* conditions = Path(node, "status", "conditions");
  return conditions != nullptr && conditions->is_array() ? conditions : nullptr;
}

const json* NodeReadyCondition(const json& node) {
  const json* conditions = NodeConditions(node);
  if (conditions == nullptr) return nullptr;
  for (const json& c : *conditions) {
    const json* type = Member(c, "type");
    if (type != nullptr && *type == "Ready") return &c;
  }
  return nullptr;
}

bool NodeReady(const json& node) {
  const json* ready = NodeReadyCondition(node);
  const json* status = ready == nullptr ? nullptr : Member(*ready, "status");
  return status != nullptr && *status == "True";
}

json RunningKubeletCondition(std::string_view type) {
  struct Setter {
    const char* type;
    const char* status;
    const char* reason;
    const char* message;
  };
  static constexpr Setter kSetters[] = {
      {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
      {"MemoryPressure", "False", "KubeletHasSufficientMemory",
       "kubelet has sufficient memory available"},
      {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
      {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
  };
  for (const Setter& s : kSetters) {
    if (type == s.type) {
      return {{"type", s.type}, {"status", s.status}, {"reason", s.reason}, {"message", s.message}};
    }
  }
  return json();
}

json KwokNodeInitializePatch(const json& node, TimePoint now) {
  const std::string at = FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(now));
  const json* created = Path(node, "metadata", "creationTimestamp");
  const std::string since =
      NonEmpty(created) && created->is_string() ? created->get<std::string>() : at;
  const std::string name = Name(node);
  json status;
  json& conditions = status["conditions"] = json::array();
  for (const char* type : {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}) {
    json c = RunningKubeletCondition(type);
    c["lastHeartbeatTime"] = at;
    c["lastTransitionTime"] = since;
    conditions.push_back(std::move(c));
  }
  conditions.push_back(Condition("NetworkUnavailable", "False", "RouteCreated",
                                 "RouteController created a route", at, since));
  const json* addresses = Path(node, "status", "addresses");
  status["addresses"] = NonEmpty(addresses) ? *addresses : NodeAddressesJson(name);
  status["daemonEndpoints"] = DaemonEndpointsJson();
  const json defaults = {{"cpu", "1k"}, {"memory", "1Ti"}, {"pods", "1M"}};
  for (const char* field : {"allocatable", "capacity"}) {
    const json* have = Path(node, "status", field);
    status[field] = NonEmpty(have) ? *have : defaults;
  }
  if (const json* info = Path(node, "status", "nodeInfo"); info != nullptr && info->is_object()) {
    const std::string kwok = "kwok-" + std::string(kKwokVersion);
    const std::pair<const char*, std::string> fills[] = {{"architecture", "amd64"},
                                                         {"bootID", ""},
                                                         {"containerRuntimeVersion", kwok},
                                                         {"kernelVersion", kwok},
                                                         {"kubeProxyVersion", kwok},
                                                         {"kubeletVersion", kwok},
                                                         {"machineID", ""},
                                                         {"operatingSystem", "linux"},
                                                         {"osImage", ""},
                                                         {"systemUUID", ""}};
    json out = *info;
    for (const auto& [key, fill] : fills) {
      if (!NonEmpty(Member(*info, key))) out[key] = fill;
    }
    status["nodeInfo"] = std::move(out);
  }
  status["phase"] = "Running";
  return {{"status", std::move(status)}};
}

}  // namespace tidepool::kubelet
