#include "scheduler/plugins/node_affinity/node_affinity.h"

#include <algorithm>
#include <optional>
#include <set>

#include "api/node.h"

namespace tidepool::scheduler::plugins {
namespace {

const api::NodeAffinity* GetNodeAffinity(const api::PodSpec& spec) {
  if (spec.affinity && spec.affinity->node_affinity) {
    return &*spec.affinity->node_affinity;
  }
  return nullptr;
}

bool TermReadsHostnameLabel(const api::NodeSelectorTerm& t) {
  return std::any_of(t.match_expressions.begin(), t.match_expressions.end(),
                     [](const auto& r) { return r.key == api::kLabelHostname; });
}

bool TermReadsNodeIdentity(const api::NodeSelectorTerm& t) {
  if (!t.match_fields.empty()) {
    return true;
  }
  return TermReadsHostnameLabel(t);
}

// Whether the nodeSelector or a required term names the kubernetes.io/hostname label: only then
// does matching need the node's own hostname label besides the labels its shape shares.
bool RequiredReadsHostnameLabel(const api::PodSpec& spec, const api::NodeAffinity* na) {
  if (spec.node_selector.count(std::string(api::kLabelHostname)) > 0) {
    return true;
  }
  return na != nullptr && na->required &&
         std::any_of(na->required->terms.begin(), na->required->terms.end(),
                     TermReadsHostnameLabel);
}

bool RequiredMatches(const api::PodSpec& spec, const api::NodeAffinity* na,
                     const api::Labels& labels, std::string_view name) {
  for (const auto& [k, v] : spec.node_selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) {
      return false;
    }
  }
  if (na != nullptr && na->required) {
    return na->required->Matches(labels, name);
  }
  return true;
}

struct ScopeState : CycleState::Data {
  NodeScope filter_scope = NodeScope::kClass;
  NodeScope score_scope = NodeScope::kClass;
};

ScopeState ComputeScopes(const api::PodSpec& spec) {
  ScopeState s;
  if (spec.node_selector.count(std::string(api::kLabelHostname)) > 0) {
    s.filter_scope = NodeScope::kNode;
  }
  if (const api::NodeAffinity* na = GetNodeAffinity(spec)) {
    if (na->required) {
      for (const auto& t : na->required->terms) {
        if (TermReadsNodeIdentity(t)) {
          s.filter_scope = NodeScope::kNode;
        }
      }
    }
    for (const auto& p : na->preferred) {
      if (TermReadsNodeIdentity(p.preference)) {
        s.score_scope = NodeScope::kNode;
      }
    }
  }
  return s;
}

}  // namespace

bool RequiredNodeAffinityMatches(const api::Pod& pod, const api::Node& node) {
  return RequiredNodeAffinityMatches(pod.spec, node);
}

bool RequiredNodeAffinityMatches(const api::PodSpec& spec, const api::Node& node) {
  return RequiredMatches(spec, GetNodeAffinity(spec), node.meta.labels, node.meta.name);
}

bool RequiredNodeAffinityMatches(const api::PodSpec& spec, const NodeInfo& node) {
  const api::NodeAffinity* na = GetNodeAffinity(spec);
  if (RequiredReadsHostnameLabel(spec, na)) {
    return RequiredMatches(spec, na, node.AllLabels(), node.name());
  }
  return RequiredMatches(spec, na, node.labels_without_hostname(), node.name());
}

PluginStatus NodeAffinity::PreFilter(CycleState& state, const PodInfo& pod,
                                     PreFilterResult& result) const {
  const api::NodeAffinity* na = GetNodeAffinity(pod.spec());
  bool no_required = na == nullptr || !na->required;
  if (no_required && pod.spec().node_selector.empty()) {
    return PluginStatus::Skip();
  }
  state.Write(std::make_unique<ScopeState>(ComputeScopes(pod.spec())));
  if (no_required || na->required->terms.empty()) {
    return PluginStatus::Success();
  }
  // Terms that pin metadata.name (In) restrict the candidate nodes; if every term does and
  // their union is empty, nothing can match.
  std::set<std::string> names;
  for (const auto& t : na->required->terms) {
    std::optional<std::set<std::string>> term_names;
    for (const auto& r : t.match_fields) {
      if (r.key != "metadata.name" || r.op != api::SelectorOperator::kIn) {
        continue;
      }
      std::set<std::string> s(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(s);
      } else {
        std::set<std::string> inter;
        std::set_intersection(term_names->begin(), term_names->end(), s.begin(), s.end(),
                              std::inserter(inter, inter.begin()));
        term_names = std::move(inter);
      }
    }
    if (!term_names) {
      return PluginStatus::Success();
    }
    names.insert(term_names->begin(), term_names->end());
  }
  if (names.empty()) {
    return PluginStatus::Unresolvable(kErrReasonConflict);
  }
  result.node_names = std::move(names);
  return PluginStatus::Success();
}

NodeScope NodeAffinity::FilterScope(const CycleState& state, const PodInfo& pod) const {
  const ScopeState* s = state.Read<ScopeState>();
  return s != nullptr ? s->filter_scope : ComputeScopes(pod.spec()).filter_scope;
}

PluginStatus NodeAffinity::Filter(const CycleState&, const PodInfo& pod,
                                  const NodeInfo& node) const {
  if (RequiredNodeAffinityMatches(pod.spec(), node)) {
    return PluginStatus::Success();
  }
  return PluginStatus::Unresolvable(kErrReasonPod);
}

PluginStatus NodeAffinity::PreScore(CycleState& state, const PodInfo& pod) const {
  const api::NodeAffinity* na = GetNodeAffinity(pod.spec());
  if (na == nullptr || na->preferred.empty()) {
    return PluginStatus::Skip();
  }
  if (state.Read<ScopeState>() == nullptr) {
    state.Write(std::make_unique<ScopeState>(ComputeScopes(pod.spec())));
  }
  return PluginStatus::Success();
}

NodeScope NodeAffinity::ScoreScope(const CycleState& state, const PodInfo& pod) const {
  const ScopeState* s = state.Read<ScopeState>();
  return s != nullptr ? s->score_scope : ComputeScopes(pod.spec()).score_scope;
}

int64_t NodeAffinity::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  const api::NodeAffinity* na = GetNodeAffinity(pod.spec());
  if (na == nullptr) {
    return 0;
  }
  int64_t count = 0;
  std::optional<api::Labels> all;  // the node's whole label map, once a term names the hostname
  for (const auto& p : na->preferred) {
    if (p.weight == 0) {
      continue;
    }
    const api::Labels* labels = &node.labels_without_hostname();
    if (TermReadsHostnameLabel(p.preference)) {
      if (!all) {
        all = node.AllLabels();
      }
      labels = &*all;
    }
    if (p.preference.Matches(*labels, node.name())) {
      count += p.weight;
    }
  }
  return count;
}

void NodeAffinity::NormalizeScore(const CycleState&, const PodInfo&,
                                  std::span<int64_t> scores) const {
  DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/false, scores);
}

std::optional<QueueingHint> NodeAffinity::Hint(const ClusterEvent& event,
                                               const PodInfo& pod) const {
  if (!event.IsNodeChange(ClusterEvent::kUpdateNodeLabel)) return std::nullopt;
  if (!RequiredNodeAffinityMatches(pod.spec(), *event.node)) return QueueingHint::kSkip;
  const bool was =
      event.old_node != nullptr && RequiredNodeAffinityMatches(pod.spec(), *event.old_node);
  return was ? QueueingHint::kSkip : QueueingHint::kQueue;
}

}  // namespace tidepool::scheduler::plugins
