// File: rollout.h
//
// The arithmetic of kube-controller-manager 1.32's deployment controller
// (pkg/controller/deployment/util), free of I/O so it is tested alone:
//
//   - ResolveFenceposts: maxSurge rounds up, maxUnavailable down, from an int or a percentage
//     of the desired replicas; both 0 makes maxUnavailable 1.
//   - NewRsNewReplicas (RollingUpdate): the new ReplicaSet grows by what maxSurge leaves of
//     replicas + maxSurge over every ReplicaSet's spec.replicas, never past the desired count.
//   - MaxScaledDown / OldScaleDowns: how far old ReplicaSets may shrink while availableReplicas
//     stays at replicas - maxUnavailable (cleanupUnhealthyReplicas first, then the oldest
//     first).
//   - Proportional: a scaling event while a rollout is under way spreads the change over the
//     active ReplicaSets in proportion to their size (GetProportion, getReplicaSetFraction),
//     the rounding leftover to the first of them in kcm's order.
//   - PodTemplateHash: the pod-template-hash label - history::ComputeHash (FNV-32a over the
//     template and the collision count, written with rand.SafeEncodeString's alphabet). kcm hashes
//     the Go struct's printed form, so the value differs from a real cluster's for the same
//     template; its form (up to 10 characters of "bcdfghjklmnpqrstvwxz2456789") and its use
//     (a stable name per template) are the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::controllers::deployment {

struct Fenceposts {
  int32_t max_surge = 0;
  int32_t max_unavailable = 0;
};

// An intstr (int, or "N%") scaled against `total`; `round_up` as intstr.GetScaledValueFromIntOrPercent.
StatusOr<int32_t> ScaledValue(const nlohmann::json& v, int32_t total, bool round_up);

// From spec.strategy.rollingUpdate (null/absent members: kcm's defaults 25%).
Fenceposts ResolveFenceposts(const nlohmann::json& rolling_update, int32_t replicas);

// What each ReplicaSet is, for the arithmetic.
struct RsState {
  std::string name;
  int32_t spec_replicas = 0;
  int32_t status_replicas = 0;
  int32_t available = 0;
  // The deployment.kubernetes.io/max-replicas annotation, when it parses.
  std::optional<int32_t> max_replicas_annotation;
  int64_t created_seconds = 0;  // creation time, for kcm's sort orders
};

// NewRSNewReplicas for RollingUpdate.
int32_t NewRsNewReplicas(int32_t replicas, const Fenceposts& f, const std::vector<RsState>& all,
                         const RsState& new_rs);

// reconcileOldReplicaSets: the new spec.replicas of each old ReplicaSet (same order as `old`).
std::vector<int32_t> OldScaleDowns(int32_t replicas, const Fenceposts& f,
                                   const std::vector<RsState>& old, const RsState* new_rs);

// scale() for RollingUpdate when several ReplicaSets are active: the new spec.replicas of each
// of `active` (same order). `status_replicas` is the Deployment's status.replicas.
std::vector<int32_t> Proportional(int32_t replicas, const Fenceposts& f,
                                  const std::vector<RsState>& active, int32_t status_replicas);

std::string PodTemplateHash(const nlohmann::json& pod_template, std::optional<int32_t> collision_count);

}  // namespace tidepool::controllers::deployment
