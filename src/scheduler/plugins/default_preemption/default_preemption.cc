#include "scheduler/plugins/default_preemption/default_preemption.h"

#include <algorithm>
#include <climits>

namespace tidepool::scheduler::plugins {
namespace {

struct Candidate {
  NodeId node;
  std::string name;
  std::vector<PodInfoConstSharedPtr> victims;
};

bool TerminatingByPreemption(const PodInfo& p) {
  return p.deletion_timestamp().has_value() && p.disruption_target_by_preemption();
}

// PodEligibleToPreemptOthers; an empty string means eligible.
std::string IneligibleReason(const PodInfo& pod, const Diagnosis& diagnosis,
                             const ClusterSnapshot& snapshot) {
  if (pod.spec().preemption_policy.has_value() && *pod.spec().preemption_policy == "Never") {
    return "not eligible due to preemptionPolicy=Never.";
  }
  const std::string_view nominated = pod.nominated_node_name();
  if (!nominated.empty()) {
    const NodeInfo* info = snapshot.GetNodeInfo(nominated);
    if (info == nullptr) {
      return "";
    }
    // A nominated node that now fails for an unresolvable reason may be preempted on again.
    for (const FailedGroup& f : diagnosis.failed) {
      if (f.status.code() == PluginCode::kUnschedulableAndUnresolvable) {
        bool contains = false;
        f.group.ForEachNode([&](NodeId id) { contains |= snapshot.node_info(id).name() == nominated; });
        if (contains) {
          return "";
        }
      }
    }
    for (const auto& p : info->pods()) {
      if (p->Priority() < pod.Priority() && TerminatingByPreemption(*p)) {
        return "not eligible due to a terminating pod on the nominated node.";
      }
    }
  }
  return "";
}

// Orders pods by importance: higher priority first, then the one that started earlier.
bool MoreImportant(const PodInfoConstSharedPtr& a, const PodInfoConstSharedPtr& b) {
  int32_t pa = a->Priority(), pb = b->Priority();
  if (pa != pb) {
    return pa > pb;
  }
  const std::optional<TimePoint> sa = a->start_time();
  const std::optional<TimePoint> sb = b->start_time();
  if (sa.has_value() != sb.has_value()) {
    return sa.has_value();  // a pod that has started is older than one that has not
  }
  return sa.has_value() && *sa < *sb;
}

// SelectVictimsOnNode. Leaves `snapshot` as it found it.
PluginStatus SelectVictims(const CycleState& state, const PodInfo& pod, NodeId id,
                           ClusterSnapshot& snapshot, const Framework& framework,
                           std::vector<PodInfoConstSharedPtr>& victims) {
  const NodeInfo& node = snapshot.node_info(id);
  if (!node.HasPodWithPriorityBelow(pod.Priority())) {
    return PluginStatus::Unresolvable(DefaultPreemption::kNoVictims);
  }
  std::vector<PodInfoConstSharedPtr> potential;
  for (const auto& p : node.pods()) {
    if (p->Priority() < pod.Priority()) {
      potential.push_back(p);
    }
  }
  const std::string node_name = node.name();
  snapshot.Fork();
  for (const auto& p : potential) {
    (void)snapshot.RemovePod(p->Key(), node_name);
  }
  PluginStatus fits = framework.RunFilters(state, pod, snapshot.node_info(id));
  if (!fits.IsSuccess()) {
    snapshot.Revert();
    return fits;
  }
  // Reprieve as many pods as possible, the most important first.
  std::sort(potential.begin(), potential.end(), MoreImportant);
  for (const auto& p : potential) {
    (void)snapshot.AddPod(p, node_name);
    if (!framework.RunFilters(state, pod, snapshot.node_info(id)).IsSuccess()) {
      (void)snapshot.RemovePod(p->Key(), node_name);
      victims.push_back(p);
    }
  }
  snapshot.Revert();
  return PluginStatus::Success();
}

// pickOneNodeForPreemption without PDBs: lowest highest-victim priority, lowest sum of
// priorities, fewest victims, latest start among the most important victims, then name.
const Candidate& PickOne(const std::vector<Candidate>& candidates) {
  auto key = [](const Candidate& c) {
    int32_t highest = INT32_MIN;
    int64_t sum = 0;
    for (const auto& v : c.victims) {
      highest = std::max(highest, v->Priority());
      // Shifted so that every term is positive (kube-scheduler adds MaxInt32 + 1).
      sum += static_cast<int64_t>(v->Priority()) + static_cast<int64_t>(INT32_MAX) + 1;
    }
    std::optional<TimePoint> earliest;
    for (const auto& v : c.victims) {
      if (v->Priority() == highest && v->start_time().has_value()) {
        if (!earliest || *v->start_time() < *earliest) {
          earliest = v->start_time();
        }
      }
    }
    return std::make_tuple(highest, sum, c.victims.size(), earliest);
  };
  size_t best = 0;
  auto best_key = key(candidates[0]);
  for (size_t i = 1; i < candidates.size(); ++i) {
    auto k = key(candidates[i]);
    const auto& [h, s, n, e] = k;
    const auto& [bh, bs, bn, be] = best_key;
    bool better = false;
    if (h != bh) {
      better = h < bh;
    } else if (s != bs) {
      better = s < bs;
    } else if (n != bn) {
      better = n < bn;
    } else if (e != be) {
      // Later start (younger victims) is preferred; a missing start time counts as latest.
      better = !e.has_value() || (be.has_value() && *e > *be);
    } else {
      better = candidates[i].name < candidates[best].name;
    }
    if (better) {
      best = i;
      best_key = k;
    }
  }
  return candidates[best];
}

}  // namespace

PostFilterResult DefaultPreemption::PostFilter(CycleState& state, const PodInfo& pod,
                                               const Diagnosis& diagnosis,
                                               ClusterSnapshot& snapshot,
                                               const Framework& framework) const {
  PostFilterResult result;
  std::string ineligible = IneligibleReason(pod, diagnosis, snapshot);
  if (!ineligible.empty()) {
    result.status = PluginStatus::Unschedulable("preemption: " + ineligible);
    return result;
  }
  FitErrorParts nested;
  nested.num_all_nodes = snapshot.NumNodes();
  size_t evaluated = 0;
  std::vector<NodeId> potential;
  const bool any_lower = snapshot.HasPodWithPriorityBelow(pod.Priority());
  for (const FailedGroup& f : diagnosis.failed) {
    if (f.status.code() != PluginCode::kUnschedulable) {
      continue;  // absent from the nested diagnosis: "not helpful"
    }
    if (!any_lower) {
      // No node anywhere has a lower-priority pod: every candidate has no victims.
      nested.reason_counts[kNoVictims] += f.group.count;
      evaluated += f.group.count;
      continue;
    }
    f.group.ForEachNode([&](NodeId id) { potential.push_back(id); });
  }
  // Evaluate in name order so that the outcome never depends on hash order.
  std::sort(potential.begin(), potential.end(), [&](NodeId a, NodeId b) {
    return snapshot.node_info(a).name() < snapshot.node_info(b).name();
  });
  std::vector<Candidate> candidates;
  for (NodeId id : potential) {
    std::vector<PodInfoConstSharedPtr> victims;
    PluginStatus s = SelectVictims(state, pod, id, snapshot, framework, victims);
    if (s.IsSuccess() && !victims.empty()) {
      candidates.push_back(Candidate{id, snapshot.node_info(id).name(), std::move(victims)});
      continue;
    }
    ++evaluated;
    for (const std::string& r : s.reasons()) {
      nested.reason_counts[r] += 1;
    }
  }
  if (!candidates.empty()) {
    const Candidate& c = PickOne(candidates);
    result.status = PluginStatus::Success();
    result.nominated_node = c.name;
    result.victims = c.victims;
    return result;
  }
  if (evaluated < nested.num_all_nodes) {
    nested.reason_counts[kNotHelpful] += nested.num_all_nodes - evaluated;
  }
  result.status = PluginStatus::Unschedulable("preemption: " + FitErrorMessage(nested));
  return result;
}

}  // namespace tidepool::scheduler::plugins
