// File: decode.cc
//
// Field numbers are those of k8s.io/api/core/v1/generated.proto and
// k8s.io/apimachinery/pkg/apis/meta/v1 and pkg/runtime generated.proto (Kubernetes 1.32); Go
// field names in errors are those gogo's generated Unmarshal methods print.
#include "apiserver/protobuf/decode.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

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

// Sets out[key] to the string unless it is empty (omitempty).
void SetString(json& out, const char* key, std::string_view s) {
  if (!s.empty()) {
    out[key] = std::string(s);
  }
}

// A string field: sets out[key] (omitempty).
Status StringField(const Field& f, std::string_view go_name, json& out, const char* key) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view s, BytesValue(f, go_name));
  SetString(out, key, s);
  return OkStatus();
}

// A string field without omitempty: sets out[key] even to "".
Status PlainStringField(const Field& f, std::string_view go_name, json& out, const char* key) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view s, BytesValue(f, go_name));
  out[key] = std::string(s);
  return OkStatus();
}

// An element of a repeated string field: appended, even when empty.
Status AppendString(const Field& f, std::string_view go_name, json& out, const char* key) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view s, BytesValue(f, go_name));
  out[key].push_back(std::string(s));
  return OkStatus();
}

Status BoolField(const Field& f, std::string_view go_name, json& out, const char* key) {
  TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(f, go_name));
  out[key] = v != 0;
  return OkStatus();
}

Status Int64Field(const Field& f, std::string_view go_name, json& out, const char* key) {
  TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(f, go_name));
  out[key] = static_cast<int64_t>(v);
  return OkStatus();
}

// One entry of a map<string, string> (or map<string, bytes> when `base64`): {1: key, 2: value}.
Status MapEntry(const Field& f, std::string_view go_name, bool base64, json& out, const char* key) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view entry, BytesValue(f, go_name));
  std::string_view k;
  std::string_view v;
  Reader r(entry, go_name);
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(k, BytesValue(e, "key"));
    } else if (e.number == 2) {
      TIDEPOOL_ASSIGN_OR_RETURN(v, BytesValue(e, "value"));
    }
  }
  out[key][std::string(k)] = base64 ? Base64(v) : std::string(v);
  return OkStatus();
}

// metav1.Time {1: seconds, 2: nanos}: RFC 3339, seconds precision; an empty message is unset.
Status TimeField(const Field& f, std::string_view go_name, json& out, const char* key) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view data, BytesValue(f, go_name));
  if (data.empty()) {
    return OkStatus();
  }
  int64_t seconds = 0;
  Reader r(data, "Timestamp");
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field e, r.Next());
    if (e.number == 1) {
      TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(e, "Seconds"));
      seconds = static_cast<int64_t>(v);
    } else if (e.number == 2) {
      TIDEPOOL_RETURN_IF_ERROR(VarintValue(e, "Nanos").status());
    }
  }
  // 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
  constexpr int64_t kMin = -62167219200;
  constexpr int64_t kMax = 253402300799;
  if (seconds < kMin || seconds > kMax) {
    return InvalidArgumentError(std::string(key) + ": year outside of range [0,9999]");
  }
  using std::chrono::days;
  int64_t d = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --d;
  }
  const std::chrono::year_month_day ymd{std::chrono::sys_days{days{d}}};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                static_cast<int>(rem % 60));
  out[key] = buf;
  return OkStatus();
}

// Decodes the embedded message in `f` with `decode(data)` and merges its keys into out[key].
template <typename Fn>
Status MessageField(const Field& f, std::string_view go_name, json& out, const char* key,
                    Fn decode) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view data, BytesValue(f, go_name));
  TIDEPOOL_ASSIGN_OR_RETURN(json j, decode(data));
  if (!out.contains(key)) {
    out[key] = json::object();
  }
  out[key].update(j);
  return OkStatus();
}

// Appends the embedded message in `f`, decoded with `decode(data)`, to the list out[key].
template <typename Fn>
Status AppendMessage(const Field& f, std::string_view go_name, json& out, const char* key,
                     Fn decode) {
  TIDEPOOL_ASSIGN_OR_RETURN(const std::string_view data, BytesValue(f, go_name));
  TIDEPOOL_ASSIGN_OR_RETURN(json j, decode(data));
  out[key].push_back(std::move(j));
  return OkStatus();
}

// Reads every field of a message into `out` with `decode_field(f, out)`, which ignores the
// fields it does not know.
template <typename Fn>
StatusOr<json> DecodeMessage(std::string_view data, std::string_view message, json out,
                             Fn decode_field) {
  Reader r(data, message);
  while (!r.Done()) {
    TIDEPOOL_ASSIGN_OR_RETURN(const Field f, r.Next());
    TIDEPOOL_RETURN_IF_ERROR(decode_field(f, out));
  }
  return out;
}

StatusOr<json> DecodeOwnerReference(std::string_view data) {
  // apiVersion, kind, name and uid have no omitempty in Go.
  json empty = {{"apiVersion", ""}, {"kind", ""}, {"name", ""}, {"uid", ""}};
  return DecodeMessage(data, "OwnerReference", std::move(empty),
                       [](const Field& f, json& out) -> Status {
                         switch (f.number) {
                           case 1:
                             return PlainStringField(f, "Kind", out, "kind");
                           case 3:
                             return PlainStringField(f, "Name", out, "name");
                           case 4:
                             return PlainStringField(f, "UID", out, "uid");
                           case 5:
                             return PlainStringField(f, "APIVersion", out, "apiVersion");
                           case 6:
                             return BoolField(f, "Controller", out, "controller");
                           case 7:
                             return BoolField(f, "BlockOwnerDeletion", out, "blockOwnerDeletion");
                           default:
                             return OkStatus();
                         }
                       });
}

Status ObjectMetaField(const Field& f, json& out) {
  switch (f.number) {
    case 1:
      return StringField(f, "Name", out, "name");
    case 2:
      return StringField(f, "GenerateName", out, "generateName");
    case 3:
      return StringField(f, "Namespace", out, "namespace");
    case 4:
      return StringField(f, "SelfLink", out, "selfLink");
    case 5:
      return StringField(f, "UID", out, "uid");
    case 6:
      return StringField(f, "ResourceVersion", out, "resourceVersion");
    case 7: {
      TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t v, VarintValue(f, "Generation"));
      if (v != 0) {
        out["generation"] = static_cast<int64_t>(v);
      }
      return OkStatus();
    }
    case 8:
      return TimeField(f, "CreationTimestamp", out, "creationTimestamp");
    case 9:
      return TimeField(f, "DeletionTimestamp", out, "deletionTimestamp");
    case 10:
      return Int64Field(f, "DeletionGracePeriodSeconds", out, "deletionGracePeriodSeconds");
    case 11:
      return MapEntry(f, "Labels", false, out, "labels");
    case 12:
      return MapEntry(f, "Annotations", false, out, "annotations");
    case 13:
      return AppendMessage(f, "OwnerReferences", out, "ownerReferences", DecodeOwnerReference);
    case 14:
      return AppendString(f, "Finalizers", out, "finalizers");
    default:
      return OkStatus();  // 15 clusterName, 16 initializers (both removed), 17 managedFields.
  }
}

StatusOr<json> DecodeObjectMeta(std::string_view data) {
  return DecodeMessage(data, "ObjectMeta", json::object(), ObjectMetaField);
}

// The object kinds: field 1 is metadata, always written; `decode_field` decodes the others.
template <typename Fn>
StatusOr<json> DecodeWithMeta(std::string_view data, std::string_view message, Fn decode_field) {
  json empty = {{"metadata", json::object()}};
  return DecodeMessage(data, message, std::move(empty),
                       [&decode_field](const Field& f, json& out) -> Status {
                         if (f.number == 1) {
                           return MessageField(f, "Metadata", out, "metadata", DecodeObjectMeta);
                         }
                         return decode_field(f, out);
                       });
}

StatusOr<json> DecodeConfigMap(std::string_view data) {
  return DecodeWithMeta(data, "ConfigMap", [](const Field& f, json& out) -> Status {
    switch (f.number) {
      case 2:
        return MapEntry(f, "Data", false, out, "data");
      case 3:
        return MapEntry(f, "BinaryData", true, out, "binaryData");
      case 4:
        return BoolField(f, "Immutable", out, "immutable");
      default:
        return OkStatus();
    }
  });
}

StatusOr<json> DecodeSecret(std::string_view data) {
  return DecodeWithMeta(data, "Secret", [](const Field& f, json& out) -> Status {
    switch (f.number) {
      case 2:
        return MapEntry(f, "Data", true, out, "data");
      case 3:
        return StringField(f, "Type", out, "type");
      case 4:
        return MapEntry(f, "StringData", false, out, "stringData");
      case 5:
        return BoolField(f, "Immutable", out, "immutable");
      default:
        return OkStatus();
    }
  });
}

StatusOr<json> DecodeNamespaceSpec(std::string_view data) {
  return DecodeMessage(
      data, "NamespaceSpec", json::object(), [](const Field& f, json& out) -> Status {
        return f.number == 1 ? AppendString(f, "Finalizers", out, "finalizers") : OkStatus();
      });
}

StatusOr<json> DecodeNamespaceStatus(std::string_view data) {
  // 2 conditions: set by the namespace controller, never by clients.
  return DecodeMessage(data, "NamespaceStatus", json::object(),
                       [](const Field& f, json& out) -> Status {
                         return f.number == 1 ? StringField(f, "Phase", out, "phase") : OkStatus();
                       });
}

StatusOr<json> DecodeNamespace(std::string_view data) {
  return DecodeWithMeta(data, "Namespace", [](const Field& f, json& out) -> Status {
    switch (f.number) {
      case 2:
        return MessageField(f, "Spec", out, "spec", DecodeNamespaceSpec);
      case 3:
        return MessageField(f, "Status", out, "status", DecodeNamespaceStatus);
      default:
        return OkStatus();
    }
  });
}

Status ObjectReferenceField(const Field& f, json& out) {
  switch (f.number) {
    case 1:
      return StringField(f, "Kind", out, "kind");
    case 2:
      return StringField(f, "Namespace", out, "namespace");
    case 3:
      return StringField(f, "Name", out, "name");
    case 4:
      return StringField(f, "UID", out, "uid");
    case 5:
      return StringField(f, "APIVersion", out, "apiVersion");
    case 6:
      return StringField(f, "ResourceVersion", out, "resourceVersion");
    case 7:
      return StringField(f, "FieldPath", out, "fieldPath");
    default:
      return OkStatus();
  }
}

StatusOr<json> DecodeObjectReference(std::string_view data) {
  return DecodeMessage(data, "ObjectReference", json::object(), ObjectReferenceField);
}

StatusOr<json> DecodeLocalObjectReference(std::string_view data) {
  return DecodeMessage(data, "LocalObjectReference", json::object(),
                       [](const Field& f, json& out) -> Status {
                         return f.number == 1 ? StringField(f, "Name", out, "name") : OkStatus();
                       });
}

StatusOr<json> DecodeServiceAccount(std::string_view data) {
  return DecodeWithMeta(data, "ServiceAccount", [](const Field& f, json& out) -> Status {
    switch (f.number) {
      case 2:
        return AppendMessage(f, "Secrets", out, "secrets", DecodeObjectReference);
      case 3:
        return AppendMessage(f, "ImagePullSecrets", out, "imagePullSecrets",
                             DecodeLocalObjectReference);
      case 4:
        return BoolField(f, "AutomountServiceAccountToken", out, "automountServiceAccountToken");
      default:
        return OkStatus();
    }
  });
}

StatusOr<json> DecodePreconditions(std::string_view data) {
  return DecodeMessage(data, "Preconditions", json::object(),
                       [](const Field& f, json& out) -> Status {
                         switch (f.number) {
                           case 1:
                             return StringField(f, "UID", out, "uid");
                           case 2:
                             return StringField(f, "ResourceVersion", out, "resourceVersion");
                           default:
                             return OkStatus();
                         }
                       });
}

Status DeleteOptionsField(const Field& f, json& out) {
  switch (f.number) {
    case 1:
      return Int64Field(f, "GracePeriodSeconds", out, "gracePeriodSeconds");
    case 2:
      return MessageField(f, "Preconditions", out, "preconditions", DecodePreconditions);
    case 3:
      return BoolField(f, "OrphanDependents", out, "orphanDependents");
    case 4:
      return StringField(f, "PropagationPolicy", out, "propagationPolicy");
    case 5:
      return AppendString(f, "DryRun", out, "dryRun");
    default:
      return OkStatus();
  }
}

StatusOr<json> DecodeDeleteOptions(std::string_view data) {
  return DecodeMessage(data, "DeleteOptions", json::object(), DeleteOptionsField);
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

// "v1" or "<group>/v1".
bool IsV1(std::string_view api_version) {
  if (api_version == "v1") {
    return true;
  }
  constexpr std::string_view kSuffix = "/v1";
  return api_version.size() > kSuffix.size() &&
         api_version.substr(api_version.size() - kSuffix.size()) == kSuffix;
}

}  // namespace

StatusOr<json> DecodeObject(std::string_view body) {
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
  TIDEPOOL_ASSIGN_OR_RETURN(const Unknown u, DecodeUnknown(body.substr(kMagic.size())));

  StatusOr<json> obj = UnimplementedError("protobuf bodies of kind \"" + std::string(u.kind) +
                                          "\" in version \"" + std::string(u.api_version) +
                                          "\" are not supported; send application/json");
  if (u.api_version == "v1" && u.kind == "ConfigMap") {
    obj = DecodeConfigMap(u.raw);
  } else if (u.api_version == "v1" && u.kind == "Secret") {
    obj = DecodeSecret(u.raw);
  } else if (u.api_version == "v1" && u.kind == "Namespace") {
    obj = DecodeNamespace(u.raw);
  } else if (u.api_version == "v1" && u.kind == "ServiceAccount") {
    obj = DecodeServiceAccount(u.raw);
  } else if (IsV1(u.api_version) && u.kind == "DeleteOptions") {
    obj = DecodeDeleteOptions(u.raw);
  }
  if (!obj.ok()) {
    return obj;
  }
  json out = std::move(obj).value();
  out["apiVersion"] = std::string(u.api_version);
  out["kind"] = std::string(u.kind);
  return out;
}

}  // namespace tidepool::apiserver::protobuf
