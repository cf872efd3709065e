#include "apiserver/printers/internal.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "api/name_validation.h"
#include "api/quantity.h"

namespace tidepool::apiserver::printers::internal {

using nlohmann::json;

const char* const kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

const char* const kCreationTimestampDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";

Column NameColumn() { return {"Name", "string", "name", kNameDescription, 0}; }
Column AgeColumn() { return {"Age", "string", "", kCreationTimestampDescription, 0}; }

// ---- Lenient JSON access -------------------------------------------------------------------

const json* Field(const json* j, std::string_view key) {
  if (j == nullptr || !j->is_object()) {
    return nullptr;
  }
  auto it = j->find(key);
  if (it == j->end()) {
    return nullptr;
  }
  return &*it;
}

const json* Field(const json& j, std::string_view key) { return Field(&j, key); }

std::string Str(const json* j) {
  if (j == nullptr || !j->is_string()) {
    return "";
  }
  return j->get_ref<const std::string&>();
}

int64_t Int(const json* j, int64_t def) {
  if (j == nullptr) {
    return def;
  }
  if (j->is_number_unsigned()) {  // before is_number_integer(), which is also true here
    uint64_t u = j->get<uint64_t>();
    return u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(u);
  }
  if (j->is_number_integer()) {
    return j->get<int64_t>();
  }
  if (j->is_number_float()) {
    double d = j->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
      return static_cast<int64_t>(d);
    }
  }
  return def;
}

int64_t Int32(const json* j) {
  const int64_t v = Int(j);
  return v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max() ? 0 : v;
}

bool IsNumber(const json* j) { return j != nullptr && j->is_number(); }

bool Bool(const json* j) { return j != nullptr && j->is_boolean() && j->get<bool>(); }

bool NonEmptyArray(const json* j) { return j != nullptr && j->is_array() && !j->empty(); }

int64_t Size(const json* j) {
  if (j == nullptr || !(j->is_array() || j->is_object())) {
    return 0;
  }
  return static_cast<int64_t>(j->size());
}

const json* FirstOfType(const json* list, std::string_view type) {
  if (list == nullptr || !list->is_array()) {
    return nullptr;
  }
  for (const json& e : *list) {
    if (Str(Field(e, "type")) == type) {
      return &e;
    }
  }
  return nullptr;
}

// ---- Time ------------------------------------------------------------------------------------

namespace {

// Go's zero time.Time, 0001-01-01T00:00:00Z, in Unix seconds.
constexpr int64_t kGoZeroUnixSeconds = -62135596800;

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) {
    return false;
  }
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return false;
    }
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) {
    --q;
  }
  return q;
}

}  // namespace

std::optional<Timestamp> ParseRfc3339(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.fffffffff](Z|+HH:MM|-HH:MM)
  int year, month, day, hour, minute, second;
  if (!Digits(s, 0, 4, &year) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, &month) ||
      s[7] != '-' || !Digits(s, 8, 2, &day) || s[10] != 'T' || !Digits(s, 11, 2, &hour) ||
      s[13] != ':' || !Digits(s, 14, 2, &minute) || s[16] != ':' || !Digits(s, 17, 2, &second)) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t nanos = 0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    size_t start = pos;
    int64_t scale = 100000000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      nanos += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) {
      return std::nullopt;
    }
  }
  int64_t offset_seconds = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!Digits(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, &om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_seconds = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) {
    return std::nullopt;
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year{year},
                                        std::chrono::month{static_cast<unsigned>(month)},
                                        std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) {
    return std::nullopt;
  }
  const int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  Timestamp t;
  t.unix_seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  t.nanos = static_cast<int32_t>(nanos);
  return t;
}

std::optional<TimePoint> TimeField(const json* j) {
  if (j == nullptr || !j->is_string()) {
    return std::nullopt;
  }
  auto t = ParseRfc3339(j->get_ref<const std::string&>());
  if (!t.has_value() || (t->unix_seconds == kGoZeroUnixSeconds && t->nanos == 0)) {
    return std::nullopt;
  }
  // TimePoint counts int64 nanoseconds: years 1678 to 2262.
  constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000000000 - 1;
  if (t->unix_seconds > kMaxSeconds || t->unix_seconds < -kMaxSeconds) {
    return std::nullopt;
  }
  return TimePoint(std::chrono::seconds(t->unix_seconds)) + std::chrono::nanoseconds(t->nanos);
}

Duration Elapsed(TimePoint from, TimePoint to) {
  Duration::rep diff;
  if (__builtin_sub_overflow(to.time_since_epoch().count(), from.time_since_epoch().count(),
                             &diff)) {
    return to > from ? Duration::max() : Duration::min();
  }
  return Duration(diff);
}

std::string Since(const json* j, TimePoint now) {
  auto t = TimeField(j);
  if (!t.has_value()) {
    return "<unknown>";
  }
  return HumanDuration(Elapsed(*t, now));
}

std::string Rfc3339Utc(const json* j) {
  int64_t secs = kGoZeroUnixSeconds;
  if (j != nullptr && j->is_string()) {
    if (auto t = ParseRfc3339(j->get_ref<const std::string&>()); t.has_value()) {
      secs = t->unix_seconds;
    }
  }
  const int64_t days = FloorDiv(secs, 86400);
  const int64_t rem = secs - days * 86400;
  const std::chrono::year_month_day ymd{
      std::chrono::sys_days(std::chrono::days(static_cast<int>(days)))};
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                static_cast<int>(rem % 60));
  return buf;
}

// ---- Cells most rows share ----------------------------------------------------------------

std::string Name(const json& object) { return Str(Path(object, "metadata", "name")); }

std::string Age(const json& object, TimePoint now) {
  return Since(Path(object, "metadata", "creationTimestamp"), now);
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

// ---- Labels and selectors --------------------------------------------------------------------

namespace {

enum class Op { kEquals, kIn, kNotIn, kExists, kDoesNotExist };

struct Requirement {
  std::string key;
  Op op;
  std::vector<std::string> values;
};

// labels.Requirement.String().
std::string RequirementString(const Requirement& r) {
  std::string out;
  if (r.op == Op::kDoesNotExist) {
    out += "!";
  }
  out += r.key;
  switch (r.op) {
    case Op::kExists:
    case Op::kDoesNotExist:
      return out;
    case Op::kEquals:
      out += "=";
      break;
    case Op::kIn:
      out += " in ";
      break;
    case Op::kNotIn:
      out += " notin ";
      break;
  }
  const bool parens = r.op == Op::kIn || r.op == Op::kNotIn;
  if (parens) {
    out += "(";
  }
  std::vector<std::string> values = r.values;
  std::sort(values.begin(), values.end());
  out += Join(values, ",");
  if (parens) {
    out += ")";
  }
  return out;
}

}  // namespace

std::string FormatLabels(const json* labels) {
  std::vector<std::string> pairs;
  if (labels != nullptr && labels->is_object()) {
    for (auto it = labels->begin(); it != labels->end(); ++it) {
      pairs.push_back(it.key() + "=" + Str(&it.value()));
    }
  }
  if (pairs.empty()) {
    return "<none>";
  }
  // Set.String() sorts the "key=value" strings, not the keys.
  std::sort(pairs.begin(), pairs.end());
  return Join(pairs, ",");
}

std::optional<std::string> SelectorString(const json* selector) {
  if (selector == nullptr || selector->is_null()) {
    return std::string();  // labels.Nothing()
  }
  if (!selector->is_object()) {
    return std::nullopt;
  }
  std::vector<Requirement> reqs;
  if (const json* ml = Field(selector, "matchLabels"); ml != nullptr && ml->is_object()) {
    for (auto it = ml->begin(); it != ml->end(); ++it) {
      reqs.push_back({it.key(), Op::kEquals, {Str(&it.value())}});
    }
  }
  bool ok = true;
  ForEach(Field(selector, "matchExpressions"), [&](const json& e) {
    Requirement r;
    r.key = Str(Field(e, "key"));
    const std::string op = Str(Field(e, "operator"));
    if (op == "In") {
      r.op = Op::kIn;
    } else if (op == "NotIn") {
      r.op = Op::kNotIn;
    } else if (op == "Exists") {
      r.op = Op::kExists;
    } else if (op == "DoesNotExist") {
      r.op = Op::kDoesNotExist;
    } else {
      ok = false;
      return;
    }
    ForEach(Field(e, "values"), [&](const json& v) { r.values.push_back(Str(&v)); });
    reqs.push_back(std::move(r));
  });
  if (!ok) {
    return std::nullopt;
  }
  if (reqs.empty()) {
    return std::string();  // labels.Everything()
  }
  // labels.NewRequirement's checks.
  for (const Requirement& r : reqs) {
    if (!api::IsQualifiedName(r.key).empty()) {
      return std::nullopt;
    }
    switch (r.op) {
      case Op::kEquals:
        if (r.values.size() != 1) {
          return std::nullopt;
        }
        break;
      case Op::kIn:
      case Op::kNotIn:
        if (r.values.empty()) {
          return std::nullopt;
        }
        break;
      case Op::kExists:
      case Op::kDoesNotExist:
        if (!r.values.empty()) {
          return std::nullopt;
        }
        break;
    }
    for (const std::string& v : r.values) {
      if (!api::IsValidLabelValue(v).empty()) {
        return std::nullopt;
      }
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  std::vector<std::string> parts;
  for (const Requirement& r : reqs) {
    parts.push_back(RequirementString(r));
  }
  return Join(parts, ",");
}

std::string FormatLabelSelector(const json* selector) {
  auto s = SelectorString(selector);
  if (!s.has_value()) {
    return "<error>";
  }
  return s->empty() ? "<none>" : *s;
}

// ---- Misc --------------------------------------------------------------------------------------

namespace {

// Length of the Unicode white space (unicode.IsSpace) starting at s[i], or 0.
size_t SpaceAt(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= '\t' && c <= '\r')) {
    return 1;
  }
  auto byte = [&](size_t k) -> unsigned {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
  };
  if (c == 0xC2 && (byte(1) == 0x85 || byte(1) == 0xA0)) {
    return 2;  // U+0085, U+00A0
  }
  if (c == 0xE1 && byte(1) == 0x9A && byte(2) == 0x80) {
    return 3;  // U+1680
  }
  if (c == 0xE2 && byte(1) == 0x80 &&
      (byte(2) <= 0x8A || byte(2) == 0xA8 || byte(2) == 0xA9 || byte(2) == 0xAF) &&
      byte(2) >= 0x80) {
    return 3;  // U+2000..U+200A, U+2028, U+2029, U+202F
  }
  if (c == 0xE2 && byte(1) == 0x81 && byte(2) == 0x9F) {
    return 3;  // U+205F
  }
  if (c == 0xE3 && byte(1) == 0x80 && byte(2) == 0x80) {
    return 3;  // U+3000
  }
  return 0;
}

// Length of the Unicode white space ending at s[end-1], or 0.
size_t SpaceBefore(std::string_view s, size_t end) {
  for (size_t len = 1; len <= 3 && len <= end; ++len) {
    if (SpaceAt(s, end - len) == len) {
      return len;
    }
  }
  return 0;
}

}  // namespace

std::string TrimSpace(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    size_t n = SpaceAt(s, begin);
    if (n == 0) {
      break;
    }
    begin += n;
  }
  size_t end = s.size();
  while (end > begin) {
    size_t n = SpaceBefore(s, end);
    if (n == 0) {
      break;
    }
    end -= n;
  }
  return std::string(s.substr(begin, end - begin));
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

std::string QuantityString(const json* q, std::string_view absent) {
  if (q == nullptr || q->is_null()) {
    return std::string(absent);
  }
  const std::string text = q->is_string() ? q->get<std::string>() : q->dump();
  auto parsed = api::Quantity::Parse(text);
  return parsed.ok() ? parsed->ToString() : text;
}

ContainerCells LayoutContainers(const json* containers) {
  ContainerCells out;
  bool first = true;
  ForEach(containers, [&](const json& c) {
    if (!first) {
      out.names += ",";
      out.images += ",";
    }
    first = false;
    out.names += Str(Field(c, "name"));
    out.images += Str(Field(c, "image"));
  });
  return out;
}

}  // namespace tidepool::apiserver::printers::internal
