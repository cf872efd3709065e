#include "apiserver/validation/coordination.h"

#include "apiserver/validation/object_meta.h"

namespace tidepool::apiserver::validation {

Status ValidateLease(const json& object, const json* old, api::FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  const json* spec = Member(object, "spec");
  const std::optional<int64_t> duration = Int(Member(spec, "leaseDurationSeconds"));
  if (duration && *duration <= 0) {
    errors->push_back(api::FieldError::InvalidRaw("spec.leaseDurationSeconds",
                                                  std::to_string(*duration),
                                                  "must be greater than 0"));
  }
  const std::optional<int64_t> transitions = Int(Member(spec, "leaseTransitions"));
  if (transitions && *transitions < 0) {
    errors->push_back(api::FieldError::InvalidRaw("spec.leaseTransitions",
                                                  std::to_string(*transitions),
                                                  "must be greater than or equal to 0"));
  }
  if (!Str(Member(spec, "preferredHolder")).empty() && Str(Member(spec, "strategy")).empty()) {
    errors->push_back(api::FieldError::Forbidden("spec.preferredHolder",
                                                 "may only be specified if `strategy` is defined"));
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
