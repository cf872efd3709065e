// File: core.h
//
// core/v1 PersistentVolume and ReplicationController: the defaults kube-apiserver 1.32 sets on
// every write (pkg/apis/core/v1/defaults.go), what its strategies do on create
// (pkg/registry/core/{persistentvolume,replicationcontroller}/strategy.go) and its validation
// (pkg/apis/core/validation/validation.go), with its texts. `old` is null on create.
//
// PersistentVolume
//   Defaults: spec.persistentVolumeReclaimPolicy Retain, spec.volumeMode Filesystem,
//   status.phase Pending; of the volume sources, hostPath.type "" (HostPathUnset),
//   iscsi.iscsiInterface "default", rbd pool "rbd" / user "admin" / keyring
//   "/etc/ceph/keyring", azureDisk cachingMode ReadWrite / kind Shared / fsType ext4 /
//   readOnly false, scaleIO storageMode ThinProvisioned / fsType xfs.
//   On create the status is the server's: {phase: Pending, lastPhaseTransitionTime: now}.
//   Validation: ObjectMeta (cluster-scoped, DNS-1123 subdomain); accessModes required, each
//   one of ReadOnlyMany / ReadWriteMany / ReadWriteOnce / ReadWriteOncePod, ReadWriteOncePod
//   alone; capacity required, holding storage only, each quantity greater than zero; the
//   reclaim policy one of Delete / Recycle / Retain; exactly one volume source ("must specify
//   a volume type", "may not specify more than 1 volume type"), with the required fields of
//   hostPath (path), local (path, and nodeAffinity.required), nfs (server, absolute path) and
//   csi (driver, volumeHandle); no Recycle of a hostPath "/"; storageClassName a DNS-1123
//   subdomain; volumeMode Block or Filesystem. On update volumeMode is immutable.
//   Not modelled: the other sources' own fields, nodeAffinity's terms, the immutability of
//   the volume source (kube's text embeds a diff), deprecation warnings,
//   volumeAttributesClassName (its feature gate is off in 1.32).
//
// PersistentVolumeClaim
//   Defaults: spec.volumeMode Filesystem, status.phase Pending. On create the status is the
//   server's: {phase: Pending} (PrepareForCreate resets it; decoding defaults the phase).
//   Validation (ValidatePersistentVolumeClaimSpec): ObjectMeta (namespaced, DNS-1123
//   subdomain); accessModes required ("at least 1 access mode is required"), each one of
//   ReadOnlyMany / ReadWriteMany / ReadWriteOnce / ReadWriteOncePod, ReadWriteOncePod alone;
//   resources.requests[storage] required and greater than zero; storageClassName (when not
//   empty) a DNS-1123 subdomain; volumeMode Block or Filesystem.
//   On update (ValidatePersistentVolumeClaimUpdate) the spec is immutable but for volumeName
//   set once, a class given where there was none (or from the beta annotation), and a bound
//   claim's resources.requests: "spec: Forbidden: spec is immutable after creation except
//   resources.requests and volumeAttributesClassName for bound claims" followed by
//   a diff of the internal specs: apimachinery's diff.Diff of kube 1.34 (go-difflib's unified
//   diff of their JSON, Go field names), where 1.32 appends go-cmp's report, whose layout go-cmp
//   varies on purpose; a smaller request only above status.capacity
//   (RecoverVolumeExpansionFailure, beta in 1.32: "spec.resources.requests.storage: Forbidden:
//   field can not be less than status.capacity"); volumeMode and the beta class annotation
//   immutable. Not modelled: the selector's and dataSource's rules; the resize admission.
//
// ReplicationController
//   Defaults: spec.selector from the template's labels when empty, metadata.labels likewise,
//   spec.replicas 1 (the template's pod spec defaults are admission's, as for apps kinds).
//   On create the status is the server's: {replicas: 0}; metadata.generation is the store's.
//   Validation: ObjectMeta (namespaced, DNS-1123 subdomain); minReadySeconds and replicas not
//   negative; the selector required ("spec.selector: Required value"); the template required,
//   its labels matching the selector ("spec.template.metadata.labels: Invalid value:
//   map[string]string{...}: `selector` does not match template `labels`"), validated as a
//   pod template, restartPolicy Always only, no activeDeadlineSeconds ("must not be
//   specified"). The same on update, with ObjectMeta's update rules (the selector may change).
#pragma once

#include <string>
#include <string_view>

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

void DefaultPersistentVolume(json& object);
// The strategy's PrepareForCreate: the status reset to Pending at `now` (RFC 3339).
void PreparePersistentVolumeForCreate(json& object, const std::string& now);
Status ValidatePersistentVolume(const json& object, const json* old, api::FieldErrors* errors);
// The status strategy's PrepareForUpdate: a phase that changes gets lastPhaseTransitionTime
// `now` (unless the writer set another time); an unchanged phase keeps the old time when the
// writer left it out.
void PreparePersistentVolumeStatusUpdate(json& object, const json& old, const std::string& now);

void DefaultPersistentVolumeClaim(json& object);
void PreparePersistentVolumeClaimForCreate(json& object);
// The strategy's PrepareForUpdate: an update of the claim itself keeps the stored status (the
// status subresource writes it).
void PreparePersistentVolumeClaimForUpdate(json& object, const json& old);
Status ValidatePersistentVolumeClaim(const json& object, const json* old, api::FieldErrors* errors);

// apivalidation.ValidateCSIDriverName (a PersistentVolume's spec.csi.driver, a CSINode's
// drivers): required, at most 63 bytes, a DNS-1123 subdomain once lowercased.
api::FieldErrors ValidateCsiDriverName(std::string_view name, const std::string& path);

void DefaultReplicationController(json& object);
void PrepareReplicationControllerForCreate(json& object);
Status ValidateReplicationController(const json& object, const json* old, api::FieldErrors* errors);

// A core/v1 PodTemplate (ValidatePodTemplate / ValidatePodTemplateUpdate): ObjectMeta, and the
// template at "template" (a zero template when absent: its spec needs containers).
// SetDefaults_Service: type ClusterIP, sessionAffinity None, each port's protocol TCP and
// targetPort its port, internalTrafficPolicy Cluster (and externalTrafficPolicy Cluster for
// NodePort and LoadBalancer); not for ExternalName. A status.loadBalancer.ingress entry with
// an ip and no ipMode gets ipMode VIP (LoadBalancerIPMode, on by default in 1.32).
void DefaultService(json& object);
// An update that names no cluster IP keeps the allocated one (and its families); one that names
// another with the old clusterIPs moves clusterIPs[0] to it (normalizeClusterIPs).
void KeepServiceAddresses(json& object, const json& old);
// ValidateServiceUpdate's checks: ObjectMeta's, and the cluster IPs "may not change once set"
// (validateUpgradeDowngradeClusterIPs; ExternalName and headless-to-headless exempt).
Status ValidateServiceUpdate(const json& object, const json& old, api::FieldErrors* errors);

// SetDefaults_LimitRangeItem: a Container item's default from max, defaultRequest from
// default, then from min.
void DefaultLimitRange(json& object);

// core/v1 ResourceQuota (ValidateResourceQuota): spec.hard and status's resource names are
// quota resources (api/quota.h), their quantities not negative, counts whole; known scopes,
// immutable.
Status ValidateResourceQuota(const json& object, const json* old, api::FieldErrors* errors);

Status ValidatePodTemplateObject(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
