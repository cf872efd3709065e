// Printers for storage.k8s.io: printers.go printStorageClass, printCSIDriver, printCSINode and
// printCSIStorageCapacity (kube-apiserver 1.32). Column descriptions are the swagger docs of
// k8s.io/api storage/v1 that printers.go names.

#include <string>
#include <vector>

#include "apiserver/printers/internal.h"
#include "apiserver/printers/resource_printers.h"

namespace tidepool::apiserver::printers::internal {
namespace {

using nlohmann::json;

// The boolean value of `j`, or `def` when absent or not a boolean (a *bool left nil).
bool BoolOr(const json* j, bool def) {
  return j != nullptr && j->is_boolean() ? j->get<bool>() : def;
}

// storageutil.IsDefaultAnnotation: the GA or the beta annotation is "true".
bool IsDefaultClass(const json& sc) {
  const json* annotations = Path(sc, "metadata", "annotations");
  return Str(Field(annotations, "storageclass.kubernetes.io/is-default-class")) == "true" ||
         Str(Field(annotations, "storageclass.beta.kubernetes.io/is-default-class")) == "true";
}

json StorageClassCells(const json& sc, TimePoint now) {
  std::string name = Name(sc);
  if (IsDefaultClass(sc)) {
    name += " (default)";
  }
  const json* policy = Field(sc, "reclaimPolicy");
  const json* mode = Field(sc, "volumeBindingMode");
  return json::array({
      name,
      Str(Field(sc, "provisioner")),
      policy != nullptr && policy->is_string() ? Str(policy) : "Delete",
      mode != nullptr && mode->is_string() ? Str(mode) : "Immediate",
      Bool(Field(sc, "allowVolumeExpansion")),
      Age(sc, now),
  });
}

json CsiDriverCells(const json& driver, TimePoint now) {
  const json* spec = Field(driver, "spec");
  std::vector<std::string> modes;
  ForEach(Field(spec, "volumeLifecycleModes"), [&](const json& m) { modes.push_back(Str(&m)); });
  // A nil list prints "<unset>"; storage keeps no empty one (it is dropped as empty).
  std::string token_requests = "<unset>";
  if (NonEmptyArray(Field(spec, "tokenRequests"))) {
    std::vector<std::string> audiences;
    ForEach(Field(spec, "tokenRequests"),
            [&](const json& t) { audiences.push_back(Str(Field(t, "audience"))); });
    token_requests = Join(audiences, ",");
  }
  return json::array({
      Name(driver),
      BoolOr(Field(spec, "attachRequired"), true),
      BoolOr(Field(spec, "podInfoOnMount"), false),
      BoolOr(Field(spec, "storageCapacity"), false),
      token_requests,
      BoolOr(Field(spec, "requiresRepublish"), false),
      modes.empty() ? "<none>" : Join(modes, ","),
      Age(driver, now),
  });
}

json CsiNodeCells(const json& node, TimePoint now) {
  const json* drivers = Path(node, "spec", "drivers");
  return json::array(
      {Name(node), drivers != nullptr && drivers->is_array() ? Size(drivers) : 0, Age(node, now)});
}

json CsiStorageCapacityCells(const json& capacity, TimePoint /*now*/) {
  return json::array({
      Name(capacity),
      Str(Field(capacity, "storageClassName")),
      QuantityString(Field(capacity, "capacity"), "<unset>"),
  });
}

}  // namespace

Printer MakeStorageClassPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Provisioner", "string", "", "provisioner indicates the type of the provisioner.", 0},
      {"ReclaimPolicy", "string", "",
       "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes "
       "of this storage class. Defaults to Delete.",
       0},
      {"VolumeBindingMode", "string", "",
       "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  "
       "When unset, VolumeBindingImmediate is used. This field is only honored by servers that "
       "enable the VolumeScheduling feature.",
       0},
      {"AllowVolumeExpansion", "string", "",
       "allowVolumeExpansion shows whether the storage class allow volume expand.", 0},
      AgeColumn(),
  };
  p.cells = &StorageClassCells;
  return p;
}

Printer MakeCsiDriverPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"AttachRequired", "boolean", "",
       "attachRequired indicates this CSI volume driver requires an attach operation (because it "
       "implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach "
       "detach controller should call the attach volume interface which checks the "
       "volumeattachment status and waits until the volume is attached before proceeding to "
       "mounting. The CSI external-attacher coordinates with CSI volume driver and updates the "
       "volumeattachment status when the attach operation is complete. If the CSIDriverRegistry "
       "feature gate is enabled and the value is specified to false, the attach operation will "
       "be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.",
       0},
      {"PodInfoOnMount", "boolean", "",
       "podInfoOnMount indicates this CSI volume driver requires additional pod information "
       "(like podName, podUID, etc.) during mount operations, if set to true. If set to false, "
       "pod information will not be passed on mount. Default is false.\n\nThe CSI driver "
       "specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod "
       "information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is "
       "responsible for parsing and validating the information passed in as VolumeContext.\n\n"
       "The following VolumeContext will be passed if podInfoOnMount is set to true. This list "
       "might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name "
       "\"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": "
       "string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an "
       "ephemeral inline volume\n                                defined by a CSIVolumeSource, "
       "otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes "
       "1.16. It is only required for drivers which support both the \"Persistent\" and "
       "\"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or "
       "ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only "
       "support one mode when deployed on such a cluster and the deployment determines which "
       "mode that is, for example via a command line parameter of the driver.\n\nThis field was "
       "immutable in Kubernetes < 1.29 and now is mutable.",
       0},
      {"StorageCapacity", "boolean", "",
       "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider "
       "the storage capacity that the driver deployment will report by creating "
       "CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can "
       "be enabled immediately when deploying a driver. In that case, provisioning new volumes "
       "with late binding will pause until the driver deployment has published some suitable "
       "CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field "
       "unset or false and it can be flipped later when storage capacity information has been "
       "published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.",
       0},
      {"TokenRequests", "string", "",
       "tokenRequests indicates the CSI driver needs pods' service account tokens it is "
       "mounting volume for to do necessary authentication. Kubelet will pass the tokens in "
       "VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and "
       "validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": "
       "{\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": "
       "<expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each "
       "TokenRequest should be different and at most one token is empty string. To receive a "
       "new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume "
       "periodically.",
       0},
      {"RequiresRepublish", "boolean", "",
       "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically "
       "called to reflect any possible change in the mounted volume. This field defaults to "
       "false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to "
       "NodePublishVolume should only update the contents of the volume. New mount points will "
       "not be seen by a running container.",
       0},
      {"Modes", "string", "",
       "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The "
       "default if the list is empty is \"Persistent\", which is the usage defined by the CSI "
       "specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe "
       "other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod "
       "spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A "
       "driver has to be aware of this because it is only going to get a NodePublishVolume "
       "call for such a volume.\n\nFor more information about implementing this mode, see "
       "https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support "
       "one or more of these modes and more modes may be added in the future.\n\nThis field is "
       "beta. This field is immutable.",
       0},
      AgeColumn(),
  };
  p.cells = &CsiDriverCells;
  return p;
}

Printer MakeCsiNodePrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Drivers", "integer", "",
       "Drivers indicates the number of CSI drivers registered on the node", 0},
      AgeColumn(),
  };
  p.cells = &CsiNodeCells;
  return p;
}

Printer MakeCsiStorageCapacityPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"StorageClassName", "string", "",
       "storageClassName represents the name of the StorageClass that the reported capacity "
       "applies to. It must meet the same requirements as the name of a StorageClass object "
       "(non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity "
       "object is obsolete and should be removed by its creator. This field is immutable.",
       0},
      {"Capacity", "string", "",
       "capacity is the value reported by the CSI driver in its GetCapacityResponse for a "
       "GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe "
       "semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of "
       "the storage that can be used to provision volumes. If not set, that information is "
       "currently unavailable.",
       0},
  };
  p.cells = &CsiStorageCapacityCells;
  return p;
}

}  // namespace tidepool::apiserver::printers::internal
