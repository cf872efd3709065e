// File: admission.h
//
// What kube-apiserver does to an object between decoding and storage: defaulting
// (pkg/apis/*/v1/defaults.go and the admission plugins that matter here:
// DefaultTolerationSeconds) and validation (pkg/apis/*/validation), with kube-apiserver
// 1.32's messages.
//
// Defaulting (every write: create, update and patch, as kube-apiserver defaults every decoded
// body):
//   - Pod: restartPolicy Always, terminationGracePeriodSeconds 30, dnsPolicy ClusterFirst,
//     securityContext {}, schedulerName default-scheduler, enableServiceLinks true,
//     serviceAccountName/serviceAccount "default" (priority and preemptionPolicy are the
//     Priority admission plugin's, on create: handlers/handler.h AdmitPodPriority);
//     containers: terminationMessagePath/Policy, imagePullPolicy (Always for ":latest" or no
//     tag, else IfNotPresent), requests default to limits; tolerations for
//     node.kubernetes.io/not-ready and /unreachable (NoExecute, 300 s) unless tolerated;
//     GKE's ExtendedResourceToleration plugin: a pod requesting an extended resource
//     (nvidia.com/gpu) tolerates its NoSchedule taint ({key, operator: Exists, effect});
//     status.phase Pending and status.qosClass. The same pod-spec defaults apply to the pod
//     templates of Deployments, DaemonSets, ReplicaSets, StatefulSets and Jobs.
//   - Namespace: spec.finalizers ["kubernetes"], status.phase Active, the
//     kubernetes.io/metadata.name label.
//   - apps/v1 kinds, batch/v1 Job, PriorityClass: validation/apps.h, batch.h, scheduling.h;
//     PersistentVolume and ReplicationController (whose template gets the pod-spec defaults
//     above): validation/core.h; StorageClass and CSIDriver: validation/storage.h.
// A Job's generated selector is set on create only (PrepareForCreate), as are a
// PersistentVolume's status (Pending since now) and a ReplicationController's ({replicas: 0}),
// and the TaintNodesByCondition plugin's node.kubernetes.io/not-ready:NoSchedule on a new Node.
// Validation returns field errors; the caller makes them a 422 Invalid with causes. Pods,
// Deployments, ReplicaSets, DaemonSets, StatefulSets, Jobs, PodDisruptionBudgets,
// PriorityClasses, Leases, the RBAC kinds, PersistentVolumes, ReplicationControllers and the
// storage.k8s.io kinds have their kind's rules (validation/*.h); every
// other kind its ObjectMeta's (validation/object_meta.h: names are DNS-1123 subdomains,
// namespaces DNS-1123 labels, services DNS-1035 labels).
// A pod (or pod template) whose JSON does not decode (a wrong type) is a 400 BadRequest, as
// the decoder fails before validation in kube-apiserver.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/field_error.h"
#include "apiserver/authn/user.h"
#include "apiserver/resources.h"
#include "common/clock.h"
#include "common/status.h"

namespace tidepool::apiserver {

void ApplyDefaults(const Resource& r, nlohmann::json& object);

// True when PrepareForCreate needs metadata.uid set to the uid the object will be stored
// with (a Job's generated selector names it).
bool NeedsUidOnCreate(const Resource& r);
// What kube's strategies do to a new object before validating it (a Job's generated selector
// and template labels, a PersistentVolume's or ReplicationController's status). REQUIRES:
// ApplyDefaults ran; metadata.uid set if NeedsUidOnCreate; metadata.creationTimestamp set.
// `user` is who asks (authn/user.h): a CertificateSigningRequest records it; null: nobody.
// `taint_nodes_by_condition`: the admission plugin of that name is enabled (a new Node gets
// node.kubernetes.io/not-ready:NoSchedule).
void PrepareForCreate(const Resource& r, nlohmann::json& object,
                      const authn::UserInfo* user = nullptr, bool taint_nodes_by_condition = true);

// What kube's strategies do to an updated object (PrepareForUpdate) written through
// `subresource` ("" for the object itself, "status", "approval"): a custom resource with a
// status subresource keeps its stored status; a CustomResourceDefinition keeps its status and
// accepts its new names (crd/strategy.h); a CertificateSigningRequest keeps what its
// subresource may not change (certificates/csr.h; `now` stamps its conditions). Nothing else on
// the status subresource.
void PrepareForUpdate(const Resource& r, nlohmann::json& object, const nlohmann::json& old,
                      std::string_view subresource, TimePoint now);

// `old` is null on create. InvalidArgument (BadRequest) when the object cannot be decoded.
Status Validate(const Resource& r, const nlohmann::json& object, const nlohmann::json* old,
                api::FieldErrors* errors, std::string_view subresource = "");

}  // namespace tidepool::apiserver
