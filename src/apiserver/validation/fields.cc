#include "apiserver/validation/fields.h"

#include <cmath>

#include "common/go_quote.h"

namespace tidepool::apiserver::validation {

const json* Member(const json* obj, std::string_view key) {
  if (obj == nullptr || !obj->is_object()) return nullptr;
  auto it = obj->find(key);
  if (it == obj->end() || it->is_null()) return nullptr;
  return &*it;
}

const json* Member(const json& obj, std::string_view key) { return Member(&obj, key); }

const json* At(const json& obj, std::initializer_list<std::string_view> keys) {
  const json* cur = &obj;
  for (std::string_view k : keys) {
    cur = Member(cur, k);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

std::string_view Str(const json* v) {
  return v != nullptr && v->is_string() ? std::string_view(v->get_ref<const std::string&>())
                                        : std::string_view();
}

std::optional<int64_t> Int(const json* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_float()) {
    const double d = v->get<double>();
    // In int64's range before the cast (1e300 would be undefined behaviour).
    if (d >= -9.2e18 && d <= 9.2e18 && d == std::trunc(d)) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

bool IsTrue(const json* v) { return v != nullptr && v->is_boolean() && v->get<bool>(); }

api::Labels StringMap(const json* v) {
  api::Labels out;
  if (v == nullptr || !v->is_object()) return out;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (it->is_string()) out.emplace(it.key(), it->get<std::string>());
  }
  return out;
}

std::string GoStringMap(const json* v) {
  if (v == nullptr || !v->is_object()) return "map[string]string(nil)";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [k, val] : StringMap(v)) {
    if (!first) out += ", ";
    first = false;
    out += GoQuote(k) + ":" + GoQuote(val);
  }
  return out + "}";
}

std::string GoStringSlice(const std::vector<std::string>& v, bool nil_when_empty) {
  if (v.empty() && nil_when_empty) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(v[i]);
  }
  return out + "}";
}

std::vector<std::string> Strings(const json* v) {
  std::vector<std::string> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const json& s : *v) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

std::string GoLabelSelector(const json* selector) {
  std::string out = "v1.LabelSelector{MatchLabels:" + GoStringMap(Member(selector, "matchLabels")) +
                    ", MatchExpressions:";
  const json* exprs = Member(selector, "matchExpressions");
  if (exprs == nullptr || !exprs->is_array()) {
    out += "[]v1.LabelSelectorRequirement(nil)";
  } else {
    out += "[]v1.LabelSelectorRequirement{";
    for (size_t i = 0; i < exprs->size(); ++i) {
      const json& e = (*exprs)[i];
      if (i > 0) out += ", ";
      const json* values = Member(e, "values");
      out += "v1.LabelSelectorRequirement{Key:" + GoQuote(Str(Member(e, "key"))) +
             ", Operator:" + GoQuote(Str(Member(e, "operator"))) + ", Values:" +
             GoStringSlice(Strings(values), values == nullptr) + "}";
    }
    out += "}";
  }
  return out + "}";
}

std::string GoIntOrString(const json& v) {
  if (v.is_string()) {
    return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + GoQuote(v.get<std::string>()) + "}";
  }
  const std::optional<int64_t> i = Int(&v);
  return "intstr.IntOrString{Type:0, IntVal:" + std::to_string(i.value_or(0)) + ", StrVal:\"\"}";
}

std::string GoPointer(std::string_view type, bool set) {
  return "(*" + std::string(type) + ")(" + (set ? "0xc000010000" : "nil") + ")";
}

namespace {

// Adds v's compact JSON size to *size; false once *size is over `limit`.
bool AddEncodedSize(const json& v, size_t limit, size_t* size) {
  switch (v.type()) {
    case json::value_t::object:
      *size += 2 + (v.size() > 0 ? v.size() - 1 : 0);  // {} and commas
      for (auto it = v.begin(); it != v.end(); ++it) {
        *size += it.key().size() + 3;  // "key":
        if (!AddEncodedSize(*it, limit, size)) return false;
      }
      break;
    case json::value_t::array:
      *size += 2 + (v.size() > 0 ? v.size() - 1 : 0);
      for (const json& e : v) {
        if (!AddEncodedSize(e, limit, size)) return false;
      }
      break;
    case json::value_t::string:
      *size += v.get_ref<const std::string&>().size() + 2;
      break;
    case json::value_t::number_float:
      *size += 24;
      break;
    default:  // integers, booleans, null: at most 20 characters
      *size += v.is_number() ? std::to_string(v.get<int64_t>()).size() : 5;
      break;
  }
  return *size <= limit;
}

}  // namespace

bool EncodedSizeOver(const json& v, size_t limit) {
  size_t size = 0;
  return !AddEncodedSize(v, limit, &size);
}

void NonNegative(const json* v, const std::string& path, api::FieldErrors* errors) {
  const std::optional<int64_t> i = Int(v);
  if (i && *i < 0) {
    errors->push_back(
        api::FieldError::InvalidRaw(path, std::to_string(*i), "must be greater than or equal to 0"));
  }
}

void Append(api::FieldErrors from, api::FieldErrors* errors) {
  for (api::FieldError& e : from) errors->push_back(std::move(e));
}

void AppendPrefixed(api::FieldErrors from, std::string_view prefix, api::FieldErrors* errors) {
  for (api::FieldError& e : from) {
    e.field = std::string(prefix) + e.field;
    errors->push_back(std::move(e));
  }
}

std::vector<std::string> PortNumErrors(int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

std::vector<std::string> PortNameErrors(std::string_view name) {
  std::vector<std::string> errs;
  if (name.size() > 15) errs.push_back("must be no more than 15 characters");
  bool charset = !name.empty(), letter = false;
  for (char c : name) {
    charset = charset && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
    letter = letter || (c >= 'a' && c <= 'z');
  }
  if (!charset) {
    errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (!letter) errs.push_back("must contain at least one letter (a-z)");
  if (name.find("--") != std::string_view::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!name.empty() && (name.front() == '-' || name.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

}  // namespace tidepool::apiserver::validation
