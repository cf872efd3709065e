// File: scale.h
//
// The scale subresource of deployments, replicasets and statefulsets (apps/v1) and of
// replicationcontrollers (core/v1), as kube-apiserver 1.32's storage serves it
// (pkg/registry/apps/*/storage and pkg/registry/core/replicationcontroller/storage ScaleREST):
// an autoscaling/v1 Scale made from the object, and a Scale sent back (PUT, or a PATCH applied
// to the current Scale) setting the object's spec.replicas.
//   - ScaleOf: metadata {name, namespace, uid, resourceVersion, creationTimestamp} of the
//     object; spec.replicas = spec.replicas (left out at 0, Go's omitempty); status.replicas =
//     status.replicas (always written); status.selector = spec.selector as a label selector
//     string (metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key,
//     "k=v" for matchLabels, "k in (a,b)", "k notin (a,b)", "k", "!k"; left out when empty).
//     A ReplicationController's spec.selector is a plain label map:
//     labels.SelectorFromSet(...).String(), "k1=v1,k2=v2" sorted by key.
//   - ScaleReplicas reads spec.replicas of a Scale body as the Go decoder and ValidateScale do:
//     absent is 0; a value that is not an int32 is a 400 with the decoder's text; a negative one
//     is a 422 `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be
//     greater than or equal to 0`.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "api/field_error.h"

namespace tidepool::apiserver {

// How the scaled kind writes spec.selector.
enum class ScaleSelector {
  kLabelSelector,  // metav1.LabelSelector (apps/v1 kinds)
  kLabelMap,       // map[string]string (core/v1 ReplicationController)
};

// The autoscaling/v1 Scale of a stored Deployment, ReplicaSet, StatefulSet or
// ReplicationController.
nlohmann::json ScaleOf(const nlohmann::json& object,
                       ScaleSelector selector = ScaleSelector::kLabelSelector);

// A metav1.LabelSelector (JSON) as LabelSelectorAsSelector(...).String() writes it; "" for a
// null or empty selector.
std::string SelectorString(const nlohmann::json& selector);

// spec.replicas of a Scale body (0 when absent). A value that is not an int32 sets
// `decode_error` (a 400's message); a negative one adds to `errors` (a 422).
int32_t ScaleReplicas(const nlohmann::json& scale, std::string* decode_error,
                      api::FieldErrors* errors);

}  // namespace tidepool::apiserver
