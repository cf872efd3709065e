#include "scheduler/plugins/volume_binding/volume_binding.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace tidepool::scheduler::plugins {
namespace {

// The pod's claims as GetPodVolumeClaims sorts them.
struct ClaimsState : CycleState::Data {
  std::vector<api::PersistentVolumeClaimConstSharedPtr> delayed;
  // The volumes of the bound claims (null: not found), in volume order.
  std::vector<api::PersistentVolumeConstSharedPtr> bound_volumes;
  bool names_nodes = false;  // FilterScope kNode
};

bool HasModes(const std::vector<std::string>& have, const std::vector<std::string>& want) {
  return std::all_of(want.begin(), want.end(), [&](const std::string& m) {
    return std::find(have.begin(), have.end(), m) != have.end();
  });
}

// checkVolumeProvisions for one claim: its class can provision on a node with `labels`.
bool CanProvision(const VolumeLister& lister, const api::PersistentVolumeClaim& claim,
                  const api::Labels& labels) {
  const auto sc = lister.Class(claim.ClassName());
  if (sc == nullptr || sc->provisioner.empty() ||
      sc->provisioner == api::kNotSupportedProvisioner) {
    return false;
  }
  return sc->TopologyAllows(labels);
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

Status BindError(const std::string& message) {
  return Status(StatusCode::kFailedPrecondition, message);
}

Status AffinityError(const api::PersistentVolume& v, const std::string& node) {
  return BindError("pv " + Quoted(v.meta.name) + " node affinity doesn't match node " +
                   Quoted(node) + ": no matching NodeSelectorTerms");
}

}  // namespace

StatusOr<bool> CheckBindings(const VolumeLister& lister, const std::string& ns,
                             const std::string& node, const api::Labels& node_labels,
                             const PodVolumeWrites& writes) {
  for (const auto& b : writes.bindings) {
    const auto v = lister.Volume(b.volume);
    if (v == nullptr) {
      return BindError("failed to check binding: could not find v1.PersistentVolume " +
                       Quoted(b.volume));
    }
    const auto claim = lister.Claim(ns, b.claim);
    if (claim == nullptr) {
      return BindError("failed to check binding: could not find v1.PersistentVolumeClaim " +
                       Quoted(ns + "/" + b.claim));
    }
    if (api::ResourceVersionOlder(v->meta.resource_version, b.volume_version)) return false;
    if (!v->NodeAffinityMatches(node_labels)) return AffinityError(*v, node);
    if (!v->claim_ref.has_value() || v->claim_ref->uid.empty()) {
      return BindError("ClaimRef got reset for pv " + Quoted(v->meta.name));
    }
    if (!claim->FullyBound()) return false;
  }
  for (const auto& p : writes.provisions) {
    const auto claim = lister.Claim(ns, p.claim);
    if (claim == nullptr) {
      return BindError(
          "failed to check provisioning pvc: could not find "
          "v1.PersistentVolumeClaim " +
          Quoted(ns + "/" + p.claim));
    }
    if (api::ResourceVersionOlder(claim->meta.resource_version, p.claim_version)) return false;
    if (claim->meta.annotations.empty()) {
      return BindError("selectedNode annotation reset for PVC " + Quoted(p.claim));
    }
    if (claim->SelectedNode() != node) {
      return BindError("provisioning failed for PVC " + Quoted(p.claim));
    }
    if (!claim->volume_name.empty()) {
      const auto v = lister.Volume(claim->volume_name);
      if (v == nullptr) return false;  // not seen yet, or deleted: the claim will be unbound
      if (!v->NodeAffinityMatches(node_labels)) return AffinityError(*v, node);
    }
    if (!claim->FullyBound()) return false;
  }
  return true;
}

api::PersistentVolumeConstSharedPtr FindVolumeFor(const VolumeLister& lister,
                                                  const api::PersistentVolumeClaim& claim,
                                                  const api::Labels& labels,
                                                  const std::set<std::string>* excluded) {
  // IsVolumeBoundToClaim: a volume whose claimRef already has this claim's uid (the scheduler
  // or the PV controller wrote it; the claim does not show it yet) is the claim's, or no volume
  // is when its affinity does not match the node.
  if (auto v = lister.VolumeClaimedBy(claim.meta.namespace_, claim.meta.name);
      v != nullptr && v->claim_ref->uid == claim.meta.uid && v->ClassName() == claim.ClassName() &&
      (excluded == nullptr || excluded->count(v->meta.name) == 0) &&
      v->capacity >= claim.storage_request && v->volume_mode == claim.volume_mode &&
      !v->meta.deletion_timestamp.has_value()) {
    return v->NodeAffinityMatches(labels) ? v : nullptr;
  }
  api::PersistentVolumeConstSharedPtr best;
  for (const auto& v : lister.UnboundVolumes(claim.ClassName())) {
    if (excluded != nullptr && excluded->count(v->meta.name) != 0) continue;
    const bool prebound = v->claim_ref.has_value();
    if (prebound && (v->claim_ref->name != claim.meta.name ||
                     v->claim_ref->namespace_ != claim.meta.namespace_)) {
      continue;
    }
    if (v->meta.deletion_timestamp.has_value() || v->capacity < claim.storage_request ||
        v->volume_mode != claim.volume_mode || !HasModes(v->access_modes, claim.access_modes)) {
      continue;
    }
    if (!prebound && v->phase != "Available") continue;
    if (!v->NodeAffinityMatches(labels)) continue;
    if (prebound) return v;
    if (best == nullptr || v->capacity < best->capacity) best = v;  // by name among equals
  }
  return best;
}

PluginStatus VolumeBinding::PreFilter(CycleState& state, const PodInfo& pod,
                                      PreFilterResult&) const {
  if (volumes_ == nullptr) return PluginStatus::Skip();
  auto claims = std::make_unique<ClaimsState>();
  bool has_claim = false, unbound_immediate = false;
  for (const api::Volume& v : pod.spec().volumes) {
    if (v.claim_name.empty()) continue;
    has_claim = true;
    const auto claim = volumes_->Claim(pod.namespace_(), v.claim_name);
    if (claim == nullptr) {
      return PluginStatus::Unresolvable("persistentvolumeclaim \"" + v.claim_name + "\" not found");
    }
    if (claim->phase == "Lost") {
      return PluginStatus::Unresolvable("persistentvolumeclaim \"" + v.claim_name +
                                        "\" bound to non-existent persistentvolume \"" +
                                        claim->volume_name + "\"");
    }
    if (claim->meta.deletion_timestamp.has_value()) {
      return PluginStatus::Unresolvable("persistentvolumeclaim \"" + v.claim_name +
                                        "\" is being deleted");
    }
    if (claim->FullyBound()) {
      auto volume = volumes_->Volume(claim->volume_name);
      if (volume != nullptr && volume->AffinityNamesNodes()) claims->names_nodes = true;
      claims->bound_volumes.push_back(std::move(volume));
      continue;
    }
    const auto sc = claim->ClassName().empty() ? nullptr : volumes_->Class(claim->ClassName());
    if (sc != nullptr && sc->WaitForFirstConsumer() && claim->volume_name.empty()) {
      if (!claim->SelectedNode().empty() || sc->TopologyNamesNodes()) claims->names_nodes = true;
      for (const auto& pv : volumes_->UnboundVolumes(claim->ClassName())) {
        if (pv->AffinityNamesNodes()) claims->names_nodes = true;
      }
      claims->delayed.push_back(claim);
    } else {
      unbound_immediate = true;
    }
  }
  if (!has_claim) return PluginStatus::Skip();
  std::stable_sort(
      claims->delayed.begin(), claims->delayed.end(),
      [](const auto& a, const auto& b) { return a->storage_request < b->storage_request; });
  // The PV controller binds these; the claim's update queues the pod again.
  if (unbound_immediate) {
    return PluginStatus::Unresolvable("pod has unbound immediate PersistentVolumeClaims");
  }
  state.Write(std::move(claims));
  return PluginStatus::Success();
}

NodeScope VolumeBinding::FilterScope(const CycleState& state, const PodInfo&) const {
  const ClaimsState* s = state.Read<ClaimsState>();
  return s == nullptr || s->names_nodes ? NodeScope::kNode : NodeScope::kClass;
}

PluginStatus VolumeBinding::Filter(const CycleState& state, const PodInfo&,
                                   const NodeInfo& node) const {
  const ClaimsState* s = state.Read<ClaimsState>();
  if (s == nullptr) return PluginStatus::Success();
  const api::Labels all = s->names_nodes ? node.AllLabels() : api::Labels();
  const api::Labels& labels = s->names_nodes ? all : node.labels_without_hostname();
  // checkBoundClaims: stops at the first volume missing or not matching.
  bool bound_ok = true, volumes_found = true;
  for (const auto& v : s->bound_volumes) {
    if (v == nullptr) {
      volumes_found = false;
      break;
    }
    if (!v->NodeAffinityMatches(labels)) {
      bound_ok = false;
      break;
    }
  }
  // findMatchingVolumes: the claims by size, smallest first, each taking a volume no other
  // took; the rest must be provisionable.
  bool unbound_ok = true;
  std::set<std::string> chosen;
  for (const auto& claim : s->delayed) {
    const std::string selected = claim->SelectedNode();
    if (!selected.empty()) {
      if (selected != node.name() || !CanProvision(*volumes_, *claim, labels)) unbound_ok = false;
    } else if (auto v = FindVolumeFor(*volumes_, *claim, labels, &chosen)) {
      chosen.insert(v->meta.name);
    } else if (!CanProvision(*volumes_, *claim, labels)) {
      unbound_ok = false;
    }
    if (!unbound_ok) break;
  }
  std::vector<std::string> reasons;
  if (!bound_ok) reasons.push_back(kErrReasonNodeConflict);
  if (!unbound_ok) reasons.push_back(kErrReasonBindConflict);
  if (!volumes_found) reasons.push_back(kErrReasonPVNotExist);
  if (reasons.empty()) return PluginStatus::Success();
  return PluginStatus(PluginCode::kUnschedulableAndUnresolvable, std::move(reasons));
}

std::optional<QueueingHint> VolumeBinding::Hint(const ClusterEvent& event,
                                                const PodInfo& pod) const {
  if (event.kind == ClusterEvent::Kind::kStorageChange) {
    if (event.storage != ClusterEvent::Storage::kClaim) return QueueingHint::kQueue;
    if (event.claim_namespace != pod.namespace_()) return QueueingHint::kSkip;
    for (const api::Volume& v : pod.spec().volumes) {
      if (!v.claim_name.empty() && v.claim_name == event.claim_name) return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  if (event.IsNodeChange(ClusterEvent::kUpdateNodeLabel | ClusterEvent::kUpdateNodeTaint)) {
    return QueueingHint::kQueue;
  }
  return std::nullopt;
}

}  // namespace tidepool::scheduler::plugins
