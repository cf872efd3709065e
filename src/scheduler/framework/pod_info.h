// File: pod_info.h
//
// PodInfo: the engine's compact, immutable view of one pod (framework.PodInfo and the pod part of
// NodeInfo.update). It is built once from an api::Pod and does not keep that object.
//
// What pods of one controller have in common lives once, in a PodClass shared by every pod of
// the class: the pod with its per-pod fields cleared (namespace, labels, annotations, owner
// references, the spec without spec.nodeName), its effective request as a Resource, the
// "non-zero" cpu and memory used for scoring (containers without a cpu/memory request count
// 100m / 200Mi) and the scheduling fingerprint. Classes are interned process-wide: MakePodInfo
// looks the class up by a 128-bit fingerprint and then compares every shared field, so two
// different classes are never merged, even on a fingerprint collision. A class lives as long as
// a PodInfo points at it.
//
// Per pod, a PodInfo keeps only what differs between pods of one class and what the engine
// reads: name, uid, spec.nodeName, status.nominatedNodeName, phase, creation / deletion / start
// timestamps, two condition bits and the GPUs it was given (the annotation
// alibabacloud.com/gpu-index, gpu_devices.h, which the class does not keep). Everything else of the
// pod's status and metadata (resourceVersion, the conditions' texts and times, ...) is not kept:
// whoever needs the whole object reads it from its owner (an informer).
//
// Reading a pod's identity goes through the per-pod accessors (name(), uid(), node_name(), ...);
// spec() and the metadata accessors return the class's shared fields. spec().node_name is always
// empty: the node is node_name().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "api/pod_fingerprint.h"
#include "scheduler/framework/gpu_devices.h"
#include "scheduler/framework/resource.h"

namespace tidepool::scheduler {

// What pods of one class share. Immutable; owned by the PodInfos of the class.
struct PodClass {
  // The pod with name, uid, resourceVersion, timestamps, spec.nodeName and status cleared.
  api::Pod shape;
  Resource request;
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;
  // The GPUs it asks for as devices (gpu_devices.h).
  GpuDemand gpu;
  // SchedulingFingerprint of `shape` (so of any pod of the class with its nodeName cleared).
  api::PodFingerprint fingerprint;
};

class PodInfo;
// Shared between the snapshot, its forks and callers; immutable once made.
using PodInfoConstSharedPtr = std::shared_ptr<const PodInfo>;

class PodInfo {
 public:
  // Prefer MakePodInfo. Interns the pod's class.
  explicit PodInfo(const api::Pod& pod);
  PodInfo(const PodInfo& other);
  PodInfo& operator=(const PodInfo&) = delete;

  // --- Per pod.
  std::string_view name() const { return Str(0); }
  std::string_view uid() const { return Str(1); }
  // spec.nodeName ("" while unbound).
  std::string_view node_name() const { return Str(2); }
  std::string_view nominated_node_name() const { return Str(3); }
  // "namespace/name".
  std::string Key() const;
  api::PodPhase phase() const { return phase_; }
  std::optional<TimePoint> creation_timestamp() const { return Opt(creation_); }
  std::optional<TimePoint> deletion_timestamp() const { return Opt(deletion_); }
  std::optional<TimePoint> start_time() const { return Opt(start_); }
  // The PodScheduled condition is False with reason Unschedulable.
  bool marked_unschedulable() const { return marked_unschedulable_; }
  // The DisruptionTarget condition is True with reason PreemptionByScheduler.
  bool disruption_target_by_preemption() const { return disruption_by_preemption_; }
  // The GPUs the pod was given (alibabacloud.com/gpu-index) as a bit mask; 0 when not given.
  uint32_t gpu_indices() const { return gpu_indices_; }

  // --- Shared by the pod's class.
  const std::string& namespace_() const { return class_->shape.meta.namespace_; }
  const api::Labels& labels() const { return class_->shape.meta.labels; }
  const std::map<std::string, std::string>& annotations() const {
    return class_->shape.meta.annotations;
  }
  const std::vector<api::OwnerReference>& owner_references() const {
    return class_->shape.meta.owner_references;
  }
  // The owner reference with controller: true, or null (api::ControllerOf).
  const api::OwnerReference* controller_ref() const { return api::ControllerOf(class_->shape.meta); }
  // The spec; spec().node_name is always empty (see node_name()).
  const api::PodSpec& spec() const { return class_->shape.spec; }
  int32_t Priority() const { return class_->shape.Priority(); }
  const Resource& request() const { return class_->request; }
  const GpuDemand& gpu_demand() const { return class_->gpu; }
  int64_t non_zero_milli_cpu() const { return class_->non_zero_milli_cpu; }
  int64_t non_zero_memory() const { return class_->non_zero_memory; }
  // Labels + spec (without nodeName), for pod equivalence groups: two pods are equivalent when
  // their fingerprints and their node_name() are equal.
  const api::PodFingerprint& fingerprint() const { return class_->fingerprint; }
  const std::shared_ptr<const PodClass>& pod_class() const { return class_; }

  // The same pod with another spec.nodeName.
  PodInfoConstSharedPtr WithNodeName(std::string_view node_name) const;
  // The same pod bound to `node_name` with the GPUs of `gpu_indices` (what the binder writes).
  PodInfoConstSharedPtr WithPlacement(std::string_view node_name, uint32_t gpu_indices) const;

  // An api::Pod with every field this PodInfo keeps (the class's shared fields and the per-pod
  // ones; the two conditions as minimal conditions). For tests and cold paths.
  api::Pod ToPod() const;

  // Number of live pod classes (for tests and the memory benchmark).
  static size_t NumLiveClasses();

 private:
  static constexpr int64_t kNone = INT64_MIN;
  std::string_view Str(int i) const {
    return std::string_view(strings_.get() + offset_[i], offset_[i + 1] - offset_[i]);
  }
  static std::optional<TimePoint> Opt(int64_t v) {
    if (v == kNone) {
      return std::nullopt;
    }
    return TimePoint(Duration(v));
  }
  static int64_t Raw(const std::optional<TimePoint>& t) {
    return t.has_value() ? t->time_since_epoch().count() : kNone;
  }
  void SetStrings(std::string_view name, std::string_view uid, std::string_view node,
                  std::string_view nominated);

  std::shared_ptr<const PodClass> class_;
  // name, uid, node name, nominated node name, back to back in one allocation.
  std::unique_ptr<char[]> strings_;
  uint32_t offset_[5] = {0, 0, 0, 0, 0};
  api::PodPhase phase_ = api::PodPhase::kPending;
  bool marked_unschedulable_ = false;
  bool disruption_by_preemption_ = false;
  uint32_t gpu_indices_ = 0;
  int64_t creation_ = kNone;
  int64_t deletion_ = kNone;
  int64_t start_ = kNone;
};

PodInfoConstSharedPtr MakePodInfo(const api::Pod& pod);
inline PodInfoConstSharedPtr MakePodInfo(const api::PodConstSharedPtr& pod) {
  return MakePodInfo(*pod);
}

}  // namespace tidepool::scheduler
