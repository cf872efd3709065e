#include "autoscaler/scale_down/drainability.h"

#include <chrono>
#include <map>

namespace tidepool::autoscaler::scaledown {
namespace {

// The annotation map takes std::string keys: each key is made once.
const std::string& AnnotationKey(std::string_view key) {
  static const auto* keys = new std::map<std::string, std::string, std::less<>>{
      {std::string(kSafeToEvictAnnotation), std::string(kSafeToEvictAnnotation)},
      {std::string(kDaemonSetPodAnnotation), std::string(kDaemonSetPodAnnotation)},
      {std::string(kMirrorPodAnnotation), std::string(kMirrorPodAnnotation)},
      {std::string(kLocalStorageAnnotation), std::string(kLocalStorageAnnotation)}};
  return keys->find(key)->second;
}

const std::string* Annotation(const scheduler::PodInfo& pod, std::string_view key) {
  if (pod.annotations().empty()) {
    return nullptr;
  }
  auto it = pod.annotations().find(AnnotationKey(key));
  return it == pod.annotations().end() ? nullptr : &it->second;
}

bool AnnotationIs(const scheduler::PodInfo& pod, std::string_view key, std::string_view value) {
  const std::string* v = Annotation(pod, key);
  return v != nullptr && *v == value;
}

// The controller kinds CA's replicated rule accepts with --skip-nodes-with-custom-controller-pods.
bool IsReplicatedKind(std::string_view kind) {
  return kind == "ReplicationController" || kind == "Job" || kind == "ReplicaSet" ||
         kind == "StatefulSet";
}

PodDrainability Blocked(BlockingPodReason reason, std::string message) {
  return PodDrainability{DrainOutcome::kBlock, reason, std::move(message)};
}

// CA's replicacount rule; nullopt when it does not decide.
std::optional<PodDrainability> CheckReplicaCount(const scheduler::PodInfo& pod,
                                                 const DrainOptions& options) {
  const api::OwnerReference* ref = pod.controller_ref();
  if (options.controllers == nullptr || ref == nullptr) return std::nullopt;
  const std::string_view av = ref->api_version;
  const size_t slash = av.find('/');
  const std::string_view group = slash == std::string_view::npos ? "" : av.substr(0, slash);
  const std::string who = std::string(pod.namespace_()) + "/" + std::string(pod.name());
  const std::string& kind = ref->kind;
  auto lookup = [&] { return options.controllers->Replicas(kind, pod.namespace_(), ref->name); };
  auto too_few = [&](const StatusOr<std::optional<int32_t>>& r) -> std::optional<PodDrainability> {
    if (r->has_value() && **r < options.min_replica_count) {
      return Blocked(BlockingPodReason::kMinReplicasReached,
                     "replication controller for " + who + " has too few replicas spec: " +
                         std::to_string(**r) + " min: " + std::to_string(options.min_replica_count));
    }
    return std::nullopt;
  };
  if (kind == "ReplicationController" || kind == "ReplicaSet") {
    StatusOr<std::optional<int32_t>> r = lookup();
    if (!r.ok()) {
      return Blocked(BlockingPodReason::kControllerNotFound,
                     "replication controller for " + who + " is not available, err: " +
                         std::string(r.status().message()));
    }
    return too_few(r);
  }
  if (IsDaemonSetPod(pod)) {
    if (group != "apps" || kind != "DaemonSet") return std::nullopt;
    StatusOr<std::optional<int32_t>> r = lookup();
    if (!r.ok()) {
      return Blocked(BlockingPodReason::kControllerNotFound,
                     "daemonset for " + who + " is not present, err: " + std::string(r.status().message()));
    }
    return std::nullopt;
  }
  if (kind == "Job" || (kind == "StatefulSet" && group == "apps")) {
    StatusOr<std::optional<int32_t>> r = lookup();
    if (!r.ok()) {
      return Blocked(BlockingPodReason::kControllerNotFound,
                     std::string(kind == "Job" ? "job" : "statefulset") + " for " + who +
                         " is not available: err: " + std::string(r.status().message()));
    }
  }
  return std::nullopt;
}

}  // namespace

bool HasScaleDownDisabledAnnotation(const api::Node& node) {
  if (node.meta.annotations.empty()) {
    return false;
  }
  static const auto* key = new std::string(kScaleDownDisabledAnnotation);
  auto it = node.meta.annotations.find(*key);
  return it != node.meta.annotations.end() && it->second == "true";
}

bool IsMirrorPod(const scheduler::PodInfo& pod) { return Annotation(pod, kMirrorPodAnnotation) != nullptr; }

bool IsDaemonSetPod(const scheduler::PodInfo& pod) {
  const api::OwnerReference* ref = pod.controller_ref();
  if (ref != nullptr && ref->kind == "DaemonSet") {
    return true;
  }
  return AnnotationIs(pod, kDaemonSetPodAnnotation, "true");
}

bool IsPodTerminal(const scheduler::PodInfo& pod) {
  switch (pod.phase()) {
    case api::PodPhase::kFailed:
      return true;  // rejected or evicted by the kubelet, or ran to failure
    case api::PodPhase::kSucceeded:
      return pod.spec().restart_policy == "Never" || pod.spec().restart_policy == "OnFailure";
    default:
      return false;
  }
}

bool IsPodLongTerminating(const scheduler::PodInfo& pod, TimePoint now, Duration extra) {
  if (!pod.deletion_timestamp().has_value()) {
    return false;
  }
  const int64_t grace = pod.spec().termination_grace_period_seconds.value_or(30);
  return *pod.deletion_timestamp() + std::chrono::seconds(grace) + extra < now;
}

PodDrainability CheckPodDrainability(const scheduler::PodInfo& pod, const DrainOptions& options,
                                     const RemainingPdbTracker& pdbs, TimePoint now) {
  if (IsMirrorPod(pod) ||
      IsPodLongTerminating(pod, now, options.pod_long_terminating_extra_threshold)) {
    return PodDrainability{DrainOutcome::kIgnore, BlockingPodReason::kNone, ""};
  }
  if (options.skip_nodes_with_custom_controller_pods) {
    if (std::optional<PodDrainability> d = CheckReplicaCount(pod, options)) return *d;
  }
  if (IsPodTerminal(pod)) {
    return PodDrainability{DrainOutcome::kIgnore, BlockingPodReason::kNone, ""};
  }
  if (IsDaemonSetPod(pod)) {
    return PodDrainability{DrainOutcome::kDaemonSet, BlockingPodReason::kNone, ""};
  }
  if (AnnotationIs(pod, kSafeToEvictAnnotation, "true")) {
    return PodDrainability{};
  }
  const api::OwnerReference* ref = pod.controller_ref();
  bool replicated = ref != nullptr;
  if (replicated && options.skip_nodes_with_custom_controller_pods) {
    replicated = IsReplicatedKind(ref->kind);
  }
  if (!replicated) {
    return Blocked(BlockingPodReason::kNotReplicated,
                   pod.Key() + " is not replicated");
  }
  if (options.skip_nodes_with_system_pods && pod.namespace_() == "kube-system" &&
      !pdbs.AnyMatching(pod)) {
    return Blocked(
        BlockingPodReason::kUnmovableKubeSystemPod,
        "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: " + std::string(pod.name()));
  }
  if (AnnotationIs(pod, kSafeToEvictAnnotation, "false")) {
    return Blocked(BlockingPodReason::kNotSafeToEvictAnnotation,
                   "pod annotated as not safe to evict present: " + std::string(pod.name()));
  }
  if (options.skip_nodes_with_local_storage && AnnotationIs(pod, kLocalStorageAnnotation, "true")) {
    return Blocked(BlockingPodReason::kLocalStorageRequested,
                   "pod with local storage present: " + std::string(pod.name()));
  }
  for (const RemainingPdbTracker::Remaining& r : pdbs.MatchingPdbs(pod)) {
    if (r.disruptions_allowed < 1) {
      return Blocked(BlockingPodReason::kNotEnoughPdb,
                     "not enough pod disruption budget to move " + pod.Key());
    }
  }
  return PodDrainability{};
}

PodsToMove GetPodsToMove(const scheduler::NodeInfo& node, const DrainOptions& options,
                         const RemainingPdbTracker& pdbs, TimePoint now) {
  return GetPodsToMove(node.pods(), options, pdbs, now);
}

PodsToMove GetPodsToMove(const std::vector<scheduler::PodInfoConstSharedPtr>& pods,
                         const DrainOptions& options, const RemainingPdbTracker& pdbs,
                         TimePoint now) {
  PodsToMove out;
  for (const scheduler::PodInfoConstSharedPtr& p : pods) {
    PodDrainability d = CheckPodDrainability(*p, options, pdbs, now);
    switch (d.outcome) {
      case DrainOutcome::kMove:
        out.pods.push_back(p);
        break;
      case DrainOutcome::kDaemonSet:
        out.daemonset_pods.push_back(p);
        break;
      case DrainOutcome::kIgnore:
        break;
      case DrainOutcome::kBlock:
        out.pods.clear();
        out.daemonset_pods.clear();
        out.blocking_pod = p;
        out.reason = d.reason;
        out.message = std::move(d.message);
        return out;
    }
  }
  return out;
}

bool NothingToMove(const scheduler::NodeInfo& node, const DrainOptions& options,
                   const RemainingPdbTracker& pdbs, TimePoint now) {
  for (const scheduler::PodInfoConstSharedPtr& p : node.pods()) {
    const DrainOutcome o = CheckPodDrainability(*p, options, pdbs, now).outcome;
    if (o == DrainOutcome::kMove || o == DrainOutcome::kBlock) {
      return false;
    }
  }
  return true;
}

}  // namespace tidepool::autoscaler::scaledown
