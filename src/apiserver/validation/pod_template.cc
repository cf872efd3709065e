#include "apiserver/validation/object_meta.h"
#include "apiserver/validation/pod.h"

namespace tidepool::apiserver::validation {

Status ValidatePodTemplate(const json* tmpl, std::string_view path, std::string_view kind,
                           api::FieldErrors* errors) {
  const std::string base(path);
  const json* meta = Member(tmpl, "metadata");
  for (auto& e : ValidateLabels(Member(meta, "labels"), base + ".labels")) errors->push_back(e);
  for (auto& e : ValidateAnnotations(Member(meta, "annotations"), base + ".annotations")) {
    errors->push_back(e);
  }
  // The spec is validated as a pod's: {"spec": <template spec>}, paths then moved under
  // `path` ("spec.containers" -> "spec.template.spec.containers").
  json pod = json::object();
  if (const json* spec = Member(tmpl, "spec")) pod["spec"] = *spec;
  api::FieldErrors spec_errors;
  if (Status s = ValidatePodSpecOf(pod, &spec_errors); !s.ok()) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(kind) + " in version \"v1\" cannot be handled as a " +
                      std::string(kind) + ": " + base + "." + std::string(s.message()));
  }
  AppendPrefixed(std::move(spec_errors), base + ".", errors);
  const json* ephemeral = At(pod, {"spec", "ephemeralContainers"});
  if (ephemeral != nullptr && ephemeral->is_array() && !ephemeral->empty()) {
    errors->push_back(api::FieldError::Forbidden(base + ".spec.ephemeralContainers",
                                                 "ephemeral containers not allowed in pod "
                                                 "template"));
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
