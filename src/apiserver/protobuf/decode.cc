// File: decode.cc
//
// The runtime.Unknown envelope (pkg/runtime generated.proto), then one walker over the tables of
// messages.h; Go field names in errors are those gogo's generated Unmarshal methods print.
#include "apiserver/protobuf/decode.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/protobuf/messages.h"
#include "apiserver/protobuf/wire.h"

namespace tidepool::apiserver::protobuf {
namespace {

using nlohmann::json;

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16 | static_cast<uint8_t>(in[i + 1]) << 8 |
                       static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16 | static_cast<uint8_t>(in[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

StatusOr<json> TimeJson(std::string_view data, std::string_view key, bool micro);
StatusOr<json> QuantityJson(std::string_view data, std::string_view go_name);
StatusOr<json> IntOrStringJson(std::string_view data, std::string_view go_name);

// The JSON of a Go zero value for a kAlways field absent from the wire, or null to omit it.
json ZeroValue(const FieldSpec& f);

// The object a message starts as: the zero values of its kAlways fields (those of kInline
// structs merged in), as encoding/json writes a zero Go struct.
json Prefilled(const MessageSpec& m) {
  json out = json::object();
  for (const FieldSpec& f : m.fields) {
    if (f.presence != Presence::kAlways || (f.flags & kRepeated) != 0) continue;
    json zero = ZeroValue(f);
    if (zero.is_null()) continue;
    if ((f.flags & kInline) != 0) {
      out.update(zero);
    } else {
      out[f.json] = std::move(zero);
    }
  }
  return out;
}

json ZeroValue(const FieldSpec& f) {
  switch (f.kind) {
    case Kind::kString:
      return "";
    case Kind::kInt32:
    case Kind::kInt64:
    case Kind::kIntOrString:
      return 0;
    case Kind::kBool:
      return false;
    case Kind::kQuantity:
      return "0";
    case Kind::kMessage:
      return Prefilled(*f.message);
    default:
      return nullptr;  // bytes (nil), maps (omitted), Time and MicroTime (null, omitted)
  }
}

// Sets or, for an omitempty zero value, removes out[key].
void Set(json& out, const FieldSpec& f, json v, bool zero) {
  if (zero && f.presence == Presence::kOmitEmpty) {
    out.erase(f.json);
  } else {
    out[f.json] = std::move(v);
  }
}

// Appends v to the list out[key].
void Append(json& out, const FieldSpec& f, json v) {
  json& list = out[f.json];
  if (!list.is_array()) list = json::array();
  list.push_back(std::move(v));
}

// One integer: int32 fields hold a sign-extended varint.
json IntJson(const FieldSpec& f, uint64_t v) {
  if (f.kind == Kind::kInt32) return static_cast<int32_t>(v);
  if (f.kind == Kind::kBool) return v != 0;
  return static_cast<int64_t>(v);
}

// A repeated varint field, packed (one bytes value of varints) or not.
Status AppendInts(const FieldSpec& f, const Field& field, json& out) {
  if (field.type != WireType::kBytes) {
    TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(field, f.go));
    Append(out, f, IntJson(f, v));
    return OkStatus();
  }
  uint64_t v = 0;
  int shift = 0;
  for (const char c : field.bytes) {
    if (shift >= 64) return InvalidArgumentError("proto: integer overflow");
    v |= static_cast<uint64_t>(static_cast<uint8_t>(c) & 0x7F) << shift;
    shift += 7;
    if ((static_cast<uint8_t>(c) & 0x80) == 0) {
      Append(out, f, IntJson(f, v));
      v = 0;
      shift = 0;
    }
  }
  if (shift != 0) return InvalidArgumentError("unexpected EOF");
  return OkStatus();
}

Status DecodeInto(const MessageSpec& m, std::string_view data, json& out);

// ExtraValue {1: repeated string items}: the items as a JSON array, [] when there are none (a
// value on the wire starts a fresh slice, as gogo's Unmarshal does).
StatusOr<json> StringListJson(std::string_view data) {
  json items = json::array();
  Reader r(data, "ExtraValue");
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view item, BytesValue(e, "Items"));
      items.push_back(std::string(item));
    }
  }
  return items;
}

// One entry of a map field: {1: key, 2: value}.
Status MapEntry(const FieldSpec& f, std::string_view entry, json& out) {
  std::string_view k;
  json v;
  switch (f.kind) {
    case Kind::kQuantityMap:
      v = "0";
      break;
    case Kind::kTimeMap:
      v = nullptr;
      break;
    case Kind::kStringListMap:
      v = json::array();  // gogo's `&ExtraValue{}`: a non-nil empty slice, JSON []
      break;
    default:
      v = "";
      break;
  }
  Reader r(entry, f.go);
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(k, BytesValue(e, "key"));
    } else if (e.number == 2) {
      TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view value, BytesValue(e, "value"));
      switch (f.kind) {
        case Kind::kBytesMap:
          v = Base64(value);
          break;
        case Kind::kQuantityMap: {
          TIDEPOOL_ASSIGN_OR_RETURN(v, QuantityJson(value, "value"));
          break;
        }
        case Kind::kTimeMap: {
          TIDEPOOL_ASSIGN_OR_RETURN(v, TimeJson(value, f.json, /*micro=*/false));
          break;
        }
        case Kind::kStringListMap: {
          TIDEPOOL_ASSIGN_OR_RETURN(v, StringListJson(value));
          break;
        }
        default:
          v = std::string(value);
          break;
      }
    }
  }
  out[f.json][std::string(k)] = std::move(v);
  return OkStatus();
}

// runtime.RawExtension {1: raw}: the raw bytes as the JSON value they hold (a client that
// encodes JSON objects into protobuf bodies, as client-go does, sends JSON there).
StatusOr<json> RawExtensionJson(std::string_view data, const char* go) {
  std::string_view raw;
  Reader r(data, "RawExtension");
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(raw, BytesValue(e, "Raw"));
    }
  }
  if (raw.empty()) return json(nullptr);
  json v = json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) {
    return InvalidArgumentError(std::string("proto: ") + go + ": raw extension is not JSON");
  }
  return v;
}

// A field holding an embedded message (or a list element, or an inline struct).
Status MessageField(const FieldSpec& f, std::string_view data, json& out) {
  if ((f.flags & kInline) != 0) {
    return DecodeInto(*f.message, data, out);
  }
  if ((f.flags & kRepeated) != 0) {
    json elem = Prefilled(*f.message);
    TIDEPOOL_RETURN_IF_ERROR(DecodeInto(*f.message, data, elem));
    Append(out, f, std::move(elem));
    return OkStatus();
  }
  // A message repeated on the wire merges into the first, as gogo's Unmarshal does.
  json& child = out[f.json];
  if (!child.is_object()) child = Prefilled(*f.message);
  return DecodeInto(*f.message, data, child);
}

// One field of the wire, decoded into `out` as `f` says.
Status DecodeField(const FieldSpec& f, const Field& field, json& out) {
  const bool repeated = (f.flags & kRepeated) != 0;
  switch (f.kind) {
    case Kind::kInt32:
    case Kind::kInt64:
    case Kind::kBool: {
      if (repeated) return AppendInts(f, field, out);
      TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(field, f.go));
      Set(out, f, IntJson(f, v), v == 0);
      return OkStatus();
    }
    default:
      break;
  }
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view data, BytesValue(field, f.go));
  switch (f.kind) {
    case Kind::kString:
      if (repeated) {
        Append(out, f, std::string(data));
      } else {
        Set(out, f, std::string(data), data.empty());
      }
      return OkStatus();
    case Kind::kBytes:
      if (repeated) {
        Append(out, f, Base64(data));
      } else {
        Set(out, f, Base64(data), data.empty());
      }
      return OkStatus();
    case Kind::kStringMap:
    case Kind::kBytesMap:
    case Kind::kQuantityMap:
    case Kind::kTimeMap:
    case Kind::kStringListMap:
      return MapEntry(f, data, out);
    case Kind::kMessage:
      return MessageField(f, data, out);
    case Kind::kTime:
    case Kind::kMicroTime: {
      TIDEPOOL_ASSIGN_OR_RETURN(json t, TimeJson(data, f.json, f.kind == Kind::kMicroTime));
      if (repeated) {
        Append(out, f, std::move(t));
      } else if (t.is_null()) {
        out.erase(f.json);  // the zero time: JSON null, omitted
      } else {
        out[f.json] = std::move(t);
      }
      return OkStatus();
    }
    case Kind::kRawExtension: {
      TIDEPOOL_ASSIGN_OR_RETURN(json v, RawExtensionJson(data, f.go));
      if (v.is_null()) {
        out.erase(f.json);
      } else {
        out[f.json] = std::move(v);
      }
      return OkStatus();
    }
    case Kind::kQuantity:
    case Kind::kIntOrString: {
      TIDEPOOL_ASSIGN_OR_RETURN(json v, f.kind == Kind::kQuantity ? QuantityJson(data, f.go)
                                                                  : IntOrStringJson(data, f.go));
      if (repeated) {
        Append(out, f, std::move(v));
      } else {
        out[f.json] = std::move(v);
      }
      return OkStatus();
    }
    default:
      return OkStatus();
  }
}

const FieldSpec* FindField(const MessageSpec& m, uint32_t number) {
  for (const FieldSpec& f : m.fields) {
    if (f.number == number) return &f;
  }
  return nullptr;
}

// Reads every field of a message of type `m` into `out`, skipping the fields `m` does not know.
Status DecodeInto(const MessageSpec& m, std::string_view data, json& out) {
  Reader r(data, m.name);
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field field, r.Next());
    const FieldSpec* f = FindField(m, field.number);
    if (f != nullptr) {
      TIDEPOOL_RETURN_IF_ERROR(DecodeField(*f, field, out));
    }
  }
  return OkStatus();
}

// metav1.Time {1: seconds, 2: nanos}: RFC 3339, seconds precision; an empty message is the zero
// time, JSON null. A metav1.MicroTime (`micro`) is the same message written with six fractional
// digits: as MicroTime.Unmarshal, nanos are truncated towards zero to microseconds, then
// time.Unix normalises them (negative or over a second) into the seconds.
StatusOr<json> TimeJson(std::string_view data, std::string_view key, bool micro) {
  if (data.empty()) {
    return json(nullptr);
  }
  int64_t seconds = 0;
  int32_t nanos = 0;
  Reader r(data, "Timestamp");
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(e, "Seconds"));
      seconds = static_cast<int64_t>(v);
    } else if (e.number == 2) {
      TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(e, "Nanos"));
      nanos = static_cast<int32_t>(v);
    }
  }
  // 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
  constexpr int64_t kMin = -62167219200;
  constexpr int64_t kMax = 253402300799;
  const auto out_of_range = [&] {
    return InvalidArgumentError(std::string(key) + ": year outside of range [0,9999]");
  };
  int64_t micros = 0;
  if (micro) {
    // |nanos| < 2^31 moves the seconds by at most 3; checked first so the sum cannot overflow.
    if (seconds < kMin - 3 || seconds > kMax + 3) return out_of_range();
    micros = nanos / 1000;  // towards zero, as time.Duration.Truncate
    seconds += micros / 1000000;
    micros %= 1000000;
    if (micros < 0) {
      micros += 1000000;
      --seconds;
    }
  }
  if (seconds < kMin || seconds > kMax) {
    return out_of_range();
  }
  using std::chrono::days;
  int64_t d = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --d;
  }
  const std::chrono::year_month_day ymd{std::chrono::sys_days{days{d}}};
  char buf[40];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d",
                        static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                        static_cast<unsigned>(ymd.day()), static_cast<int>(rem / 3600),
                        static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60));
  if (micro) {
    n += std::snprintf(buf + n, sizeof buf - n, ".%06d", static_cast<int>(micros));
  }
  std::snprintf(buf + n, sizeof buf - n, "Z");
  return json(buf);
}

// resource.Quantity {1: string}: the string as sent (the JSON path validates quantities); as
// resource.ParseQuantity, an empty one is refused.
StatusOr<json> QuantityJson(std::string_view data, std::string_view go_name) {
  std::string_view s;
  Reader r(data, "Quantity");
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(s, BytesValue(e, "String"));
    }
  }
  if (s.empty()) {
    return InvalidArgumentError(std::string(go_name) +
                                ": quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  return json(std::string(s));
}

// intstr.IntOrString {1: type (0 int, 1 string), 2: intVal, 3: strVal}.
StatusOr<json> IntOrStringJson(std::string_view data, std::string_view go_name) {
  uint64_t type = 0;
  int32_t int_val = 0;
  std::string_view str_val;
  Reader r(data, "IntOrString");
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(type, VarintValue(e, "Type"));
    } else if (e.number == 2) {
      TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(e, "IntVal"));
      int_val = static_cast<int32_t>(v);
    } else if (e.number == 3) {
      TIDEPOOL_ASSIGN_OR_RETURN(str_val, BytesValue(e, "StrVal"));
    }
  }
  if (type == 0) return json(int_val);
  if (type == 1) return json(std::string(str_val));
  return InvalidArgumentError(std::string(go_name) + ": impossible IntOrString.Type");
}

struct Unknown {
  std::string_view api_version;
  std::string_view kind;
  std::string_view raw;
};

StatusOr<Unknown> DecodeUnknown(std::string_view data) {
  Unknown u;
  Reader r(data, "Unknown");
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field f, r.Next());
    switch (f.number) {
      case 1: {
        TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view tm, BytesValue(f, "TypeMeta"));
        Reader t(tm, "TypeMeta");
        while (!t.Done()) {
          TIDEPOOL_ASSIGN_OR_RETURN(const Field e, t.Next());
          if (e.number == 1) {
            TIDEPOOL_ASSIGN_OR_RETURN(u.api_version, BytesValue(e, "APIVersion"));
          } else if (e.number == 2) {
            TIDEPOOL_ASSIGN_OR_RETURN(u.kind, BytesValue(e, "Kind"));
          }
        }
        break;
      }
      case 2: {
        TIDEPOOL_ASSIGN_OR_RETURN(u.raw, BytesValue(f, "Raw"));
        break;
      }
      case 3:
        TIDEPOOL_RETURN_IF_ERROR(BytesValue(f, "ContentEncoding").status());
        break;
      case 4:
        TIDEPOOL_RETURN_IF_ERROR(BytesValue(f, "ContentType").status());
        break;
      default:
        break;
    }
  }
  return u;
}

// The envelope of a whole body, with kube-apiserver's texts for one that is not protobuf.
StatusOr<Unknown> DecodeBody(std::string_view body) {
  if (body.empty()) {
    return InvalidArgumentError("empty data");
  }
  if (body.size() < kMagic.size() || body.substr(0, kMagic.size()) != kMagic) {
    return InvalidArgumentError(
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  }
  if (body.size() == kMagic.size()) {
    return InvalidArgumentError("empty body");
  }
  return DecodeUnknown(body.substr(kMagic.size()));
}

Status NotSupported(std::string_view kind, std::string_view api_version) {
  return UnimplementedError("protobuf bodies of kind \"" + std::string(kind) + "\" in version \"" +
                            std::string(api_version) +
                            "\" are not supported; send application/json");
}

}  // namespace

StatusOr<json> DecodeObject(std::string_view body) {
  TIDEPOOL_ASSIGN_OR_RETURN(const Unknown u, DecodeBody(body));
  const MessageSpec* spec = FindKind(u.api_version, u.kind);
  if (spec == nullptr) return NotSupported(u.kind, u.api_version);
  TIDEPOOL_ASSIGN_OR_RETURN(json out, DecodeMessage(u.raw, *spec));
  out["apiVersion"] = std::string(u.api_version);
  out["kind"] = std::string(u.kind);
  return out;
}

StatusOr<json> DecodeList(std::string_view body) {
  TIDEPOOL_ASSIGN_OR_RETURN(const Unknown u, DecodeBody(body));
  constexpr std::string_view kList = "List";
  const MessageSpec* spec = nullptr;
  if (u.kind.size() > kList.size() && u.kind.ends_with(kList)) {
    spec = FindKind(u.api_version, u.kind.substr(0, u.kind.size() - kList.size()));
  }
  if (spec == nullptr) return NotSupported(u.kind, u.api_version);
  json out = {{"apiVersion", std::string(u.api_version)},
              {"kind", std::string(u.kind)},
              {"metadata", json::object()},
              {"items", json::array()}};
  Reader r(u.raw, u.kind);
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field f, r.Next());
    if (f.number != 1 && f.number != 2) continue;
    TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view data,
                              BytesValue(f, f.number == 1 ? "ListMeta" : "Items"));
    if (f.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(out["metadata"], DecodeMessage(data, ListMetaMessage()));
    } else {
      TIDEPOOL_ASSIGN_OR_RETURN(json item, DecodeMessage(data, *spec));
      out["items"].push_back(std::move(item));
    }
  }
  return out;
}

StatusOr<json> DecodeMessage(std::string_view data, const MessageSpec& spec) {
  json out = Prefilled(spec);
  TIDEPOOL_RETURN_IF_ERROR(DecodeInto(spec, data, out));
  return out;
}

}  // namespace tidepool::apiserver::protobuf
