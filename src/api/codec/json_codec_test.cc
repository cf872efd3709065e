#include "api/codec/json_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "api/codec/config_fields.h"
#include "testing/builders.h"

namespace tidepool::api::codec {
namespace {

using ::nlohmann::json;
using ::testing::HasSubstr;
using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;
using ::tidepool::testing::Q;
using ::tidepool::testing::Term;

json J(std::string_view text) {
  auto j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << j.status().ToString() << "\n" << text;
  return j.ok() ? *j : json();
}

TimePoint At(int64_t unix_seconds) { return TimePoint(std::chrono::seconds(unix_seconds)); }

constexpr int64_t k2026 = 1767225600;  // 2026-01-01T00:00:00Z

// Every modeled Pod field, written as PodToJson writes it (canonical quantities, sorted keys).
constexpr std::string_view kFullPod = R"({
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "name": "trainer-0",
    "generateName": "trainer-",
    "namespace": "ml",
    "uid": "0b5c3a1e-uid",
    "resourceVersion": "42",
    "generation": 3,
    "creationTimestamp": "2026-01-01T00:00:00Z",
    "deletionTimestamp": "2026-01-01T01:00:00Z",
    "labels": {"app": "trainer", "tier": "gpu"},
    "annotations": {"note": "hello"},
    "ownerReferences": [
      {"apiVersion": "batch/v1", "kind": "Job", "name": "trainer", "uid": "job-uid",
       "controller": true, "blockOwnerDeletion": false},
      {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "cm-uid"}
    ]
  },
  "spec": {
    "initContainers": [
      {"name": "setup", "image": "busybox", "command": ["sh", "-c"], "args": ["echo hi"],
       "resources": {"requests": {"cpu": "100m"}}},
      {"name": "proxy", "image": "envoy", "restartPolicy": "Always",
       "resources": {"requests": {"memory": "64Mi"}, "limits": {"memory": "128Mi"}}}
    ],
    "containers": [
      {"name": "main", "image": "nvidia/cuda:11.4.2-base-ubuntu20.04",
       "command": ["/bin/bash", "-c", "sleep 3600"],
       "resources": {"requests": {"cpu": "1500m", "memory": "1536Mi"},
                     "limits": {"memory": "2Gi", "nvidia.com/gpu": "1"}}}
    ],
    "overhead": {"cpu": "250m"},
    "nodeSelector": {"cloud.google.com/gke-nodepool": "gpu-pool"},
    "affinity": {
      "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
          "nodeSelectorTerms": [
            {"matchExpressions": [
               {"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]},
               {"key": "gpu-count", "operator": "Gt", "values": ["0"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]},
            {}
          ]
        },
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 10, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}},
          {"weight": 1, "preference": {}}
        ]
      }
    },
    "tolerations": [
      {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
      {"operator": "Exists"},
      {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 300}
    ],
    "nodeName": "gpu-node-1",
    "schedulerName": "my-scheduler",
    "priority": 1000,
    "priorityClassName": "high",
    "preemptionPolicy": "Never",
    "restartPolicy": "Never",
    "terminationGracePeriodSeconds": 30
  },
  "status": {
    "phase": "Running",
    "conditions": [
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-01-01T00:00:05Z"},
      {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": "waiting",
       "lastProbeTime": "2026-01-01T00:00:06Z", "lastTransitionTime": "2026-01-01T00:00:07Z"}
    ],
    "nominatedNodeName": "gpu-node-2",
    "startTime": "2026-01-01T00:00:10Z",
    "reason": "Evicted",
    "message": "low on memory"
  }
})";

constexpr std::string_view kFullNode = R"({
  "apiVersion": "v1",
  "kind": "Node",
  "metadata": {
    "name": "gpu-node-1",
    "uid": "node-uid",
    "resourceVersion": "7",
    "creationTimestamp": "2026-01-01T00:00:00Z",
    "labels": {"kubernetes.io/hostname": "gpu-node-1", "nvidia.com/gpu.present": "true"}
  },
  "spec": {
    "unschedulable": true,
    "taints": [
      {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
      {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
       "timeAdded": "2026-01-01T00:05:00Z"},
      {"key": "maintenance", "effect": "PreferNoSchedule"}
    ],
    "providerID": "gce://project/us-central1-a/gpu-node-1"
  },
  "status": {
    "capacity": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4", "pods": "110"},
    "allocatable": {"cpu": "7910m", "memory": "30Gi", "nvidia.com/gpu": "4", "pods": "110"},
    "conditions": [
      {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is ready",
       "lastHeartbeatTime": "2026-01-01T00:10:00Z", "lastTransitionTime": "2026-01-01T00:01:00Z"},
      {"type": "MemoryPressure", "status": "False"}
    ]
  }
})";

// Taint's operator== ignores time_added, so round trips compare it separately.
void ExpectSameTaintTimes(const Node& a, const Node& b) {
  ASSERT_EQ(a.spec.taints.size(), b.spec.taints.size());
  for (size_t i = 0; i < a.spec.taints.size(); ++i) {
    EXPECT_EQ(a.spec.taints[i].time_added, b.spec.taints[i].time_added) << "taint " << i;
  }
}

TEST(JsonCodecTest, FullPodDecodesEveryField) {
  auto pod = PodFromJson(J(kFullPod));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  const ObjectMeta& m = pod->meta;
  EXPECT_EQ(m.name, "trainer-0");
  EXPECT_EQ(m.generate_name, "trainer-");
  EXPECT_EQ(m.namespace_, "ml");
  EXPECT_EQ(m.uid, "0b5c3a1e-uid");
  EXPECT_EQ(m.resource_version, "42");
  EXPECT_EQ(m.generation, 3);
  EXPECT_EQ(m.creation_timestamp, At(k2026));
  EXPECT_EQ(m.deletion_timestamp, At(k2026 + 3600));
  EXPECT_EQ(m.labels, (Labels{{"app", "trainer"}, {"tier", "gpu"}}));
  EXPECT_EQ(m.annotations.at("note"), "hello");
  ASSERT_EQ(m.owner_references.size(), 2u);
  EXPECT_EQ(m.owner_references[0],
            (OwnerReference{"batch/v1", "Job", "trainer", "job-uid", true, false}));
  EXPECT_EQ(m.owner_references[1],
            (OwnerReference{"v1", "ConfigMap", "cm", "cm-uid", std::nullopt, std::nullopt}));

  const PodSpec& s = pod->spec;
  ASSERT_EQ(s.init_containers.size(), 2u);
  EXPECT_EQ(s.init_containers[0].command, (std::vector<std::string>{"sh", "-c"}));
  EXPECT_EQ(s.init_containers[0].args, (std::vector<std::string>{"echo hi"}));
  EXPECT_EQ(s.init_containers[0].restart_policy, std::nullopt);
  EXPECT_EQ(s.init_containers[1].restart_policy, "Always");
  EXPECT_EQ(s.init_containers[1].resources.limits.at("memory"), Q("128Mi"));
  ASSERT_EQ(s.containers.size(), 1u);
  EXPECT_EQ(s.containers[0].image, "nvidia/cuda:11.4.2-base-ubuntu20.04");
  EXPECT_EQ(s.containers[0].resources.requests.at("cpu"), Q("1.5"));
  EXPECT_EQ(s.containers[0].resources.limits.at("nvidia.com/gpu"), Q("1"));
  EXPECT_EQ(s.overhead.at("cpu"), Q("250m"));
  EXPECT_EQ(s.node_selector.at("cloud.google.com/gke-nodepool"), "gpu-pool");
  ASSERT_TRUE(s.affinity && s.affinity->node_affinity && s.affinity->node_affinity->required);
  const NodeAffinity& na = *s.affinity->node_affinity;
  ASSERT_EQ(na.required->terms.size(), 3u);
  EXPECT_EQ(na.required->terms[0].match_expressions[1],
            (SelectorRequirement{"gpu-count", SelectorOperator::kGt, {"0"}}));
  EXPECT_EQ(na.required->terms[1].match_fields[0],
            (SelectorRequirement{"metadata.name", SelectorOperator::kNotIn, {"n1"}}));
  EXPECT_EQ(na.required->terms[2], NodeSelectorTerm{});
  ASSERT_EQ(na.preferred.size(), 2u);
  EXPECT_EQ(na.preferred[0].weight, 10);
  EXPECT_EQ(na.preferred[0].preference.match_expressions[0].op, SelectorOperator::kExists);
  ASSERT_EQ(s.tolerations.size(), 3u);
  EXPECT_EQ(s.tolerations[0], (Toleration{"nvidia.com/gpu", TolerationOperator::kEqual, "present",
                                          TaintEffect::kNoSchedule, std::nullopt}));
  EXPECT_EQ(s.tolerations[1],
            (Toleration{"", TolerationOperator::kExists, "", TaintEffect::kNone, std::nullopt}));
  EXPECT_EQ(s.tolerations[2].toleration_seconds, 300);
  EXPECT_EQ(s.tolerations[2].effect, TaintEffect::kNoExecute);
  EXPECT_EQ(s.node_name, "gpu-node-1");
  EXPECT_EQ(s.scheduler_name, "my-scheduler");
  EXPECT_EQ(s.priority, 1000);
  EXPECT_EQ(s.priority_class_name, "high");
  EXPECT_EQ(s.preemption_policy, "Never");
  EXPECT_EQ(s.restart_policy, "Never");
  EXPECT_EQ(s.termination_grace_period_seconds, 30);

  const PodStatus& st = pod->status;
  EXPECT_EQ(st.phase, PodPhase::kRunning);
  ASSERT_EQ(st.conditions.size(), 2u);
  EXPECT_EQ(st.conditions[0].status, ConditionStatus::kTrue);
  EXPECT_EQ(st.conditions[0].last_transition_time, At(k2026 + 5));
  EXPECT_EQ(st.conditions[1].reason, "ContainersNotReady");
  EXPECT_EQ(st.conditions[1].message, "waiting");
  EXPECT_EQ(st.conditions[1].last_probe_time, At(k2026 + 6));
  EXPECT_EQ(st.nominated_node_name, "gpu-node-2");
  EXPECT_EQ(st.start_time, At(k2026 + 10));
  EXPECT_EQ(st.reason, "Evicted");
  EXPECT_EQ(st.message, "low on memory");
}

TEST(JsonCodecTest, FullPodRoundTripsExactly) {
  json in = J(kFullPod);
  auto pod = PodFromJson(in);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  json out = PodToJson(*pod);
  EXPECT_EQ(out, in) << "out: " << out.dump(2);
  auto again = PodFromJson(out);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *pod);
}

TEST(JsonCodecTest, FullNodeDecodesAndRoundTrips) {
  json in = J(kFullNode);
  auto node = NodeFromJson(in);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->meta.name, "gpu-node-1");
  EXPECT_TRUE(node->spec.unschedulable);
  ASSERT_EQ(node->spec.taints.size(), 3u);
  EXPECT_EQ(node->spec.taints[0], (Taint{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}));
  EXPECT_EQ(node->spec.taints[1].time_added, At(k2026 + 300));
  EXPECT_EQ(node->spec.taints[2].effect, TaintEffect::kPreferNoSchedule);
  EXPECT_EQ(node->spec.provider_id, "gce://project/us-central1-a/gpu-node-1");
  EXPECT_EQ(node->status.capacity.at("memory"), Q("32Gi"));
  EXPECT_EQ(node->status.allocatable.at("cpu"), Q("7.91"));
  EXPECT_EQ(node->status.allocatable.at("nvidia.com/gpu"), Q("4"));
  ASSERT_EQ(node->status.conditions.size(), 2u);
  EXPECT_TRUE(node->IsReady());
  EXPECT_EQ(node->status.conditions[0].last_heartbeat_time, At(k2026 + 600));
  EXPECT_EQ(node->status.conditions[0].last_transition_time, At(k2026 + 60));
  EXPECT_EQ(node->status.conditions[1].status, ConditionStatus::kFalse);

  json out = NodeToJson(*node);
  EXPECT_EQ(out, in) << "out: " << out.dump(2);
  auto again = NodeFromJson(out);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *node);
  ExpectSameTaintTimes(*again, *node);
}

TEST(JsonCodecTest, BuiltObjectsRoundTrip) {
  Pod pod = MakePod("p", "team-a")
                .Req("cpu", "500m")
                .Req("nvidia.com/gpu", "2")
                .Limit("memory", "1.5Gi")
                .InitContainer({{"cpu", "1"}}, /*sidecar=*/true)
                .Overhead({{"memory", "100Mi"}})
                .Toleration("nvidia.com/gpu", "present")
                .TolerationExists("dedicated", TaintEffect::kNoExecute)
                .NodeSelector("pool", "gpu")
                .RequiredAffinity(Term("zone", SelectorOperator::kIn, {"a", "b"}))
                .PreferredAffinity(5, Term("disk", SelectorOperator::kExists))
                .NodeName("n1")
                .Priority(-5)
                .PreemptionPolicy("Never")
                .OwnedBy("ReplicaSet", "rs-1")
                .Obj();
  pod.meta.creation_timestamp = At(k2026 + 1);
  pod.status.phase = PodPhase::kFailed;
  pod.status.conditions.push_back(
      PodCondition{"PodScheduled", ConditionStatus::kFalse, "Unschedulable", "0/3 nodes",
                   std::nullopt, At(k2026 + 2)});
  auto back = PodFromJson(PodToJson(pod));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, pod);

  Node node = MakeNode("n1")
                  .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "1"}})
                  .Label("pool", "gpu")
                  .Taint("nvidia.com/gpu", "present")
                  .Unschedulable()
                  .Ready()
                  .Obj();
  node.spec.taints.back().time_added = At(k2026 + 3);
  auto node_back = NodeFromJson(NodeToJson(node));
  ASSERT_TRUE(node_back.ok()) << node_back.status().ToString();
  EXPECT_EQ(*node_back, node);
  ExpectSameTaintTimes(*node_back, node);
}

// What the kubelet must find before a pod starts: envFrom then env valueFrom references (in
// that order), configMap, secret and projected volumes' references, PVC claims; a reference of
// the wrong shape is left out, not an error.
TEST(JsonCodecTest, ConfigReferencesAndClaimsAreRead) {
  const json j = J(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{
    "containers":[{"name":"c","volumeMounts":[{"name":"v1","mountPath":"/etc/a"}],
      "volumeDevices":[{"name":"v4","devicePath":"/dev/x"}],"env":[
        {"name":"A","value":"x"},
        {"name":"B","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"mode","optional":true}}},
        {"name":"C","valueFrom":{"secretKeyRef":{"name":"creds","key":"token"}}},
        {"name":"D","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
        {"name":"E","valueFrom":{"configMapKeyRef":"bad"}}],
      "envFrom":[{"configMapRef":{"name":"all"}},{"prefix":"S_","secretRef":{"name":"sec"}}]}],
    "volumes":[
      {"name":"v1","configMap":{"name":"cfg","items":[{"key":"mode","path":"m"}]}},
      {"name":"v2","secret":{"secretName":"creds","optional":true}},
      {"name":"v3","projected":{"sources":[{"serviceAccountToken":{"path":"token"}},
          {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
          {"secret":{"name":"s2"}}]}},
      {"name":"v4","persistentVolumeClaim":{"claimName":"data"}},
      {"name":"v5","emptyDir":{}},
      {"name":7}]}})");
  auto pod = PodFromJson(j);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  using Kind = ConfigReference::Kind;
  const std::vector<ConfigReference> env = {
      {Kind::kConfigMap, "all", {}, false, true},
      {Kind::kSecret, "sec", {}, false, true},
      {Kind::kConfigMap, "cfg", {"mode"}, true},
      {Kind::kSecret, "creds", {"token"}, false},
  };
  EXPECT_EQ(pod->spec.containers[0].env_config, env);
  EXPECT_EQ(pod->spec.containers[0].volume_mounts, (std::vector<std::string>{"v1", "v4"}));
  const std::vector<Volume> volumes = {
      {"v1", {{Kind::kConfigMap, "cfg", {"mode"}, false}}, ""},
      {"v2", {{Kind::kSecret, "creds", {}, true}}, ""},
      {"v3",
       {{Kind::kConfigMap, "kube-root-ca.crt", {"ca.crt"}, false},
        {Kind::kSecret, "s2", {}, false}},
       ""},
      {"v4", {}, "data"},
      {"v5", {}, ""},
      {"", {}, ""},
  };
  EXPECT_EQ(pod->spec.volumes, volumes);
  // What the typed pod says, it writes back (the round trip of the typed form).
  auto again = PodFromJson(PodToJson(*pod));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *pod);
  // An env reference without a key stays env's, a key of envFrom or items of env are not read.
  auto odd = PodFromJson(J(R"({"spec":{"containers":[{"name":"c",
      "env":[{"name":"A","valueFrom":{"configMapKeyRef":{"name":"a","items":[{"key":"x"}]}}}],
      "envFrom":[{"secretRef":{"name":"b","key":"y"}}]}]}})"));
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  const std::vector<ConfigReference> odd_env = {{Kind::kSecret, "b", {}, false, true},
                                                {Kind::kConfigMap, "a", {}, false, false}};
  EXPECT_EQ(odd->spec.containers[0].env_config, odd_env);
  auto odd_again = PodFromJson(PodToJson(*odd));
  ASSERT_TRUE(odd_again.ok());
  EXPECT_EQ(*odd_again, *odd);
}

TEST(JsonCodecTest, EmptyFieldsAreOmitted) {
  Pod pod;
  pod.meta.name = "p";
  EXPECT_EQ(DumpJson(PodToJson(pod)),
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},)"
            R"("spec":{"containers":[],"restartPolicy":"Always",)"
            R"("schedulerName":"default-scheduler"},"status":{"phase":"Pending"}})");
  Node node;
  node.meta.name = "n";
  EXPECT_EQ(DumpJson(NodeToJson(node)),
            R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{},"status":{}})");
}

TEST(JsonCodecTest, MinimalPodGetsDefaults) {
  auto pod = PodFromJson(J(R"({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}],
                              "schedulerName": "", "restartPolicy": null}})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->spec.scheduler_name, "default-scheduler");
  EXPECT_EQ(pod->spec.restart_policy, "Always");
  EXPECT_EQ(pod->status.phase, PodPhase::kPending);
  EXPECT_FALSE(pod->spec.priority.has_value());
  EXPECT_FALSE(pod->spec.affinity.has_value());
}

TEST(JsonCodecTest, QuantitiesMayBeStringsOrNumbers) {
  struct Case {
    std::string value;  // JSON text
    std::string canonical;
  };
  const std::vector<Case> cases = {
      {R"("500m")", "500m"}, {R"("1Gi")", "1Gi"},   {"1", "1"},
      {"0.5", "500m"},       {"1.5", "1500m"},      {"1024", "1024"},
      {"1e3", "1k"},         {"2.5e-3", "2500u"},   {R"("1.5Gi")", "1536Mi"},
      {R"(" 2 ")", "2"},     {"0", "0"},            {"-1", "-1"},
      {"null", "0"},         {R"("100M")", "100M"}, {"18446744073709551615", "18446744073709551615"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    auto pod = PodFromJson(J(R"({"spec": {"containers": [{"name": "c", "resources": {"limits":
                              {"nvidia.com/gpu": )" +
                             c.value + "}}}]}}"));
    ASSERT_TRUE(pod.ok()) << pod.status().ToString();
    const Quantity& q = pod->spec.containers[0].resources.limits.at("nvidia.com/gpu");
    EXPECT_EQ(q.ToString(), c.canonical);
    EXPECT_EQ(PodToJson(*pod)["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"],
              c.canonical);
  }
}

struct ErrorCase {
  std::string name;
  std::string input;  // JSON text
  std::string message;
};

void ExpectPodError(const ErrorCase& c) {
  SCOPED_TRACE(c.name);
  auto pod = PodFromJson(J(c.input));
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(pod.status().message(), c.message);
}

TEST(JsonCodecTest, InvalidQuantitiesNameTheField) {
  const std::string regexp_message(kQuantityFormatWrongMessage);
  const std::vector<ErrorCase> cases = {
      {"bad limit",
       R"({"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "one"}}}]}})",
       "spec.containers[0].resources.limits[nvidia.com/gpu]: " + regexp_message},
      {"bad request in second container",
       R"({"spec": {"containers": [{}, {"resources": {"requests": {"cpu": "1mm"}}}]}})",
       "spec.containers[1].resources.requests[cpu]: " + std::string(kQuantitySuffixMessage)},
      {"init container", R"({"spec": {"initContainers": [{"resources": {"requests": {"memory": ""}}}]}})",
       "spec.initContainers[0].resources.requests[memory]: " + regexp_message},
      {"overhead", R"({"spec": {"overhead": {"cpu": true}}})",
       "spec.overhead[cpu]: expected string or number, got boolean"},
      {"limits not an object", R"({"spec": {"containers": [{"resources": {"limits": ["1"]}}]}})",
       "spec.containers[0].resources.limits: expected object, got array"},
  };
  for (const auto& c : cases) {
    ExpectPodError(c);
  }

  auto node = NodeFromJson(J(R"({"status": {"capacity": {"cpu": "4"}, "allocatable": {"pods": "lots"}}})"));
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().message(), "status.allocatable[pods]: " + regexp_message);
}

TEST(JsonCodecTest, WrongTypesNameTheField) {
  const std::vector<ErrorCase> cases = {
      {"not an object", R"("pod")", "expected object, got string"},
      {"array", "[]", "expected object, got array"},
      {"metadata string", R"({"metadata": "x"})", "metadata: expected object, got string"},
      {"name number", R"({"metadata": {"name": 5}})", "metadata.name: expected string, got number"},
      {"label value", R"({"metadata": {"labels": {"app": 1}}})",
       "metadata.labels[app]: expected string, got number"},
      {"owner controller", R"({"metadata": {"ownerReferences": [{"controller": "yes"}]}})",
       "metadata.ownerReferences[0].controller: expected boolean, got string"},
      {"generation float", R"({"metadata": {"generation": 1.5}})",
       "metadata.generation: expected integer, got number 1.5"},
      {"containers object", R"({"spec": {"containers": {"name": "c"}}})",
       "spec.containers: expected array, got object"},
      {"container string", R"({"spec": {"containers": ["c"]}})",
       "spec.containers[0]: expected object, got string"},
      {"command string", R"({"spec": {"containers": [{"command": "sleep 1"}]}})",
       "spec.containers[0].command: expected array, got string"},
      {"arg number", R"({"spec": {"containers": [{"args": ["a", 2]}]}})",
       "spec.containers[0].args[1]: expected string, got number"},
      {"priority out of range", R"({"spec": {"priority": 3000000000}})",
       "spec.priority: integer 3000000000 is out of range [-2147483648, 2147483647]"},
      {"priority string", R"({"spec": {"priority": "10"}})",
       "spec.priority: expected integer, got string"},
      {"grace period float", R"({"spec": {"terminationGracePeriodSeconds": 0.5}})",
       "spec.terminationGracePeriodSeconds: expected integer, got number 0.5"},
      {"affinity", R"({"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Near"}]}]}}}}})",
       "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
       "nodeSelectorTerms[0].matchExpressions[0].operator: \"Near\" is not a valid label selector "
       "operator"},
      {"selector operator missing", R"({"spec": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchFields": [{"key": "metadata.name"}]}}]}}}})",
       "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference."
       "matchFields[0].operator: Required value"},
      {"weight", R"({"spec": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": "10"}]}}}})",
       "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
       "expected integer, got string"},
      {"phase", R"({"status": {"phase": "Sleeping"}})",
       "status.phase: unsupported pod phase \"Sleeping\""},
      {"condition status", R"({"status": {"conditions": [{"type": "Ready", "status": "Yes"}]}})",
       "status.conditions[0].status: unsupported condition status \"Yes\""},
      {"time", R"({"status": {"startTime": "yesterday"}})",
       "status.startTime: invalid time \"yesterday\": expected RFC 3339, e.g. "
       "\"2026-01-01T00:00:00Z\", between 1677 and 2262"},
      {"time number", R"({"metadata": {"creationTimestamp": 0}})",
       "metadata.creationTimestamp: expected string, got number"},
      {"kind", R"({"kind": "Node"})", "kind: unsupported value \"Node\": expected \"Pod\""},
      {"apiVersion", R"({"apiVersion": "apps/v1", "kind": "Pod"})",
       "apiVersion: unsupported value \"apps/v1\": expected \"v1\""},
  };
  for (const auto& c : cases) {
    ExpectPodError(c);
  }
}

TEST(JsonCodecTest, TolerationOperatorsAndEffects) {
  struct Case {
    std::string toleration;  // JSON object text
    bool ok;
    TolerationOperator op;
    TaintEffect effect;
    std::string error;
  };
  const std::vector<Case> cases = {
      {R"({"key": "k"})", true, TolerationOperator::kEqual, TaintEffect::kNone, ""},
      {R"({"key": "k", "operator": ""})", true, TolerationOperator::kEqual, TaintEffect::kNone, ""},
      {R"({"key": "k", "operator": null})", true, TolerationOperator::kEqual, TaintEffect::kNone, ""},
      {R"({"key": "k", "operator": "Equal", "effect": "NoExecute"})", true,
       TolerationOperator::kEqual, TaintEffect::kNoExecute, ""},
      {R"({"operator": "Exists", "effect": ""})", true, TolerationOperator::kExists,
       TaintEffect::kNone, ""},
      {R"({"operator": "Exists", "effect": "PreferNoSchedule"})", true,
       TolerationOperator::kExists, TaintEffect::kPreferNoSchedule, ""},
      {R"({"operator": "exists"})", false, {}, {},
       "spec.tolerations[0].operator: unsupported value \"exists\": supported values: "
       "\"Equal\", \"Exists\""},
      {R"({"operator": "Exists", "effect": "NoScheduleX"})", false, {}, {},
       "spec.tolerations[0].effect: unsupported taint effect \"NoScheduleX\""},
      {R"({"operator": 1})", false, {}, {},
       "spec.tolerations[0].operator: expected string, got number"},
      {R"({"tolerationSeconds": "300"})", false, {}, {},
       "spec.tolerations[0].tolerationSeconds: expected integer, got string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.toleration);
    auto pod = PodFromJson(J(R"({"spec": {"tolerations": [)" + c.toleration + "]}}"));
    if (!c.ok) {
      ASSERT_FALSE(pod.ok());
      EXPECT_EQ(pod.status().message(), c.error);
      continue;
    }
    ASSERT_TRUE(pod.ok()) << pod.status().ToString();
    ASSERT_EQ(pod->spec.tolerations.size(), 1u);
    EXPECT_EQ(pod->spec.tolerations[0].op, c.op);
    EXPECT_EQ(pod->spec.tolerations[0].effect, c.effect);
  }
}

TEST(JsonCodecTest, TaintEffects) {
  auto node = NodeFromJson(J(R"({"spec": {"taints": [{"key": "a"}, {"key": "b", "effect": "NoExecute"}]}})"));
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  // A missing effect is "" (which validation rejects), not the model's NoSchedule default.
  EXPECT_EQ(node->spec.taints[0].effect, TaintEffect::kNone);
  EXPECT_EQ(node->spec.taints[1].effect, TaintEffect::kNoExecute);
  auto again = NodeFromJson(NodeToJson(*node));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *node);

  auto bad = NodeFromJson(J(R"({"spec": {"taints": [{"key": "a", "effect": "Never"}]}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "spec.taints[0].effect: unsupported taint effect \"Never\"");
  auto bad_unsched = NodeFromJson(J(R"({"spec": {"unschedulable": "true"}})"));
  ASSERT_FALSE(bad_unsched.ok());
  EXPECT_EQ(bad_unsched.status().message(), "spec.unschedulable: expected boolean, got string");
}

TEST(JsonCodecTest, UnknownFieldsAreIgnored) {
  auto pod = PodFromJson(J(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "finalizers": ["x"], "managedFields": [{"manager": "kubectl"}]},
    "spec": {"tolerations": [{"important": "nvidia.com/gpu", "operator": "Equal",
                              "value": "present", "effect": "NoSchedule"}],
             "volumes": [{"name": "v"}], "hostNetwork": true,
             "containers": [{"name": "c", "env": [{"name": "A", "value": "1"}],
                             "resources": {"claims": [{"name": "gpu"}]}}]},
    "status": {"containerStatuses": [], "qosClass": "BestEffort"},
    "extra": {"deep": [1, 2, {"x": null}]}
  })"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  ASSERT_EQ(pod->spec.tolerations.size(), 1u);
  EXPECT_EQ(pod->spec.tolerations[0].key, "");
  EXPECT_EQ(pod->spec.tolerations[0].op, TolerationOperator::kEqual);
  EXPECT_EQ(pod->spec.tolerations[0].value, "present");
  json out = PodToJson(*pod);
  EXPECT_FALSE(out.contains("extra"));
  EXPECT_FALSE(out["spec"].contains("hostNetwork"));
  EXPECT_EQ(out["spec"]["volumes"], J(R"([{"name": "v"}])"));  // what the kubelet reads
}

TEST(JsonCodecTest, NullsAreLikeMissingFields) {
  auto pod = PodFromJson(J(R"({"metadata": null, "spec": {"containers": null, "affinity": null,
      "priority": null, "nodeName": null, "nodeSelector": {"a": null},
      "tolerations": [null]}, "status": null})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_TRUE(pod->spec.containers.empty());
  EXPECT_FALSE(pod->spec.affinity.has_value());
  EXPECT_FALSE(pod->spec.priority.has_value());
  EXPECT_EQ(pod->spec.node_selector, (Labels{{"a", ""}}));
  ASSERT_EQ(pod->spec.tolerations.size(), 1u);
  EXPECT_EQ(pod->spec.tolerations[0], Toleration{});
}

TEST(JsonCodecTest, IntegersAcceptIntegralNumbers) {
  auto pod = PodFromJson(J(R"({"metadata": {"generation": 9223372036854775807},
      "spec": {"priority": -2147483648, "terminationGracePeriodSeconds": 30.0}})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->meta.generation, INT64_MAX);
  EXPECT_EQ(pod->spec.priority, INT32_MIN);
  EXPECT_EQ(pod->spec.termination_grace_period_seconds, 30);

  auto too_big = PodFromJson(J(R"({"metadata": {"generation": 9223372036854775808}})"));
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().message(),
            "metadata.generation: integer 9223372036854775808 is out of range "
            "[-9223372036854775808, 9223372036854775807]");
  auto too_big_float = PodFromJson(J(R"({"metadata": {"generation": 1e19}})"));
  ASSERT_FALSE(too_big_float.ok());
  EXPECT_THAT(too_big_float.status().message(), HasSubstr("is out of range"));
}

TEST(JsonCodecTest, Timestamps) {
  struct Case {
    std::string text;
    std::optional<int64_t> unix_seconds;  // nullopt: invalid
  };
  const std::vector<Case> cases = {
      {"2026-01-01T00:00:00Z", k2026},
      {"2026-01-01T09:00:00+09:00", k2026},
      {"2025-12-31T19:30:00-04:30", k2026},
      {"2026-01-01T00:00:00.999999Z", k2026},  // the fraction is dropped
      {"1970-01-01T00:00:00Z", 0},
      {"1969-12-31T23:59:59Z", -1},
      {"2024-02-29T00:00:00Z", 1709164800},
      {"2025-02-29T00:00:00Z", std::nullopt},
      {"2026-01-01 00:00:00Z", std::nullopt},
      {"2026-01-01T00:00:00", std::nullopt},
      {"2026-01-01T24:00:00Z", std::nullopt},
      {"2026-01-01T00:00:60Z", std::nullopt},
      {"2026-01-01T00:00:00.Z", std::nullopt},
      {"2026-01-01T00:00:00+0900", std::nullopt},
      {"2026-01-01T00:00:00Zjunk", std::nullopt},
      {"0001-01-01T00:00:00Z", std::nullopt},  // before 1677: does not fit a TimePoint
      {"2026-1-01T00:00:00Z", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    json j = {{"status", {{"startTime", c.text}}}};
    auto pod = PodFromJson(j);
    if (!c.unix_seconds) {
      ASSERT_FALSE(pod.ok());
      EXPECT_THAT(pod.status().message(), HasSubstr("status.startTime: invalid time"));
      continue;
    }
    ASSERT_TRUE(pod.ok()) << pod.status().ToString();
    EXPECT_EQ(pod->status.start_time, At(*c.unix_seconds));
  }
}

TEST(JsonCodecTest, ParseJsonReportsPositions) {
  struct Case {
    std::string text;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"", "json: parse error at line 1, column 1: syntax error while parsing value"},
      {"{\"a\": 1,}", "json: parse error at line 1, column 9: syntax error while parsing object key"},
      // nlohmann reports where it stopped reading: here the newline after "tru".
      {"{\n  \"a\": tru\n}",
       "json: parse error at line 3, column 0: syntax error while parsing value - invalid literal"},
      {"[1, 2", "json: parse error at line 1, column 6"},
      {"{} {}", "json: parse error at line 1, column 4: syntax error while parsing value - "
                "unexpected '{'; expected end of input"},
      {"\"\xff\"", "json: parse error at line 1, column 2: syntax error while parsing value - "
                   "invalid string: ill-formed UTF-8 byte"},
      {std::string(1001, '[') + std::string(1001, ']'),
       "json: parse error at byte 1001: nesting deeper than 1000 levels"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 40));
    auto j = ParseJson(c.text);
    ASSERT_FALSE(j.ok());
    EXPECT_EQ(j.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(j.status().message()), HasSubstr(c.message_part));
  }
  // Depth 1000 and brackets inside strings are fine.
  EXPECT_TRUE(ParseJson(std::string(1000, '[') + std::string(1000, ']')).ok());
  EXPECT_TRUE(ParseJson(R"({"a": "[[[[\"{{{{"})").ok());
}

TEST(JsonCodecTest, DumpJson) {
  EXPECT_EQ(DumpJson(J(R"({"b": [1, 2.5, "x"], "a": null, "c": {"d": true}})")),
            R"({"a":null,"b":[1,2.5,"x"],"c":{"d":true}})");
  // Invalid UTF-8 does not throw; it is replaced.
  EXPECT_EQ(DumpJson(json("a\xff")), "\"a\xef\xbf\xbd\"");
  Pod pod;
  pod.meta.name = "bad\xc3";
  EXPECT_EQ(DumpJson(PodToJson(pod)).find("bad\xef\xbf\xbd") != std::string::npos, true);
}

// The JSON pointers of every value in `j`: its leaves and the objects and arrays holding them.
std::set<std::string> EveryPointer(const json& j) {
  std::set<std::string> pointers;
  const json flat = j.flatten();
  for (auto it = flat.begin(); it != flat.end(); ++it) {
    for (json::json_pointer ptr(it.key()); !ptr.empty(); ptr = ptr.parent_pointer()) {
      pointers.insert(ptr.to_string());
    }
  }
  return pointers;
}

// Decodes `original` with each of its values (found by EveryPointer) replaced by each of
// `replacements` in turn: `decode` must not throw. Returns how many values were replaced.
size_t ReplaceEveryValue(const json& original, const std::vector<json>& replacements,
                         const std::function<void(const json&)>& decode) {
  const std::set<std::string> pointers = EveryPointer(original);
  for (const std::string& ptr : pointers) {
    for (const json& replacement : replacements) {
      SCOPED_TRACE(ptr + " = " + replacement.dump());
      json j = original;
      j[json::json_pointer(ptr)] = replacement;
      EXPECT_NO_THROW(decode(j));
    }
  }
  return pointers.size();
}

// Replaces every value in the fixtures (leaves and the objects and arrays holding them) with
// a value of each JSON type: decoding either succeeds or fails with InvalidArgument; nothing
// throws.
TEST(JsonCodecTest, AnyValueOfAnyTypeIsHandled) {
  const std::vector<json> replacements = {
      json("x"),   json(-1),     json(2.5),      json(true),
      json::array({1}), json::object({{"k", "v"}}), json(nullptr),
      json::binary({1, 2}), json(json::value_t::discarded),
      json(UINT64_MAX),
  };
  for (std::string_view fixture : {kFullPod, kFullNode}) {
    const size_t replaced = ReplaceEveryValue(J(fixture), replacements, [&](const json& j) {
      Status status = fixture == kFullPod ? PodFromJson(j).status() : NodeFromJson(j).status();
      if (!status.ok()) {
        EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
        EXPECT_FALSE(status.message().empty());
      }
    });
    EXPECT_GT(replaced, 40u);
  }
  EXPECT_FALSE(PodFromJson(json(json::value_t::discarded)).ok());
  EXPECT_FALSE(NodeFromJson(json::binary({1})).ok());
}

// The storage decoders the scheduler's informers run on whatever the API stores: any value of
// any type in a full claim, volume or class is decoded or refused, never thrown.
TEST(JsonCodecTest, StorageObjectsOfAnyShapeAreHandled) {
  constexpr std::string_view kClaim = R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
      "metadata": {"name": "data", "namespace": "default", "uid": "u1", "resourceVersion": "7",
                   "annotations": {"volume.kubernetes.io/selected-node": "n1"}},
      "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "standard-rwo",
               "volumeMode": "Filesystem", "volumeName": "pv-1",
               "resources": {"requests": {"storage": "10Gi"}}},
      "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}})";
  constexpr std::string_view kVolume = R"({"apiVersion": "v1", "kind": "PersistentVolume",
      "metadata": {"name": "pv-1", "uid": "u2"},
      "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"},
               "storageClassName": "standard-rwo", "volumeMode": "Filesystem",
               "claimRef": {"namespace": "default", "name": "data", "uid": "u1"},
               "csi": {"driver": "pd.csi.storage.gke.io", "volumeHandle": "h"},
               "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                   {"key": "topology.gke.io/zone", "operator": "In", "values": ["a"]}]}]}}},
      "status": {"phase": "Bound"}})";
  constexpr std::string_view kClass = R"({"apiVersion": "storage.k8s.io/v1",
      "kind": "StorageClass", "metadata": {"name": "zonal"}, "provisioner": "p",
      "volumeBindingMode": "WaitForFirstConsumer",
      "allowedTopologies": [{"matchLabelExpressions": [{"key": "z", "values": ["a", "b"]}]}]})";
  const std::vector<json> replacements = {json("x"),        json(-1),
                                          json(2.5),        json(true),
                                          json::array({1}), json::object({{"k", "v"}}),
                                          json(nullptr),    json(UINT64_MAX)};
  for (std::string_view fixture : {kClaim, kVolume, kClass}) {
    ReplaceEveryValue(J(fixture), replacements, [&](const json& j) {
      const Status status = fixture == kClaim    ? PersistentVolumeClaimFromJson(j).status()
                            : fixture == kVolume ? PersistentVolumeFromJson(j).status()
                                                 : StorageClassFromJson(j).status();
      if (!status.ok()) EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    });
  }
  EXPECT_FALSE(PersistentVolumeClaimFromJson(json::array()).ok());
  EXPECT_FALSE(StorageClassFromJson(json("x")).ok());
}

TEST(JsonCodecTest, DumpParseDecodeRoundTrip) {
  auto pod = PodFromJson(J(kFullPod));
  ASSERT_TRUE(pod.ok());
  auto reparsed = ParseJson(DumpJson(PodToJson(*pod)));
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString();
  auto again = PodFromJson(*reparsed);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *pod);
}

// Describe names a value in an error; a string from YAML may hold bytes that are not UTF-8
// (found by the scenario fuzz target: a plain dump() threw type_error.316 out of the decoder).
TEST(DescribeTest, InvalidUtf8IsReplacedNotThrown) {
  EXPECT_EQ(Describe(json("a\xff" "b")), "string \"a\xef\xbf\xbd" "b\"");
  EXPECT_EQ(Describe(json("x")), "string \"x\"");
  EXPECT_EQ(Describe(json(5)), "integer 5");
  EXPECT_EQ(Describe(json::object()), "object");
}

}  // namespace
}  // namespace tidepool::api::codec
