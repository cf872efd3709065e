// File: encode_test.cc
//
// Tests for EncodeObject and EncodeMessage: every captured kubectl body (testdata/) survives
// decode -> encode -> decode; a Node as the Cluster Autoscaler's externalgrpc provider sends one
// comes back from DecodeObject as it went in; exact bytes for the wire details (sorted map keys,
// sign-extended int32, IntOrString, Time nanos, unpacked lists, inline structs, the envelope);
// and the errors, each naming the JSON field.
#include "apiserver/protobuf/encode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver/protobuf/decode.h"
#include "apiserver/protobuf/messages.h"
#include "apiserver/protobuf/wire.h"
#include "testing/protobuf_writer.h"

namespace tidepool::apiserver::protobuf {
namespace {

using nlohmann::json;
using ::tidepool::testing::Bytes;
using ::tidepool::testing::Entry;
using ::tidepool::testing::FromHex;
using ::tidepool::testing::Int;
using ::tidepool::testing::Varint;

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    if (!out.empty()) out += ' ';
    out += kDigits[static_cast<uint8_t>(c) >> 4];
    out += kDigits[static_cast<uint8_t>(c) & 15];
  }
  return out;
}

const MessageSpec& Spec(std::string_view api_version, std::string_view kind) {
  const MessageSpec* spec = FindKind(api_version, kind);
  EXPECT_NE(spec, nullptr) << api_version << " " << kind;
  return *spec;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every captured body in testdata/ with its .json: the decoded object, encoded and decoded
// again, is the same object.
TEST(EncodeObjectTest, RoundTripsCapturedBodies) {
  const std::filesystem::path dir =
      std::filesystem::path(TIDEPOOL_SOURCE_DIR) / "src/apiserver/protobuf/testdata";
  std::vector<std::filesystem::path> bodies;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::filesystem::path& p = entry.path();
    if (p.extension() == ".pb" &&
        std::filesystem::exists(std::filesystem::path(p).replace_extension(".json"))) {
      bodies.push_back(p);
    }
  }
  std::sort(bodies.begin(), bodies.end());
  ASSERT_GE(bodies.size(), 24u);
  for (const auto& p : bodies) {
    SCOPED_TRACE(p.filename().string());
    auto decoded = DecodeObject(ReadFile(p));
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    auto encoded = EncodeObject(*decoded);
    ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
    auto again = DecodeObject(*encoded);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(*again, *decoded) << json::diff(*decoded, *again);
  }
}

// A GPU Node as the Cluster Autoscaler's externalgrpc NodeGroupTemplateNodeInfoResponse carries
// it: every field set here, the decoder's kAlways defaults included, so the round trip is exact.
constexpr std::string_view kGpuNode = R"({
  "apiVersion": "v1", "kind": "Node",
  "metadata": {
    "name": "gpu-node-7", "uid": "6f1c2a8e-uid", "resourceVersion": "48213", "generation": 3,
    "creationTimestamp": "2026-11-01T08:00:00Z",
    "labels": {"kubernetes.io/hostname": "gpu-node-7", "kubernetes.io/arch": "amd64",
               "nvidia.com/gpu.product": "A100-SXM4-40GB", "nvidia.com/gpu.count": "8",
               "node.kubernetes.io/instance-type": "a2-highgpu-8g",
               "topology.kubernetes.io/zone": "us-central1-a"},
    "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                    "cluster-autoscaler.kubernetes.io/scale-down-disabled": "false"},
    "finalizers": ["example.com/drain"]
  },
  "spec": {
    "podCIDR": "10.244.3.0/24", "podCIDRs": ["10.244.3.0/24", "fd00:10:244:3::/64"],
    "providerID": "gce://proj/us-central1-a/gpu-node-7", "unschedulable": true,
    "taints": [
      {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
      {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
       "timeAdded": "2026-11-29T22:40:00Z"},
      {"key": "ToBeDeletedByClusterAutoscaler", "value": "1795992622", "effect": "NoSchedule"}
    ]
  },
  "status": {
    "capacity": {"cpu": "96", "memory": "681575424Ki", "nvidia.com/gpu": "8", "pods": "110",
                 "ephemeral-storage": "1056753Mi", "hugepages-2Mi": "0"},
    "allocatable": {"cpu": "95690m", "memory": "670368768Ki", "nvidia.com/gpu": "8",
                    "pods": "110", "ephemeral-storage": "973909260Ki", "hugepages-2Mi": "0"},
    "phase": "Running",
    "conditions": [
      {"type": "MemoryPressure", "status": "False",
       "lastHeartbeatTime": "2026-11-29T22:40:00Z", "lastTransitionTime": "2026-11-01T08:00:00Z",
       "reason": "KubeletHasSufficientMemory",
       "message": "kubelet has sufficient memory available"},
      {"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-11-29T22:40:00Z",
       "lastTransitionTime": "2026-11-01T08:00:30Z", "reason": "KubeletReady",
       "message": "kubelet is posting ready status"}
    ],
    "addresses": [{"type": "InternalIP", "address": "10.128.0.7"},
                  {"type": "Hostname", "address": "gpu-node-7"}],
    "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
    "nodeInfo": {"machineID": "ec2f", "systemUUID": "ec2f-uuid", "bootID": "boot-1",
                 "kernelVersion": "6.8.0-1019-gcp", "osImage": "Ubuntu 22.04.5 LTS",
                 "containerRuntimeVersion": "containerd://1.7.24", "kubeletVersion": "v1.32.0",
                 "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"},
    "images": [{"names": ["nvcr.io/nvidia/k8s-device-plugin@sha256:ab12",
                          "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"],
                "sizeBytes": 132489231}],
    "volumesInUse": ["kubernetes.io/csi/pd^disk-1"],
    "volumesAttached": [{"name": "kubernetes.io/csi/pd^disk-1", "devicePath": ""}],
    "runtimeHandlers": [{"name": "nvidia",
                         "features": {"recursiveReadOnlyMounts": true, "userNamespaces": false}}],
    "features": {"supplementalGroupsPolicy": true}
  }
})";

TEST(EncodeObjectTest, RoundTripsAGpuNode) {
  const json node = json::parse(kGpuNode);
  auto body = EncodeObject(node);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  auto back = DecodeObject(*body);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, node) << json::diff(node, *back);

  // The same message without the envelope, as CA's NodeGroupTemplateNodeInfoResponse holds it.
  auto raw = EncodeMessage(node, Spec("v1", "Node"));
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_NE(body->find(*raw), std::string::npos);
  // DecodeMessage reads it back, without apiVersion and kind.
  auto message = DecodeMessage(*raw, Spec("v1", "Node"));
  ASSERT_TRUE(message.ok()) << message.status().ToString();
  json expected = node;
  expected.erase("apiVersion");
  expected.erase("kind");
  EXPECT_EQ(*message, expected) << json::diff(expected, *message);
  EXPECT_FALSE(DecodeMessage(std::string("\x0a\x05"
                                         "ab"),
                             Spec("v1", "Node"))
                   .ok());  // truncated field
}

// Other kinds through the round trip: the Go field semantics the decoder restores (pointers at
// 0, inline structs, IntOrStrings, MicroTimes, bytes) survive the encoder.
TEST(EncodeObjectTest, RoundTripsOtherKinds) {
  const std::vector<std::string> objects = {
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bin"},
          "data":{"a":"","b":"x"},"binaryData":{"blob":"/wAB","one":"YQ==","empty":""},
          "immutable":false})",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},
          "spec":{"volumes":[{"name":"cfg","configMap":{"name":"cm","defaultMode":420}},
                             {"name":"scratch","emptyDir":{"sizeLimit":"1Gi"}}],
                  "containers":[{"name":"c","image":"img","resources":{
                                   "limits":{"nvidia.com/gpu":"1"}},
                                 "ports":[{"containerPort":0}],
                                 "livenessProbe":{"httpGet":{"port":"http"}},
                                 "securityContext":{"runAsUser":0,"privileged":false}}],
                  "terminationGracePeriodSeconds":0,"priority":-5,
                  "securityContext":{"supplementalGroups":[1,300]},
                  "tolerations":[{"key":"k","operator":"Exists","tolerationSeconds":0}]},
          "status":{}})",
      R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"pdb"},
          "spec":{"minAvailable":"50%","maxUnavailable":0},
          "status":{"observedGeneration":2,"disruptionsAllowed":0,"currentHealthy":0,
                    "desiredHealthy":0,"expectedPods":0,
                    "disruptedPods":{"p-1":"2026-11-29T22:40:00Z"}}})",
      R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"ml"},
          "involvedObject":{"kind":"Pod","name":"trainer-0"},"source":{},
          "eventTime":"2026-11-29T22:50:22.123456Z",
          "series":{"count":3,"lastObservedTime":"2026-11-29T22:50:22.000500Z"},
          "reportingComponent":"default-scheduler","reportingInstance":""})",
      R"({"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,
          "preconditions":{},"dryRun":["All"]})",
  };
  for (const std::string& text : objects) {
    const json obj = json::parse(text);
    SCOPED_TRACE(obj.value("kind", ""));
    auto body = EncodeObject(obj);
    ASSERT_TRUE(body.ok()) << body.status().ToString();
    auto back = DecodeObject(*body);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, obj) << json::diff(obj, *back);
  }
}

// Every other kind the server serves and a Go controller writes, through the round trip, with
// the fields their Go types make pointers (written at 0/false/""), inline structs (a
// PersistentVolume's source), nested lists and maps.
TEST(EncodeObjectTest, RoundTripsServedKinds) {
  const std::vector<std::string> objects = {
      R"({"apiVersion":"policy/v1","kind":"Eviction",
          "metadata":{"name":"trainer-0","namespace":"ml"},
          "deleteOptions":{"gracePeriodSeconds":0,"preconditions":{"resourceVersion":"7"},
                           "dryRun":["All"]}})",
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
          "metadata":{"name":"cluster-autoscaler","namespace":"kube-system"},
          "spec":{"holderIdentity":"ca-1","leaseDurationSeconds":15,
                  "acquireTime":"2026-11-29T22:50:00.000000Z",
                  "renewTime":"2026-11-29T22:50:22.123456Z","leaseTransitions":0,
                  "strategy":"OldestEmulationVersion","preferredHolder":""}})",
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","namespace":"default"},
          "target":{"kind":"Node","name":"n1"}})",
      R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-1"},
          "spec":{"capacity":{"storage":"10Gi"},
                  "csi":{"driver":"pd.csi.storage.gke.io","volumeHandle":"vol-1",
                         "readOnly":true,"volumeAttributes":{"a":"b"},
                         "nodeStageSecretRef":{"name":"s","namespace":"ns"}},
                  "accessModes":["ReadWriteOnce"],
                  "claimRef":{"kind":"PersistentVolumeClaim","namespace":"ml","name":"data"},
                  "persistentVolumeReclaimPolicy":"Delete","storageClassName":"standard",
                  "mountOptions":["noatime"],"volumeMode":"Filesystem",
                  "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
                      {"key":"topology.kubernetes.io/zone","operator":"In",
                       "values":["us-central1-a"]}]}]}},
                  "volumeAttributesClassName":""},
          "status":{"phase":"Bound","lastPhaseTransitionTime":"2026-11-29T22:50:00Z"}})",
      R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-local"},
          "spec":{"local":{"path":"/mnt/disks/ssd0","fsType":""},
                  "hostPath":{"path":"/tmp","type":""},
                  "iscsi":{"targetPortal":"10.0.0.1:3260","iqn":"iqn.x","lun":0,
                           "portals":["a",""],"secretRef":{},"initiatorName":""},
                  "azureFile":{"secretName":"s","shareName":"sh","secretNamespace":""},
                  "scaleIO":{"gateway":"g","system":"s","secretRef":{"name":"x"}},
                  "storageos":{"secretRef":{"name":"so"}},
                  "glusterfs":{"endpoints":"e","path":"p","endpointsNamespace":"ns"},
                  "rbd":{"monitors":["m1"],"image":"i","secretRef":{"name":"r"}},
                  "cephfs":{"monitors":["m"],"secretRef":{"namespace":"c"}},
                  "cinder":{"volumeID":"v","secretRef":{}},
                  "flexVolume":{"driver":"d","options":{"k":"v"},"secretRef":{}}},
          "status":{}})",
      R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
          "metadata":{"name":"data","namespace":"ml"},
          "spec":{"accessModes":["ReadWriteOnce"],
                  "resources":{"requests":{"storage":"10Gi"}},
                  "storageClassName":"standard","volumeName":"pv-1"},
          "status":{"phase":"Bound","capacity":{"storage":"10Gi"}}})",
      R"({"apiVersion":"v1","kind":"ReplicationController",
          "metadata":{"name":"rc","namespace":"default"},
          "spec":{"replicas":0,"selector":{"app":"web"},"minReadySeconds":5,
                  "template":{"metadata":{"labels":{"app":"web"}},
                              "spec":{"containers":[{"name":"c","image":"nginx",
                                                     "resources":{}}]}}},
          "status":{"replicas":0,"observedGeneration":3,"readyReplicas":1,
                    "conditions":[{"type":"ReplicaFailure","status":"True",
                                   "lastTransitionTime":"2026-11-29T22:50:00Z",
                                   "reason":"FailedCreate"}]}})",
      R"({"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"svc","namespace":"default"},
          "subsets":[{"addresses":[{"ip":"10.0.0.5","hostname":"h","nodeName":"n1",
                                    "targetRef":{"kind":"Pod","name":"p"}}],
                      "notReadyAddresses":[{"ip":""}],
                      "ports":[{"name":"http","port":0,"protocol":"TCP","appProtocol":""}]}]})",
      R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
          "metadata":{"name":"standard",
                      "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
          "provisioner":"pd.csi.storage.gke.io","parameters":{"type":"pd-balanced"},
          "reclaimPolicy":"Delete","mountOptions":["debug"],"allowVolumeExpansion":false,
          "volumeBindingMode":"WaitForFirstConsumer",
          "allowedTopologies":[{"matchLabelExpressions":[
              {"key":"topology.kubernetes.io/zone","values":["a","b"]}]}]})",
      R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"bare"},
          "provisioner":""})",
      R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n1"},
          "spec":{"drivers":[{"name":"pd.csi.storage.gke.io","nodeID":"n1",
                              "topologyKeys":["topology.gke.io/zone"],
                              "allocatable":{"count":0}},
                             {"name":"other","nodeID":""}]}})",
      R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"d"},
          "spec":{"attachRequired":false,"podInfoOnMount":true,
                  "volumeLifecycleModes":["Persistent","Ephemeral"],"storageCapacity":true,
                  "fsGroupPolicy":"File",
                  "tokenRequests":[{"audience":"a","expirationSeconds":0},{"audience":""}],
                  "requiresRepublish":false,"seLinuxMount":true}})",
      // RawExtension: the data travels as its JSON text in raw (field 1).
      R"({"apiVersion":"apps/v1","kind":"ControllerRevision",
          "metadata":{"name":"web-6c5d8f7b9","namespace":"default",
                      "labels":{"controller.kubernetes.io/hash":"6c5d8f7b9"}},
          "data":{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},
                                      "spec":{"containers":[{"image":"nginx","name":"c"}]}}}},
          "revision":3})",
      R"({"apiVersion":"apps/v1","kind":"ControllerRevision",
          "metadata":{"name":"empty","namespace":"default"},"revision":0})",
      // certificates.k8s.io/v1: bytes in base64, the ExtraValue map, conditions with times.
      R"({"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest",
          "metadata":{"name":"alice","uid":"9d1c7e0a-uid","resourceVersion":"812",
                      "creationTimestamp":"2026-11-29T22:40:00Z"},
          "spec":{"request":"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
                  "signerName":"kubernetes.io/kube-apiserver-client","expirationSeconds":600,
                  "usages":["digital signature","key encipherment","client auth"],
                  "username":"kubernetes-admin","uid":"u-1",
                  "groups":["kubeadm:cluster-admins","system:authenticated"],
                  "extra":{"authentication.kubernetes.io/credential-id":["X509SHA256=ab12"],
                           "scopes":["a","","b"],"empty":[]}},
          "status":{"conditions":[{"type":"Approved","status":"True","reason":"KubectlApprove",
                                   "message":"This CSR was approved by kubectl certificate approve.",
                                   "lastUpdateTime":"2026-11-29T22:50:22Z",
                                   "lastTransitionTime":"2026-11-29T22:50:22Z"}],
                    "certificate":"AP8="}})",
      R"({"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest",
          "metadata":{"name":"bare"},"spec":{"request":"","signerName":"","expirationSeconds":0},
          "status":{}})",
      R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity",
          "metadata":{"name":"cap","namespace":"kube-system"},
          "nodeTopology":{"matchLabels":{"topology.gke.io/zone":"a"}},
          "storageClassName":"standard","capacity":"100Gi","maximumVolumeSize":"0"})",
  };
  for (const std::string& text : objects) {
    const json obj = json::parse(text);
    SCOPED_TRACE(obj.value("kind", "") + " " + obj["metadata"].value("name", ""));
    auto body = EncodeObject(obj);
    ASSERT_TRUE(body.ok()) << body.status().ToString();
    auto back = DecodeObject(*body);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, obj) << json::diff(obj, *back);
  }
}

// Times of any RFC 3339 form come back as metav1.Time writes them (UTC, seconds): offsets,
// fractions, and years 0000-9999, beyond std::chrono's nanosecond TimePoint.
TEST(EncodeObjectTest, TimesRoundTrip) {
  struct Case {
    std::string in;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"2026-11-29T22:40:00Z", "2026-11-29T22:40:00Z"},
      {"2026-11-29T23:40:00+01:00", "2026-11-29T22:40:00Z"},
      {"2026-11-29T22:40:00.999999999Z", "2026-11-29T22:40:00Z"},
      {"1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59Z"},
      {"0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"},
      {"0000-03-01T00:00:00Z", "0000-03-01T00:00:00Z"},
      {"1600-02-29T12:00:00Z", "1600-02-29T12:00:00Z"},
      {"9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.in);
    const json cm = {
        {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"creationTimestamp", tc.in}}}};
    auto body = EncodeObject(cm);
    ASSERT_TRUE(body.ok()) << body.status().ToString();
    auto back = DecodeObject(*body);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->at("metadata").value("creationTimestamp", ""), tc.want);
  }
}

TEST(EncodeObjectTest, ExactBytes) {
  struct Case {
    std::string name;
    std::string api_version;
    std::string kind;
    std::string object;  // JSON, encoded with EncodeMessage
    std::string want;
  };
  const std::vector<Case> cases = {
      {"map entries in sorted key order (bytewise: upper case first)", "v1", "ConfigMap",
       R"({"metadata":{"labels":{"b":"2","a":"1","B":"0","a/b":""}}})",
       Bytes(1, Entry(11, "B", "0") + Entry(11, "a", "1") + Entry(11, "a/b", "") +
                    Entry(11, "b", "2"))},
      {"fields in field-number order, whatever the JSON's", "v1", "ConfigMap",
       R"({"immutable":true,"data":{"k":"v"},"metadata":{"namespace":"ns","name":"n"}})",
       Bytes(1, Bytes(1, "n") + Bytes(3, "ns")) + Entry(2, "k", "v") + Int(4, 1)},
      {"present zero values are written, absent and null ones are not", "v1", "ConfigMap",
       R"({"metadata":{"name":"","generation":0,"uid":null},"immutable":false,"data":{}})",
       Bytes(1, Bytes(1, "") + Int(7, 0)) + Int(4, 0)},
      {"unknown keys are ignored", "v1", "ConfigMap",
       R"({"apiVersion":"v1","kind":"ConfigMap","spec":{"x":1},"metadata":{"bogus":[1]}})",
       Bytes(1, "")},
      {"binaryData: base64 to raw bytes", "v1", "ConfigMap",
       R"({"binaryData":{"blob":"/wAB","one":"YQ==","two":"YWI=","empty":""}})",
       Entry(3, "blob", std::string("\xff\x00\x01", 3)) + Entry(3, "empty", "") +
           Entry(3, "one", "a") + Entry(3, "two", "ab")},
      {"int32 -1 is a sign-extended 10-byte varint", "v1", "Pod", R"({"spec":{"priority":-1}})",
       FromHex("12 0c c8 01 ff ff ff ff ff ff ff ff ff 01")},
      {"int32 max and int64 beyond int32", "apps/v1", "Deployment",
       R"({"spec":{"replicas":2147483647},"metadata":{"generation":4294967296}})",
       Bytes(1, Int(7, 4294967296)) + Bytes(2, FromHex("08 ff ff ff ff 07"))},
      {"IntOrString int and string", "policy/v1", "PodDisruptionBudget",
       R"({"spec":{"minAvailable":2,"maxUnavailable":"25%"}})",
       FromHex("12 0f  0a 04 08 00 10 02  1a 07 08 01 1a 03 32 35 25")},
      {"IntOrString negative int and 0", "policy/v1", "PodDisruptionBudget",
       R"({"spec":{"minAvailable":0,"maxUnavailable":-1}})",
       Bytes(2, Bytes(1, Int(1, 0) + Int(2, 0)) + Bytes(3, Int(1, 0) + Int(2, -1)))},
      {"Time with nanos; nanos left out when 0", "v1", "ConfigMap",
       R"({"metadata":{"creationTimestamp":"1970-01-01T00:00:01.5Z",
                       "deletionTimestamp":"2026-01-01T00:00:00Z"}})",
       FromHex("0a 12  42 08 08 01 10 80 ca b5 ee 01  4a 06 08 80 f2 d6 ca 06")},
      {"Time before the epoch: nanos count forward", "v1", "ConfigMap",
       R"({"metadata":{"creationTimestamp":"1969-12-31T23:59:59.25Z"}})",
       Bytes(1, Bytes(8, Int(1, -1) + Int(2, 250000000)))},
      {"MicroTime", "v1", "Event", R"({"eventTime":"2026-11-29T22:50:22.123456Z"})",
       Bytes(10, Int(1, 1795992622) + Int(2, 123456000))},
      {"Quantity map: sorted, {1: string}; a JSON number as its text", "v1", "Node",
       R"({"status":{"capacity":{"nvidia.com/gpu":8,"cpu":"96","memory":"1Gi"}}})",
       Bytes(3, Entry(1, "cpu", Bytes(1, "96")) + Entry(1, "memory", Bytes(1, "1Gi")) +
                    Entry(1, "nvidia.com/gpu", Bytes(1, "8")))},
      {"Time map (PDB disruptedPods)", "policy/v1", "PodDisruptionBudget",
       R"({"status":{"disruptedPods":{"p":"1970-01-01T00:00:10Z","q":null}}})",
       Bytes(3, Entry(2, "p", Int(1, 10)) + Entry(2, "q", ""))},
      {"repeated scalars unpacked, repeated messages one field each", "v1", "Pod",
       R"({"spec":{"securityContext":{"supplementalGroups":[1,300]},
                   "imagePullSecrets":[{"name":"a"},{}]}})",
       Bytes(2, Bytes(14, Int(4, 1) + Int(4, 300)) + Bytes(15, Bytes(1, "a")) + Bytes(15, ""))},
      {"repeated strings keep empty elements", "v1", "ConfigMap",
       R"({"metadata":{"finalizers":["a","",null]}})",
       Bytes(1, Bytes(14, "a") + Bytes(14, "") + Bytes(14, ""))},
      {"inline structs: fields from the parent object, always written", "v1", "Pod",
       R"({"spec":{"volumes":[{"name":"v","configMap":{"name":"cm","defaultMode":420}},
                              {"name":"w"}]}})",
       Bytes(2,
             Bytes(1, Bytes(1, "v") + Bytes(2, Bytes(19, Bytes(1, Bytes(1, "cm")) + Int(3, 420)))) +
                 Bytes(1, Bytes(1, "w") + Bytes(2, "")))},
      {"ExtraValue map: sorted, each value written even when empty or null, null items \"\"",
       "certificates.k8s.io/v1", "CertificateSigningRequest",
       R"({"spec":{"extra":{"b":["x",null,""],"a":[],"c":null}}})",
       Bytes(2,
             Bytes(6, Bytes(1, "a") + Bytes(2, "")) +
                 Bytes(6, Bytes(1, "b") + Bytes(2, Bytes(1, "x") + Bytes(1, "") + Bytes(1, ""))) +
                 Bytes(6, Bytes(1, "c") + Bytes(2, "")))},
      {"CSR spec in field-number order: request raw bytes, expirationSeconds a varint",
       "certificates.k8s.io/v1", "CertificateSigningRequest",
       R"({"spec":{"expirationSeconds":600,"signerName":"s","usages":["client auth"],
                   "groups":["g"],"uid":"u","username":"n","request":"AP8="},
           "status":{"certificate":"YQ==","conditions":[{"status":"True","type":"Approved"}]}})",
       Bytes(2, Bytes(1, std::string("\x00\xff", 2)) + Bytes(2, "n") + Bytes(3, "u") +
                    Bytes(4, "g") + Bytes(5, "client auth") + Bytes(7, "s") + Int(8, 600)) +
           Bytes(3, Bytes(1, Bytes(1, "Approved") + Bytes(6, "True")) + Bytes(2, "a"))},
      {"Node taints with timeAdded", "v1", "Node",
       R"({"spec":{"taints":[{"key":"k","effect":"NoSchedule","timeAdded":"1970-01-01T00:01:00Z"}]}})",
       Bytes(2, Bytes(5, Bytes(1, "k") + Bytes(3, "NoSchedule") + Bytes(4, Int(1, 60))))},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = EncodeMessage(json::parse(tc.object), Spec(tc.api_version, tc.kind));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(ToHex(*got), ToHex(tc.want));
  }
}

// The whole body for a ConfigMap with one data key, byte for byte.
TEST(EncodeObjectTest, ExactEnvelope) {
  auto got = EncodeObject(json::parse(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}})"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(ToHex(*got), ToHex(FromHex(R"(
      6b387300
      0a 0f  0a 02 7631  12 09 436f6e6669674d6170
      12 0d  0a 03 0a 01 63  12 06 0a 01 6b 12 01 76
      1a 00  22 00)")));
}

TEST(EncodeObjectTest, Errors) {
  struct Case {
    std::string name;
    std::string object;
    StatusCode code;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"not an object", R"([1,2])", StatusCode::kInvalidArgument, "expected an object"},
      {"no apiVersion", R"({"kind":"ConfigMap"})", StatusCode::kInvalidArgument,
       "apiVersion: missing"},
      {"empty kind", R"({"apiVersion":"v1","kind":""})", StatusCode::kInvalidArgument,
       "kind: missing"},
      {"null kind", R"({"apiVersion":"v1","kind":null})", StatusCode::kInvalidArgument,
       "kind: missing"},
      {"apiVersion not a string", R"({"apiVersion":1,"kind":"ConfigMap"})",
       StatusCode::kInvalidArgument, "apiVersion: expected a string"},
      {"unsupported kind", R"({"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy"})",
       StatusCode::kUnimplemented,
       R"(protobuf bodies of kind "NetworkPolicy" in version "networking.k8s.io/v1" are not supported; )"
       "send application/json"},
      {"supported kind in another version", R"({"apiVersion":"apps/v1","kind":"ConfigMap"})",
       StatusCode::kUnimplemented,
       R"(protobuf bodies of kind "ConfigMap" in version "apps/v1" are not supported; )"
       "send application/json"},
      {"metadata not an object", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":"x"})",
       StatusCode::kInvalidArgument, "metadata: expected an object"},
      {"labels not an object",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":["a"]}})",
       StatusCode::kInvalidArgument, "metadata.labels: expected an object"},
      {"label value not a string",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"app":1}}})",
       StatusCode::kInvalidArgument, "metadata.labels[app]: expected a string"},
      {"name not a string", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":7}})",
       StatusCode::kInvalidArgument, "metadata.name: expected a string"},
      {"immutable not a boolean", R"({"apiVersion":"v1","kind":"ConfigMap","immutable":"true"})",
       StatusCode::kInvalidArgument, "immutable: expected a boolean"},
      {"bad base64", R"({"apiVersion":"v1","kind":"ConfigMap","binaryData":{"blob":"ab!d"}})",
       StatusCode::kInvalidArgument, "binaryData[blob]: illegal base64 data at input byte 2"},
      {"base64 without padding", R"({"apiVersion":"v1","kind":"Secret","data":{"p":"YWI"}})",
       StatusCode::kInvalidArgument, "data[p]: illegal base64 data at input byte 3"},
      {"taints not an array", R"({"apiVersion":"v1","kind":"Node","spec":{"taints":{}}})",
       StatusCode::kInvalidArgument, "spec.taints: expected an array"},
      {"taint key not a string",
       R"({"apiVersion":"v1","kind":"Node","spec":{"taints":[{"key":"a"},{"key":false}]}})",
       StatusCode::kInvalidArgument, "spec.taints[1].key: expected a string"},
      {"taint element not an object",
       R"({"apiVersion":"v1","kind":"Node","spec":{"taints":["NoSchedule"]}})",
       StatusCode::kInvalidArgument, "spec.taints[0]: expected an object"},
      {"timeAdded not RFC 3339",
       R"({"apiVersion":"v1","kind":"Node","spec":{"taints":[{"timeAdded":"yesterday"}]}})",
       StatusCode::kInvalidArgument,
       R"(spec.taints[0].timeAdded: parsing time "yesterday" as RFC 3339: cannot parse)"},
      {"a time far in the past keeps the text as sent",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":"0001-13-01T00:00:00Z"}})",
       StatusCode::kInvalidArgument,
       R"(metadata.creationTimestamp: parsing time "0001-13-01T00:00:00Z" as RFC 3339: )"
       "cannot parse"},
      {"time not a string",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":0}})",
       StatusCode::kInvalidArgument, "metadata.creationTimestamp: expected a string"},
      {"capacity value not a quantity",
       R"({"apiVersion":"v1","kind":"Node","status":{"capacity":{"cpu":true}}})",
       StatusCode::kInvalidArgument, "status.capacity[cpu]: expected a string or a number"},
      {"empty quantity", R"({"apiVersion":"v1","kind":"Node","status":{"capacity":{"cpu":""}}})",
       StatusCode::kInvalidArgument,
       "status.capacity[cpu]: quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"replicas a float",
       R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1.5}})",
       StatusCode::kInvalidArgument, "spec.replicas: expected an integer"},
      {"replicas beyond int32",
       R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3000000000}})",
       StatusCode::kInvalidArgument, "spec.replicas: 3000000000 is out of range for int32"},
      {"replicas below int32",
       R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":-2147483649}})",
       StatusCode::kInvalidArgument, "spec.replicas: -2147483649 is out of range for int32"},
      {"generation beyond int64",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generation":18446744073709551615}})",
       StatusCode::kInvalidArgument,
       "metadata.generation: 18446744073709551615 is out of range for int64"},
      {"IntOrString a boolean",
       R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","spec":{"minAvailable":true}})",
       StatusCode::kInvalidArgument, "spec.minAvailable: expected an integer or a string"},
      {"IntOrString beyond int32",
       R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","spec":{"maxUnavailable":4294967296}})",
       StatusCode::kInvalidArgument, "spec.maxUnavailable: 4294967296 is out of range for int32"},
      {"a field of an inline struct, named under the parent",
       R"({"apiVersion":"v1","kind":"Pod",
           "spec":{"volumes":[{"name":"v","configMap":{"name":["cm"]}}]}})",
       StatusCode::kInvalidArgument, "spec.volumes[0].configMap.name: expected a string"},
      {"an inline struct's field in the parent object",
       R"({"apiVersion":"v1","kind":"Pod","spec":{"volumes":[{"name":"v","hostPath":1}]}})",
       StatusCode::kInvalidArgument, "spec.volumes[0].hostPath: expected an object"},
      {"an ExtraValue not an array",
       R"({"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest",
           "spec":{"extra":{"k":"v"}}})",
       StatusCode::kInvalidArgument, "spec.extra[k]: expected an array"},
      {"an ExtraValue item not a string",
       R"({"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest",
           "spec":{"extra":{"k":["a",1]}}})",
       StatusCode::kInvalidArgument, "spec.extra[k][1]: expected a string"},
      {"extra not an object",
       R"({"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest",
           "spec":{"extra":[["a"]]}})",
       StatusCode::kInvalidArgument, "spec.extra: expected an object"},
      {"a CSR request not base64",
       R"({"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest",
           "spec":{"request":"-----BEGIN"}})",
       StatusCode::kInvalidArgument, "spec.request: illegal base64 data at input byte 0"},
      {"a list element of the wrong type",
       R"({"apiVersion":"v1","kind":"Pod","spec":{"securityContext":{"supplementalGroups":["1"]}}})",
       StatusCode::kInvalidArgument,
       "spec.securityContext.supplementalGroups[0]: expected an integer"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = EncodeObject(json::parse(tc.object));
    ASSERT_FALSE(got.ok()) << ToHex(*got);
    EXPECT_EQ(got.status().code(), tc.code);
    EXPECT_EQ(got.status().message(), tc.want);
  }
}

TEST(EncodeMessageTest, RequiresAnObject) {
  for (const char* text : {"null", "1", R"("x")", "[]"}) {
    SCOPED_TRACE(text);
    auto got = EncodeMessage(json::parse(text), Spec("v1", "Node"));
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), "expected an object");
  }
  auto empty = EncodeMessage(json::object(), Spec("v1", "Node"));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(*empty, "");
}

}  // namespace
}  // namespace tidepool::apiserver::protobuf

namespace tidepool::apiserver::protobuf {
namespace {

// A LIST answer: the envelope names "<Kind>List", ListMeta is field 1 and each item field 2;
// DecodeList gives the list back, items without apiVersion and kind as on the wire.
TEST(ListEncoderTest, ListsRoundTrip) {
  struct Case {
    std::string api_version, kind;
    std::string meta;
    std::vector<std::string> items;
  };
  const std::vector<Case> cases = {
      {"v1",
       "Pod",
       R"({"resourceVersion":"42"})",
       {R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ml"},
            "spec":{"containers":[{"name":"c","image":"i","resources":{}}]},"status":{}})",
        R"({"metadata":{"name":"b"},"spec":{},"status":{"phase":"Running"}})"}},
      {"coordination.k8s.io/v1",
       "Lease",
       R"({"resourceVersion":"7","continue":"x",
                                              "remainingItemCount":0})",
       {R"({"metadata":{"name":"n1","namespace":"kube-node-lease"},
            "spec":{"holderIdentity":"n1","renewTime":"2026-11-29T22:50:22.000001Z"}})"}},
      {"storage.k8s.io/v1", "CSINode", R"({})", {}},
      {"certificates.k8s.io/v1",
       "CertificateSigningRequest",
       R"({"resourceVersion":"9"})",
       {R"({"metadata":{"name":"alice"},
            "spec":{"request":"AP8=","signerName":"kubernetes.io/kube-apiserver-client",
                    "extra":{"k":["v"]}},
            "status":{"conditions":[{"type":"Approved","status":"True",
                                     "lastUpdateTime":"2026-11-29T22:50:22Z"}]}})"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.kind);
    auto e = ListEncoder::Start(tc.api_version, tc.kind, json::parse(tc.meta));
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    json want = {{"apiVersion", tc.api_version},
                 {"kind", tc.kind + "List"},
                 {"metadata", json::parse(tc.meta)},
                 {"items", json::array()}};
    for (const std::string& text : tc.items) {
      json item = json::parse(text);
      ASSERT_TRUE(e->Add(item).ok());
      item.erase("apiVersion");
      item.erase("kind");
      want["items"].push_back(item);
    }
    const std::string body = e->Finish();
    ASSERT_EQ(body.substr(0, 4), std::string("k8s\0", 4));
    auto back = DecodeList(body);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, want) << json::diff(want, *back);
  }
}

TEST(ListEncoderTest, Errors) {
  auto e = ListEncoder::Start("networking.k8s.io/v1", "NetworkPolicy", json::object());
  EXPECT_EQ(e.status().code(), StatusCode::kUnimplemented);
  auto p = ListEncoder::Start("v1", "Pod", json::object());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->Add(json::parse(R"({"metadata":{"name":5}})")).message(),
            "metadata.name: expected a string");
  p = ListEncoder::Start("v1", "Pod", json::object());
  EXPECT_EQ(DecodeList(p->Finish())->at("items"), json::array());
  EXPECT_EQ(
      DecodeList(*EncodeObject(json::parse(R"({"apiVersion":"v1","kind":"Pod"})"))).status().code(),
      StatusCode::kUnimplemented);  // "Pod" is no list
}

// A watch event: 4-byte big-endian length, then WatchEvent{1: type, 2: RawExtension{1: the
// object's whole body}}; an ERROR event's Status and a BOOKMARK's bare object encode too.
TEST(EncodeWatchEventTest, FramesAndDecodes) {
  struct Case {
    std::string type, object;
  };
  const std::vector<Case> cases = {
      {"ADDED", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},
                    "data":{"k":"v"}})"},
      {"BOOKMARK", R"({"apiVersion":"v1","kind":"Pod",
                       "metadata":{"resourceVersion":"12"},"spec":{},"status":{}})"},
      {"ERROR", R"({"apiVersion":"v1","kind":"Status","metadata":{},"status":"Failure",
                    "message":"too old resource version: 1, 5","reason":"Expired",
                    "code":410})"},
      {"DELETED", R"({"apiVersion":"v1","kind":"Status","metadata":{"resourceVersion":"3"},
                      "status":"Failure","details":{"name":"p","kind":"pods","causes":[
                          {"reason":"FieldValueInvalid","message":"m","field":"f"}],
                          "retryAfterSeconds":1},"code":500})"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.type);
    const json obj = json::parse(tc.object);
    auto frame = EncodeWatchEvent(tc.type, obj);
    ASSERT_TRUE(frame.ok()) << frame.status().ToString();
    ASSERT_GE(frame->size(), 4u);
    const auto* b = reinterpret_cast<const unsigned char*>(frame->data());
    const uint32_t n = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
    EXPECT_EQ(n, frame->size() - 4);
    Reader r(std::string_view(*frame).substr(4), "WatchEvent");
    std::string type;
    std::string_view raw;
    while (!r.Done()) {
      auto f = r.Next();
      ASSERT_TRUE(f.ok());
      if (f->number == 1) type = std::string(f->bytes);
      if (f->number == 2) {
        Reader x(f->bytes, "RawExtension");
        auto g = x.Next();
        ASSERT_TRUE(g.ok());
        EXPECT_EQ(g->number, 1u);
        raw = g->bytes;
      }
    }
    EXPECT_EQ(type, tc.type);
    auto back = DecodeObject(raw);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, obj) << json::diff(obj, *back);
  }
  EXPECT_EQ(
      EncodeWatchEvent("ADDED", json::parse(R"({"apiVersion":"x/v9","kind":"Y"})")).status().code(),
      StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tidepool::apiserver::protobuf
