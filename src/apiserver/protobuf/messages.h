// File: messages.h
//
// The messages DecodeObject (decode.h) knows, as tables: for each message of k8s.io/api's and
// apimachinery's generated.proto that a supported kind reaches, its fields by number, with the
// JSON name and the Go field name (for gogo's error texts), the value's type, and what
// encoding/json does with the Go field. One generic walker in decode.cc reads any of them.
//
// Field numbers and types are wire-format facts of Kubernetes 1.32 (core, apps, batch, policy,
// scheduling, rbac, autoscaling, events, coordination, storage, certificates v1; meta/v1;
// resource; intstr).
// Presence says how the Go field is written by encoding/json, which is what a JSON client would
// have sent:
//   kOmitEmpty  a non-pointer field with `omitempty`: written when not the zero value (and every
//               repeated field and map: written when not empty; a nil slice without omitempty
//               would be JSON null, which every Kubernetes decoder reads as absent);
//   kOnWire     a pointer field (*int32, *bool, *string, *Struct): written whenever it is on the
//               wire, even as 0, false or "" (gogo writes a pointer field only when non-nil);
//   kAlways     a non-pointer field without `omitempty`, or any non-pointer struct (omitempty does
//               not apply to structs): written even when absent from the wire, as its zero value
//               ("" / 0 / false / a struct with its own kAlways fields; a zero metav1.Time is
//               null and is left out, a zero Quantity is "0", a zero IntOrString is 0).
// Fields not in a table are skipped, as gogo's generated Unmarshal skips unknown fields.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace tidepool::apiserver::protobuf {

enum class Kind : uint8_t {
  kString,
  kBytes,  // standard base64 with padding in JSON
  kInt32,  // a varint holding a sign-extended int32
  kInt64,
  kBool,
  kMessage,       // FieldSpec::message
  kStringMap,     // map<string, string>
  kBytesMap,      // map<string, bytes>: values in base64
  kQuantityMap,   // map<string, resource.Quantity> (ResourceList)
  kTimeMap,       // map<string, metav1.Time>
  kTime,          // metav1.Time {1: seconds, 2: nanos}: RFC 3339 in UTC, seconds precision
  kMicroTime,     // metav1.MicroTime, the same message: RFC 3339 in UTC with six fractional digits
  kQuantity,      // resource.Quantity {1: string}: the string
  kIntOrString,   // intstr.IntOrString {1: type, 2: intVal, 3: strVal}: a number or a string
  kRawExtension,  // runtime.RawExtension {1: raw}: the raw bytes are JSON, embedded as a value
  // map<string, ExtraValue>, ExtraValue being the message {1: repeated string items} whose Go
  // type is []string (certificates, authentication and authorization v1 each define one): each
  // value a JSON array of strings; an entry with no value or no items is [] (gogo's
  // `&ExtraValue{}`), and gogo writes the value even when empty.
  kStringListMap,
};

enum class Presence : uint8_t { kOmitEmpty, kOnWire, kAlways };

// FieldSpec::flags.
inline constexpr uint8_t kRepeated = 1;  // a list (every element appended, empty ones too)
inline constexpr uint8_t kInline = 2;    // an embedded Go struct (`json:",inline"`): its fields
                                         // are written into the parent object

struct MessageSpec;

struct FieldSpec {
  uint32_t number;
  const char* json;  // "" for kInline
  const char* go;    // the Go field name, as gogo's "wrong wireType ... for field <go>" prints it
  Kind kind;
  Presence presence;
  uint8_t flags = 0;
  const MessageSpec* message = nullptr;  // for Kind::kMessage
};

struct MessageSpec {
  const char* name;  // the Go type name, as gogo's "proto: <name>: illegal tag" prints it
  std::span<const FieldSpec> fields;
};

// A top-level kind a protobuf body can carry.
struct KindSpec {
  const char* api_version;  // "v1", "apps/v1", ...; "*/v1" for every "v1" and "<group>/v1"
  const char* kind;
  const MessageSpec* message;
};

// Every supported kind, in the order decode.h lists them.
std::span<const KindSpec> Kinds();

// meta/v1 ListMeta, field 1 of every list (field 2 is its items).
const MessageSpec& ListMetaMessage();

// The message of `kind` in `api_version`, or nullptr when it is not supported.
const MessageSpec* FindKind(std::string_view api_version, std::string_view kind);

}  // namespace tidepool::apiserver::protobuf
