// File: validation_test.cc
//
// Tests for the API server rules scheduling relies on, with kube-apiserver 1.32's messages
// (pkg/apis/core/validation/validation.go: ValidateContainerResourceRequirements,
// ValidateResourceQuantityValue, ValidateTolerations, ValidateNodeSelector,
// ValidateNodeFieldSelectorRequirement, ValidatePreferredSchedulingTerms).
//
// Where Go prints a bad value that is not a string (a resource.Quantity, an int32 weight, a
// whole Toleration struct) tidepool renders it differently, so those cases check the field,
// type and detail rather than the whole line.
#include "api/validation.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::api {
namespace {

using ::tidepool::testing::FieldTerm;
using ::tidepool::testing::MakePod;
using ::tidepool::testing::Resources;
using ::tidepool::testing::Term;

std::vector<std::string> Strings(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) {
    out.push_back(e.ToString());
  }
  return out;
}

TEST(ValidateResourceRequirementsTest, Messages) {
  struct Case {
    std::string name;
    ResourceRequirements r;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"a GPU request equal to its limit is valid",
       {Resources({{"nvidia.com/gpu", "2"}}), Resources({{"nvidia.com/gpu", "2"}})},
       {}},
      {"a whole number written in milli units is an integer",
       {Resources({{"nvidia.com/gpu", "1000m"}}), Resources({{"nvidia.com/gpu", "1"}})},
       {}},
      {"a GPU limit alone is valid", {{}, Resources({{"nvidia.com/gpu", "1"}})}, {}},
      {"cpu and memory may be requested below their limits",
       {Resources({{"cpu", "500m"}, {"memory", "1Gi"}}),
        Resources({{"cpu", "1"}, {"memory", "2Gi"}})},
       {}},
      {"cpu and memory may be requested without limits",
       {Resources({{"cpu", "500m"}, {"memory", "1Gi"}}), {}},
       {}},
      {"a zero request is valid", {Resources({{"cpu", "0"}}), {}}, {}},
      {"a GPU request different from its limit",
       {Resources({{"nvidia.com/gpu", "2"}}), Resources({{"nvidia.com/gpu", "1"}})},
       {"spec.containers[0].resources.requests: Invalid value: \"2\": must be equal to "
        "nvidia.com/gpu limit of 1"}},
      {"a GPU request below its limit must still be equal",
       {Resources({{"nvidia.com/gpu", "1"}}), Resources({{"nvidia.com/gpu", "4"}})},
       {"spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to "
        "nvidia.com/gpu limit of 4"}},
      {"a GPU request without a limit",
       {Resources({{"nvidia.com/gpu", "1"}}), {}},
       {"spec.containers[0].resources.limits: Required value: Limit must be set for non "
        "overcommitable resources"}},
      {"a hugepages request different from its limit",
       {Resources({{"hugepages-2Mi", "2Mi"}, {"memory", "1Gi"}}),
        Resources({{"hugepages-2Mi", "4Mi"}, {"memory", "1Gi"}})},
       {"spec.containers[0].resources.requests: Invalid value: \"2Mi\": must be equal to "
        "hugepages-2Mi limit of 4Mi"}},
      {"a cpu request above its limit",
       {Resources({{"cpu", "2"}}), Resources({{"cpu", "1"}})},
       {"spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or "
        "equal to cpu limit of 1"}},
      {"a memory request above its limit",
       {Resources({{"memory", "2Gi"}}), Resources({{"memory", "1536Mi"}})},
       {"spec.containers[0].resources.requests: Invalid value: \"2Gi\": must be less than or "
        "equal to memory limit of 1536Mi"}},
      {"a negative cpu request",
       {Resources({{"cpu", "-1"}}), {}},
       {"spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater "
        "than or equal to 0"}},
      {"a negative memory limit",
       {{}, Resources({{"memory", "-100Mi"}})},
       {"spec.containers[0].resources.limits[memory]: Invalid value: \"-100Mi\": must be "
        "greater than or equal to 0"}},
      {"limits are checked before requests",
       {Resources({{"cpu", "-1"}}), Resources({{"cpu", "-2"}})},
       {"spec.containers[0].resources.limits[cpu]: Invalid value: \"-2\": must be greater than "
        "or equal to 0",
        "spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater "
        "than or equal to 0",
        "spec.containers[0].resources.requests: Invalid value: \"-1\": must be less than or "
        "equal to cpu limit of -2"}},
      {"every resource is reported",
       {Resources({{"cpu", "2"}, {"example.com/foo", "3"}, {"nvidia.com/gpu", "1"}}),
        Resources({{"cpu", "1"}, {"nvidia.com/gpu", "1"}})},
       {"spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or "
        "equal to cpu limit of 1",
        "spec.containers[0].resources.limits: Required value: Limit must be set for non "
        "overcommitable resources"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(Strings(ValidateResourceRequirements(tc.r, "spec.containers[0]")), tc.want);
  }
}

TEST(ValidateResourceRequirementsTest, ExtendedResourcesMustBeIntegers) {
  struct Case {
    std::string name;
    ResourceRequirements r;
    // (field, detail) of each error, in order.
    std::vector<std::pair<std::string, std::string>> want;
  };
  const std::vector<Case> cases = {
      {"a fractional GPU limit",
       {{}, Resources({{"nvidia.com/gpu", "0.5"}})},
       {{"spec.containers[0].resources.limits[nvidia.com/gpu]", "must be an integer"}}},
      {"a fractional GPU request and limit",
       {Resources({{"nvidia.com/gpu", "500m"}}), Resources({{"nvidia.com/gpu", "0.5"}})},
       {{"spec.containers[0].resources.limits[nvidia.com/gpu]", "must be an integer"},
        {"spec.containers[0].resources.requests[nvidia.com/gpu]", "must be an integer"}}},
      {"a fractional GPU request that also differs from the limit",
       {Resources({{"nvidia.com/gpu", "1.5"}}), Resources({{"nvidia.com/gpu", "1"}})},
       {{"spec.containers[0].resources.requests[nvidia.com/gpu]", "must be an integer"},
        {"spec.containers[0].resources.requests", "must be equal to nvidia.com/gpu limit of 1"}}},
      {"a fractional cpu is fine", {Resources({{"cpu", "0.5"}}), {}}, {}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    FieldErrors errs = ValidateResourceRequirements(tc.r, "spec.containers[0]");
    ASSERT_EQ(errs.size(), tc.want.size()) << ::testing::PrintToString(Strings(errs));
    for (size_t i = 0; i < errs.size(); ++i) {
      EXPECT_EQ(errs[i].type, FieldError::Type::kInvalid);
      EXPECT_EQ(errs[i].field, tc.want[i].first);
      EXPECT_EQ(errs[i].detail, tc.want[i].second);
    }
  }
}

Toleration Tol(std::string key, TolerationOperator op, std::string value, TaintEffect effect,
               std::optional<int64_t> seconds = std::nullopt) {
  return Toleration{std::move(key), op, std::move(value), effect, seconds};
}

TEST(ValidateTolerationsTest, Messages) {
  constexpr auto kEqual = TolerationOperator::kEqual;
  constexpr auto kExists = TolerationOperator::kExists;
  struct Case {
    std::string name;
    std::vector<Toleration> tolerations;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"no tolerations", {}, {}},
      {"a key with Equal and a value",
       {Tol("nvidia.com/gpu", kEqual, "present", TaintEffect::kNoSchedule)},
       {}},
      {"an empty key with Exists tolerates everything",
       {Tol("", kExists, "", TaintEffect::kNone)},
       {}},
      {"tolerationSeconds with NoExecute",
       {Tol("node.kubernetes.io/not-ready", kExists, "", TaintEffect::kNoExecute, 300)},
       {}},
      {"an empty key with Equal",
       {Tol("", kEqual, "", TaintEffect::kNone)},
       {"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when "
        "`key` is empty, which means \"match all values and all keys\""}},
      {"an empty key with Equal and a value",
       {Tol("", kEqual, "present", TaintEffect::kNoSchedule)},
       {"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when "
        "`key` is empty, which means \"match all values and all keys\""}},
      {"tolerationSeconds with NoSchedule",
       {Tol("k", kExists, "", TaintEffect::kNone),
        Tol("k", kExists, "", TaintEffect::kNoSchedule, 60)},
       {"spec.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' "
        "when `tolerationSeconds` is set"}},
      {"tolerationSeconds without an effect",
       {Tol("k", kExists, "", TaintEffect::kNone, 60)},
       {"spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(Strings(ValidateTolerations(tc.tolerations)), tc.want);
  }
}

TEST(ValidateTolerationsTest, ExistsTakesNoValue) {
  FieldErrors errs = ValidateTolerations(
      {Tol("nvidia.com/gpu", TolerationOperator::kExists, "present", TaintEffect::kNone)});
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].type, FieldError::Type::kInvalid);
  EXPECT_EQ(errs[0].field, "spec.tolerations[0].operator");
  EXPECT_EQ(errs[0].detail, "value must be empty when `operator` is 'Exists'");
}

TEST(ValidateNodeSelectorTermTest, Messages) {
  using enum SelectorOperator;
  struct Case {
    std::string name;
    NodeSelectorTerm term;
    std::vector<std::string> want;
  };
  const std::string p = "t";
  const std::vector<Case> cases = {
      {"an empty term is valid", {}, {}},
      {"a valid expression and field",
       {{{"zone", kIn, {"a"}}}, {{"metadata.name", kIn, {"n"}}}},
       {}},
      {"an invalid expression",
       {{{"zone", kIn, {"a"}}, {"gpu", kExists, {"x"}}}, {}},
       {"t.matchExpressions[1].values: Forbidden: may not be specified when `operator` is "
        "'Exists' or 'DoesNotExist'"}},
      {"a field requirement with two values",
       {{}, {{"metadata.name", kIn, {"a", "b"}}}},
       {"t.matchFields[0].values: Required value: must be only one value when `operator` is "
        "'In' or 'NotIn' for node field selector"}},
      {"a field requirement without values",
       {{}, {{"metadata.name", kNotIn, {}}}},
       {"t.matchFields[0].values: Required value: must be only one value when `operator` is "
        "'In' or 'NotIn' for node field selector"}},
      {"a field requirement with Exists",
       {{}, {{"metadata.name", kExists, {}}}},
       {"t.matchFields[0].operator: Invalid value: \"Exists\": not a valid selector operator"}},
      {"a field requirement on an unknown field",
       {{}, {{"metadata.uid", kIn, {"x"}}}},
       {"t.matchFields[0].key: Invalid value: \"metadata.uid\": not a valid field selector "
        "key"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(Strings(ValidateNodeSelectorTerm(tc.term, p)), tc.want);
  }
}

TEST(ValidatePodForSchedulingTest, Messages) {
  using enum SelectorOperator;
  const std::string req =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  struct Case {
    std::string name;
    Pod pod;
    std::vector<std::string> want;
  };
  Pod empty_required = MakePod("p").Obj();
  empty_required.spec.affinity.emplace().node_affinity.emplace().required.emplace();
  const std::vector<Case> cases = {
      {"a GPU pod with a limit only is valid once defaulted",
       [] {
         Pod p = MakePod("p").Limit("nvidia.com/gpu", "1").Obj();
         ApplyPodDefaults(p);
         return p;
       }(),
       {}},
      {"a GPU pod built with equal request and limit",
       MakePod("p")
           .Req("nvidia.com/gpu", "2")
           .Toleration("nvidia.com/gpu", "present")
           .RequiredAffinity(Term("gpu-count", kGt, {"1"}))
           .PreferredAffinity(10, FieldTerm(kIn, {"node-1"}))
           .Obj(),
       {}},
      {"an init container and a container",
       [] {
         Pod p = MakePod("p").Req("cpu", "2").Limit("cpu", "1").Obj();
         Container init;
         init.name = "init";
         init.resources.requests = Resources({{"nvidia.com/gpu", "1"}});
         p.spec.init_containers.push_back(init);
         return p;
       }(),
       {"spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or "
        "equal to cpu limit of 1",
        "spec.initContainers[0].resources.limits: Required value: Limit must be set for non "
        "overcommitable resources"}},
      {"affinity is reported before tolerations",
       [] {
         Pod p = MakePod("p").RequiredAffinity(Term("zone", kIn)).Obj();
         p.spec.tolerations.push_back(
             Toleration{"", TolerationOperator::kEqual, "", TaintEffect::kNone, std::nullopt});
         return p;
       }(),
       {req + ".nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
              "specified when `operator` is 'In' or 'NotIn'",
        "spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when "
        "`key` is empty, which means \"match all values and all keys\""}},
      {"required affinity without terms",
       empty_required,
       {req + ".nodeSelectorTerms: Required value: must have at least one node selector term"}},
      {"the second required term's matchFields",
       MakePod("p")
           .RequiredAffinity(Term("zone", kIn, {"a"}))
           .RequiredAffinity(FieldTerm(kIn, {"a", "b"}))
           .Obj(),
       {req + ".nodeSelectorTerms[1].matchFields[0].values: Required value: must be only one "
              "value when `operator` is 'In' or 'NotIn' for node field selector"}},
      {"a preferred term's preference",
       MakePod("p").PreferredAffinity(5, Term("zone", kLt, {"1", "2"})).Obj(),
       {"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "preference.matchExpressions[0].values: Required value: must be specified single value "
        "when `operator` is 'Lt' or 'Gt'"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(Strings(ValidatePodForScheduling(tc.pod)), tc.want);
  }
}

TEST(ValidatePodForSchedulingTest, PreferredWeightRange) {
  struct Case {
    std::string name;
    int32_t weight;
    bool valid;
  };
  const std::vector<Case> cases = {
      {"weight 0 is too small", 0, false},      {"weight 1 is the minimum", 1, true},
      {"weight 100 is the maximum", 100, true}, {"weight 101 is too large", 101, false},
      {"a negative weight", -1, false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Pod pod =
        MakePod("p").PreferredAffinity(tc.weight, Term("zone", SelectorOperator::kIn, {"a"})).Obj();
    FieldErrors errs = ValidatePodForScheduling(pod);
    if (tc.valid) {
      EXPECT_TRUE(errs.empty()) << ::testing::PrintToString(Strings(errs));
      continue;
    }
    ASSERT_EQ(errs.size(), 1u);
    EXPECT_EQ(errs[0].type, FieldError::Type::kInvalid);
    EXPECT_EQ(errs[0].field,
              "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
              "weight");
    EXPECT_EQ(errs[0].detail, "must be in the range 1-100");
  }
}

TEST(ValidatePodForSchedulingTest, AggregateMessage) {
  Pod pod = MakePod("p").Req("nvidia.com/gpu", "2").Limit("nvidia.com/gpu", "1").Obj();
  FieldErrors errs = ValidatePodForScheduling(pod);
  EXPECT_EQ(AggregateMessage(errs),
            "spec.containers[0].resources.requests: Invalid value: \"2\": must be equal to "
            "nvidia.com/gpu limit of 1");
  pod.spec.containers[0].resources.requests["cpu"] = testing::Q("-1");
  EXPECT_EQ(AggregateMessage(ValidatePodForScheduling(pod)),
            "[spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater "
            "than or equal to 0, spec.containers[0].resources.requests: Invalid value: \"2\": "
            "must be equal to nvidia.com/gpu limit of 1]");
}

}  // namespace
}  // namespace tidepool::api
