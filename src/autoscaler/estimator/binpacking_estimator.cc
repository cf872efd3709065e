#include "autoscaler/estimator/binpacking_estimator.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>

#include "common/check.h"

namespace tidepool::autoscaler {
namespace {

// Marks the estimator's own node copies, so that filtering considers only them (CA's
// isNewNode); upcoming-node copies and real nodes never carry it.
constexpr std::string_view kEstimationLabel = "tidepool.dev/estimation-for";

std::string EstimationSuffix(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "e-%06d", i);
  return buf;
}

}  // namespace

api::Node SanitizedTemplateCopy(const api::Node& template_node, const std::string& node_group_id,
                                const std::string& suffix) {
  api::Node n = template_node;
  n.meta.name = "template-node-for-" + node_group_id + "-" + suffix;
  n.meta.uid = n.meta.name;
  n.meta.labels[std::string(api::kLabelHostname)] = n.meta.name;
  n.meta.labels[std::string(kTemplateNodeLabel)] = "true";
  return n;
}

EstimateResult BinpackingEstimator::Estimate(const std::vector<PodEquivalenceGroup>& groups,
                                             const api::Node& template_node,
                                             const std::string& node_group_id, int max_new_nodes,
                                             scheduler::ClusterSnapshot& snapshot) const {
  std::vector<const PodEquivalenceGroup*> ptrs;
  ptrs.reserve(groups.size());
  for (const auto& g : groups) {
    ptrs.push_back(&g);
  }
  return Estimate(ptrs, template_node, node_group_id, max_new_nodes, snapshot);
}

EstimateResult BinpackingEstimator::Estimate(const std::vector<const PodEquivalenceGroup*>& groups,
                                             const api::Node& template_node,
                                             const std::string& node_group_id, int max_new_nodes,
                                             scheduler::ClusterSnapshot& snapshot,
                                             const std::vector<scheduler::PodInfoConstSharedPtr>*
                                                 template_pods) const {
  EstimateResult result;
  // DecreasingPodOrderer: cpu/alloc + mem/alloc of the exemplar, largest first; stable.
  const scheduler::Resource alloc =
      scheduler::Resource::FromList(template_node.status.allocatable);
  auto score = [&](const PodEquivalenceGroup& g) {
    double s = 0;
    if (alloc.milli_cpu > 0) {
      s += static_cast<double>(g.Exemplar().request().milli_cpu) / alloc.milli_cpu;
    }
    if (alloc.memory > 0) {
      s += static_cast<double>(g.Exemplar().request().memory) / static_cast<double>(alloc.memory);
    }
    return s;
  };
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> scores(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    scores[i] = score(*groups[i]);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });

  api::Node base = template_node;
  base.meta.labels[std::string(kEstimationLabel)] = node_group_id;
  const std::function<bool(const scheduler::NodeClass&)> only_new =
      [&](const scheduler::NodeClass& c) {
        const scheduler::NodeInfo& rep =
            snapshot.node_info(*c.buckets().begin()->second.members.begin());
        std::optional<std::string_view> v = rep.Label(kEstimationLabel);
        return v.has_value() && *v == node_group_id;
      };

  snapshot.Fork();
  // New nodes in the same state (same pods) are interchangeable: each state is one
  // representative node in the fork and a count of nodes like it.
  struct State {
    std::string rep;
    int64_t count = 0;
    std::vector<scheduler::PodInfoConstSharedPtr> pods;  // the representative's pods
  };
  std::vector<State> states;
  int64_t total_nodes = 0;
  int next_suffix = 0;
  auto materialize = [&](const std::vector<scheduler::PodInfoConstSharedPtr>& pods) {
    auto node = std::make_shared<const api::Node>(
        SanitizedTemplateCopy(base, node_group_id, EstimationSuffix(next_suffix++)));
    std::string name = node->meta.name;
    Status s = snapshot.AddNode(std::move(node));
    TIDEPOOL_CHECK(s.ok());
    if (template_pods != nullptr) {
      for (const auto& p : *template_pods) (void)snapshot.AddPod(p, name);
    }
    for (const auto& p : pods) {
      s = snapshot.AddPod(p, name);
      TIDEPOOL_CHECK(s.ok());
    }
    return name;
  };

  for (size_t gi : order) {
    const PodEquivalenceGroup& g = *groups[gi];
    const auto& pods = g.pods;
    const size_t n = pods.size();
    scheduler::CycleState cycle;
    if (!framework_.RunPreFilter(cycle, g.Exemplar()).IsSuccess()) {
      continue;
    }
    size_t i = 0;
    // Adds pods[i..] to `node` while they fit (at most `limit`); returns how many.
    auto probe = [&](const std::string& node, size_t limit) {
      size_t m = 0;
      while (m < limit && framework_
                              .RunFilters(cycle, *pods[i + m], *snapshot.GetNodeInfo(node))
                              .IsSuccess()) {
        Status s = snapshot.AddPod(pods[i + m], node);
        TIDEPOOL_CHECK(s.ok());
        ++m;
      }
      return m;
    };
    auto schedule = [&](size_t count) {
      for (size_t j = 0; j < count; ++j) {
        result.scheduled.push_back(pods[i++]);
      }
    };

    // 1. New nodes added for earlier groups, in creation order (first fit).
    const size_t states_before = states.size();
    for (size_t si = 0; si < states_before && i < n; ++si) {
      std::vector<scheduler::PodInfoConstSharedPtr> before = states[si].pods;
      const size_t remaining = n - i;
      const size_t m = probe(states[si].rep, remaining);
      if (m == 0) {
        continue;
      }
      const int64_t count = states[si].count;
      const int64_t full = std::min<int64_t>(count, static_cast<int64_t>(remaining / m));
      states[si].pods.insert(states[si].pods.end(), pods.begin() + i, pods.begin() + i + m);
      states[si].count = full;
      schedule(static_cast<size_t>(full) * m);
      int64_t untouched = count - full;
      if (untouched > 0 && i < n) {
        // One more node of the old state takes the rest (fewer than m: they fit).
        std::vector<scheduler::PodInfoConstSharedPtr> partial = before;
        partial.insert(partial.end(), pods.begin() + i, pods.end());
        states.push_back(State{materialize(partial), 1, partial});
        schedule(n - i);
        --untouched;
      }
      if (untouched > 0) {
        states.push_back(State{materialize(before), untouched, before});
      }
    }

    // 2. Fresh nodes while the limiter allows.
    while (i < n) {
      if (total_nodes >= max_new_nodes) {
        result.capped = true;
        break;
      }
      const std::string fresh = materialize({});
      const size_t remaining = n - i;
      const size_t m = probe(fresh, remaining);
      if (m == 0) {
        // The pod does not fit an empty template node: nothing of this group will.
        Status s = snapshot.RemoveNode(fresh);
        TIDEPOOL_CHECK(s.ok());
        break;
      }
      const int64_t full = std::min<int64_t>(static_cast<int64_t>(remaining / m),
                                             max_new_nodes - total_nodes);
      states.push_back(
          State{fresh, full, std::vector<scheduler::PodInfoConstSharedPtr>(pods.begin() + i,
                                                                          pods.begin() + i + m)});
      total_nodes += full;
      schedule(static_cast<size_t>(full) * m);
      const size_t rem = n - i;
      if (rem > 0 && rem < m && total_nodes < max_new_nodes) {
        std::vector<scheduler::PodInfoConstSharedPtr> partial(pods.begin() + i, pods.end());
        states.push_back(State{materialize(partial), 1, partial});
        ++total_nodes;
        schedule(rem);
      }
    }
  }
  snapshot.Revert();
  result.node_count = static_cast<int>(total_nodes);
  return result;
}

}  // namespace tidepool::autoscaler
