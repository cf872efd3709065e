// File: binding.h
//
// The binding subresource of pods (POST pods/<name>/binding), as kube-apiserver 1.32's
// BindingREST (pkg/registry/core/pod/storage) assigns a pod:
//   - the Binding's metadata.uid, when set, must be the pod's (a storage precondition: 409
//     `Operation cannot be fulfilled on pods "p": Precondition failed: UID in precondition: ...,
//     UID in object meta: ...`);
//   - a pod being deleted, already assigned, or with scheduling gates is refused with 409
//     `Operation cannot be fulfilled on pods/binding "p": pod p is being deleted, cannot be
//     assigned to a host` / `pod p is already assigned to node "n"` / `pod p has non-empty
//     .spec.schedulingGates`;
//   - otherwise spec.nodeName = target.name, the Binding's annotations are copied onto the pod,
//     and the condition PodScheduled=True is set as podutil.UpdatePodCondition sets it
//     (lastTransitionTime now when the status changes, kept when it does not; reason and message
//     replaced).
// ValidateBinding checks the body first: metadata.name must be the URL's name (400 `name in
// URL does not match name in Binding object`), target.kind empty or "Node" and target.name set
// (ValidatePodBinding; kube-apiserver returns its aggregate as a plain error, so a 500
// InternalError `Internal error occurred: target.name: Required value`).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/field_error.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::apiserver {

// Field errors of a Binding body for the pod `name`; `bad_request` is set (and the errors are
// empty) when the body names another pod.
api::FieldErrors ValidateBinding(const nlohmann::json& binding, const std::string& name,
                                 std::string* bad_request);

// The pod `pod` (stored JSON) assigned as `binding` asks; kAborted (409) with kube's message
// when it cannot be.
StatusOr<nlohmann::json> AssignPod(nlohmann::json pod, const nlohmann::json& binding,
                                   TimePoint now);

}  // namespace tidepool::apiserver
