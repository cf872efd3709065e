// File: messages.cc
//
// The tables of messages.h. Field numbers and types are those of Kubernetes 1.32's
// generated.proto files (k8s.io/api core, apps, batch, policy, scheduling, rbac, autoscaling,
// events, coordination, networking, storage, certificates v1; k8s.io/apimachinery meta/v1); JSON
// names, Go names, `omitempty` and pointer-ness are those of the Go types
// (k8s.io/api/*/v1/types.go). Messages come before the messages that use them. meta/v1
// ManagedFieldsEntry is left out: the server owns managedFields, so ObjectMeta skips field 17 as
// it skips unknown fields.
#include "apiserver/protobuf/messages.h"

namespace tidepool::apiserver::protobuf {
namespace {

using enum Kind;
using enum Presence;

// apis.meta.v1.OwnerReference
constexpr FieldSpec kMetaOwnerReferenceFields[] = {
    {1, "kind", "Kind", kString, kAlways},
    {3, "name", "Name", kString, kAlways},
    {4, "uid", "UID", kString, kAlways},
    {5, "apiVersion", "APIVersion", kString, kAlways},
    {6, "controller", "Controller", kBool, kOnWire},
    {7, "blockOwnerDeletion", "BlockOwnerDeletion", kBool, kOnWire},
};
constexpr MessageSpec kMetaOwnerReference{"OwnerReference", kMetaOwnerReferenceFields};

// apis.meta.v1.ObjectMeta
constexpr FieldSpec kMetaObjectMetaFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "generateName", "GenerateName", kString, kOmitEmpty},
    {3, "namespace", "Namespace", kString, kOmitEmpty},
    {4, "selfLink", "SelfLink", kString, kOmitEmpty},
    {5, "uid", "UID", kString, kOmitEmpty},
    {6, "resourceVersion", "ResourceVersion", kString, kOmitEmpty},
    {7, "generation", "Generation", kInt64, kOmitEmpty},
    {8, "creationTimestamp", "CreationTimestamp", kTime, kAlways},
    {9, "deletionTimestamp", "DeletionTimestamp", kTime, kOnWire},
    {10, "deletionGracePeriodSeconds", "DeletionGracePeriodSeconds", kInt64, kOnWire},
    {11, "labels", "Labels", kStringMap, kOmitEmpty},
    {12, "annotations", "Annotations", kStringMap, kOmitEmpty},
    {13, "ownerReferences", "OwnerReferences", kMessage, kOmitEmpty, kRepeated,
     &kMetaOwnerReference},
    {14, "finalizers", "Finalizers", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kMetaObjectMeta{"ObjectMeta", kMetaObjectMetaFields};

// core.v1.HostPathVolumeSource
constexpr FieldSpec kCoreHostPathVolumeSourceFields[] = {
    {1, "path", "Path", kString, kAlways},
    {2, "type", "Type", kString, kOnWire},
};
constexpr MessageSpec kCoreHostPathVolumeSource{"HostPathVolumeSource",
                                                kCoreHostPathVolumeSourceFields};

// core.v1.EmptyDirVolumeSource
constexpr FieldSpec kCoreEmptyDirVolumeSourceFields[] = {
    {1, "medium", "Medium", kString, kOmitEmpty},
    {2, "sizeLimit", "SizeLimit", kQuantity, kOnWire},
};
constexpr MessageSpec kCoreEmptyDirVolumeSource{"EmptyDirVolumeSource",
                                                kCoreEmptyDirVolumeSourceFields};

// core.v1.GCEPersistentDiskVolumeSource
constexpr FieldSpec kCoreGCEPersistentDiskVolumeSourceFields[] = {
    {1, "pdName", "PDName", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "partition", "Partition", kInt32, kOmitEmpty},
    {4, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreGCEPersistentDiskVolumeSource{"GCEPersistentDiskVolumeSource",
                                                         kCoreGCEPersistentDiskVolumeSourceFields};

// core.v1.AWSElasticBlockStoreVolumeSource
constexpr FieldSpec kCoreAWSElasticBlockStoreVolumeSourceFields[] = {
    {1, "volumeID", "VolumeID", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "partition", "Partition", kInt32, kOmitEmpty},
    {4, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreAWSElasticBlockStoreVolumeSource{
    "AWSElasticBlockStoreVolumeSource", kCoreAWSElasticBlockStoreVolumeSourceFields};

// core.v1.GitRepoVolumeSource
constexpr FieldSpec kCoreGitRepoVolumeSourceFields[] = {
    {1, "repository", "Repository", kString, kAlways},
    {2, "revision", "Revision", kString, kOmitEmpty},
    {3, "directory", "Directory", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreGitRepoVolumeSource{"GitRepoVolumeSource",
                                               kCoreGitRepoVolumeSourceFields};

// core.v1.KeyToPath
constexpr FieldSpec kCoreKeyToPathFields[] = {
    {1, "key", "Key", kString, kAlways},
    {2, "path", "Path", kString, kAlways},
    {3, "mode", "Mode", kInt32, kOnWire},
};
constexpr MessageSpec kCoreKeyToPath{"KeyToPath", kCoreKeyToPathFields};

// core.v1.SecretVolumeSource
constexpr FieldSpec kCoreSecretVolumeSourceFields[] = {
    {1, "secretName", "SecretName", kString, kOmitEmpty},
    {2, "items", "Items", kMessage, kOmitEmpty, kRepeated, &kCoreKeyToPath},
    {3, "defaultMode", "DefaultMode", kInt32, kOnWire},
    {4, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreSecretVolumeSource{"SecretVolumeSource", kCoreSecretVolumeSourceFields};

// core.v1.NFSVolumeSource
constexpr FieldSpec kCoreNFSVolumeSourceFields[] = {
    {1, "server", "Server", kString, kAlways},
    {2, "path", "Path", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreNFSVolumeSource{"NFSVolumeSource", kCoreNFSVolumeSourceFields};

// core.v1.LocalObjectReference
constexpr FieldSpec kCoreLocalObjectReferenceFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreLocalObjectReference{"LocalObjectReference",
                                                kCoreLocalObjectReferenceFields};

// core.v1.ISCSIVolumeSource
constexpr FieldSpec kCoreISCSIVolumeSourceFields[] = {
    {1, "targetPortal", "TargetPortal", kString, kAlways},
    {2, "iqn", "IQN", kString, kAlways},
    {3, "lun", "Lun", kInt32, kAlways},
    {4, "iscsiInterface", "ISCSIInterface", kString, kOmitEmpty},
    {5, "fsType", "FSType", kString, kOmitEmpty},
    {6, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {7, "portals", "Portals", kString, kOmitEmpty, kRepeated},
    {8, "chapAuthDiscovery", "DiscoveryCHAPAuth", kBool, kOmitEmpty},
    {10, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreLocalObjectReference},
    {11, "chapAuthSession", "SessionCHAPAuth", kBool, kOmitEmpty},
    {12, "initiatorName", "InitiatorName", kString, kOnWire},
};
constexpr MessageSpec kCoreISCSIVolumeSource{"ISCSIVolumeSource", kCoreISCSIVolumeSourceFields};

// core.v1.GlusterfsVolumeSource
constexpr FieldSpec kCoreGlusterfsVolumeSourceFields[] = {
    {1, "endpoints", "EndpointsName", kString, kAlways},
    {2, "path", "Path", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreGlusterfsVolumeSource{"GlusterfsVolumeSource",
                                                 kCoreGlusterfsVolumeSourceFields};

// core.v1.PersistentVolumeClaimVolumeSource
constexpr FieldSpec kCorePersistentVolumeClaimVolumeSourceFields[] = {
    {1, "claimName", "ClaimName", kString, kAlways},
    {2, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCorePersistentVolumeClaimVolumeSource{
    "PersistentVolumeClaimVolumeSource", kCorePersistentVolumeClaimVolumeSourceFields};

// core.v1.RBDVolumeSource
constexpr FieldSpec kCoreRBDVolumeSourceFields[] = {
    {1, "monitors", "CephMonitors", kString, kOmitEmpty, kRepeated},
    {2, "image", "RBDImage", kString, kAlways},
    {3, "fsType", "FSType", kString, kOmitEmpty},
    {4, "pool", "RBDPool", kString, kOmitEmpty},
    {5, "user", "RadosUser", kString, kOmitEmpty},
    {6, "keyring", "Keyring", kString, kOmitEmpty},
    {7, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreLocalObjectReference},
    {8, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreRBDVolumeSource{"RBDVolumeSource", kCoreRBDVolumeSourceFields};

// core.v1.FlexVolumeSource
constexpr FieldSpec kCoreFlexVolumeSourceFields[] = {
    {1, "driver", "Driver", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreLocalObjectReference},
    {4, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {5, "options", "Options", kStringMap, kOmitEmpty},
};
constexpr MessageSpec kCoreFlexVolumeSource{"FlexVolumeSource", kCoreFlexVolumeSourceFields};

// core.v1.CinderVolumeSource
constexpr FieldSpec kCoreCinderVolumeSourceFields[] = {
    {1, "volumeID", "VolumeID", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {4, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreLocalObjectReference},
};
constexpr MessageSpec kCoreCinderVolumeSource{"CinderVolumeSource", kCoreCinderVolumeSourceFields};

// core.v1.CephFSVolumeSource
constexpr FieldSpec kCoreCephFSVolumeSourceFields[] = {
    {1, "monitors", "Monitors", kString, kOmitEmpty, kRepeated},
    {2, "path", "Path", kString, kOmitEmpty},
    {3, "user", "User", kString, kOmitEmpty},
    {4, "secretFile", "SecretFile", kString, kOmitEmpty},
    {5, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreLocalObjectReference},
    {6, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreCephFSVolumeSource{"CephFSVolumeSource", kCoreCephFSVolumeSourceFields};

// core.v1.FlockerVolumeSource
constexpr FieldSpec kCoreFlockerVolumeSourceFields[] = {
    {1, "datasetName", "DatasetName", kString, kOmitEmpty},
    {2, "datasetUUID", "DatasetUUID", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreFlockerVolumeSource{"FlockerVolumeSource",
                                               kCoreFlockerVolumeSourceFields};

// core.v1.ObjectFieldSelector
constexpr FieldSpec kCoreObjectFieldSelectorFields[] = {
    {1, "apiVersion", "APIVersion", kString, kOmitEmpty},
    {2, "fieldPath", "FieldPath", kString, kAlways},
};
constexpr MessageSpec kCoreObjectFieldSelector{"ObjectFieldSelector",
                                               kCoreObjectFieldSelectorFields};

// core.v1.ResourceFieldSelector
constexpr FieldSpec kCoreResourceFieldSelectorFields[] = {
    {1, "containerName", "ContainerName", kString, kOmitEmpty},
    {2, "resource", "Resource", kString, kAlways},
    {3, "divisor", "Divisor", kQuantity, kAlways},
};
constexpr MessageSpec kCoreResourceFieldSelector{"ResourceFieldSelector",
                                                 kCoreResourceFieldSelectorFields};

// core.v1.DownwardAPIVolumeFile
constexpr FieldSpec kCoreDownwardAPIVolumeFileFields[] = {
    {1, "path", "Path", kString, kAlways},
    {2, "fieldRef", "FieldRef", kMessage, kOnWire, 0, &kCoreObjectFieldSelector},
    {3, "resourceFieldRef", "ResourceFieldRef", kMessage, kOnWire, 0, &kCoreResourceFieldSelector},
    {4, "mode", "Mode", kInt32, kOnWire},
};
constexpr MessageSpec kCoreDownwardAPIVolumeFile{"DownwardAPIVolumeFile",
                                                 kCoreDownwardAPIVolumeFileFields};

// core.v1.DownwardAPIVolumeSource
constexpr FieldSpec kCoreDownwardAPIVolumeSourceFields[] = {
    {1, "items", "Items", kMessage, kOmitEmpty, kRepeated, &kCoreDownwardAPIVolumeFile},
    {2, "defaultMode", "DefaultMode", kInt32, kOnWire},
};
constexpr MessageSpec kCoreDownwardAPIVolumeSource{"DownwardAPIVolumeSource",
                                                   kCoreDownwardAPIVolumeSourceFields};

// core.v1.FCVolumeSource
constexpr FieldSpec kCoreFCVolumeSourceFields[] = {
    {1, "targetWWNs", "TargetWWNs", kString, kOmitEmpty, kRepeated},
    {2, "lun", "Lun", kInt32, kOnWire},
    {3, "fsType", "FSType", kString, kOmitEmpty},
    {4, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {5, "wwids", "WWIDs", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreFCVolumeSource{"FCVolumeSource", kCoreFCVolumeSourceFields};

// core.v1.AzureFileVolumeSource
constexpr FieldSpec kCoreAzureFileVolumeSourceFields[] = {
    {1, "secretName", "SecretName", kString, kAlways},
    {2, "shareName", "ShareName", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreAzureFileVolumeSource{"AzureFileVolumeSource",
                                                 kCoreAzureFileVolumeSourceFields};

// core.v1.ConfigMapVolumeSource
constexpr FieldSpec kCoreConfigMapVolumeSourceFields[] = {
    {1, "", "LocalObjectReference", kMessage, kAlways, kInline, &kCoreLocalObjectReference},
    {2, "items", "Items", kMessage, kOmitEmpty, kRepeated, &kCoreKeyToPath},
    {3, "defaultMode", "DefaultMode", kInt32, kOnWire},
    {4, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreConfigMapVolumeSource{"ConfigMapVolumeSource",
                                                 kCoreConfigMapVolumeSourceFields};

// core.v1.VsphereVirtualDiskVolumeSource
constexpr FieldSpec kCoreVsphereVirtualDiskVolumeSourceFields[] = {
    {1, "volumePath", "VolumePath", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "storagePolicyName", "StoragePolicyName", kString, kOmitEmpty},
    {4, "storagePolicyID", "StoragePolicyID", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreVsphereVirtualDiskVolumeSource{
    "VsphereVirtualDiskVolumeSource", kCoreVsphereVirtualDiskVolumeSourceFields};

// core.v1.QuobyteVolumeSource
constexpr FieldSpec kCoreQuobyteVolumeSourceFields[] = {
    {1, "registry", "Registry", kString, kAlways},  {2, "volume", "Volume", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty}, {4, "user", "User", kString, kOmitEmpty},
    {5, "group", "Group", kString, kOmitEmpty},     {6, "tenant", "Tenant", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreQuobyteVolumeSource{"QuobyteVolumeSource",
                                               kCoreQuobyteVolumeSourceFields};

// core.v1.AzureDiskVolumeSource
constexpr FieldSpec kCoreAzureDiskVolumeSourceFields[] = {
    {1, "diskName", "DiskName", kString, kAlways},
    {2, "diskURI", "DataDiskURI", kString, kAlways},
    {3, "cachingMode", "CachingMode", kString, kOnWire},
    {4, "fsType", "FSType", kString, kOnWire},
    {5, "readOnly", "ReadOnly", kBool, kOnWire},
    {6, "kind", "Kind", kString, kOnWire},
};
constexpr MessageSpec kCoreAzureDiskVolumeSource{"AzureDiskVolumeSource",
                                                 kCoreAzureDiskVolumeSourceFields};

// core.v1.PhotonPersistentDiskVolumeSource
constexpr FieldSpec kCorePhotonPersistentDiskVolumeSourceFields[] = {
    {1, "pdID", "PdID", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
};
constexpr MessageSpec kCorePhotonPersistentDiskVolumeSource{
    "PhotonPersistentDiskVolumeSource", kCorePhotonPersistentDiskVolumeSourceFields};

// core.v1.SecretProjection
constexpr FieldSpec kCoreSecretProjectionFields[] = {
    {1, "", "LocalObjectReference", kMessage, kAlways, kInline, &kCoreLocalObjectReference},
    {2, "items", "Items", kMessage, kOmitEmpty, kRepeated, &kCoreKeyToPath},
    {4, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreSecretProjection{"SecretProjection", kCoreSecretProjectionFields};

// core.v1.DownwardAPIProjection
constexpr FieldSpec kCoreDownwardAPIProjectionFields[] = {
    {1, "items", "Items", kMessage, kOmitEmpty, kRepeated, &kCoreDownwardAPIVolumeFile},
};
constexpr MessageSpec kCoreDownwardAPIProjection{"DownwardAPIProjection",
                                                 kCoreDownwardAPIProjectionFields};

// core.v1.ConfigMapProjection
constexpr FieldSpec kCoreConfigMapProjectionFields[] = {
    {1, "", "LocalObjectReference", kMessage, kAlways, kInline, &kCoreLocalObjectReference},
    {2, "items", "Items", kMessage, kOmitEmpty, kRepeated, &kCoreKeyToPath},
    {4, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreConfigMapProjection{"ConfigMapProjection",
                                               kCoreConfigMapProjectionFields};

// core.v1.ServiceAccountTokenProjection
constexpr FieldSpec kCoreServiceAccountTokenProjectionFields[] = {
    {1, "audience", "Audience", kString, kOmitEmpty},
    {2, "expirationSeconds", "ExpirationSeconds", kInt64, kOnWire},
    {3, "path", "Path", kString, kAlways},
};
constexpr MessageSpec kCoreServiceAccountTokenProjection{"ServiceAccountTokenProjection",
                                                         kCoreServiceAccountTokenProjectionFields};

// apis.meta.v1.LabelSelectorRequirement
constexpr FieldSpec kMetaLabelSelectorRequirementFields[] = {
    {1, "key", "Key", kString, kAlways},
    {2, "operator", "Operator", kString, kAlways},
    {3, "values", "Values", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kMetaLabelSelectorRequirement{"LabelSelectorRequirement",
                                                    kMetaLabelSelectorRequirementFields};

// apis.meta.v1.LabelSelector
constexpr FieldSpec kMetaLabelSelectorFields[] = {
    {1, "matchLabels", "MatchLabels", kStringMap, kOmitEmpty},
    {2, "matchExpressions", "MatchExpressions", kMessage, kOmitEmpty, kRepeated,
     &kMetaLabelSelectorRequirement},
};
constexpr MessageSpec kMetaLabelSelector{"LabelSelector", kMetaLabelSelectorFields};

// core.v1.ClusterTrustBundleProjection
constexpr FieldSpec kCoreClusterTrustBundleProjectionFields[] = {
    {1, "name", "Name", kString, kOnWire},
    {2, "signerName", "SignerName", kString, kOnWire},
    {3, "labelSelector", "LabelSelector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {4, "path", "Path", kString, kAlways},
    {5, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreClusterTrustBundleProjection{"ClusterTrustBundleProjection",
                                                        kCoreClusterTrustBundleProjectionFields};

// core.v1.VolumeProjection
constexpr FieldSpec kCoreVolumeProjectionFields[] = {
    {1, "secret", "Secret", kMessage, kOnWire, 0, &kCoreSecretProjection},
    {2, "downwardAPI", "DownwardAPI", kMessage, kOnWire, 0, &kCoreDownwardAPIProjection},
    {3, "configMap", "ConfigMap", kMessage, kOnWire, 0, &kCoreConfigMapProjection},
    {4, "serviceAccountToken", "ServiceAccountToken", kMessage, kOnWire, 0,
     &kCoreServiceAccountTokenProjection},
    {5, "clusterTrustBundle", "ClusterTrustBundle", kMessage, kOnWire, 0,
     &kCoreClusterTrustBundleProjection},
};
constexpr MessageSpec kCoreVolumeProjection{"VolumeProjection", kCoreVolumeProjectionFields};

// core.v1.ProjectedVolumeSource
constexpr FieldSpec kCoreProjectedVolumeSourceFields[] = {
    {1, "sources", "Sources", kMessage, kOmitEmpty, kRepeated, &kCoreVolumeProjection},
    {2, "defaultMode", "DefaultMode", kInt32, kOnWire},
};
constexpr MessageSpec kCoreProjectedVolumeSource{"ProjectedVolumeSource",
                                                 kCoreProjectedVolumeSourceFields};

// core.v1.PortworxVolumeSource
constexpr FieldSpec kCorePortworxVolumeSourceFields[] = {
    {1, "volumeID", "VolumeID", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCorePortworxVolumeSource{"PortworxVolumeSource",
                                                kCorePortworxVolumeSourceFields};

// core.v1.ScaleIOVolumeSource
constexpr FieldSpec kCoreScaleIOVolumeSourceFields[] = {
    {1, "gateway", "Gateway", kString, kAlways},
    {2, "system", "System", kString, kAlways},
    {3, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreLocalObjectReference},
    {4, "sslEnabled", "SSLEnabled", kBool, kOmitEmpty},
    {5, "protectionDomain", "ProtectionDomain", kString, kOmitEmpty},
    {6, "storagePool", "StoragePool", kString, kOmitEmpty},
    {7, "storageMode", "StorageMode", kString, kOmitEmpty},
    {8, "volumeName", "VolumeName", kString, kOmitEmpty},
    {9, "fsType", "FSType", kString, kOmitEmpty},
    {10, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreScaleIOVolumeSource{"ScaleIOVolumeSource",
                                               kCoreScaleIOVolumeSourceFields};

// core.v1.StorageOSVolumeSource
constexpr FieldSpec kCoreStorageOSVolumeSourceFields[] = {
    {1, "volumeName", "VolumeName", kString, kOmitEmpty},
    {2, "volumeNamespace", "VolumeNamespace", kString, kOmitEmpty},
    {3, "fsType", "FSType", kString, kOmitEmpty},
    {4, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {5, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreLocalObjectReference},
};
constexpr MessageSpec kCoreStorageOSVolumeSource{"StorageOSVolumeSource",
                                                 kCoreStorageOSVolumeSourceFields};

// core.v1.CSIVolumeSource
constexpr FieldSpec kCoreCSIVolumeSourceFields[] = {
    {1, "driver", "Driver", kString, kAlways},
    {2, "readOnly", "ReadOnly", kBool, kOnWire},
    {3, "fsType", "FSType", kString, kOnWire},
    {4, "volumeAttributes", "VolumeAttributes", kStringMap, kOmitEmpty},
    {5, "nodePublishSecretRef", "NodePublishSecretRef", kMessage, kOnWire, 0,
     &kCoreLocalObjectReference},
};
constexpr MessageSpec kCoreCSIVolumeSource{"CSIVolumeSource", kCoreCSIVolumeSourceFields};

// core.v1.VolumeResourceRequirements
constexpr FieldSpec kCoreVolumeResourceRequirementsFields[] = {
    {1, "limits", "Limits", kQuantityMap, kOmitEmpty},
    {2, "requests", "Requests", kQuantityMap, kOmitEmpty},
};
constexpr MessageSpec kCoreVolumeResourceRequirements{"VolumeResourceRequirements",
                                                      kCoreVolumeResourceRequirementsFields};

// core.v1.TypedLocalObjectReference
constexpr FieldSpec kCoreTypedLocalObjectReferenceFields[] = {
    {1, "apiGroup", "APIGroup", kString, kOnWire},
    {2, "kind", "Kind", kString, kAlways},
    {3, "name", "Name", kString, kAlways},
};
constexpr MessageSpec kCoreTypedLocalObjectReference{"TypedLocalObjectReference",
                                                     kCoreTypedLocalObjectReferenceFields};

// core.v1.TypedObjectReference
constexpr FieldSpec kCoreTypedObjectReferenceFields[] = {
    {1, "apiGroup", "APIGroup", kString, kOnWire},
    {2, "kind", "Kind", kString, kAlways},
    {3, "name", "Name", kString, kAlways},
    {4, "namespace", "Namespace", kString, kOnWire},
};
constexpr MessageSpec kCoreTypedObjectReference{"TypedObjectReference",
                                                kCoreTypedObjectReferenceFields};

// core.v1.PersistentVolumeClaimSpec
constexpr FieldSpec kCorePersistentVolumeClaimSpecFields[] = {
    {1, "accessModes", "AccessModes", kString, kOmitEmpty, kRepeated},
    {2, "resources", "Resources", kMessage, kAlways, 0, &kCoreVolumeResourceRequirements},
    {3, "volumeName", "VolumeName", kString, kOmitEmpty},
    {4, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {5, "storageClassName", "StorageClassName", kString, kOnWire},
    {6, "volumeMode", "VolumeMode", kString, kOnWire},
    {7, "dataSource", "DataSource", kMessage, kOnWire, 0, &kCoreTypedLocalObjectReference},
    {8, "dataSourceRef", "DataSourceRef", kMessage, kOnWire, 0, &kCoreTypedObjectReference},
    {9, "volumeAttributesClassName", "VolumeAttributesClassName", kString, kOnWire},
};
constexpr MessageSpec kCorePersistentVolumeClaimSpec{"PersistentVolumeClaimSpec",
                                                     kCorePersistentVolumeClaimSpecFields};

// core.v1.PersistentVolumeClaimTemplate
constexpr FieldSpec kCorePersistentVolumeClaimTemplateFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCorePersistentVolumeClaimSpec},
};
constexpr MessageSpec kCorePersistentVolumeClaimTemplate{"PersistentVolumeClaimTemplate",
                                                         kCorePersistentVolumeClaimTemplateFields};

// core.v1.EphemeralVolumeSource
constexpr FieldSpec kCoreEphemeralVolumeSourceFields[] = {
    {1, "volumeClaimTemplate", "VolumeClaimTemplate", kMessage, kOnWire, 0,
     &kCorePersistentVolumeClaimTemplate},
};
constexpr MessageSpec kCoreEphemeralVolumeSource{"EphemeralVolumeSource",
                                                 kCoreEphemeralVolumeSourceFields};

// core.v1.ImageVolumeSource
constexpr FieldSpec kCoreImageVolumeSourceFields[] = {
    {1, "reference", "Reference", kString, kOmitEmpty},
    {2, "pullPolicy", "PullPolicy", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreImageVolumeSource{"ImageVolumeSource", kCoreImageVolumeSourceFields};

// core.v1.VolumeSource
constexpr FieldSpec kCoreVolumeSourceFields[] = {
    {1, "hostPath", "HostPath", kMessage, kOnWire, 0, &kCoreHostPathVolumeSource},
    {2, "emptyDir", "EmptyDir", kMessage, kOnWire, 0, &kCoreEmptyDirVolumeSource},
    {3, "gcePersistentDisk", "GCEPersistentDisk", kMessage, kOnWire, 0,
     &kCoreGCEPersistentDiskVolumeSource},
    {4, "awsElasticBlockStore", "AWSElasticBlockStore", kMessage, kOnWire, 0,
     &kCoreAWSElasticBlockStoreVolumeSource},
    {5, "gitRepo", "GitRepo", kMessage, kOnWire, 0, &kCoreGitRepoVolumeSource},
    {6, "secret", "Secret", kMessage, kOnWire, 0, &kCoreSecretVolumeSource},
    {7, "nfs", "NFS", kMessage, kOnWire, 0, &kCoreNFSVolumeSource},
    {8, "iscsi", "ISCSI", kMessage, kOnWire, 0, &kCoreISCSIVolumeSource},
    {9, "glusterfs", "Glusterfs", kMessage, kOnWire, 0, &kCoreGlusterfsVolumeSource},
    {10, "persistentVolumeClaim", "PersistentVolumeClaim", kMessage, kOnWire, 0,
     &kCorePersistentVolumeClaimVolumeSource},
    {11, "rbd", "RBD", kMessage, kOnWire, 0, &kCoreRBDVolumeSource},
    {12, "flexVolume", "FlexVolume", kMessage, kOnWire, 0, &kCoreFlexVolumeSource},
    {13, "cinder", "Cinder", kMessage, kOnWire, 0, &kCoreCinderVolumeSource},
    {14, "cephfs", "CephFS", kMessage, kOnWire, 0, &kCoreCephFSVolumeSource},
    {15, "flocker", "Flocker", kMessage, kOnWire, 0, &kCoreFlockerVolumeSource},
    {16, "downwardAPI", "DownwardAPI", kMessage, kOnWire, 0, &kCoreDownwardAPIVolumeSource},
    {17, "fc", "FC", kMessage, kOnWire, 0, &kCoreFCVolumeSource},
    {18, "azureFile", "AzureFile", kMessage, kOnWire, 0, &kCoreAzureFileVolumeSource},
    {19, "configMap", "ConfigMap", kMessage, kOnWire, 0, &kCoreConfigMapVolumeSource},
    {20, "vsphereVolume", "VsphereVolume", kMessage, kOnWire, 0,
     &kCoreVsphereVirtualDiskVolumeSource},
    {21, "quobyte", "Quobyte", kMessage, kOnWire, 0, &kCoreQuobyteVolumeSource},
    {22, "azureDisk", "AzureDisk", kMessage, kOnWire, 0, &kCoreAzureDiskVolumeSource},
    {23, "photonPersistentDisk", "PhotonPersistentDisk", kMessage, kOnWire, 0,
     &kCorePhotonPersistentDiskVolumeSource},
    {24, "portworxVolume", "PortworxVolume", kMessage, kOnWire, 0, &kCorePortworxVolumeSource},
    {25, "scaleIO", "ScaleIO", kMessage, kOnWire, 0, &kCoreScaleIOVolumeSource},
    {26, "projected", "Projected", kMessage, kOnWire, 0, &kCoreProjectedVolumeSource},
    {27, "storageos", "StorageOS", kMessage, kOnWire, 0, &kCoreStorageOSVolumeSource},
    {28, "csi", "CSI", kMessage, kOnWire, 0, &kCoreCSIVolumeSource},
    {29, "ephemeral", "Ephemeral", kMessage, kOnWire, 0, &kCoreEphemeralVolumeSource},
    {30, "image", "Image", kMessage, kOnWire, 0, &kCoreImageVolumeSource},
};
constexpr MessageSpec kCoreVolumeSource{"VolumeSource", kCoreVolumeSourceFields};

// core.v1.Volume
constexpr FieldSpec kCoreVolumeFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "", "VolumeSource", kMessage, kAlways, kInline, &kCoreVolumeSource},
};
constexpr MessageSpec kCoreVolume{"Volume", kCoreVolumeFields};

// core.v1.ContainerPort
constexpr FieldSpec kCoreContainerPortFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "hostPort", "HostPort", kInt32, kOmitEmpty},
    {3, "containerPort", "ContainerPort", kInt32, kAlways},
    {4, "protocol", "Protocol", kString, kOmitEmpty},
    {5, "hostIP", "HostIP", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreContainerPort{"ContainerPort", kCoreContainerPortFields};

// core.v1.ConfigMapEnvSource
constexpr FieldSpec kCoreConfigMapEnvSourceFields[] = {
    {1, "", "LocalObjectReference", kMessage, kAlways, kInline, &kCoreLocalObjectReference},
    {2, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreConfigMapEnvSource{"ConfigMapEnvSource", kCoreConfigMapEnvSourceFields};

// core.v1.SecretEnvSource
constexpr FieldSpec kCoreSecretEnvSourceFields[] = {
    {1, "", "LocalObjectReference", kMessage, kAlways, kInline, &kCoreLocalObjectReference},
    {2, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreSecretEnvSource{"SecretEnvSource", kCoreSecretEnvSourceFields};

// core.v1.EnvFromSource
constexpr FieldSpec kCoreEnvFromSourceFields[] = {
    {1, "prefix", "Prefix", kString, kOmitEmpty},
    {2, "configMapRef", "ConfigMapRef", kMessage, kOnWire, 0, &kCoreConfigMapEnvSource},
    {3, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreSecretEnvSource},
};
constexpr MessageSpec kCoreEnvFromSource{"EnvFromSource", kCoreEnvFromSourceFields};

// core.v1.ConfigMapKeySelector
constexpr FieldSpec kCoreConfigMapKeySelectorFields[] = {
    {1, "", "LocalObjectReference", kMessage, kAlways, kInline, &kCoreLocalObjectReference},
    {2, "key", "Key", kString, kAlways},
    {3, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreConfigMapKeySelector{"ConfigMapKeySelector",
                                                kCoreConfigMapKeySelectorFields};

// core.v1.SecretKeySelector
constexpr FieldSpec kCoreSecretKeySelectorFields[] = {
    {1, "", "LocalObjectReference", kMessage, kAlways, kInline, &kCoreLocalObjectReference},
    {2, "key", "Key", kString, kAlways},
    {3, "optional", "Optional", kBool, kOnWire},
};
constexpr MessageSpec kCoreSecretKeySelector{"SecretKeySelector", kCoreSecretKeySelectorFields};

// core.v1.EnvVarSource
constexpr FieldSpec kCoreEnvVarSourceFields[] = {
    {1, "fieldRef", "FieldRef", kMessage, kOnWire, 0, &kCoreObjectFieldSelector},
    {2, "resourceFieldRef", "ResourceFieldRef", kMessage, kOnWire, 0, &kCoreResourceFieldSelector},
    {3, "configMapKeyRef", "ConfigMapKeyRef", kMessage, kOnWire, 0, &kCoreConfigMapKeySelector},
    {4, "secretKeyRef", "SecretKeyRef", kMessage, kOnWire, 0, &kCoreSecretKeySelector},
};
constexpr MessageSpec kCoreEnvVarSource{"EnvVarSource", kCoreEnvVarSourceFields};

// core.v1.EnvVar
constexpr FieldSpec kCoreEnvVarFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "value", "Value", kString, kOmitEmpty},
    {3, "valueFrom", "ValueFrom", kMessage, kOnWire, 0, &kCoreEnvVarSource},
};
constexpr MessageSpec kCoreEnvVar{"EnvVar", kCoreEnvVarFields};

// core.v1.ResourceClaim
constexpr FieldSpec kCoreResourceClaimFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "request", "Request", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreResourceClaim{"ResourceClaim", kCoreResourceClaimFields};

// core.v1.ResourceRequirements
constexpr FieldSpec kCoreResourceRequirementsFields[] = {
    {1, "limits", "Limits", kQuantityMap, kOmitEmpty},
    {2, "requests", "Requests", kQuantityMap, kOmitEmpty},
    {3, "claims", "Claims", kMessage, kOmitEmpty, kRepeated, &kCoreResourceClaim},
};
constexpr MessageSpec kCoreResourceRequirements{"ResourceRequirements",
                                                kCoreResourceRequirementsFields};

// core.v1.ContainerResizePolicy
constexpr FieldSpec kCoreContainerResizePolicyFields[] = {
    {1, "resourceName", "ResourceName", kString, kAlways},
    {2, "restartPolicy", "RestartPolicy", kString, kAlways},
};
constexpr MessageSpec kCoreContainerResizePolicy{"ContainerResizePolicy",
                                                 kCoreContainerResizePolicyFields};

// core.v1.VolumeMount
constexpr FieldSpec kCoreVolumeMountFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {3, "mountPath", "MountPath", kString, kAlways},
    {4, "subPath", "SubPath", kString, kOmitEmpty},
    {5, "mountPropagation", "MountPropagation", kString, kOnWire},
    {6, "subPathExpr", "SubPathExpr", kString, kOmitEmpty},
    {7, "recursiveReadOnly", "RecursiveReadOnly", kString, kOnWire},
};
constexpr MessageSpec kCoreVolumeMount{"VolumeMount", kCoreVolumeMountFields};

// core.v1.VolumeDevice
constexpr FieldSpec kCoreVolumeDeviceFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "devicePath", "DevicePath", kString, kAlways},
};
constexpr MessageSpec kCoreVolumeDevice{"VolumeDevice", kCoreVolumeDeviceFields};

// core.v1.ExecAction
constexpr FieldSpec kCoreExecActionFields[] = {
    {1, "command", "Command", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreExecAction{"ExecAction", kCoreExecActionFields};

// core.v1.HTTPHeader
constexpr FieldSpec kCoreHTTPHeaderFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "value", "Value", kString, kAlways},
};
constexpr MessageSpec kCoreHTTPHeader{"HTTPHeader", kCoreHTTPHeaderFields};

// core.v1.HTTPGetAction
constexpr FieldSpec kCoreHTTPGetActionFields[] = {
    {1, "path", "Path", kString, kOmitEmpty},
    {2, "port", "Port", kIntOrString, kAlways},
    {3, "host", "Host", kString, kOmitEmpty},
    {4, "scheme", "Scheme", kString, kOmitEmpty},
    {5, "httpHeaders", "HTTPHeaders", kMessage, kOmitEmpty, kRepeated, &kCoreHTTPHeader},
};
constexpr MessageSpec kCoreHTTPGetAction{"HTTPGetAction", kCoreHTTPGetActionFields};

// core.v1.TCPSocketAction
constexpr FieldSpec kCoreTCPSocketActionFields[] = {
    {1, "port", "Port", kIntOrString, kAlways},
    {2, "host", "Host", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreTCPSocketAction{"TCPSocketAction", kCoreTCPSocketActionFields};

// core.v1.GRPCAction
constexpr FieldSpec kCoreGRPCActionFields[] = {
    {1, "port", "Port", kInt32, kAlways},
    {2, "service", "Service", kString, kOnWire},
};
constexpr MessageSpec kCoreGRPCAction{"GRPCAction", kCoreGRPCActionFields};

// core.v1.ProbeHandler
constexpr FieldSpec kCoreProbeHandlerFields[] = {
    {1, "exec", "Exec", kMessage, kOnWire, 0, &kCoreExecAction},
    {2, "httpGet", "HTTPGet", kMessage, kOnWire, 0, &kCoreHTTPGetAction},
    {3, "tcpSocket", "TCPSocket", kMessage, kOnWire, 0, &kCoreTCPSocketAction},
    {4, "grpc", "GRPC", kMessage, kOnWire, 0, &kCoreGRPCAction},
};
constexpr MessageSpec kCoreProbeHandler{"ProbeHandler", kCoreProbeHandlerFields};

// core.v1.Probe
constexpr FieldSpec kCoreProbeFields[] = {
    {1, "", "ProbeHandler", kMessage, kAlways, kInline, &kCoreProbeHandler},
    {2, "initialDelaySeconds", "InitialDelaySeconds", kInt32, kOmitEmpty},
    {3, "timeoutSeconds", "TimeoutSeconds", kInt32, kOmitEmpty},
    {4, "periodSeconds", "PeriodSeconds", kInt32, kOmitEmpty},
    {5, "successThreshold", "SuccessThreshold", kInt32, kOmitEmpty},
    {6, "failureThreshold", "FailureThreshold", kInt32, kOmitEmpty},
    {7, "terminationGracePeriodSeconds", "TerminationGracePeriodSeconds", kInt64, kOnWire},
};
constexpr MessageSpec kCoreProbe{"Probe", kCoreProbeFields};

// core.v1.SleepAction
constexpr FieldSpec kCoreSleepActionFields[] = {
    {1, "seconds", "Seconds", kInt64, kAlways},
};
constexpr MessageSpec kCoreSleepAction{"SleepAction", kCoreSleepActionFields};

// core.v1.LifecycleHandler
constexpr FieldSpec kCoreLifecycleHandlerFields[] = {
    {1, "exec", "Exec", kMessage, kOnWire, 0, &kCoreExecAction},
    {2, "httpGet", "HTTPGet", kMessage, kOnWire, 0, &kCoreHTTPGetAction},
    {3, "tcpSocket", "TCPSocket", kMessage, kOnWire, 0, &kCoreTCPSocketAction},
    {4, "sleep", "Sleep", kMessage, kOnWire, 0, &kCoreSleepAction},
};
constexpr MessageSpec kCoreLifecycleHandler{"LifecycleHandler", kCoreLifecycleHandlerFields};

// core.v1.Lifecycle
constexpr FieldSpec kCoreLifecycleFields[] = {
    {1, "postStart", "PostStart", kMessage, kOnWire, 0, &kCoreLifecycleHandler},
    {2, "preStop", "PreStop", kMessage, kOnWire, 0, &kCoreLifecycleHandler},
};
constexpr MessageSpec kCoreLifecycle{"Lifecycle", kCoreLifecycleFields};

// core.v1.Capabilities
constexpr FieldSpec kCoreCapabilitiesFields[] = {
    {1, "add", "Add", kString, kOmitEmpty, kRepeated},
    {2, "drop", "Drop", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreCapabilities{"Capabilities", kCoreCapabilitiesFields};

// core.v1.SELinuxOptions
constexpr FieldSpec kCoreSELinuxOptionsFields[] = {
    {1, "user", "User", kString, kOmitEmpty},
    {2, "role", "Role", kString, kOmitEmpty},
    {3, "type", "Type", kString, kOmitEmpty},
    {4, "level", "Level", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreSELinuxOptions{"SELinuxOptions", kCoreSELinuxOptionsFields};

// core.v1.WindowsSecurityContextOptions
constexpr FieldSpec kCoreWindowsSecurityContextOptionsFields[] = {
    {1, "gmsaCredentialSpecName", "GMSACredentialSpecName", kString, kOnWire},
    {2, "gmsaCredentialSpec", "GMSACredentialSpec", kString, kOnWire},
    {3, "runAsUserName", "RunAsUserName", kString, kOnWire},
    {4, "hostProcess", "HostProcess", kBool, kOnWire},
};
constexpr MessageSpec kCoreWindowsSecurityContextOptions{"WindowsSecurityContextOptions",
                                                         kCoreWindowsSecurityContextOptionsFields};

// core.v1.SeccompProfile
constexpr FieldSpec kCoreSeccompProfileFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "localhostProfile", "LocalhostProfile", kString, kOnWire},
};
constexpr MessageSpec kCoreSeccompProfile{"SeccompProfile", kCoreSeccompProfileFields};

// core.v1.AppArmorProfile
constexpr FieldSpec kCoreAppArmorProfileFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "localhostProfile", "LocalhostProfile", kString, kOnWire},
};
constexpr MessageSpec kCoreAppArmorProfile{"AppArmorProfile", kCoreAppArmorProfileFields};

// core.v1.SecurityContext
constexpr FieldSpec kCoreSecurityContextFields[] = {
    {1, "capabilities", "Capabilities", kMessage, kOnWire, 0, &kCoreCapabilities},
    {2, "privileged", "Privileged", kBool, kOnWire},
    {3, "seLinuxOptions", "SELinuxOptions", kMessage, kOnWire, 0, &kCoreSELinuxOptions},
    {4, "runAsUser", "RunAsUser", kInt64, kOnWire},
    {5, "runAsNonRoot", "RunAsNonRoot", kBool, kOnWire},
    {6, "readOnlyRootFilesystem", "ReadOnlyRootFilesystem", kBool, kOnWire},
    {7, "allowPrivilegeEscalation", "AllowPrivilegeEscalation", kBool, kOnWire},
    {8, "runAsGroup", "RunAsGroup", kInt64, kOnWire},
    {9, "procMount", "ProcMount", kString, kOnWire},
    {10, "windowsOptions", "WindowsOptions", kMessage, kOnWire, 0,
     &kCoreWindowsSecurityContextOptions},
    {11, "seccompProfile", "SeccompProfile", kMessage, kOnWire, 0, &kCoreSeccompProfile},
    {12, "appArmorProfile", "AppArmorProfile", kMessage, kOnWire, 0, &kCoreAppArmorProfile},
};
constexpr MessageSpec kCoreSecurityContext{"SecurityContext", kCoreSecurityContextFields};

// core.v1.Container
constexpr FieldSpec kCoreContainerFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "image", "Image", kString, kOmitEmpty},
    {3, "command", "Command", kString, kOmitEmpty, kRepeated},
    {4, "args", "Args", kString, kOmitEmpty, kRepeated},
    {5, "workingDir", "WorkingDir", kString, kOmitEmpty},
    {6, "ports", "Ports", kMessage, kOmitEmpty, kRepeated, &kCoreContainerPort},
    {7, "env", "Env", kMessage, kOmitEmpty, kRepeated, &kCoreEnvVar},
    {8, "resources", "Resources", kMessage, kAlways, 0, &kCoreResourceRequirements},
    {9, "volumeMounts", "VolumeMounts", kMessage, kOmitEmpty, kRepeated, &kCoreVolumeMount},
    {10, "livenessProbe", "LivenessProbe", kMessage, kOnWire, 0, &kCoreProbe},
    {11, "readinessProbe", "ReadinessProbe", kMessage, kOnWire, 0, &kCoreProbe},
    {12, "lifecycle", "Lifecycle", kMessage, kOnWire, 0, &kCoreLifecycle},
    {13, "terminationMessagePath", "TerminationMessagePath", kString, kOmitEmpty},
    {14, "imagePullPolicy", "ImagePullPolicy", kString, kOmitEmpty},
    {15, "securityContext", "SecurityContext", kMessage, kOnWire, 0, &kCoreSecurityContext},
    {16, "stdin", "Stdin", kBool, kOmitEmpty},
    {17, "stdinOnce", "StdinOnce", kBool, kOmitEmpty},
    {18, "tty", "TTY", kBool, kOmitEmpty},
    {19, "envFrom", "EnvFrom", kMessage, kOmitEmpty, kRepeated, &kCoreEnvFromSource},
    {20, "terminationMessagePolicy", "TerminationMessagePolicy", kString, kOmitEmpty},
    {21, "volumeDevices", "VolumeDevices", kMessage, kOmitEmpty, kRepeated, &kCoreVolumeDevice},
    {22, "startupProbe", "StartupProbe", kMessage, kOnWire, 0, &kCoreProbe},
    {23, "resizePolicy", "ResizePolicy", kMessage, kOmitEmpty, kRepeated,
     &kCoreContainerResizePolicy},
    {24, "restartPolicy", "RestartPolicy", kString, kOnWire},
};
constexpr MessageSpec kCoreContainer{"Container", kCoreContainerFields};

// core.v1.EphemeralContainerCommon
constexpr FieldSpec kCoreEphemeralContainerCommonFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "image", "Image", kString, kOmitEmpty},
    {3, "command", "Command", kString, kOmitEmpty, kRepeated},
    {4, "args", "Args", kString, kOmitEmpty, kRepeated},
    {5, "workingDir", "WorkingDir", kString, kOmitEmpty},
    {6, "ports", "Ports", kMessage, kOmitEmpty, kRepeated, &kCoreContainerPort},
    {7, "env", "Env", kMessage, kOmitEmpty, kRepeated, &kCoreEnvVar},
    {8, "resources", "Resources", kMessage, kAlways, 0, &kCoreResourceRequirements},
    {9, "volumeMounts", "VolumeMounts", kMessage, kOmitEmpty, kRepeated, &kCoreVolumeMount},
    {10, "livenessProbe", "LivenessProbe", kMessage, kOnWire, 0, &kCoreProbe},
    {11, "readinessProbe", "ReadinessProbe", kMessage, kOnWire, 0, &kCoreProbe},
    {12, "lifecycle", "Lifecycle", kMessage, kOnWire, 0, &kCoreLifecycle},
    {13, "terminationMessagePath", "TerminationMessagePath", kString, kOmitEmpty},
    {14, "imagePullPolicy", "ImagePullPolicy", kString, kOmitEmpty},
    {15, "securityContext", "SecurityContext", kMessage, kOnWire, 0, &kCoreSecurityContext},
    {16, "stdin", "Stdin", kBool, kOmitEmpty},
    {17, "stdinOnce", "StdinOnce", kBool, kOmitEmpty},
    {18, "tty", "TTY", kBool, kOmitEmpty},
    {19, "envFrom", "EnvFrom", kMessage, kOmitEmpty, kRepeated, &kCoreEnvFromSource},
    {20, "terminationMessagePolicy", "TerminationMessagePolicy", kString, kOmitEmpty},
    {21, "volumeDevices", "VolumeDevices", kMessage, kOmitEmpty, kRepeated, &kCoreVolumeDevice},
    {22, "startupProbe", "StartupProbe", kMessage, kOnWire, 0, &kCoreProbe},
    {23, "resizePolicy", "ResizePolicy", kMessage, kOmitEmpty, kRepeated,
     &kCoreContainerResizePolicy},
    {24, "restartPolicy", "RestartPolicy", kString, kOnWire},
};
constexpr MessageSpec kCoreEphemeralContainerCommon{"EphemeralContainerCommon",
                                                    kCoreEphemeralContainerCommonFields};

// core.v1.EphemeralContainer
constexpr FieldSpec kCoreEphemeralContainerFields[] = {
    {1, "", "EphemeralContainerCommon", kMessage, kAlways, kInline, &kCoreEphemeralContainerCommon},
    {2, "targetContainerName", "TargetContainerName", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreEphemeralContainer{"EphemeralContainer", kCoreEphemeralContainerFields};

// core.v1.Sysctl
constexpr FieldSpec kCoreSysctlFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "value", "Value", kString, kAlways},
};
constexpr MessageSpec kCoreSysctl{"Sysctl", kCoreSysctlFields};

// core.v1.PodSecurityContext
constexpr FieldSpec kCorePodSecurityContextFields[] = {
    {1, "seLinuxOptions", "SELinuxOptions", kMessage, kOnWire, 0, &kCoreSELinuxOptions},
    {2, "runAsUser", "RunAsUser", kInt64, kOnWire},
    {3, "runAsNonRoot", "RunAsNonRoot", kBool, kOnWire},
    {4, "supplementalGroups", "SupplementalGroups", kInt64, kOmitEmpty, kRepeated},
    {5, "fsGroup", "FSGroup", kInt64, kOnWire},
    {6, "runAsGroup", "RunAsGroup", kInt64, kOnWire},
    {7, "sysctls", "Sysctls", kMessage, kOmitEmpty, kRepeated, &kCoreSysctl},
    {8, "windowsOptions", "WindowsOptions", kMessage, kOnWire, 0,
     &kCoreWindowsSecurityContextOptions},
    {9, "fsGroupChangePolicy", "FSGroupChangePolicy", kString, kOnWire},
    {10, "seccompProfile", "SeccompProfile", kMessage, kOnWire, 0, &kCoreSeccompProfile},
    {11, "appArmorProfile", "AppArmorProfile", kMessage, kOnWire, 0, &kCoreAppArmorProfile},
    {12, "supplementalGroupsPolicy", "SupplementalGroupsPolicy", kString, kOnWire},
    {13, "seLinuxChangePolicy", "SELinuxChangePolicy", kString, kOnWire},
};
constexpr MessageSpec kCorePodSecurityContext{"PodSecurityContext", kCorePodSecurityContextFields};

// core.v1.NodeSelectorRequirement
constexpr FieldSpec kCoreNodeSelectorRequirementFields[] = {
    {1, "key", "Key", kString, kAlways},
    {2, "operator", "Operator", kString, kAlways},
    {3, "values", "Values", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreNodeSelectorRequirement{"NodeSelectorRequirement",
                                                   kCoreNodeSelectorRequirementFields};

// core.v1.NodeSelectorTerm
constexpr FieldSpec kCoreNodeSelectorTermFields[] = {
    {1, "matchExpressions", "MatchExpressions", kMessage, kOmitEmpty, kRepeated,
     &kCoreNodeSelectorRequirement},
    {2, "matchFields", "MatchFields", kMessage, kOmitEmpty, kRepeated,
     &kCoreNodeSelectorRequirement},
};
constexpr MessageSpec kCoreNodeSelectorTerm{"NodeSelectorTerm", kCoreNodeSelectorTermFields};

// core.v1.NodeSelector
constexpr FieldSpec kCoreNodeSelectorFields[] = {
    {1, "nodeSelectorTerms", "NodeSelectorTerms", kMessage, kOmitEmpty, kRepeated,
     &kCoreNodeSelectorTerm},
};
constexpr MessageSpec kCoreNodeSelector{"NodeSelector", kCoreNodeSelectorFields};

// core.v1.PreferredSchedulingTerm
constexpr FieldSpec kCorePreferredSchedulingTermFields[] = {
    {1, "weight", "Weight", kInt32, kAlways},
    {2, "preference", "Preference", kMessage, kAlways, 0, &kCoreNodeSelectorTerm},
};
constexpr MessageSpec kCorePreferredSchedulingTerm{"PreferredSchedulingTerm",
                                                   kCorePreferredSchedulingTermFields};

// core.v1.NodeAffinity
constexpr FieldSpec kCoreNodeAffinityFields[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution",
     "RequiredDuringSchedulingIgnoredDuringExecution", kMessage, kOnWire, 0, &kCoreNodeSelector},
    {2, "preferredDuringSchedulingIgnoredDuringExecution",
     "PreferredDuringSchedulingIgnoredDuringExecution", kMessage, kOmitEmpty, kRepeated,
     &kCorePreferredSchedulingTerm},
};
constexpr MessageSpec kCoreNodeAffinity{"NodeAffinity", kCoreNodeAffinityFields};

// core.v1.PodAffinityTerm
constexpr FieldSpec kCorePodAffinityTermFields[] = {
    {1, "labelSelector", "LabelSelector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {2, "namespaces", "Namespaces", kString, kOmitEmpty, kRepeated},
    {3, "topologyKey", "TopologyKey", kString, kAlways},
    {4, "namespaceSelector", "NamespaceSelector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {5, "matchLabelKeys", "MatchLabelKeys", kString, kOmitEmpty, kRepeated},
    {6, "mismatchLabelKeys", "MismatchLabelKeys", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCorePodAffinityTerm{"PodAffinityTerm", kCorePodAffinityTermFields};

// core.v1.WeightedPodAffinityTerm
constexpr FieldSpec kCoreWeightedPodAffinityTermFields[] = {
    {1, "weight", "Weight", kInt32, kAlways},
    {2, "podAffinityTerm", "PodAffinityTerm", kMessage, kAlways, 0, &kCorePodAffinityTerm},
};
constexpr MessageSpec kCoreWeightedPodAffinityTerm{"WeightedPodAffinityTerm",
                                                   kCoreWeightedPodAffinityTermFields};

// core.v1.PodAffinity
constexpr FieldSpec kCorePodAffinityFields[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution",
     "RequiredDuringSchedulingIgnoredDuringExecution", kMessage, kOmitEmpty, kRepeated,
     &kCorePodAffinityTerm},
    {2, "preferredDuringSchedulingIgnoredDuringExecution",
     "PreferredDuringSchedulingIgnoredDuringExecution", kMessage, kOmitEmpty, kRepeated,
     &kCoreWeightedPodAffinityTerm},
};
constexpr MessageSpec kCorePodAffinity{"PodAffinity", kCorePodAffinityFields};

// core.v1.PodAntiAffinity
constexpr FieldSpec kCorePodAntiAffinityFields[] = {
    {1, "requiredDuringSchedulingIgnoredDuringExecution",
     "RequiredDuringSchedulingIgnoredDuringExecution", kMessage, kOmitEmpty, kRepeated,
     &kCorePodAffinityTerm},
    {2, "preferredDuringSchedulingIgnoredDuringExecution",
     "PreferredDuringSchedulingIgnoredDuringExecution", kMessage, kOmitEmpty, kRepeated,
     &kCoreWeightedPodAffinityTerm},
};
constexpr MessageSpec kCorePodAntiAffinity{"PodAntiAffinity", kCorePodAntiAffinityFields};

// core.v1.Affinity
constexpr FieldSpec kCoreAffinityFields[] = {
    {1, "nodeAffinity", "NodeAffinity", kMessage, kOnWire, 0, &kCoreNodeAffinity},
    {2, "podAffinity", "PodAffinity", kMessage, kOnWire, 0, &kCorePodAffinity},
    {3, "podAntiAffinity", "PodAntiAffinity", kMessage, kOnWire, 0, &kCorePodAntiAffinity},
};
constexpr MessageSpec kCoreAffinity{"Affinity", kCoreAffinityFields};

// core.v1.Toleration
constexpr FieldSpec kCoreTolerationFields[] = {
    {1, "key", "Key", kString, kOmitEmpty},
    {2, "operator", "Operator", kString, kOmitEmpty},
    {3, "value", "Value", kString, kOmitEmpty},
    {4, "effect", "Effect", kString, kOmitEmpty},
    {5, "tolerationSeconds", "TolerationSeconds", kInt64, kOnWire},
};
constexpr MessageSpec kCoreToleration{"Toleration", kCoreTolerationFields};

// core.v1.HostAlias
constexpr FieldSpec kCoreHostAliasFields[] = {
    {1, "ip", "IP", kString, kAlways},
    {2, "hostnames", "Hostnames", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreHostAlias{"HostAlias", kCoreHostAliasFields};

// core.v1.PodDNSConfigOption
constexpr FieldSpec kCorePodDNSConfigOptionFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "value", "Value", kString, kOnWire},
};
constexpr MessageSpec kCorePodDNSConfigOption{"PodDNSConfigOption", kCorePodDNSConfigOptionFields};

// core.v1.PodDNSConfig
constexpr FieldSpec kCorePodDNSConfigFields[] = {
    {1, "nameservers", "Nameservers", kString, kOmitEmpty, kRepeated},
    {2, "searches", "Searches", kString, kOmitEmpty, kRepeated},
    {3, "options", "Options", kMessage, kOmitEmpty, kRepeated, &kCorePodDNSConfigOption},
};
constexpr MessageSpec kCorePodDNSConfig{"PodDNSConfig", kCorePodDNSConfigFields};

// core.v1.PodReadinessGate
constexpr FieldSpec kCorePodReadinessGateFields[] = {
    {1, "conditionType", "ConditionType", kString, kAlways},
};
constexpr MessageSpec kCorePodReadinessGate{"PodReadinessGate", kCorePodReadinessGateFields};

// core.v1.TopologySpreadConstraint
constexpr FieldSpec kCoreTopologySpreadConstraintFields[] = {
    {1, "maxSkew", "MaxSkew", kInt32, kAlways},
    {2, "topologyKey", "TopologyKey", kString, kAlways},
    {3, "whenUnsatisfiable", "WhenUnsatisfiable", kString, kAlways},
    {4, "labelSelector", "LabelSelector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {5, "minDomains", "MinDomains", kInt32, kOnWire},
    {6, "nodeAffinityPolicy", "NodeAffinityPolicy", kString, kOnWire},
    {7, "nodeTaintsPolicy", "NodeTaintsPolicy", kString, kOnWire},
    {8, "matchLabelKeys", "MatchLabelKeys", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreTopologySpreadConstraint{"TopologySpreadConstraint",
                                                    kCoreTopologySpreadConstraintFields};

// core.v1.PodOS
constexpr FieldSpec kCorePodOSFields[] = {
    {1, "name", "Name", kString, kAlways},
};
constexpr MessageSpec kCorePodOS{"PodOS", kCorePodOSFields};

// core.v1.PodSchedulingGate
constexpr FieldSpec kCorePodSchedulingGateFields[] = {
    {1, "name", "Name", kString, kAlways},
};
constexpr MessageSpec kCorePodSchedulingGate{"PodSchedulingGate", kCorePodSchedulingGateFields};

// core.v1.PodResourceClaim
constexpr FieldSpec kCorePodResourceClaimFields[] = {
    {1, "name", "Name", kString, kAlways},
    {3, "resourceClaimName", "ResourceClaimName", kString, kOnWire},
    {4, "resourceClaimTemplateName", "ResourceClaimTemplateName", kString, kOnWire},
};
constexpr MessageSpec kCorePodResourceClaim{"PodResourceClaim", kCorePodResourceClaimFields};

// core.v1.PodSpec
constexpr FieldSpec kCorePodSpecFields[] = {
    {1, "volumes", "Volumes", kMessage, kOmitEmpty, kRepeated, &kCoreVolume},
    {2, "containers", "Containers", kMessage, kOmitEmpty, kRepeated, &kCoreContainer},
    {3, "restartPolicy", "RestartPolicy", kString, kOmitEmpty},
    {4, "terminationGracePeriodSeconds", "TerminationGracePeriodSeconds", kInt64, kOnWire},
    {5, "activeDeadlineSeconds", "ActiveDeadlineSeconds", kInt64, kOnWire},
    {6, "dnsPolicy", "DNSPolicy", kString, kOmitEmpty},
    {7, "nodeSelector", "NodeSelector", kStringMap, kOmitEmpty},
    {8, "serviceAccountName", "ServiceAccountName", kString, kOmitEmpty},
    {9, "serviceAccount", "DeprecatedServiceAccount", kString, kOmitEmpty},
    {10, "nodeName", "NodeName", kString, kOmitEmpty},
    {11, "hostNetwork", "HostNetwork", kBool, kOmitEmpty},
    {12, "hostPID", "HostPID", kBool, kOmitEmpty},
    {13, "hostIPC", "HostIPC", kBool, kOmitEmpty},
    {14, "securityContext", "SecurityContext", kMessage, kOnWire, 0, &kCorePodSecurityContext},
    {15, "imagePullSecrets", "ImagePullSecrets", kMessage, kOmitEmpty, kRepeated,
     &kCoreLocalObjectReference},
    {16, "hostname", "Hostname", kString, kOmitEmpty},
    {17, "subdomain", "Subdomain", kString, kOmitEmpty},
    {18, "affinity", "Affinity", kMessage, kOnWire, 0, &kCoreAffinity},
    {19, "schedulerName", "SchedulerName", kString, kOmitEmpty},
    {20, "initContainers", "InitContainers", kMessage, kOmitEmpty, kRepeated, &kCoreContainer},
    {21, "automountServiceAccountToken", "AutomountServiceAccountToken", kBool, kOnWire},
    {22, "tolerations", "Tolerations", kMessage, kOmitEmpty, kRepeated, &kCoreToleration},
    {23, "hostAliases", "HostAliases", kMessage, kOmitEmpty, kRepeated, &kCoreHostAlias},
    {24, "priorityClassName", "PriorityClassName", kString, kOmitEmpty},
    {25, "priority", "Priority", kInt32, kOnWire},
    {26, "dnsConfig", "DNSConfig", kMessage, kOnWire, 0, &kCorePodDNSConfig},
    {27, "shareProcessNamespace", "ShareProcessNamespace", kBool, kOnWire},
    {28, "readinessGates", "ReadinessGates", kMessage, kOmitEmpty, kRepeated,
     &kCorePodReadinessGate},
    {29, "runtimeClassName", "RuntimeClassName", kString, kOnWire},
    {30, "enableServiceLinks", "EnableServiceLinks", kBool, kOnWire},
    {31, "preemptionPolicy", "PreemptionPolicy", kString, kOnWire},
    {32, "overhead", "Overhead", kQuantityMap, kOmitEmpty},
    {33, "topologySpreadConstraints", "TopologySpreadConstraints", kMessage, kOmitEmpty, kRepeated,
     &kCoreTopologySpreadConstraint},
    {34, "ephemeralContainers", "EphemeralContainers", kMessage, kOmitEmpty, kRepeated,
     &kCoreEphemeralContainer},
    {35, "setHostnameAsFQDN", "SetHostnameAsFQDN", kBool, kOnWire},
    {36, "os", "OS", kMessage, kOnWire, 0, &kCorePodOS},
    {37, "hostUsers", "HostUsers", kBool, kOnWire},
    {38, "schedulingGates", "SchedulingGates", kMessage, kOmitEmpty, kRepeated,
     &kCorePodSchedulingGate},
    {39, "resourceClaims", "ResourceClaims", kMessage, kOmitEmpty, kRepeated,
     &kCorePodResourceClaim},
    {40, "resources", "Resources", kMessage, kOnWire, 0, &kCoreResourceRequirements},
};
constexpr MessageSpec kCorePodSpec{"PodSpec", kCorePodSpecFields};

// core.v1.PodCondition
constexpr FieldSpec kCorePodConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastProbeTime", "LastProbeTime", kTime, kAlways},
    {4, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {5, "reason", "Reason", kString, kOmitEmpty},
    {6, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kCorePodCondition{"PodCondition", kCorePodConditionFields};

// core.v1.HostIP
constexpr FieldSpec kCoreHostIPFields[] = {
    {1, "ip", "IP", kString, kAlways},
};
constexpr MessageSpec kCoreHostIP{"HostIP", kCoreHostIPFields};

// core.v1.PodIP
constexpr FieldSpec kCorePodIPFields[] = {
    {1, "ip", "IP", kString, kAlways},
};
constexpr MessageSpec kCorePodIP{"PodIP", kCorePodIPFields};

// core.v1.ContainerStateWaiting
constexpr FieldSpec kCoreContainerStateWaitingFields[] = {
    {1, "reason", "Reason", kString, kOmitEmpty},
    {2, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreContainerStateWaiting{"ContainerStateWaiting",
                                                 kCoreContainerStateWaitingFields};

// core.v1.ContainerStateRunning
constexpr FieldSpec kCoreContainerStateRunningFields[] = {
    {1, "startedAt", "StartedAt", kTime, kAlways},
};
constexpr MessageSpec kCoreContainerStateRunning{"ContainerStateRunning",
                                                 kCoreContainerStateRunningFields};

// core.v1.ContainerStateTerminated
constexpr FieldSpec kCoreContainerStateTerminatedFields[] = {
    {1, "exitCode", "ExitCode", kInt32, kAlways},
    {2, "signal", "Signal", kInt32, kOmitEmpty},
    {3, "reason", "Reason", kString, kOmitEmpty},
    {4, "message", "Message", kString, kOmitEmpty},
    {5, "startedAt", "StartedAt", kTime, kAlways},
    {6, "finishedAt", "FinishedAt", kTime, kAlways},
    {7, "containerID", "ContainerID", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreContainerStateTerminated{"ContainerStateTerminated",
                                                    kCoreContainerStateTerminatedFields};

// core.v1.ContainerState
constexpr FieldSpec kCoreContainerStateFields[] = {
    {1, "waiting", "Waiting", kMessage, kOnWire, 0, &kCoreContainerStateWaiting},
    {2, "running", "Running", kMessage, kOnWire, 0, &kCoreContainerStateRunning},
    {3, "terminated", "Terminated", kMessage, kOnWire, 0, &kCoreContainerStateTerminated},
};
constexpr MessageSpec kCoreContainerState{"ContainerState", kCoreContainerStateFields};

// core.v1.VolumeMountStatus
constexpr FieldSpec kCoreVolumeMountStatusFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "mountPath", "MountPath", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {4, "recursiveReadOnly", "RecursiveReadOnly", kString, kOnWire},
};
constexpr MessageSpec kCoreVolumeMountStatus{"VolumeMountStatus", kCoreVolumeMountStatusFields};

// core.v1.LinuxContainerUser
constexpr FieldSpec kCoreLinuxContainerUserFields[] = {
    {1, "uid", "UID", kInt64, kAlways},
    {2, "gid", "Gid", kInt64, kAlways},
    {3, "supplementalGroups", "SupplementalGroups", kInt64, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreLinuxContainerUser{"LinuxContainerUser", kCoreLinuxContainerUserFields};

// core.v1.ContainerUser
constexpr FieldSpec kCoreContainerUserFields[] = {
    {1, "linux", "Linux", kMessage, kOnWire, 0, &kCoreLinuxContainerUser},
};
constexpr MessageSpec kCoreContainerUser{"ContainerUser", kCoreContainerUserFields};

// core.v1.ResourceHealth
constexpr FieldSpec kCoreResourceHealthFields[] = {
    {1, "resourceID", "ResourceID", kString, kAlways},
    {2, "health", "Health", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreResourceHealth{"ResourceHealth", kCoreResourceHealthFields};

// core.v1.ResourceStatus
constexpr FieldSpec kCoreResourceStatusFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "resources", "Resources", kMessage, kOmitEmpty, kRepeated, &kCoreResourceHealth},
};
constexpr MessageSpec kCoreResourceStatus{"ResourceStatus", kCoreResourceStatusFields};

// core.v1.ContainerStatus
constexpr FieldSpec kCoreContainerStatusFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "state", "State", kMessage, kAlways, 0, &kCoreContainerState},
    {3, "lastState", "LastTerminationState", kMessage, kAlways, 0, &kCoreContainerState},
    {4, "ready", "Ready", kBool, kAlways},
    {5, "restartCount", "RestartCount", kInt32, kAlways},
    {6, "image", "Image", kString, kAlways},
    {7, "imageID", "ImageID", kString, kAlways},
    {8, "containerID", "ContainerID", kString, kOmitEmpty},
    {9, "started", "Started", kBool, kOnWire},
    {10, "allocatedResources", "AllocatedResources", kQuantityMap, kOmitEmpty},
    {11, "resources", "Resources", kMessage, kOnWire, 0, &kCoreResourceRequirements},
    {12, "volumeMounts", "VolumeMounts", kMessage, kOmitEmpty, kRepeated, &kCoreVolumeMountStatus},
    {13, "user", "User", kMessage, kOnWire, 0, &kCoreContainerUser},
    {14, "allocatedResourcesStatus", "AllocatedResourcesStatus", kMessage, kOmitEmpty, kRepeated,
     &kCoreResourceStatus},
};
constexpr MessageSpec kCoreContainerStatus{"ContainerStatus", kCoreContainerStatusFields};

// core.v1.PodResourceClaimStatus
constexpr FieldSpec kCorePodResourceClaimStatusFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "resourceClaimName", "ResourceClaimName", kString, kOnWire},
};
constexpr MessageSpec kCorePodResourceClaimStatus{"PodResourceClaimStatus",
                                                  kCorePodResourceClaimStatusFields};

// core.v1.PodStatus
constexpr FieldSpec kCorePodStatusFields[] = {
    {1, "phase", "Phase", kString, kOmitEmpty},
    {2, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kCorePodCondition},
    {3, "message", "Message", kString, kOmitEmpty},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "hostIP", "HostIP", kString, kOmitEmpty},
    {6, "podIP", "PodIP", kString, kOmitEmpty},
    {7, "startTime", "StartTime", kTime, kOnWire},
    {8, "containerStatuses", "ContainerStatuses", kMessage, kOmitEmpty, kRepeated,
     &kCoreContainerStatus},
    {9, "qosClass", "QOSClass", kString, kOmitEmpty},
    {10, "initContainerStatuses", "InitContainerStatuses", kMessage, kOmitEmpty, kRepeated,
     &kCoreContainerStatus},
    {11, "nominatedNodeName", "NominatedNodeName", kString, kOmitEmpty},
    {12, "podIPs", "PodIPs", kMessage, kOmitEmpty, kRepeated, &kCorePodIP},
    {13, "ephemeralContainerStatuses", "EphemeralContainerStatuses", kMessage, kOmitEmpty,
     kRepeated, &kCoreContainerStatus},
    {14, "resize", "Resize", kString, kOmitEmpty},
    {15, "resourceClaimStatuses", "ResourceClaimStatuses", kMessage, kOmitEmpty, kRepeated,
     &kCorePodResourceClaimStatus},
    {16, "hostIPs", "HostIPs", kMessage, kOmitEmpty, kRepeated, &kCoreHostIP},
};
constexpr MessageSpec kCorePodStatus{"PodStatus", kCorePodStatusFields};

// core.v1.Pod
constexpr FieldSpec kCorePodFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCorePodSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCorePodStatus},
};
constexpr MessageSpec kCorePod{"Pod", kCorePodFields};

// core.v1.PodTemplateSpec
constexpr FieldSpec kCorePodTemplateSpecFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCorePodSpec},
};
constexpr MessageSpec kCorePodTemplateSpec{"PodTemplateSpec", kCorePodTemplateSpecFields};

// apps.v1.RollingUpdateDeployment
constexpr FieldSpec kAppsRollingUpdateDeploymentFields[] = {
    {1, "maxUnavailable", "MaxUnavailable", kIntOrString, kOnWire},
    {2, "maxSurge", "MaxSurge", kIntOrString, kOnWire},
};
constexpr MessageSpec kAppsRollingUpdateDeployment{"RollingUpdateDeployment",
                                                   kAppsRollingUpdateDeploymentFields};

// apps.v1.DeploymentStrategy
constexpr FieldSpec kAppsDeploymentStrategyFields[] = {
    {1, "type", "Type", kString, kOmitEmpty},
    {2, "rollingUpdate", "RollingUpdate", kMessage, kOnWire, 0, &kAppsRollingUpdateDeployment},
};
constexpr MessageSpec kAppsDeploymentStrategy{"DeploymentStrategy", kAppsDeploymentStrategyFields};

// apps.v1.DeploymentSpec
constexpr FieldSpec kAppsDeploymentSpecFields[] = {
    {1, "replicas", "Replicas", kInt32, kOnWire},
    {2, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {3, "template", "Template", kMessage, kAlways, 0, &kCorePodTemplateSpec},
    {4, "strategy", "Strategy", kMessage, kAlways, 0, &kAppsDeploymentStrategy},
    {5, "minReadySeconds", "MinReadySeconds", kInt32, kOmitEmpty},
    {6, "revisionHistoryLimit", "RevisionHistoryLimit", kInt32, kOnWire},
    {7, "paused", "Paused", kBool, kOmitEmpty},
    {9, "progressDeadlineSeconds", "ProgressDeadlineSeconds", kInt32, kOnWire},
};
constexpr MessageSpec kAppsDeploymentSpec{"DeploymentSpec", kAppsDeploymentSpecFields};

// apps.v1.DeploymentCondition
constexpr FieldSpec kAppsDeploymentConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "message", "Message", kString, kOmitEmpty},
    {6, "lastUpdateTime", "LastUpdateTime", kTime, kAlways},
    {7, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
};
constexpr MessageSpec kAppsDeploymentCondition{"DeploymentCondition",
                                               kAppsDeploymentConditionFields};

// apps.v1.DeploymentStatus
constexpr FieldSpec kAppsDeploymentStatusFields[] = {
    {1, "observedGeneration", "ObservedGeneration", kInt64, kOmitEmpty},
    {2, "replicas", "Replicas", kInt32, kOmitEmpty},
    {3, "updatedReplicas", "UpdatedReplicas", kInt32, kOmitEmpty},
    {4, "availableReplicas", "AvailableReplicas", kInt32, kOmitEmpty},
    {5, "unavailableReplicas", "UnavailableReplicas", kInt32, kOmitEmpty},
    {6, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kAppsDeploymentCondition},
    {7, "readyReplicas", "ReadyReplicas", kInt32, kOmitEmpty},
    {8, "collisionCount", "CollisionCount", kInt32, kOnWire},
};
constexpr MessageSpec kAppsDeploymentStatus{"DeploymentStatus", kAppsDeploymentStatusFields};

// apps.v1.Deployment
constexpr FieldSpec kAppsDeploymentFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAppsDeploymentSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAppsDeploymentStatus},
};
constexpr MessageSpec kAppsDeployment{"Deployment", kAppsDeploymentFields};

// apps.v1.ReplicaSetSpec
constexpr FieldSpec kAppsReplicaSetSpecFields[] = {
    {1, "replicas", "Replicas", kInt32, kOnWire},
    {2, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {3, "template", "Template", kMessage, kAlways, 0, &kCorePodTemplateSpec},
    {4, "minReadySeconds", "MinReadySeconds", kInt32, kOmitEmpty},
};
constexpr MessageSpec kAppsReplicaSetSpec{"ReplicaSetSpec", kAppsReplicaSetSpecFields};

// apps.v1.ReplicaSetCondition
constexpr FieldSpec kAppsReplicaSetConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kAppsReplicaSetCondition{"ReplicaSetCondition",
                                               kAppsReplicaSetConditionFields};

// apps.v1.ReplicaSetStatus
constexpr FieldSpec kAppsReplicaSetStatusFields[] = {
    {1, "replicas", "Replicas", kInt32, kAlways},
    {2, "fullyLabeledReplicas", "FullyLabeledReplicas", kInt32, kOmitEmpty},
    {3, "observedGeneration", "ObservedGeneration", kInt64, kOmitEmpty},
    {4, "readyReplicas", "ReadyReplicas", kInt32, kOmitEmpty},
    {5, "availableReplicas", "AvailableReplicas", kInt32, kOmitEmpty},
    {6, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kAppsReplicaSetCondition},
};
constexpr MessageSpec kAppsReplicaSetStatus{"ReplicaSetStatus", kAppsReplicaSetStatusFields};

// apps.v1.ReplicaSet
constexpr FieldSpec kAppsReplicaSetFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAppsReplicaSetSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAppsReplicaSetStatus},
};
constexpr MessageSpec kAppsReplicaSet{"ReplicaSet", kAppsReplicaSetFields};

// core.v1.PersistentVolumeClaimCondition
constexpr FieldSpec kCorePersistentVolumeClaimConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastProbeTime", "LastProbeTime", kTime, kAlways},
    {4, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {5, "reason", "Reason", kString, kOmitEmpty},
    {6, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kCorePersistentVolumeClaimCondition{
    "PersistentVolumeClaimCondition", kCorePersistentVolumeClaimConditionFields};

// core.v1.ModifyVolumeStatus
constexpr FieldSpec kCoreModifyVolumeStatusFields[] = {
    {1, "targetVolumeAttributesClassName", "TargetVolumeAttributesClassName", kString, kOmitEmpty},
    {2, "status", "Status", kString, kAlways},
};
constexpr MessageSpec kCoreModifyVolumeStatus{"ModifyVolumeStatus", kCoreModifyVolumeStatusFields};

// core.v1.PersistentVolumeClaimStatus
constexpr FieldSpec kCorePersistentVolumeClaimStatusFields[] = {
    {1, "phase", "Phase", kString, kOmitEmpty},
    {2, "accessModes", "AccessModes", kString, kOmitEmpty, kRepeated},
    {3, "capacity", "Capacity", kQuantityMap, kOmitEmpty},
    {4, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated,
     &kCorePersistentVolumeClaimCondition},
    {5, "allocatedResources", "AllocatedResources", kQuantityMap, kOmitEmpty},
    {7, "allocatedResourceStatuses", "AllocatedResourceStatuses", kStringMap, kOmitEmpty},
    {8, "currentVolumeAttributesClassName", "CurrentVolumeAttributesClassName", kString, kOnWire},
    {9, "modifyVolumeStatus", "ModifyVolumeStatus", kMessage, kOnWire, 0, &kCoreModifyVolumeStatus},
};
constexpr MessageSpec kCorePersistentVolumeClaimStatus{"PersistentVolumeClaimStatus",
                                                       kCorePersistentVolumeClaimStatusFields};

// core.v1.PersistentVolumeClaim
constexpr FieldSpec kCorePersistentVolumeClaimFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCorePersistentVolumeClaimSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCorePersistentVolumeClaimStatus},
};
constexpr MessageSpec kCorePersistentVolumeClaim{"PersistentVolumeClaim",
                                                 kCorePersistentVolumeClaimFields};

// apps.v1.RollingUpdateStatefulSetStrategy
constexpr FieldSpec kAppsRollingUpdateStatefulSetStrategyFields[] = {
    {1, "partition", "Partition", kInt32, kOnWire},
    {2, "maxUnavailable", "MaxUnavailable", kIntOrString, kOnWire},
};
constexpr MessageSpec kAppsRollingUpdateStatefulSetStrategy{
    "RollingUpdateStatefulSetStrategy", kAppsRollingUpdateStatefulSetStrategyFields};

// apps.v1.StatefulSetUpdateStrategy
constexpr FieldSpec kAppsStatefulSetUpdateStrategyFields[] = {
    {1, "type", "Type", kString, kOmitEmpty},
    {2, "rollingUpdate", "RollingUpdate", kMessage, kOnWire, 0,
     &kAppsRollingUpdateStatefulSetStrategy},
};
constexpr MessageSpec kAppsStatefulSetUpdateStrategy{"StatefulSetUpdateStrategy",
                                                     kAppsStatefulSetUpdateStrategyFields};

// apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy
constexpr FieldSpec kAppsStatefulSetPersistentVolumeClaimRetentionPolicyFields[] = {
    {1, "whenDeleted", "WhenDeleted", kString, kOmitEmpty},
    {2, "whenScaled", "WhenScaled", kString, kOmitEmpty},
};
constexpr MessageSpec kAppsStatefulSetPersistentVolumeClaimRetentionPolicy{
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    kAppsStatefulSetPersistentVolumeClaimRetentionPolicyFields};

// apps.v1.StatefulSetOrdinals
constexpr FieldSpec kAppsStatefulSetOrdinalsFields[] = {
    {1, "start", "Start", kInt32, kAlways},
};
constexpr MessageSpec kAppsStatefulSetOrdinals{"StatefulSetOrdinals",
                                               kAppsStatefulSetOrdinalsFields};

// apps.v1.StatefulSetSpec
constexpr FieldSpec kAppsStatefulSetSpecFields[] = {
    {1, "replicas", "Replicas", kInt32, kOnWire},
    {2, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {3, "template", "Template", kMessage, kAlways, 0, &kCorePodTemplateSpec},
    {4, "volumeClaimTemplates", "VolumeClaimTemplates", kMessage, kOmitEmpty, kRepeated,
     &kCorePersistentVolumeClaim},
    {5, "serviceName", "ServiceName", kString, kAlways},
    {6, "podManagementPolicy", "PodManagementPolicy", kString, kOmitEmpty},
    {7, "updateStrategy", "UpdateStrategy", kMessage, kAlways, 0, &kAppsStatefulSetUpdateStrategy},
    {8, "revisionHistoryLimit", "RevisionHistoryLimit", kInt32, kOnWire},
    {9, "minReadySeconds", "MinReadySeconds", kInt32, kOmitEmpty},
    {10, "persistentVolumeClaimRetentionPolicy", "PersistentVolumeClaimRetentionPolicy", kMessage,
     kOnWire, 0, &kAppsStatefulSetPersistentVolumeClaimRetentionPolicy},
    {11, "ordinals", "Ordinals", kMessage, kOnWire, 0, &kAppsStatefulSetOrdinals},
};
constexpr MessageSpec kAppsStatefulSetSpec{"StatefulSetSpec", kAppsStatefulSetSpecFields};

// apps.v1.StatefulSetCondition
constexpr FieldSpec kAppsStatefulSetConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kAppsStatefulSetCondition{"StatefulSetCondition",
                                                kAppsStatefulSetConditionFields};

// apps.v1.StatefulSetStatus
constexpr FieldSpec kAppsStatefulSetStatusFields[] = {
    {1, "observedGeneration", "ObservedGeneration", kInt64, kOmitEmpty},
    {2, "replicas", "Replicas", kInt32, kAlways},
    {3, "readyReplicas", "ReadyReplicas", kInt32, kOmitEmpty},
    {4, "currentReplicas", "CurrentReplicas", kInt32, kOmitEmpty},
    {5, "updatedReplicas", "UpdatedReplicas", kInt32, kOmitEmpty},
    {6, "currentRevision", "CurrentRevision", kString, kOmitEmpty},
    {7, "updateRevision", "UpdateRevision", kString, kOmitEmpty},
    {9, "collisionCount", "CollisionCount", kInt32, kOnWire},
    {10, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kAppsStatefulSetCondition},
    {11, "availableReplicas", "AvailableReplicas", kInt32, kAlways},
};
constexpr MessageSpec kAppsStatefulSetStatus{"StatefulSetStatus", kAppsStatefulSetStatusFields};

// apps.v1.StatefulSet
constexpr FieldSpec kAppsStatefulSetFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAppsStatefulSetSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAppsStatefulSetStatus},
};
constexpr MessageSpec kAppsStatefulSet{"StatefulSet", kAppsStatefulSetFields};

// apps.v1.RollingUpdateDaemonSet
constexpr FieldSpec kAppsRollingUpdateDaemonSetFields[] = {
    {1, "maxUnavailable", "MaxUnavailable", kIntOrString, kOnWire},
    {2, "maxSurge", "MaxSurge", kIntOrString, kOnWire},
};
constexpr MessageSpec kAppsRollingUpdateDaemonSet{"RollingUpdateDaemonSet",
                                                  kAppsRollingUpdateDaemonSetFields};

// apps.v1.DaemonSetUpdateStrategy
constexpr FieldSpec kAppsDaemonSetUpdateStrategyFields[] = {
    {1, "type", "Type", kString, kOmitEmpty},
    {2, "rollingUpdate", "RollingUpdate", kMessage, kOnWire, 0, &kAppsRollingUpdateDaemonSet},
};
constexpr MessageSpec kAppsDaemonSetUpdateStrategy{"DaemonSetUpdateStrategy",
                                                   kAppsDaemonSetUpdateStrategyFields};

// apps.v1.DaemonSetSpec
constexpr FieldSpec kAppsDaemonSetSpecFields[] = {
    {1, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {2, "template", "Template", kMessage, kAlways, 0, &kCorePodTemplateSpec},
    {3, "updateStrategy", "UpdateStrategy", kMessage, kAlways, 0, &kAppsDaemonSetUpdateStrategy},
    {4, "minReadySeconds", "MinReadySeconds", kInt32, kOmitEmpty},
    {6, "revisionHistoryLimit", "RevisionHistoryLimit", kInt32, kOnWire},
};
constexpr MessageSpec kAppsDaemonSetSpec{"DaemonSetSpec", kAppsDaemonSetSpecFields};

// apps.v1.DaemonSetCondition
constexpr FieldSpec kAppsDaemonSetConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kAppsDaemonSetCondition{"DaemonSetCondition", kAppsDaemonSetConditionFields};

// apps.v1.DaemonSetStatus
constexpr FieldSpec kAppsDaemonSetStatusFields[] = {
    {1, "currentNumberScheduled", "CurrentNumberScheduled", kInt32, kAlways},
    {2, "numberMisscheduled", "NumberMisscheduled", kInt32, kAlways},
    {3, "desiredNumberScheduled", "DesiredNumberScheduled", kInt32, kAlways},
    {4, "numberReady", "NumberReady", kInt32, kAlways},
    {5, "observedGeneration", "ObservedGeneration", kInt64, kOmitEmpty},
    {6, "updatedNumberScheduled", "UpdatedNumberScheduled", kInt32, kOmitEmpty},
    {7, "numberAvailable", "NumberAvailable", kInt32, kOmitEmpty},
    {8, "numberUnavailable", "NumberUnavailable", kInt32, kOmitEmpty},
    {9, "collisionCount", "CollisionCount", kInt32, kOnWire},
    {10, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kAppsDaemonSetCondition},
};
constexpr MessageSpec kAppsDaemonSetStatus{"DaemonSetStatus", kAppsDaemonSetStatusFields};

// apps.v1.ControllerRevision
constexpr FieldSpec kAppsControllerRevisionFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "data", "Data", kRawExtension, kOmitEmpty},
    {3, "revision", "Revision", kInt64, kAlways},
};
constexpr MessageSpec kAppsControllerRevision{"ControllerRevision", kAppsControllerRevisionFields};

// apps.v1.DaemonSet
constexpr FieldSpec kAppsDaemonSetFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAppsDaemonSetSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAppsDaemonSetStatus},
};
constexpr MessageSpec kAppsDaemonSet{"DaemonSet", kAppsDaemonSetFields};

// batch.v1.PodFailurePolicyOnExitCodesRequirement
constexpr FieldSpec kBatchPodFailurePolicyOnExitCodesRequirementFields[] = {
    {1, "containerName", "ContainerName", kString, kOnWire},
    {2, "operator", "Operator", kString, kAlways},
    {3, "values", "Values", kInt32, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kBatchPodFailurePolicyOnExitCodesRequirement{
    "PodFailurePolicyOnExitCodesRequirement", kBatchPodFailurePolicyOnExitCodesRequirementFields};

// batch.v1.PodFailurePolicyOnPodConditionsPattern
constexpr FieldSpec kBatchPodFailurePolicyOnPodConditionsPatternFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
};
constexpr MessageSpec kBatchPodFailurePolicyOnPodConditionsPattern{
    "PodFailurePolicyOnPodConditionsPattern", kBatchPodFailurePolicyOnPodConditionsPatternFields};

// batch.v1.PodFailurePolicyRule
constexpr FieldSpec kBatchPodFailurePolicyRuleFields[] = {
    {1, "action", "Action", kString, kAlways},
    {2, "onExitCodes", "OnExitCodes", kMessage, kOnWire, 0,
     &kBatchPodFailurePolicyOnExitCodesRequirement},
    {3, "onPodConditions", "OnPodConditions", kMessage, kOmitEmpty, kRepeated,
     &kBatchPodFailurePolicyOnPodConditionsPattern},
};
constexpr MessageSpec kBatchPodFailurePolicyRule{"PodFailurePolicyRule",
                                                 kBatchPodFailurePolicyRuleFields};

// batch.v1.PodFailurePolicy
constexpr FieldSpec kBatchPodFailurePolicyFields[] = {
    {1, "rules", "Rules", kMessage, kOmitEmpty, kRepeated, &kBatchPodFailurePolicyRule},
};
constexpr MessageSpec kBatchPodFailurePolicy{"PodFailurePolicy", kBatchPodFailurePolicyFields};

// batch.v1.SuccessPolicyRule
constexpr FieldSpec kBatchSuccessPolicyRuleFields[] = {
    {1, "succeededIndexes", "SucceededIndexes", kString, kOnWire},
    {2, "succeededCount", "SucceededCount", kInt32, kOnWire},
};
constexpr MessageSpec kBatchSuccessPolicyRule{"SuccessPolicyRule", kBatchSuccessPolicyRuleFields};

// batch.v1.SuccessPolicy
constexpr FieldSpec kBatchSuccessPolicyFields[] = {
    {1, "rules", "Rules", kMessage, kOmitEmpty, kRepeated, &kBatchSuccessPolicyRule},
};
constexpr MessageSpec kBatchSuccessPolicy{"SuccessPolicy", kBatchSuccessPolicyFields};

// batch.v1.JobSpec
constexpr FieldSpec kBatchJobSpecFields[] = {
    {1, "parallelism", "Parallelism", kInt32, kOnWire},
    {2, "completions", "Completions", kInt32, kOnWire},
    {3, "activeDeadlineSeconds", "ActiveDeadlineSeconds", kInt64, kOnWire},
    {4, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {5, "manualSelector", "ManualSelector", kBool, kOnWire},
    {6, "template", "Template", kMessage, kAlways, 0, &kCorePodTemplateSpec},
    {7, "backoffLimit", "BackoffLimit", kInt32, kOnWire},
    {8, "ttlSecondsAfterFinished", "TTLSecondsAfterFinished", kInt32, kOnWire},
    {9, "completionMode", "CompletionMode", kString, kOnWire},
    {10, "suspend", "Suspend", kBool, kOnWire},
    {11, "podFailurePolicy", "PodFailurePolicy", kMessage, kOnWire, 0, &kBatchPodFailurePolicy},
    {12, "backoffLimitPerIndex", "BackoffLimitPerIndex", kInt32, kOnWire},
    {13, "maxFailedIndexes", "MaxFailedIndexes", kInt32, kOnWire},
    {14, "podReplacementPolicy", "PodReplacementPolicy", kString, kOnWire},
    {15, "managedBy", "ManagedBy", kString, kOnWire},
    {16, "successPolicy", "SuccessPolicy", kMessage, kOnWire, 0, &kBatchSuccessPolicy},
};
constexpr MessageSpec kBatchJobSpec{"JobSpec", kBatchJobSpecFields};

// batch.v1.JobCondition
constexpr FieldSpec kBatchJobConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastProbeTime", "LastProbeTime", kTime, kAlways},
    {4, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {5, "reason", "Reason", kString, kOmitEmpty},
    {6, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kBatchJobCondition{"JobCondition", kBatchJobConditionFields};

// batch.v1.UncountedTerminatedPods
constexpr FieldSpec kBatchUncountedTerminatedPodsFields[] = {
    {1, "succeeded", "Succeeded", kString, kOmitEmpty, kRepeated},
    {2, "failed", "Failed", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kBatchUncountedTerminatedPods{"UncountedTerminatedPods",
                                                    kBatchUncountedTerminatedPodsFields};

// batch.v1.JobStatus
constexpr FieldSpec kBatchJobStatusFields[] = {
    {1, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kBatchJobCondition},
    {2, "startTime", "StartTime", kTime, kOnWire},
    {3, "completionTime", "CompletionTime", kTime, kOnWire},
    {4, "active", "Active", kInt32, kOmitEmpty},
    {5, "succeeded", "Succeeded", kInt32, kOmitEmpty},
    {6, "failed", "Failed", kInt32, kOmitEmpty},
    {7, "completedIndexes", "CompletedIndexes", kString, kOmitEmpty},
    {8, "uncountedTerminatedPods", "UncountedTerminatedPods", kMessage, kOnWire, 0,
     &kBatchUncountedTerminatedPods},
    {9, "ready", "Ready", kInt32, kOnWire},
    {10, "failedIndexes", "FailedIndexes", kString, kOnWire},
    {11, "terminating", "Terminating", kInt32, kOnWire},
};
constexpr MessageSpec kBatchJobStatus{"JobStatus", kBatchJobStatusFields};

// batch.v1.Job
constexpr FieldSpec kBatchJobFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kBatchJobSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kBatchJobStatus},
};
constexpr MessageSpec kBatchJob{"Job", kBatchJobFields};

// batch.v1.JobTemplateSpec
constexpr FieldSpec kBatchJobTemplateSpecFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kBatchJobSpec},
};
constexpr MessageSpec kBatchJobTemplateSpec{"JobTemplateSpec", kBatchJobTemplateSpecFields};

// batch.v1.CronJobSpec
constexpr FieldSpec kBatchCronJobSpecFields[] = {
    {1, "schedule", "Schedule", kString, kAlways},
    {2, "startingDeadlineSeconds", "StartingDeadlineSeconds", kInt64, kOnWire},
    {3, "concurrencyPolicy", "ConcurrencyPolicy", kString, kOmitEmpty},
    {4, "suspend", "Suspend", kBool, kOnWire},
    {5, "jobTemplate", "JobTemplate", kMessage, kAlways, 0, &kBatchJobTemplateSpec},
    {6, "successfulJobsHistoryLimit", "SuccessfulJobsHistoryLimit", kInt32, kOnWire},
    {7, "failedJobsHistoryLimit", "FailedJobsHistoryLimit", kInt32, kOnWire},
    {8, "timeZone", "TimeZone", kString, kOnWire},
};
constexpr MessageSpec kBatchCronJobSpec{"CronJobSpec", kBatchCronJobSpecFields};

// core.v1.ObjectReference
constexpr FieldSpec kCoreObjectReferenceFields[] = {
    {1, "kind", "Kind", kString, kOmitEmpty},
    {2, "namespace", "Namespace", kString, kOmitEmpty},
    {3, "name", "Name", kString, kOmitEmpty},
    {4, "uid", "UID", kString, kOmitEmpty},
    {5, "apiVersion", "APIVersion", kString, kOmitEmpty},
    {6, "resourceVersion", "ResourceVersion", kString, kOmitEmpty},
    {7, "fieldPath", "FieldPath", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreObjectReference{"ObjectReference", kCoreObjectReferenceFields};

// batch.v1.CronJobStatus
constexpr FieldSpec kBatchCronJobStatusFields[] = {
    {1, "active", "Active", kMessage, kOmitEmpty, kRepeated, &kCoreObjectReference},
    {4, "lastScheduleTime", "LastScheduleTime", kTime, kOnWire},
    {5, "lastSuccessfulTime", "LastSuccessfulTime", kTime, kOnWire},
};
constexpr MessageSpec kBatchCronJobStatus{"CronJobStatus", kBatchCronJobStatusFields};

// batch.v1.CronJob
constexpr FieldSpec kBatchCronJobFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kBatchCronJobSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kBatchCronJobStatus},
};
constexpr MessageSpec kBatchCronJob{"CronJob", kBatchCronJobFields};

// core.v1.ServicePort
constexpr FieldSpec kCoreServicePortFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "protocol", "Protocol", kString, kOmitEmpty},
    {3, "port", "Port", kInt32, kAlways},
    {4, "targetPort", "TargetPort", kIntOrString, kAlways},
    {5, "nodePort", "NodePort", kInt32, kOmitEmpty},
    {6, "appProtocol", "AppProtocol", kString, kOnWire},
};
constexpr MessageSpec kCoreServicePort{"ServicePort", kCoreServicePortFields};

// core.v1.ClientIPConfig
constexpr FieldSpec kCoreClientIPConfigFields[] = {
    {1, "timeoutSeconds", "TimeoutSeconds", kInt32, kOnWire},
};
constexpr MessageSpec kCoreClientIPConfig{"ClientIPConfig", kCoreClientIPConfigFields};

// core.v1.SessionAffinityConfig
constexpr FieldSpec kCoreSessionAffinityConfigFields[] = {
    {1, "clientIP", "ClientIP", kMessage, kOnWire, 0, &kCoreClientIPConfig},
};
constexpr MessageSpec kCoreSessionAffinityConfig{"SessionAffinityConfig",
                                                 kCoreSessionAffinityConfigFields};

// core.v1.ServiceSpec
constexpr FieldSpec kCoreServiceSpecFields[] = {
    {1, "ports", "Ports", kMessage, kOmitEmpty, kRepeated, &kCoreServicePort},
    {2, "selector", "Selector", kStringMap, kOmitEmpty},
    {3, "clusterIP", "ClusterIP", kString, kOmitEmpty},
    {4, "type", "Type", kString, kOmitEmpty},
    {5, "externalIPs", "ExternalIPs", kString, kOmitEmpty, kRepeated},
    {7, "sessionAffinity", "SessionAffinity", kString, kOmitEmpty},
    {8, "loadBalancerIP", "LoadBalancerIP", kString, kOmitEmpty},
    {9, "loadBalancerSourceRanges", "LoadBalancerSourceRanges", kString, kOmitEmpty, kRepeated},
    {10, "externalName", "ExternalName", kString, kOmitEmpty},
    {11, "externalTrafficPolicy", "ExternalTrafficPolicy", kString, kOmitEmpty},
    {12, "healthCheckNodePort", "HealthCheckNodePort", kInt32, kOmitEmpty},
    {13, "publishNotReadyAddresses", "PublishNotReadyAddresses", kBool, kOmitEmpty},
    {14, "sessionAffinityConfig", "SessionAffinityConfig", kMessage, kOnWire, 0,
     &kCoreSessionAffinityConfig},
    {17, "ipFamilyPolicy", "IPFamilyPolicy", kString, kOnWire},
    {18, "clusterIPs", "ClusterIPs", kString, kOmitEmpty, kRepeated},
    {19, "ipFamilies", "IPFamilies", kString, kOmitEmpty, kRepeated},
    {20, "allocateLoadBalancerNodePorts", "AllocateLoadBalancerNodePorts", kBool, kOnWire},
    {21, "loadBalancerClass", "LoadBalancerClass", kString, kOnWire},
    {22, "internalTrafficPolicy", "InternalTrafficPolicy", kString, kOnWire},
    {23, "trafficDistribution", "TrafficDistribution", kString, kOnWire},
};
constexpr MessageSpec kCoreServiceSpec{"ServiceSpec", kCoreServiceSpecFields};

// core.v1.PortStatus
constexpr FieldSpec kCorePortStatusFields[] = {
    {1, "port", "Port", kInt32, kAlways},
    {2, "protocol", "Protocol", kString, kAlways},
    {3, "error", "Error", kString, kOnWire},
};
constexpr MessageSpec kCorePortStatus{"PortStatus", kCorePortStatusFields};

// core.v1.LoadBalancerIngress
constexpr FieldSpec kCoreLoadBalancerIngressFields[] = {
    {1, "ip", "IP", kString, kOmitEmpty},
    {2, "hostname", "Hostname", kString, kOmitEmpty},
    {3, "ipMode", "IPMode", kString, kOnWire},
    {4, "ports", "Ports", kMessage, kOmitEmpty, kRepeated, &kCorePortStatus},
};
constexpr MessageSpec kCoreLoadBalancerIngress{"LoadBalancerIngress",
                                               kCoreLoadBalancerIngressFields};

// core.v1.LoadBalancerStatus
constexpr FieldSpec kCoreLoadBalancerStatusFields[] = {
    {1, "ingress", "Ingress", kMessage, kOmitEmpty, kRepeated, &kCoreLoadBalancerIngress},
};
constexpr MessageSpec kCoreLoadBalancerStatus{"LoadBalancerStatus", kCoreLoadBalancerStatusFields};

// apis.meta.v1.Condition
constexpr FieldSpec kMetaConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "observedGeneration", "ObservedGeneration", kInt64, kOmitEmpty},
    {4, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {5, "reason", "Reason", kString, kAlways},
    {6, "message", "Message", kString, kAlways},
};
constexpr MessageSpec kMetaCondition{"Condition", kMetaConditionFields};

// core.v1.ServiceStatus
constexpr FieldSpec kCoreServiceStatusFields[] = {
    {1, "loadBalancer", "LoadBalancer", kMessage, kAlways, 0, &kCoreLoadBalancerStatus},
    {2, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kMetaCondition},
};
constexpr MessageSpec kCoreServiceStatus{"ServiceStatus", kCoreServiceStatusFields};

// core.v1.Service
constexpr FieldSpec kCoreServiceFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCoreServiceSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCoreServiceStatus},
};
constexpr MessageSpec kCoreService{"Service", kCoreServiceFields};

// policy.v1.PodDisruptionBudgetSpec
constexpr FieldSpec kPolicyPodDisruptionBudgetSpecFields[] = {
    {1, "minAvailable", "MinAvailable", kIntOrString, kOnWire},
    {2, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {3, "maxUnavailable", "MaxUnavailable", kIntOrString, kOnWire},
    {4, "unhealthyPodEvictionPolicy", "UnhealthyPodEvictionPolicy", kString, kOnWire},
};
constexpr MessageSpec kPolicyPodDisruptionBudgetSpec{"PodDisruptionBudgetSpec",
                                                     kPolicyPodDisruptionBudgetSpecFields};

// policy.v1.PodDisruptionBudgetStatus
constexpr FieldSpec kPolicyPodDisruptionBudgetStatusFields[] = {
    {1, "observedGeneration", "ObservedGeneration", kInt64, kOmitEmpty},
    {2, "disruptedPods", "DisruptedPods", kTimeMap, kOmitEmpty},
    {3, "disruptionsAllowed", "DisruptionsAllowed", kInt32, kAlways},
    {4, "currentHealthy", "CurrentHealthy", kInt32, kAlways},
    {5, "desiredHealthy", "DesiredHealthy", kInt32, kAlways},
    {6, "expectedPods", "ExpectedPods", kInt32, kAlways},
    {7, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kMetaCondition},
};
constexpr MessageSpec kPolicyPodDisruptionBudgetStatus{"PodDisruptionBudgetStatus",
                                                       kPolicyPodDisruptionBudgetStatusFields};

// policy.v1.PodDisruptionBudget
constexpr FieldSpec kPolicyPodDisruptionBudgetFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kPolicyPodDisruptionBudgetSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kPolicyPodDisruptionBudgetStatus},
};
constexpr MessageSpec kPolicyPodDisruptionBudget{"PodDisruptionBudget",
                                                 kPolicyPodDisruptionBudgetFields};

// scheduling.v1.PriorityClass
constexpr FieldSpec kSchedulingPriorityClassFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "value", "Value", kInt32, kAlways},
    {3, "globalDefault", "GlobalDefault", kBool, kOmitEmpty},
    {4, "description", "Description", kString, kOmitEmpty},
    {5, "preemptionPolicy", "PreemptionPolicy", kString, kOnWire},
};
constexpr MessageSpec kSchedulingPriorityClass{"PriorityClass", kSchedulingPriorityClassFields};

// rbac.v1.PolicyRule
constexpr FieldSpec kRbacPolicyRuleFields[] = {
    {1, "verbs", "Verbs", kString, kOmitEmpty, kRepeated},
    {2, "apiGroups", "APIGroups", kString, kOmitEmpty, kRepeated},
    {3, "resources", "Resources", kString, kOmitEmpty, kRepeated},
    {4, "resourceNames", "ResourceNames", kString, kOmitEmpty, kRepeated},
    {5, "nonResourceURLs", "NonResourceURLs", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kRbacPolicyRule{"PolicyRule", kRbacPolicyRuleFields};

// rbac.v1.Role
constexpr FieldSpec kRbacRoleFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "rules", "Rules", kMessage, kOmitEmpty, kRepeated, &kRbacPolicyRule},
};
constexpr MessageSpec kRbacRole{"Role", kRbacRoleFields};

// rbac.v1.Subject
constexpr FieldSpec kRbacSubjectFields[] = {
    {1, "kind", "Kind", kString, kAlways},
    {2, "apiGroup", "APIGroup", kString, kOmitEmpty},
    {3, "name", "Name", kString, kAlways},
    {4, "namespace", "Namespace", kString, kOmitEmpty},
};
constexpr MessageSpec kRbacSubject{"Subject", kRbacSubjectFields};

// rbac.v1.RoleRef
constexpr FieldSpec kRbacRoleRefFields[] = {
    {1, "apiGroup", "APIGroup", kString, kAlways},
    {2, "kind", "Kind", kString, kAlways},
    {3, "name", "Name", kString, kAlways},
};
constexpr MessageSpec kRbacRoleRef{"RoleRef", kRbacRoleRefFields};

// rbac.v1.RoleBinding
constexpr FieldSpec kRbacRoleBindingFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "subjects", "Subjects", kMessage, kOmitEmpty, kRepeated, &kRbacSubject},
    {3, "roleRef", "RoleRef", kMessage, kAlways, 0, &kRbacRoleRef},
};
constexpr MessageSpec kRbacRoleBinding{"RoleBinding", kRbacRoleBindingFields};

// rbac.v1.AggregationRule
constexpr FieldSpec kRbacAggregationRuleFields[] = {
    {1, "clusterRoleSelectors", "ClusterRoleSelectors", kMessage, kOmitEmpty, kRepeated,
     &kMetaLabelSelector},
};
constexpr MessageSpec kRbacAggregationRule{"AggregationRule", kRbacAggregationRuleFields};

// rbac.v1.ClusterRole
constexpr FieldSpec kRbacClusterRoleFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "rules", "Rules", kMessage, kOmitEmpty, kRepeated, &kRbacPolicyRule},
    {3, "aggregationRule", "AggregationRule", kMessage, kOnWire, 0, &kRbacAggregationRule},
};
constexpr MessageSpec kRbacClusterRole{"ClusterRole", kRbacClusterRoleFields};

// rbac.v1.ClusterRoleBinding
constexpr FieldSpec kRbacClusterRoleBindingFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "subjects", "Subjects", kMessage, kOmitEmpty, kRepeated, &kRbacSubject},
    {3, "roleRef", "RoleRef", kMessage, kAlways, 0, &kRbacRoleRef},
};
constexpr MessageSpec kRbacClusterRoleBinding{"ClusterRoleBinding", kRbacClusterRoleBindingFields};

// autoscaling.v1.ScaleSpec
constexpr FieldSpec kAutoscalingScaleSpecFields[] = {
    {1, "replicas", "Replicas", kInt32, kOmitEmpty},
};
constexpr MessageSpec kAutoscalingScaleSpec{"ScaleSpec", kAutoscalingScaleSpecFields};

// autoscaling.v1.ScaleStatus
constexpr FieldSpec kAutoscalingScaleStatusFields[] = {
    {1, "replicas", "Replicas", kInt32, kAlways},
    {2, "selector", "Selector", kString, kOmitEmpty},
};
constexpr MessageSpec kAutoscalingScaleStatus{"ScaleStatus", kAutoscalingScaleStatusFields};

// autoscaling.v1.Scale
constexpr FieldSpec kAutoscalingScaleFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAutoscalingScaleSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAutoscalingScaleStatus},
};
constexpr MessageSpec kAutoscalingScale{"Scale", kAutoscalingScaleFields};

// autoscaling.v1.CrossVersionObjectReference (v2's has the same fields)
constexpr FieldSpec kAutoscalingCrossVersionObjectReferenceFields[] = {
    {1, "kind", "Kind", kString, kAlways},
    {2, "name", "Name", kString, kAlways},
    {3, "apiVersion", "APIVersion", kString, kOmitEmpty},
};
constexpr MessageSpec kAutoscalingCrossVersionObjectReference{
    "CrossVersionObjectReference", kAutoscalingCrossVersionObjectReferenceFields};

// autoscaling.v1.HorizontalPodAutoscalerSpec
constexpr FieldSpec kAutoscalingV1HpaSpecFields[] = {
    {1, "scaleTargetRef", "ScaleTargetRef", kMessage, kAlways, 0,
     &kAutoscalingCrossVersionObjectReference},
    {2, "minReplicas", "MinReplicas", kInt32, kOnWire},
    {3, "maxReplicas", "MaxReplicas", kInt32, kAlways},
    {4, "targetCPUUtilizationPercentage", "TargetCPUUtilizationPercentage", kInt32, kOnWire},
};
constexpr MessageSpec kAutoscalingV1HpaSpec{"HorizontalPodAutoscalerSpec",
                                            kAutoscalingV1HpaSpecFields};

// autoscaling.v1.HorizontalPodAutoscalerStatus
constexpr FieldSpec kAutoscalingV1HpaStatusFields[] = {
    {1, "observedGeneration", "ObservedGeneration", kInt64, kOnWire},
    {2, "lastScaleTime", "LastScaleTime", kTime, kOnWire},
    {3, "currentReplicas", "CurrentReplicas", kInt32, kAlways},
    {4, "desiredReplicas", "DesiredReplicas", kInt32, kAlways},
    {5, "currentCPUUtilizationPercentage", "CurrentCPUUtilizationPercentage", kInt32, kOnWire},
};
constexpr MessageSpec kAutoscalingV1HpaStatus{"HorizontalPodAutoscalerStatus",
                                              kAutoscalingV1HpaStatusFields};

// autoscaling.v1.HorizontalPodAutoscaler
constexpr FieldSpec kAutoscalingV1HpaFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAutoscalingV1HpaSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAutoscalingV1HpaStatus},
};
constexpr MessageSpec kAutoscalingV1Hpa{"HorizontalPodAutoscaler", kAutoscalingV1HpaFields};

// autoscaling.v2.MetricIdentifier
constexpr FieldSpec kAutoscalingV2MetricIdentifierFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "selector", "Selector", kMessage, kOnWire, 0, &kMetaLabelSelector},
};
constexpr MessageSpec kAutoscalingV2MetricIdentifier{"MetricIdentifier",
                                                     kAutoscalingV2MetricIdentifierFields};

// autoscaling.v2.MetricTarget
constexpr FieldSpec kAutoscalingV2MetricTargetFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "value", "Value", kQuantity, kOnWire},
    {3, "averageValue", "AverageValue", kQuantity, kOnWire},
    {4, "averageUtilization", "AverageUtilization", kInt32, kOnWire},
};
constexpr MessageSpec kAutoscalingV2MetricTarget{"MetricTarget", kAutoscalingV2MetricTargetFields};

// autoscaling.v2.MetricValueStatus
constexpr FieldSpec kAutoscalingV2MetricValueStatusFields[] = {
    {1, "value", "Value", kQuantity, kOnWire},
    {2, "averageValue", "AverageValue", kQuantity, kOnWire},
    {3, "averageUtilization", "AverageUtilization", kInt32, kOnWire},
};
constexpr MessageSpec kAutoscalingV2MetricValueStatus{"MetricValueStatus",
                                                      kAutoscalingV2MetricValueStatusFields};

// autoscaling.v2.ObjectMetricSource / PodsMetricSource / ResourceMetricSource /
// ContainerResourceMetricSource / ExternalMetricSource
constexpr FieldSpec kAutoscalingV2ObjectMetricSourceFields[] = {
    {1, "describedObject", "DescribedObject", kMessage, kAlways, 0,
     &kAutoscalingCrossVersionObjectReference},
    {2, "target", "Target", kMessage, kAlways, 0, &kAutoscalingV2MetricTarget},
    {3, "metric", "Metric", kMessage, kAlways, 0, &kAutoscalingV2MetricIdentifier},
};
constexpr MessageSpec kAutoscalingV2ObjectMetricSource{"ObjectMetricSource",
                                                       kAutoscalingV2ObjectMetricSourceFields};
constexpr FieldSpec kAutoscalingV2PodsMetricSourceFields[] = {
    {1, "metric", "Metric", kMessage, kAlways, 0, &kAutoscalingV2MetricIdentifier},
    {2, "target", "Target", kMessage, kAlways, 0, &kAutoscalingV2MetricTarget},
};
constexpr MessageSpec kAutoscalingV2PodsMetricSource{"PodsMetricSource",
                                                     kAutoscalingV2PodsMetricSourceFields};
constexpr FieldSpec kAutoscalingV2ResourceMetricSourceFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "target", "Target", kMessage, kAlways, 0, &kAutoscalingV2MetricTarget},
};
constexpr MessageSpec kAutoscalingV2ResourceMetricSource{"ResourceMetricSource",
                                                         kAutoscalingV2ResourceMetricSourceFields};
constexpr FieldSpec kAutoscalingV2ContainerResourceMetricSourceFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "target", "Target", kMessage, kAlways, 0, &kAutoscalingV2MetricTarget},
    {3, "container", "Container", kString, kAlways},
};
constexpr MessageSpec kAutoscalingV2ContainerResourceMetricSource{
    "ContainerResourceMetricSource", kAutoscalingV2ContainerResourceMetricSourceFields};
constexpr FieldSpec kAutoscalingV2ExternalMetricSourceFields[] = {
    {1, "metric", "Metric", kMessage, kAlways, 0, &kAutoscalingV2MetricIdentifier},
    {2, "target", "Target", kMessage, kAlways, 0, &kAutoscalingV2MetricTarget},
};
constexpr MessageSpec kAutoscalingV2ExternalMetricSource{"ExternalMetricSource",
                                                         kAutoscalingV2ExternalMetricSourceFields};

// autoscaling.v2.MetricSpec
constexpr FieldSpec kAutoscalingV2MetricSpecFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "object", "Object", kMessage, kOnWire, 0, &kAutoscalingV2ObjectMetricSource},
    {3, "pods", "Pods", kMessage, kOnWire, 0, &kAutoscalingV2PodsMetricSource},
    {4, "resource", "Resource", kMessage, kOnWire, 0, &kAutoscalingV2ResourceMetricSource},
    {7, "containerResource", "ContainerResource", kMessage, kOnWire, 0,
     &kAutoscalingV2ContainerResourceMetricSource},
    {5, "external", "External", kMessage, kOnWire, 0, &kAutoscalingV2ExternalMetricSource},
};
constexpr MessageSpec kAutoscalingV2MetricSpec{"MetricSpec", kAutoscalingV2MetricSpecFields};

// autoscaling.v2 metric statuses
constexpr FieldSpec kAutoscalingV2ObjectMetricStatusFields[] = {
    {1, "metric", "Metric", kMessage, kAlways, 0, &kAutoscalingV2MetricIdentifier},
    {2, "current", "Current", kMessage, kAlways, 0, &kAutoscalingV2MetricValueStatus},
    {3, "describedObject", "DescribedObject", kMessage, kAlways, 0,
     &kAutoscalingCrossVersionObjectReference},
};
constexpr MessageSpec kAutoscalingV2ObjectMetricStatus{"ObjectMetricStatus",
                                                       kAutoscalingV2ObjectMetricStatusFields};
constexpr FieldSpec kAutoscalingV2PodsMetricStatusFields[] = {
    {1, "metric", "Metric", kMessage, kAlways, 0, &kAutoscalingV2MetricIdentifier},
    {2, "current", "Current", kMessage, kAlways, 0, &kAutoscalingV2MetricValueStatus},
};
constexpr MessageSpec kAutoscalingV2PodsMetricStatus{"PodsMetricStatus",
                                                     kAutoscalingV2PodsMetricStatusFields};
constexpr FieldSpec kAutoscalingV2ResourceMetricStatusFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "current", "Current", kMessage, kAlways, 0, &kAutoscalingV2MetricValueStatus},
};
constexpr MessageSpec kAutoscalingV2ResourceMetricStatus{"ResourceMetricStatus",
                                                         kAutoscalingV2ResourceMetricStatusFields};
constexpr FieldSpec kAutoscalingV2ContainerResourceMetricStatusFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "current", "Current", kMessage, kAlways, 0, &kAutoscalingV2MetricValueStatus},
    {3, "container", "Container", kString, kAlways},
};
constexpr MessageSpec kAutoscalingV2ContainerResourceMetricStatus{
    "ContainerResourceMetricStatus", kAutoscalingV2ContainerResourceMetricStatusFields};
constexpr FieldSpec kAutoscalingV2ExternalMetricStatusFields[] = {
    {1, "metric", "Metric", kMessage, kAlways, 0, &kAutoscalingV2MetricIdentifier},
    {2, "current", "Current", kMessage, kAlways, 0, &kAutoscalingV2MetricValueStatus},
};
constexpr MessageSpec kAutoscalingV2ExternalMetricStatus{"ExternalMetricStatus",
                                                         kAutoscalingV2ExternalMetricStatusFields};
constexpr FieldSpec kAutoscalingV2MetricStatusFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "object", "Object", kMessage, kOnWire, 0, &kAutoscalingV2ObjectMetricStatus},
    {3, "pods", "Pods", kMessage, kOnWire, 0, &kAutoscalingV2PodsMetricStatus},
    {4, "resource", "Resource", kMessage, kOnWire, 0, &kAutoscalingV2ResourceMetricStatus},
    {7, "containerResource", "ContainerResource", kMessage, kOnWire, 0,
     &kAutoscalingV2ContainerResourceMetricStatus},
    {5, "external", "External", kMessage, kOnWire, 0, &kAutoscalingV2ExternalMetricStatus},
};
constexpr MessageSpec kAutoscalingV2MetricStatus{"MetricStatus", kAutoscalingV2MetricStatusFields};

// autoscaling.v2.HPAScalingPolicy / HPAScalingRules / HorizontalPodAutoscalerBehavior (1.32:
// no tolerance)
constexpr FieldSpec kAutoscalingV2HpaScalingPolicyFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "value", "Value", kInt32, kAlways},
    {3, "periodSeconds", "PeriodSeconds", kInt32, kAlways},
};
constexpr MessageSpec kAutoscalingV2HpaScalingPolicy{"HPAScalingPolicy",
                                                     kAutoscalingV2HpaScalingPolicyFields};
constexpr FieldSpec kAutoscalingV2HpaScalingRulesFields[] = {
    {3, "stabilizationWindowSeconds", "StabilizationWindowSeconds", kInt32, kOnWire},
    {1, "selectPolicy", "SelectPolicy", kString, kOnWire},
    {2, "policies", "Policies", kMessage, kOmitEmpty, kRepeated, &kAutoscalingV2HpaScalingPolicy},
};
constexpr MessageSpec kAutoscalingV2HpaScalingRules{"HPAScalingRules",
                                                    kAutoscalingV2HpaScalingRulesFields};
constexpr FieldSpec kAutoscalingV2HpaBehaviorFields[] = {
    {1, "scaleUp", "ScaleUp", kMessage, kOnWire, 0, &kAutoscalingV2HpaScalingRules},
    {2, "scaleDown", "ScaleDown", kMessage, kOnWire, 0, &kAutoscalingV2HpaScalingRules},
};
constexpr MessageSpec kAutoscalingV2HpaBehavior{"HorizontalPodAutoscalerBehavior",
                                                kAutoscalingV2HpaBehaviorFields};

// autoscaling.v2.HorizontalPodAutoscalerCondition (1.32: no observedGeneration)
constexpr FieldSpec kAutoscalingV2HpaConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kAutoscalingV2HpaCondition{"HorizontalPodAutoscalerCondition",
                                                 kAutoscalingV2HpaConditionFields};

// autoscaling.v2.HorizontalPodAutoscalerSpec / Status / HorizontalPodAutoscaler
constexpr FieldSpec kAutoscalingV2HpaSpecFields[] = {
    {1, "scaleTargetRef", "ScaleTargetRef", kMessage, kAlways, 0,
     &kAutoscalingCrossVersionObjectReference},
    {2, "minReplicas", "MinReplicas", kInt32, kOnWire},
    {3, "maxReplicas", "MaxReplicas", kInt32, kAlways},
    {4, "metrics", "Metrics", kMessage, kOmitEmpty, kRepeated, &kAutoscalingV2MetricSpec},
    {5, "behavior", "Behavior", kMessage, kOnWire, 0, &kAutoscalingV2HpaBehavior},
};
constexpr MessageSpec kAutoscalingV2HpaSpec{"HorizontalPodAutoscalerSpec",
                                            kAutoscalingV2HpaSpecFields};
constexpr FieldSpec kAutoscalingV2HpaStatusFields[] = {
    {1, "observedGeneration", "ObservedGeneration", kInt64, kOnWire},
    {2, "lastScaleTime", "LastScaleTime", kTime, kOnWire},
    {3, "currentReplicas", "CurrentReplicas", kInt32, kOmitEmpty},
    {4, "desiredReplicas", "DesiredReplicas", kInt32, kAlways},
    {5, "currentMetrics", "CurrentMetrics", kMessage, kOmitEmpty, kRepeated,
     &kAutoscalingV2MetricStatus},
    {6, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kAutoscalingV2HpaCondition},
};
constexpr MessageSpec kAutoscalingV2HpaStatus{"HorizontalPodAutoscalerStatus",
                                              kAutoscalingV2HpaStatusFields};
constexpr FieldSpec kAutoscalingV2HpaFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAutoscalingV2HpaSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAutoscalingV2HpaStatus},
};
constexpr MessageSpec kAutoscalingV2Hpa{"HorizontalPodAutoscaler", kAutoscalingV2HpaFields};

// authorization.v1: the access and rules reviews (1.32; the beta field and label selectors of
// ResourceAttributes and SubjectAccessReviewSpec.extra are skipped on decode).
constexpr FieldSpec kAuthzResourceAttributesFields[] = {
    {1, "namespace", "Namespace", kString, kOmitEmpty},
    {2, "verb", "Verb", kString, kOmitEmpty},
    {3, "group", "Group", kString, kOmitEmpty},
    {4, "version", "Version", kString, kOmitEmpty},
    {5, "resource", "Resource", kString, kOmitEmpty},
    {6, "subresource", "Subresource", kString, kOmitEmpty},
    {7, "name", "Name", kString, kOmitEmpty},
};
constexpr MessageSpec kAuthzResourceAttributes{"ResourceAttributes",
                                               kAuthzResourceAttributesFields};
constexpr FieldSpec kAuthzNonResourceAttributesFields[] = {
    {1, "path", "Path", kString, kOmitEmpty},
    {2, "verb", "Verb", kString, kOmitEmpty},
};
constexpr MessageSpec kAuthzNonResourceAttributes{"NonResourceAttributes",
                                                  kAuthzNonResourceAttributesFields};
constexpr FieldSpec kAuthzSelfSubjectAccessReviewSpecFields[] = {
    {1, "resourceAttributes", "ResourceAttributes", kMessage, kOnWire, 0,
     &kAuthzResourceAttributes},
    {2, "nonResourceAttributes", "NonResourceAttributes", kMessage, kOnWire, 0,
     &kAuthzNonResourceAttributes},
};
constexpr MessageSpec kAuthzSelfSubjectAccessReviewSpec{"SelfSubjectAccessReviewSpec",
                                                        kAuthzSelfSubjectAccessReviewSpecFields};
constexpr FieldSpec kAuthzSubjectAccessReviewSpecFields[] = {
    {1, "resourceAttributes", "ResourceAttributes", kMessage, kOnWire, 0,
     &kAuthzResourceAttributes},
    {2, "nonResourceAttributes", "NonResourceAttributes", kMessage, kOnWire, 0,
     &kAuthzNonResourceAttributes},
    {3, "user", "User", kString, kOmitEmpty},
    {4, "groups", "Groups", kString, kOmitEmpty, kRepeated},
    {6, "uid", "UID", kString, kOmitEmpty},
};
constexpr MessageSpec kAuthzSubjectAccessReviewSpec{"SubjectAccessReviewSpec",
                                                    kAuthzSubjectAccessReviewSpecFields};
constexpr FieldSpec kAuthzSubjectAccessReviewStatusFields[] = {
    {1, "allowed", "Allowed", kBool, kAlways},
    {4, "denied", "Denied", kBool, kOmitEmpty},
    {2, "reason", "Reason", kString, kOmitEmpty},
    {3, "evaluationError", "EvaluationError", kString, kOmitEmpty},
};
constexpr MessageSpec kAuthzSubjectAccessReviewStatus{"SubjectAccessReviewStatus",
                                                      kAuthzSubjectAccessReviewStatusFields};
constexpr FieldSpec kAuthzSelfSubjectAccessReviewFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAuthzSelfSubjectAccessReviewSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAuthzSubjectAccessReviewStatus},
};
constexpr MessageSpec kAuthzSelfSubjectAccessReview{"SelfSubjectAccessReview",
                                                    kAuthzSelfSubjectAccessReviewFields};
constexpr FieldSpec kAuthzSubjectAccessReviewFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAuthzSubjectAccessReviewSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAuthzSubjectAccessReviewStatus},
};
constexpr MessageSpec kAuthzSubjectAccessReview{"SubjectAccessReview",
                                                kAuthzSubjectAccessReviewFields};
constexpr MessageSpec kAuthzLocalSubjectAccessReview{"LocalSubjectAccessReview",
                                                     kAuthzSubjectAccessReviewFields};
constexpr FieldSpec kAuthzResourceRuleFields[] = {
    {1, "verbs", "Verbs", kString, kOmitEmpty, kRepeated},
    {2, "apiGroups", "APIGroups", kString, kOmitEmpty, kRepeated},
    {3, "resources", "Resources", kString, kOmitEmpty, kRepeated},
    {4, "resourceNames", "ResourceNames", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kAuthzResourceRule{"ResourceRule", kAuthzResourceRuleFields};
constexpr FieldSpec kAuthzNonResourceRuleFields[] = {
    {1, "verbs", "Verbs", kString, kOmitEmpty, kRepeated},
    {2, "nonResourceURLs", "NonResourceURLs", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kAuthzNonResourceRule{"NonResourceRule", kAuthzNonResourceRuleFields};
constexpr FieldSpec kAuthzSubjectRulesReviewStatusFields[] = {
    {1, "resourceRules", "ResourceRules", kMessage, kOmitEmpty, kRepeated, &kAuthzResourceRule},
    {2, "nonResourceRules", "NonResourceRules", kMessage, kOmitEmpty, kRepeated,
     &kAuthzNonResourceRule},
    {3, "incomplete", "Incomplete", kBool, kAlways},
    {4, "evaluationError", "EvaluationError", kString, kOmitEmpty},
};
constexpr MessageSpec kAuthzSubjectRulesReviewStatus{"SubjectRulesReviewStatus",
                                                     kAuthzSubjectRulesReviewStatusFields};
constexpr FieldSpec kAuthzSelfSubjectRulesReviewSpecFields[] = {
    {1, "namespace", "Namespace", kString, kOmitEmpty},
};
constexpr MessageSpec kAuthzSelfSubjectRulesReviewSpec{"SelfSubjectRulesReviewSpec",
                                                       kAuthzSelfSubjectRulesReviewSpecFields};
constexpr FieldSpec kAuthzSelfSubjectRulesReviewFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAuthzSelfSubjectRulesReviewSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAuthzSubjectRulesReviewStatus},
};
constexpr MessageSpec kAuthzSelfSubjectRulesReview{"SelfSubjectRulesReview",
                                                   kAuthzSelfSubjectRulesReviewFields};

// authentication.v1.SelfSubjectReview (UserInfo.extra skipped).
constexpr FieldSpec kAuthnUserInfoFields[] = {
    {1, "username", "Username", kString, kOmitEmpty},
    {2, "uid", "UID", kString, kOmitEmpty},
    {3, "groups", "Groups", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kAuthnUserInfo{"UserInfo", kAuthnUserInfoFields};
constexpr FieldSpec kAuthnSelfSubjectReviewStatusFields[] = {
    {1, "userInfo", "UserInfo", kMessage, kOmitEmpty, 0, &kAuthnUserInfo},
};
constexpr MessageSpec kAuthnSelfSubjectReviewStatus{"SelfSubjectReviewStatus",
                                                    kAuthnSelfSubjectReviewStatusFields};
constexpr FieldSpec kAuthnSelfSubjectReviewFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "status", "Status", kMessage, kAlways, 0, &kAuthnSelfSubjectReviewStatus},
};
constexpr MessageSpec kAuthnSelfSubjectReview{"SelfSubjectReview", kAuthnSelfSubjectReviewFields};

// core.v1.ConfigMap
constexpr FieldSpec kCoreConfigMapFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "data", "Data", kStringMap, kOmitEmpty},
    {3, "binaryData", "BinaryData", kBytesMap, kOmitEmpty},
    {4, "immutable", "Immutable", kBool, kOnWire},
};
constexpr MessageSpec kCoreConfigMap{"ConfigMap", kCoreConfigMapFields};

// core.v1.ScopedResourceSelectorRequirement
constexpr FieldSpec kCoreScopedResourceSelectorRequirementFields[] = {
    {1, "scopeName", "ScopeName", kString, kAlways},
    {2, "operator", "Operator", kString, kAlways},
    {3, "values", "Values", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreScopedResourceSelectorRequirement{
    "ScopedResourceSelectorRequirement", kCoreScopedResourceSelectorRequirementFields};

// core.v1.ScopeSelector
constexpr FieldSpec kCoreScopeSelectorFields[] = {
    {1, "matchExpressions", "MatchExpressions", kMessage, kOmitEmpty, kRepeated,
     &kCoreScopedResourceSelectorRequirement},
};
constexpr MessageSpec kCoreScopeSelector{"ScopeSelector", kCoreScopeSelectorFields};

// core.v1.ResourceQuotaSpec
constexpr FieldSpec kCoreResourceQuotaSpecFields[] = {
    {1, "hard", "Hard", kQuantityMap, kOmitEmpty},
    {2, "scopes", "Scopes", kString, kOmitEmpty, kRepeated},
    {3, "scopeSelector", "ScopeSelector", kMessage, kOnWire, 0, &kCoreScopeSelector},
};
constexpr MessageSpec kCoreResourceQuotaSpec{"ResourceQuotaSpec", kCoreResourceQuotaSpecFields};

// core.v1.ResourceQuotaStatus
constexpr FieldSpec kCoreResourceQuotaStatusFields[] = {
    {1, "hard", "Hard", kQuantityMap, kOmitEmpty},
    {2, "used", "Used", kQuantityMap, kOmitEmpty},
};
constexpr MessageSpec kCoreResourceQuotaStatus{"ResourceQuotaStatus",
                                               kCoreResourceQuotaStatusFields};

// core.v1.ResourceQuota
constexpr FieldSpec kCoreResourceQuotaFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCoreResourceQuotaSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCoreResourceQuotaStatus},
};
constexpr MessageSpec kCoreResourceQuota{"ResourceQuota", kCoreResourceQuotaFields};

// core.v1.LimitRangeItem
constexpr FieldSpec kCoreLimitRangeItemFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "max", "Max", kQuantityMap, kOmitEmpty},
    {3, "min", "Min", kQuantityMap, kOmitEmpty},
    {4, "default", "Default", kQuantityMap, kOmitEmpty},
    {5, "defaultRequest", "DefaultRequest", kQuantityMap, kOmitEmpty},
    {6, "maxLimitRequestRatio", "MaxLimitRequestRatio", kQuantityMap, kOmitEmpty},
};
constexpr MessageSpec kCoreLimitRangeItem{"LimitRangeItem", kCoreLimitRangeItemFields};

// core.v1.LimitRangeSpec
constexpr FieldSpec kCoreLimitRangeSpecFields[] = {
    {1, "limits", "Limits", kMessage, kOmitEmpty, kRepeated, &kCoreLimitRangeItem},
};
constexpr MessageSpec kCoreLimitRangeSpec{"LimitRangeSpec", kCoreLimitRangeSpecFields};

// core.v1.LimitRange
constexpr FieldSpec kCoreLimitRangeFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCoreLimitRangeSpec},
};
constexpr MessageSpec kCoreLimitRange{"LimitRange", kCoreLimitRangeFields};

// core.v1.Secret
constexpr FieldSpec kCoreSecretFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "data", "Data", kBytesMap, kOmitEmpty},
    {3, "type", "Type", kString, kOmitEmpty},
    {4, "stringData", "StringData", kStringMap, kOmitEmpty},
    {5, "immutable", "Immutable", kBool, kOnWire},
};
constexpr MessageSpec kCoreSecret{"Secret", kCoreSecretFields};

// core.v1.NamespaceSpec
constexpr FieldSpec kCoreNamespaceSpecFields[] = {
    {1, "finalizers", "Finalizers", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreNamespaceSpec{"NamespaceSpec", kCoreNamespaceSpecFields};

// core.v1.NamespaceCondition
constexpr FieldSpec kCoreNamespaceConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {4, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {5, "reason", "Reason", kString, kOmitEmpty},
    {6, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreNamespaceCondition{"NamespaceCondition", kCoreNamespaceConditionFields};

// core.v1.NamespaceStatus
constexpr FieldSpec kCoreNamespaceStatusFields[] = {
    {1, "phase", "Phase", kString, kOmitEmpty},
    {2, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kCoreNamespaceCondition},
};
constexpr MessageSpec kCoreNamespaceStatus{"NamespaceStatus", kCoreNamespaceStatusFields};

// core.v1.Namespace
constexpr FieldSpec kCoreNamespaceFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCoreNamespaceSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCoreNamespaceStatus},
};
constexpr MessageSpec kCoreNamespace{"Namespace", kCoreNamespaceFields};

// core.v1.ServiceAccount
constexpr FieldSpec kCoreServiceAccountFields[] = {
    {1, "metadata", "Metadata", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "secrets", "Secrets", kMessage, kOmitEmpty, kRepeated, &kCoreObjectReference},
    {3, "imagePullSecrets", "ImagePullSecrets", kMessage, kOmitEmpty, kRepeated,
     &kCoreLocalObjectReference},
    {4, "automountServiceAccountToken", "AutomountServiceAccountToken", kBool, kOnWire},
};
constexpr MessageSpec kCoreServiceAccount{"ServiceAccount", kCoreServiceAccountFields};

// core.v1.Taint
constexpr FieldSpec kCoreTaintFields[] = {
    {1, "key", "Key", kString, kAlways},
    {2, "value", "Value", kString, kOmitEmpty},
    {3, "effect", "Effect", kString, kAlways},
    {4, "timeAdded", "TimeAdded", kTime, kOnWire},
};
constexpr MessageSpec kCoreTaint{"Taint", kCoreTaintFields};

// core.v1.ConfigMapNodeConfigSource
constexpr FieldSpec kCoreConfigMapNodeConfigSourceFields[] = {
    {1, "namespace", "Namespace", kString, kAlways},
    {2, "name", "Name", kString, kAlways},
    {3, "uid", "UID", kString, kOmitEmpty},
    {4, "resourceVersion", "ResourceVersion", kString, kOmitEmpty},
    {5, "kubeletConfigKey", "KubeletConfigKey", kString, kAlways},
};
constexpr MessageSpec kCoreConfigMapNodeConfigSource{"ConfigMapNodeConfigSource",
                                                     kCoreConfigMapNodeConfigSourceFields};

// core.v1.NodeConfigSource
constexpr FieldSpec kCoreNodeConfigSourceFields[] = {
    {2, "configMap", "ConfigMap", kMessage, kOnWire, 0, &kCoreConfigMapNodeConfigSource},
};
constexpr MessageSpec kCoreNodeConfigSource{"NodeConfigSource", kCoreNodeConfigSourceFields};

// core.v1.NodeSpec
constexpr FieldSpec kCoreNodeSpecFields[] = {
    {1, "podCIDR", "PodCIDR", kString, kOmitEmpty},
    {2, "externalID", "DoNotUseExternalID", kString, kOmitEmpty},
    {3, "providerID", "ProviderID", kString, kOmitEmpty},
    {4, "unschedulable", "Unschedulable", kBool, kOmitEmpty},
    {5, "taints", "Taints", kMessage, kOmitEmpty, kRepeated, &kCoreTaint},
    {6, "configSource", "ConfigSource", kMessage, kOnWire, 0, &kCoreNodeConfigSource},
    {7, "podCIDRs", "PodCIDRs", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreNodeSpec{"NodeSpec", kCoreNodeSpecFields};

// core.v1.NodeCondition
constexpr FieldSpec kCoreNodeConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastHeartbeatTime", "LastHeartbeatTime", kTime, kAlways},
    {4, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {5, "reason", "Reason", kString, kOmitEmpty},
    {6, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreNodeCondition{"NodeCondition", kCoreNodeConditionFields};

// core.v1.NodeAddress
constexpr FieldSpec kCoreNodeAddressFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "address", "Address", kString, kAlways},
};
constexpr MessageSpec kCoreNodeAddress{"NodeAddress", kCoreNodeAddressFields};

// core.v1.DaemonEndpoint: the JSON name is "Port", capitalised.
constexpr FieldSpec kCoreDaemonEndpointFields[] = {
    {1, "Port", "Port", kInt32, kAlways},
};
constexpr MessageSpec kCoreDaemonEndpoint{"DaemonEndpoint", kCoreDaemonEndpointFields};

// core.v1.NodeDaemonEndpoints
constexpr FieldSpec kCoreNodeDaemonEndpointsFields[] = {
    {1, "kubeletEndpoint", "KubeletEndpoint", kMessage, kAlways, 0, &kCoreDaemonEndpoint},
};
constexpr MessageSpec kCoreNodeDaemonEndpoints{"NodeDaemonEndpoints",
                                               kCoreNodeDaemonEndpointsFields};

// core.v1.NodeSystemInfo
constexpr FieldSpec kCoreNodeSystemInfoFields[] = {
    {1, "machineID", "MachineID", kString, kAlways},
    {2, "systemUUID", "SystemUUID", kString, kAlways},
    {3, "bootID", "BootID", kString, kAlways},
    {4, "kernelVersion", "KernelVersion", kString, kAlways},
    {5, "osImage", "OSImage", kString, kAlways},
    {6, "containerRuntimeVersion", "ContainerRuntimeVersion", kString, kAlways},
    {7, "kubeletVersion", "KubeletVersion", kString, kAlways},
    {8, "kubeProxyVersion", "KubeProxyVersion", kString, kAlways},
    {9, "operatingSystem", "OperatingSystem", kString, kAlways},
    {10, "architecture", "Architecture", kString, kAlways},
};
constexpr MessageSpec kCoreNodeSystemInfo{"NodeSystemInfo", kCoreNodeSystemInfoFields};

// core.v1.ContainerImage
constexpr FieldSpec kCoreContainerImageFields[] = {
    {1, "names", "Names", kString, kOmitEmpty, kRepeated},
    {2, "sizeBytes", "SizeBytes", kInt64, kOmitEmpty},
};
constexpr MessageSpec kCoreContainerImage{"ContainerImage", kCoreContainerImageFields};

// core.v1.AttachedVolume
constexpr FieldSpec kCoreAttachedVolumeFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "devicePath", "DevicePath", kString, kAlways},
};
constexpr MessageSpec kCoreAttachedVolume{"AttachedVolume", kCoreAttachedVolumeFields};

// core.v1.NodeConfigStatus
constexpr FieldSpec kCoreNodeConfigStatusFields[] = {
    {1, "assigned", "Assigned", kMessage, kOnWire, 0, &kCoreNodeConfigSource},
    {2, "active", "Active", kMessage, kOnWire, 0, &kCoreNodeConfigSource},
    {3, "lastKnownGood", "LastKnownGood", kMessage, kOnWire, 0, &kCoreNodeConfigSource},
    {4, "error", "Error", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreNodeConfigStatus{"NodeConfigStatus", kCoreNodeConfigStatusFields};

// core.v1.NodeRuntimeHandlerFeatures
constexpr FieldSpec kCoreNodeRuntimeHandlerFeaturesFields[] = {
    {1, "recursiveReadOnlyMounts", "RecursiveReadOnlyMounts", kBool, kOnWire},
    {2, "userNamespaces", "UserNamespaces", kBool, kOnWire},
};
constexpr MessageSpec kCoreNodeRuntimeHandlerFeatures{"NodeRuntimeHandlerFeatures",
                                                      kCoreNodeRuntimeHandlerFeaturesFields};

// core.v1.NodeRuntimeHandler
constexpr FieldSpec kCoreNodeRuntimeHandlerFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "features", "Features", kMessage, kOnWire, 0, &kCoreNodeRuntimeHandlerFeatures},
};
constexpr MessageSpec kCoreNodeRuntimeHandler{"NodeRuntimeHandler", kCoreNodeRuntimeHandlerFields};

// core.v1.NodeFeatures
constexpr FieldSpec kCoreNodeFeaturesFields[] = {
    {1, "supplementalGroupsPolicy", "SupplementalGroupsPolicy", kBool, kOnWire},
};
constexpr MessageSpec kCoreNodeFeatures{"NodeFeatures", kCoreNodeFeaturesFields};

// core.v1.NodeStatus
constexpr FieldSpec kCoreNodeStatusFields[] = {
    {1, "capacity", "Capacity", kQuantityMap, kOmitEmpty},
    {2, "allocatable", "Allocatable", kQuantityMap, kOmitEmpty},
    {3, "phase", "Phase", kString, kOmitEmpty},
    {4, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kCoreNodeCondition},
    {5, "addresses", "Addresses", kMessage, kOmitEmpty, kRepeated, &kCoreNodeAddress},
    {6, "daemonEndpoints", "DaemonEndpoints", kMessage, kAlways, 0, &kCoreNodeDaemonEndpoints},
    {7, "nodeInfo", "NodeInfo", kMessage, kAlways, 0, &kCoreNodeSystemInfo},
    {8, "images", "Images", kMessage, kOmitEmpty, kRepeated, &kCoreContainerImage},
    {9, "volumesInUse", "VolumesInUse", kString, kOmitEmpty, kRepeated},
    {10, "volumesAttached", "VolumesAttached", kMessage, kOmitEmpty, kRepeated,
     &kCoreAttachedVolume},
    {11, "config", "Config", kMessage, kOnWire, 0, &kCoreNodeConfigStatus},
    {12, "runtimeHandlers", "RuntimeHandlers", kMessage, kOmitEmpty, kRepeated,
     &kCoreNodeRuntimeHandler},
    {13, "features", "Features", kMessage, kOnWire, 0, &kCoreNodeFeatures},
};
constexpr MessageSpec kCoreNodeStatus{"NodeStatus", kCoreNodeStatusFields};

// core.v1.Node
constexpr FieldSpec kCoreNodeFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCoreNodeSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCoreNodeStatus},
};
constexpr MessageSpec kCoreNode{"Node", kCoreNodeFields};

// core.v1.EventSource
constexpr FieldSpec kCoreEventSourceFields[] = {
    {1, "component", "Component", kString, kOmitEmpty},
    {2, "host", "Host", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreEventSource{"EventSource", kCoreEventSourceFields};

// core.v1.EventSeries
constexpr FieldSpec kCoreEventSeriesFields[] = {
    {1, "count", "Count", kInt32, kOmitEmpty},
    {2, "lastObservedTime", "LastObservedTime", kMicroTime, kAlways},
};
constexpr MessageSpec kCoreEventSeries{"EventSeries", kCoreEventSeriesFields};

// core.v1.Event: the JSON name of ReportingController is "reportingComponent".
constexpr FieldSpec kCoreEventFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "involvedObject", "InvolvedObject", kMessage, kAlways, 0, &kCoreObjectReference},
    {3, "reason", "Reason", kString, kOmitEmpty},
    {4, "message", "Message", kString, kOmitEmpty},
    {5, "source", "Source", kMessage, kAlways, 0, &kCoreEventSource},
    {6, "firstTimestamp", "FirstTimestamp", kTime, kAlways},
    {7, "lastTimestamp", "LastTimestamp", kTime, kAlways},
    {8, "count", "Count", kInt32, kOmitEmpty},
    {9, "type", "Type", kString, kOmitEmpty},
    {10, "eventTime", "EventTime", kMicroTime, kAlways},
    {11, "series", "Series", kMessage, kOnWire, 0, &kCoreEventSeries},
    {12, "action", "Action", kString, kOmitEmpty},
    {13, "related", "Related", kMessage, kOnWire, 0, &kCoreObjectReference},
    {14, "reportingComponent", "ReportingController", kString, kAlways},
    {15, "reportingInstance", "ReportingInstance", kString, kAlways},
};
constexpr MessageSpec kCoreEvent{"Event", kCoreEventFields};

// events.v1.EventSeries: unlike core's, count has no omitempty.
constexpr FieldSpec kEventsEventSeriesFields[] = {
    {1, "count", "Count", kInt32, kAlways},
    {2, "lastObservedTime", "LastObservedTime", kMicroTime, kAlways},
};
constexpr MessageSpec kEventsEventSeries{"EventSeries", kEventsEventSeriesFields};

// events.v1.Event
constexpr FieldSpec kEventsEventFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "eventTime", "EventTime", kMicroTime, kAlways},
    {3, "series", "Series", kMessage, kOnWire, 0, &kEventsEventSeries},
    {4, "reportingController", "ReportingController", kString, kOmitEmpty},
    {5, "reportingInstance", "ReportingInstance", kString, kOmitEmpty},
    {6, "action", "Action", kString, kOmitEmpty},
    {7, "reason", "Reason", kString, kOmitEmpty},
    {8, "regarding", "Regarding", kMessage, kAlways, 0, &kCoreObjectReference},
    {9, "related", "Related", kMessage, kOnWire, 0, &kCoreObjectReference},
    {10, "note", "Note", kString, kOmitEmpty},
    {11, "type", "Type", kString, kOmitEmpty},
    {12, "deprecatedSource", "DeprecatedSource", kMessage, kAlways, 0, &kCoreEventSource},
    {13, "deprecatedFirstTimestamp", "DeprecatedFirstTimestamp", kTime, kAlways},
    {14, "deprecatedLastTimestamp", "DeprecatedLastTimestamp", kTime, kAlways},
    {15, "deprecatedCount", "DeprecatedCount", kInt32, kOmitEmpty},
};
constexpr MessageSpec kEventsEvent{"Event", kEventsEventFields};

// apis.meta.v1.Preconditions
constexpr FieldSpec kMetaPreconditionsFields[] = {
    {1, "uid", "UID", kString, kOnWire},
    {2, "resourceVersion", "ResourceVersion", kString, kOnWire},
};
constexpr MessageSpec kMetaPreconditions{"Preconditions", kMetaPreconditionsFields};

// apis.meta.v1.DeleteOptions
constexpr FieldSpec kMetaDeleteOptionsFields[] = {
    {1, "gracePeriodSeconds", "GracePeriodSeconds", kInt64, kOnWire},
    {2, "preconditions", "Preconditions", kMessage, kOnWire, 0, &kMetaPreconditions},
    {3, "orphanDependents", "OrphanDependents", kBool, kOnWire},
    {4, "propagationPolicy", "PropagationPolicy", kString, kOnWire},
    {5, "dryRun", "DryRun", kString, kOmitEmpty, kRepeated},
    {6, "ignoreStoreReadErrorWithClusterBreakingPotential",
     "IgnoreStoreReadErrorWithClusterBreakingPotential", kBool, kOnWire},
};
constexpr MessageSpec kMetaDeleteOptions{"DeleteOptions", kMetaDeleteOptionsFields};

// policy.v1.Eviction
constexpr FieldSpec kPolicyEvictionFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "deleteOptions", "DeleteOptions", kMessage, kOnWire, 0, &kMetaDeleteOptions},
};
constexpr MessageSpec kPolicyEviction{"Eviction", kPolicyEvictionFields};

// authentication.v1.TokenRequest (serviceaccounts/<name>/token)
constexpr FieldSpec kAuthnBoundObjectReferenceFields[] = {
    {1, "kind", "Kind", kString, kOmitEmpty},
    {2, "apiVersion", "APIVersion", kString, kOmitEmpty},
    {3, "name", "Name", kString, kOmitEmpty},
    {4, "uid", "UID", kString, kOmitEmpty},
};
constexpr MessageSpec kAuthnBoundObjectReference{"BoundObjectReference",
                                                 kAuthnBoundObjectReferenceFields};
constexpr FieldSpec kAuthnTokenRequestSpecFields[] = {
    {1, "audiences", "Audiences", kString, kOmitEmpty, kRepeated},
    {4, "expirationSeconds", "ExpirationSeconds", kInt64, kOnWire},
    {3, "boundObjectRef", "BoundObjectRef", kMessage, kOnWire, 0, &kAuthnBoundObjectReference},
};
constexpr MessageSpec kAuthnTokenRequestSpec{"TokenRequestSpec", kAuthnTokenRequestSpecFields};
constexpr FieldSpec kAuthnTokenRequestStatusFields[] = {
    {1, "token", "Token", kString, kAlways},
    {2, "expirationTimestamp", "ExpirationTimestamp", kTime, kAlways},
};
constexpr MessageSpec kAuthnTokenRequestStatus{"TokenRequestStatus",
                                               kAuthnTokenRequestStatusFields};
constexpr FieldSpec kAuthnTokenRequestFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kAuthnTokenRequestSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kAuthnTokenRequestStatus},
};
constexpr MessageSpec kAuthnTokenRequest{"TokenRequest", kAuthnTokenRequestFields};

// core.v1.Binding
constexpr FieldSpec kCoreBindingFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "target", "Target", kMessage, kAlways, 0, &kCoreObjectReference},
};
constexpr MessageSpec kCoreBinding{"Binding", kCoreBindingFields};

// coordination.v1.LeaseSpec: every field a pointer.
constexpr FieldSpec kCoordinationLeaseSpecFields[] = {
    {1, "holderIdentity", "HolderIdentity", kString, kOnWire},
    {2, "leaseDurationSeconds", "LeaseDurationSeconds", kInt32, kOnWire},
    {3, "acquireTime", "AcquireTime", kMicroTime, kOnWire},
    {4, "renewTime", "RenewTime", kMicroTime, kOnWire},
    {5, "leaseTransitions", "LeaseTransitions", kInt32, kOnWire},
    {6, "strategy", "Strategy", kString, kOnWire},
    {7, "preferredHolder", "PreferredHolder", kString, kOnWire},
};
constexpr MessageSpec kCoordinationLeaseSpec{"LeaseSpec", kCoordinationLeaseSpecFields};

// coordination.v1.Lease
constexpr FieldSpec kCoordinationLeaseFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCoordinationLeaseSpec},
};
constexpr MessageSpec kCoordinationLease{"Lease", kCoordinationLeaseFields};

// core.v1.SecretReference
constexpr FieldSpec kCoreSecretReferenceFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "namespace", "Namespace", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreSecretReference{"SecretReference", kCoreSecretReferenceFields};

// core.v1.GlusterfsPersistentVolumeSource
constexpr FieldSpec kCoreGlusterfsPersistentVolumeSourceFields[] = {
    {1, "endpoints", "EndpointsName", kString, kAlways},
    {2, "path", "Path", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {4, "endpointsNamespace", "EndpointsNamespace", kString, kOnWire},
};
constexpr MessageSpec kCoreGlusterfsPersistentVolumeSource{
    "GlusterfsPersistentVolumeSource", kCoreGlusterfsPersistentVolumeSourceFields};

// core.v1.RBDPersistentVolumeSource
constexpr FieldSpec kCoreRBDPersistentVolumeSourceFields[] = {
    {1, "monitors", "CephMonitors", kString, kOmitEmpty, kRepeated},
    {2, "image", "RBDImage", kString, kAlways},
    {3, "fsType", "FSType", kString, kOmitEmpty},
    {4, "pool", "RBDPool", kString, kOmitEmpty},
    {5, "user", "RadosUser", kString, kOmitEmpty},
    {6, "keyring", "Keyring", kString, kOmitEmpty},
    {7, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
    {8, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreRBDPersistentVolumeSource{"RBDPersistentVolumeSource",
                                                     kCoreRBDPersistentVolumeSourceFields};

// core.v1.ISCSIPersistentVolumeSource
constexpr FieldSpec kCoreISCSIPersistentVolumeSourceFields[] = {
    {1, "targetPortal", "TargetPortal", kString, kAlways},
    {2, "iqn", "IQN", kString, kAlways},
    {3, "lun", "Lun", kInt32, kAlways},
    {4, "iscsiInterface", "ISCSIInterface", kString, kOmitEmpty},
    {5, "fsType", "FSType", kString, kOmitEmpty},
    {6, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {7, "portals", "Portals", kString, kOmitEmpty, kRepeated},
    {8, "chapAuthDiscovery", "DiscoveryCHAPAuth", kBool, kOmitEmpty},
    {10, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
    {11, "chapAuthSession", "SessionCHAPAuth", kBool, kOmitEmpty},
    {12, "initiatorName", "InitiatorName", kString, kOnWire},
};
constexpr MessageSpec kCoreISCSIPersistentVolumeSource{"ISCSIPersistentVolumeSource",
                                                       kCoreISCSIPersistentVolumeSourceFields};

// core.v1.CinderPersistentVolumeSource
constexpr FieldSpec kCoreCinderPersistentVolumeSourceFields[] = {
    {1, "volumeID", "VolumeID", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {4, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
};
constexpr MessageSpec kCoreCinderPersistentVolumeSource{"CinderPersistentVolumeSource",
                                                        kCoreCinderPersistentVolumeSourceFields};

// core.v1.CephFSPersistentVolumeSource
constexpr FieldSpec kCoreCephFSPersistentVolumeSourceFields[] = {
    {1, "monitors", "Monitors", kString, kOmitEmpty, kRepeated},
    {2, "path", "Path", kString, kOmitEmpty},
    {3, "user", "User", kString, kOmitEmpty},
    {4, "secretFile", "SecretFile", kString, kOmitEmpty},
    {5, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
    {6, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreCephFSPersistentVolumeSource{"CephFSPersistentVolumeSource",
                                                        kCoreCephFSPersistentVolumeSourceFields};

// core.v1.FlexPersistentVolumeSource
constexpr FieldSpec kCoreFlexPersistentVolumeSourceFields[] = {
    {1, "driver", "Driver", kString, kAlways},
    {2, "fsType", "FSType", kString, kOmitEmpty},
    {3, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
    {4, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {5, "options", "Options", kStringMap, kOmitEmpty},
};
constexpr MessageSpec kCoreFlexPersistentVolumeSource{"FlexPersistentVolumeSource",
                                                      kCoreFlexPersistentVolumeSourceFields};

// core.v1.AzureFilePersistentVolumeSource
constexpr FieldSpec kCoreAzureFilePersistentVolumeSourceFields[] = {
    {1, "secretName", "SecretName", kString, kAlways},
    {2, "shareName", "ShareName", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {4, "secretNamespace", "SecretNamespace", kString, kOnWire},
};
constexpr MessageSpec kCoreAzureFilePersistentVolumeSource{
    "AzureFilePersistentVolumeSource", kCoreAzureFilePersistentVolumeSourceFields};

// core.v1.ScaleIOPersistentVolumeSource
constexpr FieldSpec kCoreScaleIOPersistentVolumeSourceFields[] = {
    {1, "gateway", "Gateway", kString, kAlways},
    {2, "system", "System", kString, kAlways},
    {3, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
    {4, "sslEnabled", "SSLEnabled", kBool, kOmitEmpty},
    {5, "protectionDomain", "ProtectionDomain", kString, kOmitEmpty},
    {6, "storagePool", "StoragePool", kString, kOmitEmpty},
    {7, "storageMode", "StorageMode", kString, kOmitEmpty},
    {8, "volumeName", "VolumeName", kString, kOmitEmpty},
    {9, "fsType", "FSType", kString, kOmitEmpty},
    {10, "readOnly", "ReadOnly", kBool, kOmitEmpty},
};
constexpr MessageSpec kCoreScaleIOPersistentVolumeSource{"ScaleIOPersistentVolumeSource",
                                                         kCoreScaleIOPersistentVolumeSourceFields};

// core.v1.LocalVolumeSource
constexpr FieldSpec kCoreLocalVolumeSourceFields[] = {
    {1, "path", "Path", kString, kAlways},
    {2, "fsType", "FSType", kString, kOnWire},
};
constexpr MessageSpec kCoreLocalVolumeSource{"LocalVolumeSource", kCoreLocalVolumeSourceFields};

// core.v1.StorageOSPersistentVolumeSource
constexpr FieldSpec kCoreStorageOSPersistentVolumeSourceFields[] = {
    {1, "volumeName", "VolumeName", kString, kOmitEmpty},
    {2, "volumeNamespace", "VolumeNamespace", kString, kOmitEmpty},
    {3, "fsType", "FSType", kString, kOmitEmpty},
    {4, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {5, "secretRef", "SecretRef", kMessage, kOnWire, 0, &kCoreObjectReference},
};
constexpr MessageSpec kCoreStorageOSPersistentVolumeSource{
    "StorageOSPersistentVolumeSource", kCoreStorageOSPersistentVolumeSourceFields};

// core.v1.CSIPersistentVolumeSource
constexpr FieldSpec kCoreCSIPersistentVolumeSourceFields[] = {
    {1, "driver", "Driver", kString, kAlways},
    {2, "volumeHandle", "VolumeHandle", kString, kAlways},
    {3, "readOnly", "ReadOnly", kBool, kOmitEmpty},
    {4, "fsType", "FSType", kString, kOmitEmpty},
    {5, "volumeAttributes", "VolumeAttributes", kStringMap, kOmitEmpty},
    {6, "controllerPublishSecretRef", "ControllerPublishSecretRef", kMessage, kOnWire, 0,
     &kCoreSecretReference},
    {7, "nodeStageSecretRef", "NodeStageSecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
    {8, "nodePublishSecretRef", "NodePublishSecretRef", kMessage, kOnWire, 0,
     &kCoreSecretReference},
    {9, "controllerExpandSecretRef", "ControllerExpandSecretRef", kMessage, kOnWire, 0,
     &kCoreSecretReference},
    {10, "nodeExpandSecretRef", "NodeExpandSecretRef", kMessage, kOnWire, 0, &kCoreSecretReference},
};
constexpr MessageSpec kCoreCSIPersistentVolumeSource{"CSIPersistentVolumeSource",
                                                     kCoreCSIPersistentVolumeSourceFields};

// core.v1.PersistentVolumeSource: an embedded struct of PersistentVolumeSpec.
constexpr FieldSpec kCorePersistentVolumeSourceFields[] = {
    {1, "gcePersistentDisk", "GCEPersistentDisk", kMessage, kOnWire, 0,
     &kCoreGCEPersistentDiskVolumeSource},
    {2, "awsElasticBlockStore", "AWSElasticBlockStore", kMessage, kOnWire, 0,
     &kCoreAWSElasticBlockStoreVolumeSource},
    {3, "hostPath", "HostPath", kMessage, kOnWire, 0, &kCoreHostPathVolumeSource},
    {4, "glusterfs", "Glusterfs", kMessage, kOnWire, 0, &kCoreGlusterfsPersistentVolumeSource},
    {5, "nfs", "NFS", kMessage, kOnWire, 0, &kCoreNFSVolumeSource},
    {6, "rbd", "RBD", kMessage, kOnWire, 0, &kCoreRBDPersistentVolumeSource},
    {7, "iscsi", "ISCSI", kMessage, kOnWire, 0, &kCoreISCSIPersistentVolumeSource},
    {8, "cinder", "Cinder", kMessage, kOnWire, 0, &kCoreCinderPersistentVolumeSource},
    {9, "cephfs", "CephFS", kMessage, kOnWire, 0, &kCoreCephFSPersistentVolumeSource},
    {10, "fc", "FC", kMessage, kOnWire, 0, &kCoreFCVolumeSource},
    {11, "flocker", "Flocker", kMessage, kOnWire, 0, &kCoreFlockerVolumeSource},
    {12, "flexVolume", "FlexVolume", kMessage, kOnWire, 0, &kCoreFlexPersistentVolumeSource},
    {13, "azureFile", "AzureFile", kMessage, kOnWire, 0, &kCoreAzureFilePersistentVolumeSource},
    {14, "vsphereVolume", "VsphereVolume", kMessage, kOnWire, 0,
     &kCoreVsphereVirtualDiskVolumeSource},
    {15, "quobyte", "Quobyte", kMessage, kOnWire, 0, &kCoreQuobyteVolumeSource},
    {16, "azureDisk", "AzureDisk", kMessage, kOnWire, 0, &kCoreAzureDiskVolumeSource},
    {17, "photonPersistentDisk", "PhotonPersistentDisk", kMessage, kOnWire, 0,
     &kCorePhotonPersistentDiskVolumeSource},
    {18, "portworxVolume", "PortworxVolume", kMessage, kOnWire, 0, &kCorePortworxVolumeSource},
    {19, "scaleIO", "ScaleIO", kMessage, kOnWire, 0, &kCoreScaleIOPersistentVolumeSource},
    {20, "local", "Local", kMessage, kOnWire, 0, &kCoreLocalVolumeSource},
    {21, "storageos", "StorageOS", kMessage, kOnWire, 0, &kCoreStorageOSPersistentVolumeSource},
    {22, "csi", "CSI", kMessage, kOnWire, 0, &kCoreCSIPersistentVolumeSource},
};
constexpr MessageSpec kCorePersistentVolumeSource{"PersistentVolumeSource",
                                                  kCorePersistentVolumeSourceFields};

// core.v1.VolumeNodeAffinity
constexpr FieldSpec kCoreVolumeNodeAffinityFields[] = {
    {1, "required", "Required", kMessage, kOnWire, 0, &kCoreNodeSelector},
};
constexpr MessageSpec kCoreVolumeNodeAffinity{"VolumeNodeAffinity", kCoreVolumeNodeAffinityFields};

// core.v1.PersistentVolumeSpec
constexpr FieldSpec kCorePersistentVolumeSpecFields[] = {
    {1, "capacity", "Capacity", kQuantityMap, kOmitEmpty},
    {2, "", "PersistentVolumeSource", kMessage, kAlways, kInline, &kCorePersistentVolumeSource},
    {3, "accessModes", "AccessModes", kString, kOmitEmpty, kRepeated},
    {4, "claimRef", "ClaimRef", kMessage, kOnWire, 0, &kCoreObjectReference},
    {5, "persistentVolumeReclaimPolicy", "PersistentVolumeReclaimPolicy", kString, kOmitEmpty},
    {6, "storageClassName", "StorageClassName", kString, kOmitEmpty},
    {7, "mountOptions", "MountOptions", kString, kOmitEmpty, kRepeated},
    {8, "volumeMode", "VolumeMode", kString, kOnWire},
    {9, "nodeAffinity", "NodeAffinity", kMessage, kOnWire, 0, &kCoreVolumeNodeAffinity},
    {10, "volumeAttributesClassName", "VolumeAttributesClassName", kString, kOnWire},
};
constexpr MessageSpec kCorePersistentVolumeSpec{"PersistentVolumeSpec",
                                                kCorePersistentVolumeSpecFields};

// core.v1.PersistentVolumeStatus
constexpr FieldSpec kCorePersistentVolumeStatusFields[] = {
    {1, "phase", "Phase", kString, kOmitEmpty},
    {2, "message", "Message", kString, kOmitEmpty},
    {3, "reason", "Reason", kString, kOmitEmpty},
    {4, "lastPhaseTransitionTime", "LastPhaseTransitionTime", kTime, kOnWire},
};
constexpr MessageSpec kCorePersistentVolumeStatus{"PersistentVolumeStatus",
                                                  kCorePersistentVolumeStatusFields};

// core.v1.PersistentVolume
constexpr FieldSpec kCorePersistentVolumeFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCorePersistentVolumeSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCorePersistentVolumeStatus},
};
constexpr MessageSpec kCorePersistentVolume{"PersistentVolume", kCorePersistentVolumeFields};

// core.v1.ReplicationControllerSpec
constexpr FieldSpec kCoreReplicationControllerSpecFields[] = {
    {1, "replicas", "Replicas", kInt32, kOnWire},
    {2, "selector", "Selector", kStringMap, kOmitEmpty},
    {3, "template", "Template", kMessage, kOnWire, 0, &kCorePodTemplateSpec},
    {4, "minReadySeconds", "MinReadySeconds", kInt32, kOmitEmpty},
};
constexpr MessageSpec kCoreReplicationControllerSpec{"ReplicationControllerSpec",
                                                     kCoreReplicationControllerSpecFields};

// core.v1.ReplicationControllerCondition
constexpr FieldSpec kCoreReplicationControllerConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "status", "Status", kString, kAlways},
    {3, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "message", "Message", kString, kOmitEmpty},
};
constexpr MessageSpec kCoreReplicationControllerCondition{
    "ReplicationControllerCondition", kCoreReplicationControllerConditionFields};

// core.v1.ReplicationControllerStatus
constexpr FieldSpec kCoreReplicationControllerStatusFields[] = {
    {1, "replicas", "Replicas", kInt32, kAlways},
    {2, "fullyLabeledReplicas", "FullyLabeledReplicas", kInt32, kOmitEmpty},
    {3, "observedGeneration", "ObservedGeneration", kInt64, kOmitEmpty},
    {4, "readyReplicas", "ReadyReplicas", kInt32, kOmitEmpty},
    {5, "availableReplicas", "AvailableReplicas", kInt32, kOmitEmpty},
    {6, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated,
     &kCoreReplicationControllerCondition},
};
constexpr MessageSpec kCoreReplicationControllerStatus{"ReplicationControllerStatus",
                                                       kCoreReplicationControllerStatusFields};

// core.v1.ReplicationController
constexpr FieldSpec kCoreReplicationControllerFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCoreReplicationControllerSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCoreReplicationControllerStatus},
};
constexpr MessageSpec kCoreReplicationController{"ReplicationController",
                                                 kCoreReplicationControllerFields};

// core.v1.PodTemplate
constexpr FieldSpec kCorePodTemplateFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "template", "Template", kMessage, kAlways, 0, &kCorePodTemplateSpec},
};
constexpr MessageSpec kCorePodTemplate{"PodTemplate", kCorePodTemplateFields};

// core.v1.EndpointAddress
constexpr FieldSpec kCoreEndpointAddressFields[] = {
    {1, "ip", "IP", kString, kAlways},
    {2, "targetRef", "TargetRef", kMessage, kOnWire, 0, &kCoreObjectReference},
    {3, "hostname", "Hostname", kString, kOmitEmpty},
    {4, "nodeName", "NodeName", kString, kOnWire},
};
constexpr MessageSpec kCoreEndpointAddress{"EndpointAddress", kCoreEndpointAddressFields};

// core.v1.EndpointPort
constexpr FieldSpec kCoreEndpointPortFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "port", "Port", kInt32, kAlways},
    {3, "protocol", "Protocol", kString, kOmitEmpty},
    {4, "appProtocol", "AppProtocol", kString, kOnWire},
};
constexpr MessageSpec kCoreEndpointPort{"EndpointPort", kCoreEndpointPortFields};

// core.v1.EndpointSubset
constexpr FieldSpec kCoreEndpointSubsetFields[] = {
    {1, "addresses", "Addresses", kMessage, kOmitEmpty, kRepeated, &kCoreEndpointAddress},
    {2, "notReadyAddresses", "NotReadyAddresses", kMessage, kOmitEmpty, kRepeated,
     &kCoreEndpointAddress},
    {3, "ports", "Ports", kMessage, kOmitEmpty, kRepeated, &kCoreEndpointPort},
};
constexpr MessageSpec kCoreEndpointSubset{"EndpointSubset", kCoreEndpointSubsetFields};

// core.v1.Endpoints
constexpr FieldSpec kCoreEndpointsFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "subsets", "Subsets", kMessage, kOmitEmpty, kRepeated, &kCoreEndpointSubset},
};
constexpr MessageSpec kCoreEndpoints{"Endpoints", kCoreEndpointsFields};

// core.v1.TopologySelectorLabelRequirement
constexpr FieldSpec kCoreTopologySelectorLabelRequirementFields[] = {
    {1, "key", "Key", kString, kAlways},
    {2, "values", "Values", kString, kOmitEmpty, kRepeated},
};
constexpr MessageSpec kCoreTopologySelectorLabelRequirement{
    "TopologySelectorLabelRequirement", kCoreTopologySelectorLabelRequirementFields};

// core.v1.TopologySelectorTerm
constexpr FieldSpec kCoreTopologySelectorTermFields[] = {
    {1, "matchLabelExpressions", "MatchLabelExpressions", kMessage, kOmitEmpty, kRepeated,
     &kCoreTopologySelectorLabelRequirement},
};
constexpr MessageSpec kCoreTopologySelectorTerm{"TopologySelectorTerm",
                                                kCoreTopologySelectorTermFields};

// storage.v1.StorageClass
constexpr FieldSpec kStorageStorageClassFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "provisioner", "Provisioner", kString, kAlways},
    {3, "parameters", "Parameters", kStringMap, kOmitEmpty},
    {4, "reclaimPolicy", "ReclaimPolicy", kString, kOnWire},
    {5, "mountOptions", "MountOptions", kString, kOmitEmpty, kRepeated},
    {6, "allowVolumeExpansion", "AllowVolumeExpansion", kBool, kOnWire},
    {7, "volumeBindingMode", "VolumeBindingMode", kString, kOnWire},
    {8, "allowedTopologies", "AllowedTopologies", kMessage, kOmitEmpty, kRepeated,
     &kCoreTopologySelectorTerm},
};
constexpr MessageSpec kStorageStorageClass{"StorageClass", kStorageStorageClassFields};

// storage.v1.VolumeNodeResources
constexpr FieldSpec kStorageVolumeNodeResourcesFields[] = {
    {1, "count", "Count", kInt32, kOnWire},
};
constexpr MessageSpec kStorageVolumeNodeResources{"VolumeNodeResources",
                                                  kStorageVolumeNodeResourcesFields};

// storage.v1.CSINodeDriver
constexpr FieldSpec kStorageCSINodeDriverFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "nodeID", "NodeID", kString, kAlways},
    {3, "topologyKeys", "TopologyKeys", kString, kOmitEmpty, kRepeated},
    {4, "allocatable", "Allocatable", kMessage, kOnWire, 0, &kStorageVolumeNodeResources},
};
constexpr MessageSpec kStorageCSINodeDriver{"CSINodeDriver", kStorageCSINodeDriverFields};

// storage.v1.CSINodeSpec
constexpr FieldSpec kStorageCSINodeSpecFields[] = {
    {1, "drivers", "Drivers", kMessage, kOmitEmpty, kRepeated, &kStorageCSINodeDriver},
};
constexpr MessageSpec kStorageCSINodeSpec{"CSINodeSpec", kStorageCSINodeSpecFields};

// storage.v1.CSINode
constexpr FieldSpec kStorageCSINodeFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kStorageCSINodeSpec},
};
constexpr MessageSpec kStorageCSINode{"CSINode", kStorageCSINodeFields};

// storage.v1.TokenRequest
constexpr FieldSpec kStorageTokenRequestFields[] = {
    {1, "audience", "Audience", kString, kAlways},
    {2, "expirationSeconds", "ExpirationSeconds", kInt64, kOnWire},
};
constexpr MessageSpec kStorageTokenRequest{"TokenRequest", kStorageTokenRequestFields};

// storage.v1.CSIDriverSpec: every scalar a pointer.
constexpr FieldSpec kStorageCSIDriverSpecFields[] = {
    {1, "attachRequired", "AttachRequired", kBool, kOnWire},
    {2, "podInfoOnMount", "PodInfoOnMount", kBool, kOnWire},
    {3, "volumeLifecycleModes", "VolumeLifecycleModes", kString, kOmitEmpty, kRepeated},
    {4, "storageCapacity", "StorageCapacity", kBool, kOnWire},
    {5, "fsGroupPolicy", "FSGroupPolicy", kString, kOnWire},
    {6, "tokenRequests", "TokenRequests", kMessage, kOmitEmpty, kRepeated, &kStorageTokenRequest},
    {7, "requiresRepublish", "RequiresRepublish", kBool, kOnWire},
    {8, "seLinuxMount", "SELinuxMount", kBool, kOnWire},
};
constexpr MessageSpec kStorageCSIDriverSpec{"CSIDriverSpec", kStorageCSIDriverSpecFields};

// storage.v1.CSIDriver
constexpr FieldSpec kStorageCSIDriverFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kStorageCSIDriverSpec},
};
constexpr MessageSpec kStorageCSIDriver{"CSIDriver", kStorageCSIDriverFields};

// storage.v1.CSIStorageCapacity
constexpr FieldSpec kStorageCSIStorageCapacityFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "nodeTopology", "NodeTopology", kMessage, kOnWire, 0, &kMetaLabelSelector},
    {3, "storageClassName", "StorageClassName", kString, kAlways},
    {4, "capacity", "Capacity", kQuantity, kOnWire},
    {5, "maximumVolumeSize", "MaximumVolumeSize", kQuantity, kOnWire},
};
constexpr MessageSpec kStorageCSIStorageCapacity{"CSIStorageCapacity",
                                                 kStorageCSIStorageCapacityFields};

// apis.meta.v1.ListMeta
constexpr FieldSpec kMetaListMetaFields[] = {
    {1, "selfLink", "SelfLink", kString, kOmitEmpty},
    {2, "resourceVersion", "ResourceVersion", kString, kOmitEmpty},
    {3, "continue", "Continue", kString, kOmitEmpty},
    {4, "remainingItemCount", "RemainingItemCount", kInt64, kOnWire},
};
constexpr MessageSpec kMetaListMeta{"ListMeta", kMetaListMetaFields};

// apis.meta.v1.StatusCause
constexpr FieldSpec kMetaStatusCauseFields[] = {
    {1, "reason", "Type", kString, kOmitEmpty},
    {2, "message", "Message", kString, kOmitEmpty},
    {3, "field", "Field", kString, kOmitEmpty},
};
constexpr MessageSpec kMetaStatusCause{"StatusCause", kMetaStatusCauseFields};

// apis.meta.v1.StatusDetails
constexpr FieldSpec kMetaStatusDetailsFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "group", "Group", kString, kOmitEmpty},
    {3, "kind", "Kind", kString, kOmitEmpty},
    {4, "causes", "Causes", kMessage, kOmitEmpty, kRepeated, &kMetaStatusCause},
    {5, "retryAfterSeconds", "RetryAfterSeconds", kInt32, kOmitEmpty},
    {6, "uid", "UID", kString, kOmitEmpty},
};
constexpr MessageSpec kMetaStatusDetails{"StatusDetails", kMetaStatusDetailsFields};

// networking.v1.ServiceBackendPort
constexpr FieldSpec kNetworkingServiceBackendPortFields[] = {
    {1, "name", "Name", kString, kOmitEmpty},
    {2, "number", "Number", kInt32, kOmitEmpty},
};
constexpr MessageSpec kNetworkingServiceBackendPort{"ServiceBackendPort",
                                                    kNetworkingServiceBackendPortFields};

// networking.v1.IngressServiceBackend
constexpr FieldSpec kNetworkingIngressServiceBackendFields[] = {
    {1, "name", "Name", kString, kAlways},
    {2, "port", "Port", kMessage, kAlways, 0, &kNetworkingServiceBackendPort},
};
constexpr MessageSpec kNetworkingIngressServiceBackend{"IngressServiceBackend",
                                                       kNetworkingIngressServiceBackendFields};

// networking.v1.IngressBackend
constexpr FieldSpec kNetworkingIngressBackendFields[] = {
    {4, "service", "Service", kMessage, kOnWire, 0, &kNetworkingIngressServiceBackend},
    {3, "resource", "Resource", kMessage, kOnWire, 0, &kCoreTypedLocalObjectReference},
};
constexpr MessageSpec kNetworkingIngressBackend{"IngressBackend", kNetworkingIngressBackendFields};

// networking.v1.HTTPIngressPath
constexpr FieldSpec kNetworkingHTTPIngressPathFields[] = {
    {1, "path", "Path", kString, kOmitEmpty},
    {3, "pathType", "PathType", kString, kOnWire},
    {2, "backend", "Backend", kMessage, kAlways, 0, &kNetworkingIngressBackend},
};
constexpr MessageSpec kNetworkingHTTPIngressPath{"HTTPIngressPath",
                                                 kNetworkingHTTPIngressPathFields};

// networking.v1.HTTPIngressRuleValue
constexpr FieldSpec kNetworkingHTTPIngressRuleValueFields[] = {
    {1, "paths", "Paths", kMessage, kOmitEmpty, kRepeated, &kNetworkingHTTPIngressPath},
};
constexpr MessageSpec kNetworkingHTTPIngressRuleValue{"HTTPIngressRuleValue",
                                                      kNetworkingHTTPIngressRuleValueFields};

// networking.v1.IngressRuleValue
constexpr FieldSpec kNetworkingIngressRuleValueFields[] = {
    {1, "http", "HTTP", kMessage, kOnWire, 0, &kNetworkingHTTPIngressRuleValue},
};
constexpr MessageSpec kNetworkingIngressRuleValue{"IngressRuleValue",
                                                  kNetworkingIngressRuleValueFields};

// networking.v1.IngressRule
constexpr FieldSpec kNetworkingIngressRuleFields[] = {
    {1, "host", "Host", kString, kOmitEmpty},
    {2, "", "IngressRuleValue", kMessage, kAlways, kInline, &kNetworkingIngressRuleValue},
};
constexpr MessageSpec kNetworkingIngressRule{"IngressRule", kNetworkingIngressRuleFields};

// networking.v1.IngressTLS
constexpr FieldSpec kNetworkingIngressTLSFields[] = {
    {1, "hosts", "Hosts", kString, kOmitEmpty, kRepeated},
    {2, "secretName", "SecretName", kString, kOmitEmpty},
};
constexpr MessageSpec kNetworkingIngressTLS{"IngressTLS", kNetworkingIngressTLSFields};

// networking.v1.IngressSpec
constexpr FieldSpec kNetworkingIngressSpecFields[] = {
    {4, "ingressClassName", "IngressClassName", kString, kOnWire},
    {1, "defaultBackend", "DefaultBackend", kMessage, kOnWire, 0, &kNetworkingIngressBackend},
    {2, "tls", "TLS", kMessage, kOmitEmpty, kRepeated, &kNetworkingIngressTLS},
    {3, "rules", "Rules", kMessage, kOmitEmpty, kRepeated, &kNetworkingIngressRule},
};
constexpr MessageSpec kNetworkingIngressSpec{"IngressSpec", kNetworkingIngressSpecFields};

// networking.v1.IngressPortStatus
constexpr FieldSpec kNetworkingIngressPortStatusFields[] = {
    {1, "port", "Port", kInt32, kAlways},
    {2, "protocol", "Protocol", kString, kAlways},
    {3, "error", "Error", kString, kOnWire},
};
constexpr MessageSpec kNetworkingIngressPortStatus{"IngressPortStatus",
                                                   kNetworkingIngressPortStatusFields};

// networking.v1.IngressLoadBalancerIngress
constexpr FieldSpec kNetworkingIngressLoadBalancerIngressFields[] = {
    {1, "ip", "IP", kString, kOmitEmpty},
    {2, "hostname", "Hostname", kString, kOmitEmpty},
    {4, "ports", "Ports", kMessage, kOmitEmpty, kRepeated, &kNetworkingIngressPortStatus},
};
constexpr MessageSpec kNetworkingIngressLoadBalancerIngress{
    "IngressLoadBalancerIngress", kNetworkingIngressLoadBalancerIngressFields};

// networking.v1.IngressLoadBalancerStatus
constexpr FieldSpec kNetworkingIngressLoadBalancerStatusFields[] = {
    {1, "ingress", "Ingress", kMessage, kOmitEmpty, kRepeated,
     &kNetworkingIngressLoadBalancerIngress},
};
constexpr MessageSpec kNetworkingIngressLoadBalancerStatus{
    "IngressLoadBalancerStatus", kNetworkingIngressLoadBalancerStatusFields};

// networking.v1.IngressStatus
constexpr FieldSpec kNetworkingIngressStatusFields[] = {
    {1, "loadBalancer", "LoadBalancer", kMessage, kAlways, 0,
     &kNetworkingIngressLoadBalancerStatus},
};
constexpr MessageSpec kNetworkingIngressStatus{"IngressStatus", kNetworkingIngressStatusFields};

// networking.v1.Ingress
constexpr FieldSpec kNetworkingIngressFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kNetworkingIngressSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kNetworkingIngressStatus},
};
constexpr MessageSpec kNetworkingIngress{"Ingress", kNetworkingIngressFields};

// networking.v1.IngressClassParametersReference
constexpr FieldSpec kNetworkingIngressClassParametersReferenceFields[] = {
    {1, "apiGroup", "APIGroup", kString, kOnWire},   {2, "kind", "Kind", kString, kAlways},
    {3, "name", "Name", kString, kAlways},           {4, "scope", "Scope", kString, kOnWire},
    {5, "namespace", "Namespace", kString, kOnWire},
};
constexpr MessageSpec kNetworkingIngressClassParametersReference{
    "IngressClassParametersReference", kNetworkingIngressClassParametersReferenceFields};

// networking.v1.IngressClassSpec
constexpr FieldSpec kNetworkingIngressClassSpecFields[] = {
    {1, "controller", "Controller", kString, kOmitEmpty},
    {2, "parameters", "Parameters", kMessage, kOnWire, 0,
     &kNetworkingIngressClassParametersReference},
};
constexpr MessageSpec kNetworkingIngressClassSpec{"IngressClassSpec",
                                                  kNetworkingIngressClassSpecFields};

// networking.v1.IngressClass
constexpr FieldSpec kNetworkingIngressClassFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kNetworkingIngressClassSpec},
};
constexpr MessageSpec kNetworkingIngressClass{"IngressClass", kNetworkingIngressClassFields};

// certificates.v1.CertificateSigningRequestSpec (extra's ExtraValue is a kStringListMap value)
constexpr FieldSpec kCertificatesCsrSpecFields[] = {
    {1, "request", "Request", kBytes, kAlways},
    {2, "username", "Username", kString, kOmitEmpty},
    {3, "uid", "UID", kString, kOmitEmpty},
    {4, "groups", "Groups", kString, kOmitEmpty, kRepeated},
    {5, "usages", "Usages", kString, kOmitEmpty, kRepeated},
    {6, "extra", "Extra", kStringListMap, kOmitEmpty},
    {7, "signerName", "SignerName", kString, kAlways},
    {8, "expirationSeconds", "ExpirationSeconds", kInt32, kOnWire},
};
constexpr MessageSpec kCertificatesCsrSpec{"CertificateSigningRequestSpec",
                                           kCertificatesCsrSpecFields};

// certificates.v1.CertificateSigningRequestCondition
constexpr FieldSpec kCertificatesCsrConditionFields[] = {
    {1, "type", "Type", kString, kAlways},
    {2, "reason", "Reason", kString, kOmitEmpty},
    {3, "message", "Message", kString, kOmitEmpty},
    {4, "lastUpdateTime", "LastUpdateTime", kTime, kAlways},
    {5, "lastTransitionTime", "LastTransitionTime", kTime, kAlways},
    {6, "status", "Status", kString, kAlways},
};
constexpr MessageSpec kCertificatesCsrCondition{"CertificateSigningRequestCondition",
                                                kCertificatesCsrConditionFields};

// certificates.v1.CertificateSigningRequestStatus
constexpr FieldSpec kCertificatesCsrStatusFields[] = {
    {1, "conditions", "Conditions", kMessage, kOmitEmpty, kRepeated, &kCertificatesCsrCondition},
    {2, "certificate", "Certificate", kBytes, kOmitEmpty},
};
constexpr MessageSpec kCertificatesCsrStatus{"CertificateSigningRequestStatus",
                                             kCertificatesCsrStatusFields};

// certificates.v1.CertificateSigningRequest
constexpr FieldSpec kCertificatesCsrFields[] = {
    {1, "metadata", "ObjectMeta", kMessage, kAlways, 0, &kMetaObjectMeta},
    {2, "spec", "Spec", kMessage, kAlways, 0, &kCertificatesCsrSpec},
    {3, "status", "Status", kMessage, kAlways, 0, &kCertificatesCsrStatus},
};
constexpr MessageSpec kCertificatesCsr{"CertificateSigningRequest", kCertificatesCsrFields};

// apis.meta.v1.Status
constexpr FieldSpec kMetaStatusFields[] = {
    {1, "metadata", "ListMeta", kMessage, kAlways, 0, &kMetaListMeta},
    {2, "status", "Status", kString, kOmitEmpty},
    {3, "message", "Message", kString, kOmitEmpty},
    {4, "reason", "Reason", kString, kOmitEmpty},
    {5, "details", "Details", kMessage, kOnWire, 0, &kMetaStatusDetails},
    {6, "code", "Code", kInt32, kOmitEmpty},
};
constexpr MessageSpec kMetaStatus{"Status", kMetaStatusFields};

constexpr KindSpec kKinds[] = {
    {"v1", "ConfigMap", &kCoreConfigMap},
    {"v1", "Secret", &kCoreSecret},
    {"v1", "ResourceQuota", &kCoreResourceQuota},
    {"v1", "LimitRange", &kCoreLimitRange},
    {"v1", "Namespace", &kCoreNamespace},
    {"v1", "ServiceAccount", &kCoreServiceAccount},
    {"v1", "Pod", &kCorePod},
    {"v1", "Service", &kCoreService},
    {"v1", "Node", &kCoreNode},
    {"v1", "Event", &kCoreEvent},
    {"v1", "Binding", &kCoreBinding},
    {"v1", "PersistentVolume", &kCorePersistentVolume},
    {"v1", "PersistentVolumeClaim", &kCorePersistentVolumeClaim},
    {"v1", "ReplicationController", &kCoreReplicationController},
    {"v1", "PodTemplate", &kCorePodTemplate},
    {"v1", "Endpoints", &kCoreEndpoints},
    {"apps/v1", "Deployment", &kAppsDeployment},
    {"apps/v1", "ReplicaSet", &kAppsReplicaSet},
    {"apps/v1", "StatefulSet", &kAppsStatefulSet},
    {"apps/v1", "DaemonSet", &kAppsDaemonSet},
    {"apps/v1", "ControllerRevision", &kAppsControllerRevision},
    {"batch/v1", "Job", &kBatchJob},
    {"batch/v1", "CronJob", &kBatchCronJob},
    {"policy/v1", "PodDisruptionBudget", &kPolicyPodDisruptionBudget},
    {"policy/v1", "Eviction", &kPolicyEviction},
    {"authentication.k8s.io/v1", "TokenRequest", &kAuthnTokenRequest},
    {"coordination.k8s.io/v1", "Lease", &kCoordinationLease},
    {"networking.k8s.io/v1", "Ingress", &kNetworkingIngress},
    {"networking.k8s.io/v1", "IngressClass", &kNetworkingIngressClass},
    {"storage.k8s.io/v1", "StorageClass", &kStorageStorageClass},
    {"storage.k8s.io/v1", "CSINode", &kStorageCSINode},
    {"storage.k8s.io/v1", "CSIDriver", &kStorageCSIDriver},
    {"storage.k8s.io/v1", "CSIStorageCapacity", &kStorageCSIStorageCapacity},
    {"scheduling.k8s.io/v1", "PriorityClass", &kSchedulingPriorityClass},
    {"rbac.authorization.k8s.io/v1", "Role", &kRbacRole},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", &kRbacRoleBinding},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", &kRbacClusterRole},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &kRbacClusterRoleBinding},
    {"autoscaling/v1", "Scale", &kAutoscalingScale},
    {"autoscaling/v1", "HorizontalPodAutoscaler", &kAutoscalingV1Hpa},
    {"autoscaling/v2", "HorizontalPodAutoscaler", &kAutoscalingV2Hpa},
    {"authorization.k8s.io/v1", "SelfSubjectAccessReview", &kAuthzSelfSubjectAccessReview},
    {"authorization.k8s.io/v1", "SubjectAccessReview", &kAuthzSubjectAccessReview},
    {"authorization.k8s.io/v1", "LocalSubjectAccessReview", &kAuthzLocalSubjectAccessReview},
    {"authorization.k8s.io/v1", "SelfSubjectRulesReview", &kAuthzSelfSubjectRulesReview},
    {"authentication.k8s.io/v1", "SelfSubjectReview", &kAuthnSelfSubjectReview},
    {"events.k8s.io/v1", "Event", &kEventsEvent},
    {"certificates.k8s.io/v1", "CertificateSigningRequest", &kCertificatesCsr},
    {"*/v1", "DeleteOptions", &kMetaDeleteOptions},
    {"*/v1", "Status", &kMetaStatus},
};

// "v1" or "<group>/v1".
bool IsV1(std::string_view api_version) {
  constexpr std::string_view kSuffix = "/v1";
  return api_version == "v1" ||
         (api_version.size() > kSuffix.size() &&
          api_version.substr(api_version.size() - kSuffix.size()) == kSuffix);
}

}  // namespace

std::span<const KindSpec> Kinds() { return kKinds; }

const MessageSpec& ListMetaMessage() { return kMetaListMeta; }

const MessageSpec* FindKind(std::string_view api_version, std::string_view kind) {
  for (const KindSpec& k : kKinds) {
    if (kind != k.kind) continue;
    const std::string_view want = k.api_version;
    if (want == api_version || (want == "*/v1" && IsV1(api_version))) return k.message;
  }
  return nullptr;
}

}  // namespace tidepool::apiserver::protobuf
