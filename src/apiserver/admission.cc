#include "apiserver/admission.h"

#include "api/codec/json_codec.h"
#include "api/name_validation.h"
#include "api/validation.h"

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

void DefaultContainer(json& c) {
  if (!c.is_object()) return;
  SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
  SetIfAbsent(c, "terminationMessagePolicy", "File");
  if (c.contains("image") && c["image"].is_string()) {
    SetIfAbsent(c, "imagePullPolicy", ImagePullPolicy(c["image"].get<std::string>()));
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

void DefaultPodSpec(json& spec, bool is_pod) {
  if (!spec.is_object()) return;
  SetIfAbsent(spec, "restartPolicy", "Always");
  SetIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "securityContext", json::object());
  SetIfAbsent(spec, "schedulerName", "default-scheduler");
  if (is_pod) {
    SetIfAbsent(spec, "enableServiceLinks", true);
    SetIfAbsent(spec, "priority", 0);
    SetIfAbsent(spec, "preemptionPolicy", "PreemptLowerPriority");
    SetIfAbsent(spec, "serviceAccountName", "default");
    SetIfAbsent(spec, "serviceAccount", spec["serviceAccountName"]);
  }
  for (const char* list : {"containers", "initContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (json& c : spec[list]) DefaultContainer(c);
    }
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

void ValidateName(const Resource& r, const json& object, api::FieldErrors* errors) {
  // A reference, not a copy (metadata holds the last-applied annotation).
  static const json kNoMetadata = json::object();
  auto meta_it = object.is_object() ? object.find("metadata") : object.end();
  const json& meta = object.is_object() && meta_it != object.end() ? *meta_it : kNoMetadata;
  const std::string name = meta.is_object() ? meta.value("name", "") : "";
  if (name.empty()) {
    if (!meta.is_object() || meta.value("generateName", "").empty()) {
      errors->push_back(api::FieldError::Required("metadata.name",
                                                  "name or generateName is required"));
    }
    return;
  }
  const bool label = r.resource == "namespaces" || r.resource == "services";
  if (label) {
    if (!api::IsDns1123Label(name).empty()) {
      errors->push_back(api::FieldError::Invalid(
          "metadata.name", "\"" + name + "\"",
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
          "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
          "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
    }
  } else if (!api::IsDns1123Subdomain(name).empty()) {
    errors->push_back(api::FieldError::Invalid(
        "metadata.name", "\"" + name + "\"",
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
        "'-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  }
}

// The pod spec without the fields an update may change, for the immutability check.
json MutableStripped(json spec) {
  for (const char* list : {"containers", "initContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (json& c : spec[list]) {
        if (c.is_object()) c.erase("image");
      }
    }
  }
  spec.erase("activeDeadlineSeconds");
  spec.erase("tolerations");
  spec.erase("terminationGracePeriodSeconds");
  spec.erase("nodeName");  // set by binding, not by updates of users
  return spec;
}

}  // namespace

void ApplyDefaults(const Resource& r, json& object) {
  if (!object.is_object()) return;
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
  } else if (r.group == "apps" || r.group == "batch") {
    json& spec = object["spec"];
    if (!spec.is_object()) return;
    if (r.resource == "deployments") {
      SetIfAbsent(spec, "replicas", 1);
      SetIfAbsent(spec, "revisionHistoryLimit", 10);
      SetIfAbsent(spec, "progressDeadlineSeconds", 600);
      SetIfAbsent(spec, "strategy",
                  json{{"type", "RollingUpdate"},
                   {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}});
    }
    if (spec.contains("template") && spec["template"].is_object()) {
      DefaultPodSpec(spec["template"]["spec"], false);
    }
  }
}

Status Validate(const Resource& r, const json& object, const json* old,
                api::FieldErrors* errors) {
  ValidateName(r, object, errors);
  if (!(r.group.empty() && r.resource == "pods")) return Status::Ok();
  auto pod = api::codec::PodFromJson(object);
  if (!pod.ok()) {
    return Status(StatusCode::kInvalidArgument,
                  "Pod in version \"v1\" cannot be handled as a Pod: " +
                      std::string(pod.status().message()));
  }
  // References, not copies, of spec and containers. An absent or null spec is Go's zero
  // PodSpec: no containers.
  static const json kNoSpec = json::object();
  static const json kNoContainers = json::array();
  auto spec_it = object.find("spec");
  const json& spec = spec_it != object.end() && spec_it->is_object() ? *spec_it : kNoSpec;
  auto containers_it = spec.is_object() ? spec.find("containers") : spec.end();
  const json& containers =
      spec.is_object() && containers_it != spec.end() ? *containers_it : kNoContainers;
  if (!containers.is_array() || containers.empty()) {
    errors->push_back(api::FieldError::Required("spec.containers", ""));
  } else {
    for (size_t i = 0; i < containers.size(); ++i) {
      const std::string path = "spec.containers[" + std::to_string(i) + "]";
      if (containers[i].value("name", "").empty()) {
        errors->push_back(api::FieldError::Required(path + ".name", ""));
      }
      if (containers[i].value("image", "").empty()) {
        errors->push_back(api::FieldError::Required(path + ".image", ""));
      }
    }
  }
  api::Pod p = std::move(pod).value();
  api::ApplyPodDefaults(p);
  for (api::FieldError& e : api::ValidatePodForScheduling(p)) errors->push_back(std::move(e));
  if (old != nullptr && errors->empty()) {
    const json old_spec = old->value("spec", json::object());
    if (MutableStripped(old_spec) != MutableStripped(spec)) {
      errors->push_back(api::FieldError::Forbidden(
          "spec",
          "pod updates may not change fields other than `spec.containers[*].image`,"
          "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
          "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
          "(allow it to be set to 1 if it was previously negative)"));
    } else {
      // Existing tolerations may only gain tolerationSeconds changes; additions are allowed.
      const json old_tol = old_spec.value("tolerations", json::array());
      const json new_tol = spec.value("tolerations", json::array());
      for (const json& t : old_tol) {
        json a = t;
        a.erase("tolerationSeconds");
        bool kept = false;
        for (const json& u : new_tol) {
          json b = u;
          b.erase("tolerationSeconds");
          if (a == b) kept = true;
        }
        if (!kept) {
          errors->push_back(api::FieldError::Forbidden(
              "spec.tolerations",
              "existing toleration can not be modified except its tolerationSeconds"));
          break;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver
