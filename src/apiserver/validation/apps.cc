#include "apiserver/validation/apps.h"

#include "api/name_validation.h"
#include "common/go_quote.h"
#include "apiserver/validation/defaults.h"
#include "apiserver/validation/object_meta.h"
#include "apiserver/validation/pod.h"

namespace tidepool::apiserver::validation {
namespace {

using api::FieldError;
using api::FieldErrors;

// "empty selector is invalid for <what>" for a selector with no labels and no expressions.
void ValidateSelectorNotEmpty(const json* selector, std::string_view what, FieldErrors* errors) {
  const json* exprs = Member(selector, "matchExpressions");
  const size_t n = StringMap(Member(selector, "matchLabels")).size() +
                   (exprs != nullptr && exprs->is_array() ? exprs->size() : 0);
  if (n == 0) {
    errors->push_back(FieldError::InvalidRaw("spec.selector", GoLabelSelector(selector),
                                             "empty selector is invalid for " + std::string(what)));
  }
}

// The selector rules shared by the four kinds (ValidateLabelSelector; "empty selector is
// invalid for <what>"). `required` adds "spec.selector: Required value" for a missing one.
void ValidateSelector(const json* spec, bool required, std::string_view what, FieldErrors* errors) {
  const json* selector = Member(spec, "selector");
  if (selector == nullptr) {
    if (required) errors->push_back(FieldError::Required("spec.selector", ""));
    return;
  }
  Append(ValidateLabelSelector(selector, "spec.selector"), errors);
  ValidateSelectorNotEmpty(selector, what, errors);
}

// "`selector` does not match template `labels`" unless the selector selects the labels.
void ValidateSelectorMatches(const Selector& selector, const json* tmpl, FieldErrors* errors) {
  const json* labels = Member(Member(tmpl, "metadata"), "labels");
  if (!selector.Empty() && !selector.Matches(StringMap(labels))) {
    errors->push_back(FieldError::InvalidRaw("spec.template.metadata.labels", GoStringMap(labels),
                                             "`selector` does not match template `labels`"));
  }
}

// restartPolicy Always only, no activeDeadlineSeconds (`owner` names the kind in the text).
void ValidateAlwaysRestart(const json* tmpl, std::string_view owner, FieldErrors* errors) {
  const json* spec = Member(tmpl, "spec");
  const std::string policy(Str(Member(spec, "restartPolicy")));
  if (policy != "Always") {
    errors->push_back(
        FieldError::NotSupported("spec.template.spec.restartPolicy", policy, {"Always"}));
  }
  if (Member(spec, "activeDeadlineSeconds") != nullptr) {
    errors->push_back(FieldError::Forbidden("spec.template.spec.activeDeadlineSeconds",
                                            "activeDeadlineSeconds in " + std::string(owner) +
                                                " is not Supported"));
  }
}

// ValidatePodTemplateSpecForReplicaSet (Deployments use it too, and say ReplicaSet).
Status ValidateReplicaSetTemplate(const json* spec, std::string_view kind, FieldErrors* errors) {
  const json* selector_json = Member(spec, "selector");
  const Selector selector = AsSelector(selector_json);
  if (selector.kind == Selector::Kind::kInvalid) {
    errors->push_back(FieldError::InvalidRaw("spec.selector", GoLabelSelector(selector_json),
                                             "invalid label selector"));
    return Status::Ok();
  }
  const json* tmpl = Member(spec, "template");
  ValidateSelectorMatches(selector, tmpl, errors);
  TIDEPOOL_RETURN_IF_ERROR(ValidatePodTemplate(tmpl, "spec.template", kind, errors));
  ValidateAlwaysRestart(tmpl, "ReplicaSet", errors);
  return Status::Ok();
}

void ValidatePositiveIntOrPercent(const json& v, const std::string& path, FieldErrors* errors) {
  if (v.is_string()) {
    for (const std::string& msg : api::IsValidPercent(v.get<std::string>())) {
      errors->push_back(FieldError::InvalidRaw(path, GoIntOrString(v), msg));
    }
  } else {
    NonNegative(&v, path, errors);
  }
}

// A valid percentage's number, if `v` is one.
std::optional<int64_t> PercentValue(const json* v) {
  if (v == nullptr || !v->is_string()) return std::nullopt;
  const std::string s = v->get<std::string>();
  if (!api::IsValidPercent(s).empty() || s.size() > 11) return std::nullopt;
  return std::stoll(s.substr(0, s.size() - 1));
}

void NotMoreThan100Percent(const json& v, const std::string& path, FieldErrors* errors) {
  const std::optional<int64_t> p = PercentValue(&v);
  if (p && *p > 100) {
    errors->push_back(FieldError::InvalidRaw(path, GoIntOrString(v), "must not be greater than 100%"));
  }
}

const json& OrZero(const json* v) {
  static const json kZero = 0;
  return v != nullptr ? *v : kZero;
}

void ValidateDeploymentStrategy(const json* spec, FieldErrors* errors) {
  const json* strategy = Member(spec, "strategy");
  const std::string type(StrOf(strategy, "type"));
  const json* ru = Member(strategy, "rollingUpdate");
  const std::string path = "spec.strategy";
  if (type == "Recreate") {
    if (ru != nullptr) {
      errors->push_back(FieldError::Forbidden(
          path + ".rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type == "RollingUpdate") {
    if (ru == nullptr) {
      errors->push_back(FieldError::Required(path + ".rollingUpdate",
                                             "this should be defaulted and never be nil"));
      return;
    }
    const json& unavailable = OrZero(Member(ru, "maxUnavailable"));
    const json& surge = OrZero(Member(ru, "maxSurge"));
    ValidatePositiveIntOrPercent(unavailable, path + ".rollingUpdate.maxUnavailable", errors);
    ValidatePositiveIntOrPercent(surge, path + ".rollingUpdate.maxSurge", errors);
    if (IntOrPercentValue(&unavailable) == 0 && IntOrPercentValue(&surge) == 0) {
      errors->push_back(FieldError::InvalidRaw(path + ".rollingUpdate.maxUnavailable",
                                               GoIntOrString(unavailable),
                                               "may not be 0 when `maxSurge` is 0"));
    }
    NotMoreThan100Percent(unavailable, path + ".rollingUpdate.maxUnavailable", errors);
  } else {
    errors->push_back(FieldError::NotSupportedRaw(
        path,
        "apps.DeploymentStrategy{Type:" + GoQuote(type) + ", RollingUpdate:" +
            GoPointer("apps.RollingUpdateDeployment", ru != nullptr) + "}",
        {"Recreate", "RollingUpdate"}));
  }
}

void ValidateDaemonSetStrategy(const json* spec, FieldErrors* errors) {
  const json* strategy = Member(spec, "updateStrategy");
  const std::string type(StrOf(strategy, "type"));
  const json* ru = Member(strategy, "rollingUpdate");
  const std::string path = "spec.updateStrategy";
  if (type == "OnDelete") return;
  if (type != "RollingUpdate") {
    errors->push_back(FieldError::NotSupportedRaw(
        path,
        "apps.DaemonSetUpdateStrategy{Type:" + GoQuote(type) + ", RollingUpdate:" +
            GoPointer("apps.RollingUpdateDaemonSet", ru != nullptr) + "}",
        {"RollingUpdate", "OnDelete"}));
    return;
  }
  if (ru == nullptr) {
    errors->push_back(FieldError::Required(path + ".rollingUpdate", ""));
    return;
  }
  const json& unavailable = OrZero(Member(ru, "maxUnavailable"));
  const json& surge = OrZero(Member(ru, "maxSurge"));
  ValidatePositiveIntOrPercent(unavailable, path + ".rollingUpdate.maxUnavailable", errors);
  ValidatePositiveIntOrPercent(surge, path + ".rollingUpdate.maxSurge", errors);
  NotMoreThan100Percent(unavailable, path + ".rollingUpdate.maxUnavailable", errors);
  NotMoreThan100Percent(surge, path + ".rollingUpdate.maxSurge", errors);
  const bool has_unavailable = IntOrPercentValue(&unavailable) != 0;
  const bool has_surge = IntOrPercentValue(&surge) != 0;
  if (has_unavailable && has_surge) {
    errors->push_back(FieldError::InvalidRaw(path + ".rollingUpdate.maxSurge", GoIntOrString(surge),
                                             "may not be set when maxUnavailable is non-zero"));
  } else if (!has_unavailable && !has_surge) {
    errors->push_back(FieldError::Required(path + ".rollingUpdate.maxUnavailable",
                                           "cannot be 0 when maxSurge is 0"));
  }
}

void ValidateStatefulSetStrategy(const json* spec, FieldErrors* errors) {
  const json* strategy = Member(spec, "updateStrategy");
  const std::string type(StrOf(strategy, "type"));
  const json* ru = Member(strategy, "rollingUpdate");
  const std::string path = "spec.updateStrategy";
  const json* max_unavailable = Member(ru, "maxUnavailable");
  const std::string ru_value =
      "apps.RollingUpdateStatefulSetStrategy{Partition:" +
      std::to_string(Int(Member(ru, "partition")).value_or(0)) + ", MaxUnavailable:" +
      GoPointer("intstr.IntOrString", max_unavailable != nullptr) + "}";
  if (type.empty()) {
    errors->push_back(FieldError::Required(path, ""));
  } else if (type == "OnDelete") {
    if (ru != nullptr) {
      errors->push_back(FieldError::InvalidRaw(path + ".rollingUpdate", ru_value,
                                               "only allowed for updateStrategy 'RollingUpdate'"));
    }
  } else if (type == "RollingUpdate") {
    if (ru == nullptr) return;
    NonNegative(Member(ru, "partition"), path + ".rollingUpdate.partition", errors);
    if (max_unavailable != nullptr) {
      const std::string p = path + ".rollingUpdate.maxUnavailable";
      ValidatePositiveIntOrPercent(*max_unavailable, p, errors);
      if (IntOrPercentValue(max_unavailable) == 0) {
        errors->push_back(FieldError::InvalidRaw(p, GoIntOrString(*max_unavailable), "cannot be 0"));
      }
      NotMoreThan100Percent(*max_unavailable, p, errors);
    }
  } else {
    errors->push_back(FieldError::InvalidRaw(
        path,
        "apps.StatefulSetUpdateStrategy{Type:" + GoQuote(type) + ", RollingUpdate:" +
            GoPointer("apps.RollingUpdateStatefulSetStrategy", ru != nullptr) + "}",
        "must be 'RollingUpdate' or 'OnDelete'"));
  }
}

// Semantic equality of two selectors (nil and empty maps and lists are equal).
bool SameSelector(const json* a, const json* b) {
  if ((a == nullptr) != (b == nullptr)) return false;
  if (a == nullptr) return true;
  auto exprs = [](const json* s) {
    const json* e = Member(s, "matchExpressions");
    return e != nullptr && e->is_array() ? *e : json::array();
  };
  return StringMap(Member(a, "matchLabels")) == StringMap(Member(b, "matchLabels")) &&
         exprs(a) == exprs(b);
}

// The strategies' ValidateUpdate: spec.selector may not change (apps/v1).
void ValidateSelectorImmutable(const json& object, const json& old, FieldErrors* errors) {
  const json* now = At(object, {"spec", "selector"});
  if (!SameSelector(now, At(old, {"spec", "selector"}))) {
    errors->push_back(
        FieldError::InvalidRaw("spec.selector", GoLabelSelector(now), "field is immutable"));
  }
}

FieldErrors Meta(const json& object, const json* old, NameRule rule) {
  return old == nullptr ? ValidateObjectMeta(object, rule, true)
                        : ValidateObjectMetaUpdate(object, *old);
}

json* SpecForDefaults(json& object) { return ObjectMember(&object, "spec"); }

}  // namespace

int64_t IntOrPercentValue(const json* v) {
  if (const std::optional<int64_t> p = PercentValue(v)) return *p;
  if (v != nullptr && v->is_string()) {  // intstr.IntValue: Atoi of the string, 0 on error
    const std::string s = v->get<std::string>();
    if (s.empty() || s.size() > 18 ||
        s.find_first_not_of("0123456789", s[0] == '-' || s[0] == '+' ? 1 : 0) !=
            std::string::npos) {
      return 0;
    }
    return std::stoll(s);
  }
  return Int(v).value_or(0);
}

void ValidateIntOrPercent(const json& v, const std::string& path, FieldErrors* errors) {
  ValidatePositiveIntOrPercent(v, path, errors);
  NotMoreThan100Percent(v, path, errors);
}

void DefaultDeployment(json& object) {
  json* spec = SpecForDefaults(object);
  if (spec == nullptr) return;
  SetDefault(spec, "replicas", 1);
  json* strategy = ObjectMember(spec, "strategy");
  SetDefault(strategy, "type", "RollingUpdate");
  if (StrOf(strategy, "type") == "RollingUpdate") {
    json* ru = ObjectMember(strategy, "rollingUpdate");
    SetDefault(ru, "maxUnavailable", "25%");
    SetDefault(ru, "maxSurge", "25%");
  }
  SetDefault(spec, "revisionHistoryLimit", 10);
  SetDefault(spec, "progressDeadlineSeconds", 600);
}

void DefaultReplicaSet(json& object) { SetDefault(SpecForDefaults(object), "replicas", 1); }

void DefaultDaemonSet(json& object) {
  json* spec = SpecForDefaults(object);
  if (spec == nullptr) return;
  json* strategy = ObjectMember(spec, "updateStrategy");
  SetDefault(strategy, "type", "RollingUpdate");
  if (StrOf(strategy, "type") == "RollingUpdate") {
    json* ru = ObjectMember(strategy, "rollingUpdate");
    SetDefault(ru, "maxUnavailable", 1);
    SetDefault(ru, "maxSurge", 0);
  }
  SetDefault(spec, "revisionHistoryLimit", 10);
}

void DefaultStatefulSet(json& object) {
  json* spec = SpecForDefaults(object);
  if (spec == nullptr) return;
  SetDefault(spec, "podManagementPolicy", "OrderedReady");
  json* strategy = ObjectMember(spec, "updateStrategy");
  if (strategy != nullptr && StrOf(strategy, "type").empty()) {
    (*strategy)["type"] = "RollingUpdate";
    ObjectMember(strategy, "rollingUpdate");
  }
  if (StrOf(strategy, "type") == "RollingUpdate") {
    json* ru = Member(strategy, "rollingUpdate") != nullptr ? ObjectMember(strategy, "rollingUpdate")
                                                              : nullptr;
    SetDefault(ru, "partition", 0);
  }
  json* retention = ObjectMember(spec, "persistentVolumeClaimRetentionPolicy");
  for (const char* k : {"whenDeleted", "whenScaled"}) {
    if (retention != nullptr && StrOf(retention, k).empty()) (*retention)[k] = "Retain";
  }
  SetDefault(spec, "replicas", 1);
  SetDefault(spec, "revisionHistoryLimit", 10);
}

Status ValidateDeployment(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, NameRule::kDns1123Subdomain);
  const json* spec = Member(object, "spec");
  NonNegative(Member(spec, "replicas"), "spec.replicas", errors);
  ValidateSelector(spec, /*required=*/true, "deployment", errors);
  TIDEPOOL_RETURN_IF_ERROR(ValidateReplicaSetTemplate(spec, "Deployment", errors));
  ValidateDeploymentStrategy(spec, errors);
  NonNegative(Member(spec, "minReadySeconds"), "spec.minReadySeconds", errors);
  NonNegative(Member(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit", errors);
  if (const std::optional<int64_t> deadline = Int(Member(spec, "progressDeadlineSeconds"))) {
    NonNegative(Member(spec, "progressDeadlineSeconds"), "spec.progressDeadlineSeconds", errors);
    if (*deadline <= Int(Member(spec, "minReadySeconds")).value_or(0)) {
      errors->push_back(FieldError::InvalidRaw("spec.progressDeadlineSeconds",
                                               std::to_string(*deadline),
                                               "must be greater than minReadySeconds"));
    }
  }
  if (old != nullptr) ValidateSelectorImmutable(object, *old, errors);
  return Status::Ok();
}

Status ValidateReplicaSet(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, NameRule::kDns1123Subdomain);
  const json* spec = Member(object, "spec");
  NonNegative(Member(spec, "replicas"), "spec.replicas", errors);
  NonNegative(Member(spec, "minReadySeconds"), "spec.minReadySeconds", errors);
  ValidateSelector(spec, /*required=*/true, "deployment", errors);
  TIDEPOOL_RETURN_IF_ERROR(ValidateReplicaSetTemplate(spec, "ReplicaSet", errors));
  if (old != nullptr) ValidateSelectorImmutable(object, *old, errors);
  return Status::Ok();
}

Status ValidateDaemonSet(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, NameRule::kDns1123Subdomain);
  const json* spec = Member(object, "spec");
  const json* selector_json = Member(spec, "selector");
  Append(ValidateLabelSelector(selector_json, "spec.selector"), errors);
  const Selector selector = AsSelector(selector_json);
  const json* tmpl = Member(spec, "template");
  if (selector.kind != Selector::Kind::kInvalid) {
    const json* labels = Member(Member(tmpl, "metadata"), "labels");
    if (!selector.Matches(StringMap(labels))) {
      errors->push_back(FieldError::InvalidRaw("spec.template.metadata.labels",
                                               GoStringMap(labels),
                                               "`selector` does not match template `labels`"));
    }
  }
  if (selector_json != nullptr) ValidateSelectorNotEmpty(selector_json, "daemonset", errors);
  TIDEPOOL_RETURN_IF_ERROR(ValidatePodTemplate(tmpl, "spec.template", "DaemonSet", errors));
  ValidateAlwaysRestart(tmpl, "DaemonSet", errors);
  NonNegative(Member(spec, "minReadySeconds"), "spec.minReadySeconds", errors);
  ValidateDaemonSetStrategy(spec, errors);
  NonNegative(Member(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit", errors);
  if (old != nullptr) ValidateSelectorImmutable(object, *old, errors);
  return Status::Ok();
}

Status ValidateControllerRevision(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, NameRule::kDns1123Subdomain);
  const json* data = Member(&object, "data");
  if (data == nullptr || data->is_null()) {
    errors->push_back(FieldError::Required("data", "data is mandatory"));
  }
  NonNegative(Member(&object, "revision"), "revision", errors);
  if (old != nullptr && data != nullptr) {
    const json* before = Member(old, "data");
    if (before == nullptr || *before != *data) {
      errors->push_back(FieldError::InvalidRaw("data", data->dump(), "field is immutable"));
    }
  }
  return Status::Ok();
}

Status ValidateStatefulSet(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, NameRule::kDns1123Label);
  const json* spec = Member(object, "spec");
  const std::string policy(StrOf(spec, "podManagementPolicy"));
  if (policy.empty()) {
    errors->push_back(FieldError::Required("spec.podManagementPolicy", ""));
  } else if (policy != "OrderedReady" && policy != "Parallel") {
    errors->push_back(FieldError::Invalid("spec.podManagementPolicy", policy,
                                          "must be 'OrderedReady' or 'Parallel'"));
  }
  ValidateStatefulSetStrategy(spec, errors);
  if (const json* retention = Member(spec, "persistentVolumeClaimRetentionPolicy")) {
    for (const char* k : {"whenDeleted", "whenScaled"}) {
      const std::string v(StrOf(retention, k));
      if (v != "Retain" && v != "Delete") {
        errors->push_back(FieldError::NotSupported(
            std::string("spec.persistentVolumeClaimRetentionPolicy.") + k, v, {"Retain", "Delete"}));
      }
    }
  }
  NonNegative(Member(spec, "replicas"), "spec.replicas", errors);
  NonNegative(Member(spec, "minReadySeconds"), "spec.minReadySeconds", errors);
  NonNegative(At(object, {"spec", "ordinals", "start"}), "spec.ordinals.start", errors);
  ValidateSelector(spec, /*required=*/true, "statefulset", errors);
  const json* selector_json = Member(spec, "selector");
  const Selector selector = AsSelector(selector_json);
  const json* tmpl = Member(spec, "template");
  if (selector.kind == Selector::Kind::kInvalid) {
    errors->push_back(FieldError::InvalidRaw("spec.selector", GoLabelSelector(selector_json), ""));
  } else {
    // ValidatePodTemplateSpecForStatefulSet: labels and annotations only, no pod spec.
    ValidateSelectorMatches(selector, tmpl, errors);
    const json* meta = Member(tmpl, "metadata");
    Append(ValidateLabels(Member(meta, "labels"), "spec.template.labels"), errors);
    Append(ValidateAnnotations(Member(meta, "annotations"), "spec.template.annotations"), errors);
  }
  ValidateAlwaysRestart(tmpl, "StatefulSet", errors);
  if (old != nullptr) {
    json now = spec != nullptr ? *spec : json::object();
    json before = At(*old, {"spec"}) != nullptr ? *At(*old, {"spec"}) : json::object();
    for (const char* k : {"replicas", "ordinals", "template", "updateStrategy",
                          "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}) {
      if (now.is_object()) now.erase(k);
      if (before.is_object()) before.erase(k);
    }
    if (now != before) {
      errors->push_back(FieldError::Forbidden(
          "spec",
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
          "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
          "'minReadySeconds' are forbidden"));
    }
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
