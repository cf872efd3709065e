#include "autoscaler/simulator/daemonset_pods.h"

#include <gtest/gtest.h>

#include "testing/builders.h"

namespace tidepool::autoscaler {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST(DaemonSetPodsTest, ShouldRunFollowsKcmsPredicates) {
  const api::Node gpu = MakeNode("gpu-1")
                            .Label("cloud.google.com/gke-nodepool", "gpu-pool")
                            .Taint("nvidia.com/gpu", "present")
                            .Obj();
  const api::Node cpu = MakeNode("cpu-1").Label("cloud.google.com/gke-nodepool", "default-pool").Obj();
  struct Case {
    const char* name;
    scheduler::PodInfoConstSharedPtr pod;
    bool on_gpu, on_cpu;
  };
  const std::vector<Case> cases = {
      {"no constraints: not on the tainted node", scheduler::MakePodInfo(MakePod("a").OwnedBy("DaemonSet", "a").Ptr()), false, true},
      {"tolerates the GPU taint", scheduler::MakePodInfo(MakePod("b").OwnedBy("DaemonSet", "b")
                                                             .Toleration("nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule)
                                                             .Ptr()),
       true, true},
      {"nodeSelector", scheduler::MakePodInfo(MakePod("c").OwnedBy("DaemonSet", "c")
                                                  .NodeSelector("cloud.google.com/gke-nodepool", "default-pool")
                                                  .Ptr()),
       false, true},
      {"nodeName pins it", scheduler::MakePodInfo(MakePod("d").OwnedBy("DaemonSet", "d").NodeName("cpu-2").Ptr()), false, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DaemonPodShouldRun(*c.pod, gpu), c.on_gpu) << c.name;
    EXPECT_EQ(DaemonPodShouldRun(*c.pod, cpu), c.on_cpu) << c.name;
  }
  std::vector<scheduler::PodInfoConstSharedPtr> all;
  for (const Case& c : cases) all.push_back(c.pod);
  const auto on_gpu = DaemonSetPodsForNode(gpu, all);
  ASSERT_EQ(on_gpu.size(), 1u);
  EXPECT_EQ(on_gpu[0]->name(), "b");
  EXPECT_EQ(DaemonSetPodsForNode(cpu, all).size(), 3u);
}

TEST(DaemonSetPodsTest, ExampleNodeContributesItsDaemonSetAndMirrorPods) {
  api::Pod mirror = MakePod("static").NodeName("n").Obj();
  mirror.meta.annotations["kubernetes.io/config.mirror"] = "x";
  const std::vector<scheduler::PodInfoConstSharedPtr> pods = {
      scheduler::MakePodInfo(MakePod("ds").OwnedBy("DaemonSet", "agent").NodeName("n").Ptr()),
      scheduler::MakePodInfo(MakePod("web").OwnedBy("ReplicaSet", "web").NodeName("n").Ptr()),
      scheduler::MakePodInfo(mirror),
  };
  std::vector<std::string> names;
  for (const auto& p : ExpectedPodsFromExample(pods)) names.emplace_back(p->name());
  EXPECT_EQ(names, (std::vector<std::string>{"ds", "static"}));
}

}  // namespace
}  // namespace tidepool::autoscaler
