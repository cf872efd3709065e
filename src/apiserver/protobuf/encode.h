// File: encode.h
//
// The inverse of decode.h: an object's JSON turned into Kubernetes' protobuf encoding
// (application/vnd.kubernetes.protobuf), by one walker over the same tables (messages.h). What
// it writes is what gogo's generated Marshal of the Go type writes for that object, so any
// Kubernetes client or server (and the Cluster Autoscaler's externalgrpc provider, whose
// NodeGroupTemplateNodeInfoResponse carries a v1.Node) reads it back; DecodeObject of the
// result gives back the JSON, up to the defaulting DecodeObject does (messages.h, Presence).
//
// How the JSON is written:
//   - fields in the order of the table, which is field-number order, as gogo writes them;
//   - a JSON key that is absent or null is not written (gogo would write a non-pointer field's
//     zero value; every decoder reads both the same); keys the table does not know are ignored,
//     "apiVersion" and "kind" among them (they go in the envelope);
//   - a present value is written even when it is the zero value ("", 0, false, {}): a pointer
//     field (kOnWire) set to 0 stays 0;
//   - strings as their bytes; kBytes and kBytesMap values are standard base64 in the JSON and
//     raw bytes on the wire; int32 values are sign-extended to 64 bits (a negative one takes 10
//     bytes, as Go's int32 -> uint64 conversion does);
//   - repeated scalars unpacked (proto2: one key per element), repeated messages one field per
//     element; a null element is the Go zero value ("", 0, false, an empty message);
//   - maps as repeated entries {1: key, 2: value} in sorted key order (gogo sorts the keys);
//     ResourceList values are resource.Quantity {1: string}, kTimeMap values metav1.Time,
//     kStringListMap values (JSON arrays of strings) ExtraValue {1: each string}, written even
//     when empty; a null value is the Go zero value ("", no bytes, Quantity "0", the zero Time's
//     or ExtraValue's empty message), a null element of an array "";
//   - an embedded Go struct (kInline) takes its fields from the same JSON object as its parent
//     and is always written, as one length-delimited field;
//   - metav1.Time and MicroTime: RFC 3339 (any offset, up to nanoseconds, years 0000-9999) ->
//     {1: seconds, 2: nanos}, nanos left out when 0;
//   - resource.Quantity: its string (a JSON number is taken as its text) -> {1: string};
//   - intstr.IntOrString: a JSON integer -> {1: 0, 2: intVal}, a string -> {1: 1, 3: strVal}.
//
// Errors (nothing throws), all InvalidArgument naming the field's JSON path the way Kubernetes'
// field paths do ("spec.taints[0].timeAdded", "metadata.labels[app]"):
//   "<path>: expected an object" / "an array" / "a string" / "a boolean" / "an integer" /
//   "an integer or a string" / "a string or a number"; "<path>: <n> is out of range for int32"
//   (or int64); "<path>: illegal base64 data at input byte <n>"; "<path>: parsing time ... as
//   RFC 3339: cannot parse" (common/clock.h); "<path>: quantities must match the regular
//   expression '...'" for an empty Quantity. EncodeObject: "apiVersion: missing",
//   "kind: missing" (absent or ""), "apiVersion: expected a string", and Unimplemented with
//   DecodeObject's text for a kind without a table:
//   `protobuf bodies of kind "Ingress" in version "networking.k8s.io/v1" are not supported; send
//   application/json`.
//
// Threading: pure functions over constant tables; safe to call from any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "apiserver/protobuf/messages.h"
#include "common/status_or.h"

namespace tidepool::apiserver::protobuf {

// The message `spec` as protobuf bytes from the object's JSON (no envelope): what gogo's
// generated Marshal of the Go type would write for that object, e.g. a v1.Node for CA's
// externalgrpc NodeGroupTemplateNodeInfoResponse.
StatusOr<std::string> EncodeMessage(const nlohmann::json& object, const MessageSpec& spec);

// A whole protobuf body: "k8s\0" + runtime.Unknown{TypeMeta{apiVersion, kind},
// raw = EncodeMessage, contentEncoding "", contentType ""}, the message found by the object's
// apiVersion and kind with FindKind.
StatusOr<std::string> EncodeObject(const nlohmann::json& object);

// A LIST answer as kube-apiserver writes it in protobuf: "k8s\0" + runtime.Unknown{
// TypeMeta{apiVersion, "<Kind>List"}, raw = XList{1: ListMeta, 2: each item's message}} (every
// list of k8s.io/api numbers its fields so). Items are added one at a time, so a caller never
// holds the whole list as JSON.
class ListEncoder {
 public:
  // Unimplemented with DecodeObject's text when `kind` has no table; InvalidArgument for a
  // `list_meta` (ListMeta's JSON: resourceVersion, continue, remainingItemCount) that does not
  // encode.
  static StatusOr<ListEncoder> Start(std::string_view api_version, std::string_view kind,
                                     const nlohmann::json& list_meta);

  // Appends one item (the object's JSON; its apiVersion and kind are not written, as gogo
  // writes none for list items). On an error nothing is appended.
  Status Add(const nlohmann::json& item);

  // The whole body.
  std::string Finish() const;

 private:
  ListEncoder() = default;

  std::string api_version_;
  std::string list_kind_;
  const MessageSpec* item_ = nullptr;
  std::string raw_;  // the XList message so far
};

// One event of a protobuf watch (Content-Type "application/vnd.kubernetes.protobuf;
// stream=watch"), as kube-apiserver frames it: a 4-byte big-endian length, then a
// metav1.WatchEvent{1: type ("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"),
// 2: RawExtension{1: raw = EncodeObject(object)}} with no "k8s\0" and no envelope of its own
// (the stream's raw serializer); the object inside carries both. EncodeObject's errors.
StatusOr<std::string> EncodeWatchEvent(std::string_view type, const nlohmann::json& object);

}  // namespace tidepool::apiserver::protobuf
