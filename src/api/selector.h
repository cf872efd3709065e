// File: selector.h
//
// Label selectors (metav1.LabelSelector) and node selectors (v1.NodeSelector), evaluated as
// k8s.io/apimachinery/pkg/labels and k8s.io/component-helpers/scheduling/corev1/nodeaffinity do
// (Kubernetes 1.32):
//   - In / NotIn / Exists / DoesNotExist; NotIn and DoesNotExist match a missing label;
//   - Gt / Lt (node selectors only): exactly one value, both the value and the label parse as
//     64-bit integers, otherwise the requirement does not match;
//   - a requirement that labels.NewRequirement would refuse (In / NotIn without values, Exists /
//     DoesNotExist with values, Gt / Lt without exactly one integer) matches nothing, as the
//     selector or term holding it fails to parse in Kubernetes; a LabelSelector using Gt / Lt
//     matches nothing;
//   - a NodeSelectorTerm ANDs its requirements; an empty term (no expressions, no fields)
//     matches nothing; NodeSelectorTerms are ORed;
//   - matchFields: In / NotIn with exactly one value (otherwise the term matches nothing),
//     compared with the node's fields, of which only metadata.name (the node's name) exists.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/field_error.h"
#include "api/meta.h"
#include "common/status_or.h"

namespace tidepool::api {

enum class SelectorOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

std::string_view SelectorOperatorName(SelectorOperator op);
StatusOr<SelectorOperator> ParseSelectorOperator(std::string_view s);

struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;

  // Evaluates the requirement against a label set. Gt/Lt compare integers.
  bool Matches(const Labels& labels) const;
  friend bool operator==(const SelectorRequirement&, const SelectorRequirement&) = default;
};

// metav1.LabelSelector. An empty selector matches everything (metav1.LabelSelectorAsSelector).
struct LabelSelector {
  Labels match_labels;
  std::vector<SelectorRequirement> match_expressions;

  bool Empty() const { return match_labels.empty() && match_expressions.empty(); }
  bool Matches(const Labels& labels) const;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

// Validates a requirement's shape as the API server does (In/NotIn need values; Exists and
// DoesNotExist take none; Gt/Lt take exactly one value, which the API server does not check
// for being an integer). `allow_gt_lt` is true for node selectors. `path` is the requirement's
// field path. Label key and value syntax are not checked.
FieldErrors ValidateSelectorRequirement(const SelectorRequirement& r, bool allow_gt_lt,
                                        std::string_view path);

struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;
  // Only key "metadata.name" is meaningful (the node's name).
  std::vector<SelectorRequirement> match_fields;

  // True if the node (its labels and name) satisfies every requirement. An empty term matches
  // no node.
  bool Matches(const Labels& node_labels, std::string_view node_name) const;
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;

  bool Matches(const Labels& node_labels, std::string_view node_name) const;
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  friend bool operator==(const PreferredSchedulingTerm&, const PreferredSchedulingTerm&) = default;
};

}  // namespace tidepool::api
