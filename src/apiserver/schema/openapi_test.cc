#include "apiserver/schema/openapi.h"

#include <gtest/gtest.h>

#include <functional>

namespace tidepool::apiserver::schema {
namespace {

using nlohmann::json;

// Every "$ref" in `schemas` names a schema it holds.
void ExpectClosed(const json& schemas) {
  std::function<void(const json&)> walk = [&](const json& s) {
    if (s.is_object()) {
      for (auto it = s.begin(); it != s.end(); ++it) {
        if (it.key() == "$ref" && it->is_string()) {  // (JSONSchemaProps has a "$ref" field)
          const std::string ref = it->get<std::string>();
          EXPECT_TRUE(schemas.contains(ref.substr(std::string("#/components/schemas/").size())))
              << ref;
        } else {
          walk(it.value());
        }
      }
    } else if (s.is_array()) {
      for (const json& e : s) walk(e);
    }
  };
  walk(schemas);
}

TEST(OpenApiTest, KindsWithTheirReferencedDefinitions) {
  struct Case {
    std::string kind;
    std::string definition;
    json gvk;
  } cases[] = {
      {"v1/Pod", "io.k8s.api.core.v1.Pod", {{"group", ""}, {"kind", "Pod"}, {"version", "v1"}}},
      {"apps/v1/Deployment",
       "io.k8s.api.apps.v1.Deployment",
       {{"group", "apps"}, {"kind", "Deployment"}, {"version", "v1"}}},
      {"autoscaling/v2/HorizontalPodAutoscaler",
       "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
       {{"group", "autoscaling"}, {"kind", "HorizontalPodAutoscaler"}, {"version", "v2"}}},
      {"apiextensions.k8s.io/v1/CustomResourceDefinition",
       "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
       {{"group", "apiextensions.k8s.io"},
        {"kind", "CustomResourceDefinition"},
        {"version", "v1"}}},
      {"rbac.authorization.k8s.io/v1/Role",
       "io.k8s.api.rbac.v1.Role",
       {{"group", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"version", "v1"}}},
  };
  for (const Case& c : cases) {
    const json schemas = OpenApiComponents({c.kind});
    ASSERT_TRUE(schemas.contains(c.definition)) << c.kind;
    const json& def = schemas[c.definition];
    EXPECT_EQ(def["x-kubernetes-group-version-kind"], json::array({c.gvk})) << c.kind;
    EXPECT_FALSE(def.value("description", "").empty()) << c.kind;
    EXPECT_TRUE(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")) << c.kind;
    ExpectClosed(schemas);
  }
}

TEST(OpenApiTest, FieldsAsKubePublishesThem) {
  const json schemas = OpenApiComponents({"v1/Pod"});
  const json& spec = schemas["io.k8s.api.core.v1.PodSpec"];
  EXPECT_EQ(spec["required"], json::array({"containers"}));
  const json& tolerations = spec["properties"]["tolerations"];
  EXPECT_EQ(tolerations["type"], "array");
  EXPECT_EQ(tolerations["items"]["$ref"], "#/components/schemas/io.k8s.api.core.v1.Toleration");
  EXPECT_NE(tolerations["description"].get<std::string>().find("tolerations"), std::string::npos);
  const json& pod_spec_field = schemas["io.k8s.api.core.v1.Pod"]["properties"]["spec"];
  EXPECT_EQ(pod_spec_field["allOf"][0]["$ref"], "#/components/schemas/io.k8s.api.core.v1.PodSpec");
  EXPECT_NE(pod_spec_field["description"].get<std::string>().find("Specification"),
            std::string::npos);
  const json& limits = schemas["io.k8s.api.core.v1.ResourceRequirements"]["properties"]["limits"];
  EXPECT_EQ(limits["additionalProperties"]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity");
  EXPECT_EQ(schemas["io.k8s.api.core.v1.Toleration"]["properties"]["tolerationSeconds"]["format"],
            "int64");
}

TEST(OpenApiTest, UnknownKindsAreSkipped) {
  EXPECT_TRUE(OpenApiComponents({"example.com/v1/Nothing"}).empty());
}

}  // namespace
}  // namespace tidepool::apiserver::schema
