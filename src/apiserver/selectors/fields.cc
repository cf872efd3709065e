// File: fields.cc
//
// Parsing follows apimachinery's fields/selector.go (splitTerms, splitTerm, UnescapeValue);
// the per-resource tables follow the field label conversion funcs of pkg/apis/core/v1,
// events/v1 and batch/v1 (conversion.go) and the registries' ToSelectableFields (strategy.go).
#include "apiserver/selectors/fields.h"

#include <algorithm>
#include <initializer_list>

#include <nlohmann/json.hpp>

#include "common/go_quote.h"

namespace tidepool::apiserver::selectors {
namespace {

using nlohmann::json;

// The value at `path`, or nullptr.
const json* Find(const json& o, std::initializer_list<const char*> path) {
  const json* cur = &o;
  for (const char* key : path) {
    if (!cur->is_object()) {
      return nullptr;
    }
    const auto it = cur->find(key);
    if (it == cur->end()) {
      return nullptr;
    }
    cur = &*it;
  }
  return cur;
}

// A string field; "" when missing or not a string.
std::string Str(const json& o, std::initializer_list<const char*> path) {
  const json* v = Find(o, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// A bool field as strconv.FormatBool; false when missing.
std::string Bool(const json& o, std::initializer_list<const char*> path) {
  const json* v = Find(o, path);
  return v != nullptr && v->is_boolean() && v->get<bool>() ? "true" : "false";
}

// An integer field as strconv.Itoa; 0 when missing.
std::string Int(const json& o, std::initializer_list<const char*> path) {
  const json* v = Find(o, path);
  if (v != nullptr && v->is_number_integer()) {
    return v->is_number_unsigned() ? std::to_string(v->get<uint64_t>())
                                   : std::to_string(v->get<int64_t>());
  }
  return "0";
}

using Value = std::optional<std::string>;

// generic.ObjectMetaFieldsSet; `namespaced` adds metadata.namespace.
Value MetaField(const json& o, std::string_view f, bool namespaced) {
  if (f == "metadata.name") {
    return Str(o, {"metadata", "name"});
  }
  if (namespaced && f == "metadata.namespace") {
    return Str(o, {"metadata", "namespace"});
  }
  return std::nullopt;
}

Value PodField(const json& o, std::string_view f) {
  if (f == "spec.nodeName" || f == "spec.host") return Str(o, {"spec", "nodeName"});
  if (f == "spec.restartPolicy") return Str(o, {"spec", "restartPolicy"});
  if (f == "spec.schedulerName") return Str(o, {"spec", "schedulerName"});
  if (f == "spec.serviceAccountName") return Str(o, {"spec", "serviceAccountName"});
  if (f == "spec.hostNetwork") return Bool(o, {"spec", "hostNetwork"});
  if (f == "status.phase") return Str(o, {"status", "phase"});
  if (f == "status.podIP") {
    const json* ips = Find(o, {"status", "podIPs"});
    if (ips != nullptr && ips->is_array() && !ips->empty()) {
      return Str((*ips)[0], {"ip"});
    }
    return Str(o, {"status", "podIP"});
  }
  if (f == "status.podIPs") return std::string();  // converted, but not in the field set
  if (f == "status.nominatedNodeName") return Str(o, {"status", "nominatedNodeName"});
  return MetaField(o, f, true);
}

Value NodeField(const json& o, std::string_view f) {
  if (f == "spec.unschedulable") return Bool(o, {"spec", "unschedulable"});
  return MetaField(o, f, false);
}

Value CoreEventField(const json& o, std::string_view f) {
  static constexpr std::pair<std::string_view, const char*> kInvolved[] = {
      {"involvedObject.kind", "kind"},
      {"involvedObject.namespace", "namespace"},
      {"involvedObject.name", "name"},
      {"involvedObject.uid", "uid"},
      {"involvedObject.apiVersion", "apiVersion"},
      {"involvedObject.resourceVersion", "resourceVersion"},
      {"involvedObject.fieldPath", "fieldPath"},
  };
  for (const auto& [name, key] : kInvolved) {
    if (f == name) return Str(o, {"involvedObject", key});
  }
  if (f == "reason") return Str(o, {"reason"});
  if (f == "reportingComponent") return Str(o, {"reportingComponent"});
  if (f == "source") {
    std::string source = Str(o, {"source", "component"});
    return source.empty() ? Str(o, {"reportingComponent"}) : source;
  }
  if (f == "type") return Str(o, {"type"});
  return MetaField(o, f, true);
}

// events.k8s.io/v1's names for the core field set, read from the stored (core) Event: kube
// converts the label (regarding.* is involvedObject.*, reportingController is
// reportingComponent) and selects on the one internal Event.
Value EventsV1EventField(const json& o, std::string_view f) {
  constexpr std::string_view kRegarding = "regarding.";
  if (f.substr(0, kRegarding.size()) == kRegarding) {
    return CoreEventField(o, "involvedObject." + std::string(f.substr(kRegarding.size())));
  }
  if (f == "reportingController") return CoreEventField(o, "reportingComponent");
  if (f.substr(0, std::string_view("involvedObject.").size()) == "involvedObject." ||
      f == "reportingComponent") {
    return std::nullopt;  // not an events.k8s.io name
  }
  return CoreEventField(o, f);
}

Value NamespaceField(const json& o, std::string_view f) {
  if (f == "status.phase") return Str(o, {"status", "phase"});
  return MetaField(o, f, false);
}

Value SecretField(const json& o, std::string_view f) {
  if (f == "type") return Str(o, {"type"});
  return MetaField(o, f, true);
}

Value ReplicationControllerField(const json& o, std::string_view f) {
  if (f == "status.replicas") return Int(o, {"status", "replicas"});
  return MetaField(o, f, true);
}

Value JobField(const json& o, std::string_view f) {
  if (f == "status.successful") return Int(o, {"status", "succeeded"});
  return MetaField(o, f, true);
}

// certificates/v1's: metadata.name and spec.signerName.
Value CsrField(const json& o, std::string_view f) {
  if (f == "spec.signerName") return Str(o, {"spec", "signerName"});
  return MetaField(o, f, false);
}

// DefaultMetaV1FieldSelectorConversion: both names for every resource; metadata.namespace of a
// cluster-scoped object is simply "".
Value DefaultField(const json& o, std::string_view f) { return MetaField(o, f, true); }

enum class ErrorStyle { kNotSupported, kJob, kDefault };

struct ResourceFields {
  Value (*value)(const json&, std::string_view);
  ErrorStyle error;
};

ResourceFields Lookup(std::string_view group, std::string_view resource) {
  if (group.empty()) {
    if (resource == "pods") return {PodField, ErrorStyle::kNotSupported};
    if (resource == "nodes") return {NodeField, ErrorStyle::kNotSupported};
    if (resource == "events") return {CoreEventField, ErrorStyle::kNotSupported};
    if (resource == "namespaces") return {NamespaceField, ErrorStyle::kNotSupported};
    if (resource == "secrets") return {SecretField, ErrorStyle::kNotSupported};
    if (resource == "replicationcontrollers") {
      return {ReplicationControllerField, ErrorStyle::kNotSupported};
    }
  } else if (group == "events.k8s.io" && resource == "events") {
    return {EventsV1EventField, ErrorStyle::kNotSupported};
  } else if (group == "batch" && resource == "jobs") {
    return {JobField, ErrorStyle::kJob};
  } else if (group == "certificates.k8s.io" && resource == "certificatesigningrequests") {
    return {CsrField, ErrorStyle::kNotSupported};
  }
  return {DefaultField, ErrorStyle::kDefault};
}

Status UnsupportedField(ErrorStyle style, std::string_view field) {
  switch (style) {
    case ErrorStyle::kNotSupported:
      return InvalidArgumentError("field label not supported: " + std::string(field));
    case ErrorStyle::kJob:
      return InvalidArgumentError("field label " + GoQuote(field) +
                                  " not supported for batchv1.Job");
    case ErrorStyle::kDefault:
      break;
  }
  return InvalidArgumentError(GoQuote(field) +
                              " is not a known field selector: only \"metadata.name\", "
                              "\"metadata.namespace\"");
}

// splitTerms: split at ',' unless escaped; the backslashes stay.
std::vector<std::string_view> SplitTerms(std::string_view s) {
  std::vector<std::string_view> terms;
  if (s.empty()) {
    return terms;
  }
  size_t start = 0;
  bool in_slash = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (in_slash) {
      in_slash = false;
    } else if (s[i] == '\\') {
      in_slash = true;
    } else if (s[i] == ',') {
      terms.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(s.substr(start));
  return terms;
}

// UnescapeValue. It works on runes, as Go's range over the string does: an invalid UTF-8
// byte becomes U+FFFD in the value (and in an invalid escape's text) when the value holds an
// escape or a ',' / '=' (otherwise Go returns the value untouched).
StatusOr<std::string> UnescapeValue(std::string_view s) {
  if (s.find_first_of("\\,=") == std::string_view::npos) {
    return std::string(s);
  }
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  bool in_slash = false;
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    const std::string_view rune = n == 0 ? kReplacement : s.substr(i, n);
    i += n == 0 ? 1 : n;
    if (in_slash) {
      if (rune != "\\" && rune != "," && rune != "=") {
        return InvalidArgumentError("invalid field selector: invalid escape sequence: \\" +
                                    std::string(rune));
      }
      out += rune;
      in_slash = false;
      continue;
    }
    if (rune == "\\") {
      in_slash = true;
    } else if (rune == "," || rune == "=") {
      return InvalidArgumentError("invalid field selector: unescaped character in value: " +
                                  std::to_string(static_cast<int>(rune[0])));
    } else {
      out += rune;
    }
  }
  if (in_slash) {
    return InvalidArgumentError("invalid field selector: invalid escape sequence: \\");
  }
  return out;
}

}  // namespace

StatusOr<FieldSelector> FieldSelector::Parse(std::string_view s) {
  std::vector<std::string_view> terms = SplitTerms(s);
  std::sort(terms.begin(), terms.end());
  FieldSelector sel;
  for (std::string_view term : terms) {
    if (term.empty()) {
      continue;
    }
    size_t at = std::string_view::npos;
    std::string_view op;
    for (size_t i = 0; i < term.size() && at == std::string_view::npos; ++i) {
      for (std::string_view candidate : {"!=", "==", "="}) {
        if (term.substr(i, candidate.size()) == candidate) {
          at = i;
          op = candidate;
          break;
        }
      }
    }
    if (at == std::string_view::npos) {
      return InvalidArgumentError("invalid selector: '" + std::string(s) + "'; can't understand '" +
                                  std::string(term) + "'");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(std::string value, UnescapeValue(term.substr(at + op.size())));
    sel.requirements_.push_back(FieldRequirement{
        std::string(term.substr(0, at)),
        op == "!=" ? FieldOperator::kNotEquals : FieldOperator::kEquals, std::move(value)});
  }
  return sel;
}

std::string FieldSelector::String() const {
  std::string out;
  for (const FieldRequirement& r : requirements_) {
    if (!out.empty()) {
      out += ",";
    }
    out += r.field + (r.op == FieldOperator::kNotEquals ? "!=" : "=") + r.value;
  }
  return out;
}

Status FieldSelector::Validate(std::string_view group, std::string_view resource) const {
  const ResourceFields rf = Lookup(group, resource);
  static const json kEmpty = json::object();
  for (const FieldRequirement& r : requirements_) {
    if (!rf.value(kEmpty, r.field).has_value()) {
      return UnsupportedField(rf.error, r.field);
    }
  }
  return OkStatus();
}

bool FieldSelector::Matches(std::string_view group, std::string_view resource,
                            const nlohmann::json& object) const {
  const ResourceFields rf = Lookup(group, resource);
  for (const FieldRequirement& r : requirements_) {
    const Value v = rf.value(object, r.field);
    if (!v.has_value()) {
      return false;
    }
    if ((*v == r.value) != (r.op == FieldOperator::kEquals)) {
      return false;
    }
  }
  return true;
}

std::optional<std::string> FieldValue(std::string_view group, std::string_view resource,
                                      const nlohmann::json& object, std::string_view field) {
  return Lookup(group, resource).value(object, field);
}

}  // namespace tidepool::apiserver::selectors
