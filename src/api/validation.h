// File: validation.h
//
// The API server's validation rules that scheduling relies on, with kube-apiserver 1.32's
// messages (pkg/apis/core/validation/validation.go): container resource requirements
// (extended resources such as nvidia.com/gpu are whole numbers and must have request == limit;
// a request without a limit is refused; a request/limit mismatch is reported at
// "<container>.resources.requests" without the resource key, as Kubernetes does), and
// tolerations (an empty key requires Exists; Exists takes no value). Full object validation
// belongs to apiserver/.
#pragma once

#include "api/field_error.h"
#include "api/pod.h"

namespace tidepool::api {

// Validates one container's resources; `path` is e.g. "spec.containers[0]".
FieldErrors ValidateResourceRequirements(const ResourceRequirements& r, const std::string& path);
// Validates a node selector term's matchExpressions and matchFields (ValidateNodeSelectorTerm);
// `path` is e.g. "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.
// nodeSelectorTerms[0]".
FieldErrors ValidateNodeSelectorTerm(const NodeSelectorTerm& term, const std::string& path);
// Validates tolerations at "spec.tolerations[i]".
FieldErrors ValidateTolerations(const std::vector<Toleration>& tolerations);
// Resources of every container and init container, node affinity shapes (required and
// preferred terms) and tolerations, in ValidatePodSpec's order. Expects ApplyPodDefaults to
// have run (as the API server defaults before it validates). Not checked: resource, label and
// key name syntax.
FieldErrors ValidatePodForScheduling(const Pod& pod);

}  // namespace tidepool::api
