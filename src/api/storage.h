// File: storage.h
//
// The parts of v1.PersistentVolumeClaim, v1.PersistentVolume and storage.k8s.io/v1
// StorageClass that scheduling reads (kube-scheduler 1.32's VolumeBinding plugin), with the
// helpers of k8s.io/component-helpers/storage/volume it uses. Decoded by api/codec/json_codec.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "api/selector.h"

namespace tidepool::api {

inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kNotSupportedProvisioner = "kubernetes.io/no-provisioner";

struct PersistentVolumeClaim {
  ObjectMeta meta;
  std::vector<std::string> access_modes;
  int64_t storage_request = 0;                    // spec.resources.requests.storage, bytes
  std::optional<std::string> storage_class_name;  // nil vs ""
  std::string volume_mode = "Filesystem";
  std::string volume_name;
  std::string phase;  // status.phase: Pending, Bound, Lost

  // volume.GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName.
  std::string ClassName() const;
  // isPVCFullyBound: spec.volumeName set and pv.kubernetes.io/bind-completed present.
  bool FullyBound() const;
  std::string SelectedNode() const;
};

struct PersistentVolume {
  ObjectMeta meta;
  std::vector<std::string> access_modes;
  int64_t capacity = 0;  // spec.capacity.storage, bytes
  std::string storage_class_name;
  std::string volume_mode = "Filesystem";
  // spec.nodeAffinity.required, when set.
  std::optional<NodeSelector> node_affinity;
  // spec.claimRef, when set.
  struct ClaimRef {
    std::string namespace_, name, uid;
  };
  std::optional<ClaimRef> claim_ref;
  std::string phase;  // status.phase: Pending, Available, Bound, Released, Failed

  // volume.GetPersistentVolumeClass: the beta annotation, else spec.storageClassName.
  std::string ClassName() const;
  // volume.CheckNodeAffinity: no affinity, or its required terms match the node's labels.
  bool NodeAffinityMatches(const Labels& node_labels) const;
  // Whether the affinity reads more than a node's class: its hostname label or its name.
  bool AffinityNamesNodes() const;
};

struct StorageClass {
  std::string name;
  std::string provisioner;
  // volumeBindingMode; nullopt when unset (IsDelayBindingMode's error).
  std::optional<std::string> volume_binding_mode;
  // allowedTopologies: each term's label requirements (key In values); empty: anywhere.
  std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> allowed_topologies;

  bool WaitForFirstConsumer() const {
    return volume_binding_mode.has_value() && *volume_binding_mode == "WaitForFirstConsumer";
  }
  // v1helper.MatchTopologySelectorTerms (an empty term selects no node).
  bool TopologyAllows(const Labels& node_labels) const;
  // Whether allowedTopologies reads the hostname label.
  bool TopologyNamesNodes() const;
};

using PersistentVolumeClaimConstSharedPtr = std::shared_ptr<const PersistentVolumeClaim>;
using PersistentVolumeConstSharedPtr = std::shared_ptr<const PersistentVolume>;
using StorageClassConstSharedPtr = std::shared_ptr<const StorageClass>;

}  // namespace tidepool::api
