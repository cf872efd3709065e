// File: daemonset_pods.h
//
// The pods a fresh node of a node group would run from the start, as cluster-autoscaler 1.31
// puts them in a group's template NodeInfo (simulator/node_info_utils.go
// podsExpectedOnFreshNode, utils/daemonset GetDaemonSetPodsForNode):
//   - template from a real node of the group: the DaemonSet pods and mirror pods running on it;
//   - template from the cloud (scale-from-zero, forceDaemonSets): one pod of every DaemonSet
//     that should run on the template node - kcm's NodeShouldRunDaemonPod: the template's
//     nodeName (if any) is the node, its nodeSelector and required node affinity admit the
//     node, and no NoSchedule/NoExecute taint of the node is untolerated (the DaemonSet pods'
//     tolerations include kcm's daemon tolerations, ClusterView::daemonset_pods).
// Their requests count against the template copies' allocatable in scale-up's checks, the
// binpacking estimate and upcoming nodes.
#pragma once

#include <vector>

#include "api/node.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::autoscaler {

// kcm's NodeShouldRunDaemonPod (its shouldRun half) for a DaemonSet pod prototype.
bool DaemonPodShouldRun(const scheduler::PodInfo& daemon_pod, const api::Node& node);

// GetDaemonSetPodsForNode: the prototypes of `daemonset_pods` that should run on `node`.
std::vector<scheduler::PodInfoConstSharedPtr> DaemonSetPodsForNode(
    const api::Node& node, const std::vector<scheduler::PodInfoConstSharedPtr>& daemonset_pods);

// The DaemonSet and mirror pods among `pods_on_example` (the pods bound to a real node used as
// the group's template).
std::vector<scheduler::PodInfoConstSharedPtr> ExpectedPodsFromExample(
    const std::vector<scheduler::PodInfoConstSharedPtr>& pods_on_example);

}  // namespace tidepool::autoscaler
