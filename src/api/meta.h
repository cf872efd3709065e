// File: meta.h
//
// ObjectMeta and friends: the metadata every Kubernetes object carries. Plain structs with public
// fields, as in k8s.io/apimachinery's metav1. Maps are ordered so that iteration (and so every
// decision and every printed object) is deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"

namespace tidepool::api {

using Labels = std::map<std::string, std::string>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;

  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;  // empty for cluster-scoped objects
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<TimePoint> creation_timestamp;
  std::optional<TimePoint> deletion_timestamp;
  Labels labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;

  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

// "namespace/name", or "name" for cluster-scoped objects (klog.KObj's form).
std::string ObjectKey(const ObjectMeta& meta);

// Whether resourceVersion `a` is older than `b`, as the scheduler's assume cache compares
// them: both must be numbers, else neither is older (etcd's versioner reads "" as 0; here an
// empty version is never older nor newer).
bool ResourceVersionOlder(std::string_view a, std::string_view b);

// The owner reference with controller=true, if any (metav1.GetControllerOf).
const OwnerReference* ControllerOf(const ObjectMeta& meta);

}  // namespace tidepool::api
