#include "autoscaler/equivalence/pod_groups.h"

#include <map>
#include <string>

namespace tidepool::autoscaler {

std::vector<PodEquivalenceGroup> BuildPodEquivalenceGroups(
    const std::vector<scheduler::PodInfoConstSharedPtr>& pods) {
  std::vector<PodEquivalenceGroup> groups;
  // Controller uid -> indexes of its groups (at most kMaxEquivalenceGroupsByController).
  std::map<std::string, std::vector<size_t>> by_controller;
  for (const auto& p : pods) {
    const api::OwnerReference* ctrl = p->controller_ref();
    if (ctrl == nullptr) {
      groups.push_back(PodEquivalenceGroup{{p}});
      continue;
    }
    std::vector<size_t>& mine = by_controller[ctrl->uid];
    bool placed = false;
    for (size_t gi : mine) {
      const scheduler::PodInfo& front = *groups[gi].pods.front();
      // Equal labels and spec (nodeName included, which the class fingerprint leaves out).
      if (front.fingerprint() == p->fingerprint() && front.node_name() == p->node_name()) {
        groups[gi].pods.push_back(p);
        placed = true;
        break;
      }
    }
    if (placed) {
      continue;
    }
    if (static_cast<int>(mine.size()) < kMaxEquivalenceGroupsByController) {
      mine.push_back(groups.size());
    }
    groups.push_back(PodEquivalenceGroup{{p}});
  }
  return groups;
}

}  // namespace tidepool::autoscaler
