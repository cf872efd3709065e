// File: labels.h
//
// Label selectors as the `labelSelector` query parameter carries them (`kubectl get -l ...`),
// parsed and matched as k8s.io/apimachinery/pkg/labels.Parse and Selector.Matches do
// (Kubernetes 1.32):
//   - requirements separated by ',' are ANDed; an empty or all-blank string selects everything;
//   - "k=v", "k==v" and "k in (a,b)" need the label present with one of the values; "k!=v" and
//     "k notin (a,b)" match a missing label too; "k" needs the label present, "!k" absent;
//     "k>1" / "k<1" (Gt / Lt) need the label present and both sides 64-bit decimal integers;
//   - "k=" and "k in ()" mean the empty value; "(a,,b)" includes "" too; "in" and "notin" are
//     values inside parentheses ("x in (in)");
//   - whitespace (space, \t, \r, \n) separates tokens and is otherwise ignored; as in the Go
//     lexer, a NUL byte where a token would start ends the input, and inside a token ends the
//     token (and is dropped);
//   - keys are qualified names ([prefix/]name: a DNS-1123 subdomain prefix, a name of at most
//     63 alphanumerics, '-', '_', '.', starting and ending alphanumeric), values are label
//     values (empty, or at most 63 such characters); Gt / Lt values must be integers.
// Requirements come out sorted by key (stable), values sorted and without duplicates, as
// labels.Parse leaves them.
//
// Parse errors are InvalidArgument with apimachinery's exact texts, e.g.
//   unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt
//   unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of
//     alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric
//     character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is
//     '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
//   unable to parse requirement: values[0][tier]: Invalid value: "-x": a valid label must be ...
//   unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the
//     value must be an integer
//   found '=', expected: !, identifier, or 'end of string'
//   found 'c', expected: ',' or 'end of string'
//   found '', expected: identifier after ','
// (kube-apiserver answers them as 400 BadRequest.) Nothing throws.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::apiserver::selectors {

// selection.Operator.
enum class LabelOperator {
  kIn,            // "in"
  kNotIn,         // "notin"
  kEquals,        // "="
  kDoubleEquals,  // "=="
  kNotEquals,     // "!="
  kExists,        // "k"
  kDoesNotExist,  // "!k"
  kGreaterThan,   // ">" (selection "gt")
  kLessThan,      // "<" (selection "lt")
};

struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::kExists;
  // Sorted, without duplicates; empty for kExists and kDoesNotExist, one value for the
  // exact-match operators and Gt / Lt.
  std::vector<std::string> values;

  // `labels` is metadata.labels: a JSON object of strings, or null / absent (no labels).
  // Entries whose value is not a string are ignored.
  bool Matches(const nlohmann::json& labels) const;
  // Requirement.String(): "k in (a,b)", "!k", "k>1".
  std::string String() const;

  friend bool operator==(const LabelRequirement&, const LabelRequirement&) = default;
};

class LabelSelector {
 public:
  // Selects everything (labels.Everything()).
  LabelSelector() = default;

  static StatusOr<LabelSelector> Parse(std::string_view s);

  // True if every requirement matches. `labels` as in LabelRequirement::Matches.
  bool Matches(const nlohmann::json& labels) const;
  bool Empty() const { return requirements_.empty(); }
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // The requirements' strings joined with ",".
  std::string String() const;

 private:
  std::vector<LabelRequirement> requirements_;
};

}  // namespace tidepool::apiserver::selectors
