// File: autoscaling.h
//
// autoscaling HorizontalPodAutoscaler, in its storage version autoscaling/v2 (kube-apiserver
// 1.32: pkg/apis/autoscaling/v2/defaults.go, pkg/apis/autoscaling/validation, the registry's
// strategy). v1 objects are converted to v2 first (conversion.h); v1's only default,
// minReplicas 1, is DefaultHpaV1.
//
// DefaultHpa: minReplicas 1; without metrics, the 80 % average CPU utilization metric; a
// behavior's missing rules filled with kube's (scaleUp: stabilization 0 s, selectPolicy Max,
// policies 4 Pods and 100 Percent per 15 s; scaleDown: stabilization 300 s, selectPolicy Max,
// 100 Percent per 15 s). PrepareHpaForCreate: the status is the server's (empty: desired
// replicas 0, currentMetrics null).
// ValidateHpa: ObjectMeta (a DNS-1123 subdomain); minReplicas at least 1 (HPAScaleToZero is
// off); maxReplicas greater than 0 and not below minReplicas; scaleTargetRef's kind and name
// required and valid path segments; each metric's type one of Object, Pods, Resource,
// ContainerResource, External with its source set ("must populate information for the given
// metric source") and no other; a Resource / ContainerResource metric's name and target
// (Utilization needs averageUtilization, AverageValue averageValue; averageUtilization above
// 0); behavior's selectPolicy Max, Min or Disabled, stabilizationWindowSeconds 0-3600, and
// each policy's type Pods or Percent with value above 0 and periodSeconds 1-1800. Not checked:
// Object / Pods / External metric identifiers in depth.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

void DefaultHpaV1(json& object);
void DefaultHpa(json& object);
void PrepareHpaForCreate(json& object);
Status ValidateHpa(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
