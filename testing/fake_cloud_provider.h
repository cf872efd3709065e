// File: fake_cloud_provider.h
//
// A builder-style fake cloud for tests (CA's TestCloudProviderBuilder): groups with min, max,
// target and a template node; IncreaseSize, DeleteNodes and DecreaseTargetSize record, adjust
// the target and keep a list of instances.
//   FakeCloudProvider cloud;
//   cloud.AddGroup("gpu-pool", 0, 5, 0, GpuTemplate());
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"

namespace tidepool::testing {

class FakeNodeGroup final : public cloud::NodeGroup {
 public:
  FakeNodeGroup(std::string id, int min, int max, int target, api::Node template_node)
      : id_(std::move(id)), min_(min), max_(max), target_(target), template_(std::move(template_node)) {}

  std::string Id() const override { return id_; }
  int MinSize() const override { return min_; }
  int MaxSize() const override { return max_; }
  StatusOr<int> TargetSize() const override { return target_; }
  Status IncreaseSize(int delta) override;
  Status DeleteNodes(const std::vector<std::string>& node_names) override;
  Status DecreaseTargetSize(int delta) override;
  StatusOr<std::vector<cloud::Instance>> Nodes() const override { return instances_; }
  uint64_t NodesVersion() const override { return nodes_version; }
  StatusOr<api::Node> TemplateNode() const override { return template_; }
  std::string Debug() const override;

  // Test hooks.
  std::vector<int> increases;             // each IncreaseSize delta
  std::vector<int> decreases;             // each DecreaseTargetSize delta
  std::vector<std::string> deleted;       // nodes passed to DeleteNodes
  Status fail_increase;                   // returned by IncreaseSize when not OK
  // NodesVersion's answer: 0 (unknown) unless a test sets one; a test that changes instances_
  // by hand moves it.
  uint64_t nodes_version = 0;
  // IncreaseSize adds instances "fake://<group>/<n>" in kCreating; DeleteNodes removes them by
  // id; tests may set errors or states on them.
  std::vector<cloud::Instance> instances_;
  int next_instance_ = 0;

 private:
  std::string id_;
  int min_, max_, target_;
  api::Node template_;
};

class FakeCloudProvider final : public cloud::CloudProvider {
 public:
  FakeNodeGroup& AddGroup(const std::string& id, int min, int max, int target,
                          api::Node template_node);
  FakeNodeGroup& group(const std::string& id) { return *groups_.at(id); }

  std::string_view Name() const override { return "fake"; }
  std::vector<cloud::NodeGroup*> NodeGroups() override;
  // By the "cloud.google.com/gke-nodepool" label.
  cloud::NodeGroup* NodeGroupForNode(const api::Node& node) override;
  std::string GpuLabel() const override { return "cloud.google.com/gke-accelerator"; }
  std::optional<cloud::GpuConfig> GetNodeGpuConfig(const api::Node& node) const override;
  Status Refresh() override { return OkStatus(); }

 private:
  std::map<std::string, std::unique_ptr<FakeNodeGroup>> groups_;
};

}  // namespace tidepool::testing
