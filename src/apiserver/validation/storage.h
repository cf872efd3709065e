// File: storage.h
//
// storage.k8s.io/v1 StorageClass, CSIDriver, CSINode and CSIStorageCapacity: the defaults
// kube-apiserver 1.32 sets on every write (pkg/apis/storage/v1/defaults.go) and its validation
// (pkg/apis/storage/validation/validation.go), with its texts. `old` is null on create.
//
// StorageClass: defaults reclaimPolicy Delete, volumeBindingMode Immediate. Validation:
//   ObjectMeta (cluster-scoped, DNS-1123 subdomain); provisioner required ("provisioner:
//   Required value") and a qualified name once lowercased; parameters at most 512, keys not
//   empty ("field can not be empty."), keys and values at most 256 KiB in all; reclaimPolicy
//   Delete or Retain; volumeBindingMode Immediate or WaitForFirstConsumer. On update
//   parameters, provisioner and reclaimPolicy may not change ("updates to parameters are
//   forbidden.") and volumeBindingMode is immutable. Not checked: allowedTopologies' terms.
// CSIDriver: defaults attachRequired true, podInfoOnMount false, storageCapacity false,
//   fsGroupPolicy ReadWriteOnceWithFSType, volumeLifecycleModes [Persistent],
//   requiresRepublish false, seLinuxMount false (SELinuxMountReadWriteOncePod is on in 1.32).
//   Validation: ObjectMeta (cluster-scoped); attachRequired ("spec.attachedRequired", kube's
//   spelling), podInfoOnMount, storageCapacity and seLinuxMount required; fsGroupPolicy File,
//   None or ReadWriteOnceWithFSType; tokenRequests' audiences distinct, expirationSeconds
//   between 10 minutes and 2^32 seconds; volumeLifecycleModes Persistent or Ephemeral. On
//   update attachRequired and volumeLifecycleModes are immutable. (metadata.generation, which
//   kube bumps on spec changes from 0, is not kept.)
// CSINode: ObjectMeta (cluster-scoped, a node name); each driver's name a CSI driver name and
//   unique, nodeID required and at most 256 bytes, allocatable.count not negative, topology
//   keys non-empty qualified names without duplicates. On update a driver of an existing name
//   may not change.
// CSIStorageCapacity: ObjectMeta (namespaced); nodeTopology a valid label selector;
//   storageClassName a DNS-1123 subdomain; capacity not negative. On update nodeTopology and
//   storageClassName are immutable.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

void DefaultStorageClass(json& object);
Status ValidateStorageClass(const json& object, const json* old, api::FieldErrors* errors);

void DefaultCsiDriver(json& object);
Status ValidateCsiDriver(const json& object, const json* old, api::FieldErrors* errors);

Status ValidateCsiNode(const json& object, const json* old, api::FieldErrors* errors);

Status ValidateCsiStorageCapacity(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
