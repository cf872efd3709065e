#include "apiserver/validation/policy.h"

#include "apiserver/validation/apps.h"
#include "apiserver/validation/object_meta.h"

namespace tidepool::apiserver::validation {

Status ValidatePodDisruptionBudget(const json& object, const json* old, api::FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  const json* spec = Member(object, "spec");
  const json* min = Member(spec, "minAvailable");
  const json* max = Member(spec, "maxUnavailable");
  const json* policy = Member(spec, "unhealthyPodEvictionPolicy");
  if (min != nullptr && max != nullptr) {
    errors->push_back(api::FieldError::InvalidRaw(
        "spec",
        "policy.PodDisruptionBudgetSpec{MinAvailable:" + GoPointer("intstr.IntOrString", true) +
            ", Selector:" + GoPointer("v1.LabelSelector", Member(spec, "selector") != nullptr) +
            ", MaxUnavailable:" + GoPointer("intstr.IntOrString", true) +
            ", UnhealthyPodEvictionPolicy:" +
            GoPointer("policy.UnhealthyPodEvictionPolicyType", policy != nullptr) + "}",
        "minAvailable and maxUnavailable cannot be both set"));
  }
  if (min != nullptr) ValidateIntOrPercent(*min, "spec.minAvailable", errors);
  if (max != nullptr) ValidateIntOrPercent(*max, "spec.maxUnavailable", errors);
  for (api::FieldError& e : ValidateLabelSelector(Member(spec, "selector"), "spec.selector")) {
    errors->push_back(std::move(e));
  }
  if (policy != nullptr) {
    const std::string p(Str(policy));
    if (p != "AlwaysAllow" && p != "IfHealthyBudget") {
      errors->push_back(api::FieldError::NotSupported("spec.unhealthyPodEvictionPolicy", p,
                                                      {"AlwaysAllow", "IfHealthyBudget"}));
    }
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
