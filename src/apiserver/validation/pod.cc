#include "apiserver/validation/pod.h"

#include <set>
#include <string>
#include <vector>

#include "api/codec/json_codec.h"
#include "api/quantity.h"
#include "api/validation.h"
#include "apiserver/validation/object_meta.h"

namespace tidepool::apiserver::validation {
namespace {

// validateContainerPorts: names unique IANA service names, containerPort required and a port
// number, hostPort a port number when set, protocol one of SCTP, TCP, UDP (defaulted to TCP).
void ValidateContainerPorts(const json* ports, const std::string& path, api::FieldErrors* errors) {
  if (ports == nullptr || !ports->is_array()) return;
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    const json& p = (*ports)[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    const std::string name(Str(Member(p, "name")));
    if (!name.empty()) {
      const std::vector<std::string> msgs = PortNameErrors(name);
      for (const std::string& m : msgs) {
        errors->push_back(api::FieldError::Invalid(at + ".name", name, m));
      }
      if (msgs.empty() && !names.insert(name).second) {
        errors->push_back(api::FieldError::Duplicate(at + ".name", name));
      }
    }
    const int64_t container_port = Int(Member(p, "containerPort")).value_or(0);
    if (container_port == 0) {
      errors->push_back(api::FieldError::Required(at + ".containerPort", ""));
    } else {
      for (const std::string& m : PortNumErrors(container_port)) {
        errors->push_back(
            api::FieldError::InvalidRaw(at + ".containerPort", std::to_string(container_port), m));
      }
    }
    const int64_t host_port = Int(Member(p, "hostPort")).value_or(0);
    if (host_port != 0) {
      for (const std::string& m : PortNumErrors(host_port)) {
        errors->push_back(
            api::FieldError::InvalidRaw(at + ".hostPort", std::to_string(host_port), m));
      }
    }
    const json* protocol = Member(p, "protocol");
    const std::string proto(Str(protocol));
    if (protocol != nullptr && proto.empty()) {
      errors->push_back(api::FieldError::Required(at + ".protocol", ""));
    } else if (protocol != nullptr && proto != "SCTP" && proto != "TCP" && proto != "UDP") {
      errors->push_back(
          api::FieldError::NotSupported(at + ".protocol", proto, {"SCTP", "TCP", "UDP"}));
    }
  }
}

void ValidateContainerList(const json& containers, const std::string& list,
                           api::FieldErrors* errors);

// validateContainers, then validateInitContainers (optional): each one's name, image, ports.
void ValidateContainers(const json* spec, api::FieldErrors* errors) {
  const json* containers = Member(spec, "containers");
  if (containers == nullptr || !containers->is_array() || containers->empty()) {
    errors->push_back(api::FieldError::Required("spec.containers", ""));
  } else {
    ValidateContainerList(*containers, "spec.containers", errors);
  }
  const json* init = Member(spec, "initContainers");
  if (init != nullptr && init->is_array())
    ValidateContainerList(*init, "spec.initContainers", errors);
}

void ValidateContainerList(const json& containers, const std::string& list,
                           api::FieldErrors* errors) {
  for (size_t i = 0; i < containers.size(); ++i) {
    const json& c = containers[i];
    const std::string path = list + "[" + std::to_string(i) + "]";
    if (Str(Member(c, "name")).empty()) {
      errors->push_back(api::FieldError::Required(path + ".name", ""));
    }
    if (Str(Member(c, "image")).empty()) {
      errors->push_back(api::FieldError::Required(path + ".image", ""));
    }
    ValidateContainerPorts(Member(c, "ports"), path + ".ports", errors);
  }
}

// validateRestartPolicy; an absent policy was defaulted to Always.
void ValidateRestartPolicy(const json* spec, api::FieldErrors* errors) {
  const json* policy = Member(spec, "restartPolicy");
  if (policy == nullptr) return;
  const std::string p(Str(policy));
  if (p == "Always" || p == "OnFailure" || p == "Never") return;
  if (p.empty()) {
    errors->push_back(api::FieldError::Required("spec.restartPolicy", ""));
    return;
  }
  errors->push_back(api::FieldError::NotSupported("spec.restartPolicy", p,
                                                  {"Always", "OnFailure", "Never"}));
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
  return spec;
}

// The spec's container resources with every quantity canonical: a pod stored by an earlier
// tidepool (which kept quantities as written) compares equal to itself written again.
json CanonicalResources(json spec) {
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (json& c : spec[list]) {
      json* resources = c.is_object() && c.contains("resources") ? &c["resources"] : nullptr;
      if (resources == nullptr || !resources->is_object()) continue;
      for (auto& [kind, list_of] : resources->items()) {
        if (!list_of.is_object()) continue;
        for (auto& [name, value] : list_of.items()) {
          if (!value.is_string() && !value.is_number()) continue;
          auto q =
              api::Quantity::Parse(value.is_string() ? value.get<std::string>() : value.dump());
          if (q.ok()) value = q->ToString();
        }
      }
    }
  }
  return spec;
}

json TolerationsOf(const json* spec) {
  const json* t = Member(spec, "tolerations");
  return t != nullptr && t->is_array() ? *t : json::array();
}

// ValidatePodUpdate's spec rule. REQUIRES: both specs are objects.
void ValidatePodSpecUpdate(const json& spec, const json& old_spec, api::FieldErrors* errors) {
  if (MutableStripped(old_spec) != MutableStripped(spec) &&
      MutableStripped(CanonicalResources(old_spec)) != MutableStripped(spec)) {
    errors->push_back(api::FieldError::Forbidden(
        "spec",
        "pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
        "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
        "(allow it to be set to 1 if it was previously negative)"));
    return;
  }
  // Existing tolerations may only gain tolerationSeconds changes; additions are allowed.
  const json new_tol = TolerationsOf(&spec);
  for (json a : TolerationsOf(&old_spec)) {
    if (a.is_object()) a.erase("tolerationSeconds");
    bool kept = false;
    for (json b : new_tol) {
      if (b.is_object()) b.erase("tolerationSeconds");
      if (a == b) kept = true;
    }
    if (!kept) {
      errors->push_back(api::FieldError::Forbidden(
          "spec.tolerations",
          "existing toleration can not be modified except its tolerationSeconds"));
      return;
    }
  }
}

}  // namespace

Status ValidatePodSpecOf(const json& pod, api::FieldErrors* errors) {
  auto decoded = api::codec::PodFromJson(pod);
  if (!decoded.ok()) return decoded.status();
  const json* spec = Member(pod, "spec");
  ValidateContainers(spec, errors);
  ValidateRestartPolicy(spec, errors);
  api::Pod p = std::move(decoded).value();
  api::ApplyPodDefaults(p);
  for (api::FieldError& e : api::ValidatePodForScheduling(p)) errors->push_back(std::move(e));
  return Status::Ok();
}

Status ValidatePod(const json& object, const json* old, api::FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  if (Status s = ValidatePodSpecOf(object, errors); !s.ok()) {
    return Status(StatusCode::kInvalidArgument,
                  "Pod in version \"v1\" cannot be handled as a Pod: " + std::string(s.message()));
  }
  const json* spec = Member(object, "spec");
  const json* old_spec = old != nullptr ? Member(*old, "spec") : nullptr;
  if (old_spec != nullptr && spec != nullptr && spec->is_object() && old_spec->is_object() &&
      errors->empty()) {
    ValidatePodSpecUpdate(*spec, *old_spec, errors);
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
