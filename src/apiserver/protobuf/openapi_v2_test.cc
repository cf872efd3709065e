#include "apiserver/protobuf/openapi_v2.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "apiserver/protobuf/wire.h"

namespace tidepool::apiserver::protobuf {
namespace {

using nlohmann::json;

// The fields of one message numbered `number`, in wire order (bytes values; varints as their
// decimal text; doubles as their value's text).
std::vector<std::string> FieldsOf(std::string_view message, uint32_t number) {
  std::vector<std::string> out;
  Reader r(message, "test");
  while (!r.Done()) {
    auto f = r.Next();
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    if (!f.ok()) break;
    if (f->number != number) continue;
    if (f->type == WireType::kBytes) {
      out.emplace_back(f->bytes);
    } else if (f->type == WireType::kFixed64) {
      double d;
      std::memcpy(&d, &f->varint, sizeof(d));
      out.push_back(std::to_string(d));
    } else {
      out.push_back(std::to_string(f->varint));
    }
  }
  return out;
}

// Follows a path of field numbers (the first occurrence at each level); "" when absent.
std::string At(std::string_view message, std::initializer_list<uint32_t> path) {
  std::string cur(message);
  for (uint32_t n : path) {
    auto fields = FieldsOf(cur, n);
    if (fields.empty()) return "";
    cur = fields[0];
  }
  return cur;
}

// The value of the Named* entry called `name` among the fields numbered `number`.
std::string Named(std::string_view message, uint32_t number, const std::string& name) {
  for (const std::string& named : FieldsOf(message, number)) {
    if (At(named, {1}) == name) return At(named, {2});
  }
  return "";
}

TEST(OpenApiV2ProtobufTest, Document) {
  const json doc = json::parse(R"({
    "swagger": "2.0",
    "info": {"title": "Kubernetes", "version": "v1.32.4"},
    "paths": {"/api/v1/namespaces/{namespace}/pods/{name}": {
      "parameters": [{"$ref": "#/parameters/name-x"},
                     {"name": "namespace", "in": "path", "required": true, "type": "string",
                      "uniqueItems": true, "description": "object name"}],
      "patch": {"consumes": ["application/json-patch+json",
                             "application/strategic-merge-patch+json"],
                "operationId": "patchCoreV1NamespacedPod",
                "parameters": [{"name": "body", "in": "body", "required": true,
                                "schema": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}},
                               {"name": "dryRun", "in": "query", "type": "string",
                                "uniqueItems": true}],
                "responses": {"200": {"description": "OK",
                                      "schema": {"$ref": "#/definitions/io.k8s.api.core.v1.Pod"}}},
                "x-kubernetes-action": "patch",
                "x-kubernetes-group-version-kind": {"group": "", "kind": "Pod", "version": "v1"}}}},
    "definitions": {"io.k8s.api.core.v1.PodSpec": {
      "type": "object", "required": ["containers"],
      "properties": {
        "containers": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Container"},
                       "x-kubernetes-patch-merge-key": "name",
                       "x-kubernetes-patch-strategy": "merge"},
        "nodeSelector": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
        "priority": {"type": "integer", "format": "int32", "minimum": 0.5},
        "free": {"additionalProperties": false}}}},
    "securityDefinitions": {"BearerToken": {"type": "apiKey", "name": "authorization",
                                            "in": "header", "description": "Bearer Token"}},
    "security": [{"BearerToken": []}]
  })");
  const std::string pb = EncodeOpenApiV2Document(doc);

  struct Case {
    std::string name, got, want;
  };
  const std::string path = Named(At(pb, {8}), 2, "/api/v1/namespaces/{namespace}/pods/{name}");
  const std::string patch = At(path, {8});
  const std::vector<std::string> path_params = FieldsOf(path, 9);
  ASSERT_EQ(path_params.size(), 2u);
  const std::vector<std::string> op_params = FieldsOf(patch, 8);
  ASSERT_EQ(op_params.size(), 2u);
  const std::string spec = Named(At(pb, {9}), 1, "io.k8s.api.core.v1.PodSpec");
  const std::string containers = Named(At(spec, {25}), 1, "containers");
  const std::string node_selector = Named(At(spec, {25}), 1, "nodeSelector");
  const std::string bearer = Named(At(pb, {13}), 1, "BearerToken");
  const std::vector<Case> cases = {
      {"swagger", At(pb, {1}), "2.0"},
      {"info.title", At(pb, {2, 1}), "Kubernetes"},
      {"info.version", At(pb, {2, 2}), "v1.32.4"},
      // ParametersItem.json_reference._ref
      {"path $ref parameter", At(path_params[0], {2, 1}), "#/parameters/name-x"},
      // ParametersItem.parameter.non_body_parameter.path_parameter_sub_schema
      {"path parameter name", At(path_params[1], {1, 2, 4, 4}), "namespace"},
      {"path parameter required", At(path_params[1], {1, 2, 4, 1}), "1"},
      {"path parameter type", At(path_params[1], {1, 2, 4, 5}), "string"},
      {"path parameter uniqueItems", At(path_params[1], {1, 2, 4, 19}), "1"},
      {"operationId", At(patch, {5}), "patchCoreV1NamespacedPod"},
      {"consumes[1]", FieldsOf(patch, 7).at(1), "application/strategic-merge-patch+json"},
      // body_parameter.schema._ref
      {"body schema", At(op_params[0], {1, 1, 5, 1}),
       "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"},
      // query_parameter_sub_schema: uniqueItems is field 20 there
      {"query parameter name", At(op_params[1], {1, 2, 3, 4}), "dryRun"},
      {"query parameter type", At(op_params[1], {1, 2, 3, 6}), "string"},
      {"query parameter uniqueItems", At(op_params[1], {1, 2, 3, 20}), "1"},
      // responses.response_code["200"].response.schema.schema._ref
      {"response schema", At(Named(At(patch, {9}), 1, "200"), {1, 2, 1, 1}),
       "#/definitions/io.k8s.api.core.v1.Pod"},
      {"response description", At(Named(At(patch, {9}), 1, "200"), {1, 1}), "OK"},
      // vendor_extension NamedAny.value.yaml: the JSON text
      {"x-kubernetes-action", At(Named(patch, 13, "x-kubernetes-action"), {2}), "\"patch\""},
      {"gvk yaml", At(Named(patch, 13, "x-kubernetes-group-version-kind"), {2}),
       R"({"group":"","kind":"Pod","version":"v1"})"},
      {"type", At(spec, {22, 1}), "object"},
      {"required", At(spec, {19}), "containers"},
      {"items $ref", At(containers, {23, 1, 1}), "#/definitions/io.k8s.api.core.v1.Container"},
      {"array type", At(containers, {22, 1}), "array"},
      {"patch strategy", At(Named(containers, 31, "x-kubernetes-patch-strategy"), {2}),
       "\"merge\""},
      {"patch merge key", At(Named(containers, 31, "x-kubernetes-patch-merge-key"), {2}),
       "\"name\""},
      {"additionalProperties schema type", At(node_selector, {21, 1, 22, 1}), "string"},
      {"default as Any.yaml", At(node_selector, {21, 1, 5, 2}), "\"\""},
      {"double minimum", At(Named(At(spec, {25}), 1, "priority"), {9}), "0.500000"},
      {"additionalProperties false", At(Named(At(spec, {25}), 1, "free"), {21, 2}), "0"},
      {"apiKey name", At(bearer, {2, 2}), "authorization"},
      {"apiKey in", At(bearer, {2, 3}), "header"},
      {"security requirement", At(At(pb, {12}), {1, 1}), "BearerToken"},
  };
  for (const Case& c : cases) EXPECT_EQ(c.got, c.want) << c.name;
}

// proto3 presence: zero scalars are not written; an empty document is empty.
TEST(OpenApiV2ProtobufTest, ZeroValuesAreLeftOut) {
  EXPECT_EQ(EncodeOpenApiV2Document(json::object()), "");
  const std::string pb = EncodeOpenApiV2Document(json::parse(R"({"definitions": {"X": {
      "description": "", "uniqueItems": false, "minimum": 0, "nullable": true}}})"));
  // Definitions{NamedSchema{name "X", value: an empty Schema}}: "nullable" is not Swagger 2.0.
  const std::string x = Named(At(pb, {9}), 1, "X");
  EXPECT_EQ(x, "");
  EXPECT_EQ(FieldsOf(At(pb, {9}), 1).size(), 1u);
}

}  // namespace
}  // namespace tidepool::apiserver::protobuf
