// core/v1 PersistentVolume and ReplicationController: defaults, what create does, validation.
#include "apiserver/validation/core.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using testing::Case;
using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;
using testing::RunCases;

constexpr const char* kSubdomainMessage =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

constexpr const char* kPersistentVolume = R"({
  "apiVersion": "v1", "kind": "PersistentVolume",
  "metadata": {"name": "pv-1", "uid": "u1"},
  "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
           "hostPath": {"path": "/data/pv-1"}}})";

TEST(PersistentVolumeTest, DefaultsAndCreate) {
  json pv = json::parse(R"({"apiVersion": "v1", "kind": "PersistentVolume",
      "metadata": {"name": "pv"},
      "spec": {"hostPath": {"path": "/d"}, "rbd": {"image": "i"}, "iscsi": {"iqn": "q"}}})");
  DefaultPersistentVolume(pv);
  EXPECT_EQ(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
  EXPECT_EQ(pv["spec"]["volumeMode"], "Filesystem");
  EXPECT_EQ(pv["spec"]["hostPath"], json::parse(R"({"path": "/d", "type": ""})"));
  EXPECT_EQ(pv["spec"]["rbd"], json::parse(R"({"image": "i", "pool": "rbd", "user": "admin",
                            "keyring": "/etc/ceph/keyring"})"));
  EXPECT_EQ(pv["spec"]["iscsi"]["iscsiInterface"], "default");
  EXPECT_EQ(pv["status"], json::parse(R"({"phase": "Pending"})"));

  // What the client set stays; a client's status is replaced on create.
  json kept = json::parse(R"({"spec": {"persistentVolumeReclaimPolicy": "Delete",
      "volumeMode": "Block"}, "status": {"phase": "Bound", "reason": "x"}})");
  DefaultPersistentVolume(kept);
  EXPECT_EQ(kept["spec"]["persistentVolumeReclaimPolicy"], "Delete");
  EXPECT_EQ(kept["spec"]["volumeMode"], "Block");
  PreparePersistentVolumeForCreate(kept, "2026-01-01T00:00:00Z");
  EXPECT_EQ(kept["status"], json::parse(R"({"phase": "Pending",
      "lastPhaseTransitionTime": "2026-01-01T00:00:00Z"})"));
}

TEST(PersistentVolumeTest, StatusUpdateStampsAPhaseChange) {
  const json old = json::parse(
      R"({"status": {"phase": "Pending", "lastPhaseTransitionTime": "2026-01-01T00:00:00Z"}})");
  json bound = json::parse(R"({"status": {"phase": "Bound"}})");
  PreparePersistentVolumeStatusUpdate(bound, old, "2026-01-02T00:00:00Z");
  EXPECT_EQ(bound["status"]["lastPhaseTransitionTime"], "2026-01-02T00:00:00Z");
  json copied = old;
  copied["status"]["phase"] = "Bound";  // the old time sent back: still a transition
  PreparePersistentVolumeStatusUpdate(copied, old, "2026-01-02T00:00:00Z");
  EXPECT_EQ(copied["status"]["lastPhaseTransitionTime"], "2026-01-02T00:00:00Z");
  json given = json::parse(
      R"({"status": {"phase": "Bound", "lastPhaseTransitionTime": "2025-05-05T00:00:00Z"}})");
  PreparePersistentVolumeStatusUpdate(given, old, "2026-01-02T00:00:00Z");
  EXPECT_EQ(given["status"]["lastPhaseTransitionTime"], "2025-05-05T00:00:00Z");
  json same = json::parse(R"({"status": {"phase": "Pending"}})");
  PreparePersistentVolumeStatusUpdate(same, old, "2026-01-02T00:00:00Z");
  EXPECT_EQ(same["status"]["lastPhaseTransitionTime"], "2026-01-01T00:00:00Z");
}

TEST(PersistentVolumeTest, RulesAndTexts) {
  RunCases(
      kPersistentVolume, DefaultPersistentVolume, ValidatePersistentVolume,
      {
          {"a valid volume", "", "", {}},
          {"no access modes and no capacity",
           R"({"spec": {"accessModes": null, "capacity": null}})",
           "",
           {"spec.accessModes: Required value", "spec.capacity: Required value",
            "spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "
            "\"storage\""}},
          {"an unknown access mode",
           R"({"spec": {"accessModes": ["Sometimes"]}})",
           "",
           {"spec.accessModes: Unsupported value: \"Sometimes\": supported values: "
            "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\""}},
          {"ReadWriteOncePod with another mode",
           R"({"spec": {"accessModes": ["ReadWriteOncePod", "ReadOnlyMany"]}})",
           "",
           {"spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access "
            "modes"}},
          {"a zero capacity",
           R"({"spec": {"capacity": {"storage": "0"}}})",
           "",
           {"spec.capacity[storage]: Invalid value: \"0\": must be greater than zero"}},
          {"no volume source",
           R"({"spec": {"hostPath": null}})",
           "",
           {"spec: Required value: must specify a volume type"}},
          {"two volume sources",
           R"({"spec": {"nfs": {"server": "nfs", "path": "/x"}}})",
           "",
           {"spec.nfs: Forbidden: may not specify more than 1 volume type"}},
          {"a hostPath without a path",
           R"({"spec": {"hostPath": {"path": ""}}})",
           "",
           {"spec.hostPath.path: Required value"}},
          {"a local volume without node affinity",
           R"({"spec": {"hostPath": null, "local": {"path": "/mnt/disks/ssd1"}}})",
           "",
           {"spec.nodeAffinity: Required value: Local volume requires node affinity"}},
          {"a CSI volume without a handle",
           R"({"spec": {"hostPath": null, "csi": {"driver": "pd.csi.storage.gke.io"}}})",
           "",
           {"spec.csi.volumeHandle: Required value"}},
          {"an unknown reclaim policy",
           R"({"spec": {"persistentVolumeReclaimPolicy": "Keep"}})",
           "",
           {"spec.persistentVolumeReclaimPolicy: Unsupported value: \"Keep\": supported values: "
            "\"Delete\", \"Recycle\", \"Retain\""}},
          {"an unknown volume mode",
           R"({"spec": {"volumeMode": "Raw"}})",
           "",
           {"spec.volumeMode: Unsupported value: \"Raw\": supported values: \"Block\", "
            "\"Filesystem\""}},
          {"a storage class that is no DNS subdomain",
           R"({"spec": {"storageClassName": "Fast_SSD"}})",
           "",
           {std::string("spec.storageClassName: Invalid value: \"Fast_SSD\": ") +
            kSubdomainMessage}},
          {"volumeMode changed by an update",
           R"({"spec": {"volumeMode": "Block"}})",
           R"({})",
           {"volumeMode: Invalid value: \"Block\": field is immutable"}},
          {"a claim bound by an update", R"({"spec": {"claimRef": {"name": "c"}}})", R"({})", {}},
      });
}

constexpr const char* kReplicationController = R"({
  "apiVersion": "v1", "kind": "ReplicationController",
  "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
  "spec": {"replicas": 2, "selector": {"app": "web"},
           "template": {"metadata": {"labels": {"app": "web"}},
                        "spec": {"restartPolicy": "Always",
                                 "containers": [{"name": "c", "image": "nginx"}]}}}})";

constexpr const char* kClaim = R"({
  "apiVersion": "v1", "kind": "PersistentVolumeClaim",
  "metadata": {"name": "data", "namespace": "default", "uid": "u1"},
  "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}})";

TEST(PersistentVolumeClaimTest, DefaultsAndCreate) {
  json pvc = json::parse(kClaim);
  DefaultPersistentVolumeClaim(pvc);
  EXPECT_EQ(pvc["spec"]["volumeMode"], "Filesystem");
  EXPECT_EQ(pvc["status"], json::parse(R"({"phase": "Pending"})"));
  EXPECT_FALSE(pvc["spec"].contains("storageClassName")) << "the admission plugin's, not a default";
  // A client's status is replaced on create.
  pvc["status"] = {{"phase", "Bound"}, {"capacity", {{"storage", "10Gi"}}}};
  PreparePersistentVolumeClaimForCreate(pvc);
  EXPECT_EQ(pvc["status"], json::parse(R"({"phase": "Pending"})"));
}

TEST(PersistentVolumeClaimTest, RulesAndTexts) {
  RunCases(kClaim, DefaultPersistentVolumeClaim, ValidatePersistentVolumeClaim,
           {
               {"a valid claim", "", "", {}},
               {"no access modes and no storage request",
                R"({"spec": {"accessModes": null, "resources": null}})",
                "",
                {"spec.accessModes: Required value: at least 1 access mode is required",
                 "spec.resources[storage]: Required value"}},
               {"an unknown access mode",
                R"({"spec": {"accessModes": ["Always"]}})",
                "",
                {"spec.accessModes: Unsupported value: \"Always\": supported values: "
                 "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\""}},
               {"ReadWriteOncePod with another mode",
                R"({"spec": {"accessModes": ["ReadWriteOncePod", "ReadWriteOnce"]}})",
                "",
                {"spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access "
                 "modes"}},
               {"a zero request",
                R"({"spec": {"resources": {"requests": {"storage": "0"}}}})",
                "",
                {"spec.resources[storage]: Invalid value: \"0\": must be greater than zero"}},
               {"an empty class is no class", R"({"spec": {"storageClassName": ""}})", "", {}},
               {"a class that is no DNS subdomain",
                R"({"spec": {"storageClassName": "Fast_SSD"}})",
                "",
                {std::string("spec.storageClassName: Invalid value: \"Fast_SSD\": ") +
                 kSubdomainMessage}},
               {"an unknown volume mode",
                R"({"spec": {"volumeMode": "Raw"}})",
                "",
                {"spec.volumeMode: Unsupported value: \"Raw\": supported values: \"Block\", "
                 "\"Filesystem\""}},
           });
}

// ValidatePersistentVolumeClaimUpdate: the spec is immutable but for volumeName set once, a
// class given where there was none, and a bound claim's storage request (smaller only above
// status.capacity). The message embeds a diff of the internal specs (apimachinery's diff.Diff:
// a JSON unified diff; the texts below are Python difflib's for the same JSON).
TEST(PersistentVolumeClaimTest, UpdateRules) {
  const std::string immutable =
      "spec: Forbidden: spec is immutable after creation except resources.requests and "
      "volumeAttributesClassName for bound claims\n";
  RunCases(
      kClaim, DefaultPersistentVolumeClaim, ValidatePersistentVolumeClaim,
      {
          {"nothing changes", R"({"metadata": {"labels": {"a": "b"}}})", "{}", {}},
          {"the PV controller sets volumeName", R"({"spec": {"volumeName": "pv-1"}})", "{}", {}},
          {"the default class given later",
           R"({"spec": {"storageClassName": "standard-rwo"}})",
           "{}",
           {}},
          {"a bound claim grows",
           R"({"spec": {"resources": {"requests": {"storage": "20Gi"}}},
               "status": {"phase": "Bound"}})",
           R"({"status": {"phase": "Bound"}})",
           {}},
          {"access modes changed",
           R"({"spec": {"accessModes": ["ReadWriteMany"]}})",
           "{}",
           {immutable + "@@ -1,6 +1,6 @@\n {\n  \"AccessModes\": [\n-  \"ReadWriteOnce\"\n+  "
                        "\"ReadWriteMany\"\n  ],\n  \"Selector\": null,\n  \"Resources\": {\n"}},
          {"another class",
           R"({"spec": {"storageClassName": "premium-rwo"}})",
           R"({"spec": {"storageClassName": "standard-rwo"}})",
           {immutable + "@@ -10,7 +10,7 @@\n   }\n  },\n  \"VolumeName\": \"\",\n- "
                        "\"StorageClassName\": \"standard-rwo\",\n+ \"StorageClassName\": "
                        "\"premium-rwo\",\n  \"VolumeMode\": \"Filesystem\",\n  \"DataSource\": "
                        "null,\n  \"DataSourceRef\": null,\n"}},
          {"a bound volume swapped",
           R"({"spec": {"volumeName": "pv-2"}})",
           R"({"spec": {"volumeName": "pv-1"}})",
           {immutable + "@@ -9,7 +9,7 @@\n    \"storage\": \"10Gi\"\n   }\n  },\n- \"VolumeName\": "
                        "\"pv-1\",\n+ \"VolumeName\": \"pv-2\",\n  \"StorageClassName\": null,\n  "
                        "\"VolumeMode\": \"Filesystem\",\n  \"DataSource\": null,\n"}},
          {"a pending claim grows",
           R"({"spec": {"resources": {"requests": {"storage": "20Gi"}}}})",
           "{}",
           {immutable +
            "@@ -6,7 +6,7 @@\n  \"Resources\": {\n   \"Limits\": null,\n   \"Requests\": "
            "{\n-   \"storage\": \"10Gi\"\n+   \"storage\": \"20Gi\"\n   }\n  },\n  "
            "\"VolumeName\": \"\",\n"}},
          {"a bound claim shrinks, still above what its volume has (an expansion that failed)",
           R"({"spec": {"resources": {"requests": {"storage": "15Gi"}}},
               "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}})",
           R"({"spec": {"resources": {"requests": {"storage": "20Gi"}}},
               "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}})",
           {}},
          {"a bound claim shrinks to what its volume has",
           R"({"spec": {"resources": {"requests": {"storage": "10Gi"}}},
               "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}})",
           R"({"spec": {"resources": {"requests": {"storage": "20Gi"}}},
               "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}})",
           {"spec.resources.requests.storage: Forbidden: field can not be less than "
            "status.capacity"}},
          {"empty limits are no limits", R"({"spec": {"resources": {"limits": {}}}})", "{}", {}},
          {"the beta class annotation",
           R"({"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "b"}},
               "spec": {"storageClassName": "a"}})",
           R"({"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "a"}},
               "spec": {"storageClassName": "a"}})",
           {"metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "
            "\"b\": field is immutable"}},
          {"the volume mode",
           R"({"spec": {"volumeMode": "Block"}})",
           "{}",
           {immutable + "@@ -11,7 +11,7 @@\n  },\n  \"VolumeName\": \"\",\n  \"StorageClassName\": "
                        "null,\n- \"VolumeMode\": \"Filesystem\",\n+ \"VolumeMode\": \"Block\",\n  "
                        "\"DataSource\": null,\n  \"DataSourceRef\": null,\n  "
                        "\"VolumeAttributesClassName\": null\n",
            "volumeMode: Invalid value: \"Block\": field is immutable"}},
      });
}

// SequenceMatcher's matching (the longest block first), not a longest common subsequence:
// Python's difflib gives this text for these two specs.
TEST(PersistentVolumeClaimTest, TheDiffMatchesAsDifflib) {
  api::FieldErrors errors;
  json old = json::parse(kClaim), now = json::parse(kClaim);
  old["spec"]["resources"] = {{"limits", {{"storage", "10Gi"}}},
                              {"requests", {{"storage", "5Gi"}}}};
  now["spec"]["resources"] = {{"requests", {{"storage", "10Gi"}}}};
  DefaultPersistentVolumeClaim(old);
  DefaultPersistentVolumeClaim(now);
  ASSERT_TRUE(ValidatePersistentVolumeClaim(now, &old, &errors).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].detail,
            "spec is immutable after creation except resources.requests and "
            "volumeAttributesClassName for bound claims\n"
            "@@ -4,11 +4,9 @@\n"
            "  ],\n"
            "  \"Selector\": null,\n"
            "  \"Resources\": {\n"
            "-  \"Limits\": {\n"
            "+  \"Limits\": null,\n"
            "+  \"Requests\": {\n"
            "    \"storage\": \"10Gi\"\n"
            "-  },\n"
            "-  \"Requests\": {\n"
            "-   \"storage\": \"5Gi\"\n"
            "   }\n"
            "  },\n"
            "  \"VolumeName\": \"\",\n");
}

TEST(ReplicationControllerTest, Defaults) {
  json rc = json::parse(R"({"metadata": {"name": "web"},
      "spec": {"template": {"metadata": {"labels": {"app": "web", "tier": "fe"}}}}})");
  DefaultReplicationController(rc);
  EXPECT_EQ(rc["spec"]["replicas"], 1);
  EXPECT_EQ(rc["spec"]["selector"], json::parse(R"({"app": "web", "tier": "fe"})"));
  EXPECT_EQ(rc["metadata"]["labels"], json::parse(R"({"app": "web", "tier": "fe"})"));

  // A selector or labels of its own are kept; no template, no selector.
  json own = json::parse(R"({"metadata": {"labels": {"x": "y"}},
      "spec": {"replicas": 0, "selector": {"app": "web"},
               "template": {"metadata": {"labels": {"app": "web", "v": "2"}}}}})");
  DefaultReplicationController(own);
  EXPECT_EQ(own["spec"]["replicas"], 0);
  EXPECT_EQ(own["spec"]["selector"], json::parse(R"({"app": "web"})"));
  EXPECT_EQ(own["metadata"]["labels"], json::parse(R"({"x": "y"})"));
  json bare = json::parse(R"({"metadata": {"name": "x"}})");
  DefaultReplicationController(bare);
  EXPECT_EQ(bare["spec"], json::parse(R"({"replicas": 1})"));
  PrepareReplicationControllerForCreate(bare);
  EXPECT_EQ(bare["status"], json::parse(R"({"replicas": 0})"));
}

TEST(ReplicationControllerTest, RulesAndTexts) {
  RunCases(
      kReplicationController, DefaultReplicationController, ValidateReplicationController,
      {
          {"a valid controller", "", "", {}},
          {"no selector and no template",
           R"({"spec": {"selector": null, "template": null}})",
           "",
           {"spec.selector: Required value", "spec.template: Required value"}},
          {"negative replicas and minReadySeconds",
           R"({"spec": {"replicas": -1, "minReadySeconds": -2}})",
           "",
           {"spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0",
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
          {"a selector the template does not match",
           R"({"spec": {"selector": {"app": "db"}}})",
           "",
           {"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: "
            "`selector` does not match template `labels`"}},
          {"a template that does not restart",
           R"({"spec": {"template": {"spec": {"restartPolicy": "Never"}}}})",
           "",
           {"spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: "
            "\"Always\""}},
          {"an active deadline",
           R"({"spec": {"template": {"spec": {"activeDeadlineSeconds": 30}}}})",
           "",
           {"spec.template.spec.activeDeadlineSeconds: Invalid value: 30: must not be "
            "specified"}},
          {"a container without an image",
           R"({"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}})",
           "",
           {"spec.template.spec.containers[0].image: Required value"}},
          {"the selector changed by an update",
           R"({"spec": {"selector": {"app": "web"}, "replicas": 5}})",
           R"({"spec": {"selector": {"app": "web", "x": "y"}}})",
           {}},
      });
}

TEST(CsiDriverNameTest, RulesAndTexts) {
  EXPECT_THAT(Messages(ValidateCsiDriverName("pd.csi.storage.gke.io", "spec.csi.driver")),
              ElementsAreArray(std::vector<std::string>{}));
  EXPECT_THAT(Messages(ValidateCsiDriverName("Hostpath.CSI.k8s.io", "d")),
              ElementsAreArray(std::vector<std::string>{}));  // lowercased first
  EXPECT_THAT(Messages(ValidateCsiDriverName("", "d")),
              ElementsAreArray({std::string("d: Required value"),
                                std::string("d: Invalid value: \"\": ") + kSubdomainMessage}));
  EXPECT_THAT(Messages(ValidateCsiDriverName(std::string(64, 'a'), "d")),
              ElementsAreArray({std::string("d: Too long: must have at most 63 bytes")}));
}

}  // namespace
}  // namespace tidepool::apiserver::validation
