#include "apiserver/validation/rbac.h"

#include "api/name_validation.h"
#include "apiserver/validation/object_meta.h"
#include "common/go_quote.h"

namespace tidepool::apiserver::validation {
namespace {

using api::FieldError;
using api::FieldErrors;

constexpr const char* kGroup = "rbac.authorization.k8s.io";

void ValidatePolicyRule(const json& rule, bool namespaced, const std::string& path,
                        FieldErrors* errors) {
  if (Strings(Member(rule, "verbs")).empty()) {
    errors->push_back(FieldError::Required(path + ".verbs", "verbs must contain at least one value"));
  }
  const std::vector<std::string> urls = Strings(Member(rule, "nonResourceURLs"));
  const bool has_groups = !Strings(Member(rule, "apiGroups")).empty();
  const bool has_resources = !Strings(Member(rule, "resources")).empty();
  if (!urls.empty()) {
    if (namespaced) {
      errors->push_back(FieldError::InvalidRaw(path + ".nonResourceURLs", GoStringSlice(urls),
                                               "namespaced rules cannot apply to non-resource URLs"));
    }
    if (has_groups || has_resources || !Strings(Member(rule, "resourceNames")).empty()) {
      errors->push_back(FieldError::InvalidRaw(
          path + ".nonResourceURLs", GoStringSlice(urls),
          "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return;
  }
  if (!has_groups) {
    errors->push_back(FieldError::Required(path + ".apiGroups",
                                           "resource rules must supply at least one api group"));
  }
  if (!has_resources) {
    errors->push_back(FieldError::Required(path + ".resources",
                                           "resource rules must supply at least one resource"));
  }
}

void ValidateSubject(const json& s, bool namespaced, const std::string& path, FieldErrors* errors) {
  const std::string name(Str(Member(s, "name")));
  const std::string kind(Str(Member(s, "kind")));
  const std::string group(Str(Member(s, "apiGroup")));
  if (name.empty()) errors->push_back(FieldError::Required(path + ".name", ""));
  if (kind == "ServiceAccount") {
    if (!name.empty()) {
      for (const std::string& m : api::IsDns1123Subdomain(name)) {
        errors->push_back(FieldError::Invalid(path + ".name", name, m));
      }
    }
    if (!group.empty()) {
      errors->push_back(FieldError::NotSupported(path + ".apiGroup", group, {""}));
    }
    if (!namespaced && Str(Member(s, "namespace")).empty()) {
      errors->push_back(FieldError::Required(path + ".namespace", ""));
    }
  } else if (kind == "User" || kind == "Group") {
    if (group != kGroup) {
      errors->push_back(FieldError::NotSupported(path + ".apiGroup", group, {kGroup}));
    }
  } else {
    errors->push_back(
        FieldError::NotSupported(path + ".kind", kind, {"ServiceAccount", "User", "Group"}));
  }
}

std::string GoRoleRef(const json* ref) {
  return "rbac.RoleRef{APIGroup:" + GoQuote(Str(Member(ref, "apiGroup"))) +
         ", Kind:" + GoQuote(Str(Member(ref, "kind"))) +
         ", Name:" + GoQuote(Str(Member(ref, "name"))) + "}";
}

FieldErrors Meta(const json& object, const json* old, bool namespaced) {
  return old == nullptr ? ValidateObjectMeta(object, NameRule::kPathSegment, namespaced)
                        : ValidateObjectMetaUpdate(object, *old);
}

}  // namespace

Status ValidateRole(const json& object, const json* old, bool namespaced, FieldErrors* errors) {
  *errors = Meta(object, old, namespaced);
  const json* rules = Member(object, "rules");
  if (rules == nullptr || !rules->is_array()) return Status::Ok();
  for (size_t i = 0; i < rules->size(); ++i) {
    ValidatePolicyRule((*rules)[i], namespaced, "rules[" + std::to_string(i) + "]", errors);
  }
  return Status::Ok();
}

Status ValidateRoleBinding(const json& object, const json* old, bool namespaced,
                           FieldErrors* errors) {
  *errors = Meta(object, old, namespaced);
  const json* ref = Member(object, "roleRef");
  const std::string group(Str(Member(ref, "apiGroup")));
  const std::string kind(Str(Member(ref, "kind")));
  const std::string name(Str(Member(ref, "name")));
  if (group != kGroup) {
    errors->push_back(FieldError::NotSupported("roleRef.apiGroup", group, {kGroup}));
  }
  if (namespaced && kind != "Role" && kind != "ClusterRole") {
    errors->push_back(FieldError::NotSupported("roleRef.kind", kind, {"Role", "ClusterRole"}));
  } else if (!namespaced && kind != "ClusterRole") {
    errors->push_back(FieldError::NotSupported("roleRef.kind", kind, {"ClusterRole"}));
  }
  if (name.empty()) {
    errors->push_back(FieldError::Required("roleRef.name", ""));
  } else {
    for (const std::string& m : api::IsValidPathSegmentName(name)) {
      errors->push_back(FieldError::Invalid("roleRef.name", name, m));
    }
  }
  if (const json* subjects = Member(object, "subjects"); subjects && subjects->is_array()) {
    for (size_t i = 0; i < subjects->size(); ++i) {
      ValidateSubject((*subjects)[i], namespaced, "subjects[" + std::to_string(i) + "]", errors);
    }
  }
  if (old != nullptr) {
    const json* old_ref = Member(*old, "roleRef");
    if (GoRoleRef(ref) != GoRoleRef(old_ref)) {
      errors->push_back(FieldError::InvalidRaw("roleRef", GoRoleRef(ref), "cannot change roleRef"));
    }
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
