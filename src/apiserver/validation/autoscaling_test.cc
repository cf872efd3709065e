#include "apiserver/validation/autoscaling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;

constexpr const char* kHpa = R"({
  "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
  "metadata": {"name": "web", "namespace": "default"},
  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
           "maxReplicas": 5}})";

TEST(HpaTest, Defaults) {
  json h = json::parse(kHpa);
  DefaultHpa(h);
  EXPECT_EQ(h["spec"]["minReplicas"], 1);
  EXPECT_EQ(h["spec"]["metrics"], json::parse(R"([{"type": "Resource", "resource": {"name": "cpu",
      "target": {"type": "Utilization", "averageUtilization": 80}}}])"));
  EXPECT_FALSE(h["spec"].contains("behavior"));
  json b =
      Patched(kHpa, R"({"spec": {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}})");
  DefaultHpa(b);
  EXPECT_EQ(b["spec"]["behavior"], json::parse(R"({
      "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                  "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                               {"type": "Percent", "value": 100, "periodSeconds": 15}]},
      "scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Max",
                    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}})"));
}

TEST(HpaTest, RulesAndTexts) {
  struct Case {
    std::string name;
    std::string patch;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"a valid hpa", "", {}},
      {"min above max",
       R"({"spec": {"minReplicas": 7}})",
       {"spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"}},
      {"min 0",
       R"({"spec": {"minReplicas": 0}})",
       {"spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"}},
      {"max 0",
       R"({"spec": {"maxReplicas": 0, "minReplicas": null}})",
       {"spec.maxReplicas: Invalid value: 0: must be greater than 0",
        "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"}},
      {"no target",
       R"({"spec": {"scaleTargetRef": {"kind": "", "name": ""}}})",
       {"spec.scaleTargetRef.kind: Required value", "spec.scaleTargetRef.name: Required value"}},
      {"a resource metric without target",
       R"({"spec": {"metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization"}}}]}})",
       {"spec.metrics[0].resource.target.averageUtilization: Required value: must set either a "
        "target raw value or a target utilization"}},
      {"type without its source",
       R"({"spec": {"metrics": [{"type": "Pods"}]}})",
       {"spec.metrics[0].pods: Required value: must populate information for the given metric "
        "source"}},
      {"an unknown type",
       R"({"spec": {"metrics": [{"type": "Magic"}]}})",
       {"spec.metrics[0].type: Unsupported value: \"Magic\": supported values: "
        "\"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\""}},
      {"a bad policy",
       R"({"spec": {"behavior": {"scaleUp": {"policies": [{"type": "Nodes", "value": 0, "periodSeconds": 3600}]}}}})",
       {"spec.behavior.scaleUp.policies[0].type: Unsupported value: \"Nodes\": supported values: "
        "\"Percent\", \"Pods\"",
        "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 3600: must be less than "
        "or equal to 1800"}},
  };
  for (const Case& c : cases) {
    json h = Patched(kHpa, c.patch);
    DefaultHpa(h);
    api::FieldErrors errors;
    ASSERT_TRUE(ValidateHpa(h, nullptr, &errors).ok()) << c.name;
    EXPECT_THAT(Messages(errors), ElementsAreArray(c.want)) << c.name;
  }
}

}  // namespace
}  // namespace tidepool::apiserver::validation
