// File: conversion.h
//
// Conversion between a served version of a resource and its storage version (resources.h's
// storage_version): the one object the store keeps is written and read in either. Today that
// is autoscaling/v1 HorizontalPodAutoscalers over autoscaling/v2 storage, as kube-apiserver
// 1.32 converts them (pkg/apis/autoscaling/v1/conversion.go, through its internal version):
//   - spec: scaleTargetRef, minReplicas, maxReplicas; v1's targetCPUUtilizationPercentage is a
//     v2 Resource metric (cpu, Utilization); a v1 object without one gets kube's explicit default
//     of 80 %. What v1 cannot say travels in annotations, as kube's round trip does: other
//     metrics (autoscaling.alpha.kubernetes.io/metrics, in v1's MetricSpec form: targetValue,
//     targetAverageValue, targetAverageUtilization), spec.behavior (.../behavior);
//   - status: observedGeneration, lastScaleTime, currentReplicas, desiredReplicas; v1's
//     currentCPUUtilizationPercentage from the cpu Resource metric; every current metric
//     (.../current-metrics, v1's MetricStatus form) and the conditions (.../conditions) in
//     annotations;
//   - from v1, those annotations are read back and dropped; to v1, old ones are replaced.
// The annotation values are Go's json.Marshal of the v1 types (fields in struct order).
// And events.k8s.io/v1 Events over core/v1 storage (another group: Resource::storage_group), as
// kube-apiserver keeps both Event APIs in one resource: regarding / involvedObject, note /
// message, deprecatedSource / source, deprecated{First,Last}Timestamp and deprecatedCount /
// {first,last}Timestamp and count, reportingController / reportingComponent; each side's empty
// fields as Go encodes its struct (eventTime: null; reportingComponent: "" in core).
//
// Thread-safe (pure functions). Nothing throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "apiserver/resources.h"

namespace tidepool::apiserver::conversion {

// Whether objects of `served` are stored in another version (StorageOf(served) != served).
bool Converts(const Resource& served);
// A `served`-version object in the storage version, and back. Identity unless Converts().
nlohmann::json ToStorage(const Resource& served, nlohmann::json obj);
nlohmann::json FromStorage(const Resource& served, nlohmann::json obj);
// FromStorage of an object's JSON text (compact JSON out).
std::string FromStorageText(const Resource& served, std::string_view text);

}  // namespace tidepool::apiserver::conversion
