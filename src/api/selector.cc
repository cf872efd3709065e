#include "api/selector.h"

#include <algorithm>
#include <charconv>

namespace tidepool::api {
namespace {

bool ParseInt64(std::string_view s, int64_t& out) {
  // strconv.ParseInt(s, 10, 64): optional sign, decimal digits, nothing else.
  if (s.empty()) {
    return false;
  }
  std::string_view digits = s;
  if (s[0] == '+') {
    digits = s.substr(1);
  }
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return ec == std::errc() && ptr == digits.data() + digits.size() && !digits.empty() &&
         digits[0] != '+';
}

bool Contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// labels.NewRequirement's shape rules. A requirement that breaks them is a parse error in
// apimachinery, and the selector or node selector term holding it selects nothing
// (nodeaffinity ignores such a term; LabelSelectorAsSelector fails).
bool WellFormed(const SelectorRequirement& r) {
  switch (r.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      return !r.values.empty();
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      return r.values.empty();
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      int64_t v;
      return r.values.size() == 1 && ParseInt64(r.values[0], v);
    }
  }
  return false;
}

// The selector requirement evaluated against a single optional value.
bool MatchesValue(const SelectorRequirement& r, const std::string* value) {
  switch (r.op) {
    case SelectorOperator::kIn:
      return value != nullptr && Contains(r.values, *value);
    case SelectorOperator::kNotIn:
      return value == nullptr || !Contains(r.values, *value);
    case SelectorOperator::kExists:
      return value != nullptr;
    case SelectorOperator::kDoesNotExist:
      return value == nullptr;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      if (value == nullptr || r.values.size() != 1) {
        return false;
      }
      int64_t label_v, req_v;
      if (!ParseInt64(*value, label_v) || !ParseInt64(r.values[0], req_v)) {
        return false;
      }
      return r.op == SelectorOperator::kGt ? label_v > req_v : label_v < req_v;
    }
  }
  return false;
}

}  // namespace

std::string_view SelectorOperatorName(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::kIn: return "In";
    case SelectorOperator::kNotIn: return "NotIn";
    case SelectorOperator::kExists: return "Exists";
    case SelectorOperator::kDoesNotExist: return "DoesNotExist";
    case SelectorOperator::kGt: return "Gt";
    case SelectorOperator::kLt: return "Lt";
  }
  return "";
}

StatusOr<SelectorOperator> ParseSelectorOperator(std::string_view s) {
  for (auto op : {SelectorOperator::kIn, SelectorOperator::kNotIn, SelectorOperator::kExists,
                  SelectorOperator::kDoesNotExist, SelectorOperator::kGt, SelectorOperator::kLt}) {
    if (SelectorOperatorName(op) == s) {
      return op;
    }
  }
  return InvalidArgumentError("\"" + std::string(s) + "\" is not a valid label selector operator");
}

bool SelectorRequirement::Matches(const Labels& labels) const {
  if (!WellFormed(*this)) {
    return false;
  }
  auto it = labels.find(key);
  return MatchesValue(*this, it == labels.end() ? nullptr : &it->second);
}

bool LabelSelector::Matches(const Labels& labels) const {
  // Gt and Lt are not label selector operators: LabelSelectorAsSelector fails on them.
  for (const auto& r : match_expressions) {
    if (r.op == SelectorOperator::kGt || r.op == SelectorOperator::kLt) {
      return false;
    }
  }
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) {
      return false;
    }
  }
  for (const auto& r : match_expressions) {
    if (!r.Matches(labels)) {
      return false;
    }
  }
  return true;
}

FieldErrors ValidateSelectorRequirement(const SelectorRequirement& r, bool allow_gt_lt,
                                        std::string_view path) {
  const std::string p(path);
  FieldErrors errs;
  switch (r.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (r.values.empty()) {
        errs.push_back(FieldError::Required(
            p + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!r.values.empty()) {
        errs.push_back(FieldError::Forbidden(
            p + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      if (!allow_gt_lt) {
        errs.push_back(FieldError::Invalid(p + ".operator",
                                           std::string(SelectorOperatorName(r.op)),
                                           "not a valid selector operator"));
        break;
      }
      // ValidateNodeSelectorRequirement checks the count only: a non-integer value is
      // accepted by the API server (and makes the requirement match no node).
      if (r.values.size() != 1) {
        errs.push_back(FieldError::Required(
            p + ".values", "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
      break;
    }
  }
  return errs;
}

bool NodeSelectorTerm::Matches(const Labels& node_labels, std::string_view node_name) const {
  if (match_expressions.empty() && match_fields.empty()) {
    return false;
  }
  for (const auto& r : match_expressions) {
    if (!r.Matches(node_labels)) {
      return false;
    }
  }
  for (const auto& r : match_fields) {
    // nodeSelectorRequirementsAsFieldSelector: only In / NotIn with exactly one value; anything
    // else is a parse error and the term matches nothing.
    if ((r.op != SelectorOperator::kIn && r.op != SelectorOperator::kNotIn) ||
        r.values.size() != 1) {
      return false;
    }
    // The node's fields are fields.Set{"metadata.name": name}; any other key reads as "".
    std::string_view field = r.key == "metadata.name" ? node_name : std::string_view();
    bool equal = field == r.values[0];
    if (r.op == SelectorOperator::kIn ? !equal : equal) {
      return false;
    }
  }
  return true;
}

bool NodeSelector::Matches(const Labels& node_labels, std::string_view node_name) const {
  for (const auto& t : terms) {
    if (t.Matches(node_labels, node_name)) {
      return true;
    }
  }
  return false;
}

}  // namespace tidepool::api
