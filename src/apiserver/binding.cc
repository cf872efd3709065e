#include "apiserver/binding.h"

#include <utility>

namespace tidepool::apiserver {
namespace {

using json = nlohmann::json;

std::string StrAt(const json& j, const char* a, const char* b) {
  const auto x = j.find(a);
  if (x == j.end() || !x->is_object()) return "";
  const auto y = x->find(b);
  return y != x->end() && y->is_string() ? y->get<std::string>() : "";
}

Status Refused(const std::string& name, const std::string& why) {
  return Status(StatusCode::kAborted,
                "Operation cannot be fulfilled on pods/binding \"" + name + "\": " + why);
}

}  // namespace

api::FieldErrors ValidateBinding(const json& binding, const std::string& name,
                                 std::string* bad_request) {
  if (StrAt(binding, "metadata", "name") != name) {
    *bad_request = "name in URL does not match name in Binding object";
    return {};
  }
  api::FieldErrors errors;
  const std::string kind = StrAt(binding, "target", "kind");
  if (!kind.empty() && kind != "Node") {
    errors.push_back(api::FieldError::NotSupported("target.kind", kind, {"Node", "<empty>"}));
  }
  if (StrAt(binding, "target", "name").empty()) {
    errors.push_back(api::FieldError::Required("target.name", ""));
  }
  return errors;
}

StatusOr<json> AssignPod(json pod, const json& binding, TimePoint now) {
  const std::string name = StrAt(pod, "metadata", "name");
  const std::string want_uid = StrAt(binding, "metadata", "uid");
  const std::string uid = StrAt(pod, "metadata", "uid");
  if (!want_uid.empty() && want_uid != uid) {
    return Status(StatusCode::kAborted, "Operation cannot be fulfilled on pods \"" + name +
                                            "\": Precondition failed: UID in precondition: " +
                                            want_uid + ", UID in object meta: " + uid);
  }
  if (pod["metadata"].contains("deletionTimestamp")) {
    return Refused(name, "pod " + name + " is being deleted, cannot be assigned to a host");
  }
  const std::string assigned = StrAt(pod, "spec", "nodeName");
  if (!assigned.empty()) {
    return Refused(name, "pod " + name + " is already assigned to node \"" + assigned + "\"");
  }
  const json& spec = pod["spec"];
  if (const auto gates = spec.find("schedulingGates");
      gates != spec.end() && gates->is_array() && !gates->empty()) {
    return Refused(name, "pod " + name + " has non-empty .spec.schedulingGates");
  }
  pod["spec"]["nodeName"] = StrAt(binding, "target", "name");
  if (const auto m = binding.find("metadata"); m != binding.end() && m->is_object()) {
    if (const auto a = m->find("annotations"); a != m->end() && a->is_object() && !a->empty()) {
      json& annotations = pod["metadata"]["annotations"];
      if (!annotations.is_object()) annotations = json::object();
      for (const auto& [k, v] : a->items()) annotations[k] = v;
    }
  }
  // podutil.UpdatePodCondition(PodScheduled=True).
  json& status = pod["status"];
  if (!status.is_object()) status = json::object();
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  json cond = {{"type", "PodScheduled"},
               {"status", "True"},
               {"lastProbeTime", nullptr},
               {"lastTransitionTime", FormatRfc3339(now)}};
  for (json& c : conditions) {
    if (!c.is_object() || c.value("type", "") != "PodScheduled") continue;
    if (c.value("status", "") == "True" && c.contains("lastTransitionTime")) {
      cond["lastTransitionTime"] = c["lastTransitionTime"];
    }
    c = std::move(cond);
    return pod;
  }
  conditions.push_back(std::move(cond));
  return pod;
}

}  // namespace tidepool::apiserver
