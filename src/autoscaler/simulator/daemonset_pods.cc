#include "autoscaler/simulator/daemonset_pods.h"

#include "api/taint.h"
#include "autoscaler/scale_down/drainability.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"

namespace tidepool::autoscaler {

bool DaemonPodShouldRun(const scheduler::PodInfo& daemon_pod, const api::Node& node) {
  const api::PodSpec& spec = daemon_pod.spec();
  // The template's nodeName (PodInfo keeps it apart from the shared spec).
  if (!daemon_pod.node_name().empty() && daemon_pod.node_name() != node.meta.name) return false;
  if (!scheduler::plugins::RequiredNodeAffinityMatches(spec, node)) return false;
  return api::UntoleratedDoNotScheduleTaint(node.spec.taints, spec.tolerations) == nullptr;
}

std::vector<scheduler::PodInfoConstSharedPtr> DaemonSetPodsForNode(
    const api::Node& node, const std::vector<scheduler::PodInfoConstSharedPtr>& daemonset_pods) {
  std::vector<scheduler::PodInfoConstSharedPtr> out;
  for (const scheduler::PodInfoConstSharedPtr& p : daemonset_pods) {
    if (DaemonPodShouldRun(*p, node)) out.push_back(p);
  }
  return out;
}

std::vector<scheduler::PodInfoConstSharedPtr> ExpectedPodsFromExample(
    const std::vector<scheduler::PodInfoConstSharedPtr>& pods_on_example) {
  std::vector<scheduler::PodInfoConstSharedPtr> out;
  for (const scheduler::PodInfoConstSharedPtr& p : pods_on_example) {
    if (p->deletion_timestamp().has_value()) continue;
    if (scaledown::IsDaemonSetPod(*p) || scaledown::IsMirrorPod(*p)) out.push_back(p);
  }
  return out;
}

}  // namespace tidepool::autoscaler
