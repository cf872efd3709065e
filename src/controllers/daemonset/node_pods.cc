#include "controllers/daemonset/node_pods.h"

#include <algorithm>
#include <cassert>

#include "controllers/daemonset/daemon_pods.h"

namespace tidepool::controllers::daemonset {

bool OlderFirst(const DaemonPodPtr& ap, const DaemonPodPtr& bp) {
  const DaemonPod& a = *ap;
  const DaemonPod& b = *bp;
  if (a.bound != b.bound) return a.bound;
  if (a.created != b.created) {
    if (!a.created.has_value()) return false;
    if (!b.created.has_value()) return true;
    return *a.created < *b.created;
  }
  return a.name < b.name;
}

void NodePods::Ungroup(const DaemonPodPtr& pod) {
  auto g = by_node_.find(pod->node_name);
  assert(g != by_node_.end());
  Group& group = g->second;
  auto it = std::find(group.begin(), group.end(), pod);
  assert(it != group.end());
  group.erase(it);
  if (group.empty()) by_node_.erase(g);
  --grouped_;
  if (!IsUpdated(pod->labels, params_.generation, params_.hash)) --outdated_;
}

void NodePods::Set(const std::string& key, DaemonPodPtr pod) {
  if (auto it = pods_.find(key); it != pods_.end()) {
    if (it->second.second) {
      Ungroup(it->second.first);
    } else {
      unmatched_.erase(key);
    }
    pods_.erase(it);
  }
  if (pod == nullptr) return;
  const bool matches = params_.selector.has_value() && params_.selector->Matches(pod->labels);
  if (matches) {
    Group& group = by_node_[pod->node_name];
    group.insert(std::upper_bound(group.begin(), group.end(), pod, OlderFirst), pod);
    ++grouped_;
    if (!IsUpdated(pod->labels, params_.generation, params_.hash)) ++outdated_;
  } else {
    unmatched_.emplace(key, pod);
  }
  pods_.emplace(key, std::pair(std::move(pod), matches));
}

std::vector<DaemonPodPtr> NodePods::Unmatched() const {
  std::vector<DaemonPodPtr> out;
  out.reserve(unmatched_.size());
  for (const auto& [key, p] : unmatched_) out.push_back(p);
  return out;
}

}  // namespace tidepool::controllers::daemonset
