#include "testing/fake_cloud_provider.h"

namespace tidepool::testing {

Status FakeNodeGroup::IncreaseSize(int delta) {
  if (!fail_increase.ok()) {
    return fail_increase;
  }
  if (delta <= 0) {
    return InvalidArgumentError("size increase must be positive");
  }
  if (target_ + delta > max_) {
    return InvalidArgumentError("size increase too large - desired:" +
                                std::to_string(target_ + delta) + " max:" + std::to_string(max_));
  }
  for (int i = 0; i < delta; ++i) {
    instances_.push_back(cloud::Instance{"fake://" + id_ + "/" + std::to_string(next_instance_++),
                                         cloud::InstanceState::kCreating, std::nullopt});
  }
  target_ += delta;
  increases.push_back(delta);
  return OkStatus();
}

Status FakeNodeGroup::DeleteNodes(const std::vector<std::string>& node_names) {
  if (target_ - static_cast<int>(node_names.size()) < min_) {
    return FailedPreconditionError("min size reached, nodes will not be deleted");
  }
  target_ -= static_cast<int>(node_names.size());
  deleted.insert(deleted.end(), node_names.begin(), node_names.end());
  for (const auto& n : node_names) {
    std::erase_if(instances_, [&](const cloud::Instance& i) { return i.id == n; });
  }
  return OkStatus();
}

Status FakeNodeGroup::DecreaseTargetSize(int delta) {
  if (delta >= 0) {
    return InvalidArgumentError("size decrease must be negative");
  }
  target_ += delta;
  decreases.push_back(delta);
  for (int i = 0; i < -delta && !instances_.empty(); ++i) {
    instances_.pop_back();
  }
  return OkStatus();
}

std::string FakeNodeGroup::Debug() const {
  return id_ + " (min: " + std::to_string(min_) + ", max: " + std::to_string(max_) +
         ", target: " + std::to_string(target_) + ")";
}

FakeNodeGroup& FakeCloudProvider::AddGroup(const std::string& id, int min, int max, int target,
                                           api::Node template_node) {
  template_node.meta.labels["cloud.google.com/gke-nodepool"] = id;
  auto g = std::make_unique<FakeNodeGroup>(id, min, max, target, std::move(template_node));
  FakeNodeGroup& ref = *g;
  groups_[id] = std::move(g);
  return ref;
}

std::vector<cloud::NodeGroup*> FakeCloudProvider::NodeGroups() {
  std::vector<cloud::NodeGroup*> out;
  for (auto& [id, g] : groups_) {
    out.push_back(g.get());
  }
  return out;
}

cloud::NodeGroup* FakeCloudProvider::NodeGroupForNode(const api::Node& node) {
  auto it = node.meta.labels.find("cloud.google.com/gke-nodepool");
  if (it == node.meta.labels.end()) {
    return nullptr;
  }
  auto g = groups_.find(it->second);
  return g == groups_.end() ? nullptr : g->second.get();
}

std::optional<cloud::GpuConfig> FakeCloudProvider::GetNodeGpuConfig(const api::Node& node) const {
  auto it = node.meta.labels.find(GpuLabel());
  if (it == node.meta.labels.end()) {
    return std::nullopt;
  }
  return cloud::GpuConfig{GpuLabel(), it->second, "nvidia.com/gpu"};
}

}  // namespace tidepool::testing
