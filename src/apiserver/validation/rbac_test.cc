#include "apiserver/validation/rbac.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;

constexpr const char* kClusterRole = R"({
  "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
  "metadata": {"name": "tidepool-autoscaler"},
  "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]},
            {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]})";

constexpr const char* kBinding = R"({
  "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
  "metadata": {"name": "tidepool-autoscaler"},
  "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
              "name": "tidepool-autoscaler"},
  "subjects": [{"kind": "ServiceAccount", "name": "tidepool-autoscaler",
                "namespace": "kube-system"}]})";

TEST(RbacTest, RolesRulesAndTexts) {
  struct Case {
    std::string name;
    std::string patch;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"a valid cluster role", "", {}},
      {"a name with a slash", R"({"metadata": {"name": "a/b"}})",
       {"metadata.name: Invalid value: \"a/b\": may not contain '/'"}},
      {"a rule without verbs or resources", R"({"rules": [{"apiGroups": [""]}]})",
       {"rules[0].verbs: Required value: verbs must contain at least one value",
        "rules[0].resources: Required value: resource rules must supply at least one resource"}},
      {"a non-resource rule with resources",
       R"({"rules": [{"nonResourceURLs": ["/x"], "resources": ["pods"], "verbs": ["get"]}]})",
       {"rules[0].nonResourceURLs: Invalid value: []string{\"/x\"}: rules cannot apply to both "
        "regular resources and non-resource URLs"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::FieldErrors errors;
    ASSERT_TRUE(ValidateRole(Patched(kClusterRole, tc.patch), nullptr, false, &errors).ok());
    EXPECT_THAT(Messages(errors), ElementsAreArray(tc.want));
  }
  api::FieldErrors errors;
  ASSERT_TRUE(ValidateRole(Patched(kClusterRole, R"({"metadata": {"namespace": "ns"}})"), nullptr,
                           true, &errors)
                  .ok());
  EXPECT_THAT(Messages(errors), ElementsAreArray({"rules[1].nonResourceURLs: Invalid value: "
                                                  "[]string{\"/healthz\"}: namespaced rules "
                                                  "cannot apply to non-resource URLs"}));
}

TEST(RbacTest, BindingsRulesAndTexts) {
  struct Case {
    std::string name;
    std::string patch;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"a valid binding", "", {}},
      {"a Role in a cluster binding", R"({"roleRef": {"kind": "Role"}})",
       {"roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\""}},
      {"a service account without namespace", R"({"subjects": [{"kind": "ServiceAccount",
                                                                 "name": "sa"}]})",
       {"subjects[0].namespace: Required value"}},
      {"an unknown subject kind", R"({"subjects": [{"kind": "Robot", "name": "r"}]})",
       {"subjects[0].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", "
        "\"User\", \"Group\""}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::FieldErrors errors;
    ASSERT_TRUE(ValidateRoleBinding(Patched(kBinding, tc.patch), nullptr, false, &errors).ok());
    EXPECT_THAT(Messages(errors), ElementsAreArray(tc.want));
  }
  const json old = json::parse(kBinding);
  api::FieldErrors errors;
  ASSERT_TRUE(
      ValidateRoleBinding(Patched(kBinding, R"({"roleRef": {"name": "other"}})"), &old, false, &errors)
          .ok());
  EXPECT_THAT(Messages(errors),
              ElementsAreArray({"roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization."
                                "k8s.io\", Kind:\"ClusterRole\", Name:\"other\"}: cannot change "
                                "roleRef"}));
}

}  // namespace
}  // namespace tidepool::apiserver::validation
