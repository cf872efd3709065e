#include "apiserver/crd/strategy.h"

#include <algorithm>
#include <set>

#include "api/name_validation.h"
#include "apiserver/crd/jsonpath.h"
#include "apiserver/crd/registry.h"
#include "apiserver/crd/structural.h"
#include "apiserver/json_members.h"

namespace tidepool::apiserver::crd {

using api::FieldError;
using api::FieldErrors;
using nlohmann::json;

namespace {

// j[key] when it is an object, else an empty one (a definition of the wrong shape is refused by
// validation, never read with a throwing accessor).
json Obj(const json& j, const char* key) {
  const json* v = Member(j, key);
  return v != nullptr && v->is_object() ? *v : json::object();
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string StorageVersion(const json& spec) {
  if (const json* vs = Member(spec, "versions"); vs != nullptr && vs->is_array()) {
    for (const json& v : *vs) {
      if (const json* s = Member(v, "storage"); s != nullptr && s->is_boolean() && s->get<bool>()) {
        return Str(v, "name");
      }
    }
  }
  return "";
}

json Condition(const std::string& type, const std::string& reason, const std::string& message,
               const std::string& now) {
  return {{"type", type},
          {"status", "True"},
          {"lastTransitionTime", now},
          {"reason", reason},
          {"message", message}};
}

// The names the naming controller accepts: spec.names as defaulted.
json AcceptedNames(const json& spec) {
  const json* names = Member(spec, "names");
  return names != nullptr && names->is_object() ? *names : json::object();
}

void AddStoredVersion(json& status, const json& spec) {
  const std::string storage = StorageVersion(spec);
  if (storage.empty()) return;
  json& stored = status["storedVersions"];
  if (!stored.is_array()) stored = json::array();
  for (const json& v : stored) {
    if (v == storage) return;
  }
  stored.push_back(storage);
}

void ValidateNames(const json& names, const std::string& path, FieldErrors* errs) {
  auto label = [&](const char* key, bool required) {
    const std::string v = Str(names, key);
    if (v.empty()) {
      if (required) errs->push_back(FieldError::Required(path + "." + key, ""));
      return;
    }
    for (const std::string& msg : api::IsDns1035Label(v)) {
      errs->push_back(FieldError::Invalid(path + "." + key, v, msg));
    }
  };
  label("plural", true);
  label("singular", false);
  for (const char* key : {"kind", "listKind"}) {
    const std::string v = Str(names, key);
    if (v.empty()) {
      errs->push_back(FieldError::Required(path + "." + key, ""));
    } else {
      for (const std::string& msg : api::IsDns1035Label(Lower(v))) {
        errs->push_back(FieldError::Invalid(
            path + "." + key, v, "may have mixed case, but should otherwise match: " + msg));
      }
    }
  }
  if (!Str(names, "kind").empty() && Str(names, "kind") == Str(names, "listKind")) {
    errs->push_back(FieldError::Invalid(path + ".listKind", Str(names, "listKind"),
                                        "kind and listKind may not be the same"));
  }
  if (const json* sn = Member(names, "shortNames"); sn != nullptr && sn->is_array()) {
    for (size_t i = 0; i < sn->size(); ++i) {
      if (!(*sn)[i].is_string()) continue;
      for (const std::string& msg : api::IsDns1035Label((*sn)[i].get<std::string>())) {
        errs->push_back(FieldError::Invalid(path + ".shortNames[" + std::to_string(i) + "]",
                                            (*sn)[i].get<std::string>(), msg));
      }
    }
  }
  if (const json* cs = Member(names, "categories"); cs != nullptr && cs->is_array()) {
    for (size_t i = 0; i < cs->size(); ++i) {
      if (!(*cs)[i].is_string()) continue;
      for (const std::string& msg : api::IsDns1035Label((*cs)[i].get<std::string>())) {
        errs->push_back(FieldError::Invalid(path + ".categories[" + std::to_string(i) + "]",
                                            (*cs)[i].get<std::string>(), msg));
      }
    }
  }
}

void ValidateColumns(const json& cols, const std::string& path, FieldErrors* errs) {
  if (!cols.is_array()) return;
  for (size_t i = 0; i < cols.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    const json& c = cols[i];
    if (Str(c, "name").empty()) errs->push_back(FieldError::Required(p + ".name", ""));
    const std::string type = Str(c, "type");
    static const std::set<std::string> kTypes = {"boolean", "date", "integer", "number", "string"};
    constexpr char kTypeList[] = "must be one of boolean,date,integer,number,string";
    if (type.empty()) {
      errs->push_back(FieldError::Required(p + ".type", kTypeList));
    } else if (kTypes.count(type) == 0) {
      errs->push_back(FieldError::Invalid(p + ".type", type, kTypeList));
    }
    const std::string format = Str(c, "format");
    static const std::set<std::string> kFormats = {"byte",  "date",  "date-time", "double",
                                                   "float", "int32", "int64",     "password"};
    if (!format.empty() && kFormats.count(format) == 0) {
      errs->push_back(FieldError::Invalid(
          p + ".format", format,
          "must be one of byte,date,date-time,double,float,int32,int64,password"));
    }
    // The internal type's field is JSONPath: kube's path says so.
    const std::string jp = Str(c, "jsonPath");
    if (jp.empty()) {
      errs->push_back(FieldError::Required(p + ".JSONPath", ""));
    } else if (!JsonPath::Parse(jp).ok()) {
      errs->push_back(
          FieldError::Invalid(p + ".JSONPath", jp, "must be a simple json path starting with ."));
    }
  }
}

// apiextensions validates its internal version, into which v1 converts per-version fields
// that every version has alike to the top of the spec: their errors then say
// spec.validation.openAPIV3Schema... and spec.additionalPrinterColumns[i]...
bool AllAlike(const json& versions, const char* key) {
  if (!versions.is_array() || versions.empty()) return false;
  const json* first = Member(versions[0], key);
  for (const json& v : versions) {
    const json* other = Member(v, key);
    if ((first == nullptr) != (other == nullptr) || (first != nullptr && *first != *other)) {
      return false;
    }
  }
  return true;
}

void ValidateVersions(const json& spec, FieldErrors* errs) {
  const json* vs = Member(spec, "versions");
  if (vs == nullptr || !vs->is_array() || vs->empty()) {
    errs->push_back(FieldError::Invalid("spec.versions", "null",
                                        "must have exactly one version marked as storage "
                                        "version"));
    return;
  }
  int storage = 0;
  std::set<std::string> seen;
  for (size_t i = 0; i < vs->size(); ++i) {
    const json& v = (*vs)[i];
    const std::string p = "spec.versions[" + std::to_string(i) + "]";
    const std::string name = Str(v, "name");
    if (name.empty()) {
      errs->push_back(FieldError::Required(p + ".name", ""));
    } else {
      for (const std::string& msg : api::IsDns1035Label(name)) {
        errs->push_back(FieldError::Invalid(p + ".name", name, msg));
      }
      if (!seen.insert(name).second) errs->push_back(FieldError::Duplicate(p + ".name", name));
    }
    if (const json* s = Member(v, "storage"); s != nullptr && s->is_boolean() && s->get<bool>()) {
      ++storage;
    }
    const json* schema = nullptr;
    if (const json* s = Member(v, "schema")) schema = Member(*s, "openAPIV3Schema");
    const bool hoisted_schema = AllAlike(*vs, "schema");
    const std::string sp =
        hoisted_schema ? "spec.validation.openAPIV3Schema" : p + ".schema.openAPIV3Schema";
    if (hoisted_schema && i > 0) {
      // Checked once, as the hoisted schema.
    } else if (schema == nullptr || schema->is_null()) {
      errs->push_back(FieldError::Required(p + ".schema.openAPIV3Schema", "schemas are required"));
    } else {
      auto parsed = Schema::Parse(*schema);
      if (!parsed.ok()) {
        errs->push_back(FieldError::Invalid(sp, "", std::string(parsed.status().message())));
      } else {
        for (FieldError& e : parsed->CheckStructural(sp)) errs->push_back(std::move(e));
      }
    }
    if (const json* subs = Member(v, "subresources")) {
      if (const json* scale = Member(*subs, "scale"); scale != nullptr && scale->is_object()) {
        const std::string sp =
            (AllAlike(*vs, "subresources") ? std::string("spec") : p) + ".subresources.scale";
        auto under = [&](const char* key, bool required, const char* root, const char* what) {
          const std::string path = Str(*scale, key);
          if (path.empty()) {
            if (required) errs->push_back(FieldError::Required(sp + "." + key, ""));
            return;
          }
          bool ok = false;
          for (const char* r : {"spec", "status"}) {
            if ((std::string_view(root) == r || std::string_view(root) == "either") &&
                path.rfind(std::string(".") + r + ".", 0) == 0) {
              ok = true;
            }
          }
          if (!ok || !JsonPath::Parse(path).ok()) {
            errs->push_back(FieldError::Invalid(
                sp + "." + key, path, std::string("should be a json path under ") + what));
          }
        };
        under("specReplicasPath", true, "spec", ".spec");
        under("statusReplicasPath", true, "status", ".status");
        under("labelSelectorPath", false, "either", "either .spec or .status");
      }
    }
    const bool hoisted_columns = AllAlike(*vs, "additionalPrinterColumns");
    if (const json* cols = Member(v, "additionalPrinterColumns");
        cols && !(hoisted_columns && i > 0)) {
      ValidateColumns(
          *cols, (hoisted_columns ? std::string("spec") : p) + ".additionalPrinterColumns", errs);
    }
  }
  if (storage != 1) {
    errs->push_back(FieldError::InvalidRaw("spec.versions",
                                           "[]apiextensions.CustomResourceDefinitionVersion{...}",
                                           "must have exactly one version marked as storage "
                                           "version"));
  }
}

const Schema* SchemaOf(const Resource& r) {
  return r.custom != nullptr ? r.custom->schema.get() : nullptr;
}

}  // namespace

bool IsDefinition(const Resource& r) {
  return r.group == "apiextensions.k8s.io" && r.resource == "customresourcedefinitions";
}

void DefaultDefinition(json& crd) {
  if (!crd.is_object()) return;
  json& spec = crd["spec"];
  if (!spec.is_object()) return;
  json& conversion = spec["conversion"];
  if (!conversion.is_object()) conversion = json::object();
  if (!conversion.contains("strategy")) conversion["strategy"] = "None";
  json& names = spec["names"];
  if (!names.is_object()) names = json::object();
  const std::string kind = Str(names, "kind");
  if (Str(names, "singular").empty() && !kind.empty()) names["singular"] = Lower(kind);
  if (Str(names, "listKind").empty() && !kind.empty()) names["listKind"] = kind + "List";
  if (crd.contains("status") && crd["status"].is_object()) {
    AddStoredVersion(crd["status"], spec);
  }
}

void PrepareDefinitionForCreate(json& crd) {
  if (!crd.is_object()) return;
  const json spec = Obj(crd, "spec");
  const std::string now = Str(crd["metadata"], "creationTimestamp");
  json status = json::object();
  status["acceptedNames"] = AcceptedNames(spec);
  status["conditions"] =
      json::array({Condition("NamesAccepted", "NoConflicts", "no conflicts found", now),
                   Condition("Established", "InitialNamesAccepted",
                             "the initial names have been accepted", now)});
  AddStoredVersion(status, spec);
  crd["status"] = status;
}

void PrepareDefinitionForUpdate(json& crd, const json& old) {
  if (!crd.is_object()) return;
  json status = old.is_object() && old.contains("status") ? old["status"] : json::object();
  if (!status.is_object()) status = json::object();
  status["acceptedNames"] = AcceptedNames(Obj(crd, "spec"));
  AddStoredVersion(status, Obj(crd, "spec"));
  crd["status"] = status;
}

FieldErrors ValidateDefinition(const json& crd, const json* old) {
  FieldErrors errs;
  const json spec = Obj(crd, "spec");
  const std::string name = Str(Obj(crd, "metadata"), "name");
  const std::string group = Str(spec, "group");
  const json names = Obj(spec, "names");
  const std::string plural = Str(names, "plural");
  if (name != plural + "." + group) {
    errs.push_back(
        FieldError::Invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
  }
  if (group.empty()) {
    errs.push_back(FieldError::Required("spec.group", ""));
  } else if (group.find('.') == std::string::npos) {
    errs.push_back(
        FieldError::Invalid("spec.group", group, "should be a domain with at least one dot"));
  } else {
    for (const std::string& msg : api::IsDns1123Subdomain(group)) {
      errs.push_back(FieldError::Invalid("spec.group", group, msg));
    }
  }
  const std::string scope = Str(spec, "scope");
  if (scope.empty()) {
    errs.push_back(FieldError::Required("spec.scope", ""));
  } else if (scope != "Cluster" && scope != "Namespaced") {
    errs.push_back(FieldError::NotSupported("spec.scope", scope, {"Cluster", "Namespaced"}));
  }
  ValidateNames(names, "spec.names", &errs);
  ValidateVersions(spec, &errs);
  const std::string strategy = Str(Obj(spec, "conversion"), "strategy");
  if (!strategy.empty() && strategy != "None" && strategy != "Webhook") {
    errs.push_back(
        FieldError::NotSupported("spec.conversion.strategy", strategy, {"None", "Webhook"}));
  }
  if (old != nullptr) {
    const json old_spec = Obj(*old, "spec");
    if (Str(old_spec, "scope") != scope && !scope.empty()) {
      errs.push_back(FieldError::Invalid("spec.scope", scope, "field is immutable"));
    }
  }
  return errs;
}

std::vector<std::string> Prune(const Resource& r, json& object) {
  const Schema* s = SchemaOf(r);
  std::vector<std::string> dropped = s != nullptr ? s->Prune(object) : std::vector<std::string>{};
  std::sort(dropped.begin(), dropped.end());  // kube reports them sorted
  return dropped;
}

std::vector<std::string> UnknownFields(const Resource& r, const json& object) {
  json copy = object;
  return Prune(r, copy);
}

void DefaultCustom(const Resource& r, json& object) {
  if (const Schema* s = SchemaOf(r)) s->Default(object);
}

FieldErrors ValidateCustom(const Resource& r, const json& object) {
  const Schema* s = SchemaOf(r);
  return s != nullptr ? s->Validate(object, r.custom->has_status) : FieldErrors{};
}

void PrepareCustomForCreate(const Resource& r, json& object) {
  if (r.custom != nullptr && r.custom->has_status && object.is_object()) object.erase("status");
}

void PrepareCustomForUpdate(const Resource& r, json& object, const json& old) {
  if (r.custom == nullptr || !r.custom->has_status || !object.is_object()) return;
  if (old.is_object() && old.contains("status")) {
    object["status"] = old["status"];
  } else {
    object.erase("status");
  }
}

}  // namespace tidepool::apiserver::crd
