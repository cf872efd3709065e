// File: labels_test.cc
//
// Tests for label selectors against apimachinery's labels.Parse (grammar, sorting, the texts of
// its errors) and Selector.Matches.
#include "apiserver/selectors/labels.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidepool::apiserver::selectors {
namespace {

using nlohmann::json;

constexpr LabelOperator kIn = LabelOperator::kIn;
constexpr LabelOperator kNotIn = LabelOperator::kNotIn;
constexpr LabelOperator kEquals = LabelOperator::kEquals;
constexpr LabelOperator kDoubleEquals = LabelOperator::kDoubleEquals;
constexpr LabelOperator kNotEquals = LabelOperator::kNotEquals;
constexpr LabelOperator kExists = LabelOperator::kExists;
constexpr LabelOperator kDoesNotExist = LabelOperator::kDoesNotExist;
constexpr LabelOperator kGt = LabelOperator::kGreaterThan;
constexpr LabelOperator kLt = LabelOperator::kLessThan;

TEST(LabelSelectorTest, Parses) {
  struct Case {
    std::string name;
    std::string in;
    std::vector<LabelRequirement> want;
    std::string want_string;
  };
  const std::vector<Case> cases = {
      {"empty selects everything", "", {}, ""},
      {"blank selects everything", " \t\r\n", {}, ""},
      {"equals", "app=web", {{"app", kEquals, {"web"}}}, "app=web"},
      {"double equals", "app==web", {{"app", kDoubleEquals, {"web"}}}, "app==web"},
      {"not equals", "app!=web", {{"app", kNotEquals, {"web"}}}, "app!=web"},
      {"empty value", "app=", {{"app", kEquals, {""}}}, "app="},
      {"in, values sorted",
       "tier in (gpu, cpu)",
       {{"tier", kIn, {"cpu", "gpu"}}},
       "tier in (cpu,gpu)"},
      {"notin", "tier notin (cpu)", {{"tier", kNotIn, {"cpu"}}}, "tier notin (cpu)"},
      {"exists", "gpu", {{"gpu", kExists, {}}}, "gpu"},
      {"does not exist", "!gpu", {{"gpu", kDoesNotExist, {}}}, "!gpu"},
      {"greater than", "count>1", {{"count", kGt, {"1"}}}, "count>1"},
      {"less than", "count<10", {{"count", kLt, {"10"}}}, "count<10"},
      {"requirements sorted by key",
       "z=1,a!=2,m",
       {{"a", kNotEquals, {"2"}}, {"m", kExists, {}}, {"z", kEquals, {"1"}}},
       "a!=2,m,z=1"},
      {"apimachinery's documented example",
       "x in (foo,,baz),y,z notin ()",
       {{"x", kIn, {"", "baz", "foo"}}, {"y", kExists, {}}, {"z", kNotIn, {""}}},
       "x in (,baz,foo),y,z notin ()"},
      {"leading and trailing commas inside parentheses",
       "x in (,a,)",
       {{"x", kIn, {"", "a"}}},
       "x in (,a)"},
      {"duplicate values collapse", "x in (a,a,b)", {{"x", kIn, {"a", "b"}}}, "x in (a,b)"},
      {"in and notin are values inside parentheses",
       "x in (in,notin)",
       {{"x", kIn, {"in", "notin"}}},
       "x in (in,notin)"},
      {"in as a key", "in=1", {{"in", kEquals, {"1"}}}, "in=1"},
      {"whitespace around tokens",
       "  a  =  b , !c ",
       {{"a", kEquals, {"b"}}, {"c", kDoesNotExist, {}}},
       "a=b,!c"},
      {"tabs and newlines", "a\tin\n(x)", {{"a", kIn, {"x"}}}, "a in (x)"},
      {"prefixed key",
       "nvidia.com/gpu.product=A100",
       {{"nvidia.com/gpu.product", kEquals, {"A100"}}},
       "nvidia.com/gpu.product=A100"},
      {"NUL where a token would start ends the input",
       std::string("a=b \0junk", 9),
       {{"a", kEquals, {"b"}}},
       "a=b"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto sel = LabelSelector::Parse(tc.in);
    ASSERT_TRUE(sel.ok()) << sel.status().ToString();
    EXPECT_EQ(sel->requirements(), tc.want);
    EXPECT_EQ(sel->String(), tc.want_string);
    EXPECT_EQ(sel->Empty(), tc.want.empty());
  }
}

TEST(LabelSelectorTest, ParseErrorsHaveApimachineryTexts) {
  const std::string name_regex =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const std::string value_regex =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const std::string prefix_regex =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
      "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const std::string gt = "for 'Gt', 'Lt' operators, the value must be an integer";
  struct Case {
    std::string name;
    std::string in;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"NUL inside a token only ends the token", std::string("a=b\0c", 5),
       "found 'c', expected: ',' or 'end of string'"},
      {"two identifiers", "a b",
       "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
      {"operator first", "=a", "found '=', expected: !, identifier, or 'end of string'"},
      {"comma first", ",a", "found ',', expected: !, identifier, or 'end of string'"},
      {"trailing comma", "a,", "found '', expected: identifier after ','"},
      {"double comma", "a,,b", "found ',', expected: identifier after ','"},
      {"junk after a requirement", "a=b c", "found 'c', expected: ',' or 'end of string'"},
      {"!key with an operator", "!a=b", "found '=', expected: ',' or 'end of string'"},
      {"! alone", "!", "unable to parse requirement: found '', expected: identifier"},
      {"!!", "!!a", "unable to parse requirement: found '!', expected: identifier"},
      {"in without parentheses", "a in x", "unable to parse requirement: found 'x' expected: '('"},
      {"in at the end", "a in", "unable to parse requirement: found '' expected: '('"},
      {"unclosed parenthesis", "a in (x",
       "unable to parse requirement: found '', expected: ',' or ')'"},
      {"missing comma in a list", "a in (x y)",
       "unable to parse requirement: found 'y', expected: ',' or ')'"},
      {"operator inside parentheses", "a in (=)",
       "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
      {"operator after a comma in a list", "a in (x,=)",
       "unable to parse requirement: found '=', expected: ',', or identifier"},
      {"parenthesis as an exact value", "a=(",
       "unable to parse requirement: found '(', expected: identifier"},
      {"! as an operator", "a!b",
       "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"},
      {"invalid key", "-a",
       "unable to parse requirement: <nil>: Invalid value: \"-a\": name part " + name_regex},
      {"key with two slashes", "a/b/c",
       "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " +
           name_regex +
           " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
      {"empty prefix", "/a=b",
       "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty"},
      {"empty name", "a/",
       "unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be non-empty; "
       "name part " +
           name_regex},
      {"uppercase prefix", "Example.com/a",
       "unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": prefix part " +
           prefix_regex},
      {"name longer than 63", std::string(64, 'a'),
       "unable to parse requirement: <nil>: Invalid value: \"" + std::string(64, 'a') +
           "\": name part must be no more than 63 characters"},
      {"invalid value", "a=-x",
       "unable to parse requirement: values[0][a]: Invalid value: \"-x\": " + value_regex},
      {"invalid value, reported at its sorted index", "a in (b,-c)",
       "unable to parse requirement: values[0][a]: Invalid value: \"-c\": " + value_regex},
      {"two invalid values are aggregated", "a notin (-b,-c)",
       "unable to parse requirement: [values[0][a]: Invalid value: \"-b\": " + value_regex +
           ", values[1][a]: Invalid value: \"-c\": " + value_regex + "]"},
      {"value longer than 63", "a=" + std::string(64, 'v'),
       "unable to parse requirement: values[0][a]: Invalid value: \"" + std::string(64, 'v') +
           "\": must be no more than 63 characters"},
      {"Gt with a non-integer", "a>x",
       "unable to parse requirement: values[0]: Invalid value: \"x\": " + gt},
      {"Lt with no value", "a<",
       "unable to parse requirement: values[0]: Invalid value: \"\": " + gt},
      {"Gt with an integer too large for int64", "a>9223372036854775808",
       "unable to parse requirement: values[0]: Invalid value: \"9223372036854775808\": " + gt},
      {"Gt with a negative integer: not a label value", "count>-3",
       "unable to parse requirement: values[0][count]: Invalid value: \"-3\": " + value_regex},
      {"Gt with an invalid non-integer value", "a>-x",
       "unable to parse requirement: [values[0]: Invalid value: \"-x\": " + gt +
           ", values[0][a]: Invalid value: \"-x\": " + value_regex + "]"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto sel = LabelSelector::Parse(tc.in);
    ASSERT_FALSE(sel.ok()) << sel->String();
    EXPECT_EQ(sel.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(sel.status().message(), tc.want);
  }
}

TEST(LabelSelectorTest, Matches) {
  const json gpu = {{"app", "train"}, {"accelerator", "h100"}, {"gpus", "8"}, {"empty", ""}};
  struct Case {
    std::string name;
    std::string selector;
    json labels;
    bool want;
  };
  const std::vector<Case> cases = {
      {"everything matches no labels", "", nullptr, true},
      {"everything matches any labels", "", gpu, true},
      {"equals", "app=train", gpu, true},
      {"equals another value", "app=serve", gpu, false},
      {"equals a missing label", "team=ml", gpu, false},
      {"double equals", "app==train", gpu, true},
      {"not equals", "app!=serve", gpu, true},
      {"not equals the value", "app!=train", gpu, false},
      {"not equals matches a missing label", "team!=ml", gpu, true},
      {"in", "accelerator in (a100,h100)", gpu, true},
      {"in, not listed", "accelerator in (a100)", gpu, false},
      {"notin, listed", "accelerator notin (h100)", gpu, false},
      {"notin matches a missing label", "team notin (ml)", gpu, true},
      {"exists", "accelerator", gpu, true},
      {"exists with an empty value", "empty", gpu, true},
      {"exists, missing", "team", gpu, false},
      {"does not exist", "!team", gpu, true},
      {"does not exist, present", "!app", gpu, false},
      {"empty value matches an empty label", "empty=", gpu, true},
      {"empty value does not match a missing label", "team=", gpu, false},
      {"in () means the empty value", "empty in ()", gpu, true},
      {"gt", "gpus>4", gpu, true},
      {"gt is strict", "gpus>8", gpu, false},
      {"lt", "gpus<10", gpu, true},
      {"gt compares numbers, not text", "gpus>10", gpu, false},
      {"gt on a missing label", "count>1", gpu, false},
      {"gt on a non-integer label", "app>1", gpu, false},
      {"requirements are ANDed", "app=train,accelerator=h100,!team", gpu, true},
      {"one failing requirement fails", "app=train,accelerator=a100", gpu, false},
      {"null labels: only negative requirements match", "!a,b!=c,d notin (e)", nullptr, true},
      {"null labels: positive requirement fails", "a", nullptr, false},
      {"non-object labels are no labels", "a", json::array({"a"}), false},
      {"non-string label values are absent", "n", json{{"n", 1}}, false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto sel = LabelSelector::Parse(tc.selector);
    ASSERT_TRUE(sel.ok()) << sel.status().ToString();
    EXPECT_EQ(sel->Matches(tc.labels), tc.want);
  }
}

TEST(LabelSelectorTest, DefaultSelectsEverything) {
  LabelSelector sel;
  EXPECT_TRUE(sel.Empty());
  EXPECT_TRUE(sel.Matches(nullptr));
  EXPECT_EQ(sel.String(), "");
}

}  // namespace
}  // namespace tidepool::apiserver::selectors
