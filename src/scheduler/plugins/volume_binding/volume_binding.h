// File: volume_binding.h
//
// VolumeBinding (kube-scheduler 1.32, plugins/volumebinding with its binder.go), reading claims,
// volumes and classes through PluginArgs::volumes (volume_lister.h; none: every pod skips).
//
// PreFilter - a pod without persistentVolumeClaim volumes skips. Otherwise each claim, in volume
// order, must exist (UnschedulableAndUnresolvable `persistentvolumeclaim "x" not found`), not be
// Lost (`persistentvolumeclaim "x" bound to non-existent persistentvolume "y"`) and not be
// being deleted (`persistentvolumeclaim "x" is being deleted`). Claims are then sorted as the
// binder does: bound (spec.volumeName and pv.kubernetes.io/bind-completed), unbound with delayed
// binding (class WaitForFirstConsumer, no volumeName), and unbound immediate: a pod with an
// unbound immediate claim waits for kcm's PV controller to bind it
// (UnschedulableAndUnresolvable `pod has unbound immediate PersistentVolumeClaims`).
//
// Filter, per node (UnschedulableAndUnresolvable, the reasons in kube's order):
//   - a bound claim's volume missing: `node(s) unavailable due to one or more pvc(s) bound to
//     non-existent pv(s)`; its required node affinity not matching the node's labels:
//     `node(s) had volume node affinity conflict`;
//   - a delayed claim already given a node (volume.kubernetes.io/selected-node) that is another
//     node, or that neither an Available volume of its class fits (not claimed by another claim,
//     large enough, its access modes and volume mode, node affinity matching) nor its class can
//     provision on the node (a provisioner other than kubernetes.io/no-provisioner, the class's
//     allowedTopologies matching): `node(s) didn't find available persistent volumes to bind`.
// Its scope is the node's class (labels other than the hostname) unless a claim names a node or
// a volume's affinity reads the hostname or the node's name.
// Not modelled: storage capacity (CSIStorageCapacity), ephemeral volumes, CSI migration's
// topology translation, PreFilterResult narrowing to a local volume's node, and Reserve.
// PreBind is not a plugin point of the framework: runtime/kube_scheduler.h's binding cycle makes
// BindPodVolumes' writes and waits, with CheckBindings below, before it binds the pod.
//
// Hint: a claim, volume or class added or updated (ClusterEvent::kStorageChange) queues a pod
// this plugin rejected when it is a claim of the pod or a volume or class; a node added or
// updated in its labels queues it too.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/volume_lister.h"

namespace tidepool::scheduler::plugins {

// FindMatchingVolume for a delayed claim on a node of `labels`: a volume bound to the claim (its
// claimRef naming it with its uid) or pre-bound to it (no uid), else the smallest Available volume
// of its class - not being deleted, large enough, with its access modes and volume mode - whose
// node affinity matches (the first by name among equals), leaving out the volumes named in
// `excluded` (those other claims of the pod took); null when none.
api::PersistentVolumeConstSharedPtr FindVolumeFor(const VolumeLister& lister,
                                                  const api::PersistentVolumeClaim& claim,
                                                  const api::Labels& labels,
                                                  const std::set<std::string>* excluded = nullptr);

// What BindPodVolumes' API writes (bindAPIUpdate) did for one pod, each with the
// resourceVersion the API answered, for CheckBindings.
struct PodVolumeWrites {
  // A static volume given the claim's reference (GetBindVolumeToClaim).
  struct Binding {
    std::string claim;  // in the pod's namespace
    std::string volume;
    std::string volume_version;
  };
  // A claim given the node (volume.kubernetes.io/selected-node) for its provisioner.
  struct Provision {
    std::string claim;
    std::string claim_version;
  };
  std::vector<Binding> bindings;
  std::vector<Provision> provisions;
  bool empty() const { return bindings.empty() && provisions.empty(); }
};

// checkBindings (binder.go), on the informers' view: true when every claim written is fully
// bound (spec.volumeName and pv.kubernetes.io/bind-completed) and its volume's affinity matches
// the node; false while the PV controller or a provisioner is not done, or the view is older
// than a write; an error, in kube's text, when scheduling must be tried again: `could not find
// v1.PersistentVolume "x"` / `v1.PersistentVolumeClaim "ns/x"` (wrapped in `failed to check
// binding: ` or `failed to check provisioning pvc: `), `ClaimRef got reset for pv "x"`,
// `pv "x" node affinity doesn't match node "n": no matching NodeSelectorTerms`,
// `selectedNode annotation reset for PVC "x"` and `provisioning failed for PVC "x"` (a
// provisioner that gave up removes the annotation).
StatusOr<bool> CheckBindings(const VolumeLister& lister, const std::string& ns,
                             const std::string& node, const api::Labels& node_labels,
                             const PodVolumeWrites& writes);

class VolumeBinding final : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "VolumeBinding";
  static constexpr const char* kErrReasonBindConflict =
      "node(s) didn't find available persistent volumes to bind";
  static constexpr const char* kErrReasonNodeConflict = "node(s) had volume node affinity conflict";
  static constexpr const char* kErrReasonPVNotExist =
      "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

  explicit VolumeBinding(std::shared_ptr<const VolumeLister> volumes)
      : volumes_(std::move(volumes)) {}

  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod,
                         PreFilterResult& result) const override;
  NodeScope FilterScope(const CycleState& state, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod,
                      const NodeInfo& node) const override;
  std::optional<QueueingHint> Hint(const ClusterEvent& event, const PodInfo& pod) const override;

 private:
  std::shared_ptr<const VolumeLister> volumes_;
};

}  // namespace tidepool::scheduler::plugins
