// GET /openapi/v2 through the API server: the Swagger 2.0 document's operations, parameters and
// definitions for built-in and custom resources, and kube-openapi's negotiation (Accept, ETag).
#include "apiserver/openapi_v2.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apiserver/api_server_test_util.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

std::string HeaderOf(const FakeWriter& w, const std::string& name) {
  for (const auto& [k, v] : w.headers) {
    if (k == name) return v;
  }
  return "";
}

class OpenApiV2Test : public ApiServerTest {
 protected:
  json Document() {
    auto w = Do("GET", "/openapi/v2");
    EXPECT_EQ(w.code, 200);
    EXPECT_EQ(w.type, "application/json");
    return w.Json();
  }
};

// Each operation as kube-apiserver 1.32 publishes it: its id, description, action and tag.
TEST_F(OpenApiV2Test, OperationsAsKubeNamesThem) {
  const json doc = Document();
  EXPECT_EQ(doc["swagger"], "2.0");
  EXPECT_EQ(doc["info"]["title"], "Kubernetes");
  struct Case {
    std::string path, method, operation_id, description, action, tag;
  };
  const std::vector<Case> cases = {
      {"/api/v1/namespaces/{namespace}/pods", "get", "listCoreV1NamespacedPod",
       "list or watch objects of kind Pod", "list", "core_v1"},
      {"/api/v1/namespaces/{namespace}/pods", "post", "createCoreV1NamespacedPod", "create a Pod",
       "post", "core_v1"},
      {"/api/v1/namespaces/{namespace}/pods", "delete", "deleteCoreV1CollectionNamespacedPod",
       "delete collection of Pod", "deletecollection", "core_v1"},
      {"/api/v1/pods", "get", "listCoreV1PodForAllNamespaces", "list or watch objects of kind Pod",
       "list", "core_v1"},
      {"/api/v1/namespaces/{namespace}/pods/{name}", "get", "readCoreV1NamespacedPod",
       "read the specified Pod", "get", "core_v1"},
      {"/api/v1/namespaces/{namespace}/pods/{name}", "put", "replaceCoreV1NamespacedPod",
       "replace the specified Pod", "put", "core_v1"},
      {"/api/v1/namespaces/{namespace}/pods/{name}", "patch", "patchCoreV1NamespacedPod",
       "partially update the specified Pod", "patch", "core_v1"},
      {"/api/v1/namespaces/{namespace}/pods/{name}", "delete", "deleteCoreV1NamespacedPod",
       "delete a Pod", "delete", "core_v1"},
      {"/api/v1/namespaces/{namespace}/pods/{name}/status", "get", "readCoreV1NamespacedPodStatus",
       "read status of the specified Pod", "get", "core_v1"},
      {"/api/v1/nodes", "get", "listCoreV1Node", "list or watch objects of kind Node", "list",
       "core_v1"},
      {"/api/v1/nodes/{name}/status", "patch", "patchCoreV1NodeStatus",
       "partially update status of the specified Node", "patch", "core_v1"},
      {"/api/v1/namespaces/{namespace}/endpoints", "post", "createCoreV1NamespacedEndpoints",
       "create Endpoints", "post", "core_v1"},
      {"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "put",
       "replaceAppsV1NamespacedDeploymentScale", "replace scale of the specified Deployment", "put",
       "apps_v1"},
      {"/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses", "post",
       "createNetworkingV1NamespacedIngress", "create an Ingress", "post", "networking_v1"},
      {"/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}", "delete",
       "deleteRbacAuthorizationV1ClusterRole", "delete a ClusterRole", "delete",
       "rbacAuthorization_v1"},
  };
  // A scale's operations take and give autoscaling/v1 Scale.
  EXPECT_EQ(doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["put"]
               ["x-kubernetes-group-version-kind"],
            json({{"group", "autoscaling"}, {"kind", "Scale"}, {"version", "v1"}}));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path + " " + c.method);
    ASSERT_TRUE(doc["paths"].contains(c.path));
    ASSERT_TRUE(doc["paths"][c.path].contains(c.method));
    const json& op = doc["paths"][c.path][c.method];
    EXPECT_EQ(op["operationId"], c.operation_id);
    EXPECT_EQ(op["description"], c.description);
    EXPECT_EQ(op["x-kubernetes-action"], c.action);
    EXPECT_EQ(op["tags"], json::array({c.tag}));
    EXPECT_EQ(op["schemes"], json::array({"https"}));
  }
}

// The list operation's query parameters carry kube's texts (what test-cmd's
// run_swagger_tests greps for), responses name the list kind, a deletion answers what kube's
// registry answers (the pod itself; a Status for a ConfigMap), and a patch lists its types.
TEST_F(OpenApiV2Test, ParametersResponsesAndDefinitions) {
  const json doc = Document();
  const json& list = doc["paths"]["/api/v1/namespaces/{namespace}/services"]["get"];
  bool watch = false, label = false;
  for (const json& p : list["parameters"]) {
    EXPECT_EQ(p["in"], "query");
    if (p["name"] == "watch") {
      watch = p["type"] == "boolean" && p["description"].get<std::string>().find(
                                            "Watch for changes to the described resources") == 0;
    }
    if (p["name"] == "labelSelector") {
      label = p["description"] ==
              "A selector to restrict the list of returned objects by their labels. Defaults "
              "to everything.";
    }
  }
  EXPECT_TRUE(watch);
  EXPECT_TRUE(label);
  EXPECT_EQ(list["responses"]["200"]["schema"]["$ref"],
            "#/definitions/io.k8s.api.core.v1.ServiceList");
  EXPECT_EQ(list["responses"]["401"]["description"], "Unauthorized");
  EXPECT_EQ(
      doc["definitions"]["io.k8s.api.core.v1.ServiceList"]["properties"]["items"]["description"],
      "List of services");

  const json& pods = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"];
  EXPECT_EQ(pods["delete"]["responses"]["200"]["schema"]["$ref"],
            "#/definitions/io.k8s.api.core.v1.Pod");
  EXPECT_EQ(doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["delete"]["responses"]
               ["200"]["schema"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status");
  EXPECT_EQ(pods["patch"]["consumes"][2], "application/strategic-merge-patch+json");
  EXPECT_EQ(pods["patch"]["parameters"][0]["schema"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
  EXPECT_EQ(pods["parameters"][0]["name"], "name");
  EXPECT_EQ(pods["parameters"][0]["description"], "name of the Pod");
  EXPECT_EQ(pods["parameters"][1]["name"], "namespace");

  // Swagger 2.0's references: a field's $ref with its description beside it, no allOf.
  const json& spec = doc["definitions"]["io.k8s.api.core.v1.Pod"]["properties"]["spec"];
  EXPECT_EQ(spec["$ref"], "#/definitions/io.k8s.api.core.v1.PodSpec");
  EXPECT_FALSE(spec.contains("allOf"));
  EXPECT_TRUE(spec.contains("description"));
  EXPECT_EQ(doc["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"]["type"], "string");
  // Every reference resolves.
  const std::string dumped = doc.dump();
  for (size_t at = dumped.find("#/definitions/"); at != std::string::npos;
       at = dumped.find("#/definitions/", at + 1)) {
    const size_t begin = at + 14;
    const std::string name = dumped.substr(begin, dumped.find('"', begin) - begin);
    EXPECT_TRUE(doc["definitions"].contains(name)) << name;
  }
  EXPECT_EQ(dumped.find("#/components/schemas/"), std::string::npos);
}

// kube-openapi's handler: JSON for */* or application/json, the ETag quoted and a matching
// If-None-Match answered 304; the protobuf form alone is not found (openapi_v2.h says why).
// The built-in definitions carry the patch metadata of the table the server merges by.
TEST_F(OpenApiV2Test, PatchMetadataFromTheServersTable) {
  const json doc = Document();
  const json& defs = doc["definitions"];
  auto field = [&](const std::string& def, const std::string& name) {
    return defs[def]["properties"][name];
  };
  const std::string core = "io.k8s.api.core.v1.";
  const std::string meta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
  struct Case {
    std::string def, field;
    json want;  // the x-kubernetes-* keys of the field
  };
  const std::vector<Case> cases = {
      {core + "PodSpec",
       "containers",
       {{"x-kubernetes-list-map-keys", {"name"}},
        {"x-kubernetes-list-type", "map"},
        {"x-kubernetes-patch-merge-key", "name"},
        {"x-kubernetes-patch-strategy", "merge"}}},
      {core + "PodSpec",
       "volumes",
       {{"x-kubernetes-list-map-keys", {"name"}},
        {"x-kubernetes-list-type", "map"},
        {"x-kubernetes-patch-merge-key", "name"},
        {"x-kubernetes-patch-strategy", "merge,retainKeys"}}},
      {core + "PodSpec", "nodeSelector", {{"x-kubernetes-map-type", "atomic"}}},
      {core + "PodSpec", "tolerations", json::object()},
      {core + "Container",
       "ports",
       {{"x-kubernetes-list-map-keys", {"containerPort", "protocol"}},
        {"x-kubernetes-list-type", "map"},
        {"x-kubernetes-patch-merge-key", "containerPort"},
        {"x-kubernetes-patch-strategy", "merge"}}},
      {meta + "ObjectMeta",
       "finalizers",
       {{"x-kubernetes-list-type", "set"}, {"x-kubernetes-patch-strategy", "merge"}}},
      {meta + "ObjectMeta",
       "ownerReferences",
       {{"x-kubernetes-list-map-keys", {"uid"}},
        {"x-kubernetes-list-type", "map"},
        {"x-kubernetes-patch-merge-key", "uid"},
        {"x-kubernetes-patch-strategy", "merge"}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.def + "." + c.field);
    const json f = field(c.def, c.field);
    ASSERT_TRUE(f.is_object());
    json got = json::object();
    for (const auto& [k, v] : f.items()) {
      if (k.rfind("x-kubernetes-", 0) == 0) got[k] = v;
    }
    EXPECT_EQ(got, c.want);
  }
}

TEST_F(OpenApiV2Test, Negotiation) {
  const std::string pb = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
  struct Case {
    std::string accept;
    int code;
    std::string type;
  };
  const std::vector<Case> cases = {
      {"", 200, "application/json"},
      {"application/json", 200, "application/json"},
      {"*/*", 200, "application/json"},
      // client-go's OpenAPISchema(): answered with kube-openapi's newer spelling.
      {"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", 200, pb},
      {pb, 200, pb},
      {"application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json", 200, pb},
      {"application/json;q=0.5, " + pb, 200, pb},
      {"text/html", 404, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.accept);
    std::map<std::string, std::string> headers;
    if (!c.accept.empty()) headers["accept"] = c.accept;
    auto w = Do("GET", "/openapi/v2", "", headers);
    EXPECT_EQ(w.code, c.code);
    if (c.code == 200) {
      EXPECT_EQ(w.type, c.type);
      EXPECT_EQ(HeaderOf(w, "Vary"), "Accept");
      // gnostic's Document: field 1 (swagger) = "2.0" first.
      if (c.type == pb)
        EXPECT_EQ(w.body.substr(0, 5), std::string("\x0a\x03"
                                                   "2.0"));
    } else {
      EXPECT_EQ(w.Json()["reason"], "NotFound");
    }
  }
  auto first = Do("GET", "/openapi/v2");
  const std::string etag = HeaderOf(first, "Etag");
  ASSERT_GE(etag.size(), 3u);
  EXPECT_EQ(etag.front(), '"');
  auto again = Do("GET", "/openapi/v2", "", {{"if-none-match", etag}});
  EXPECT_EQ(again.code, 304);
  EXPECT_TRUE(again.body.empty());
}

// A custom resource appears with its schema in Swagger 2.0's form and its list kind as
// apiextensions-apiserver builds it; its patch takes no strategic merge patch.
TEST_F(OpenApiV2Test, CustomResources) {
  const json crd = json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "kind": "Widget"},
             "versions": [{"name": "v1", "served": true, "storage": true,
                           "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                             "spec": {"type": "object", "properties": {
                               "size": {"type": "integer", "nullable": true},
                               "port": {"x-kubernetes-int-or-string": true,
                                        "anyOf": [{"type": "integer"}, {"type": "string"}]},
                               "pick": {"type": "object",
                                        "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                                        "properties": {"a": {"type": "string"},
                                                       "b": {"type": "string"}}},
                               "free": {"type": "object",
                                        "x-kubernetes-preserve-unknown-fields": true,
                                        "properties": {"a": {"type": "string"}}},
                               "freeList": {"type": "array",
                                            "x-kubernetes-preserve-unknown-fields": true,
                                            "items": {"type": "string"}}},
                             "required": ["size", "pick"]}}}}}]}})");
  auto created = Do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.dump());
  ASSERT_EQ(created.code, 201) << created.body;
  const json doc = Document();
  const json& coll = doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets"];
  EXPECT_EQ(coll["get"]["operationId"], "listExampleComV1NamespacedWidget");
  EXPECT_EQ(coll["get"]["tags"], json::array({"exampleCom_v1"}));
  EXPECT_EQ(coll["get"]["responses"]["200"]["schema"]["$ref"],
            "#/definitions/com.example.v1.WidgetList");
  const json& list = doc["definitions"]["com.example.v1.WidgetList"];
  EXPECT_EQ(list["description"], "WidgetList is a list of Widget");
  EXPECT_EQ(list["properties"]["items"]["items"]["$ref"], "#/definitions/com.example.v1.Widget");
  const json& widget = doc["definitions"]["com.example.v1.Widget"];
  // As ToStructuralOpenAPIV2: no nullable (the field loses its type and leaves required), no
  // anyOf/oneOf; a oneOf beside a type leaves the type alone.
  const json& spec = widget["properties"]["spec"];
  EXPECT_FALSE(spec["properties"]["size"].contains("nullable"));
  EXPECT_FALSE(spec["properties"]["size"].contains("type"));
  EXPECT_EQ(spec["required"], json::array({"pick"}));
  EXPECT_FALSE(spec["properties"]["port"].contains("anyOf"));
  EXPECT_EQ(spec["properties"]["port"]["x-kubernetes-int-or-string"], true);
  EXPECT_EQ(spec["properties"]["pick"]["type"], "object");
  // x-kubernetes-preserve-unknown-fields: no properties or items (kubectl would refuse the
  // unknown fields), and an array without items loses its type.
  EXPECT_EQ(spec["properties"]["free"],
            json({{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}));
  EXPECT_EQ(spec["properties"]["freeList"], json({{"x-kubernetes-preserve-unknown-fields", true}}));
  EXPECT_FALSE(spec["properties"]["pick"].contains("oneOf"));
  EXPECT_EQ(widget["properties"]["metadata"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(list["properties"]["kind"]["type"], "string");
  const json& patch =
      doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status"]["patch"];
  EXPECT_EQ(patch["operationId"], "patchExampleComV1NamespacedWidgetStatus");
  EXPECT_EQ(patch["consumes"].size(), 3u);
  EXPECT_TRUE(doc["definitions"].contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
}

}  // namespace
}  // namespace tidepool::apiserver
