#include "autoscaler/node_facts.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

#include "api/resource_list.h"
#include "autoscaler/scale_down/drainability.h"
#include "autoscaler/cluster_view.h"
#include "autoscaler/scale_down/utilization.h"

namespace tidepool::autoscaler {
namespace {

// The facts that depend on the node object alone (and on the provider's GPU rules), into a
// fresh NodeFacts.
void ComputeObjectFacts(const api::Node& n, const cloud::CloudProvider& cloud, NodeFacts& f) {
  f.cloud_gpu = cloud.GetNodeGpuConfig(n);
  f.cloud_gpu_unready =
      f.cloud_gpu.has_value() && api::Get(n.status.allocatable, f.cloud_gpu->resource_name).IsZero();
  f.gpu = f.cloud_gpu.has_value() ? f.cloud_gpu : scaledown::NodeGpuConfig(cloud, n);
  f.gpu_unready = scaledown::GpuNotReady(n, f.gpu);
  f.ready = n.IsReady();
  if (const api::NodeCondition* c = n.FindCondition("Ready"); c != nullptr) {
    f.ready_since = c->last_transition_time;
  }
  for (const api::Taint& t : n.spec.taints) {
    if (t.key != kToBeDeletedTaint) {
      continue;
    }
    f.has_to_be_deleted_taint = true;
    int64_t secs = 0;
    const char* end = t.value.data() + t.value.size();
    auto [ptr, ec] = std::from_chars(t.value.data(), end, secs);
    if (ec == std::errc() && ptr == end) {  // CA: an unparsable value is no deletion time
      f.to_be_deleted_time = TimePoint(std::chrono::seconds(secs));
    }
    break;  // the first one counts, as in CA's GetToBeDeletedTime
  }
  f.scale_down_disabled = scaledown::HasScaleDownDisabledAnnotation(n);
  f.capacity_cores = api::Get(n.status.capacity, api::kResourceCpu).Value();
  f.capacity_memory = api::Get(n.status.capacity, api::kResourceMemory).Value();
  f.capacity_gpus =
      f.cloud_gpu.has_value() ? api::Get(n.status.capacity, f.cloud_gpu->resource_name).Value() : 0;
}

}  // namespace

NodeFacts NodeFactsCache::Compute(const api::NodeConstSharedPtr& node,
                                  cloud::CloudProvider& cloud) {
  NodeFacts f;
  f.node = node;
  f.group = cloud.NodeGroupForNode(*node);
  ComputeObjectFacts(*node, cloud, f);
  return f;
}

const std::vector<const NodeFacts*>& NodeFactsCache::Sync(
    const std::vector<api::NodeConstSharedPtr>& nodes, cloud::CloudProvider& cloud) {
  // A different set of groups (a pool added, removed or re-created by a refresh) may move
  // nodes between groups: every node's group is asked again.
  std::vector<cloud::NodeGroup*> now_groups = cloud.NodeGroups();
  bool groups_changed = now_groups.size() != groups_.size();
  for (size_t i = 0; !groups_changed && i < now_groups.size(); ++i) {
    groups_changed = now_groups[i] != groups_[i].first || now_groups[i]->Id() != groups_[i].second;
  }
  if (groups_changed) {
    groups_.clear();
    for (cloud::NodeGroup* g : now_groups) {
      groups_.emplace_back(g, g->Id());
    }
  }

  // A quiet loop: the very objects of the last call, in the same order. Only nodes without a
  // group are asked again.
  bool same = !groups_changed && nodes.size() == last_nodes_.size();
  for (size_t i = 0; same && i < nodes.size(); ++i) {
    same = nodes[i] == last_nodes_[i];
  }
  if (same) {
    if (without_group_ > 0) {
      without_group_ = 0;
      for (auto& [name, f] : by_name_) {
        if (f.group == nullptr) {
          f.group = cloud.NodeGroupForNode(*f.node);
          generation_ += f.group != nullptr ? 1 : 0;
          without_group_ += f.group == nullptr ? 1 : 0;
        }
      }
    }
    return sorted_;
  }
  last_nodes_ = nodes;
  ++generation_;

  bool membership_changed = false;
  for (const api::NodeConstSharedPtr& n : nodes) {
    auto it = by_name_.find(n->meta.name);
    if (it == by_name_.end()) {
      NodeFacts f = Compute(n, cloud);
      by_name_.emplace(f.node->meta.name, std::move(f));
      membership_changed = true;
      continue;
    }
    NodeFacts& f = it->second;
    if (f.node != n) {
      // The key views the old object's name: re-key it to the new object's.
      auto handle = by_name_.extract(it);
      handle.key() = n->meta.name;
      handle.mapped() = Compute(n, cloud);
      by_name_.insert(std::move(handle));
    } else if (groups_changed || f.group == nullptr) {
      f.group = cloud.NodeGroupForNode(*n);
    }
  }
  if (by_name_.size() != nodes.size()) {
    // Nodes gone (or a name twice in `nodes`, which no producer does): keep exactly `nodes`.
    std::unordered_set<std::string_view> wanted;
    wanted.reserve(nodes.size());
    for (const auto& n : nodes) {
      wanted.insert(n->meta.name);
    }
    for (auto it = by_name_.begin(); it != by_name_.end();) {
      it = wanted.count(it->first) > 0 ? std::next(it) : by_name_.erase(it);
    }
    membership_changed = true;
  }
  without_group_ = 0;
  for (const auto& [name, f] : by_name_) {
    without_group_ += f.group == nullptr ? 1 : 0;
  }
  if (membership_changed) {
    sorted_.clear();
    sorted_.reserve(by_name_.size());
    for (const auto& [name, f] : by_name_) {
      sorted_.push_back(&f);
    }
    std::sort(sorted_.begin(), sorted_.end(), [](const NodeFacts* a, const NodeFacts* b) {
      return a->node->meta.name < b->node->meta.name;
    });
  }
  return sorted_;
}

const NodeFacts* NodeFactsCache::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

}  // namespace tidepool::autoscaler
