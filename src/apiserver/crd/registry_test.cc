// The custom resources' life through the API server: a definition created, its resources
// served (discovery, CRUD, tables, validation, pruning, defaults, status), then deleted.
#include "apiserver/crd/registry.h"

#include <gtest/gtest.h>

#include "apiserver/api_server_test_util.h"
#include "apiserver/discovery.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

json CronTabDefinition() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "crontabs.stable.example.com"},
    "spec": {
      "group": "stable.example.com", "scope": "Namespaced",
      "names": {"plural": "crontabs", "kind": "CronTab", "shortNames": ["ct"],
                "categories": ["all"]},
      "versions": [
        {"name": "v1", "served": true, "storage": true,
         "subresources": {"status": {},
                          "scale": {"specReplicasPath": ".spec.replicas",
                                    "statusReplicasPath": ".status.ready",
                                    "labelSelectorPath": ".status.selector"}},
         "additionalPrinterColumns": [
           {"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
           {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}],
         "schema": {"openAPIV3Schema": {"type": "object", "properties": {
           "spec": {"type": "object", "required": ["cronSpec"], "properties": {
             "cronSpec": {"type": "string", "pattern": "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
             "image": {"type": "string"},
             "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1}}},
           "status": {"type": "object", "properties": {"ready": {"type": "integer"},
                                                       "selector": {"type": "string"}}}}}}},
        {"name": "v1beta1", "served": true, "storage": false,
         "schema": {"openAPIV3Schema": {"type": "object",
                                        "x-kubernetes-preserve-unknown-fields": true}}}]}})");
}

json CronTab(const std::string& name, json spec) {
  return {{"apiVersion", "stable.example.com/v1"},
          {"kind", "CronTab"},
          {"metadata", {{"name", name}}},
          {"spec", std::move(spec)}};
}

class CustomResourceTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    auto w = Do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                CronTabDefinition().dump());
    ASSERT_EQ(w.code, 201) << w.body;
  }
  static constexpr char kPath[] = "/apis/stable.example.com/v1/namespaces/default/crontabs";
};

TEST_F(CustomResourceTest, DefinitionIsEstablishedWithItsDefaults) {
  auto w = Do("GET",
              "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
              "crontabs.stable.example.com");
  ASSERT_EQ(w.code, 200);
  const json crd = w.Json();
  EXPECT_EQ(crd["spec"]["names"]["singular"], "crontab");
  EXPECT_EQ(crd["spec"]["names"]["listKind"], "CronTabList");
  EXPECT_EQ(crd["spec"]["conversion"]["strategy"], "None");
  EXPECT_EQ(crd["status"]["storedVersions"], json::array({"v1"}));
  EXPECT_EQ(crd["status"]["acceptedNames"]["kind"], "CronTab");
  EXPECT_FALSE(crd["metadata"].contains("finalizers"));  // added by a deletion
  std::map<std::string, std::string> conditions;
  for (const json& c : crd["status"]["conditions"]) conditions[c["type"]] = c["status"];
  EXPECT_EQ(conditions["Established"], "True");
  EXPECT_EQ(conditions["NamesAccepted"], "True");
}

TEST_F(CustomResourceTest, DiscoveryListsTheResource) {
  auto w = Do("GET", "/apis/stable.example.com/v1");
  ASSERT_EQ(w.code, 200) << w.body;
  const json list = w.Json();
  ASSERT_GE(list["resources"].size(), 2u);
  EXPECT_EQ(list["resources"][0]["name"], "crontabs");
  EXPECT_EQ(list["resources"][0]["kind"], "CronTab");
  EXPECT_EQ(list["resources"][0]["shortNames"], json::array({"ct"}));
  EXPECT_EQ(list["resources"][0]["categories"], json::array({"all"}));
  EXPECT_EQ(list["resources"][1]["name"], "crontabs/scale");
  EXPECT_EQ(list["resources"][2]["name"], "crontabs/status");
  auto agg = Do("GET", "/apis", "", {{"accept", std::string(kAggregatedDiscoveryType)}});
  EXPECT_NE(agg.body.find("\"stable.example.com\""), std::string::npos);
  auto group = Do("GET", "/apis/stable.example.com");
  ASSERT_EQ(group.code, 200);
  EXPECT_EQ(group.Json()["preferredVersion"]["version"], "v1");
}

// A version marked deprecated: every request to it gets apiextensions' warning (its
// deprecationWarning, else "<group>/<version> <Kind> is deprecated"); other versions none.
TEST_F(CustomResourceTest, ADeprecatedVersionWarnsOnEveryRequest) {
  auto w = Do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "deprecateds.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
      "names": {"plural": "deprecateds", "kind": "DeprecatedKind"},
      "versions": [
        {"name": "v1", "served": true, "storage": true,
         "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v1beta1", "served": true, "storage": false, "deprecated": true,
         "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v1alpha1", "served": true, "storage": false, "deprecated": true,
         "deprecationWarning": "use v1, \"alpha\" goes away",
         "schema": {"openAPIV3Schema": {"type": "object"}}}]}})");
  ASSERT_EQ(w.code, 201) << w.body;
  struct Case {
    std::string version, warning;
  };
  for (const Case& c : std::vector<Case>{
           {"v1", ""},
           {"v1beta1", R"(299 - "example.com/v1beta1 DeprecatedKind is deprecated")"},
           {"v1alpha1", R"(299 - "use v1, \"alpha\" goes away")"}}) {
    auto list = Do("GET", "/apis/example.com/" + c.version + "/namespaces/default/deprecateds");
    EXPECT_EQ(list.code, 200) << list.body;
    std::string warning;
    for (const auto& [name, value] : list.headers) {
      if (name == "Warning") warning = value;
    }
    EXPECT_EQ(warning, c.warning) << c.version;
  }
}

TEST_F(CustomResourceTest, CreateDefaultsPrunesAndCountsGenerations) {
  json ct = CronTab("a", {{"cronSpec", "* * * * */5"}, {"image", "img"}, {"extra", 1}});
  auto w = Do("POST", kPath, ct.dump());
  ASSERT_EQ(w.code, 201) << w.body;
  json got = w.Json();
  EXPECT_EQ(got["spec"]["replicas"], 1);        // defaulted
  EXPECT_FALSE(got["spec"].contains("extra"));  // pruned
  EXPECT_EQ(got["metadata"]["generation"], 1);
  // A warning names the pruned field (fieldValidation=Warn, the default).
  bool warned = false;
  for (const auto& [k, v] : w.headers)
    warned |= v.find("unknown field \\\"spec.extra\\\"") != std::string::npos;
  EXPECT_TRUE(warned);
  // A merge patch of the spec bumps the generation; a status write does not.
  w = Do("PATCH", std::string(kPath) + "/a", R"({"spec":{"replicas":3}})",
         {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(w.Json()["metadata"]["generation"], 2);
  w = Do("PATCH", std::string(kPath) + "/a/status", R"({"status":{"ready":2}})",
         {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(w.Json()["status"]["ready"], 2);
  EXPECT_EQ(w.Json()["metadata"]["generation"], 2);
  // The main resource does not write status.
  w = Do("PATCH", std::string(kPath) + "/a", R"({"status":{"ready":9}})",
         {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(w.Json()["status"]["ready"], 2);
}

TEST_F(CustomResourceTest, StrictFieldValidationRefusesUnknownFields) {
  json ct = CronTab("a", {{"cronSpec", "* * * * */5"}, {"extra", 1}});
  auto w = Do("POST", std::string(kPath) + "?fieldValidation=Strict", ct.dump());
  EXPECT_EQ(w.code, 400);
  EXPECT_EQ(w.Json()["message"],
            "CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: "
            "unknown field \"spec.extra\"");
}

TEST_F(CustomResourceTest, InvalidObjectsGetKubesMessages) {
  struct Case {
    json spec;
    std::string message;
  } cases[] = {
      {{{"cronSpec", "* * * * */5"}, {"replicas", "two"}},
       "CronTab.stable.example.com \"bad\" is invalid: spec.replicas: Invalid value: "
       "\"string\": spec.replicas in body must be of type integer: \"string\""},
      {{{"cronSpec", "* * * * */5"}, {"replicas", 11}},
       "CronTab.stable.example.com \"bad\" is invalid: spec.replicas: Invalid value: 11: "
       "spec.replicas in body should be less than or equal to 10"},
      {{{"image", "x"}},
       "CronTab.stable.example.com \"bad\" is invalid: spec.cronSpec: Required value"},
      {{{"cronSpec", "nope"}},
       "CronTab.stable.example.com \"bad\" is invalid: spec.cronSpec: Invalid value: \"nope\": "
       "spec.cronSpec in body should match "
       "'^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'"},
  };
  for (const Case& c : cases) {
    auto w = Do("POST", kPath, CronTab("bad", c.spec).dump());
    EXPECT_EQ(w.code, 422) << c.spec;
    EXPECT_EQ(w.Json()["message"], c.message) << c.spec;
    EXPECT_EQ(w.Json()["details"]["kind"], "CronTab");
    EXPECT_EQ(w.Json()["details"]["group"], "stable.example.com");
  }
}

TEST_F(CustomResourceTest, TablesUseThePrinterColumns) {
  ASSERT_EQ(Do("POST", kPath, CronTab("a", {{"cronSpec", "* * * * */5"}}).dump()).code, 201);
  auto w = Do("GET", kPath, "", {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(w.code, 200) << w.body;
  const json table = w.Json();
  ASSERT_EQ(table["columnDefinitions"].size(), 3u);
  EXPECT_EQ(table["columnDefinitions"][0]["name"], "Name");
  EXPECT_EQ(table["columnDefinitions"][1]["name"], "Spec");
  EXPECT_EQ(table["columnDefinitions"][2]["type"], "integer");
  EXPECT_EQ(table["rows"][0]["cells"], json::array({"a", "* * * * */5", 1}));
}

TEST_F(CustomResourceTest, OtherVersionsReadTheSameObjects) {
  ASSERT_EQ(Do("POST", kPath, CronTab("a", {{"cronSpec", "* * * * */5"}}).dump()).code, 201);
  auto w = Do("GET", "/apis/stable.example.com/v1beta1/namespaces/default/crontabs/a");
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(w.Json()["apiVersion"], "stable.example.com/v1beta1");
  EXPECT_EQ(w.Json()["spec"]["cronSpec"], "* * * * */5");
}

TEST_F(CustomResourceTest, ScaleSubresourceReadsAndWritesTheDefinitionsPaths) {
  ASSERT_EQ(
      Do("POST", kPath, CronTab("a", {{"cronSpec", "* * * * */5"}, {"replicas", 2}}).dump()).code,
      201);
  ASSERT_EQ(Do("PATCH", std::string(kPath) + "/a/status",
               R"({"status":{"ready":1,"selector":"app=cron"}})",
               {{"content-type", "application/merge-patch+json"}})
                .code,
            200);
  auto w = Do("GET", std::string(kPath) + "/a/scale");
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(w.Json()["kind"], "Scale");
  EXPECT_EQ(w.Json()["spec"]["replicas"], 2);
  EXPECT_EQ(w.Json()["status"], json({{"replicas", 1}, {"selector", "app=cron"}}));
  w = Do("PATCH", std::string(kPath) + "/a/scale", R"({"spec":{"replicas":5}})",
         {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(Do("GET", std::string(kPath) + "/a").Json()["spec"]["replicas"], 5);
  // The schema still holds: 11 is over its maximum.
  w = Do("PATCH", std::string(kPath) + "/a/scale", R"({"spec":{"replicas":11}})",
         {{"content-type", "application/merge-patch+json"}});
  EXPECT_EQ(w.code, 422) << w.body;
}

TEST_F(CustomResourceTest, StrategicMergePatchIsUnsupported) {
  ASSERT_EQ(Do("POST", kPath, CronTab("a", {{"cronSpec", "* * * * */5"}}).dump()).code, 201);
  auto w = Do("PATCH", std::string(kPath) + "/a", R"({"spec":{"replicas":3}})",
              {{"content-type", "application/strategic-merge-patch+json"}});
  EXPECT_EQ(w.code, 415);
}

TEST_F(CustomResourceTest, DeletingTheDefinitionDeletesItsResources) {
  ASSERT_EQ(Do("POST", kPath, CronTab("a", {{"cronSpec", "* * * * */5"}}).dump()).code, 201);
  auto w = Do("DELETE",
              "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
              "crontabs.stable.example.com");
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(w.Json()["metadata"]["finalizers"], json::array({crd::kCleanupFinalizer}));
  EXPECT_EQ(w.Json()["status"]["conditions"].back()["reason"], "InstanceDeletionPending");
  // Answered marked; the registry's cleanup follows: the resources, then the definition, go.
  EXPECT_EQ(Do("GET", kPath).code, 404);
  EXPECT_EQ(Do("GET",
               "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
               "crontabs.stable.example.com")
                .code,
            404);
  EXPECT_EQ(Do("GET", "/apis/stable.example.com/v1").code, 404);
  // Defined again, it starts empty.
  ASSERT_EQ(Do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
               CronTabDefinition().dump())
                .code,
            201);
  EXPECT_EQ(Do("GET", kPath).Json()["items"].size(), 0u);
}

TEST_F(CustomResourceTest, ATerminatingNamespaceTakesNoNewCustomResources) {
  ASSERT_EQ(Do("POST", "/api/v1/namespaces",
               R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})")
                .code,
            201);
  const std::string path = "/apis/stable.example.com/v1/namespaces/team/crontabs";
  ASSERT_EQ(Do("POST", path, CronTab("a", {{"cronSpec", "* * * * */5"}}).dump()).code, 201);
  // Marked Terminating for the namespace controller (controllers/namespace/, which deletes the
  // custom resources too: tests/e2e/crd_test.sh); no new custom resource meanwhile.
  auto d = Do("DELETE", "/api/v1/namespaces/team");
  ASSERT_EQ(d.code, 200);
  EXPECT_EQ(d.Json()["status"]["phase"], "Terminating");
  auto refused = Do("POST", path, CronTab("b", {{"cronSpec", "* * * * */5"}}).dump());
  EXPECT_EQ(refused.code, 403);
  EXPECT_EQ(refused.Json()["message"],
            "crontabs.stable.example.com \"b\" is forbidden: unable to create new content in "
            "namespace team because it is being terminated");
}

TEST(DefinitionValidationTest, RefusesBadDefinitions) {
  SimulatedClock clock;
  ObjectStore store{clock, nullptr};
  PodLogs logs{&clock};
  ApiServer server{clock, store, logs, ApiServerOptions{"127.0.0.1:6443"}};
  struct Case {
    std::function<void(json&)> mutate;
    std::string message;
  } cases[] = {
      {[](json& c) { c["metadata"]["name"] = "wrong.stable.example.com"; },
       "CustomResourceDefinition.apiextensions.k8s.io \"wrong.stable.example.com\" is invalid: "
       "metadata.name: Invalid value: \"wrong.stable.example.com\": must be "
       "spec.names.plural+\".\"+spec.group"},
      {[](json& c) { c["spec"]["scope"] = "Global"; },
       "CustomResourceDefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" is "
       "invalid: spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", "
       "\"Namespaced\""},
      {[](json& c) {
         c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].erase("type");
       },
       "CustomResourceDefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" is "
       "invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required "
       "value: must not be empty for specified object fields"},
  };
  for (const Case& c : cases) {
    json crd = CronTabDefinition();
    c.mutate(crd);
    http::HttpRequest req;
    req.method = "POST";
    req.target = req.path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    req.headers["content-type"] = "application/json";
    req.body = crd.dump();
    FakeWriter w;
    server.Handle(req, w);
    EXPECT_EQ(w.code, 422) << w.body;
    EXPECT_EQ(w.Json()["message"], c.message);
  }
}

}  // namespace
}  // namespace tidepool::apiserver
