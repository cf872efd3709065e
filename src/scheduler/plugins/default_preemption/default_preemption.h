// File: default_preemption.h
//
// DefaultPreemption (kube-scheduler 1.32, plugins/defaultpreemption and framework/preemption):
// when no node fits, looks for a node where evicting lower-priority pods would make room.
//   - A pod with preemptionPolicy Never is not eligible:
//       "preemption: not eligible due to preemptionPolicy=Never."
//   - Only nodes that failed with Unschedulable are candidates; nodes that failed with
//     UnschedulableAndUnresolvable (taints, affinity, ...) are "Preemption is not helpful for
//     scheduling".
//   - On a candidate node with no lower-priority pod: "No preemption victims found for incoming
//     pod"; if removing every lower-priority pod still does not make room: the filter's own
//     reasons; otherwise the pods are reprieved from the most important down, and whatever must
//     go is the victim set.
//   - With no candidate, the message is "preemption: " + a nested FitError over all nodes.
//   - With candidates, the node is chosen by kube-scheduler's criteria (fewest PDB violations
//     [no PDBs are modelled yet], lowest highest-victim priority, lowest priority sum, fewest
//     victims, latest start of the most important victims, then name) and returned as the
//     nominated node with its victims; the status is Success.
// Not modelled yet: pods nominated to a node by earlier preemptions, PodDisruptionBudgets.
#pragma once

#include "scheduler/framework/runtime/framework.h"

namespace tidepool::scheduler::plugins {

class DefaultPreemption final : public PostFilterPlugin {
 public:
  static constexpr std::string_view kName = "DefaultPreemption";
  static constexpr const char* kNotHelpful = "Preemption is not helpful for scheduling";
  static constexpr const char* kNoVictims = "No preemption victims found for incoming pod";

  std::string_view Name() const override { return kName; }
  PostFilterResult PostFilter(CycleState& state, const PodInfo& pod, const Diagnosis& diagnosis,
                              ClusterSnapshot& snapshot,
                              const Framework& framework) const override;
};

}  // namespace tidepool::scheduler::plugins
