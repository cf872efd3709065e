#include "apiserver/validation/object_meta.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "api/codec/json_codec.h"
#include "api/name_validation.h"

namespace tidepool::apiserver::validation {
namespace {

constexpr int64_t kTotalAnnotationSizeLimitB = 256 * 1024;

// apimachineryvalidation's maskTrailingDash: a generateName may end in '-'.
std::string MaskTrailingDash(std::string name) {
  if (name.size() > 1 && name.back() == '-') return name.substr(0, name.size() - 2) + "a";
  return name;
}

std::vector<std::string> NameErrors(NameRule rule, const std::string& name) {
  switch (rule) {
    case NameRule::kDns1123Subdomain:
      return api::IsDns1123Subdomain(name);
    case NameRule::kDns1123Label:
      return api::IsDns1123Label(name);
    case NameRule::kDns1035Label:
      return api::IsDns1035Label(name);
    case NameRule::kPathSegment:
      return api::IsValidPathSegmentName(name);
    case NameRule::kAny:
      return {};
  }
  return {};
}

void AddInvalid(const std::vector<std::string>& msgs, const std::string& path,
                const std::string& value, api::FieldErrors* errors) {
  for (const std::string& m : msgs) errors->push_back(api::FieldError::Invalid(path, value, m));
}

void ValidateName(const json* meta, NameRule rule, api::FieldErrors* errors) {
  const std::string generate(Str(Member(meta, "generateName")));
  if (!generate.empty()) {
    AddInvalid(NameErrors(rule, MaskTrailingDash(generate)), "metadata.generateName", generate,
               errors);
  }
  const std::string name(Str(Member(meta, "name")));
  if (name.empty()) {
    // kube-apiserver generates the name before validating; tidepool's store does it after.
    if (generate.empty()) {
      errors->push_back(
          api::FieldError::Required("metadata.name", "name or generateName is required"));
    }
  } else {
    AddInvalid(NameErrors(rule, name), "metadata.name", name, errors);
  }
}

void ValidateNamespace(const json* meta, bool namespaced, api::FieldErrors* errors) {
  const std::string ns(Str(Member(meta, "namespace")));
  // An empty namespace of a namespaced kind is the request's (kube-apiserver fills it from
  // the URL before validating; tidepool's store fills it when it writes).
  if (namespaced && !ns.empty()) {
    AddInvalid(api::IsDns1123Label(ns), "metadata.namespace", ns, errors);
  } else if (!ns.empty()) {
    errors->push_back(api::FieldError::Forbidden("metadata.namespace", "not allowed on this type"));
  }
}

void ValidateOwnerReferences(const json* refs, api::FieldErrors* errors) {
  if (refs == nullptr || !refs->is_array()) return;
  const std::string path = "metadata.ownerReferences";
  std::string first_controller;
  for (const json& ref : *refs) {
    const std::string api_version(Str(Member(ref, "apiVersion")));
    const std::string kind(Str(Member(ref, "kind")));
    const size_t slash = api_version.find('/');
    const std::string version =
        slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    if (version.empty() || std::count(api_version.begin(), api_version.end(), '/') > 1) {
      errors->push_back(
          api::FieldError::Invalid(path + ".apiVersion", api_version, "version must not be empty"));
    }
    if (kind.empty()) {
      errors->push_back(api::FieldError::Invalid(path + ".kind", kind, "kind must not be empty"));
    }
    const std::string name(Str(Member(ref, "name")));
    if (name.empty()) {
      errors->push_back(api::FieldError::Invalid(path + ".name", name, "name must not be empty"));
    }
    const std::string uid(Str(Member(ref, "uid")));
    if (uid.empty()) {
      errors->push_back(api::FieldError::Invalid(path + ".uid", uid, "uid must not be empty"));
    }
    if (group.empty() && version == "v1" && kind == "Event") {
      errors->push_back(api::FieldError::InvalidRaw(
          path, "v1.OwnerReference{APIVersion:\"v1\", Kind:\"Event\", ...}",
          "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (IsTrue(Member(ref, "controller"))) {
      const std::string current = kind + "/" + name;
      if (first_controller.empty()) {
        first_controller = current;
      } else {
        errors->push_back(api::FieldError::InvalidRaw(
            path, "[]v1.OwnerReference{...}",
            "Only one reference can have Controller set to true. Found \"true\" in references "
            "for " + first_controller + " and " + current));
      }
    }
  }
}

// pkg/apis/core/validation's validateKubeFinalizerName, at each entry's path.
void ValidateKubeFinalizerNames(const std::vector<std::string>& finalizers,
                                api::FieldErrors* errors) {
  for (size_t i = 0; i < finalizers.size(); ++i) {
    const std::string& f = finalizers[i];
    const std::string p = "metadata.finalizers[" + std::to_string(i) + "]";
    AddInvalid(api::IsQualifiedName(f), p, f, errors);
    if (f.find('/') == std::string::npos && f != "kubernetes" && f != "orphan" &&
        f != "foregroundDeletion") {
      errors->push_back(api::FieldError::Invalid(
          p, f, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
}

// apimachinery's ValidateFinalizers (at the list's path), then the core check per entry.
void ValidateFinalizers(const std::vector<std::string>& finalizers, api::FieldErrors* errors) {
  const std::string path = "metadata.finalizers";
  bool orphan = false, foreground = false;
  for (const std::string& f : finalizers) {  // apimachinery: at the list's path
    AddInvalid(api::IsQualifiedName(f), path, f, errors);
    orphan = orphan || f == "orphan";
    foreground = foreground || f == "foregroundDeletion";
  }
  if (orphan && foreground) {
    errors->push_back(api::FieldError::InvalidRaw(
        path, GoStringSlice(finalizers, false),
        "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  ValidateKubeFinalizerNames(finalizers, errors);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The metadata members validated alike on create and update.
void ValidateCommon(const json* meta, api::FieldErrors* errors) {
  for (auto& e : ValidateLabels(Member(meta, "labels"), "metadata.labels")) errors->push_back(e);
  for (auto& e : ValidateAnnotations(Member(meta, "annotations"), "metadata.annotations")) {
    errors->push_back(e);
  }
  ValidateOwnerReferences(Member(meta, "ownerReferences"), errors);
}

}  // namespace

api::FieldErrors ValidateLabels(const json* labels, const std::string& path) {
  api::FieldErrors errors;
  for (const auto& [k, v] : StringMap(labels)) {
    AddInvalid(api::IsQualifiedName(k), path, k, &errors);
    AddInvalid(api::IsValidLabelValue(v), path, v, &errors);
  }
  return errors;
}

api::FieldErrors ValidateAnnotations(const json* annotations, const std::string& path) {
  api::FieldErrors errors;
  int64_t total = 0;
  for (const auto& [k, v] : StringMap(annotations)) {
    AddInvalid(api::IsQualifiedName(Lower(k)), path, k, &errors);
    total += static_cast<int64_t>(k.size() + v.size());
  }
  if (total > kTotalAnnotationSizeLimitB) {
    errors.push_back(api::FieldError::TooLong(path, kTotalAnnotationSizeLimitB));
  }
  return errors;
}

api::FieldErrors ValidateLabelSelector(const json* selector, const std::string& path) {
  api::FieldErrors errors = ValidateLabels(Member(selector, "matchLabels"), path + ".matchLabels");
  const json* exprs = Member(selector, "matchExpressions");
  if (exprs == nullptr || !exprs->is_array()) return errors;
  for (size_t i = 0; i < exprs->size(); ++i) {
    const json& e = (*exprs)[i];
    const std::string p = path + ".matchExpressions[" + std::to_string(i) + "]";
    const std::string op(Str(Member(e, "operator")));
    const std::vector<std::string> values = Strings(Member(e, "values"));  // string list
    if (op == "In" || op == "NotIn") {
      if (values.empty()) {
        errors.push_back(api::FieldError::Required(
            p + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!values.empty()) {
        errors.push_back(api::FieldError::Forbidden(
            p + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      errors.push_back(api::FieldError::Invalid(p + ".operator", op, "not a valid selector operator"));
    }
    const std::string key(Str(Member(e, "key")));
    AddInvalid(api::IsQualifiedName(key), p + ".key", key, &errors);
    for (size_t j = 0; j < values.size(); ++j) {
      AddInvalid(api::IsValidLabelValue(values[j]), p + ".values[" + std::to_string(j) + "]",
                 values[j], &errors);
    }
  }
  return errors;
}

Selector AsSelector(const json* selector) {
  Selector s;
  if (selector == nullptr) return s;
  s.kind = Selector::Kind::kInvalid;
  if (!ValidateLabelSelector(selector, "").empty()) return s;
  auto parsed = api::codec::LabelSelectorFromJson(*selector);
  if (!parsed.ok()) return s;
  s.kind = Selector::Kind::kParsed;
  s.parsed = std::move(parsed).value();
  return s;
}

api::FieldErrors ValidateObjectMeta(const json& object, NameRule rule, bool namespaced) {
  api::FieldErrors errors;
  const json* meta = Member(object, "metadata");
  ValidateName(meta, rule, &errors);
  ValidateNamespace(meta, namespaced, &errors);
  NonNegative(Member(meta, "generation"), "metadata.generation", &errors);
  ValidateCommon(meta, &errors);
  ValidateFinalizers(Strings(Member(meta, "finalizers")), &errors);
  return errors;
}

api::FieldErrors ValidateObjectMetaUpdate(const json& object, const json& old) {
  api::FieldErrors errors;
  const json* meta = Member(object, "metadata");
  const json* old_meta = Member(old, "metadata");
  const std::vector<std::string> finalizers = Strings(Member(meta, "finalizers"));
  if (Member(old_meta, "deletionTimestamp") != nullptr) {
    const std::vector<std::string> before = Strings(Member(old_meta, "finalizers"));
    std::set<std::string> extra(finalizers.begin(), finalizers.end());
    for (const std::string& f : before) extra.erase(f);
    if (!extra.empty()) {
      errors.push_back(api::FieldError::Forbidden(
          "metadata.finalizers",
          "no new finalizers can be added if the object is being deleted, found new finalizers " +
              GoStringSlice({extra.begin(), extra.end()}, false)));
    }
  }
  const std::string uid(Str(Member(meta, "uid")));
  const std::string old_uid(Str(Member(old_meta, "uid")));
  if (!uid.empty() && uid != old_uid) {
    errors.push_back(api::FieldError::Invalid("metadata.uid", uid, "field is immutable"));
  }
  ValidateCommon(meta, &errors);
  ValidateKubeFinalizerNames(finalizers, &errors);
  return errors;
}

}  // namespace tidepool::apiserver::validation
