#include "apiserver/schema/schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/codec/yaml.h"

namespace tidepool::apiserver::schema {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using ::testing::SizeIs;

const Schema& S() { return Schema::Builtin(); }

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(TIDEPOOL_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(SchemaBuiltinTest, NamesItsSource) {
  EXPECT_EQ(S().source(), "@kubernetes/client-node@1.1.3");
  EXPECT_EQ(S().kubernetes_version(), "v1.32.0");
}

TEST(SchemaBuiltinTest, EmbedsTheCommittedFile) {
  const std::string text = ReadSourceFile("src/apiserver/schema/k8s_schema.json");
  ASSERT_FALSE(text.empty());
  StatusOr<Schema> parsed = Schema::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->source(), S().source());
}

TEST(SchemaBuiltinTest, KnowsEveryServedKind) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"v1", "Pod"},
      {"v1", "Node"},
      {"v1", "ConfigMap"},
      {"v1", "Secret"},
      {"v1", "Namespace"},
      {"v1", "Event"},
      {"v1", "Service"},
      {"v1", "ServiceAccount"},
      {"v1", "Endpoints"},
      {"v1", "PersistentVolumeClaim"},
      {"v1", "DeleteOptions"},
      {"apps/v1", "Deployment"},
      {"apps/v1", "DaemonSet"},
      {"apps/v1", "ReplicaSet"},
      {"apps/v1", "StatefulSet"},
      {"batch/v1", "Job"},
      {"policy/v1", "PodDisruptionBudget"},
      {"policy/v1", "Eviction"},
      {"coordination.k8s.io/v1", "Lease"},
      {"events.k8s.io/v1", "Event"},
      {"rbac.authorization.k8s.io/v1", "Role"},
      {"rbac.authorization.k8s.io/v1", "RoleBinding"},
      {"rbac.authorization.k8s.io/v1", "ClusterRole"},
      {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
      {"scheduling.k8s.io/v1", "PriorityClass"},
      {"v1", "PersistentVolume"},
      {"v1", "ReplicationController"},
      {"v1", "PodTemplate"},
      {"storage.k8s.io/v1", "StorageClass"},
      {"storage.k8s.io/v1", "CSIDriver"},
      {"storage.k8s.io/v1", "CSINode"},
      {"storage.k8s.io/v1", "CSIStorageCapacity"},
  };
  for (const auto& [api_version, kind] : kinds) {
    EXPECT_TRUE(S().Knows(api_version, kind)) << api_version << " " << kind;
  }
  EXPECT_FALSE(S().Knows("v1", "Widget"));
  EXPECT_FALSE(S().Knows("apps/v1", "Pod"));  // wrong group
  EXPECT_FALSE(S().Knows("v1", "pod"));       // kinds are case-sensitive
  EXPECT_FALSE(S().Knows("extensions/v1beta1", "Deployment"));
  EXPECT_FALSE(S().Knows("", ""));
}

TEST(SchemaBuiltinTest, ConcurrentFirstUseIsSafe) {
  std::vector<std::thread> threads;
  std::vector<const Schema*> seen(8, nullptr);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&seen, i] { seen[i] = &Schema::Builtin(); });
  }
  for (auto& t : threads) t.join();
  for (const Schema* s : seen) EXPECT_EQ(s, &Schema::Builtin());
}

// The seed walkthrough's manifest, exactly as the repository ships it.
TEST(SchemaSeedTest, TypoManifestIsRefusedWithTheApiServersText) {
  StatusOr<std::vector<json>> docs =
      api::codec::ParseYamlDocuments(ReadSourceFile("examples/seed/02-typo-manifest.yaml"));
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_THAT(*docs, SizeIs(1));
  const json& pod = (*docs)[0];
  const std::vector<std::string> unknown = S().UnknownFields("v1", "Pod", pod);
  EXPECT_THAT(unknown, ElementsAre("spec.tolerations[0].important"));
  EXPECT_EQ(StrictDecodingMessage("v1", "Pod", unknown),
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: "
            "unknown field \"spec.tolerations[0].important\"");
}

struct UnknownCase {
  std::string name;
  std::string api_version;
  std::string kind;
  std::string object;  // JSON text
  std::vector<std::string> want;
};

class UnknownFieldsTest : public ::testing::TestWithParam<UnknownCase> {};

TEST_P(UnknownFieldsTest, ReportsThePathsInDecoderOrder) {
  const UnknownCase& c = GetParam();
  const json object = json::parse(c.object);
  EXPECT_THAT(S().UnknownFields(c.api_version, c.kind, object), ElementsAreArray(c.want));
}

const UnknownCase kUnknownCases[] = {
    {"ValidPodWithMapsAndLeaves",
     "v1",
     "Pod",
     R"({"apiVersion":"v1","kind":"Pod",
         "metadata":{"name":"p","labels":{"app.kubernetes.io/name":"x","anything":"y"},
                     "annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"true"},
                     "creationTimestamp":"2026-01-01T00:00:00Z",
                     "managedFields":[{"manager":"kubectl","fieldsV1":{"f:spec":{"f:x":{}}}}],
                     "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r",
                                         "uid":"u","controller":true}]},
         "spec":{"nodeSelector":{"cloud.google.com/gke-accelerator":"nvidia-l4"},
                 "containers":[{"name":"c","image":"i",
                                "resources":{"limits":{"nvidia.com/gpu":1,"cpu":"500m"},
                                             "requests":{"memory":"1Gi"}},
                                "ports":[{"containerPort":80}],
                                "livenessProbe":{"httpGet":{"path":"/","port":"http"}}}],
                 "overhead":{"cpu":"1"},
                 "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule",
                                 "tolerationSeconds":30}],
                 "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
                     {"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In",
                                                                  "values":["a"]}]}]}}}},
         "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
                   "lastTransitionTime":"2026-01-01T00:00:00Z"}]}})",
     {}},
    {"MetadataUnknown", "v1", "Pod", R"({"metadata":{"name":"p","foo":1}})", {"metadata.foo"}},
    {"TopLevelUnknown",
     "v1",
     "Pod",
     R"({"apiVersion":"v1","kind":"Pod","foo":{"bar":1}})",
     {"foo"}},
    {"UnknownValueIsNotDescended",
     "v1",
     "Pod",
     R"({"spec":{"foo":{"containers":[{"x":1}]}}})",
     {"spec.foo"}},
    {"UnknownWithNullValueIsStillUnknown", "v1", "Pod", R"({"spec":{"foo":null}})", {"spec.foo"}},
    {"SeveralInSortedKeyOrder",
     "v1",
     "Pod",
     R"({"spec":{"tolerations":[{"important":"nvidia.com/gpu","operator":"Equal"}],
                 "containers":[{"name":"a"},{"name":"b","resources":{"foo":1,"limits":{"x":"1"}}}],
                 "zzz":true},
         "metadata":{"bar":1},"foo":1})",
     {"foo", "metadata.bar", "spec.containers[1].resources.foo", "spec.tolerations[0].important",
      "spec.zzz"}},
    {"CaseSensitive",
     "v1",
     "Pod",
     R"({"Spec":{},"spec":{"tolerations":[{"Key":"k"},{"key":"k"}]}})",
     {"Spec", "spec.tolerations[0].Key"}},
    {"NestedContainers",
     "v1",
     "Pod",
     R"({"spec":{"initContainers":[{"name":"i","securityContext":{"capabilities":{"add":["X"],
                                                                                 "foo":1}}}],
                 "containers":[{"name":"a"},{"name":"b","env":[{"name":"E",
                     "valueFrom":{"fieldRef":{"fieldPath":"metadata.name","foo":"x"}}}]}]}})",
     {"spec.containers[1].env[0].valueFrom.fieldRef.foo",
      "spec.initContainers[0].securityContext.capabilities.foo"}},
    {"WrongJsonTypesAreNotDescended",
     "v1",
     "Pod",
     R"({"metadata":"x","spec":{"containers":{"foo":1},"tolerations":["x",null,{"foo":1}]}})",
     {"spec.tolerations[2].foo"}},
    {"NullsHoldNothing",
     "v1",
     "Pod",
     R"({"metadata":null,"spec":{"containers":null,"tolerations":[null]},"status":null})",
     {}},
    {"NotAnObject", "v1", "Pod", R"([{"foo":1}])", {}},
    {"StatusIsCheckedToo",
     "v1",
     "Pod",
     R"({"status":{"phase":"Running","foo":1}})",
     {"status.foo"}},
    {"Node",
     "v1",
     "Node",
     R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{"a/b":"c"}},
         "spec":{"providerID":"gce://p/z/n","taints":[{"key":"k","effect":"NoSchedule","foo":1}],
                 "unschedulable":true,"podCIDR":"10.0.0.0/24"},
         "status":{"capacity":{"nvidia.com/gpu":"1","cpu":"8"},"allocatable":{"pods":"110"},
                   "addresses":[{"type":"InternalIP","address":"10.0.0.1"}],
                   "nodeInfo":{"kubeletVersion":"v1.32.0","gpus":1},"foo":1}})",
     {"spec.taints[0].foo", "status.foo", "status.nodeInfo.gpus"}},
    {"DeploymentTemplate",
     "apps/v1",
     "Deployment",
     R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
         "spec":{"replicas":2,"selector":{"matchLabels":{"app":"x"}},
                 "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%",
                                                                     "maxUnavailable":0}},
                 "template":{"metadata":{"labels":{"app":"x"},"foo":1},
                             "spec":{"containers":[{"name":"c","image":"i","imagePullPolicy":"x",
                                                    "foo":1}],
                                     "tolerations":[{"important":"nvidia.com/gpu"}]}}}})",
     {"spec.template.metadata.foo", "spec.template.spec.containers[0].foo",
      "spec.template.spec.tolerations[0].important"}},
    {"DeploymentIsNotAPodSpec",
     "apps/v1",
     "Deployment",
     R"({"spec":{"containers":[]}})",
     {"spec.containers"}},
    {"ConfigMapDataKeysAreFree",
     "v1",
     "ConfigMap",
     R"({"data":{"config.yaml":"a: 1","spec":"x","foo.bar/baz":"y"},"binaryData":{"b":"AAE="},
         "immutable":true,"datas":{}})",
     {"datas"}},
    {"SecretStringData",
     "v1",
     "Secret",
     R"({"type":"Opaque","stringData":{"password":"x"},"data":{"k":"dg=="},"spec":{}})",
     {"spec"}},
    {"EvictionDeleteOptions",
     "policy/v1",
     "Eviction",
     R"({"metadata":{"name":"p"},"deleteOptions":{"gracePeriodSeconds":0,
         "preconditions":{"uid":"u","foo":1},"force":true}})",
     {"deleteOptions.force", "deleteOptions.preconditions.foo"}},
    {"DeleteOptions",
     "v1",
     "DeleteOptions",
     R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background",
         "dryRun":["All"],"cascade":"orphan"})",
     {"cascade"}},
    {"CoreEventIsNotEventsV1Event",
     "v1",
     "Event",
     R"({"involvedObject":{"kind":"Pod","name":"p"},"reportingComponent":"c",
         "reportingController":"c","regarding":{}})",
     {"regarding", "reportingController"}},
    {"EventsV1EventIsNotCoreEvent",
     "events.k8s.io/v1",
     "Event",
     R"({"regarding":{"kind":"Pod","name":"p"},"reportingController":"c",
         "eventTime":"2026-01-01T00:00:00.000000Z","reportingComponent":"c",
         "involvedObject":{}})",
     {"involvedObject", "reportingComponent"}},
    {"Lease",
     "coordination.k8s.io/v1",
     "Lease",
     R"({"spec":{"holderIdentity":"h","renewTime":"2026-01-01T00:00:00.000000Z","foo":1}})",
     {"spec.foo"}},
    {"PriorityClassHasNoSpec",
     "scheduling.k8s.io/v1",
     "PriorityClass",
     R"({"value":1000,"globalDefault":false,"preemptionPolicy":"Never","spec":{"value":1}})",
     {"spec"}},
    {"ClusterRoleBinding",
     "rbac.authorization.k8s.io/v1",
     "ClusterRoleBinding",
     R"({"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"},
         "subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g","uid":"x"}]})",
     {"subjects[1].uid"}},
    {"PodDisruptionBudgetIntOrString",
     "policy/v1",
     "PodDisruptionBudget",
     R"({"spec":{"minAvailable":"50%","maxUnavailable":1,"selector":{"matchLabels":{"a":"b"},
                 "matchExpressions":[{"key":"k","operator":"Exists","value":"x"}]}}})",
     {"spec.selector.matchExpressions[0].value"}},
    {"JobTemplate",
     "batch/v1",
     "Job",
     R"({"spec":{"backoffLimit":1,"template":{"spec":{"restartPolicy":"Never",
                 "containers":[{"name":"c"}],"retries":3}}}})",
     {"spec.template.spec.retries"}},
    {"StorageClassHasNoSpec",
     "storage.k8s.io/v1",
     "StorageClass",
     R"({"provisioner":"p","parameters":{"type":"pd-ssd"},"spec":{"provisioner":"p"},
         "allowedTopologies":[{"matchLabelExpressions":[{"key":"k","values":["v"],"op":"In"}]}]})",
     {"allowedTopologies[0].matchLabelExpressions[0].op", "spec"}},
    {"PersistentVolumeSources",
     "v1",
     "PersistentVolume",
     R"({"spec":{"capacity":{"storage":"1Gi"},"hostPath":{"path":"/d","kind":"x"},
                 "claimRef":{"name":"c","namespace":"n","extra":1}}})",
     {"spec.claimRef.extra", "spec.hostPath.kind"}},
    {"ReplicationControllerSelectorIsAMap",
     "v1",
     "ReplicationController",
     R"({"spec":{"selector":{"matchLabels":"x"},"template":{"metadata":{"labels":{"a":"b"}},
                 "spec":{"containers":[{"name":"c","imagen":"nginx"}]}}}})",
     {"spec.template.spec.containers[0].imagen"}},
    {"CSINodeDriver",
     "storage.k8s.io/v1",
     "CSINode",
     R"({"spec":{"drivers":[{"name":"d","nodeID":"n","allocatable":{"count":1,"max":2}}]}})",
     {"spec.drivers[0].allocatable.max"}},
    {"UnknownKindChecksNothing", "v1", "Widget", R"({"foo":1,"spec":{"bar":2}})", {}},
};

INSTANTIATE_TEST_SUITE_P(Builtin, UnknownFieldsTest, ::testing::ValuesIn(kUnknownCases),
                         [](const ::testing::TestParamInfo<UnknownCase>& info) {
                           return info.param.name;
                         });

TEST(UnknownFieldsOrderTest, OrderedJsonKeepsDocumentOrder) {
  const ordered_json pod = ordered_json::parse(
      R"({"spec":{"tolerations":[{"important":"x"}],"containers":[{"name":"a","zz":1,"aa":2}]},
          "metadata":{"foo":1},"bar":1})");
  EXPECT_THAT(S().UnknownFields("v1", "Pod", pod),
              ElementsAre("spec.tolerations[0].important", "spec.containers[0].zz",
                          "spec.containers[0].aa", "metadata.foo", "bar"));
}

TEST(UnknownFieldsLimitTest, ReportsAtMostOneHundredButDropsAll) {
  json pod = {{"metadata", {{"name", "p"}}}};
  for (int i = 0; i < 150; ++i) pod["metadata"]["x" + std::to_string(1000 + i)] = i;
  const std::vector<std::string> unknown = S().UnknownFields("v1", "Pod", pod);
  ASSERT_THAT(unknown, SizeIs(kMaxUnknownFields));
  EXPECT_EQ(unknown.front(), "metadata.x1000");
  EXPECT_EQ(unknown.back(), "metadata.x1099");
  EXPECT_EQ(S().DropUnknownFields("v1", "Pod", pod), unknown);
  EXPECT_EQ(pod, json({{"metadata", {{"name", "p"}}}}));
}

struct DropCase {
  std::string name;
  std::string api_version;
  std::string kind;
  std::string object;
  std::vector<std::string> want_paths;
  std::string want_object;
};

class DropUnknownFieldsTest : public ::testing::TestWithParam<DropCase> {};

TEST_P(DropUnknownFieldsTest, RemovesOnlyTheUnknownFields) {
  const DropCase& c = GetParam();
  json object = json::parse(c.object);
  EXPECT_THAT(S().DropUnknownFields(c.api_version, c.kind, object), ElementsAreArray(c.want_paths));
  EXPECT_EQ(object, json::parse(c.want_object)) << object.dump();
  EXPECT_THAT(S().UnknownFields(c.api_version, c.kind, object), IsEmpty());

  ordered_json ordered = ordered_json::parse(c.object);
  S().DropUnknownFields(c.api_version, c.kind, ordered);
  EXPECT_EQ(json::parse(ordered.dump()), json::parse(c.want_object));
}

const DropCase kDropCases[] = {
    {"SeedTypo",
     "v1",
     "Pod",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-test-pod"},
         "spec":{"restartPolicy":"Never",
                 "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}],
                 "tolerations":[{"important":"nvidia.com/gpu","operator":"Equal",
                                 "value":"present","effect":"NoSchedule"}]}})",
     {"spec.tolerations[0].important"},
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-test-pod"},
         "spec":{"restartPolicy":"Never",
                 "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}],
                 "tolerations":[{"operator":"Equal","value":"present","effect":"NoSchedule"}]}})"},
    {"EverywhereAtOnce",
     "apps/v1",
     "Deployment",
     R"({"foo":1,"metadata":{"name":"d","labels":{"foo":"kept"},"bar":{}},
         "spec":{"template":{"spec":{"containers":[{"name":"a","x":1},{"name":"b","y":[1],
                                                   "resources":{"limits":{"y":"1"}}}]}},
                 "selector":{"matchLabels":{"x":"kept"},"z":null}}})",
     {"foo", "metadata.bar", "spec.selector.z", "spec.template.spec.containers[0].x",
      "spec.template.spec.containers[1].y"},
     R"({"metadata":{"name":"d","labels":{"foo":"kept"}},
         "spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b",
                                                   "resources":{"limits":{"y":"1"}}}]}},
                 "selector":{"matchLabels":{"x":"kept"}}}})"},
    {"NothingUnknown",
     "v1",
     "ConfigMap",
     R"({"data":{"foo":"bar"},"metadata":{"name":"c"}})",
     {},
     R"({"data":{"foo":"bar"},"metadata":{"name":"c"}})"},
    {"UnknownKindIsLeftAlone", "v1", "Widget", R"({"foo":1})", {}, R"({"foo":1})"},
};

INSTANTIATE_TEST_SUITE_P(Builtin, DropUnknownFieldsTest, ::testing::ValuesIn(kDropCases),
                         [](const ::testing::TestParamInfo<DropCase>& info) {
                           return info.param.name;
                         });

struct MessageCase {
  std::string name;
  std::string api_version;
  std::string kind;
  std::vector<std::string> paths;
  std::string want;
};

class StrictDecodingMessageTest : public ::testing::TestWithParam<MessageCase> {};

TEST_P(StrictDecodingMessageTest, MatchesTheApiServer) {
  const MessageCase& c = GetParam();
  EXPECT_EQ(StrictDecodingMessage(c.api_version, c.kind, c.paths), c.want);
}

const MessageCase kMessageCases[] = {
    {"One",
     "v1",
     "Pod",
     {"spec.tolerations[0].important"},
     "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: "
     "unknown field \"spec.tolerations[0].important\""},
    {"Several",
     "v1",
     "Pod",
     {"foo", "metadata.bar", "spec.containers[1].resources.foo"},
     "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: "
     "unknown field \"foo\", unknown field \"metadata.bar\", "
     "unknown field \"spec.containers[1].resources.foo\""},
    {"GroupPrintsTheVersionOnly",
     "apps/v1",
     "Deployment",
     {"spec.foo"},
     "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: "
     "unknown field \"spec.foo\""},
    {"DottedGroup",
     "rbac.authorization.k8s.io/v1",
     "ClusterRole",
     {"rule"},
     "ClusterRole in version \"v1\" cannot be handled as a ClusterRole: strict decoding error: "
     "unknown field \"rule\""},
    {"GoQuoting",
     "v1",
     "Pod",
     {"metadata.a\"b\\c", "x\ny\t\x01\x7f", "caf\xc3\xa9", "bad\xff", "nb\xc2\xa0sp",
      "bom\xef\xbb\xbf"},
     "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: "
     "unknown field \"metadata.a\\\"b\\\\c\", unknown field \"x\\ny\\t\\x01\\x7f\", "
     "unknown field \"caf\xc3\xa9\", unknown field \"bad\\xff\", "
     "unknown field \"nb\\u00a0sp\", unknown field \"bom\\ufeff\""},
};

INSTANTIATE_TEST_SUITE_P(Messages, StrictDecodingMessageTest, ::testing::ValuesIn(kMessageCases),
                         [](const ::testing::TestParamInfo<MessageCase>& info) {
                           return info.param.name;
                         });

TEST(UnknownFieldMessageTest, IsTheWarningText) {
  EXPECT_EQ(UnknownFieldMessage("spec.tolerations[0].important"),
            "unknown field \"spec.tolerations[0].important\"");
  EXPECT_EQ(UnknownFieldMessage("\xf0\x9f\x98\x80"), "unknown field \"\xf0\x9f\x98\x80\"");
  EXPECT_EQ(UnknownFieldMessage("\xed\xa0\x80"), "unknown field \"\\xed\\xa0\\x80\"");  // surrogate
  EXPECT_EQ(UnknownFieldMessage("\xc0\xaf"), "unknown field \"\\xc0\\xaf\"");           // overlong
  EXPECT_EQ(UnknownFieldMessage("\xf3\xb0\x80\x80"), "unknown field \"\\U000f0000\"");  // private
}

// A schema with a map of models, which none of the served kinds has: map keys are path
// elements joined with ".", and equal paths are reported once, as sigs.k8s.io/json does.
constexpr char kMapSchema[] = R"({
  "source": "test", "leaves": ["string"],
  "kinds": {"v1/Thing": "Thing"},
  "types": {"Thing": {"m": "map[string]Item", "l": "[][]Item"},
            "Item": {"b": "Inner", "name": "string"},
            "Inner": {"k": "string"}}})";

TEST(SchemaParseTest, MapsOfModelsAndNestedArrays) {
  StatusOr<Schema> schema = Schema::Parse(kMapSchema);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(schema->source(), "test");
  EXPECT_EQ(schema->kubernetes_version(), "");
  const json thing = json::parse(
      R"({"m":{"a":{"b":{"c":1}},"a.b":{"c":2,"name":"n"},"z":null},
          "l":[[{"x":1}],[],[{"name":"n"},{"b":{"k":"v","y":1}}]]})");
  EXPECT_THAT(schema->UnknownFields("v1", "Thing", thing),
              ElementsAre("l[0][0].x", "l[2][1].b.y", "m.a.b.c"));
}

struct ParseErrorCase {
  std::string name;
  std::string text;
  std::string want_message;
};

class SchemaParseErrorTest : public ::testing::TestWithParam<ParseErrorCase> {};

TEST_P(SchemaParseErrorTest, IsInvalidArgument) {
  StatusOr<Schema> schema = Schema::Parse(GetParam().text);
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(schema.status().message()),
              ::testing::HasSubstr(GetParam().want_message));
}

const ParseErrorCase kParseErrorCases[] = {
    {"NotJson", "{", "k8s schema: [json.exception.parse_error"},
    {"NotAnObject", "[]", "k8s schema: not a JSON object"},
    {"NoSource", R"({"leaves":[],"types":{},"kinds":{}})", "\"source\" must be a string"},
    {"NoLeaves", R"({"source":"s","types":{},"kinds":{}})", "\"leaves\" must be an array"},
    {"NoTypes", R"({"source":"s","leaves":[],"kinds":{}})", "\"types\" must be an object"},
    {"NoKinds", R"({"source":"s","leaves":[],"types":{}})", "\"kinds\" must be an object"},
    {"UnknownFieldType", R"({"source":"s","leaves":["string"],"kinds":{},
                             "types":{"A":{"x":"[]Missing"}}})",
     "k8s schema: A.x: unknown type \"[]Missing\""},
    {"FieldTypeNotString", R"({"source":"s","leaves":[],"kinds":{},"types":{"A":{"x":1}}})",
     "A.x: type must be a string"},
    {"KindWithoutModel", R"({"source":"s","leaves":[],"kinds":{"v1/A":"B"},"types":{"A":{}}})",
     "kind v1/A: unknown model \"B\""},
    {"ModelAndLeaf", R"({"source":"s","leaves":["string"],"kinds":{},"types":{"string":{}}})",
     "type string is also a leaf"},
    {"UnknownLeaf", R"({"source":"s","leaves":["number"],"kinds":{},"types":{}})",
     "unknown leaf type \"number\""},
};

INSTANTIATE_TEST_SUITE_P(Errors, SchemaParseErrorTest, ::testing::ValuesIn(kParseErrorCases),
                         [](const ::testing::TestParamInfo<ParseErrorCase>& info) {
                           return info.param.name;
                         });

// ---- Types ------------------------------------------------------------------------------------

struct TypeCase {
  std::string name;
  std::string api_version;
  std::string kind;
  std::string object;
  std::string want_json;  // empty: no type error
  std::string want_converter = {};
};

class TypeErrorTest : public ::testing::TestWithParam<TypeCase> {};

TEST_P(TypeErrorTest, IsGoDecodersText) {
  const TypeCase& c = GetParam();
  const json object = json::parse(c.object);
  const std::optional<TypeError> e =
      Schema::Builtin().FindTypeError(c.api_version, c.kind, object);
  if (c.want_json.empty()) {
    EXPECT_FALSE(e.has_value()) << e->JsonMessage();
    return;
  }
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->JsonMessage(), c.want_json);
  if (!c.want_converter.empty()) {
    EXPECT_EQ(e->ConverterMessage(), c.want_converter);
  }
}

// The texts are Go's encoding/json UnmarshalTypeError (struct, field path, type) as kube-apiserver
// 1.32 returns them for a create; the converter's are runtime.DefaultUnstructuredConverter's.
const TypeCase kTypeCases[] = {
    {"GoodPod", "v1", "Pod",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},
         "spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":1,
         "nvidia.com/gpu":"1","memory":"1Gi"}}}],"priority":5,"terminationGracePeriodSeconds":30.0,
         "tolerations":[{"key":"k","operator":"Exists","tolerationSeconds":300}]}})",
     ""},
    {"NullsAreZeroValues", "v1", "Pod",
     R"({"metadata":null,"spec":{"containers":[null,{"name":null}],"nodeSelector":{"a":null}}})",
     ""},
    {"NameNumber", "v1", "Pod", R"({"metadata":{"name":5}})",
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string",
     "cannot convert int64 to string"},
    {"MetadataString", "v1", "Pod", R"({"metadata":"x"})",
     "json: cannot unmarshal string into Go struct field Pod.metadata of type v1.ObjectMeta",
     "cannot restore struct from: string"},
    {"SpecArray", "v1", "Pod", R"({"spec":[]})",
     "json: cannot unmarshal array into Go struct field Pod.spec of type v1.PodSpec"},
    {"ContainersString", "v1", "Pod", R"({"spec":{"containers":"c"}})",
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type "
     "[]v1.Container",
     "cannot restore slice from string"},
    {"ContainerNameBool", "v1", "Pod", R"({"spec":{"containers":[{"name":"a"},{"name":true}]}})",
     "json: cannot unmarshal bool into Go struct field Container.spec.containers.name of type "
     "string",
     "unrecognized type: string"},
    {"LabelValueNumber", "v1", "Pod", R"({"metadata":{"labels":{"a":1}}})",
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type "
     "string"},
    {"LabelsArray", "v1", "Pod", R"({"metadata":{"labels":["a"]}})",
     "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type "
     "map[string]string",
     "cannot restore map from slice"},
    {"ResourcesNumber", "v1", "Pod", R"({"spec":{"containers":[{"resources":123}]}})",
     "json: cannot unmarshal number into Go struct field Container.spec.containers.resources of "
     "type v1.ResourceRequirements"},
    {"LimitsString", "v1", "Pod", R"({"spec":{"containers":[{"resources":{"limits":"x"}}]}})",
     "json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers."
     "resources.limits of type v1.ResourceList"},
    {"QuantityBool", "v1", "Pod",
     R"({"spec":{"containers":[{"resources":{"limits":{"cpu":true}}}]}})",
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
    {"QuantityBadString", "v1", "Pod",
     R"({"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}})",
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
    {"TolerationsString", "v1", "Pod", R"({"spec":{"tolerations":"str"}})",
     "json: cannot unmarshal string into Go struct field PodSpec.spec.tolerations of type "
     "[]v1.Toleration"},
    {"PriorityFraction", "v1", "Pod", R"({"spec":{"priority":1.5}})",
     "json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.priority of type int32",
     "cannot convert float64 to int32"},
    {"PriorityTooLarge", "v1", "Pod", R"({"spec":{"priority":3000000000}})",
     "json: cannot unmarshal number 3000000000 into Go struct field PodSpec.spec.priority of type "
     "int32"},
    {"PriorityString", "v1", "Pod", R"({"spec":{"priority":"5"}})",
     "json: cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32",
     "unrecognized type: int32"},
    {"TimestampNumber", "v1", "Pod", R"({"metadata":{"creationTimestamp":5}})",
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of "
     "type string",
     "json: cannot unmarshal number into Go value of type string"},
    {"ReplicasString", "apps/v1", "Deployment", R"({"spec":{"replicas":"x"}})",
     "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type "
     "int32"},
    {"ReplicasNegativeIsATypeMatch", "apps/v1", "Deployment", R"({"spec":{"replicas":-5}})", ""},
    {"MinAvailableObject", "policy/v1", "PodDisruptionBudget",
     R"({"spec":{"minAvailable":{"a":1}}})",
     "json: cannot unmarshal object into Go struct field PodDisruptionBudgetSpec.spec.minAvailable "
     "of type int32"},
    {"MaxSurgePercent", "apps/v1", "Deployment",
     R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}}}})", ""},
    {"SecretDataNotBase64", "v1", "Secret", R"({"data":{"k":"%%%"}})",
     "illegal base64 data at input byte 0"},
    {"NodeCapacityNumber", "v1", "Node", R"({"status":{"capacity":{"cpu":4}}})", ""},
    {"UnknownFieldsAreNotTypeErrors", "v1", "Pod", R"({"spec":{"foo":1,"containers":[]}})", ""},
    {"FirstInKeyOrder", "v1", "Pod", R"({"spec":{"priority":"x"},"metadata":{"name":1}})",
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"},
};

INSTANTIATE_TEST_SUITE_P(Builtin, TypeErrorTest, ::testing::ValuesIn(kTypeCases),
                         [](const ::testing::TestParamInfo<TypeCase>& info) {
                           return info.param.name;
                         });

TEST(TypeErrorTest, NotAnObjectAtTheTop) {
  const std::optional<TypeError> e =
      Schema::Builtin().FindTypeError("v1", "Pod", json::array({1}));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->JsonMessage(), "json: cannot unmarshal array into Go value of type v1.Pod");
}

TEST(TypeErrorTest, UnknownKindHasNone) {
  EXPECT_FALSE(Schema::Builtin().FindTypeError("v1", "Nope", json::object()).has_value());
}

}  // namespace
}  // namespace tidepool::apiserver::schema
