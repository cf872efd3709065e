#include "apiserver/admission.h"

#include <set>
#include <string>

#include "api/name_validation.h"
#include "apiserver/certificates/csr.h"
#include "apiserver/crd/strategy.h"
#include "apiserver/validation/apps.h"
#include "apiserver/validation/autoscaling.h"
#include "apiserver/validation/batch.h"
#include "apiserver/validation/coordination.h"
#include "apiserver/validation/core.h"
#include "apiserver/validation/defaults.h"
#include "apiserver/validation/discovery.h"
#include "apiserver/validation/networking.h"
#include "apiserver/validation/object_meta.h"
#include "apiserver/validation/pod.h"
#include "apiserver/validation/policy.h"
#include "apiserver/validation/rbac.h"
#include "apiserver/validation/scheduling.h"
#include "apiserver/validation/storage.h"
#include "common/base64.h"

namespace tidepool::apiserver {

using nlohmann::json;

namespace {

// Sets obj[key] to `value` when the member is missing or null; `value` is only made then.
template <typename V>
void SetIfAbsent(json& obj, std::string_view key, V&& value) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    obj.emplace(std::string(key), json(std::forward<V>(value)));
  } else if (it->is_null()) {
    *it = json(std::forward<V>(value));
  }
}

std::string ImagePullPolicy(const std::string& image) {
  // Tag after the last '/' component; a digest counts as a tag.
  const size_t slash = image.rfind('/');
  const std::string last = slash == std::string::npos ? image : image.substr(slash + 1);
  if (image.find('@') != std::string::npos) return "IfNotPresent";
  const size_t colon = last.rfind(':');
  if (colon == std::string::npos || last.substr(colon + 1) == "latest") return "Always";
  return "IfNotPresent";
}

// SetDefaults_ObjectFieldSelector: a fieldRef without apiVersion is "v1".
void DefaultFieldRef(json& holder) {
  if (!holder.is_object()) return;
  auto ref = holder.find("fieldRef");
  if (ref != holder.end() && ref->is_object()) SetIfAbsent(*ref, "apiVersion", "v1");
}

// SetDefaults_Probe and SetDefaults_HTTPGetAction.
void DefaultProbe(json& c, const char* name) {
  auto probe = c.find(name);
  if (probe == c.end() || !probe->is_object()) return;
  SetIfAbsent(*probe, "timeoutSeconds", 1);
  SetIfAbsent(*probe, "periodSeconds", 10);
  SetIfAbsent(*probe, "successThreshold", 1);
  SetIfAbsent(*probe, "failureThreshold", 3);
  auto get = probe->find("httpGet");
  if (get != probe->end() && get->is_object()) {
    SetIfAbsent(*get, "path", "/");
    SetIfAbsent(*get, "scheme", "HTTP");
  }
}

// The downward API's items (a volume's, or a projected source's): each fieldRef's apiVersion.
void DefaultDownwardApiItems(json& source) {
  auto items = source.find("items");
  if (items == source.end() || !items->is_array()) return;
  for (json& item : *items) DefaultFieldRef(item);
}

// SetDefaults_Volume (a volume with no source is an emptyDir) and the defaults of its sources:
// defaultMode 0644 of secret, configMap, downwardAPI and projected volumes, a projected
// service-account token's expirationSeconds 3600, a hostPath's type "".
void DefaultVolume(json& v) {
  if (!v.is_object()) return;
  bool has_source = false;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() != "name" && !it.value().is_null()) has_source = true;
  }
  if (!has_source) v["emptyDir"] = json::object();
  for (const char* kind : {"secret", "configMap", "downwardAPI", "projected"}) {
    auto source = v.find(kind);
    if (source != v.end() && source->is_object()) SetIfAbsent(*source, "defaultMode", 420);
  }
  if (auto d = v.find("downwardAPI"); d != v.end() && d->is_object()) DefaultDownwardApiItems(*d);
  if (auto h = v.find("hostPath"); h != v.end() && h->is_object()) SetIfAbsent(*h, "type", "");
  auto projected = v.find("projected");
  if (projected == v.end() || !projected->is_object()) return;
  auto sources = projected->find("sources");
  if (sources == projected->end() || !sources->is_array()) return;
  for (json& source : *sources) {
    if (!source.is_object()) continue;
    if (auto d = source.find("downwardAPI"); d != source.end() && d->is_object()) {
      DefaultDownwardApiItems(*d);
    }
    if (auto t = source.find("serviceAccountToken"); t != source.end() && t->is_object()) {
      SetIfAbsent(*t, "expirationSeconds", 3600);
    }
  }
}

void DefaultContainer(json& c) {
  if (!c.is_object()) return;
  if (auto env = c.find("env"); env != c.end() && env->is_array()) {
    for (json& e : *env) {
      if (e.is_object() && e.contains("valueFrom")) DefaultFieldRef(e["valueFrom"]);
    }
  }
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"})
    DefaultProbe(c, probe);
  SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
  SetIfAbsent(c, "terminationMessagePolicy", "File");
  if (c.contains("image") && c["image"].is_string()) {
    SetIfAbsent(c, "imagePullPolicy", ImagePullPolicy(c["image"].get<std::string>()));
  }
  // ContainerPort.protocol is `+default="TCP"` (SetDefaults_ContainerPort: "" too).
  if (c.contains("ports") && c["ports"].is_array()) {
    for (json& p : c["ports"]) {
      if (!p.is_object()) continue;
      SetIfAbsent(p, "protocol", "TCP");
      if (p["protocol"] == "") p["protocol"] = "TCP";
    }
  }
  if (!c.contains("resources") || !c["resources"].is_object()) c["resources"] = json::object();
  json& res = c["resources"];
  if (res.contains("limits") && res["limits"].is_object()) {
    json& req = res["requests"];
    if (!req.is_object()) req = json::object();
    for (auto& [k, v] : res["limits"].items()) {
      if (!req.contains(k)) req[k] = v;
    }
  }
}

// A string member of `obj`, or "" (no copy).
std::string_view StrView(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                             : std::string_view();
}

bool Tolerates(const json& tolerations, std::string_view key) {
  if (!tolerations.is_array()) return false;
  for (const json& t : tolerations) {
    if (!t.is_object()) continue;
    const std::string_view k = StrView(t, "key");
    const std::string_view op = StrView(t, "operator");
    const std::string_view eff = StrView(t, "effect");
    if ((k == key || (k.empty() && op == "Exists")) && (eff.empty() || eff == "NoExecute")) {
      return true;
    }
  }
  return false;
}

// pkg/apis/core/helper.IsExtendedResourceName: a name with a '/' outside kubernetes.io/, not
// a quota "requests." name, that is a qualified name once prefixed with "requests.".
bool IsExtendedResourceName(const std::string& name) {
  if (name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos ||
      name.rfind("requests.", 0) == 0) {
    return false;
  }
  return api::IsQualifiedName("requests." + name).empty();
}

// GKE's ExtendedResourceToleration admission plugin: a pod that requests an extended resource
// (nvidia.com/gpu) tolerates the NoSchedule taint of that name (helper.AddOrUpdateTolerationInPod:
// a toleration with the same key, operator, value and effect is replaced), in the names' order.
void AddExtendedResourceTolerations(json& spec) {
  std::set<std::string> names;
  for (const char* list : {"containers", "initContainers"}) {
    auto cs = spec.find(list);
    if (cs == spec.end() || !cs->is_array()) continue;
    for (const json& c : *cs) {
      if (!c.is_object() || !c.contains("resources") || !c["resources"].is_object()) continue;
      auto req = c["resources"].find("requests");
      if (req == c["resources"].end() || !req->is_object()) continue;
      for (const auto& [k, v] : req->items()) {
        if (IsExtendedResourceName(k)) names.insert(k);
      }
    }
  }
  if (names.empty()) return;
  json& tol = spec["tolerations"];
  if (!tol.is_array()) tol = json::array();
  for (const std::string& name : names) {
    const json want = {{"key", name}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
    bool present = false;
    for (json& t : tol) {
      if (!t.is_object()) continue;
      const bool same = StrView(t, "key") == name && StrView(t, "operator") == "Exists" &&
                        StrView(t, "effect") == "NoSchedule" && StrView(t, "value").empty();
      if (same) {
        t = want;  // replaced (a tolerationSeconds goes), as AddOrUpdateTolerationInPod does
        present = true;
      }
    }
    if (!present) tol.push_back(want);
  }
}

// An ObjectMeta embedded in a typed object (a pod template's, a job template's, a claim
// template's) is a struct whose creationTimestamp Go writes as null: kube-apiserver serves
// `creationTimestamp: null` there, and managedFields name it (f:creationTimestamp).
void EmbeddedObjectMeta(json* holder) {
  json* meta = validation::ObjectMember(holder, "metadata");
  if (meta != nullptr && !meta->contains("creationTimestamp"))
    (*meta)["creationTimestamp"] = nullptr;
}

void DefaultPodSpec(json& spec, bool is_pod) {
  if (!spec.is_object()) return;
  // Generic ephemeral volumes: the claim template's ObjectMeta is a struct too.
  if (spec.contains("volumes") && spec["volumes"].is_array()) {
    for (json& v : spec["volumes"]) {
      if (!v.is_object() || !v.contains("ephemeral")) continue;
      json* ephemeral = validation::ObjectMember(&v, "ephemeral");
      if (validation::Member(ephemeral, "volumeClaimTemplate") != nullptr) {
        EmbeddedObjectMeta(validation::ObjectMember(ephemeral, "volumeClaimTemplate"));
      }
    }
  }
  SetIfAbsent(spec, "restartPolicy", "Always");
  SetIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "securityContext", json::object());
  SetIfAbsent(spec, "schedulerName", "default-scheduler");
  if (is_pod) {
    SetIfAbsent(spec, "enableServiceLinks", true);
    // The deprecated serviceAccount names the account when serviceAccountName does not (the
    // conversion's DeprecatedServiceAccount).
    if (auto old = spec.find("serviceAccount");
        old != spec.end() && old->is_string() && !old->get<std::string>().empty()) {
      SetIfAbsent(spec, "serviceAccountName", *old);
    }
    SetIfAbsent(spec, "serviceAccountName", "default");
    SetIfAbsent(spec, "serviceAccount", spec["serviceAccountName"]);
  }
  for (const char* list : {"containers", "initContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (json& c : spec[list]) DefaultContainer(c);
    }
  }
  if (auto volumes = spec.find("volumes"); volumes != spec.end() && volumes->is_array()) {
    for (json& v : *volumes) DefaultVolume(v);
  }
  if (is_pod) {
    json& tol = spec["tolerations"];
    if (!tol.is_array()) tol = json::array();
    for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      if (!Tolerates(tol, key)) {
        tol.push_back({{"key", key},
                       {"operator", "Exists"},
                       {"effect", "NoExecute"},
                       {"tolerationSeconds", 300}});
      }
    }
    AddExtendedResourceTolerations(spec);
  }
}

std::string QosClass(const json& spec) {
  bool any = false, guaranteed = true;
  static const json kNone = json::object();
  // A member of `obj`, or {} (references, not copies).
  auto member = [&](const json& obj, std::string_view key) -> const json& {
    if (!obj.is_object()) return kNone;
    auto it = obj.find(key);
    return it != obj.end() ? *it : kNone;
  };
  auto visit = [&](const json& c) {
    const json& res = member(c, "resources");
    const json& req = member(res, "requests");
    const json& lim = member(res, "limits");
    for (const char* r : {"cpu", "memory"}) {
      auto ri = req.is_object() ? req.find(r) : req.end();
      auto li = lim.is_object() ? lim.find(r) : lim.end();
      const bool has_req = req.is_object() && ri != req.end();
      const bool has_lim = lim.is_object() && li != lim.end();
      if (has_req || has_lim) any = true;
      if (!has_lim || !has_req || *ri != *li) guaranteed = false;
    }
  };
  for (const char* list : {"containers", "initContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (const json& c : spec[list]) visit(c);
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

// The ObjectMeta name rule of the kinds validated by ObjectMeta only.
validation::NameRule NameRuleFor(const Resource& r) {
  if (r.resource == "namespaces" && r.group.empty()) return validation::NameRule::kDns1123Label;
  if (r.resource == "services" && r.group.empty()) return validation::NameRule::kDns1035Label;
  if (r.group == "rbac.authorization.k8s.io") return validation::NameRule::kPathSegment;
  return validation::NameRule::kDns1123Subdomain;
}

// Convert_v1_Secret_To_core_Secret: stringData is write-only - each of its keys overwrites data's
// (base64-encoded) and the field is never stored.
void MergeStringData(json& secret) {
  auto it = secret.find("stringData");
  if (it == secret.end()) return;
  if (it->is_object() && !it->empty()) {
    json& data = secret["data"];
    if (!data.is_object()) data = json::object();
    for (const auto& [key, value] : it->items()) {
      if (value.is_string()) data[key] = Base64Encode(value.get_ref<const std::string&>());
    }
  }
  secret.erase("stringData");
}

}  // namespace

void ApplyDefaults(const Resource& r, json& object) {
  if (!object.is_object()) return;
  if (r.custom != nullptr) return crd::DefaultCustom(r, object);
  if (crd::IsDefinition(r)) return crd::DefaultDefinition(object);
  if (r.group.empty() && r.resource == "pods") {
    json& spec = object["spec"];
    if (!spec.is_object()) spec = json::object();  // absent or null: Go's zero PodSpec
    DefaultPodSpec(spec, true);
    json& status = object["status"];
    if (!status.is_object()) status = json::object();
    SetIfAbsent(status, "phase", "Pending");
    status["qosClass"] = QosClass(spec);
  } else if (r.group.empty() && r.resource == "namespaces") {
    json& spec = object["spec"];
    if (!spec.is_object()) spec = json::object();
    SetIfAbsent(spec, "finalizers", json::array({"kubernetes"}));
    json& status = object["status"];
    if (!status.is_object()) status = json::object();
    SetIfAbsent(status, "phase", "Active");
    json& meta = object["metadata"];
    if (meta.is_object() && meta.contains("name") && meta["name"].is_string()) {
      meta["labels"]["kubernetes.io/metadata.name"] = meta["name"];
    }
  } else if (r.group.empty() && r.resource == "secrets") {
    MergeStringData(object);
    // SetDefaults_Secret: an empty type is Opaque.
    if (!object.contains("type") || object["type"] == "") object["type"] = "Opaque";
  } else if (r.group.empty() && r.resource == "persistentvolumes") {
    validation::DefaultPersistentVolume(object);
  } else if (r.group.empty() && r.resource == "persistentvolumeclaims") {
    validation::DefaultPersistentVolumeClaim(object);
  } else if (r.group.empty() && r.resource == "services") {
    validation::DefaultService(object);
  } else if (r.group.empty() && r.resource == "limitranges") {
    validation::DefaultLimitRange(object);
  } else if (r.group == "discovery.k8s.io" && r.resource == "endpointslices") {
    validation::DefaultEndpointSlice(object);
  } else if (r.group.empty() && r.resource == "podtemplates") {
    // The template is a struct: its pod spec is defaulted even when absent.
    if (json* pod_spec =
            validation::ObjectMember(validation::ObjectMember(&object, "template"), "spec")) {
      DefaultPodSpec(*pod_spec, false);
    }
    EmbeddedObjectMeta(validation::ObjectMember(&object, "template"));
  } else if (r.group.empty() && r.resource == "replicationcontrollers") {
    validation::DefaultReplicationController(object);
    // The template is a pointer here (nil stays nil), its pod spec a struct.
    json* spec = validation::ObjectMember(&object, "spec");
    json* tmpl = validation::Member(spec, "template") != nullptr
                     ? validation::ObjectMember(spec, "template")
                     : nullptr;
    if (json* pod_spec = validation::ObjectMember(tmpl, "spec")) DefaultPodSpec(*pod_spec, false);
    if (tmpl != nullptr) EmbeddedObjectMeta(tmpl);
  } else if ((r.group == "apps" && r.resource != "controllerrevisions") || r.group == "batch") {
    if (r.resource == "deployments") validation::DefaultDeployment(object);
    if (r.resource == "replicasets") validation::DefaultReplicaSet(object);
    if (r.resource == "daemonsets") validation::DefaultDaemonSet(object);
    if (r.resource == "statefulsets") validation::DefaultStatefulSet(object);
    if (r.resource == "jobs") validation::DefaultJob(object);
    json* spec = validation::ObjectMember(&object, "spec");
    if (r.resource == "cronjobs") {
      validation::DefaultCronJob(object);
      // The job template's pod spec (a struct: defaulted even when absent); the JobSpec
      // itself gets no Job defaults (SetDefaults_Job is the Job's, not the JobSpec's).
      EmbeddedObjectMeta(validation::ObjectMember(spec, "jobTemplate"));
      spec = validation::ObjectMember(validation::ObjectMember(spec, "jobTemplate"), "spec");
    }
    json* tmpl = spec != nullptr ? validation::ObjectMember(spec, "template") : nullptr;
    if (json* pod_spec = validation::ObjectMember(tmpl, "spec")) DefaultPodSpec(*pod_spec, false);
    if (tmpl != nullptr) EmbeddedObjectMeta(tmpl);
    if (r.resource == "statefulsets") {
      if (spec != nullptr && spec->contains("volumeClaimTemplates") &&
          (*spec)["volumeClaimTemplates"].is_array()) {
        for (json& claim : (*spec)["volumeClaimTemplates"]) {
          if (claim.is_object()) EmbeddedObjectMeta(&claim);
        }
      }
    }
  } else if (r.group == "autoscaling" && r.resource == "horizontalpodautoscalers") {
    if (r.version == "v1") {
      validation::DefaultHpaV1(object);
    } else {
      validation::DefaultHpa(object);
    }
  } else if (r.group == "scheduling.k8s.io" && r.resource == "priorityclasses") {
    validation::DefaultPriorityClass(object);
  } else if (r.group == "storage.k8s.io" && r.resource == "storageclasses") {
    validation::DefaultStorageClass(object);
  } else if (r.group == "storage.k8s.io" && r.resource == "csidrivers") {
    validation::DefaultCsiDriver(object);
  }
}

namespace {

// The TaintNodesByCondition admission plugin: every new node carries
// node.kubernetes.io/not-ready:NoSchedule, so that no pod lands on it before the node lifecycle
// controller has seen it Ready (and removed the taint). A spec or taints of the wrong type are
// left to validation.
void AddNotReadyTaint(json& node) {
  if (!node.is_object()) return;
  json& spec = node["spec"];
  if (spec.is_null()) spec = json::object();
  if (!spec.is_object()) return;
  json& taints = spec["taints"];
  if (taints.is_null()) taints = json::array();
  if (!taints.is_array()) return;
  for (const json& t : taints) {
    if (t.is_object() && t.value("key", json()) == "node.kubernetes.io/not-ready" &&
        t.value("effect", json()) == "NoSchedule") {
      return;
    }
  }
  taints.push_back({{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
}

}  // namespace

bool NeedsUidOnCreate(const Resource& r) { return r.group == "batch" && r.resource == "jobs"; }

void PrepareForCreate(const Resource& r, json& object, const authn::UserInfo* user,
                      bool taint_nodes_by_condition) {
  if (r.group == "certificates.k8s.io" && r.resource == "certificatesigningrequests") {
    certificates::PrepareCsrForCreate(object, user != nullptr ? *user : authn::UserInfo{});
  }
  if (crd::IsDefinition(r)) crd::PrepareDefinitionForCreate(object);
  if (r.custom != nullptr) crd::PrepareCustomForCreate(r, object);
  if (NeedsUidOnCreate(r)) validation::PrepareJobForCreate(object);
  if (r.group == "autoscaling" && r.resource == "horizontalpodautoscalers") {
    validation::PrepareHpaForCreate(object);
  }
  // cronJobStrategy.PrepareForCreate: the status is the server's.
  if (r.group == "batch" && r.resource == "cronjobs") object["status"] = json::object();
  // svcStrategy.PrepareForCreate: a new Service's status is empty (its load balancer is the
  // service controller's to write: a copied address is not kept).
  if (r.group.empty() && r.resource == "services") {
    object["status"] = json{{"loadBalancer", json::object()}};
  }
  if (r.group.empty() && r.resource == "persistentvolumes") {
    // The strategy's NowFunc: the instant FillSystemFields gave creationTimestamp.
    validation::PreparePersistentVolumeForCreate(
        object,
        std::string(validation::Str(validation::At(object, {"metadata", "creationTimestamp"}))));
  } else if (r.group.empty() && r.resource == "persistentvolumeclaims") {
    validation::PreparePersistentVolumeClaimForCreate(object);
  } else if (r.group.empty() && r.resource == "replicationcontrollers") {
    validation::PrepareReplicationControllerForCreate(object);
  } else if (r.group.empty() && r.resource == "nodes" && taint_nodes_by_condition) {
    AddNotReadyTaint(object);
  }
}

void PrepareForUpdate(const Resource& r, json& object, const json& old,
                      std::string_view subresource, TimePoint now) {
  if (r.group == "certificates.k8s.io" && r.resource == "certificatesigningrequests") {
    certificates::PrepareCsrForUpdate(object, old, subresource, FormatRfc3339(now));
  }
  if (r.group.empty() && r.resource == "persistentvolumes" && subresource == "status") {
    validation::PreparePersistentVolumeStatusUpdate(object, old, FormatRfc3339(now));
  }
  if (!subresource.empty()) return;
  if (r.group.empty() && r.resource == "services") validation::KeepServiceAddresses(object, old);
  if (r.group.empty() && r.resource == "persistentvolumeclaims") {
    validation::PreparePersistentVolumeClaimForUpdate(object, old);
  }
  if (crd::IsDefinition(r)) crd::PrepareDefinitionForUpdate(object, old);
  if (r.custom != nullptr) crd::PrepareCustomForUpdate(r, object, old);
}

Status Validate(const Resource& r, const json& object, const json* old, api::FieldErrors* errors,
                std::string_view subresource) {
  if (r.group == "certificates.k8s.io" && r.resource == "certificatesigningrequests") {
    *errors = certificates::ValidateCsr(object, old, subresource);
    return Status::Ok();
  }
  if (r.custom != nullptr || crd::IsDefinition(r)) {
    *errors = old == nullptr ? validation::ValidateObjectMeta(object, NameRuleFor(r), r.namespaced)
                             : validation::ValidateObjectMetaUpdate(object, *old);
    api::FieldErrors more =
        r.custom != nullptr ? crd::ValidateCustom(r, object) : crd::ValidateDefinition(object, old);
    errors->insert(errors->end(), more.begin(), more.end());
    return Status::Ok();
  }
  const std::string& g = r.group;
  const std::string& res = r.resource;
  if (g.empty() && res == "pods") return validation::ValidatePod(object, old, errors);
  if (g == "apps" && res == "deployments") return validation::ValidateDeployment(object, old, errors);
  if (g == "apps" && res == "replicasets") return validation::ValidateReplicaSet(object, old, errors);
  if (g == "apps" && res == "daemonsets") return validation::ValidateDaemonSet(object, old, errors);
  if (g == "apps" && res == "controllerrevisions") {
    return validation::ValidateControllerRevision(object, old, errors);
  }
  if (g == "apps" && res == "statefulsets") {
    return validation::ValidateStatefulSet(object, old, errors);
  }
  if (g == "batch" && res == "jobs") return validation::ValidateJob(object, old, errors);
  if (g == "batch" && res == "cronjobs") return validation::ValidateCronJob(object, old, errors);
  if (g == "autoscaling" && res == "horizontalpodautoscalers") {
    return validation::ValidateHpa(object, old, errors);
  }
  if (g == "policy" && res == "poddisruptionbudgets") {
    return validation::ValidatePodDisruptionBudget(object, old, errors);
  }
  if (g == "scheduling.k8s.io" && res == "priorityclasses") {
    return validation::ValidatePriorityClass(object, old, errors);
  }
  if (g.empty() && res == "persistentvolumes") {
    return validation::ValidatePersistentVolume(object, old, errors);
  }
  if (g.empty() && res == "persistentvolumeclaims") {
    return validation::ValidatePersistentVolumeClaim(object, old, errors);
  }
  if (g.empty() && res == "replicationcontrollers") {
    return validation::ValidateReplicationController(object, old, errors);
  }
  if (g.empty() && res == "services" && old != nullptr) {
    return validation::ValidateServiceUpdate(object, *old, errors);
  }
  if (g.empty() && res == "resourcequotas") {
    return validation::ValidateResourceQuota(object, old, errors);
  }
  if (g.empty() && res == "podtemplates")
    return validation::ValidatePodTemplateObject(object, old, errors);
  if (g == "storage.k8s.io") {
    if (res == "storageclasses") return validation::ValidateStorageClass(object, old, errors);
    if (res == "csidrivers") return validation::ValidateCsiDriver(object, old, errors);
    if (res == "csinodes") return validation::ValidateCsiNode(object, old, errors);
    if (res == "csistoragecapacities") {
      return validation::ValidateCsiStorageCapacity(object, old, errors);
    }
  }
  if (g == "networking.k8s.io" && res == "ingresses") {
    return validation::ValidateIngress(object, old, errors);
  }
  if (g == "networking.k8s.io" && res == "ingressclasses") {
    return validation::ValidateIngressClass(object, old, errors);
  }
  if (g == "coordination.k8s.io" && res == "leases") {
    return validation::ValidateLease(object, old, errors);
  }
  if (g == "discovery.k8s.io" && res == "endpointslices") {
    return validation::ValidateEndpointSlice(object, old, errors);
  }
  if (g == "rbac.authorization.k8s.io" && (res == "roles" || res == "clusterroles")) {
    return validation::ValidateRole(object, old, r.namespaced, errors);
  }
  if (g == "rbac.authorization.k8s.io" && (res == "rolebindings" || res == "clusterrolebindings")) {
    return validation::ValidateRoleBinding(object, old, r.namespaced, errors);
  }
  *errors = old == nullptr ? validation::ValidateObjectMeta(object, NameRuleFor(r), r.namespaced)
                           : validation::ValidateObjectMetaUpdate(object, *old);
  return Status::Ok();
}

}  // namespace tidepool::apiserver
