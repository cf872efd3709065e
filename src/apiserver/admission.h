// File: admission.h
//
// What kube-apiserver does to an object between decoding and storage: defaulting
// (pkg/apis/*/v1/defaults.go and the admission plugins that matter here: DefaultTolerationSeconds,
// Priority) and validation (pkg/apis/*/validation), with kube-apiserver 1.32's messages.
//
// Defaulting (create; pods also on update for DefaultTolerationSeconds):
//   - Pod: restartPolicy Always, terminationGracePeriodSeconds 30, dnsPolicy ClusterFirst,
//     securityContext {}, schedulerName default-scheduler, enableServiceLinks true, priority 0,
//     preemptionPolicy PreemptLowerPriority, serviceAccountName/serviceAccount "default";
//     containers: terminationMessagePath/Policy, imagePullPolicy (Always for ":latest" or no
//     tag, else IfNotPresent), requests default to limits; tolerations for
//     node.kubernetes.io/not-ready and /unreachable (NoExecute, 300 s) unless tolerated;
//     status.phase Pending and status.qosClass. The same pod-spec defaults apply to the pod
//     templates of Deployments, DaemonSets, ReplicaSets, StatefulSets and Jobs.
//   - Namespace: spec.finalizers ["kubernetes"], status.phase Active, the
//     kubernetes.io/metadata.name label.
//   - Deployment: replicas 1, strategy RollingUpdate 25%/25%, revisionHistoryLimit 10,
//     progressDeadlineSeconds 600.
// Validation returns field errors; the caller makes them a 422 Invalid with causes.
//   - every object: metadata.name required (unless generateName) and an RFC 1123 subdomain
//     (namespaces, services: an RFC 1123 label);
//   - Pod: containers required, container name and image required, resources (extended
//     resources integral, request == limit, limit required), node affinity and tolerations
//     (api/validation.h); on update, spec immutability (only images, activeDeadlineSeconds,
//     additions to tolerations and terminationGracePeriodSeconds may change).
// A pod whose JSON does not decode (a wrong type) is a 400 BadRequest, as the decoder fails
// before validation in kube-apiserver.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/field_error.h"
#include "apiserver/resources.h"
#include "common/status.h"

namespace tidepool::apiserver {

void ApplyDefaults(const Resource& r, nlohmann::json& object);

// `old` is null on create. InvalidArgument (BadRequest) when the object cannot be decoded.
Status Validate(const Resource& r, const nlohmann::json& object, const nlohmann::json* old,
                api::FieldErrors* errors);

}  // namespace tidepool::apiserver
