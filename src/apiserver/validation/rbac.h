// File: rbac.h
//
// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding
// (pkg/apis/rbac/validation/validation.go, kube-apiserver 1.32). Names are path segments (not
// "." or "..", no '/' or '%'). Rules: verbs required ("verbs must contain at least one
// value"); a rule with nonResourceURLs is cluster-scoped only and names no apiGroups,
// resources or resourceNames; other rules need apiGroups and resources. Bindings: roleRef
// apiGroup rbac.authorization.k8s.io, kind Role or ClusterRole (ClusterRole only for a
// ClusterRoleBinding), name required and a valid RBAC name; each subject has a name and a
// kind ServiceAccount (apiGroup "", a namespace when the binding is cluster-scoped), User or
// Group (apiGroup rbac.authorization.k8s.io). On update a binding's roleRef may not change
// ("cannot change roleRef"). Not checked: aggregationRule. `old` is null on create.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

// `namespaced`: Role (true) or ClusterRole (false).
Status ValidateRole(const json& object, const json* old, bool namespaced,
                    api::FieldErrors* errors);
// `namespaced`: RoleBinding (true) or ClusterRoleBinding (false).
Status ValidateRoleBinding(const json& object, const json* old, bool namespaced,
                           api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
