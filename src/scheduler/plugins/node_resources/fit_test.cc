// File: fit_test.cc
//
// Tests for NodeResourcesFit against kube-scheduler 1.32 (plugins/noderesources/fit.go):
//   Filter (fitsRequest): "Too many pods", then "Insufficient cpu", "Insufficient memory",
//     "Insufficient ephemeral-storage" and "Insufficient <scalar>", every shortfall a reason,
//     the status Unschedulable; a zero-request pod is checked for the pod count only; a zero
//     scalar request is skipped; ignoredResources applies to extended resources only.
//   Score: LeastAllocated / MostAllocated over the configured resources with the non-zero
//     cpu/memory requests (a container without a request counts 100m / 200Mi, on the node and
//     for the incoming pod); a scalar resource the pod does not request, or the node lacks, is
//     left out.
#include "scheduler/plugins/node_resources/fit.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/snapshot/cluster_snapshot.h"
#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;
using ::tidepool::testing::NodeBuilder;

// A snapshot holding one node and the pods bound to it (NodeInfo::AddPod is the snapshot's).
class OneNodeCluster {
 public:
  OneNodeCluster(const NodeBuilder& node, const std::vector<api::Pod>& pods) {
    api::NodeConstSharedPtr n = node.Ptr();
    name_ = n->Name();
    EXPECT_TRUE(snapshot_.AddNode(n).ok());
    for (const api::Pod& p : pods) {
      Status s = snapshot_.AddPod(MakePodInfo(std::make_shared<const api::Pod>(p)), name_);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
  }
  const NodeInfo& node() const { return *snapshot_.GetNodeInfo(name_); }

 private:
  ClusterSnapshot snapshot_;
  std::string name_;
};

// n pods named prefix-0 .. prefix-(n-1), each with `requests` in one container.
std::vector<api::Pod> Pods(int n, const std::string& prefix,
                           std::initializer_list<std::pair<std::string, std::string>> requests) {
  std::vector<api::Pod> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(MakePod(prefix + "-" + std::to_string(i)).Container(requests).Obj());
  }
  return out;
}

NodeBuilder StandardNode() {
  return MakeNode("n1").Capacity(
      {{"cpu", "4"}, {"memory", "8Gi"}, {"ephemeral-storage", "10Gi"}, {"pods", "110"}});
}

TEST(FitTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    NodeBuilder node;
    std::vector<api::Pod> existing;
    NodeResourcesFitArgs args;
    std::vector<std::string> want_reasons;  // empty: fits
  };
  NodeResourcesFitArgs ignore_foo;
  ignore_foo.ignored_resources = {"example.com/foo", "hugepages-2Mi"};
  const std::vector<Case> cases = {
      {"a pod that fits an empty node",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(),
       StandardNode(),
       {},
       {},
       {}},
      {"a request exactly equal to what is free fits",
       MakePod("p").Container({{"cpu", "3"}, {"memory", "6Gi"}}).Obj(),
       StandardNode(),
       Pods(1, "e", {{"cpu", "1"}, {"memory", "2Gi"}}),
       {},
       {}},
      {"too many pods",
       MakePod("p").Container({{"cpu", "100m"}}).Obj(),
       MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "2"}}),
       Pods(2, "e", {}),
       {},
       {"Too many pods"}},
      {"a zero-request pod only checks the pod count (fits)",
       MakePod("p").Obj(),
       StandardNode(),
       Pods(1, "e", {{"cpu", "4"}, {"memory", "8Gi"}}),
       {},
       {}},
      {"a zero-request pod only checks the pod count (full)",
       MakePod("p").Obj(),
       MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "1"}}),
       Pods(1, "e", {{"cpu", "4"}, {"memory", "8Gi"}}),
       {},
       {"Too many pods"}},
      {"insufficient cpu",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "1Gi"}}).Obj(),
       StandardNode(),
       Pods(1, "e", {{"cpu", "2500m"}}),
       {},
       {"Insufficient cpu"}},
      {"insufficient memory",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "5Gi"}}).Obj(),
       StandardNode(),
       Pods(2, "e", {{"memory", "2Gi"}}),
       {},
       {"Insufficient memory"}},
      {"insufficient ephemeral-storage",
       MakePod("p").Container({{"ephemeral-storage", "11Gi"}}).Obj(),
       StandardNode(),
       {},
       {},
       {"Insufficient ephemeral-storage"}},
      {"an extended resource the node lacks",
       MakePod("p").Container({{"cpu", "1"}, {"nvidia.com/gpu", "1"}}).Obj(),
       StandardNode(),
       {},
       {},
       {"Insufficient nvidia.com/gpu"}},
      {"GPUs already in use",
       MakePod("p").Container({{"nvidia.com/gpu", "4"}}).Obj(),
       MakeNode("n1").Capacity({{"cpu", "32"}, {"memory", "256Gi"}, {"nvidia.com/gpu", "8"}}),
       Pods(3, "e", {{"nvidia.com/gpu", "2"}}),
       {},
       {"Insufficient nvidia.com/gpu"}},
      {"the GPUs that are left fit",
       MakePod("p").Container({{"nvidia.com/gpu", "2"}}).Obj(),
       MakeNode("n1").Capacity({{"cpu", "32"}, {"memory", "256Gi"}, {"nvidia.com/gpu", "8"}}),
       Pods(3, "e", {{"nvidia.com/gpu", "2"}}),
       {},
       {}},
      {"a zero extended-resource request is skipped",
       MakePod("p").Container({{"cpu", "1"}, {"nvidia.com/gpu", "0"}}).Obj(),
       StandardNode(),
       {},
       {},
       {}},
      {"several reasons at once, in check order",
       MakePod("p")
           .Container({{"cpu", "5"},
                       {"memory", "9Gi"},
                       {"ephemeral-storage", "20Gi"},
                       {"nvidia.com/gpu", "1"},
                       {"example.com/foo", "1"}})
           .Obj(),
       MakeNode("n1").Capacity(
           {{"cpu", "4"}, {"memory", "8Gi"}, {"ephemeral-storage", "10Gi"}, {"pods", "1"}}),
       Pods(1, "e", {}),
       {},
       {"Too many pods", "Insufficient cpu", "Insufficient memory",
        "Insufficient ephemeral-storage", "Insufficient example.com/foo",
        "Insufficient nvidia.com/gpu"}},
      {"an ignored extended resource is not checked",
       MakePod("p").Container({{"cpu", "1"}, {"example.com/foo", "3"}}).Obj(),
       StandardNode(),
       {},
       ignore_foo,
       {}},
      {"ignoring one extended resource does not ignore another",
       MakePod("p").Container({{"example.com/foo", "3"}, {"example.com/bar", "1"}}).Obj(),
       StandardNode(),
       {},
       ignore_foo,
       {"Insufficient example.com/bar"}},
      {"ignoredResources does not apply to hugepages",
       MakePod("p").Container({{"memory", "1Gi"}, {"hugepages-2Mi", "4Mi"}}).Obj(),
       StandardNode(),
       {},
       ignore_foo,
       {"Insufficient hugepages-2Mi"}},
      {"a kubernetes.io-prefixed resource the node lacks",
       MakePod("p").Container({{"cpu", "1"}, {"example.kubernetes.io/widget", "1"}}).Obj(),
       StandardNode(),
       {},
       {},
       {"Insufficient example.kubernetes.io/widget"}},
      {"an init container larger than the node",
       MakePod("p").Container({{"cpu", "1"}}).InitContainer({{"cpu", "5"}}).Obj(),
       StandardNode(),
       {},
       {},
       {"Insufficient cpu"}},
      {"overhead counts",
       MakePod("p").Container({{"memory", "7Gi"}}).Overhead({{"memory", "2Gi"}}).Obj(),
       StandardNode(),
       {},
       {},
       {"Insufficient memory"}},
      {"pods without requests use no resources for Filter",
       MakePod("p").Container({{"cpu", "4"}, {"memory", "8Gi"}}).Obj(),
       StandardNode(),
       Pods(5, "e", {}),
       {},
       {}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Fit plugin(tc.args);
    OneNodeCluster cluster(tc.node, tc.existing);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    PreFilterResult result;
    ASSERT_TRUE(plugin.PreFilter(state, *pod, result).IsSuccess());
    EXPECT_FALSE(result.node_names.has_value());
    EXPECT_EQ(plugin.FilterScope(state, *pod), NodeScope::kUsage);
    PluginStatus status = plugin.Filter(state, *pod, cluster.node());
    if (tc.want_reasons.empty()) {
      EXPECT_TRUE(status.IsSuccess()) << status.Message();
    } else {
      // Always Unschedulable in 1.32, even when the node could never hold the pod.
      EXPECT_EQ(status.code(), PluginCode::kUnschedulable);
      EXPECT_EQ(status.reasons(), tc.want_reasons);
    }
  }
}

TEST(FitTest, FitsRequestReportsAmounts) {
  OneNodeCluster cluster(
      MakeNode("n1").Capacity(
          {{"cpu", "4"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "3"}}),
      Pods(3, "e", {{"cpu", "1"}, {"nvidia.com/gpu", "2"}}));
  Resource request;
  request.milli_cpu = 2000;
  request.SetScalar("nvidia.com/gpu", 4);
  std::vector<InsufficientResource> got = FitsRequest(request, cluster.node(), {});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].resource_name, "pods");
  EXPECT_EQ(got[0].reason, "Too many pods");
  EXPECT_EQ(got[0].requested, 1);
  EXPECT_EQ(got[0].used, 3);
  EXPECT_EQ(got[0].capacity, 3);
  EXPECT_EQ(got[1].resource_name, "cpu");
  EXPECT_EQ(got[1].reason, "Insufficient cpu");
  EXPECT_EQ(got[1].requested, 2000);
  EXPECT_EQ(got[1].used, 3000);
  EXPECT_EQ(got[1].capacity, 4000);
  EXPECT_EQ(got[2].resource_name, "nvidia.com/gpu");
  EXPECT_EQ(got[2].reason, "Insufficient nvidia.com/gpu");
  EXPECT_EQ(got[2].requested, 4);
  EXPECT_EQ(got[2].used, 6);
  EXPECT_EQ(got[2].capacity, 8);
}

TEST(FitTest, Score) {
  struct Case {
    std::string name;
    api::Pod pod;
    NodeBuilder node;
    std::vector<api::Pod> existing;
    NodeResourcesFitArgs args;
    int64_t want;
  };
  NodeResourcesFitArgs most;
  most.strategy = ScoringStrategy::kMostAllocated;
  NodeResourcesFitArgs least_gpu;
  least_gpu.resources = {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}};
  NodeResourcesFitArgs most_gpu = least_gpu;
  most_gpu.strategy = ScoringStrategy::kMostAllocated;
  NodeResourcesFitArgs weighted;
  weighted.resources = {{"cpu", 3}, {"memory", 1}};
  const NodeBuilder small = MakeNode("n1").Capacity({{"cpu", "1"}, {"memory", "1000Mi"}});
  const NodeBuilder gpu_node =
      MakeNode("n1").Capacity({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "8"}});
  const std::vector<Case> cases = {
      // cpu (1000-100)*100/1000 = 90, memory (1000-200)*100/1000 = 80.
      {"a pod without requests counts 100m and 200Mi (least)",
       MakePod("p").Obj(),
       small,
       {},
       {},
       85},
      {"a pod without requests counts 100m and 200Mi (most)",
       MakePod("p").Obj(),
       small,
       {},
       most,
       15},
      {"an explicit zero request stays zero (least)",
       MakePod("p").Container({{"cpu", "0"}, {"memory", "0"}}).Obj(),
       small,
       {},
       {},
       100},
      {"an explicit zero request stays zero (most)",
       MakePod("p").Container({{"cpu", "0"}, {"memory", "0"}}).Obj(),
       small,
       {},
       most,
       0},
      // cpu 100 + 200 = 300 -> 70; memory 200 + 100 = 300Mi -> 70.
      {"pods on the node without requests count 100m and 200Mi (least)",
       MakePod("p").Container({{"cpu", "200m"}, {"memory", "100Mi"}}).Obj(),
       small,
       Pods(1, "e", {}),
       {},
       70},
      {"pods on the node without requests count 100m and 200Mi (most)",
       MakePod("p").Container({{"cpu", "200m"}, {"memory", "100Mi"}}).Obj(), small,
       Pods(1, "e", {}), most, 30},
      // cpu 1100*100/4000 -> 72 (least) / 27 (most); memory 1224Mi of 8Gi -> 85 / 14.
      {"integer division per resource and for the mean (least)",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(),
       StandardNode(),
       Pods(1, "e", {}),
       {},
       78},
      {"integer division per resource and for the mean (most)",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(), StandardNode(),
       Pods(1, "e", {}), most, 20},
      // cpu 5 of 4 is over-requested: least 0, most 100; memory 4Gi of 8Gi: 50 either way.
      {"an over-requested resource scores 0 (least)",
       MakePod("p").Container({{"cpu", "5"}, {"memory", "4Gi"}}).Obj(),
       StandardNode(),
       {},
       {},
       25},
      {"an over-requested resource counts as full (most)",
       MakePod("p").Container({{"cpu", "5"}, {"memory", "4Gi"}}).Obj(),
       StandardNode(),
       {},
       most,
       75},
      // cpu 2/4 -> 50 (weight 3), memory 2/8 -> 75 (weight 1): (150 + 75) / 4 = 56.
      {"weights",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "2Gi"}}).Obj(),
       StandardNode(),
       {},
       weighted,
       56},
      // cpu 4/8 -> 50, memory 16/32 -> 50, gpu 6/8 -> 25: 125 / 3 = 41.
      {"a requested GPU is scored (least)",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "2"}}).Obj(),
       gpu_node, Pods(1, "e", {{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "4"}}),
       least_gpu, 41},
      {"a requested GPU is scored (most)",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "2"}}).Obj(),
       gpu_node, Pods(1, "e", {{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "4"}}), most_gpu,
       58},
      // Without the GPU: cpu 50, memory 50; counting gpu 6/8 -> 25 would give 41.
      {"a GPU the pod does not request is left out",
       MakePod("p").Container({{"cpu", "2"}, {"memory", "8Gi"}}).Obj(), gpu_node,
       Pods(1, "e", {{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "6"}}), least_gpu, 50},
      // cpu 1/4 -> 75, memory 1/8 -> 87 (87.5): (75 + 87) / 2 = 81.
      {"a GPU the node lacks is left out",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}).Obj(),
       StandardNode(),
       {},
       least_gpu,
       81},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Fit plugin(tc.args);
    OneNodeCluster cluster(tc.node, tc.existing);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    ASSERT_TRUE(plugin.PreScore(state, *pod).IsSuccess());
    EXPECT_EQ(plugin.ScoreScope(state, *pod), NodeScope::kUsage);
    EXPECT_EQ(plugin.Score(state, *pod, cluster.node()), tc.want);
    // Without PreScore's state the plugin computes the same requests itself.
    CycleState empty;
    EXPECT_EQ(plugin.Score(empty, *pod, cluster.node()), tc.want);
  }
}

TEST(FitTest, NoNormalizeScore) {
  Fit plugin{NodeResourcesFitArgs{}};
  CycleState state;
  std::vector<int64_t> scores = {3, 50, 97};
  plugin.NormalizeScore(state, *MakePodInfo(MakePod("p").Ptr()), scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{3, 50, 97}));
  EXPECT_EQ(plugin.Name(), "NodeResourcesFit");
}

// Queueing hints with 1.32's registration (Node/Add | UpdateNodeAllocatable, Pod/Delete): a
// node queues the pod when the pod's request fits its allocatable and the node is new or has
// more of a resource the pod requests; any bound pod gone queues it.
TEST(FitTest, Hint) {
  const api::Node small =
      MakeNode("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj();
  const api::Node more_cpu =
      MakeNode("n").Capacity({{"cpu", "8"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj();
  const api::Node gpu =
      MakeNode("n")
          .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "1"}})
          .Obj();
  const api::Node full =
      MakeNode("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "0"}}).Obj();
  const api::Pod gone = MakePod("q").Obj();
  using Kind = ClusterEvent::Kind;
  constexpr uint32_t kAlloc = ClusterEvent::kUpdateNodeAllocatable;
  struct Case {
    std::string name;
    api::Pod pod;
    ClusterEvent event;
    std::optional<QueueingHint> want;
  };
  const api::Pod gpu_pod = MakePod("p").Req("cpu", "1").Req("nvidia.com/gpu", "1").Obj();
  const api::Pod cpu_pod = MakePod("p").Req("cpu", "6").Obj();
  const std::vector<Case> cases = {
      {"a new node that can hold it",
       gpu_pod,
       {Kind::kNodeAdd, 0, nullptr, &gpu, nullptr},
       QueueingHint::kQueue},
      {"a new node without GPUs",
       gpu_pod,
       {Kind::kNodeAdd, 0, nullptr, &small, nullptr},
       QueueingHint::kSkip},
      {"a new node that takes no pods",
       MakePod("p").Obj(),
       {Kind::kNodeAdd, 0, nullptr, &full, nullptr},
       QueueingHint::kSkip},
      {"its GPUs appear",
       gpu_pod,
       {Kind::kNodeUpdate, kAlloc, &small, &gpu, nullptr},
       QueueingHint::kQueue},
      {"more cpu, still no GPU",
       gpu_pod,
       {Kind::kNodeUpdate, kAlloc, &small, &more_cpu, nullptr},
       QueueingHint::kSkip},
      {"more cpu, now enough",
       cpu_pod,
       {Kind::kNodeUpdate, kAlloc, &small, &more_cpu, nullptr},
       QueueingHint::kQueue},
      {"enough all along, nothing it requests grew",
       gpu_pod,
       {Kind::kNodeUpdate, kAlloc, &gpu, &gpu, nullptr},
       QueueingHint::kSkip},
      {"a taint change is not registered",
       gpu_pod,
       {Kind::kNodeUpdate, ClusterEvent::kUpdateNodeTaint, &small, &gpu, nullptr},
       std::nullopt},
      {"a bound pod gone",
       gpu_pod,
       {Kind::kAssignedPodDelete, 0, nullptr, nullptr, &gone},
       QueueingHint::kQueue},
  };
  Fit plugin{NodeResourcesFitArgs{}};
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const PodInfoConstSharedPtr info = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    EXPECT_EQ(plugin.Hint(tc.event, *info), tc.want);
  }
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
