#include "apiserver/validation/autoscaling.h"

#include "api/name_validation.h"
#include "api/quantity.h"
#include "apiserver/validation/defaults.h"
#include "apiserver/validation/object_meta.h"

namespace tidepool::apiserver::validation {
namespace {

using api::FieldError;
using api::FieldErrors;

// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: missing parts of a rule filled.
void DefaultRules(json* behavior, const char* dir, int64_t window, const json& policies) {
  json* rules = ObjectMember(behavior, dir);
  if (rules == nullptr) return;
  SetDefault(rules, "stabilizationWindowSeconds", window);
  SetDefault(rules, "selectPolicy", "Max");
  const json* p = Member(rules, "policies");
  if (p == nullptr || !p->is_array() || p->empty()) (*rules)["policies"] = policies;
}

// validateMetricTarget.
void ValidateTarget(const json* t, const std::string& path, FieldErrors* errors) {
  const std::string type(Str(Member(t, "type")));
  if (type.empty())
    errors->push_back(FieldError::Required(path + ".type", "must specify a metric target type"));
  if (type != "Utilization" && type != "Value" && type != "AverageValue") {
    errors->push_back(FieldError::Invalid(path + ".type", type,
                                          "must be either Utilization, Value, or AverageValue"));
  }
  for (const char* k : {"value", "averageValue"}) {
    const json* q = Member(t, k);
    if (q == nullptr || !q->is_string()) continue;
    auto parsed = api::Quantity::Parse(q->get<std::string>());
    if (parsed.ok() && parsed->Sign() != 1) {
      errors->push_back(
          FieldError::InvalidRaw(path + "." + k, parsed->ToString(), "must be positive"));
    }
  }
  if (const std::optional<int64_t> u = Int(Member(t, "averageUtilization")); u && *u < 1) {
    errors->push_back(FieldError::InvalidRaw(path + ".averageUtilization", std::to_string(*u),
                                             "must be greater than 0"));
  }
}

// validateResourceSource / validateContainerResourceSource.
void ValidateResourceSource(const json* src, const std::string& path, bool container,
                            FieldErrors* errors) {
  if (Str(Member(src, "name")).empty()) {
    errors->push_back(FieldError::Required(path + ".name", "must specify a resource name"));
  }
  if (container && Str(Member(src, "container")).empty()) {
    errors->push_back(FieldError::Required(path + ".container", "must specify a container"));
  }
  const json* t = Member(src, "target");
  ValidateTarget(t, path + ".target", errors);
  const bool util = Member(t, "averageUtilization") != nullptr;
  const bool avg = Member(t, "averageValue") != nullptr;
  if (!util && !avg) {
    errors->push_back(FieldError::Required(path + ".target.averageUtilization",
                                           "must set either a target raw value or a target "
                                           "utilization"));
  }
  if (util && avg) {
    errors->push_back(FieldError::Forbidden(path + ".target.averageValue",
                                            "may not set both a target raw value and a target "
                                            "utilization"));
  }
}

// validateObjectSource / validatePodsSource / validateExternalSource, in short: the metric's
// name and the target.
void ValidateNamedSource(const json* src, const std::string& path, FieldErrors* errors) {
  if (Str(Member(Member(src, "metric"), "name")).empty()) {
    errors->push_back(FieldError::Required(path + ".metric.name", "must specify a metric name"));
  }
  ValidateTarget(Member(src, "target"), path + ".target", errors);
}

// validateMetricSpec.
void ValidateMetric(const json& m, const std::string& path, FieldErrors* errors) {
  static const std::vector<std::string> kTypes = {"ContainerResource", "External", "Object", "Pods",
                                                  "Resource"};
  const std::string type(Str(Member(m, "type")));
  if (type.empty()) {
    errors->push_back(FieldError::Required(path + ".type", "must specify a metric source type"));
  }
  if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
    errors->push_back(FieldError::NotSupported(path + ".type", type, kTypes));
  }
  struct Source {
    const char* field;
    const char* type;
  };
  constexpr Source kSources[] = {{"object", "Object"},
                                 {"pods", "Pods"},
                                 {"resource", "Resource"},
                                 {"containerResource", "ContainerResource"},
                                 {"external", "External"}};
  std::vector<std::string> present;
  for (const Source& s : kSources) {
    const json* src = Member(m, s.field);
    if (src == nullptr || src->is_null()) continue;
    present.push_back(s.field);
    if (present.size() > 1) continue;
    const std::string p = path + "." + s.field;
    if (std::string(s.field) == "resource" || std::string(s.field) == "containerResource") {
      ValidateResourceSource(src, p, std::string(s.field) == "containerResource", errors);
    } else {
      ValidateNamedSource(src, p, errors);
    }
  }
  std::string expected;
  for (const Source& s : kSources) {
    if (type != s.type) continue;
    expected = s.field;
    if (std::find(present.begin(), present.end(), expected) == present.end()) {
      errors->push_back(FieldError::Required(path + "." + expected,
                                             "must populate information for the given metric "
                                             "source"));
    }
  }
  if (expected.empty() && !type.empty() &&
      std::find(kTypes.begin(), kTypes.end(), type) != kTypes.end()) {
    errors->push_back(FieldError::NotSupported(path + ".type", type, kTypes));
  }
  if (present.size() != 1) {
    for (const std::string& p : present) {
      if (p != expected) {
        errors->push_back(
            FieldError::Forbidden(path + "." + p, "must populate the given metric source only"));
      }
    }
  }
}

// validateScalingRules.
void ValidateRules(const json* rules, const std::string& path, FieldErrors* errors) {
  if (rules == nullptr || rules->is_null()) return;
  if (const std::optional<int64_t> w = Int(Member(rules, "stabilizationWindowSeconds"))) {
    if (*w < 0) {
      errors->push_back(FieldError::InvalidRaw(path + ".stabilizationWindowSeconds",
                                               std::to_string(*w),
                                               "must be greater than or equal to zero"));
    }
    if (*w > 3600) {
      errors->push_back(FieldError::InvalidRaw(path + ".stabilizationWindowSeconds",
                                               std::to_string(*w),
                                               "must be less than or equal to 3600"));
    }
  }
  if (const json* sp = Member(rules, "selectPolicy"); sp != nullptr && !sp->is_null()) {
    const std::string v(Str(sp));
    if (v != "Max" && v != "Min" && v != "Disabled") {
      errors->push_back(
          FieldError::NotSupported(path + ".selectPolicy", v, {"Disabled", "Max", "Min"}));
    }
  }
  const json* policies = Member(rules, "policies");
  if (policies == nullptr || !policies->is_array() || policies->empty()) {
    errors->push_back(FieldError::Required(path + ".policies", "must specify at least one Policy"));
    return;
  }
  for (size_t i = 0; i < policies->size(); ++i) {
    const json& p = (*policies)[i];
    const std::string pp = path + ".policies[" + std::to_string(i) + "]";
    const std::string type(Str(Member(p, "type")));
    if (type != "Pods" && type != "Percent") {
      errors->push_back(FieldError::NotSupported(pp + ".type", type, {"Percent", "Pods"}));
    }
    const int64_t value = Int(Member(p, "value")).value_or(0);
    const int64_t period = Int(Member(p, "periodSeconds")).value_or(0);
    if (value <= 0) {
      errors->push_back(FieldError::InvalidRaw(pp + ".value", std::to_string(value),
                                               "must be greater than zero"));
    }
    if (period <= 0) {
      errors->push_back(FieldError::InvalidRaw(pp + ".periodSeconds", std::to_string(period),
                                               "must be greater than zero"));
    }
    if (period > 1800) {
      errors->push_back(FieldError::InvalidRaw(pp + ".periodSeconds", std::to_string(period),
                                               "must be less than or equal to 1800"));
    }
  }
}

// ValidateCrossVersionObjectReference.
void ValidateRef(const json* ref, FieldErrors* errors) {
  for (const char* k : {"kind", "name"}) {
    const std::string path = std::string("spec.scaleTargetRef.") + k;
    const std::string v(Str(Member(ref, k)));
    if (v.empty()) {
      errors->push_back(FieldError::Required(path, ""));
      continue;
    }
    for (const std::string& msg : api::IsValidPathSegmentName(v)) {
      errors->push_back(FieldError::Invalid(path, v, msg));
    }
  }
}

}  // namespace

void DefaultHpaV1(json& object) { SetDefault(ObjectMember(&object, "spec"), "minReplicas", 1); }

void DefaultHpa(json& object) {
  json* spec = ObjectMember(&object, "spec");
  if (spec == nullptr) return;
  SetDefault(spec, "minReplicas", 1);
  const json* metrics = Member(spec, "metrics");
  if (metrics == nullptr || !metrics->is_array() || metrics->empty()) {
    (*spec)["metrics"] = json::array(
        {{{"type", "Resource"},
          {"resource",
           {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
  }
  if (Member(spec, "behavior") == nullptr || Member(spec, "behavior")->is_null()) return;
  json* behavior = ObjectMember(spec, "behavior");
  if (behavior == nullptr) return;
  if (Member(behavior, "scaleUp") == nullptr) (*behavior)["scaleUp"] = json::object();
  if (Member(behavior, "scaleDown") == nullptr) (*behavior)["scaleDown"] = json::object();
  DefaultRules(behavior, "scaleUp", 0,
               json::array({{{"type", "Pods"}, {"value", 4}, {"periodSeconds", 15}},
                            {{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}}));
  DefaultRules(behavior, "scaleDown", 300,
               json::array({{{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}}));
}

void PrepareHpaForCreate(json& object) {
  if (object.is_object()) object["status"] = {{"currentMetrics", nullptr}, {"desiredReplicas", 0}};
}

Status ValidateHpa(const json& object, const json* old, FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  const json* spec = Member(object, "spec");
  const std::optional<int64_t> min = Int(Member(spec, "minReplicas"));
  const int64_t max = Int(Member(spec, "maxReplicas")).value_or(0);
  if (min && *min < 1) {
    errors->push_back(FieldError::InvalidRaw("spec.minReplicas", std::to_string(*min),
                                             "must be greater than or equal to 1"));
  }
  if (max < 1) {
    errors->push_back(
        FieldError::InvalidRaw("spec.maxReplicas", std::to_string(max), "must be greater than 0"));
  }
  if (min && max < *min) {
    errors->push_back(FieldError::InvalidRaw("spec.maxReplicas", std::to_string(max),
                                             "must be greater than or equal to `minReplicas`"));
  }
  ValidateRef(Member(spec, "scaleTargetRef"), errors);
  if (const json* metrics = Member(spec, "metrics"); metrics != nullptr && metrics->is_array()) {
    for (size_t i = 0; i < metrics->size(); ++i) {
      ValidateMetric((*metrics)[i], "spec.metrics[" + std::to_string(i) + "]", errors);
    }
  }
  if (const json* b = Member(spec, "behavior"); b != nullptr && !b->is_null()) {
    ValidateRules(Member(b, "scaleUp"), "spec.behavior.scaleUp", errors);
    ValidateRules(Member(b, "scaleDown"), "spec.behavior.scaleDown", errors);
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
