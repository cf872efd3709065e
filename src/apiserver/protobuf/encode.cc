// File: encode.cc
//
// A small wire writer, then one walker over the tables of messages.h that writes the JSON of
// an object as gogo's generated Marshal methods write the Go object, and the runtime.Unknown
// envelope around it.
#include "apiserver/protobuf/encode.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "apiserver/protobuf/decode.h"
#include "apiserver/protobuf/wire.h"
#include "common/clock.h"

namespace tidepool::apiserver::protobuf {
namespace {

using nlohmann::json;

// --- Field paths and errors. ---

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string Key(const std::string& path, std::string_view key) {
  return path + "[" + std::string(key) + "]";
}

Status Invalid(const std::string& path, std::string_view message) {
  return InvalidArgumentError(path.empty() ? std::string(message)
                                           : path + ": " + std::string(message));
}

Status Expected(const std::string& path, std::string_view what) {
  return Invalid(path, "expected " + std::string(what));
}

// --- Scalars. ---

// A JSON integer as int32 (`int32`) or int64; floats (1.5, 1e3) are refused, as encoding/json
// refuses them for Go integers.
StatusOr<int64_t> IntValue(const json& v, const std::string& path, bool int32) {
  if (!v.is_number_integer()) {
    return Expected(path, "an integer");
  }
  const int64_t lo =
      int32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  const int64_t hi =
      int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) {
      return Invalid(path,
                     std::to_string(u) + " is out of range for " + (int32 ? "int32" : "int64"));
    }
    return static_cast<int64_t>(u);
  }
  const auto i = v.get<int64_t>();
  if (i < lo || i > hi) {
    return Invalid(path, std::to_string(i) + " is out of range for " + (int32 ? "int32" : "int64"));
  }
  return i;
}

// Standard base64 with padding, as encoding/json decodes a []byte (base64.StdEncoding).
StatusOr<std::string> Base64Decode(std::string_view in, const std::string& path) {
  const auto illegal = [&](size_t at) {
    return Invalid(path, "illegal base64 data at input byte " + std::to_string(at));
  };
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(in.size() / 4 * 3);
  uint32_t acc = 0;
  int n = 0;  // sextets in acc
  size_t i = 0;
  for (; i < in.size() && in[i] != '='; ++i) {
    const int v = value(in[i]);
    if (v < 0) return illegal(i);
    acc = acc << 6 | static_cast<uint32_t>(v);
    if (++n == 4) {
      out += static_cast<char>(acc >> 16);
      out += static_cast<char>(acc >> 8);
      out += static_cast<char>(acc);
      acc = 0;
      n = 0;
    }
  }
  if (i == in.size()) {
    if (n != 0) return illegal(in.size());
    return out;
  }
  // Padding: "xx==" or "xxx=", and nothing after it.
  if (n < 2) return illegal(i);
  const size_t pad = 4 - static_cast<size_t>(n);
  for (size_t j = 0; j < pad; ++j) {
    if (i + j >= in.size() || in[i + j] != '=') return illegal(i + j);
  }
  if (i + pad != in.size()) return illegal(i + pad);
  if (n == 2) {
    out += static_cast<char>(acc >> 4);
  } else {
    out += static_cast<char>(acc >> 10);
    out += static_cast<char>(acc >> 2);
  }
  return out;
}

struct Timestamp {
  int64_t seconds = 0;
  int32_t nanos = 0;  // [0, 1e9)
};

// RFC 3339 -> seconds and nanos since the epoch. TimePoint holds int64 nanoseconds (years 1678
// to 2262), and metav1.Time reaches 0000-9999: as the Gregorian calendar repeats every 400
// years, a year outside 1800-2199 is moved into it by whole 400-year cycles for
// ParseRfc3339, and the cycles' seconds added back.
StatusOr<Timestamp> ParseTime(const std::string& text, const std::string& path) {
  constexpr int64_t kCycleSeconds = int64_t{146097} * 86400;
  std::string shifted = text;
  int64_t cycles = 0;
  const auto digit = [&](size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() >= 5 && digit(0) && digit(1) && digit(2) && digit(3) && text[4] == '-') {
    const int year = std::stoi(text.substr(0, 4));
    // floor((2199 - year) / 400): the year + 400 * cycles in [1800, 2199].
    const int num = 2199 - year;
    cycles = num >= 0 ? num / 400 : -((-num + 399) / 400);
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04d", year + static_cast<int>(cycles) * 400);
    shifted.replace(0, 4, buf);
  }
  auto t = ParseRfc3339(shifted);
  if (!t.ok()) {
    // The same text for the text as sent (the shift keeps its syntax).
    auto original = ParseRfc3339(text);
    return Invalid(path, original.ok() ? t.status().message() : original.status().message());
  }
  const int64_t ns = t->time_since_epoch().count();
  Timestamp ts;
  ts.seconds = ns / 1000000000;
  int64_t rem = ns % 1000000000;
  if (rem < 0) {
    rem += 1000000000;
    --ts.seconds;
  }
  ts.nanos = static_cast<int32_t>(rem);
  ts.seconds -= cycles * kCycleSeconds;
  return ts;
}

// metav1.Time / MicroTime {1: seconds, 2: nanos}; null is the zero time, an empty message.
StatusOr<std::string> TimeMessage(const json& v, const std::string& path) {
  std::string out;
  if (v.is_null()) return out;
  if (!v.is_string()) return Expected(path, "a string");
  TIDEPOOL_ASSIGN_OR_RETURN(const Timestamp ts, ParseTime(v.get_ref<const std::string&>(), path));
  PutVarintField(out, 1, static_cast<uint64_t>(ts.seconds));
  if (ts.nanos != 0) PutVarintField(out, 2, static_cast<uint64_t>(int64_t{ts.nanos}));
  return out;
}

// resource.Quantity {1: string}: the string, or a JSON number's text (Quantity.UnmarshalJSON
// takes both); null is the zero Quantity, "0".
StatusOr<std::string> QuantityMessage(const json& v, const std::string& path) {
  std::string s;
  if (v.is_null()) {
    s = "0";
  } else if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_number()) {
    s = v.dump();
  } else {
    return Expected(path, "a string or a number");
  }
  if (s.empty()) {
    return Invalid(path,
                   "quantities must match the regular expression "
                   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  std::string out;
  PutBytesField(out, 1, s);
  return out;
}

// intstr.IntOrString {1: type, 2: intVal, 3: strVal}: an integer is {1: 0, 2: intVal}, a string
// {1: 1, 3: strVal}.
StatusOr<std::string> IntOrStringMessage(const json& v, const std::string& path) {
  std::string out;
  if (v.is_string()) {
    PutVarintField(out, 1, 1);
    PutBytesField(out, 3, v.get_ref<const std::string&>());
    return out;
  }
  if (!v.is_number_integer()) return Expected(path, "an integer or a string");
  TIDEPOOL_ASSIGN_OR_RETURN(const int64_t i, IntValue(v, path, /*int32=*/true));
  PutVarintField(out, 1, 0);
  PutVarintField(out, 2, static_cast<uint64_t>(i));
  return out;
}

// --- The walker. ---

Status EncodeInto(const MessageSpec& m, const json& object, const std::string& path,
                  std::string& out);

// The JSON of a Go zero value of `kind`, for a null list element (encoding/json leaves the
// element zero).
json ZeroOf(Kind kind) {
  switch (kind) {
    case Kind::kString:
    case Kind::kBytes:
      return "";
    case Kind::kInt32:
    case Kind::kInt64:
    case Kind::kIntOrString:
      return 0;
    case Kind::kBool:
      return false;
    case Kind::kMessage:
      return json::object();
    default:
      return nullptr;  // Time: the zero time; Quantity: "0"
  }
}

// One value of field `f` (the field itself, or one element of a list) as field `f.number`.
Status EncodeValue(const FieldSpec& f, const json& value, const std::string& path,
                   std::string& out) {
  const json zero = value.is_null() ? ZeroOf(f.kind) : json();
  const json& v = value.is_null() ? zero : value;
  switch (f.kind) {
    case Kind::kString:
      if (!v.is_string()) return Expected(path, "a string");
      PutBytesField(out, f.number, v.get_ref<const std::string&>());
      return OkStatus();
    case Kind::kBytes: {
      if (!v.is_string()) return Expected(path, "a string");
      TIDEPOOL_ASSIGN_OR_RETURN(const std::string bytes,
                                Base64Decode(v.get_ref<const std::string&>(), path));
      PutBytesField(out, f.number, bytes);
      return OkStatus();
    }
    case Kind::kInt32:
    case Kind::kInt64: {
      // int32 -> uint64 sign-extends, as Go's uint64(int32) does: -1 is 10 bytes.
      TIDEPOOL_ASSIGN_OR_RETURN(const int64_t i, IntValue(v, path, f.kind == Kind::kInt32));
      PutVarintField(out, f.number, static_cast<uint64_t>(i));
      return OkStatus();
    }
    case Kind::kBool:
      if (!v.is_boolean()) return Expected(path, "a boolean");
      PutVarintField(out, f.number, v.get<bool>() ? 1 : 0);
      return OkStatus();
    case Kind::kRawExtension: {
      std::string sub;
      if (!v.is_null()) PutBytesField(sub, 1, v.dump());
      PutBytesField(out, f.number, sub);
      return OkStatus();
    }
    case Kind::kMessage: {
      if (!v.is_object()) return Expected(path, "an object");
      std::string sub;
      TIDEPOOL_RETURN_IF_ERROR(EncodeInto(*f.message, v, path, sub));
      PutBytesField(out, f.number, sub);
      return OkStatus();
    }
    case Kind::kTime:
    case Kind::kMicroTime: {
      TIDEPOOL_ASSIGN_OR_RETURN(const std::string sub, TimeMessage(v, path));
      PutBytesField(out, f.number, sub);
      return OkStatus();
    }
    case Kind::kQuantity: {
      TIDEPOOL_ASSIGN_OR_RETURN(const std::string sub, QuantityMessage(v, path));
      PutBytesField(out, f.number, sub);
      return OkStatus();
    }
    case Kind::kIntOrString: {
      TIDEPOOL_ASSIGN_OR_RETURN(const std::string sub, IntOrStringMessage(v, path));
      PutBytesField(out, f.number, sub);
      return OkStatus();
    }
    default:
      return InvalidArgumentError(path + ": a map cannot be a list element");  // no table does
  }
}

// ExtraValue {1: repeated string items} from a JSON array of strings; null is the empty
// message, a null element "" (encoding/json leaves it zero).
StatusOr<std::string> StringListMessage(const json& v, const std::string& path) {
  std::string out;
  if (v.is_null()) return out;
  if (!v.is_array()) return Expected(path, "an array");
  for (size_t i = 0; i < v.size(); ++i) {
    const json& item = v[i];
    if (item.is_null()) {
      PutBytesField(out, 1, "");
    } else if (item.is_string()) {
      PutBytesField(out, 1, item.get_ref<const std::string&>());
    } else {
      return Expected(Index(path, i), "a string");
    }
  }
  return out;
}

// A map field: one entry {1: key, 2: value} per key, in sorted key order as gogo writes them
// (nlohmann::json keeps an object's keys in a std::map, ordered bytewise as Go's sort.Strings).
Status EncodeMap(const FieldSpec& f, const json& map, const std::string& path, std::string& out) {
  if (!map.is_object()) return Expected(path, "an object");
  for (const auto& [k, v] : map.items()) {
    const std::string vpath = Key(path, k);
    std::string entry;
    PutBytesField(entry, 1, k);
    switch (f.kind) {
      case Kind::kStringMap:
        if (v.is_null()) {
          PutBytesField(entry, 2, "");
        } else if (v.is_string()) {
          PutBytesField(entry, 2, v.get_ref<const std::string&>());
        } else {
          return Expected(vpath, "a string");
        }
        break;
      case Kind::kBytesMap:
        // A nil []byte value is left out, as gogo does.
        if (!v.is_null()) {
          if (!v.is_string()) return Expected(vpath, "a string");
          TIDEPOOL_ASSIGN_OR_RETURN(const std::string bytes,
                                    Base64Decode(v.get_ref<const std::string&>(), vpath));
          PutBytesField(entry, 2, bytes);
        }
        break;
      case Kind::kQuantityMap: {
        TIDEPOOL_ASSIGN_OR_RETURN(const std::string q, QuantityMessage(v, vpath));
        PutBytesField(entry, 2, q);
        break;
      }
      case Kind::kTimeMap: {
        TIDEPOOL_ASSIGN_OR_RETURN(const std::string t, TimeMessage(v, vpath));
        PutBytesField(entry, 2, t);
        break;
      }
      case Kind::kStringListMap: {
        TIDEPOOL_ASSIGN_OR_RETURN(const std::string items, StringListMessage(v, vpath));
        PutBytesField(entry, 2, items);
        break;
      }
      default:
        break;
    }
    PutBytesField(out, f.number, entry);
  }
  return OkStatus();
}

bool IsMap(Kind kind) {
  return kind == Kind::kStringMap || kind == Kind::kBytesMap || kind == Kind::kQuantityMap ||
         kind == Kind::kTimeMap || kind == Kind::kStringListMap;
}

// One field of `m` from `object` (whose path is `path`).
Status EncodeField(const FieldSpec& f, const json& object, const std::string& path,
                   std::string& out) {
  if ((f.flags & kInline) != 0) {
    // The embedded struct's fields are the parent's JSON keys; gogo always writes the struct.
    std::string sub;
    TIDEPOOL_RETURN_IF_ERROR(EncodeInto(*f.message, object, path, sub));
    PutBytesField(out, f.number, sub);
    return OkStatus();
  }
  const auto it = object.find(f.json);
  if (it == object.end() || it->is_null()) return OkStatus();
  const std::string fpath = Child(path, f.json);
  if (IsMap(f.kind)) return EncodeMap(f, *it, fpath, out);
  if ((f.flags & kRepeated) != 0) {
    if (!it->is_array()) return Expected(fpath, "an array");
    for (size_t i = 0; i < it->size(); ++i) {
      TIDEPOOL_RETURN_IF_ERROR(EncodeValue(f, (*it)[i], Index(fpath, i), out));
    }
    return OkStatus();
  }
  return EncodeValue(f, *it, fpath, out);
}

// Every field of `m`, in the table's (field-number) order, from `object` (a JSON object).
Status EncodeInto(const MessageSpec& m, const json& object, const std::string& path,
                  std::string& out) {
  for (const FieldSpec& f : m.fields) {
    TIDEPOOL_RETURN_IF_ERROR(EncodeField(f, object, path, out));
  }
  return OkStatus();
}

// object[key] as a non-empty string.
StatusOr<std::string> TypeMetaString(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Invalid(key, "missing");
  if (!it->is_string()) return Expected(key, "a string");
  if (it->get_ref<const std::string&>().empty()) return Invalid(key, "missing");
  return it->get<std::string>();
}

// "k8s\0" + runtime.Unknown{TypeMeta{api_version, kind}, raw, contentEncoding "",
// contentType ""}: gogo writes the empty strings.
std::string Envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  std::string type_meta;
  PutBytesField(type_meta, 1, api_version);
  PutBytesField(type_meta, 2, kind);
  std::string out(kMagic);
  PutBytesField(out, 1, type_meta);
  PutBytesField(out, 2, raw);
  PutBytesField(out, 3, "");  // contentEncoding
  PutBytesField(out, 4, "");  // contentType
  return out;
}

Status NotSupported(std::string_view kind, std::string_view api_version) {
  return UnimplementedError("protobuf bodies of kind \"" + std::string(kind) + "\" in version \"" +
                            std::string(api_version) +
                            "\" are not supported; send application/json");
}

}  // namespace

StatusOr<std::string> EncodeMessage(const json& object, const MessageSpec& spec) {
  if (!object.is_object()) return Expected("", "an object");
  std::string out;
  TIDEPOOL_RETURN_IF_ERROR(EncodeInto(spec, object, "", out));
  return out;
}

StatusOr<std::string> EncodeObject(const json& object) {
  if (!object.is_object()) return Expected("", "an object");
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string api_version, TypeMetaString(object, "apiVersion"));
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string kind, TypeMetaString(object, "kind"));
  const MessageSpec* spec = FindKind(api_version, kind);
  if (spec == nullptr) return NotSupported(kind, api_version);
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string raw, EncodeMessage(object, *spec));
  return Envelope(api_version, kind, raw);
}

StatusOr<ListEncoder> ListEncoder::Start(std::string_view api_version, std::string_view kind,
                                         const json& list_meta) {
  ListEncoder e;
  e.item_ = FindKind(api_version, kind);
  if (e.item_ == nullptr) return NotSupported(kind, api_version);
  e.api_version_ = std::string(api_version);
  e.list_kind_ = std::string(kind) + "List";
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string meta, EncodeMessage(list_meta, ListMetaMessage()));
  PutBytesField(e.raw_, 1, meta);
  return e;
}

Status ListEncoder::Add(const json& item) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string raw, EncodeMessage(item, *item_));
  PutBytesField(raw_, 2, raw);
  return OkStatus();
}

std::string ListEncoder::Finish() const { return Envelope(api_version_, list_kind_, raw_); }

StatusOr<std::string> EncodeWatchEvent(std::string_view type, const json& object) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string body, EncodeObject(object));
  std::string raw_extension;
  PutBytesField(raw_extension, 1, body);
  std::string event;
  PutBytesField(event, 1, type);
  PutBytesField(event, 2, raw_extension);
  std::string frame(4, '\0');
  const uint32_t n = static_cast<uint32_t>(event.size());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>(n >> (24 - 8 * i));
  return frame + event;
}

}  // namespace tidepool::apiserver::protobuf
