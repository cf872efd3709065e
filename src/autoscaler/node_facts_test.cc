#include "autoscaler/node_facts.h"

#include <gtest/gtest.h>

#include <map>

#include "autoscaler/cluster_view.h"
#include "autoscaler/scale_down/drainability.h"
#include "testing/builders.h"
#include "testing/fake_cloud_provider.h"

namespace tidepool::autoscaler {
namespace {

using ::tidepool::testing::MakeNode;

// Counts the provider's answers per node, so that tests see what the cache asks again.
class CountingCloud final : public cloud::CloudProvider {
 public:
  explicit CountingCloud(::tidepool::testing::FakeCloudProvider& inner) : inner_(inner) {}
  std::string_view Name() const override { return "counting"; }
  std::vector<cloud::NodeGroup*> NodeGroups() override { return inner_.NodeGroups(); }
  cloud::NodeGroup* NodeGroupForNode(const api::Node& node) override {
    ++group_calls[node.meta.name];
    return inner_.NodeGroupForNode(node);
  }
  std::string GpuLabel() const override { return inner_.GpuLabel(); }
  std::optional<cloud::GpuConfig> GetNodeGpuConfig(const api::Node& node) const override {
    ++gpu_calls[node.meta.name];
    return inner_.GetNodeGpuConfig(node);
  }
  Status Refresh() override { return OkStatus(); }

  std::map<std::string, int> group_calls;
  mutable std::map<std::string, int> gpu_calls;

 private:
  ::tidepool::testing::FakeCloudProvider& inner_;
};

api::NodeConstSharedPtr PoolNode(const std::string& name, const std::string& pool) {
  return MakeNode(name)
      .Capacity({{"cpu", "4"}, {"memory", "15Gi"}})
      .Label("cloud.google.com/gke-nodepool", pool)
      .Ready()
      .Ptr();
}

api::Node GpuNode(const std::string& name, const std::string& gpus) {
  auto b = MakeNode(name)
               .Capacity({{"cpu", "8"}, {"memory", "30Gi"}})
               .Label("cloud.google.com/gke-nodepool", "gpu-pool")
               .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
               .Ready();
  api::Node n = b.Obj();
  n.status.capacity["nvidia.com/gpu"] = ::tidepool::testing::Q("1");
  if (!gpus.empty()) {
    n.status.allocatable["nvidia.com/gpu"] = ::tidepool::testing::Q(gpus);
  }
  return n;
}

std::vector<std::string> Names(const std::vector<const NodeFacts*>& facts) {
  std::vector<std::string> out;
  for (const NodeFacts* f : facts) {
    out.push_back(f->node->meta.name);
  }
  return out;
}

class NodeFactsTest : public ::testing::Test {
 protected:
  NodeFactsTest() : cloud_(fake_) {
    fake_.AddGroup("pool-a", 0, 10, 2, MakeNode("t").Obj());
    fake_.AddGroup("gpu-pool", 0, 10, 1, MakeNode("t").Obj());
  }
  ::tidepool::testing::FakeCloudProvider fake_;
  CountingCloud cloud_;
  NodeFactsCache cache_;
};

TEST_F(NodeFactsTest, UnchangedNodesAreNotAskedAgainAndOrderIsByName) {
  auto b = PoolNode("node-b", "pool-a");
  auto a = PoolNode("node-a", "pool-a");
  const auto& first = cache_.Sync({b, a}, cloud_);
  const int gpu_calls = cloud_.gpu_calls["node-a"];
  EXPECT_EQ(Names(first), (std::vector<std::string>{"node-a", "node-b"}));
  ASSERT_NE(first[0]->group, nullptr);
  EXPECT_EQ(first[0]->group->Id(), "pool-a");
  const uint64_t generation = cache_.generation();
  for (int i = 0; i < 3; ++i) {
    cache_.Sync({b, a}, cloud_);
  }
  EXPECT_EQ(cache_.generation(), generation);  // nothing changed
  EXPECT_EQ(cloud_.group_calls["node-a"], 1);
  EXPECT_EQ(cloud_.gpu_calls["node-a"], gpu_calls);

  // A new object for node-b (an update): asked again; node-a is not.
  auto b2 = MakeNode("node-b")
                .Capacity({{"cpu", "4"}, {"memory", "15Gi"}})
                .Label("cloud.google.com/gke-nodepool", "gpu-pool")
                .Ready(false)
                .Ptr();
  const auto& second = cache_.Sync({a, b2}, cloud_);
  EXPECT_NE(cache_.generation(), generation);
  const uint64_t after_update = cache_.generation();
  EXPECT_EQ(cloud_.group_calls["node-a"], 1);
  EXPECT_EQ(cloud_.group_calls["node-b"], 2);
  ASSERT_EQ(Names(second), (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(second[1]->node, b2);
  EXPECT_EQ(second[1]->group->Id(), "gpu-pool");
  EXPECT_FALSE(second[1]->ready);
  EXPECT_EQ(cache_.Find("node-b"), second[1]);

  // node-a gone, node-c new.
  auto c = PoolNode("node-c", "pool-a");
  const auto& third = cache_.Sync({c, b2}, cloud_);
  EXPECT_NE(cache_.generation(), after_update);
  EXPECT_EQ(Names(third), (std::vector<std::string>{"node-b", "node-c"}));
  EXPECT_EQ(cache_.Find("node-a"), nullptr);
}

TEST_F(NodeFactsTest, GroupAskedAgainWhileNoneAndWhenTheGroupsChange) {
  auto orphan = PoolNode("node-x", "pool-new");  // no such group yet
  auto a = PoolNode("node-a", "pool-a");
  cache_.Sync({a, orphan}, cloud_);
  const uint64_t generation = cache_.generation();
  cache_.Sync({a, orphan}, cloud_);
  EXPECT_EQ(cache_.generation(), generation);  // asked again, still none: nothing changed
  EXPECT_EQ(cloud_.group_calls["node-x"], 2);  // no group: asked every time
  EXPECT_EQ(cloud_.group_calls["node-a"], 1);
  EXPECT_EQ(cache_.Find("node-x")->group, nullptr);

  fake_.AddGroup("pool-new", 0, 3, 1, MakeNode("t").Obj());
  cache_.Sync({a, orphan}, cloud_);
  EXPECT_NE(cache_.generation(), generation);
  EXPECT_EQ(cloud_.group_calls["node-a"], 2);  // the set of groups changed: everyone
  ASSERT_NE(cache_.Find("node-x")->group, nullptr);
  EXPECT_EQ(cache_.Find("node-x")->group->Id(), "pool-new");
  cache_.Sync({a, orphan}, cloud_);
  EXPECT_EQ(cloud_.group_calls["node-x"], 3);
  EXPECT_EQ(cloud_.group_calls["node-a"], 2);
}

TEST(NodeFactsComputeTest, FactsOfOneNode) {
  ::tidepool::testing::FakeCloudProvider fake;
  fake.AddGroup("gpu-pool", 0, 10, 1, MakeNode("t").Obj());
  struct Case {
    std::string name;
    api::Node node;
    bool want_cloud_gpu, want_gpu_unready, want_taint, want_deletion_time, want_disabled;
    int64_t want_gpus;
  };
  api::Node tainted = GpuNode("tainted", "1");
  tainted.spec.taints.push_back(
      api::Taint{std::string(kToBeDeletedTaint), "1700000000", api::TaintEffect::kNoSchedule, {}});
  api::Node bad_time = GpuNode("bad-time", "1");
  bad_time.spec.taints.push_back(
      api::Taint{std::string(kToBeDeletedTaint), "soon", api::TaintEffect::kNoSchedule, {}});
  api::Node disabled = GpuNode("disabled", "1");
  disabled.meta.annotations[std::string(scaledown::kScaleDownDisabledAnnotation)] = "true";
  api::Node not_disabled = GpuNode("not-disabled", "1");
  not_disabled.meta.annotations[std::string(scaledown::kScaleDownDisabledAnnotation)] = "false";
  std::vector<Case> cases = {
      {"gpu ready", GpuNode("g1", "1"), true, false, false, false, false, 1},
      {"gpu driver not up (no allocatable gpu)", GpuNode("g0", ""), true, true, false, false,
       false, 1},
      {"gpu allocatable 0", GpuNode("g00", "0"), true, true, false, false, false, 1},
      {"ToBeDeleted with a time", tainted, true, false, true, true, false, 1},
      {"ToBeDeleted with an unparsable value", bad_time, true, false, true, false, false, 1},
      {"scale-down disabled", disabled, true, false, false, false, true, 1},
      {"scale-down annotation false", not_disabled, true, false, false, false, false, 1},
      {"cpu node", *PoolNode("cpu", "gpu-pool"), false, false, false, false, false, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeFacts f = NodeFactsCache::Compute(std::make_shared<const api::Node>(c.node), fake);
    EXPECT_EQ(f.cloud_gpu.has_value(), c.want_cloud_gpu);
    EXPECT_EQ(f.gpu.has_value(), c.want_cloud_gpu);
    EXPECT_EQ(f.cloud_gpu_unready, c.want_gpu_unready);
    EXPECT_EQ(f.gpu_unready, c.want_gpu_unready);
    EXPECT_EQ(f.has_to_be_deleted_taint, c.want_taint);
    EXPECT_EQ(f.to_be_deleted_time.has_value(), c.want_deletion_time);
    EXPECT_EQ(f.scale_down_disabled, c.want_disabled);
    EXPECT_EQ(f.capacity_gpus, c.want_gpus);
    EXPECT_TRUE(f.ready);
    ASSERT_NE(f.group, nullptr);
    EXPECT_EQ(f.group->Id(), "gpu-pool");
  }
  NodeFacts t = NodeFactsCache::Compute(std::make_shared<const api::Node>(tainted), fake);
  EXPECT_EQ(*t.to_be_deleted_time, TimePoint(std::chrono::seconds(1700000000)));
  NodeFacts cpu = NodeFactsCache::Compute(PoolNode("cpu", "gpu-pool"), fake);
  EXPECT_EQ(cpu.capacity_cores, 4);
  EXPECT_EQ(cpu.capacity_memory, int64_t{15} << 30);
}

}  // namespace
}  // namespace tidepool::autoscaler
