// File: bootstrap_policy.h
//
// kube-apiserver's RBAC bootstrap policy (its "rbac/bootstrap-roles" post-start hook): the
// ClusterRoles and ClusterRoleBindings a new cluster holds - cluster-admin; admin, edit and view
// (aggregated by kcm's clusterrole-aggregation controller from the system:aggregate-to-* roles
// and any role labelled rbac.authorization.k8s.io/aggregate-to-<name>: "true"); the system:
// roles of the control plane, nodes, discovery and certificates - each labelled
// kubernetes.io/bootstrapping: rbac-defaults and annotated
// rbac.authorization.kubernetes.io/autoupdate: "true", as kube-apiserver writes them. The
// system:controller:* roles of kcm's controllers are not created. The policy is data
// (bootstrap_policy.json, kube's rules in a compact form).
//
// Only what is missing is created (a restored store keeps its roles, edited or not).
#pragma once

#include "apiserver/object_store.h"
#include "common/status.h"

namespace tidepool::runtime {

Status EnsureBootstrapPolicy(apiserver::ObjectStore& store,
                             const apiserver::ObjectStore::WriteOptions& options);

}  // namespace tidepool::runtime
