#include "apiserver/crd/structural.h"

#include <re2/re2.h>

#include <cmath>
#include <set>

#include "apiserver/json_io.h"
#include "common/clock.h"

namespace tidepool::apiserver::crd {

using api::FieldError;
using api::FieldErrors;
using nlohmann::json;

struct Schema::Node {
  std::string type;  // "", object, array, string, integer, number, boolean
  std::string format;
  std::string description;
  bool nullable = false;
  bool preserve_unknown = false;
  bool int_or_string = false;
  bool embedded_resource = false;
  std::map<std::string, std::unique_ptr<Node>> properties;
  std::unique_ptr<Node> items;
  // additionalProperties: absent (allowed_additional false, additional null), true, or a schema.
  bool additional_allowed = false;
  std::unique_ptr<Node> additional;
  std::vector<std::string> required;
  std::optional<json> default_value;
  std::vector<json> enum_values;
  std::optional<double> minimum, maximum, multiple_of;
  bool exclusive_minimum = false, exclusive_maximum = false;
  std::optional<int64_t> min_length, max_length, min_items, max_items, min_properties,
      max_properties;
  bool unique_items = false;
  std::string pattern;
  std::unique_ptr<re2::RE2> pattern_re;
  std::vector<std::unique_ptr<Node>> all_of, any_of, one_of;
  std::unique_ptr<Node> not_;
  // Problems found while parsing (a pattern that does not compile), reported by
  // CheckStructural at the member's path relative to this node.
  std::vector<std::pair<std::string, std::string>> parse_problems;  // member, detail
};

namespace {

using Node = Schema::Node;

std::string Render(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return json_io::Dump(v);
}

// A Go %v rendering of a number for messages: integers as they are, floats without a
// trailing ".0" when integral (Go prints float64(5) as 5).
std::string Num(double d) {
  if (std::floor(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
  std::string s = json(d).dump();
  return s;
}

StatusOr<std::unique_ptr<Node>> ParseNode(const json& j, const std::string& where);

Status Bad(const std::string& where, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, where + ": " + what);
}

StatusOr<std::vector<std::unique_ptr<Node>>> ParseList(const json& j, const std::string& where) {
  if (!j.is_array()) return Bad(where, "must be an array of schemas");
  std::vector<std::unique_ptr<Node>> out;
  for (size_t i = 0; i < j.size(); ++i) {
    TIDEPOOL_ASSIGN_OR_RETURN(auto n, ParseNode(j[i], where + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(n));
  }
  return out;
}

template <typename T>
bool ReadNumber(const json& j, const char* key, std::optional<T>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_number()) return false;
  *out = it->get<T>();
  return true;
}

StatusOr<std::unique_ptr<Node>> ParseNode(const json& j, const std::string& where) {
  if (!j.is_object()) return Bad(where, "must be a schema object");
  auto n = std::make_unique<Node>();
  auto str = [&](const char* key, std::string* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::Ok();
    if (!it->is_string()) return Bad(where + "." + key, "must be a string");
    *out = it->get<std::string>();
    return Status::Ok();
  };
  auto flag = [&](const char* key, bool* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::Ok();
    if (!it->is_boolean()) return Bad(where + "." + key, "must be a boolean");
    *out = it->get<bool>();
    return Status::Ok();
  };
  TIDEPOOL_RETURN_IF_ERROR(str("type", &n->type));
  TIDEPOOL_RETURN_IF_ERROR(str("format", &n->format));
  TIDEPOOL_RETURN_IF_ERROR(str("description", &n->description));
  TIDEPOOL_RETURN_IF_ERROR(str("pattern", &n->pattern));
  TIDEPOOL_RETURN_IF_ERROR(flag("nullable", &n->nullable));
  TIDEPOOL_RETURN_IF_ERROR(flag("x-kubernetes-preserve-unknown-fields", &n->preserve_unknown));
  TIDEPOOL_RETURN_IF_ERROR(flag("x-kubernetes-int-or-string", &n->int_or_string));
  TIDEPOOL_RETURN_IF_ERROR(flag("x-kubernetes-embedded-resource", &n->embedded_resource));
  TIDEPOOL_RETURN_IF_ERROR(flag("exclusiveMinimum", &n->exclusive_minimum));
  TIDEPOOL_RETURN_IF_ERROR(flag("exclusiveMaximum", &n->exclusive_maximum));
  TIDEPOOL_RETURN_IF_ERROR(flag("uniqueItems", &n->unique_items));
  if (!ReadNumber(j, "minimum", &n->minimum) || !ReadNumber(j, "maximum", &n->maximum) ||
      !ReadNumber(j, "multipleOf", &n->multiple_of) ||
      !ReadNumber(j, "minLength", &n->min_length) || !ReadNumber(j, "maxLength", &n->max_length) ||
      !ReadNumber(j, "minItems", &n->min_items) || !ReadNumber(j, "maxItems", &n->max_items) ||
      !ReadNumber(j, "minProperties", &n->min_properties) ||
      !ReadNumber(j, "maxProperties", &n->max_properties)) {
    return Bad(where, "a numeric bound is not a number");
  }
  if (auto it = j.find("default"); it != j.end()) n->default_value = *it;
  if (auto it = j.find("enum"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return Bad(where + ".enum", "must be an array");
    n->enum_values.assign(it->begin(), it->end());
  }
  if (auto it = j.find("required"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return Bad(where + ".required", "must be an array of strings");
    for (const json& r : *it) {
      if (!r.is_string()) return Bad(where + ".required", "must be an array of strings");
      n->required.push_back(r.get<std::string>());
    }
  }
  if (auto it = j.find("properties"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return Bad(where + ".properties", "must be an object");
    for (auto p = it->begin(); p != it->end(); ++p) {
      TIDEPOOL_ASSIGN_OR_RETURN(auto child,
                                ParseNode(p.value(), where + ".properties[" + p.key() + "]"));
      n->properties[p.key()] = std::move(child);
    }
  }
  if (auto it = j.find("items"); it != j.end() && !it->is_null()) {
    if (it->is_array()) {
      n->parse_problems.push_back({"items", "items must be a schema object and not an array"});
    } else {
      TIDEPOOL_ASSIGN_OR_RETURN(n->items, ParseNode(*it, where + ".items"));
    }
  }
  if (auto it = j.find("additionalProperties"); it != j.end() && !it->is_null()) {
    if (it->is_boolean()) {
      n->additional_allowed = it->get<bool>();
    } else {
      TIDEPOOL_ASSIGN_OR_RETURN(n->additional, ParseNode(*it, where + ".additionalProperties"));
      n->additional_allowed = true;
    }
  }
  for (auto [key, list] : {std::pair{"allOf", &n->all_of}, std::pair{"anyOf", &n->any_of},
                           std::pair{"oneOf", &n->one_of}}) {
    if (auto it = j.find(key); it != j.end() && !it->is_null()) {
      TIDEPOOL_ASSIGN_OR_RETURN(*list, ParseList(*it, where + "." + key));
    }
  }
  if (auto it = j.find("not"); it != j.end() && !it->is_null()) {
    TIDEPOOL_ASSIGN_OR_RETURN(n->not_, ParseNode(*it, where + ".not"));
  }
  if (!n->pattern.empty()) {
    RE2::Options opts;
    opts.set_log_errors(false);
    n->pattern_re = std::make_unique<re2::RE2>(n->pattern, opts);
    if (!n->pattern_re->ok()) {
      n->parse_problems.push_back(
          {"pattern", "must be a valid regular expression, but isn't: " + n->pattern_re->error()});
      n->pattern_re.reset();
    }
  }
  return n;
}

// ---- Structural checks ----------------------------------------------------------------------

// apiextensions' int-or-string pattern: anyOf: [{type: integer}, {type: string}], which a node
// with x-kubernetes-int-or-string may have (directly, or as its first allOf's anyOf) although
// value validations are otherwise typeless.
bool IntOrStringAnyOf(const std::vector<std::unique_ptr<Schema::Node>>& any_of) {
  return any_of.size() == 2 && any_of[0]->type == "integer" && any_of[1]->type == "string";
}

// `skip_any_of`: the node's anyOf is the int-or-string pattern of its parent (not checked).
void CheckNode(const Node& n, const std::string& path, bool root, bool value_validation,
               FieldErrors* errs, bool items = false, bool skip_any_of = false) {
  for (const auto& [member, detail] : n.parse_problems) {
    errs->push_back(FieldError::Forbidden(path + "." + member, detail));
  }
  const bool specifies_fields = !n.properties.empty() || n.additional != nullptr;
  if (!value_validation && n.type.empty() && !n.int_or_string && !n.preserve_unknown && !root) {
    errs->push_back(FieldError::Required(path + ".type",
                                         items ? "must not be empty for specified array items"
                                               : "must not be empty for specified object fields"));
  }
  if (root && !n.type.empty() && n.type != "object") {
    errs->push_back(FieldError::Invalid(path + ".type", n.type, "must be object at the root"));
  }
  if (root && n.type.empty() && !value_validation) {
    errs->push_back(FieldError::Required(path + ".type", "must not be empty at the root"));
  }
  if (root && n.additional != nullptr) {
    errs->push_back(
        FieldError::Forbidden(path + ".additionalProperties", "must not be used at the root"));
  }
  if (root && n.nullable) {
    errs->push_back(
        FieldError::Forbidden(path + ".nullable", "nullable cannot be true at the root"));
  }
  if (!n.type.empty() && n.type != "object" && n.type != "array" && n.type != "string" &&
      n.type != "integer" && n.type != "number" && n.type != "boolean") {
    errs->push_back(FieldError::NotSupported(
        path + ".type", n.type, {"array", "boolean", "integer", "number", "object", "string"}));
  }
  if (n.type == "array" && n.items == nullptr && !value_validation) {
    errs->push_back(FieldError::Required(path + ".items", "must be specified"));
  }
  if (n.unique_items) {
    errs->push_back(FieldError::Forbidden(path + ".uniqueItems",
                                          "uniqueItems cannot be set to true since the runtime "
                                          "complexity becomes quadratic"));
  }
  if (!n.properties.empty() && n.additional != nullptr) {
    errs->push_back(FieldError::Forbidden(path + ".additionalProperties",
                                          "additionalProperties and properties are mutual "
                                          "exclusive"));
  }
  if (specifies_fields && !n.type.empty() && n.type != "object") {
    errs->push_back(
        FieldError::Invalid(path + ".type", n.type, "must be object if properties are specified"));
  }
  if (value_validation &&
      (!n.type.empty() || n.default_value || !n.description.empty() || n.nullable)) {
    for (const char* member : {"type", "default", "description", "nullable"}) {
      const bool set = (std::string_view(member) == "type" && !n.type.empty()) ||
                       (std::string_view(member) == "default" && n.default_value) ||
                       (std::string_view(member) == "description" && !n.description.empty()) ||
                       (std::string_view(member) == "nullable" && n.nullable);
      if (set) {
        errs->push_back(
            FieldError::Forbidden(path + "." + member, "must be empty to be structural"));
      }
    }
  }
  for (const auto& [name, child] : n.properties) {
    CheckNode(*child, path + ".properties[" + name + "]", false, value_validation, errs);
  }
  if (n.items) CheckNode(*n.items, path + ".items", false, value_validation, errs, true);
  if (n.additional) {
    CheckNode(*n.additional, path + ".additionalProperties", false, value_validation, errs);
  }
  // kube's isIntOrStringAnyOfPattern / isIntOrStringAllOfPattern.
  const bool int_or_string_any_of = n.int_or_string && IntOrStringAnyOf(n.any_of);
  const bool int_or_string_all_of =
      n.int_or_string && !n.all_of.empty() && IntOrStringAnyOf(n.all_of[0]->any_of);
  for (auto [key, list] : {std::pair{"allOf", &n.all_of}, std::pair{"anyOf", &n.any_of},
                           std::pair{"oneOf", &n.one_of}}) {
    if (list == &n.any_of && (skip_any_of || int_or_string_any_of)) continue;
    for (size_t i = 0; i < list->size(); ++i) {
      CheckNode(*(*list)[i], path + "." + key + "[" + std::to_string(i) + "]", false, true, errs,
                false, list == &n.all_of && i == 0 && int_or_string_all_of);
    }
  }
  if (n.not_) CheckNode(*n.not_, path + ".not", false, true, errs);
}

// ---- Pruning --------------------------------------------------------------------------------

// ObjectMeta's JSON fields: what a custom resource's metadata keeps.
const std::set<std::string>& ObjectMetaFields() {
  static const std::set<std::string> kFields = {"annotations",
                                                "creationTimestamp",
                                                "deletionGracePeriodSeconds",
                                                "deletionTimestamp",
                                                "finalizers",
                                                "generateName",
                                                "generation",
                                                "labels",
                                                "managedFields",
                                                "name",
                                                "namespace",
                                                "ownerReferences",
                                                "resourceVersion",
                                                "selfLink",
                                                "uid"};
  return kFields;
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void PruneMeta(json& meta, const std::string& path, std::vector<std::string>* dropped) {
  if (!meta.is_object()) return;
  for (auto it = meta.begin(); it != meta.end();) {
    if (ObjectMetaFields().count(it.key()) == 0) {
      dropped->push_back(Join(path, it.key()));
      it = meta.erase(it);
    } else {
      ++it;
    }
  }
}

void PruneValue(json& v, const Node* n, const std::string& path, bool root,
                std::vector<std::string>* dropped) {
  if (n == nullptr) return;
  if (v.is_object()) {
    const bool embedded = root || n->embedded_resource;
    for (auto it = v.begin(); it != v.end();) {
      const std::string& key = it.key();
      if (embedded && (key == "apiVersion" || key == "kind")) {
        ++it;
        continue;
      }
      if (embedded && key == "metadata") {
        auto p = n->properties.find(key);
        if (!root && p != n->properties.end())
          PruneValue(it.value(), p->second.get(), Join(path, key), false, dropped);
        PruneMeta(it.value(), Join(path, key), dropped);
        ++it;
        continue;
      }
      auto p = n->properties.find(key);
      if (p != n->properties.end()) {
        PruneValue(it.value(), p->second.get(), Join(path, key), false, dropped);
        ++it;
      } else if (n->additional != nullptr) {
        PruneValue(it.value(), n->additional.get(), Join(path, key), false, dropped);
        ++it;
      } else if (n->additional_allowed || n->preserve_unknown) {
        ++it;
      } else {
        dropped->push_back(Join(path, key));
        it = v.erase(it);
      }
    }
  } else if (v.is_array() && n->items != nullptr) {
    for (size_t i = 0; i < v.size(); ++i) {
      PruneValue(v[i], n->items.get(), path + "[" + std::to_string(i) + "]", false, dropped);
    }
  }
}

// ---- Defaulting -----------------------------------------------------------------------------

void DefaultValue(json& v, const Node* n) {
  if (n == nullptr) return;
  if (v.is_object()) {
    for (const auto& [name, child] : n->properties) {
      if (!child->default_value) continue;
      auto it = v.find(name);
      if (it == v.end() || (it->is_null() && !child->nullable)) v[name] = *child->default_value;
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      auto p = n->properties.find(it.key());
      if (p != n->properties.end()) {
        DefaultValue(it.value(), p->second.get());
      } else if (n->additional != nullptr) {
        DefaultValue(it.value(), n->additional.get());
      }
    }
  } else if (v.is_array() && n->items != nullptr) {
    for (json& e : v) DefaultValue(e, n->items.get());
  }
}

// ---- Validation -----------------------------------------------------------------------------

// kube-openapi's name for a value's type in its messages.
std::string TypeName(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_string()) return "string";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  return "object";
}

bool IsIntegral(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d;
}

bool TypeMatches(const Node& n, const json& v) {
  if (n.int_or_string) return v.is_string() || IsIntegral(v);
  if (n.type.empty()) return true;
  if (n.type == "object") return v.is_object();
  if (n.type == "array") return v.is_array();
  if (n.type == "string") return v.is_string();
  if (n.type == "integer") return IsIntegral(v);
  if (n.type == "number") return v.is_number();
  if (n.type == "boolean") return v.is_boolean();
  return true;
}

// field.Error's rendering of a value: strings quoted (the FieldError does it), numbers and
// booleans as Go's %v, anything else as JSON.
FieldError InvalidValue(const std::string& path, const json& v, const std::string& detail) {
  if (v.is_string()) return FieldError::Invalid(path, v.get<std::string>(), detail);
  if (v.is_number_float()) return FieldError::InvalidRaw(path, Num(v.get<double>()), detail);
  return FieldError::InvalidRaw(path, json_io::Dump(v), detail);
}

size_t Utf8Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool ValidFormat(const std::string& format, const json& v) {
  // apiextensions strips the formats kube-openapi does not check for strings (int32, int64,
  // float, double...): only string formats are checked, and only these here.
  if (!v.is_string()) return true;
  const std::string& s = v.get_ref<const std::string&>();
  if (format == "date-time" || format == "datetime") return ParseRfc3339(s).ok();
  if (format == "date") {
    static const RE2 kDate("^\\d{4}-\\d{2}-\\d{2}$");
    return RE2::FullMatch(s, kDate);
  }
  if (format == "uuid") {
    static const RE2 kUuid(
        "^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
    return RE2::FullMatch(s, kUuid);
  }
  if (format == "byte") {
    static const RE2 kBase64("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$");
    return RE2::FullMatch(s, kBase64);
  }
  if (format == "ipv4") {
    static const RE2 kIpv4(
        "^((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)$");
    return RE2::FullMatch(s, kIpv4);
  }
  return true;  // formats kube-openapi does not check, or checks loosely
}

// One value against its schema node, in kube-openapi's order: type, the compositions,
// string (maxLength, minLength, pattern: the first that fails), format, number (multipleOf,
// minimum, maximum), array (items, minItems, maxItems), enum, object (maxProperties,
// minProperties, properties, required). `path` is the field error's path; `name` the path
// kube-openapi writes in its message (the same, but rooted where validation started: a
// status write validates status alone, so "replicas in body" for status.replicas).
void ValidateValue(const json& v, const Node& n, const std::string& path, const std::string& name,
                   FieldErrors* errs);

// Whether `v` passes `n` (for anyOf / oneOf / not).
bool Passes(const json& v, const Node& n) {
  FieldErrors e;
  ValidateValue(v, n, "", "", &e);
  return e.empty();
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

void ValidateString(const std::string& s, const Node& n, const std::string& path,
                    const std::string& in, FieldErrors* errs) {
  const auto len = static_cast<int64_t>(Utf8Length(s));
  if (n.max_length && len > *n.max_length) {
    errs->push_back(FieldError{FieldError::Type::kTooLong, path, "",
                               "may not be more than " + std::to_string(*n.max_length) +
                                   (*n.max_length == 1 ? " byte" : " bytes")});
  } else if (n.min_length && len < *n.min_length) {
    errs->push_back(FieldError::Invalid(
        path, s, in + " should be at least " + std::to_string(*n.min_length) + " chars long"));
  } else if (n.pattern_re && !RE2::PartialMatch(s, *n.pattern_re)) {
    errs->push_back(FieldError::Invalid(path, s, in + " should match '" + n.pattern + "'"));
  }
}

void ValidateNumber(const json& v, const Node& n, const std::string& path, const std::string& in,
                    FieldErrors* errs) {
  const double d = v.get<double>();
  if (n.multiple_of && *n.multiple_of > 0) {
    const double q = d / *n.multiple_of;
    if (std::fabs(q - std::round(q)) > 1e-9) {
      errs->push_back(
          InvalidValue(path, v, in + " should be a multiple of " + Num(*n.multiple_of)));
    }
  }
  if (n.minimum && (n.exclusive_minimum ? d <= *n.minimum : d < *n.minimum)) {
    errs->push_back(InvalidValue(path, v,
                                 in + " should be greater than " +
                                     (n.exclusive_minimum ? "" : "or equal to ") +
                                     Num(*n.minimum)));
  }
  if (n.maximum && (n.exclusive_maximum ? d >= *n.maximum : d > *n.maximum)) {
    errs->push_back(InvalidValue(path, v,
                                 in + " should be less than " +
                                     (n.exclusive_maximum ? "" : "or equal to ") +
                                     Num(*n.maximum)));
  }
}

void ValidateCompositions(const json& v, const Node& n, const std::string& path,
                          const std::string& name, FieldErrors* errs) {
  for (const auto& sub : n.all_of) ValidateValue(v, *sub, path, name, errs);
  // Not *Validation errors in kube-openapi: apiextensions reports them at the parent's path,
  // which is nil at the root of a custom resource ("<nil>").
  const std::string quoted = "\"" + name + "\"";
  if (!n.any_of.empty()) {
    bool any = false;
    for (const auto& sub : n.any_of) any = any || Passes(v, *sub);
    if (!any) {
      errs->push_back(
          FieldError::Invalid("<nil>", "", quoted + " must validate at least one schema (anyOf)"));
    }
  }
  if (!n.one_of.empty()) {
    int passing = 0;
    for (const auto& sub : n.one_of) passing += Passes(v, *sub) ? 1 : 0;
    if (passing != 1) {
      errs->push_back(FieldError::Invalid(
          "<nil>", "",
          quoted + " must validate one and only one schema (oneOf). " +
              (passing == 0 ? std::string("Found none valid")
                            : "Found " + std::to_string(passing) + " valid alternatives")));
    }
  }
  if (n.not_ && Passes(v, *n.not_)) {
    errs->push_back(
        FieldError::Invalid("<nil>", "", quoted + " must not validate the schema (not)"));
  }
}

void ValidateObject(const json& v, const Node& n, const std::string& path, const std::string& name,
                    const std::string& in, FieldErrors* errs) {
  const auto size = static_cast<int64_t>(v.size());
  if (n.max_properties && size > *n.max_properties) {
    errs->push_back(FieldError::TooMany(path, size, *n.max_properties));
  }
  if (n.min_properties && size < *n.min_properties) {
    errs->push_back(FieldError::InvalidRaw(
        path, std::to_string(size),
        in + " should have at least " + std::to_string(*n.min_properties) + " properties"));
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    auto p = n.properties.find(it.key());
    const Node* child = p != n.properties.end() ? p->second.get() : n.additional.get();
    if (child != nullptr) {
      ValidateValue(it.value(), *child, Join(path, it.key()), Join(name, it.key()), errs);
    }
  }
  for (const std::string& r : n.required) {
    if (!v.contains(r)) errs->push_back(FieldError::Required(Join(path, r), ""));
  }
}

void ValidateValue(const json& v, const Node& n, const std::string& path, const std::string& name,
                   FieldErrors* errs) {
  const std::string in = name.empty() ? "in body" : name + " in body";
  const std::string type = n.int_or_string ? "integer,string" : n.type;
  if (v.is_null()) {
    if (n.nullable || type.empty()) return;
    errs->push_back(
        FieldError::Invalid(path, "null", in + " must be of type " + type + ": \"null\""));
    return;
  }
  if (!TypeMatches(n, v)) {
    errs->push_back(FieldError::Invalid(
        path, TypeName(v), in + " must be of type " + type + ": \"" + TypeName(v) + "\""));
    return;
  }
  ValidateCompositions(v, n, path, name, errs);
  if (v.is_string()) ValidateString(v.get_ref<const std::string&>(), n, path, in, errs);
  if (!n.format.empty() && !ValidFormat(n.format, v)) {
    errs->push_back(InvalidValue(
        path, v, in + " must be of type " + n.format + ": \"" + v.get<std::string>() + "\""));
  }
  if (v.is_number()) ValidateNumber(v, n, path, in, errs);
  if (v.is_array()) {
    if (n.items) {
      for (size_t i = 0; i < v.size(); ++i) {
        ValidateValue(v[i], *n.items, Index(path, i), Index(name, i), errs);
      }
    }
    const auto size = static_cast<int64_t>(v.size());
    if (n.min_items && size < *n.min_items) {
      errs->push_back(FieldError::InvalidRaw(
          path, std::to_string(size),
          in + " should have at least " + std::to_string(*n.min_items) + " items"));
    }
    if (n.max_items && size > *n.max_items) {
      errs->push_back(FieldError::TooMany(path, size, *n.max_items));
    }
  }
  if (!n.enum_values.empty()) {
    bool found = false;
    for (const json& e : n.enum_values) found |= e == v;
    if (!found) {
      std::vector<std::string> supported;
      for (const json& e : n.enum_values) supported.push_back(Render(e));
      errs->push_back(v.is_string()
                          ? FieldError::NotSupported(path, v.get<std::string>(), supported)
                          : FieldError::NotSupportedRaw(path, Render(v), supported));
    }
  }
  if (v.is_object()) ValidateObject(v, n, path, name, in, errs);
}

// structuraldefaulting's PruneNonNullableNullsWithoutDefaults: a null member whose schema is
// neither nullable nor defaulted is removed before validation.
void DropNulls(json& v, const Node* n) {
  if (n == nullptr) return;
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      auto p = n->properties.find(it.key());
      const Node* child = p != n->properties.end() ? p->second.get() : n->additional.get();
      if (it->is_null() && child != nullptr && !child->nullable && !child->default_value) {
        it = v.erase(it);
        continue;
      }
      DropNulls(it.value(), child);
      ++it;
    }
  } else if (v.is_array() && n->items != nullptr) {
    for (json& e : v) DropNulls(e, n->items.get());
  }
}

}  // namespace

Schema::Schema() = default;
Schema::~Schema() = default;
Schema::Schema(Schema&&) noexcept = default;
Schema& Schema::operator=(Schema&&) noexcept = default;

StatusOr<Schema> Schema::Parse(const json& openapi_v3) {
  Schema s;
  TIDEPOOL_ASSIGN_OR_RETURN(s.root_, ParseNode(openapi_v3, "openAPIV3Schema"));
  s.raw_ = openapi_v3;
  return s;
}

FieldErrors Schema::CheckStructural(const std::string& path) const {
  FieldErrors errs;
  CheckNode(*root_, path, /*root=*/true, /*value_validation=*/false, &errs);
  if (auto it = root_->properties.find("metadata"); it != root_->properties.end()) {
    bool other = false;
    for (const auto& [name, child] : it->second->properties) {
      other |= name != "name" && name != "generateName";
    }
    if (other) {
      errs.push_back(FieldError::Forbidden(path + ".properties[metadata]",
                                           "must not specify anything other than name and "
                                           "generateName, but metadata is implicitly specified"));
    }
  }
  return errs;
}

std::vector<std::string> Schema::Prune(json& object) const {
  std::vector<std::string> dropped;
  PruneValue(object, root_.get(), "", /*root=*/true, &dropped);
  return dropped;
}

void Schema::Default(json& object) const {
  // metadata is ObjectMeta's, not the schema's.
  json meta;
  const bool had_meta = object.is_object() && object.contains("metadata");
  if (had_meta) meta = std::move(object["metadata"]);
  DefaultValue(object, root_.get());
  DropNulls(object, root_.get());
  if (had_meta) object["metadata"] = std::move(meta);
}

FieldErrors Schema::Validate(const json& object, bool status_rooted) const {
  FieldErrors errs;
  if (!object.is_object()) return errs;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key == "metadata" || key == "apiVersion" || key == "kind") continue;
    auto p = root_->properties.find(key);
    const Node* n = p != root_->properties.end() ? p->second.get() : root_->additional.get();
    if (n == nullptr) continue;
    ValidateValue(it.value(), *n, key, status_rooted && key == "status" ? "" : key, &errs);
  }
  for (const std::string& r : root_->required) {
    if (r != "metadata" && r != "apiVersion" && r != "kind" && !object.contains(r)) {
      errs.push_back(FieldError::Required(r, ""));
    }
  }
  return errs;
}

const json& Schema::raw() const { return raw_; }

const Schema::Node* Schema::Find(const std::vector<std::string>& path) const {
  const Node* n = root_.get();
  for (const std::string& p : path) {
    auto it = n->properties.find(p);
    if (it == n->properties.end()) return nullptr;
    n = it->second.get();
  }
  return n;
}

bool Schema::root_has_property(const std::string& name) const {
  return root_->properties.count(name) != 0;
}

}  // namespace tidepool::apiserver::crd
