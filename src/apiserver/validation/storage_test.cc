// storage.k8s.io/v1 StorageClass, CSIDriver, CSINode and CSIStorageCapacity.
#include "apiserver/validation/storage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using testing::Case;
using ::testing::ElementsAreArray;
using testing::Messages;
using testing::NoDefaults;
using testing::Patched;
using testing::RunCases;

constexpr const char* kStorageClass = R"({
  "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
  "metadata": {"name": "standard-rwo", "uid": "u1"},
  "provisioner": "pd.csi.storage.gke.io", "parameters": {"type": "pd-balanced"}})";

TEST(StorageClassTest, Defaults) {
  json sc = json::parse(kStorageClass);
  DefaultStorageClass(sc);
  EXPECT_EQ(sc["reclaimPolicy"], "Delete");
  EXPECT_EQ(sc["volumeBindingMode"], "Immediate");
  json own = Patched(kStorageClass,
                     R"({"reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer"})");
  DefaultStorageClass(own);
  EXPECT_EQ(own["reclaimPolicy"], "Retain");
  EXPECT_EQ(own["volumeBindingMode"], "WaitForFirstConsumer");
}

TEST(StorageClassTest, RulesAndTexts) {
  RunCases(
      kStorageClass, DefaultStorageClass, ValidateStorageClass,
      {
          {"a valid class", "", "", {}},
          {"no provisioner", R"({"provisioner": null})", "", {"provisioner: Required value"}},
          {"a provisioner that is no qualified name",
           R"({"provisioner": "Bad Provisioner"})",
           "",
           {"provisioner: Invalid value: \"bad provisioner\": name part must consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
            "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
          {"an empty parameter name",
           R"({"parameters": {"": "x"}})",
           "",
           {"parameters: Invalid value: \"\": field can not be empty."}},
          {"Recycle",
           R"({"reclaimPolicy": "Recycle"})",
           "",
           {"reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", "
            "\"Retain\""}},
          {"an unknown binding mode",
           R"({"volumeBindingMode": "Later"})",
           "",
           {"volumeBindingMode: Unsupported value: \"Later\": supported values: \"Immediate\", "
            "\"WaitForFirstConsumer\""}},
          {"an update of everything but labels",
           R"({"provisioner": "x.example.com", "parameters": {"type": "pd-ssd"},
               "reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer"})",
           R"({})",
           {"parameters: Forbidden: updates to parameters are forbidden.",
            "provisioner: Forbidden: updates to provisioner are forbidden.",
            "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
            "volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable"}},
          {"an update of labels and allowVolumeExpansion",
           R"({"metadata": {"labels": {"a": "b"}}, "allowVolumeExpansion": true})",
           R"({})",
           {}},
      });
}

constexpr const char* kCsiDriver = R"({
  "apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
  "metadata": {"name": "pd.csi.storage.gke.io", "uid": "u1"}, "spec": {}})";

TEST(CsiDriverTest, Defaults) {
  json d = json::parse(kCsiDriver);
  DefaultCsiDriver(d);
  EXPECT_EQ(d["spec"], json::parse(R"({"attachRequired": true, "podInfoOnMount": false,
      "storageCapacity": false, "fsGroupPolicy": "ReadWriteOnceWithFSType",
      "volumeLifecycleModes": ["Persistent"], "requiresRepublish": false,
      "seLinuxMount": false})"));
}

TEST(CsiDriverTest, RulesAndTexts) {
  RunCases(kCsiDriver, DefaultCsiDriver, ValidateCsiDriver,
           {
               {"a valid driver", "", "", {}},
               {"an unknown fsGroupPolicy",
                R"({"spec": {"fsGroupPolicy": "Some"}})",
                "",
                {"spec.fsGroupPolicy: Unsupported value: \"Some\": supported values: \"File\", "
                 "\"None\", \"ReadWriteOnceWithFSType\""}},
               {"token requests",
                R"({"spec": {"tokenRequests": [
               {"audience": "a", "expirationSeconds": 60}, {"audience": "a"}]}})",
                "",
                {"spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a "
                 "duration less than 10 minutes",
                 "spec.tokenRequests[1].audience: Duplicate value: \"a\""}},
               {"an unknown lifecycle mode",
                R"({"spec": {"volumeLifecycleModes": ["Forever"]}})",
                "",
                {"spec.volumeLifecycleModes: Unsupported value: \"Forever\": supported values: "
                 "\"Persistent\", \"Ephemeral\""}},
               {"attachRequired and modes changed by an update",
                R"({"spec": {"attachRequired": false, "volumeLifecycleModes": ["Ephemeral"]}})",
                R"({})",
                {"spec.attachedRequired: Invalid value: false: field is immutable",
                 "spec.volumeLifecycleModes: Invalid value: "
                 "[]storage.VolumeLifecycleMode{\"Ephemeral\"}: field is immutable"}},
               {"podInfoOnMount changed by an update",
                R"({"spec": {"podInfoOnMount": true}})",
                R"({})",
                {}},
           });
  api::FieldErrors errors;
  ASSERT_TRUE(ValidateCsiDriver(json::parse(kCsiDriver), nullptr, &errors).ok());
  EXPECT_THAT(Messages(errors),
              ElementsAreArray(
                  {"spec.attachedRequired: Required value", "spec.podInfoOnMount: Required value",
                   "spec.storageCapacity: Required value", "spec.seLinuxMount: Required value"}));
}

constexpr const char* kCsiNode = R"({
  "apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
  "metadata": {"name": "gke-gpu-pool-1", "uid": "u1"},
  "spec": {"drivers": [{"name": "pd.csi.storage.gke.io", "nodeID": "projects/p/zones/z/i",
                        "topologyKeys": ["topology.gke.io/zone"]}]}})";

TEST(CsiNodeTest, RulesAndTexts) {
  RunCases(
      kCsiNode, NoDefaults, ValidateCsiNode,
      {
          {"a valid node", "", "", {}},
          {"no drivers", R"({"spec": {"drivers": null}})", "", {}},
          {"a driver without name and node id",
           R"({"spec": {"drivers": [{}]}})",
           "",
           {"spec.drivers[0].name: Required value",
            "spec.drivers[0].name: Invalid value: \"\": a lowercase RFC 1123 subdomain must "
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            "spec.drivers[0].nodeID: Required value"}},
          {"a driver twice and a negative count",
           R"({"spec": {"drivers": [
               {"name": "d", "nodeID": "n", "allocatable": {"count": -1}},
               {"name": "d", "nodeID": "n"}]}})",
           "",
           {"spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or "
            "equal to 0",
            "spec.drivers[1].name: Duplicate value: \"d\""}},
          {"a driver changed by an update",
           R"({"spec": {"drivers": [{"name": "pd.csi.storage.gke.io", "nodeID": "other"}]}})",
           R"({})",
           {"spec.drivers: Invalid value: storage.CSINodeDriver{Name:\"pd.csi.storage.gke.io\", "
            "NodeID:\"other\", TopologyKeys:[]string(nil), "
            "Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable"}},
      });
}

constexpr const char* kCsiStorageCapacity = R"({
  "apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
  "metadata": {"name": "csisc-1", "namespace": "kube-system", "uid": "u1"},
  "storageClassName": "standard-rwo", "capacity": "100Gi",
  "nodeTopology": {"matchLabels": {"topology.gke.io/zone": "us-central1-a"}}})";

TEST(CsiStorageCapacityTest, RulesAndTexts) {
  RunCases(
      kCsiStorageCapacity, NoDefaults, ValidateCsiStorageCapacity,
      {
          {"a valid capacity", "", "", {}},
          {"no storage class",
           R"({"storageClassName": null})",
           "",
           {"storageClassName: Invalid value: \"\": a lowercase RFC 1123 subdomain must "
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
          {"a negative capacity",
           R"({"capacity": "-1Gi"})",
           "",
           {"capacity: Invalid value: \"-1Gi\": must be greater than or equal to 0"}},
          {"storage class and topology changed by an update",
           R"({"storageClassName": "premium-rwo", "nodeTopology": null})",
           R"({})",
           {"nodeTopology: Invalid value: \"null\": field is immutable",
            "storageClassName: Invalid value: \"premium-rwo\": field is immutable"}},
          {"capacity changed by an update", R"({"capacity": "50Gi"})", R"({})", {}},
      });
}

}  // namespace
}  // namespace tidepool::apiserver::validation
