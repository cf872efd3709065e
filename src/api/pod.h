// File: pod.h
//
// The parts of v1.Pod that scheduling and autoscaling read. Fields the scheduler does not model
// are not here; the API server (a later layer) keeps the whole object it was given, so nothing a
// user applies is lost.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_list.h"
#include "api/selector.h"
#include "api/taint.h"

namespace tidepool::api {

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
  friend bool operator==(const ResourceRequirements&, const ResourceRequirements&) = default;
};

// A ConfigMap or Secret the pod reads, which the kubelet must find before the containers start:
// a container's environment (envFrom, env[].valueFrom) or a volume (configMap, secret, a
// projected volume's configMap and secret sources). Decoded leniently: a reference of the
// wrong shape is left out (the API server's validation is where a bad one is refused).
struct ConfigReference {
  enum class Kind { kConfigMap, kSecret };
  Kind kind = Kind::kConfigMap;
  std::string name;
  // The keys read: env valueFrom's key, a volume's items' keys; none for envFrom and for a
  // volume without items (every key).
  std::vector<std::string> keys;
  bool optional = false;
  bool env_from = false;  // an envFrom source (every key, as variables), not env's valueFrom
  friend bool operator==(const ConfigReference&, const ConfigReference&) = default;
};

// A volume of the pod, as far as the kubelet's mounts and the scheduler read it.
struct Volume {
  std::string name;
  // configMap, secret, or a projected volume's configMap and secret sources, in order.
  std::vector<ConfigReference> config;
  std::string claim_name;  // persistentVolumeClaim.claimName
  friend bool operator==(const Volume&, const Volume&) = default;
};

struct Container {
  std::string name;
  std::string image;
  // "Always", "IfNotPresent" or "Never" (the API defaults it); empty: IfNotPresent.
  std::string image_pull_policy;
  std::vector<std::string> command;
  std::vector<std::string> args;
  ResourceRequirements resources;
  // What its environment reads, in the kubelet's order (makeEnvironmentVariables): envFrom's
  // configMapRef and secretRef, then env's valueFrom configMapKeyRef and secretKeyRef.
  std::vector<ConfigReference> env_config;
  // The volumes it uses (volumeMounts' and volumeDevices' names): the kubelet mounts only
  // volumes some container or init container uses.
  std::vector<std::string> volume_mounts;
  // Only init containers: "Always" makes it a restartable sidecar (KEP-753).
  std::optional<std::string> restart_policy;
  friend bool operator==(const Container&, const Container&) = default;
};

struct NodeAffinity {
  std::optional<NodeSelector> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<PreferredSchedulingTerm> preferred;  // preferredDuringScheduling...
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  friend bool operator==(const Affinity&, const Affinity&) = default;
};

enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };
std::string_view PodPhaseName(PodPhase p);
StatusOr<PodPhase> ParsePodPhase(std::string_view s);

enum class ConditionStatus { kTrue, kFalse, kUnknown };
std::string_view ConditionStatusName(ConditionStatus s);
StatusOr<ConditionStatus> ParseConditionStatus(std::string_view s);

struct PodCondition {
  std::string type;  // "PodScheduled", "Ready", "Initialized", "ContainersReady", ...
  ConditionStatus status = ConditionStatus::kUnknown;
  std::string reason;
  std::string message;
  std::optional<TimePoint> last_probe_time;
  std::optional<TimePoint> last_transition_time;
  friend bool operator==(const PodCondition&, const PodCondition&) = default;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  ResourceList overhead;
  Labels node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::string node_name;
  std::string scheduler_name = "default-scheduler";
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::optional<std::string> preemption_policy;  // "PreemptLowerPriority" (default) or "Never"
  std::string restart_policy = "Always";
  std::optional<int64_t> termination_grace_period_seconds;
  std::vector<Volume> volumes;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

struct PodStatus {
  PodPhase phase = PodPhase::kPending;
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
  std::optional<TimePoint> start_time;
  std::string reason;
  std::string message;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};

struct Pod {
  ObjectMeta meta;
  PodSpec spec;
  PodStatus status;

  std::string Key() const { return ObjectKey(meta); }
  int32_t Priority() const { return spec.priority.value_or(0); }
  // Succeeded or Failed: its containers will not run again.
  bool Terminal() const {
    return status.phase == PodPhase::kSucceeded || status.phase == PodPhase::kFailed;
  }
  const PodCondition* FindCondition(std::string_view type) const;
  friend bool operator==(const Pod&, const Pod&) = default;
};

// Pods are immutable once shared: the store, snapshots and informers hold the same object.
using PodConstSharedPtr = std::shared_ptr<const Pod>;

// Applies the API server's defaulting that scheduling depends on (SetDefaults_Pod and
// SetDefaults_Container in pkg/apis/core/v1/defaults.go): for every container and init
// container, a resource that has a limit but no request gets a request equal to the limit.
void ApplyPodDefaults(Pod& pod);

}  // namespace tidepool::api
