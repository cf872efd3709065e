#include "apiserver/validation/networking.h"

#include <string>
#include <string_view>

#include "apiserver/validation/object_meta.h"

namespace tidepool::apiserver::validation {

namespace {

// validateHTTPIngressPath's path and pathType checks.
void ValidateHttpPath(const json& path, const std::string& at, api::FieldErrors* errors) {
  const json* type = Member(path, "pathType");
  if (type == nullptr || type->is_null()) {
    errors->push_back(api::FieldError::Required(at + ".pathType", "pathType must be specified"));
    return;
  }
  const std::string_view t = Str(type);
  const std::string p(Str(Member(path, "path")));
  const auto invalid = [&](const std::string& why) {
    errors->push_back(api::FieldError::Invalid(at + ".path", p, why));
  };
  if (t == "Exact" || t == "Prefix") {
    if (!p.starts_with('/')) invalid("must be an absolute path");
    if (p.empty()) return;
    for (const char* seq : {"//", "/./", "/../", "%2f", "%2F"}) {
      if (p.find(seq) != std::string::npos) invalid("must not contain '" + std::string(seq) + "'");
    }
    for (const char* suffix : {"/..", "/."}) {
      if (p.ends_with(suffix)) invalid("cannot end with '" + std::string(suffix) + "'");
    }
  } else if (t == "ImplementationSpecific") {
    if (!p.empty() && !p.starts_with('/')) invalid("must be an absolute path");
  } else {
    errors->push_back(api::FieldError::NotSupported(at + ".pathType", std::string(t),
                                                    {"Exact", "ImplementationSpecific", "Prefix"}));
  }
}

}  // namespace

Status ValidateIngress(const json& object, const json* old, api::FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  const json* rules = At(object, {"spec", "rules"});
  if (rules == nullptr || !rules->is_array()) return Status::Ok();
  for (size_t i = 0; i < rules->size(); ++i) {
    const json* paths = At((*rules)[i], {"http", "paths"});
    if (paths == nullptr || !paths->is_array()) continue;
    for (size_t j = 0; j < paths->size(); ++j) {
      ValidateHttpPath((*paths)[j],
                       "spec.rules[" + std::to_string(i) + "].http.paths[" + std::to_string(j) +
                           "]",
                       errors);
    }
  }
  return Status::Ok();
}

Status ValidateIngressClass(const json& object, const json* old, api::FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, false)
                           : ValidateObjectMetaUpdate(object, *old);
  const std::string controller(Str(At(object, {"spec", "controller"})));
  if (controller.empty()) {
    errors->push_back(api::FieldError::Required("spec.controller", ""));
  } else if (old != nullptr && controller != Str(At(*old, {"spec", "controller"}))) {
    errors->push_back(api::FieldError::Invalid("spec.controller", controller, "field is immutable"));
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
