// File: selector_test.cc
//
// Tests for label and node selectors against apimachinery's labels.Requirement, metav1's
// LabelSelectorAsSelector, component-helpers' nodeaffinity (terms ORed, requirements ANDed,
// empty or unparsable terms match nothing, matchFields on metadata.name) and the API server's
// ValidateNodeSelectorRequirement / ValidateLabelSelectorRequirement messages.
#include "api/selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace tidepool::api {
namespace {

constexpr SelectorOperator kIn = SelectorOperator::kIn;
constexpr SelectorOperator kNotIn = SelectorOperator::kNotIn;
constexpr SelectorOperator kExists = SelectorOperator::kExists;
constexpr SelectorOperator kDoesNotExist = SelectorOperator::kDoesNotExist;
constexpr SelectorOperator kGt = SelectorOperator::kGt;
constexpr SelectorOperator kLt = SelectorOperator::kLt;

SelectorRequirement Req(std::string key, SelectorOperator op,
                        std::vector<std::string> values = {}) {
  return SelectorRequirement{std::move(key), op, std::move(values)};
}

TEST(SelectorRequirementTest, Matches) {
  struct Case {
    std::string name;
    SelectorRequirement req;
    Labels labels;
    bool want;
  };
  const Labels gpu = {{"accelerator", "a100"}, {"gpu-count", "8"}, {"zone", "z1"}};
  const std::vector<Case> cases = {
      {"In matches a listed value", Req("accelerator", kIn, {"h100", "a100"}), gpu, true},
      {"In does not match an unlisted value", Req("accelerator", kIn, {"h100"}), gpu, false},
      {"In does not match a missing label", Req("pool", kIn, {"a"}), gpu, false},
      {"In compares values case-sensitively", Req("accelerator", kIn, {"A100"}), gpu, false},
      {"NotIn does not match a listed value", Req("accelerator", kNotIn, {"a100"}), gpu, false},
      {"NotIn matches an unlisted value", Req("accelerator", kNotIn, {"h100"}), gpu, true},
      {"NotIn matches a missing label", Req("pool", kNotIn, {"a"}), gpu, true},
      {"Exists matches a present label", Req("zone", kExists), gpu, true},
      {"Exists matches a present label with an empty value", Req("e", kExists), {{"e", ""}}, true},
      {"Exists does not match a missing label", Req("pool", kExists), gpu, false},
      {"DoesNotExist matches a missing label", Req("pool", kDoesNotExist), gpu, true},
      {"DoesNotExist does not match a present label", Req("zone", kDoesNotExist), gpu, false},
      {"Gt matches a larger integer", Req("gpu-count", kGt, {"4"}), gpu, true},
      {"Gt is strict", Req("gpu-count", kGt, {"8"}), gpu, false},
      {"Gt does not match a smaller integer", Req("gpu-count", kGt, {"9"}), gpu, false},
      {"Lt matches a smaller integer", Req("gpu-count", kLt, {"9"}), gpu, true},
      {"Lt is strict", Req("gpu-count", kLt, {"8"}), gpu, false},
      {"Gt compares numerically, not as text", Req("n", kGt, {"9"}), {{"n", "10"}}, true},
      {"Lt compares numerically, not as text", Req("n", kLt, {"10"}), {{"n", "9"}}, true},
      {"Gt with a negative requirement", Req("n", kGt, {"-5"}), {{"n", "-3"}}, true},
      {"Lt with negative numbers", Req("n", kLt, {"-5"}), {{"n", "-7"}}, true},
      {"Gt with a negative label below the value", Req("n", kGt, {"-5"}), {{"n", "-7"}}, false},
      {"Gt accepts a leading plus sign as strconv.ParseInt does",
       Req("n", kGt, {"+1"}),
       {{"n", "+2"}},
       true},
      {"Gt handles the int64 range",
       Req("n", kGt, {"-9223372036854775808"}),
       {{"n", "9223372036854775807"}},
       true},
      {"Gt on a missing label does not match", Req("pool", kGt, {"1"}), gpu, false},
      {"Gt on a non-integer label does not match", Req("accelerator", kGt, {"1"}), gpu, false},
      {"Gt on a fractional label does not match", Req("n", kGt, {"1"}), {{"n", "1.5"}}, false},
      {"Gt on an out-of-range label does not match",
       Req("n", kGt, {"1"}),
       {{"n", "9223372036854775808"}},
       false},
      {"Gt on a label with spaces does not match", Req("n", kGt, {"1"}), {{"n", " 5"}}, false},
      {"Gt on an empty label does not match", Req("n", kGt, {"1"}), {{"n", ""}}, false},
      {"Gt with a non-integer value does not match", Req("gpu-count", kGt, {"four"}), gpu, false},
      {"Gt with a doubled sign does not match", Req("gpu-count", kGt, {"++1"}), gpu, false},
      {"Gt with multiple values does not match", Req("gpu-count", kGt, {"1", "2"}), gpu, false},
      {"Lt without a value does not match", Req("gpu-count", kLt), gpu, false},
      // labels.NewRequirement refuses these shapes, so the selector holding them selects nothing.
      {"In without values matches nothing", Req("zone", kIn), gpu, false},
      {"NotIn without values matches nothing", Req("pool", kNotIn), gpu, false},
      {"Exists with values matches nothing", Req("zone", kExists, {"z1"}), gpu, false},
      {"DoesNotExist with values matches nothing", Req("pool", kDoesNotExist, {"a"}), gpu, false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.req.Matches(tc.labels), tc.want);
  }
}

TEST(LabelSelectorTest, Matches) {
  struct Case {
    std::string name;
    LabelSelector selector;
    Labels labels;
    bool want;
  };
  const Labels app = {{"app", "web"}, {"tier", "frontend"}};
  const std::vector<Case> cases = {
      {"an empty selector matches everything", {}, app, true},
      {"an empty selector matches an object without labels", {}, {}, true},
      {"matchLabels needs every pair", {{{"app", "web"}, {"tier", "frontend"}}, {}}, app, true},
      {"matchLabels fails on a different value", {{{"app", "db"}}, {}}, app, false},
      {"matchLabels fails on a missing key", {{{"team", "a"}}, {}}, app, false},
      {"matchExpressions are ANDed (all hold)",
       {{}, {Req("app", kIn, {"web"}), Req("team", kDoesNotExist)}},
       app,
       true},
      {"matchExpressions are ANDed (one fails)",
       {{}, {Req("app", kIn, {"web"}), Req("tier", kNotIn, {"frontend"})}},
       app,
       false},
      {"matchLabels and matchExpressions are ANDed",
       {{{"app", "web"}}, {Req("tier", kExists)}},
       app,
       true},
      {"Gt is not a label selector operator", {{}, {Req("n", kGt, {"1"})}}, {{"n", "5"}}, false},
      {"Lt is not a label selector operator", {{}, {Req("n", kLt, {"9"})}}, {{"n", "5"}}, false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.selector.Matches(tc.labels), tc.want);
  }
  EXPECT_TRUE(LabelSelector{}.Empty());
  EXPECT_FALSE((LabelSelector{{{"a", "b"}}, {}}).Empty());
}

NodeSelectorTerm ExprTerm(std::vector<SelectorRequirement> exprs) {
  return NodeSelectorTerm{std::move(exprs), {}};
}
NodeSelectorTerm FieldsTerm(std::vector<SelectorRequirement> fields) {
  return NodeSelectorTerm{{}, std::move(fields)};
}

TEST(NodeSelectorTermTest, Matches) {
  struct Case {
    std::string name;
    NodeSelectorTerm term;
    bool want;
  };
  // The node: name "node-1", labels below.
  const std::vector<Case> cases = {
      {"an empty term matches nothing", {}, false},
      {"one matching expression", ExprTerm({Req("zone", kIn, {"z1"})}), true},
      {"requirements are ANDed (all hold)",
       ExprTerm({Req("zone", kIn, {"z1"}), Req("gpu-count", kGt, {"4"})}), true},
      {"requirements are ANDed (one fails)",
       ExprTerm({Req("zone", kIn, {"z1"}), Req("gpu-count", kGt, {"8"})}), false},
      {"a non-integer label fails the whole term",
       ExprTerm({Req("zone", kIn, {"z1"}), Req("accelerator", kLt, {"5"})}), false},
      {"an unparsable requirement fails the whole term",
       ExprTerm({Req("zone", kIn, {"z1"}), Req("pool", kNotIn)}), false},
      {"matchFields metadata.name In the node's name",
       FieldsTerm({Req("metadata.name", kIn, {"node-1"})}), true},
      {"matchFields metadata.name In another name",
       FieldsTerm({Req("metadata.name", kIn, {"node-2"})}), false},
      {"matchFields metadata.name NotIn the node's name",
       FieldsTerm({Req("metadata.name", kNotIn, {"node-1"})}), false},
      {"matchFields metadata.name NotIn another name",
       FieldsTerm({Req("metadata.name", kNotIn, {"node-2"})}), true},
      {"matchFields In with two values is a parse error",
       FieldsTerm({Req("metadata.name", kIn, {"node-1", "node-2"})}), false},
      {"matchFields In without values is a parse error", FieldsTerm({Req("metadata.name", kIn)}),
       false},
      {"matchFields Exists is not a field selector operator",
       FieldsTerm({Req("metadata.name", kExists)}), false},
      {"matchFields on an unknown field reads an empty value (In)",
       FieldsTerm({Req("spec.unknown", kIn, {"node-1"})}), false},
      {"matchFields on an unknown field reads an empty value (NotIn)",
       FieldsTerm({Req("spec.unknown", kNotIn, {"node-1"})}), true},
      {"the hostname label is an ordinary label",
       ExprTerm({Req("kubernetes.io/hostname", kIn, {"node-1"})}), true},
      {"matchExpressions and matchFields are ANDed (both hold)",
       NodeSelectorTerm{{Req("zone", kIn, {"z1"})}, {Req("metadata.name", kIn, {"node-1"})}}, true},
      {"matchExpressions and matchFields are ANDed (fields fail)",
       NodeSelectorTerm{{Req("zone", kIn, {"z1"})}, {Req("metadata.name", kIn, {"node-2"})}},
       false},
      {"matchExpressions and matchFields are ANDed (expressions fail)",
       NodeSelectorTerm{{Req("zone", kIn, {"z2"})}, {Req("metadata.name", kIn, {"node-1"})}},
       false},
  };
  const Labels labels = {{"accelerator", "a100"},
                         {"gpu-count", "8"},
                         {"kubernetes.io/hostname", "node-1"},
                         {"zone", "z1"}};
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.term.Matches(labels, "node-1"), tc.want);
  }
}

TEST(NodeSelectorTest, TermsAreOred) {
  struct Case {
    std::string name;
    NodeSelector selector;
    bool want;
  };
  const NodeSelectorTerm yes = ExprTerm({Req("zone", kIn, {"z1"})});
  const NodeSelectorTerm no = ExprTerm({Req("zone", kIn, {"z2"})});
  const std::vector<Case> cases = {
      {"no terms match nothing", {}, false},
      {"a single matching term", {{yes}}, true},
      {"a single failing term", {{no}}, false},
      {"one matching term of two is enough", {{no, yes}}, true},
      {"no term of two matches", {{no, no}}, false},
      {"an empty term is skipped, not a match-all", {{NodeSelectorTerm{}}}, false},
      {"an empty term beside a matching one", {{NodeSelectorTerm{}, yes}}, true},
      {"an unparsable term beside a matching one", {{ExprTerm({Req("x", kGt, {"a"})}), yes}}, true},
  };
  const Labels labels = {{"zone", "z1"}};
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.selector.Matches(labels, "n"), tc.want);
  }
}

TEST(SelectorOperatorTest, NamesRoundTrip) {
  struct Case {
    std::string name;
    SelectorOperator op;
  };
  const std::vector<Case> cases = {{"In", kIn},         {"NotIn", kNotIn},
                                   {"Exists", kExists}, {"DoesNotExist", kDoesNotExist},
                                   {"Gt", kGt},         {"Lt", kLt}};
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(SelectorOperatorName(tc.op), tc.name);
    StatusOr<SelectorOperator> parsed = ParseSelectorOperator(tc.name);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, tc.op);
  }
  StatusOr<SelectorOperator> bad = ParseSelectorOperator("in");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "\"in\" is not a valid label selector operator");
}

TEST(ValidateSelectorRequirementTest, Messages) {
  struct Case {
    std::string name;
    SelectorRequirement req;
    bool allow_gt_lt;
    std::vector<std::string> want;
  };
  const std::string p =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
      "Execution.nodeSelectorTerms[0].matchExpressions[0]";
  const std::vector<Case> cases = {
      {"In with values is valid", Req("k", kIn, {"a"}), true, {}},
      {"NotIn with values is valid", Req("k", kNotIn, {"a", "b"}), false, {}},
      {"Exists without values is valid", Req("k", kExists), false, {}},
      {"Gt with one integer is valid for node selectors", Req("k", kGt, {"3"}), true, {}},
      {"In without values",
       Req("k", kIn),
       true,
       {p + ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
      {"NotIn without values",
       Req("k", kNotIn),
       false,
       {p + ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
      {"Exists with values",
       Req("k", kExists, {"a"}),
       true,
       {p + ".values: Forbidden: may not be specified when `operator` is 'Exists' or "
            "'DoesNotExist'"}},
      {"DoesNotExist with values",
       Req("k", kDoesNotExist, {"a"}),
       false,
       {p + ".values: Forbidden: may not be specified when `operator` is 'Exists' or "
            "'DoesNotExist'"}},
      {"Gt without a value",
       Req("k", kGt),
       true,
       {p + ".values: Required value: must be specified single value when `operator` is 'Lt' "
            "or 'Gt'"}},
      {"Lt with two values",
       Req("k", kLt, {"1", "2"}),
       true,
       {p + ".values: Required value: must be specified single value when `operator` is 'Lt' "
            "or 'Gt'"}},
      // ValidateNodeSelectorRequirement counts values only; the term then matches no node.
      {"Gt with a non-integer value is accepted by the API server",
       Req("k", kGt, {"abc"}),
       true,
       {}},
      {"Gt in a label selector",
       Req("k", kGt, {"1"}),
       false,
       {p + ".operator: Invalid value: \"Gt\": not a valid selector operator"}},
      {"Lt in a label selector",
       Req("k", kLt, {"1"}),
       false,
       {p + ".operator: Invalid value: \"Lt\": not a valid selector operator"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    FieldErrors errs = ValidateSelectorRequirement(tc.req, tc.allow_gt_lt, p);
    std::vector<std::string> got;
    for (const FieldError& e : errs) {
      got.push_back(e.ToString());
    }
    EXPECT_EQ(got, tc.want);
  }
}

}  // namespace
}  // namespace tidepool::api
