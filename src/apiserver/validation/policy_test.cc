// PodDisruptionBudget (policy), PriorityClass (scheduling) and Lease (coordination).
#include "apiserver/validation/policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/coordination.h"
#include "apiserver/validation/scheduling.h"
#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;

struct Case {
  std::string name;
  std::string patch;
  std::vector<std::string> want;
};

using Validator = Status (*)(const json&, const json*, api::FieldErrors*);

void RunCases(const char* base, Validator validate, const std::vector<Case>& cases) {
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::FieldErrors errors;
    ASSERT_TRUE(validate(Patched(base, tc.patch), nullptr, &errors).ok());
    EXPECT_THAT(Messages(errors), ElementsAreArray(tc.want));
  }
}

constexpr const char* kPdb = R"({
  "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
  "metadata": {"name": "web", "namespace": "default"},
  "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}})";

TEST(PodDisruptionBudgetTest, RulesAndTexts) {
  RunCases(kPdb, ValidatePodDisruptionBudget,
      {
          {"a valid budget", "", {}},
          {"both minAvailable and maxUnavailable", R"({"spec": {"maxUnavailable": 1}})",
           {"spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:"
            "(*intstr.IntOrString)(0xc000010000), Selector:(*v1.LabelSelector)(0xc000010000), "
            "MaxUnavailable:(*intstr.IntOrString)(0xc000010000), UnhealthyPodEvictionPolicy:"
            "(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable "
            "cannot be both set"}},
          {"a percentage over 100%", R"({"spec": {"minAvailable": "150%"}})",
           {"spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
            "StrVal:\"150%\"}: must not be greater than 100%"}},
          {"a negative maxUnavailable", R"({"spec": {"minAvailable": null, "maxUnavailable": -1}})",
           {"spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"}},
          {"an unknown unhealthyPodEvictionPolicy",
           R"({"spec": {"unhealthyPodEvictionPolicy": "Never"}})",
           {"spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values: "
            "\"AlwaysAllow\", \"IfHealthyBudget\""}},
      });
}

constexpr const char* kPriorityClass = R"({
  "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
  "metadata": {"name": "high"}, "value": 1000})";

TEST(PriorityClassTest, RulesAndTexts) {
  RunCases(kPriorityClass, ValidatePriorityClass,
      {
          {"a valid class", "", {}},
          {"a value over the user maximum", R"({"value": 1000000001})",
           {"value: Forbidden: maximum allowed value of a user defined priority is 1000000000"}},
          {"an unknown system- class", R"({"metadata": {"name": "system-mine"}})",
           {"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
            "for system use only. error: system-mine is not a known system priority class"}},
          {"a known system class", R"({"metadata": {"name": "system-node-critical"},
                                       "value": 2000001000})",
           {}},
          {"a namespace", R"({"metadata": {"namespace": "default"}})",
           {"metadata.namespace: Forbidden: not allowed on this type"}},
          {"an unknown preemptionPolicy", R"({"preemptionPolicy": "Sometimes"})",
           {"preemptionPolicy: Unsupported value: \"Sometimes\": supported values: "
            "\"PreemptLowerPriority\", \"Never\""}},
      });
  const json old = Patched(kPriorityClass, R"({"preemptionPolicy": "PreemptLowerPriority"})");
  api::FieldErrors errors;
  ASSERT_TRUE(ValidatePriorityClass(Patched(kPriorityClass, R"({"value": 5,
                                              "preemptionPolicy": "PreemptLowerPriority"})"),
                                    &old, &errors)
                  .ok());
  EXPECT_THAT(Messages(errors),
              ElementsAreArray({"value: Forbidden: may not be changed in an update."}));
}

constexpr const char* kLease = R"({
  "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
  "metadata": {"name": "node-1", "namespace": "kube-node-lease"},
  "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40}})";

TEST(LeaseTest, RulesAndTexts) {
  RunCases(kLease, ValidateLease,
      {
          {"a valid lease", "", {}},
          {"a zero duration", R"({"spec": {"leaseDurationSeconds": 0}})",
           {"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"}},
          {"negative transitions", R"({"spec": {"leaseTransitions": -1}})",
           {"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"}},
      });
}

}  // namespace
}  // namespace tidepool::apiserver::validation
