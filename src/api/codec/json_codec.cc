#include "api/codec/json_codec.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/quantity.h"
#include "api/selector.h"
#include "api/taint.h"
#include "common/clock.h"

namespace tidepool::api::codec {
namespace {

using nlohmann::json;

constexpr size_t kMaxJsonDepth = 1000;

// ---- Field paths, in apimachinery's field.Path form: "spec.containers[0].resources.limits[cpu]".
// Built lazily: a Path is a chain of stack frames and becomes a string only for an error.

class Path {
 public:
  static Path Root() { return Path(nullptr, Kind::kRoot, {}, 0); }
  Path Field(std::string_view name) const { return Path(this, Kind::kField, name, 0); }
  Path Index(size_t i) const { return Path(this, Kind::kIndex, {}, i); }
  Path Key(std::string_view key) const { return Path(this, Kind::kKey, key, 0); }

  std::string ToString() const {
    std::string s = parent_ != nullptr ? parent_->ToString() : std::string();
    switch (kind_) {
      case Kind::kRoot:
        break;
      case Kind::kField:
        if (!s.empty()) {
          s += '.';
        }
        s += name_;
        break;
      case Kind::kIndex:
        s += '[' + std::to_string(index_) + ']';
        break;
      case Kind::kKey:
        s += '[';
        s += name_;
        s += ']';
        break;
    }
    return s;
  }

 private:
  enum class Kind { kRoot, kField, kIndex, kKey };
  Path(const Path* parent, Kind kind, std::string_view name, size_t index)
      : parent_(parent), kind_(kind), name_(name), index_(index) {}

  const Path* parent_;
  Kind kind_;
  std::string_view name_;
  size_t index_;
};

Status FieldError(const Path& p, std::string_view message) {
  std::string path = p.ToString();
  if (path.empty()) {
    return InvalidArgumentError(message);
  }
  return InvalidArgumentError(path + ": " + std::string(message));
}

Status TypeError(const Path& p, std::string_view expected, const json& got) {
  return FieldError(p, "expected " + std::string(expected) + ", got " + got.type_name());
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// ---- Scalars. Every decoder leaves *out unchanged for null (Go's encoding/json does the same
// for a null field; a null list element or map value becomes the zero value).

Status DecodeString(const json& v, const Path& p, std::string* out) {
  if (v.is_null()) {
    return OkStatus();
  }
  if (!v.is_string()) {
    return TypeError(p, "string", v);
  }
  *out = v.get_ref<const std::string&>();
  return OkStatus();
}

Status DecodeBool(const json& v, const Path& p, bool* out) {
  if (v.is_null()) {
    return OkStatus();
  }
  if (!v.is_boolean()) {
    return TypeError(p, "boolean", v);
  }
  *out = v.get<bool>();
  return OkStatus();
}

// Integral numbers only (1.0 is accepted, as it is when sigs.k8s.io/yaml converts YAML), within
// Int's range.
template <typename Int>
Status DecodeInt(const json& v, const Path& p, Int* out) {
  static_assert(std::is_signed_v<Int>);
  constexpr auto kMin = static_cast<int64_t>(std::numeric_limits<Int>::min());
  constexpr auto kMax = static_cast<int64_t>(std::numeric_limits<Int>::max());
  auto out_of_range = [&] {
    return FieldError(p, "integer " + v.dump() + " is out of range [" + std::to_string(kMin) +
                             ", " + std::to_string(kMax) + "]");
  };
  if (v.is_null()) {
    return OkStatus();
  }
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(kMax)) {
      return out_of_range();
    }
    *out = static_cast<Int>(u);
    return OkStatus();
  }
  if (v.is_number_integer()) {
    auto i = v.get<int64_t>();
    if (i < kMin || i > kMax) {
      return out_of_range();
    }
    *out = static_cast<Int>(i);
    return OkStatus();
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::trunc(d)) {
      return FieldError(p, "expected integer, got number " + v.dump());
    }
    // kMin and the int32 bounds are exact doubles; INT64_MAX is not, so compare with 2^63.
    constexpr double kTwo63 = 9223372036854775808.0;
    bool in_range = d >= static_cast<double>(kMin) &&
                    (kMax == std::numeric_limits<int64_t>::max() ? d < kTwo63
                                                                 : d <= static_cast<double>(kMax));
    if (!in_range) {
      return out_of_range();
    }
    *out = static_cast<Int>(d);
    return OkStatus();
  }
  return TypeError(p, "integer", v);
}

bool ParseDigits(std::string_view s, size_t pos, size_t n, int* out) {
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

// RFC 3339 as Go's time.Parse(time.RFC3339, s) reads it: "2006-01-02T15:04:05Z07:00" with an
// optional fraction of a second (dropped: metav1.Time has second precision on the wire).
std::optional<TimePoint> ParseRfc3339(std::string_view s) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ParseDigits(s, 0, 4, &year) || s.size() < 19 || s[4] != '-' ||
      !ParseDigits(s, 5, 2, &month) || s[7] != '-' || !ParseDigits(s, 8, 2, &day) ||
      s[10] != 'T' || !ParseDigits(s, 11, 2, &hour) || s[13] != ':' ||
      !ParseDigits(s, 14, 2, &minute) || s[16] != ':' || !ParseDigits(s, 17, 2, &second)) {
    return std::nullopt;
  }
  size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
    }
    if (i == start) {
      return std::nullopt;
    }
  }
  int64_t offset_seconds = 0;
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh = 0, om = 0;
    if (!ParseDigits(s, i + 1, 2, &oh) || i + 3 >= s.size() || s[i + 3] != ':' ||
        !ParseDigits(s, i + 4, 2, &om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_seconds = (s[i] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size() || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  std::chrono::year_month_day ymd{std::chrono::year(year),
                                  std::chrono::month(static_cast<unsigned>(month)),
                                  std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) {
    return std::nullopt;
  }
  int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  // TimePoint counts nanoseconds in an int64: about 1677-09-21 to 2262-04-11.
  constexpr int64_t kLimit = std::numeric_limits<int64_t>::max() / 1'000'000'000;
  if (secs < -kLimit || secs > kLimit) {
    return std::nullopt;
  }
  return TimePoint(std::chrono::seconds(secs));
}

Status DecodeTime(const json& v, const Path& p, TimePoint* out) {
  if (v.is_null()) {
    return OkStatus();
  }
  if (!v.is_string()) {
    return TypeError(p, "string", v);
  }
  const auto& s = v.get_ref<const std::string&>();
  auto t = ParseRfc3339(s);
  if (!t) {
    return FieldError(p, "invalid time " + Quote(s) +
                             ": expected RFC 3339, e.g. \"2026-01-01T00:00:00Z\", between "
                             "1677 and 2262");
  }
  *out = *t;
  return OkStatus();
}

// Quantity.UnmarshalJSON: a string (trimmed of white space) or a bare number, parsed by
// ParseQuantity.
Status DecodeQuantity(const json& v, const Path& p, Quantity* out) {
  if (v.is_null()) {
    return OkStatus();
  }
  std::string text;
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    size_t b = s.find_first_not_of(" \t\n\r\v\f");
    size_t e = s.find_last_not_of(" \t\n\r\v\f");
    text = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  } else if (v.is_number()) {
    text = v.dump();  // an integer exactly; a double in its shortest round-trip form
  } else {
    return TypeError(p, "string or number", v);
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) {
    return FieldError(p, q.status().message());
  }
  *out = *std::move(q);
  return OkStatus();
}

// ---- Containers and fields.

// Decodes obj[key] (if present) with `decode`; `p` is obj's path.
template <typename T, typename Decode>
Status Field(const json& obj, const Path& p, std::string_view key, T* out, Decode decode) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    return OkStatus();
  }
  return decode(*it, p.Field(key), out);
}

// Like Field for an optional: null or absent leaves *out unset.
template <typename T, typename Decode>
Status OptField(const json& obj, const Path& p, std::string_view key, std::optional<T>* out,
                Decode decode) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    return OkStatus();
  }
  T value{};
  TIDEPOOL_RETURN_IF_ERROR(decode(*it, p.Field(key), &value));
  *out = std::move(value);
  return OkStatus();
}

// Checks that v is an object (or null, which the caller treats as an empty one).
Status ExpectObject(const json& v, const Path& p) {
  if (v.is_null() || v.is_object()) {
    return OkStatus();
  }
  return TypeError(p, "object", v);
}

template <typename T, typename Decode>
Status DecodeList(const json& v, const Path& p, std::vector<T>* out, Decode decode) {
  if (v.is_null()) {
    return OkStatus();
  }
  if (!v.is_array()) {
    return TypeError(p, "array", v);
  }
  out->clear();
  out->reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    T elem{};
    TIDEPOOL_RETURN_IF_ERROR(decode(v[i], p.Index(i), &elem));
    out->push_back(std::move(elem));
  }
  return OkStatus();
}

template <typename Map, typename Decode>
Status DecodeMap(const json& v, const Path& p, Map* out, Decode decode) {
  if (v.is_null()) {
    return OkStatus();
  }
  if (!v.is_object()) {
    return TypeError(p, "object", v);
  }
  out->clear();
  for (auto it = v.begin(); it != v.end(); ++it) {
    typename Map::mapped_type value{};
    TIDEPOOL_RETURN_IF_ERROR(decode(it.value(), p.Key(it.key()), &value));
    out->emplace(it.key(), std::move(value));
  }
  return OkStatus();
}

Status DecodeStringList(const json& v, const Path& p, std::vector<std::string>* out) {
  return DecodeList(v, p, out, DecodeString);
}

Status DecodeStringMap(const json& v, const Path& p, std::map<std::string, std::string>* out) {
  return DecodeMap(v, p, out, DecodeString);
}

Status DecodeResourceList(const json& v, const Path& p, ResourceList* out) {
  return DecodeMap(v, p, out, DecodeQuantity);
}

// ---- Enumerations.

Status DecodeTolerationOperator(const json& v, const Path& p, TolerationOperator* out) {
  std::string s;
  TIDEPOOL_RETURN_IF_ERROR(DecodeString(v, p, &s));
  if (s.empty() || s == "Equal") {
    *out = TolerationOperator::kEqual;
  } else if (s == "Exists") {
    *out = TolerationOperator::kExists;
  } else {
    return FieldError(p, "unsupported value " + Quote(s) +
                             ": supported values: \"Equal\", \"Exists\"");
  }
  return OkStatus();
}

std::string_view TolerationOperatorName(TolerationOperator op) {
  return op == TolerationOperator::kExists ? "Exists" : "Equal";
}

// Wraps one of the api's Parse* functions (StatusOr<E>(std::string_view)).
template <typename E, typename ParseFn>
Status DecodeEnum(const json& v, const Path& p, E* out, ParseFn parse) {
  if (v.is_null()) {
    return OkStatus();
  }
  std::string s;
  TIDEPOOL_RETURN_IF_ERROR(DecodeString(v, p, &s));
  auto e = parse(s);
  if (!e.ok()) {
    return FieldError(p, e.status().message());
  }
  *out = *e;
  return OkStatus();
}

Status DecodeTaintEffect(const json& v, const Path& p, TaintEffect* out) {
  return DecodeEnum(v, p, out, ParseTaintEffect);
}
Status DecodeSelectorOperator(const json& v, const Path& p, SelectorOperator* out) {
  return DecodeEnum(v, p, out, ParseSelectorOperator);
}
Status DecodeConditionStatus(const json& v, const Path& p, ConditionStatus* out) {
  return DecodeEnum(v, p, out, ParseConditionStatus);
}
Status DecodePodPhase(const json& v, const Path& p, PodPhase* out) {
  return DecodeEnum(v, p, out, ParsePodPhase);
}

// apiVersion and kind, when given, must name the type being decoded.
Status CheckTypeMeta(const json& v, std::string_view kind) {
  const Path root = Path::Root();
  std::string api_version, got_kind;
  TIDEPOOL_RETURN_IF_ERROR(Field(v, root, "apiVersion", &api_version, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, root, "kind", &got_kind, DecodeString));
  if (!api_version.empty() && api_version != "v1") {
    return FieldError(root.Field("apiVersion"),
                      "unsupported value " + Quote(api_version) + ": expected \"v1\"");
  }
  if (!got_kind.empty() && got_kind != kind) {
    return FieldError(root.Field("kind"),
                      "unsupported value " + Quote(got_kind) + ": expected " + Quote(kind));
  }
  return OkStatus();
}

// ---- Objects. Each decoder takes the value and its path; null means "all defaults".

Status DecodeOwnerReference(const json& v, const Path& p, OwnerReference* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "apiVersion", &out->api_version, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "kind", &out->kind, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "name", &out->name, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "uid", &out->uid, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "controller", &out->controller, DecodeBool));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "blockOwnerDeletion", &out->block_owner_deletion, DecodeBool));
  return OkStatus();
}

Status DecodeObjectMeta(const json& v, const Path& p, ObjectMeta* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "name", &out->name, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "generateName", &out->generate_name, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "namespace", &out->namespace_, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "uid", &out->uid, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "resourceVersion", &out->resource_version, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "generation", &out->generation, DecodeInt<int64_t>));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "creationTimestamp", &out->creation_timestamp, DecodeTime));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "deletionTimestamp", &out->deletion_timestamp, DecodeTime));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "labels", &out->labels, DecodeStringMap));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "annotations", &out->annotations, DecodeStringMap));
  auto decode_refs = [](const json& refs, const Path& rp, std::vector<OwnerReference>* o) {
    return DecodeList(refs, rp, o, DecodeOwnerReference);
  };
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "ownerReferences", &out->owner_references, decode_refs));
  return OkStatus();
}

Status DecodeResources(const json& v, const Path& p, ResourceRequirements* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "requests", &out->requests, DecodeResourceList));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "limits", &out->limits, DecodeResourceList));
  return OkStatus();
}

// The lenient readers of a pod's ConfigMap and Secret references (pod.h's ConfigReference):
// members of the wrong type are read as absent.
std::string StringMember(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Where a reference is: envFrom (no keys), env valueFrom (its `key`), a volume (its items').
enum class RefSite { kEnvFrom, kEnvValue, kVolume };

std::optional<ConfigReference> ReadConfigReference(const json* src, ConfigReference::Kind kind,
                                                   const char* name_key, RefSite site) {
  if (src == nullptr || !src->is_object()) return std::nullopt;
  ConfigReference r;
  r.kind = kind;
  r.name = StringMember(*src, name_key);
  r.env_from = site == RefSite::kEnvFrom;
  auto optional = src->find("optional");
  r.optional = optional != src->end() && optional->is_boolean() && optional->get<bool>();
  auto key = src->find("key");
  if (site == RefSite::kEnvValue && key != src->end() && key->is_string()) {
    r.keys.push_back(key->get<std::string>());
  }
  auto items = src->find("items");
  if (site == RefSite::kVolume && items != src->end() && items->is_array()) {
    for (const json& item : *items) {
      if (item.is_object()) r.keys.push_back(StringMember(item, "key"));
    }
  }
  return r;
}

const json* ObjectMember(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? &*it : nullptr;
}

void AddReference(const json* src, ConfigReference::Kind kind, const char* name_key, RefSite site,
                  std::vector<ConfigReference>* out) {
  if (auto r = ReadConfigReference(src, kind, name_key, site)) out->push_back(std::move(*r));
}

// The names of a container's volumeMounts and volumeDevices.
void ReadVolumeMounts(const json& c, std::vector<std::string>* out) {
  for (const char* list : {"volumeMounts", "volumeDevices"}) {
    auto mounts = c.find(list);
    if (mounts == c.end() || !mounts->is_array()) continue;
    for (const json& m : *mounts) {
      if (m.is_object()) out->push_back(StringMember(m, "name"));
    }
  }
}

constexpr auto kConfigMapRef = ConfigReference::Kind::kConfigMap;
constexpr auto kSecretRef = ConfigReference::Kind::kSecret;

void ReadEnvConfig(const json& c, std::vector<ConfigReference>* out) {
  if (auto from = c.find("envFrom"); from != c.end() && from->is_array()) {
    for (const json& e : *from) {
      if (!e.is_object()) continue;
      AddReference(ObjectMember(e, "configMapRef"), kConfigMapRef, "name", RefSite::kEnvFrom, out);
      AddReference(ObjectMember(e, "secretRef"), kSecretRef, "name", RefSite::kEnvFrom, out);
    }
  }
  if (auto env = c.find("env"); env != c.end() && env->is_array()) {
    for (const json& e : *env) {
      const json* value_from = e.is_object() ? ObjectMember(e, "valueFrom") : nullptr;
      if (value_from == nullptr) continue;
      AddReference(ObjectMember(*value_from, "configMapKeyRef"), kConfigMapRef, "name",
                   RefSite::kEnvValue, out);
      AddReference(ObjectMember(*value_from, "secretKeyRef"), kSecretRef, "name",
                   RefSite::kEnvValue, out);
    }
  }
}

void ReadVolumes(const json& spec, std::vector<Volume>* out) {
  auto volumes = spec.find("volumes");
  if (volumes == spec.end() || !volumes->is_array()) return;
  for (const json& v : *volumes) {
    if (!v.is_object()) continue;
    Volume vol;
    vol.name = StringMember(v, "name");
    AddReference(ObjectMember(v, "configMap"), kConfigMapRef, "name", RefSite::kVolume,
                 &vol.config);
    AddReference(ObjectMember(v, "secret"), kSecretRef, "secretName", RefSite::kVolume,
                 &vol.config);
    if (const json* projected = ObjectMember(v, "projected")) {
      auto sources = projected->find("sources");
      if (sources != projected->end() && sources->is_array()) {
        for (const json& src : *sources) {
          if (!src.is_object()) continue;
          AddReference(ObjectMember(src, "configMap"), kConfigMapRef, "name", RefSite::kVolume,
                       &vol.config);
          AddReference(ObjectMember(src, "secret"), kSecretRef, "name", RefSite::kVolume,
                       &vol.config);
        }
      }
    }
    if (const json* claim = ObjectMember(v, "persistentVolumeClaim")) {
      vol.claim_name = StringMember(*claim, "claimName");
    }
    out->push_back(std::move(vol));
  }
}

Status DecodeContainer(const json& v, const Path& p, Container* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "name", &out->name, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "image", &out->image, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "imagePullPolicy", &out->image_pull_policy, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "command", &out->command, DecodeStringList));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "args", &out->args, DecodeStringList));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "resources", &out->resources, DecodeResources));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "restartPolicy", &out->restart_policy, DecodeString));
  ReadEnvConfig(v, &out->env_config);
  ReadVolumeMounts(v, &out->volume_mounts);
  return OkStatus();
}

Status DecodeContainers(const json& v, const Path& p, std::vector<Container>* out) {
  return DecodeList(v, p, out, DecodeContainer);
}

Status DecodeSelectorRequirement(const json& v, const Path& p, SelectorRequirement* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "key", &out->key, DecodeString));
  // NodeSelectorRequirement.operator is required: absent is "" and so an error, as in the API
  // server's validation.
  auto op = v.find("operator");
  if (op == v.end() || op->is_null()) {
    return FieldError(p.Field("operator"), "Required value");
  }
  TIDEPOOL_RETURN_IF_ERROR(DecodeSelectorOperator(*op, p.Field("operator"), &out->op));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "values", &out->values, DecodeStringList));
  return OkStatus();
}

Status DecodeRequirements(const json& v, const Path& p, std::vector<SelectorRequirement>* out) {
  return DecodeList(v, p, out, DecodeSelectorRequirement);
}

Status DecodeNodeSelectorTerm(const json& v, const Path& p, NodeSelectorTerm* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(
      Field(v, p, "matchExpressions", &out->match_expressions, DecodeRequirements));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "matchFields", &out->match_fields, DecodeRequirements));
  return OkStatus();
}

Status DecodeNodeSelector(const json& v, const Path& p, NodeSelector* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  auto decode_terms = [](const json& t, const Path& tp, std::vector<NodeSelectorTerm>* o) {
    return DecodeList(t, tp, o, DecodeNodeSelectorTerm);
  };
  return Field(v, p, "nodeSelectorTerms", &out->terms, decode_terms);
}

Status DecodePreferredTerm(const json& v, const Path& p, PreferredSchedulingTerm* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "weight", &out->weight, DecodeInt<int32_t>));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "preference", &out->preference, DecodeNodeSelectorTerm));
  return OkStatus();
}

Status DecodeNodeAffinity(const json& v, const Path& p, NodeAffinity* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "requiredDuringSchedulingIgnoredDuringExecution",
                                    &out->required, DecodeNodeSelector));
  auto decode_preferred = [](const json& t, const Path& tp,
                             std::vector<PreferredSchedulingTerm>* o) {
    return DecodeList(t, tp, o, DecodePreferredTerm);
  };
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "preferredDuringSchedulingIgnoredDuringExecution",
                                 &out->preferred, decode_preferred));
  return OkStatus();
}

Status DecodeAffinity(const json& v, const Path& p, Affinity* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  return OptField(v, p, "nodeAffinity", &out->node_affinity, DecodeNodeAffinity);
}

Status DecodeToleration(const json& v, const Path& p, Toleration* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "key", &out->key, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "operator", &out->op, DecodeTolerationOperator));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "value", &out->value, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "effect", &out->effect, DecodeTaintEffect));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "tolerationSeconds", &out->toleration_seconds, DecodeInt<int64_t>));
  return OkStatus();
}

Status DecodePodCondition(const json& v, const Path& p, PodCondition* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "type", &out->type, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "status", &out->status, DecodeConditionStatus));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "reason", &out->reason, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "message", &out->message, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "lastProbeTime", &out->last_probe_time, DecodeTime));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "lastTransitionTime", &out->last_transition_time, DecodeTime));
  return OkStatus();
}

// A string whose absent or empty value keeps the model's default (SetDefaults_PodSpec).
Status DecodeDefaultedString(const json& v, const Path& p, std::string* out) {
  std::string s;
  TIDEPOOL_RETURN_IF_ERROR(DecodeString(v, p, &s));
  if (!s.empty()) {
    *out = std::move(s);
  }
  return OkStatus();
}

Status DecodePodSpec(const json& v, const Path& p, PodSpec* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "initContainers", &out->init_containers, DecodeContainers));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "containers", &out->containers, DecodeContainers));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "overhead", &out->overhead, DecodeResourceList));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "nodeSelector", &out->node_selector, DecodeStringMap));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "affinity", &out->affinity, DecodeAffinity));
  auto decode_tolerations = [](const json& t, const Path& tp, std::vector<Toleration>* o) {
    return DecodeList(t, tp, o, DecodeToleration);
  };
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "tolerations", &out->tolerations, decode_tolerations));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "nodeName", &out->node_name, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(
      Field(v, p, "schedulerName", &out->scheduler_name, DecodeDefaultedString));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "priority", &out->priority, DecodeInt<int32_t>));
  TIDEPOOL_RETURN_IF_ERROR(
      Field(v, p, "priorityClassName", &out->priority_class_name, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "preemptionPolicy", &out->preemption_policy, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(
      Field(v, p, "restartPolicy", &out->restart_policy, DecodeDefaultedString));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "terminationGracePeriodSeconds",
                                    &out->termination_grace_period_seconds, DecodeInt<int64_t>));
  ReadVolumes(v, &out->volumes);
  return OkStatus();
}

Status DecodePodStatus(const json& v, const Path& p, PodStatus* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "phase", &out->phase, DecodePodPhase));
  auto decode_conditions = [](const json& t, const Path& tp, std::vector<PodCondition>* o) {
    return DecodeList(t, tp, o, DecodePodCondition);
  };
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "conditions", &out->conditions, decode_conditions));
  TIDEPOOL_RETURN_IF_ERROR(
      Field(v, p, "nominatedNodeName", &out->nominated_node_name, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "startTime", &out->start_time, DecodeTime));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "reason", &out->reason, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "message", &out->message, DecodeString));
  return OkStatus();
}

Status DecodeTaint(const json& v, const Path& p, Taint* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  // The model defaults to NoSchedule; a missing effect in JSON is "", which validation rejects.
  out->effect = TaintEffect::kNone;
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "key", &out->key, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "value", &out->value, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "effect", &out->effect, DecodeTaintEffect));
  TIDEPOOL_RETURN_IF_ERROR(OptField(v, p, "timeAdded", &out->time_added, DecodeTime));
  return OkStatus();
}

Status DecodeNodeSpec(const json& v, const Path& p, NodeSpec* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "unschedulable", &out->unschedulable, DecodeBool));
  auto decode_taints = [](const json& t, const Path& tp, std::vector<Taint>* o) {
    return DecodeList(t, tp, o, DecodeTaint);
  };
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "taints", &out->taints, decode_taints));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "providerID", &out->provider_id, DecodeString));
  return OkStatus();
}

Status DecodeNodeCondition(const json& v, const Path& p, NodeCondition* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "type", &out->type, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "status", &out->status, DecodeConditionStatus));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "reason", &out->reason, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "message", &out->message, DecodeString));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "lastHeartbeatTime", &out->last_heartbeat_time, DecodeTime));
  TIDEPOOL_RETURN_IF_ERROR(
      OptField(v, p, "lastTransitionTime", &out->last_transition_time, DecodeTime));
  return OkStatus();
}

Status DecodeNodeStatus(const json& v, const Path& p, NodeStatus* out) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
  if (v.is_null()) {
    return OkStatus();
  }
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "capacity", &out->capacity, DecodeResourceList));
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "allocatable", &out->allocatable, DecodeResourceList));
  auto decode_conditions = [](const json& t, const Path& tp, std::vector<NodeCondition>* o) {
    return DecodeList(t, tp, o, DecodeNodeCondition);
  };
  TIDEPOOL_RETURN_IF_ERROR(Field(v, p, "conditions", &out->conditions, decode_conditions));
  return OkStatus();
}

StatusOr<Pod> DecodePod(const json& j) {
  const Path root = Path::Root();
  if (!j.is_object()) {
    return TypeError(root, "object", j);
  }
  TIDEPOOL_RETURN_IF_ERROR(CheckTypeMeta(j, "Pod"));
  Pod pod;
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "metadata", &pod.meta, DecodeObjectMeta));
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "spec", &pod.spec, DecodePodSpec));
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "status", &pod.status, DecodePodStatus));
  return pod;
}

StatusOr<Node> DecodeNode(const json& j) {
  const Path root = Path::Root();
  if (!j.is_object()) {
    return TypeError(root, "object", j);
  }
  TIDEPOOL_RETURN_IF_ERROR(CheckTypeMeta(j, "Node"));
  Node node;
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "metadata", &node.meta, DecodeObjectMeta));
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "spec", &node.spec, DecodeNodeSpec));
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "status", &node.status, DecodeNodeStatus));
  return node;
}

// ---- Encoding. Empty values are left out, like Go's `omitempty`.

void PutString(json& obj, const char* key, const std::string& s) {
  if (!s.empty()) {
    obj[key] = s;
  }
}

void PutTime(json& obj, const char* key, const std::optional<TimePoint>& t) {
  if (t) {
    obj[key] = FormatRfc3339(*t);
  }
}

void PutStringMap(json& obj, const char* key, const std::map<std::string, std::string>& m) {
  if (!m.empty()) {
    obj[key] = m;
  }
}

void PutStringList(json& obj, const char* key, const std::vector<std::string>& l) {
  if (!l.empty()) {
    obj[key] = l;
  }
}

json ResourceListToJson(const ResourceList& list) {
  json obj = json::object();
  for (const auto& [name, q] : list) {
    obj[name] = q.ToString();
  }
  return obj;
}

void PutResourceList(json& obj, const char* key, const ResourceList& list) {
  if (!list.empty()) {
    obj[key] = ResourceListToJson(list);
  }
}

template <typename T, typename Encode>
void PutList(json& obj, const char* key, const std::vector<T>& items, Encode encode) {
  if (items.empty()) {
    return;
  }
  json arr = json::array();
  for (const T& item : items) {
    arr.push_back(encode(item));
  }
  obj[key] = std::move(arr);
}

json OwnerReferenceToJson(const OwnerReference& r) {
  json j = json::object();
  j["apiVersion"] = r.api_version;
  j["kind"] = r.kind;
  j["name"] = r.name;
  j["uid"] = r.uid;
  if (r.controller) {
    j["controller"] = *r.controller;
  }
  if (r.block_owner_deletion) {
    j["blockOwnerDeletion"] = *r.block_owner_deletion;
  }
  return j;
}

json ObjectMetaToJson(const ObjectMeta& m) {
  json j = json::object();
  PutString(j, "name", m.name);
  PutString(j, "generateName", m.generate_name);
  PutString(j, "namespace", m.namespace_);
  PutString(j, "uid", m.uid);
  PutString(j, "resourceVersion", m.resource_version);
  if (m.generation != 0) {
    j["generation"] = m.generation;
  }
  PutTime(j, "creationTimestamp", m.creation_timestamp);
  PutTime(j, "deletionTimestamp", m.deletion_timestamp);
  PutStringMap(j, "labels", m.labels);
  PutStringMap(j, "annotations", m.annotations);
  PutList(j, "ownerReferences", m.owner_references, OwnerReferenceToJson);
  return j;
}

// A reference as the API writes it: `name_key` names the object; env valueFrom's `key`, or a
// volume's items.
json ConfigReferenceToJson(const ConfigReference& r, const char* name_key, bool volume) {
  json j = json::object();
  j[name_key] = r.name;
  if (volume && !r.keys.empty()) {
    json items = json::array();
    for (const std::string& k : r.keys) items.push_back({{"key", k}, {"path", k}});
    j["items"] = std::move(items);
  } else if (!volume && !r.keys.empty()) {
    j["key"] = r.keys.front();
  }
  if (r.optional) j["optional"] = true;
  return j;
}

void PutEnvConfig(json& j, const std::vector<ConfigReference>& refs) {
  json env = json::array(), env_from = json::array();
  for (const ConfigReference& r : refs) {
    const bool cm = r.kind == ConfigReference::Kind::kConfigMap;
    if (r.env_from) {
      env_from.push_back(
          {{cm ? "configMapRef" : "secretRef", ConfigReferenceToJson(r, "name", false)}});
    } else {
      env.push_back(
          {{"name", r.keys.empty() ? "" : r.keys.front()},
           {"valueFrom",
            {{cm ? "configMapKeyRef" : "secretKeyRef", ConfigReferenceToJson(r, "name", false)}}}});
    }
  }
  if (!env_from.empty()) j["envFrom"] = std::move(env_from);
  if (!env.empty()) j["env"] = std::move(env);
}

json VolumeToJson(const Volume& v) {
  json j = {{"name", v.name}};
  if (!v.claim_name.empty()) j["persistentVolumeClaim"] = {{"claimName", v.claim_name}};
  if (v.config.size() == 1) {
    const ConfigReference& r = v.config.front();
    if (r.kind == ConfigReference::Kind::kConfigMap) {
      j["configMap"] = ConfigReferenceToJson(r, "name", true);
    } else {
      j["secret"] = ConfigReferenceToJson(r, "secretName", true);
    }
  } else if (!v.config.empty()) {
    json sources = json::array();
    for (const ConfigReference& r : v.config) {
      const bool cm = r.kind == ConfigReference::Kind::kConfigMap;
      sources.push_back({{cm ? "configMap" : "secret", ConfigReferenceToJson(r, "name", true)}});
    }
    j["projected"] = {{"sources", std::move(sources)}};
  }
  return j;
}

json ContainerToJson(const Container& c) {
  json j = json::object();
  j["name"] = c.name;
  PutString(j, "image", c.image);
  PutString(j, "imagePullPolicy", c.image_pull_policy);
  PutStringList(j, "command", c.command);
  PutStringList(j, "args", c.args);
  if (!c.resources.requests.empty() || !c.resources.limits.empty()) {
    json r = json::object();
    PutResourceList(r, "requests", c.resources.requests);
    PutResourceList(r, "limits", c.resources.limits);
    j["resources"] = std::move(r);
  }
  if (c.restart_policy) {
    j["restartPolicy"] = *c.restart_policy;
  }
  PutEnvConfig(j, c.env_config);
  PutList(j, "volumeMounts", c.volume_mounts, [](const std::string& name) {
    return json{{"name", name}};
  });
  return j;
}

json RequirementToJson(const SelectorRequirement& r) {
  json j = json::object();
  j["key"] = r.key;
  j["operator"] = SelectorOperatorName(r.op);
  PutStringList(j, "values", r.values);
  return j;
}

json NodeSelectorTermToJson(const NodeSelectorTerm& t) {
  json j = json::object();
  PutList(j, "matchExpressions", t.match_expressions, RequirementToJson);
  PutList(j, "matchFields", t.match_fields, RequirementToJson);
  return j;
}

json NodeAffinityToJson(const NodeAffinity& a) {
  json j = json::object();
  if (a.required) {
    json terms = json::array();
    for (const auto& t : a.required->terms) {
      terms.push_back(NodeSelectorTermToJson(t));
    }
    j["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
  }
  PutList(j, "preferredDuringSchedulingIgnoredDuringExecution", a.preferred,
          [](const PreferredSchedulingTerm& t) {
            return json{{"weight", t.weight}, {"preference", NodeSelectorTermToJson(t.preference)}};
          });
  return j;
}

json TolerationToJson(const Toleration& t) {
  json j = json::object();
  PutString(j, "key", t.key);
  j["operator"] = TolerationOperatorName(t.op);
  PutString(j, "value", t.value);
  if (t.effect != TaintEffect::kNone) {
    j["effect"] = TaintEffectName(t.effect);
  }
  if (t.toleration_seconds) {
    j["tolerationSeconds"] = *t.toleration_seconds;
  }
  return j;
}

json PodConditionToJson(const PodCondition& c) {
  json j = json::object();
  j["type"] = c.type;
  j["status"] = ConditionStatusName(c.status);
  PutString(j, "reason", c.reason);
  PutString(j, "message", c.message);
  PutTime(j, "lastProbeTime", c.last_probe_time);
  PutTime(j, "lastTransitionTime", c.last_transition_time);
  return j;
}

json PodSpecToJson(const PodSpec& s) {
  json j = json::object();
  PutList(j, "initContainers", s.init_containers, ContainerToJson);
  json containers = json::array();
  for (const auto& c : s.containers) {
    containers.push_back(ContainerToJson(c));
  }
  j["containers"] = std::move(containers);
  PutResourceList(j, "overhead", s.overhead);
  PutStringMap(j, "nodeSelector", s.node_selector);
  if (s.affinity) {
    json a = json::object();
    if (s.affinity->node_affinity) {
      a["nodeAffinity"] = NodeAffinityToJson(*s.affinity->node_affinity);
    }
    j["affinity"] = std::move(a);
  }
  PutList(j, "tolerations", s.tolerations, TolerationToJson);
  PutString(j, "nodeName", s.node_name);
  j["schedulerName"] = s.scheduler_name;
  if (s.priority) {
    j["priority"] = *s.priority;
  }
  PutString(j, "priorityClassName", s.priority_class_name);
  if (s.preemption_policy) {
    j["preemptionPolicy"] = *s.preemption_policy;
  }
  j["restartPolicy"] = s.restart_policy;
  if (s.termination_grace_period_seconds) {
    j["terminationGracePeriodSeconds"] = *s.termination_grace_period_seconds;
  }
  PutList(j, "volumes", s.volumes, VolumeToJson);
  return j;
}

json PodStatusJson(const PodStatus& s) {
  json j = json::object();
  j["phase"] = PodPhaseName(s.phase);
  PutList(j, "conditions", s.conditions, PodConditionToJson);
  PutString(j, "nominatedNodeName", s.nominated_node_name);
  PutTime(j, "startTime", s.start_time);
  PutString(j, "reason", s.reason);
  PutString(j, "message", s.message);
  return j;
}

json TaintToJson(const Taint& t) {
  json j = json::object();
  j["key"] = t.key;
  PutString(j, "value", t.value);
  j["effect"] = TaintEffectName(t.effect);
  PutTime(j, "timeAdded", t.time_added);
  return j;
}

json NodeConditionToJson(const NodeCondition& c) {
  json j = json::object();
  j["type"] = c.type;
  j["status"] = ConditionStatusName(c.status);
  PutString(j, "reason", c.reason);
  PutString(j, "message", c.message);
  PutTime(j, "lastHeartbeatTime", c.last_heartbeat_time);
  PutTime(j, "lastTransitionTime", c.last_transition_time);
  return j;
}

// Rejects nesting deeper than kMaxJsonDepth before nlohmann builds the value: parsing is
// iterative, but copying, comparing and dumping a value recurse once per level.
Status CheckJsonDepth(std::string_view text) {
  size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        return InvalidArgumentError("json: parse error at byte " + std::to_string(i + 1) +
                                    ": nesting deeper than " + std::to_string(kMaxJsonDepth) +
                                    " levels");
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return OkStatus();
}

// "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> "parse error at
// line 1, column 2: ...".
std::string StripExceptionId(const char* what) {
  std::string_view s(what);
  if (!s.empty() && s.front() == '[') {
    size_t end = s.find("] ");
    if (end != std::string_view::npos) {
      s.remove_prefix(end + 2);
    }
  }
  return std::string(s);
}

}  // namespace

StatusOr<Pod> PodFromJson(const json& j) {
  try {
    return DecodePod(j);
  } catch (const json::exception& e) {  // not expected: every access checks the type first
    return InternalError(std::string("decoding a Pod: ") + e.what());
  }
}

StatusOr<LabelSelector> LabelSelectorFromJson(const json& j) {
  const Path root = Path::Root();
  if (!j.is_object()) {
    return TypeError(root, "object", j);
  }
  LabelSelector s;
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "matchLabels", &s.match_labels, DecodeStringMap));
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "matchExpressions", &s.match_expressions,
                                 DecodeRequirements));
  return s;
}

namespace {

// A member object (absent or null: an empty object, so nothing below it is read).
const json& Sub(const json& obj, std::string_view key) {
  static const json kEmpty = json::object();
  if (!obj.is_object()) return kEmpty;
  auto it = obj.find(key);
  return it == obj.end() || !it->is_object() ? kEmpty : *it;
}

std::string StrOr(const json& obj, std::string_view key, std::string fallback = "") {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// A storage quantity in bytes (0 when absent).
Status StorageBytes(const json& resources, const Path& p, int64_t* out) {
  Quantity q;
  TIDEPOOL_RETURN_IF_ERROR(Field(resources, p, "storage", &q, DecodeQuantity));
  *out = q.Value();
  return OkStatus();
}

}  // namespace

StatusOr<PersistentVolumeClaim> PersistentVolumeClaimFromJson(const json& j) {
  const Path root = Path::Root();
  if (!j.is_object()) return TypeError(root, "object", j);
  PersistentVolumeClaim c;
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "metadata", &c.meta, DecodeObjectMeta));
  const json& spec = Sub(j, "spec");
  const Path sp = root.Field("spec");
  TIDEPOOL_RETURN_IF_ERROR(Field(spec, sp, "accessModes", &c.access_modes, DecodeStringList));
  TIDEPOOL_RETURN_IF_ERROR(StorageBytes(Sub(Sub(spec, "resources"), "requests"),
                                        sp.Field("resources").Field("requests"),
                                        &c.storage_request));
  if (auto it = spec.find("storageClassName"); it != spec.end() && it->is_string()) {
    c.storage_class_name = it->get<std::string>();
  }
  c.volume_mode = StrOr(spec, "volumeMode", "Filesystem");
  c.volume_name = StrOr(spec, "volumeName");
  c.phase = StrOr(Sub(j, "status"), "phase");
  return c;
}

StatusOr<PersistentVolume> PersistentVolumeFromJson(const json& j) {
  const Path root = Path::Root();
  if (!j.is_object()) return TypeError(root, "object", j);
  PersistentVolume v;
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "metadata", &v.meta, DecodeObjectMeta));
  const json& spec = Sub(j, "spec");
  const Path sp = root.Field("spec");
  TIDEPOOL_RETURN_IF_ERROR(Field(spec, sp, "accessModes", &v.access_modes, DecodeStringList));
  TIDEPOOL_RETURN_IF_ERROR(StorageBytes(Sub(spec, "capacity"), sp.Field("capacity"), &v.capacity));
  v.storage_class_name = StrOr(spec, "storageClassName");
  v.volume_mode = StrOr(spec, "volumeMode", "Filesystem");
  const json& affinity = Sub(spec, "nodeAffinity");
  TIDEPOOL_RETURN_IF_ERROR(OptField(affinity, sp.Field("nodeAffinity"), "required",
                                    &v.node_affinity, DecodeNodeSelector));
  if (auto it = spec.find("claimRef"); it != spec.end() && it->is_object()) {
    v.claim_ref =
        PersistentVolume::ClaimRef{StrOr(*it, "namespace"), StrOr(*it, "name"), StrOr(*it, "uid")};
  }
  v.phase = StrOr(Sub(j, "status"), "phase");
  return v;
}

StatusOr<StorageClass> StorageClassFromJson(const json& j) {
  const Path root = Path::Root();
  if (!j.is_object()) return TypeError(root, "object", j);
  StorageClass c;
  c.name = StrOr(Sub(j, "metadata"), "name");
  c.provisioner = StrOr(j, "provisioner");
  if (auto it = j.find("volumeBindingMode"); it != j.end() && it->is_string()) {
    c.volume_binding_mode = it->get<std::string>();
  }
  if (auto it = j.find("allowedTopologies"); it != j.end() && it->is_array()) {
    for (const json& term : *it) {
      auto& out = c.allowed_topologies.emplace_back();
      if (!term.is_object() || !term.contains("matchLabelExpressions") ||
          !term["matchLabelExpressions"].is_array()) {
        continue;
      }
      for (const json& e : term["matchLabelExpressions"]) {
        std::vector<std::string> values;
        TIDEPOOL_RETURN_IF_ERROR(
            Field(e, root.Field("allowedTopologies"), "values", &values, DecodeStringList));
        out.emplace_back(StrOr(e, "key"), std::move(values));
      }
    }
  }
  return c;
}

StatusOr<std::vector<Taint>> TaintsFromJson(const json& j) {
  std::vector<Taint> out;
  TIDEPOOL_RETURN_IF_ERROR(DecodeList(j, Path::Root(), &out, DecodeTaint));
  return out;
}

StatusOr<std::vector<Toleration>> TolerationsFromJson(const json& j) {
  std::vector<Toleration> out;
  TIDEPOOL_RETURN_IF_ERROR(DecodeList(j, Path::Root(), &out, DecodeToleration));
  return out;
}

StatusOr<PodDisruptionBudget> PodDisruptionBudgetFromJson(const json& j) {
  const Path root = Path::Root();
  if (!j.is_object()) {
    return TypeError(root, "object", j);
  }
  PodDisruptionBudget b;
  ObjectMeta meta;
  TIDEPOOL_RETURN_IF_ERROR(Field(j, root, "metadata", &meta, DecodeObjectMeta));
  b.namespace_ = std::move(meta.namespace_);
  b.name = std::move(meta.name);
  if (auto spec = j.find("spec"); spec != j.end() && !spec->is_null()) {
    const Path sp = root.Field("spec");
    TIDEPOOL_RETURN_IF_ERROR(ExpectObject(*spec, sp));
    if (auto sel = spec->find("selector"); sel != spec->end() && !sel->is_null()) {
      const Path selp = sp.Field("selector");
      TIDEPOOL_RETURN_IF_ERROR(ExpectObject(*sel, selp));
      LabelSelector ls;
      TIDEPOOL_RETURN_IF_ERROR(Field(*sel, selp, "matchLabels", &ls.match_labels, DecodeStringMap));
      TIDEPOOL_RETURN_IF_ERROR(
          Field(*sel, selp, "matchExpressions", &ls.match_expressions, DecodeRequirements));
      b.selector = std::move(ls);
    }
  }
  if (auto status = j.find("status"); status != j.end() && !status->is_null()) {
    const Path st = root.Field("status");
    TIDEPOOL_RETURN_IF_ERROR(ExpectObject(*status, st));
    TIDEPOOL_RETURN_IF_ERROR(
        Field(*status, st, "disruptionsAllowed", &b.disruptions_allowed, DecodeInt<int32_t>));
  }
  return b;
}

StatusOr<Node> NodeFromJson(const json& j) {
  try {
    return DecodeNode(j);
  } catch (const json::exception& e) {  // not expected: every access checks the type first
    return InternalError(std::string("decoding a Node: ") + e.what());
  }
}

json PodStatusToJson(const PodStatus& s) { return PodStatusJson(s); }

json PodToJson(const Pod& p) {
  json j = json::object();
  j["apiVersion"] = "v1";
  j["kind"] = "Pod";
  j["metadata"] = ObjectMetaToJson(p.meta);
  j["spec"] = PodSpecToJson(p.spec);
  j["status"] = PodStatusJson(p.status);
  return j;
}

json NodeToJson(const Node& n) {
  json j = json::object();
  j["apiVersion"] = "v1";
  j["kind"] = "Node";
  j["metadata"] = ObjectMetaToJson(n.meta);
  json spec = json::object();
  if (n.spec.unschedulable) {
    spec["unschedulable"] = true;
  }
  PutList(spec, "taints", n.spec.taints, TaintToJson);
  PutString(spec, "providerID", n.spec.provider_id);
  j["spec"] = std::move(spec);
  json status = json::object();
  PutResourceList(status, "capacity", n.status.capacity);
  PutResourceList(status, "allocatable", n.status.allocatable);
  PutList(status, "conditions", n.status.conditions, NodeConditionToJson);
  j["status"] = std::move(status);
  return j;
}

StatusOr<json> ParseJson(std::string_view text) {
  TIDEPOOL_RETURN_IF_ERROR(CheckJsonDepth(text));
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return InvalidArgumentError("json: " + StripExceptionId(e.what()));
  }
}

std::string DumpJson(const json& j) {
  // With error_handler_t::replace, dump() has no failure left (type_error.316 is the only
  // exception it can throw, for invalid UTF-8).
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tidepool::api::codec
