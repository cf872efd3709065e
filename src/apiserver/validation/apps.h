// File: apps.h
//
// apps/v1 Deployment, ReplicaSet, DaemonSet and StatefulSet: the defaults kube-apiserver 1.32
// sets on every write (pkg/apis/apps/v1/defaults.go) and its validation
// (pkg/apis/apps/validation/validation.go, with the immutable selector of
// pkg/registry/apps/*/strategy.go), with its texts. Each kind is one Default function and one
// Validate function; `old` is null on create.
//
// Defaults: Deployment replicas 1, strategy RollingUpdate with maxUnavailable / maxSurge 25%
// (each when unset), revisionHistoryLimit 10, progressDeadlineSeconds 600; ReplicaSet replicas
// 1; DaemonSet updateStrategy RollingUpdate with maxUnavailable 1 / maxSurge 0,
// revisionHistoryLimit 10; StatefulSet replicas 1, podManagementPolicy OrderedReady,
// updateStrategy RollingUpdate with partition 0, persistentVolumeClaimRetentionPolicy
// Retain / Retain, revisionHistoryLimit 10. (The pod template's own defaults are admission's.)
//
// Validation, for each kind: ObjectMeta (StatefulSet names are DNS-1123 labels, others
// subdomains); replicas, minReadySeconds, revisionHistoryLimit not negative; the selector
// required (not for DaemonSets), valid, not empty ("empty selector is invalid for
// deployment" - ReplicaSets say deployment too -, "... for daemonset", "... for statefulset")
// and matching the template's labels ("spec.template.metadata.labels: Invalid value:
// map[string]string{...}: `selector` does not match template `labels`"); the template
// validated as a pod's (not for StatefulSets, which kube-apiserver does not either) with
// restartPolicy Always only (`Unsupported value: "Never": supported values: "Always"`) and no
// activeDeadlineSeconds; the update strategy (maxUnavailable / maxSurge non-negative
// integers or percentages up to 100%, not both 0; Recreate takes no rollingUpdate;
// progressDeadlineSeconds greater than minReadySeconds). On update: ObjectMeta update rules;
// Deployment, ReplicaSet and DaemonSet selectors are immutable ("spec.selector: Invalid value:
// v1.LabelSelector{...}: field is immutable"); a StatefulSet may change only replicas,
// ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and
// minReadySeconds.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

void DefaultDeployment(json& object);
void DefaultReplicaSet(json& object);
void DefaultDaemonSet(json& object);
void DefaultStatefulSet(json& object);

Status ValidateDeployment(const json& object, const json* old, api::FieldErrors* errors);
Status ValidateReplicaSet(const json& object, const json* old, api::FieldErrors* errors);
Status ValidateDaemonSet(const json& object, const json* old, api::FieldErrors* errors);
Status ValidateStatefulSet(const json& object, const json* old, api::FieldErrors* errors);
// ControllerRevision: ObjectMeta (a DNS subdomain name), data required ("data is mandatory"),
// revision not negative; on update data is immutable (the value is rendered as its JSON, not
// as Go's %#v of runtime.Unknown).
Status ValidateControllerRevision(const json& object, const json* old, api::FieldErrors* errors);

// Shared with policy/v1 (PodDisruptionBudget): ValidatePositiveIntOrPercent and
// IsNotMoreThan100Percent of an int-or-string at `path`.
void ValidateIntOrPercent(const json& v, const std::string& path, api::FieldErrors* errors);
// getIntOrPercentValue: the number, or a valid percentage's number; 0 otherwise.
int64_t IntOrPercentValue(const json* v);

}  // namespace tidepool::apiserver::validation
