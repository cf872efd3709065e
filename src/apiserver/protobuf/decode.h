// File: decode.h
//
// Request bodies in Kubernetes' protobuf encoding (Content-Type
// application/vnd.kubernetes.protobuf), turned into the JSON a JSON client would have sent, so
// that the rest of the API server only ever sees JSON. client-go's typed clients send protobuf
// without a JSON fallback (kubectl-api.md §0.3, §2.9): `kubectl create configmap`,
// `create secret generic`, `create namespace`, `create serviceaccount`, and drain's DELETE with
// a DeleteOptions body when the server does not advertise pods/eviction.
//
// The body is the 4 bytes "k8s\0" then a runtime.Unknown message
// {1: typeMeta {1: apiVersion, 2: kind}, 2: raw (the object), 3: contentEncoding,
//  4: contentType}, and `raw` is the object's message as k8s.io/api and apimachinery's
// generated.proto number it. As kube-apiserver's protobuf serializer does, contentEncoding and
// contentType are read and ignored, and fields this decoder does not know are skipped.
//
// Supported kinds (apiVersion "v1"; DeleteOptions under any "v1" or "<group>/v1" apiVersion, as
// every group version registers it):
//   ConfigMap       metadata, data, binaryData (base64), immutable
//   Secret          metadata, data (base64), stringData, type, immutable
//   Namespace       metadata, spec.finalizers, status.phase
//   ServiceAccount  metadata, secrets (ObjectReference), imagePullSecrets,
//                   automountServiceAccountToken
//   DeleteOptions   gracePeriodSeconds, preconditions {uid, resourceVersion}, orphanDependents,
//                   propagationPolicy, dryRun
// and ObjectMeta with every field a client can send: name, generateName, namespace, selfLink,
// uid, resourceVersion, generation, creationTimestamp, deletionTimestamp,
// deletionGracePeriodSeconds, labels, annotations, ownerReferences {apiVersion, kind, name, uid,
// controller, blockOwnerDeletion}, finalizers. managedFields (17) is skipped: the server owns it.
//
// The JSON is what encoding/json makes of the Go object:
//   - "apiVersion" and "kind" come from the envelope; "metadata" is always present;
//   - empty strings, zero generation and empty maps/lists are omitted (the wire carries empty
//     strings, e.g. `12 00`, which mean "unset"); repeated strings keep their empty elements;
//   - optional scalars (immutable, gracePeriodSeconds, deletionGracePeriodSeconds,
//     orphanDependents, automountServiceAccountToken, controller, blockOwnerDeletion) are written
//     whenever the field is on the wire, even as false or 0: gracePeriodSeconds=0 means "now";
//   - embedded structs on the wire are written even when empty (Namespace "spec": {},
//     DeleteOptions "preconditions": {}), as encoding/json writes non-pointer structs;
//     ownerReferences always carry apiVersion, kind, name and uid, which have no omitempty;
//   - a metav1.Time is RFC 3339 in UTC with seconds precision ("2026-01-01T00:00:00Z"); an empty
//     Time message is the zero time (JSON null) and is omitted; nanos are dropped, as
//     metav1.Time.Unmarshal drops them;
//   - bytes (binaryData, Secret data) are standard base64 with padding;
//   - strings are copied as bytes: invalid UTF-8 stays invalid (api/codec's DumpJson replaces it
//     with U+FFFD when writing).
//
// Errors (nothing throws):
//   - InvalidArgument with kube-apiserver's texts for a body that is not protobuf: "empty data",
//     "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
//     "empty body"; with gogo's texts for a malformed message (wire.h): "unexpected EOF",
//     "proto: integer overflow", "proto: wrong wireType = 0 for field Name", ...; and
//     "<field>: year outside of range [0,9999]" for a Time that RFC 3339 cannot write;
//   - Unimplemented for a kind this decoder does not know, naming it:
//     `protobuf bodies of kind "Pod" in version "v1" are not supported; send application/json`
//     (the HTTP layer answers 415 UnsupportedMediaType).
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::apiserver::protobuf {

// The 4 bytes every Kubernetes protobuf body starts with: "k8s\0".
inline constexpr std::string_view kMagic{"k8s\0", 4};

// Decodes one protobuf request body into the object's JSON (see the file comment).
StatusOr<nlohmann::json> DecodeObject(std::string_view body);

}  // namespace tidepool::apiserver::protobuf
