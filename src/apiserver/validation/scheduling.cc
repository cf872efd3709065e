#include "apiserver/validation/scheduling.h"

#include "apiserver/validation/defaults.h"
#include "apiserver/validation/object_meta.h"

namespace tidepool::apiserver::validation {
namespace {

constexpr int64_t kHighestUserDefinablePriority = 1000000000;

// scheduling.IsKnownSystemPriorityClass's error, or "" when the class is a known one.
std::string SystemClassError(const std::string& name, int64_t value, bool global_default) {
  for (const SystemPriorityClass& k : kSystemPriorityClasses) {
    if (name != k.name) continue;
    if (value != k.value) {
      return "value of " + name + " PriorityClass must be " + std::to_string(k.value);
    }
    if (global_default) return "globalDefault of " + name + " PriorityClass must be false";
    return "";
  }
  return name + " is not a known system priority class";
}

}  // namespace

void DefaultPriorityClass(json& object) {
  SetDefault(&object, "preemptionPolicy", "PreemptLowerPriority");
}

Status ValidatePriorityClass(const json& object, const json* old, api::FieldErrors* errors) {
  const int64_t value = Int(Member(object, "value")).value_or(0);
  if (old != nullptr) {
    *errors = ValidateObjectMetaUpdate(object, *old);
    if (value != Int(Member(*old, "value")).value_or(0)) {
      errors->push_back(api::FieldError::Forbidden("value", "may not be changed in an update."));
    }
    const json* policy = Member(object, "preemptionPolicy");
    const json* old_policy = Member(*old, "preemptionPolicy");
    if ((policy == nullptr) != (old_policy == nullptr) ||
        (policy != nullptr && *policy != *old_policy)) {
      errors->push_back(
          api::FieldError::Invalid("preemptionPolicy", std::string(Str(policy)), "field is immutable"));
    }
    return Status::Ok();
  }
  *errors = ValidateObjectMeta(object, NameRule::kDns1123Subdomain, false);
  const std::string name(Str(At(object, {"metadata", "name"})));
  if (name.rfind("system-", 0) == 0) {
    const std::string err = SystemClassError(name, value, IsTrue(Member(object, "globalDefault")));
    if (!err.empty()) {
      errors->push_back(api::FieldError::Forbidden(
          "metadata.name",
          "priority class names with 'system-' prefix are reserved for system use only. error: " +
              err));
    }
  } else if (value > kHighestUserDefinablePriority) {
    errors->push_back(api::FieldError::Forbidden(
        "value", "maximum allowed value of a user defined priority is 1000000000"));
  }
  if (const json* policy = Member(object, "preemptionPolicy")) {
    const std::string p(Str(policy));
    if (p.empty()) {
      errors->push_back(api::FieldError::Required("preemptionPolicy", ""));
    } else if (p != "PreemptLowerPriority" && p != "Never") {
      errors->push_back(api::FieldError::NotSupported("preemptionPolicy", p,
                                                      {"PreemptLowerPriority", "Never"}));
    }
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
