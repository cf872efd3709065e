// File: decode.h
//
// Request bodies in Kubernetes' protobuf encoding (Content-Type
// application/vnd.kubernetes.protobuf), turned into the JSON a JSON client would have sent, so
// that the rest of the API server only ever sees JSON. client-go's typed clients send protobuf
// without a JSON fallback (kubectl-api.md §0.3, §2.9): every `kubectl create <generator>`
// (configmap, secret generic|docker-registry|tls, namespace, serviceaccount, deployment, job,
// service clusterip|nodeport|loadbalancer|externalname, poddisruptionbudget, priorityclass, role,
// rolebinding, clusterrole, clusterrolebinding), `kubectl debug` (the Pods it creates),
// drain's DELETE with a DeleteOptions body when the server does not advertise pods/eviction, and
// the Cluster Autoscaler's `PUT /api/v1/nodes/{name}` (adding and removing its taints) and
// `POST /api/v1/namespaces/{ns}/events`.
//
// The body is the 4 bytes "k8s\0" then a runtime.Unknown message
// {1: typeMeta {1: apiVersion, 2: kind}, 2: raw (the object), 3: contentEncoding,
//  4: contentType}, and `raw` is the object's message as k8s.io/api and apimachinery's
// generated.proto number it. As kube-apiserver's protobuf serializer does, contentEncoding and
// contentType are read and ignored, and fields this decoder does not know are skipped.
//
// Supported kinds, with every field of their Go types (messages.h has the tables):
//   v1                             ConfigMap, Secret, Namespace, ServiceAccount, Pod, Service,
//                                  Node, Event, Binding, PersistentVolume,
//                                  PersistentVolumeClaim, ReplicationController, Endpoints
//   apps/v1                        Deployment, ReplicaSet, StatefulSet, DaemonSet
//   batch/v1                       Job, CronJob
//   policy/v1                      PodDisruptionBudget, Eviction (pods/eviction: CA's drain)
//   coordination.k8s.io/v1         Lease (client-go's leader election, node heartbeats)
//   storage.k8s.io/v1              StorageClass, CSINode, CSIDriver, CSIStorageCapacity
//   scheduling.k8s.io/v1           PriorityClass
//   rbac.authorization.k8s.io/v1   Role, RoleBinding, ClusterRole, ClusterRoleBinding
//   autoscaling/v1                 Scale
//   events.k8s.io/v1               Event
//   authentication.k8s.io/v1       TokenRequest (`kubectl create token`)
//   certificates.k8s.io/v1         CertificateSigningRequest (`kubectl certificate approve|deny`
//                                  PUTs it to .../approval)
//   any "v1" or "<group>/v1"       DeleteOptions, Status (every group version registers them)
// ObjectMeta's managedFields (17) is skipped: the server owns it.
//
// The JSON is what encoding/json makes of the Go object (messages.h says how each field is
// written):
//   - "apiVersion" and "kind" come from the envelope; "metadata", "spec" and "status" (Go
//     structs) are always present;
//   - omitempty fields are left out when zero: empty strings (the wire carries them, e.g.
//     `12 00`, meaning "unset"), 0, false, empty maps and lists; repeated strings keep their
//     empty elements;
//   - pointer fields (replicas, immutable, gracePeriodSeconds, runAsUser, tolerationSeconds, ...)
//     are written whenever on the wire, even as false or 0: gracePeriodSeconds=0 means "now",
//     replicas=0 is not "unset";
//   - fields without omitempty (Container.name, ContainerPort.containerPort, ServicePort.port,
//     PriorityClass.value, OwnerReference.uid, ...) and non-pointer structs (Container.resources,
//     DeploymentSpec.strategy, Namespace "spec": {}, DeleteOptions "preconditions": {} when on
//     the wire) are written even when zero;
//   - embedded Go structs (Probe's handler, Volume's source, the LocalObjectReference of
//     configMapKeyRef) are written into their parent, as `json:",inline"` does;
//   - a metav1.Time is RFC 3339 in UTC with seconds precision ("2026-01-01T00:00:00Z"); an empty
//     Time message is the zero time (JSON null) and is omitted; nanos are dropped, as
//     metav1.Time.Unmarshal drops them;
//   - a metav1.MicroTime (Event eventTime, series.lastObservedTime) is the same message written
//     with exactly six fractional digits ("2026-11-29T22:50:22.123456Z"): nanos are truncated
//     towards zero to microseconds, as metav1.MicroTime.Unmarshal does, and an empty message is
//     omitted as for Time;
//   - a resource.Quantity is its string (validated later, as a JSON body's would be); an
//     IntOrString is a number (type 0) or a string (type 1);
//   - bytes (binaryData, Secret data, a CSR's request and certificate) are standard base64 with
//     padding;
//   - a map<string, ExtraValue> (a CSR's spec.extra) has a JSON array of strings per key, [] for
//     an entry with no items;
//   - strings are copied as bytes: invalid UTF-8 stays invalid (api/codec's DumpJson replaces it
//     with U+FFFD when writing).
//
// Errors (nothing throws):
//   - InvalidArgument with kube-apiserver's texts for a body that is not protobuf: "empty data",
//     "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
//     "empty body"; with gogo's texts for a malformed message (wire.h): "unexpected EOF",
//     "proto: integer overflow", "proto: wrong wireType = 0 for field Name", ...; and
//     "<field>: year outside of range [0,9999]" for a Time or MicroTime that RFC 3339 cannot
//     write,
//     "<field>: quantities must match the regular expression '...'" for an empty Quantity and
//     "<field>: impossible IntOrString.Type" for an IntOrString of another type;
//   - Unimplemented for a kind this decoder does not know, naming it:
//     `protobuf bodies of kind "Ingress" in version "networking.k8s.io/v1" are not supported; send
//     application/json`
//     (the HTTP layer answers 415 UnsupportedMediaType).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "apiserver/protobuf/messages.h"
#include "common/status_or.h"

namespace tidepool::apiserver::protobuf {

// The 4 bytes every Kubernetes protobuf body starts with: "k8s\0".
inline constexpr std::string_view kMagic{"k8s\0", 4};

// Decodes one protobuf request body into the object's JSON (see the file comment).
StatusOr<nlohmann::json> DecodeObject(std::string_view body);

// A list body as kube-apiserver answers a LIST (encode.h, ListEncoder): the envelope's kind is
// "<Kind>List" of a supported kind, raw is {1: ListMeta metadata, 2: each item}. The JSON is
// {"apiVersion", "kind", "metadata", "items": [...]} with each item as DecodeMessage gives it
// (no apiVersion and kind: the wire has none). Unimplemented for a list of any other kind.
StatusOr<nlohmann::json> DecodeList(std::string_view body);

// The message `spec` from protobuf bytes with no envelope (what gogo's generated Marshal of
// the Go type writes, e.g. the v1.Pod in CA's externalgrpc PricingPodPriceRequest), as JSON
// without apiVersion and kind. EncodeMessage's inverse.
StatusOr<nlohmann::json> DecodeMessage(std::string_view data, const MessageSpec& spec);

}  // namespace tidepool::apiserver::protobuf
