// File: node_unschedulable_test.cc
//
// Tests for NodeUnschedulable against kube-scheduler 1.32 (plugins/nodeunschedulable): a
// cordoned node rejects the pod with UnschedulableAndUnresolvable "node(s) were unschedulable"
// unless the pod tolerates node.kubernetes.io/unschedulable:NoSchedule (empty value).
#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;

TEST(NodeUnschedulableTest, Filter) {
  const std::string kKey(api::kTaintNodeUnschedulable);
  struct Case {
    std::string name;
    api::Pod pod;
    bool cordoned;
    bool want_fit;
  };
  const std::vector<Case> cases = {
      {"a schedulable node admits any pod", MakePod("p").Obj(), false, true},
      {"a cordoned node rejects a pod without tolerations", MakePod("p").Obj(), true, false},
      {"Exists on the unschedulable key with no effect tolerates",
       MakePod("p").TolerationExists(kKey).Obj(), true, true},
      {"Exists on the unschedulable key with NoSchedule tolerates",
       MakePod("p").TolerationExists(kKey, api::TaintEffect::kNoSchedule).Obj(), true, true},
      {"Exists on the unschedulable key with NoExecute does not tolerate",
       MakePod("p").TolerationExists(kKey, api::TaintEffect::kNoExecute).Obj(), true, false},
      {"Exists on the unschedulable key with PreferNoSchedule does not tolerate",
       MakePod("p").TolerationExists(kKey, api::TaintEffect::kPreferNoSchedule).Obj(), true, false},
      {"Equal with an empty value tolerates (the taint's value is empty)",
       MakePod("p").Toleration(kKey, "").Obj(), true, true},
      {"Equal with a value does not tolerate", MakePod("p").Toleration(kKey, "true").Obj(), true,
       false},
      {"an empty key with Exists tolerates everything", MakePod("p").TolerationExists("").Obj(),
       true, true},
      {"a toleration for another key does not help",
       MakePod("p").TolerationExists("node.kubernetes.io/not-ready").Obj(), true, false},
  };
  NodeUnschedulable plugin;
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto builder = MakeNode("n1");
    if (tc.cordoned) {
      builder.Unschedulable();
    }
    NodeInfo node(builder.Ptr());
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    EXPECT_EQ(plugin.FilterScope(state, *pod), NodeScope::kClass);
    PluginStatus status = plugin.Filter(state, *pod, node);
    if (tc.want_fit) {
      EXPECT_TRUE(status.IsSuccess()) << status.Message();
    } else {
      EXPECT_EQ(status.code(), PluginCode::kUnschedulableAndUnresolvable);
      EXPECT_EQ(status.reasons(), std::vector<std::string>{"node(s) were unschedulable"});
    }
  }
}

TEST(NodeUnschedulableTest, IgnoresTheTaintsThemselves) {
  // Only spec.unschedulable matters here; the taint is TaintToleration's business.
  NodeUnschedulable plugin;
  NodeInfo node(MakeNode("n1").Taint(std::string(api::kTaintNodeUnschedulable), "").Ptr());
  PodInfoConstSharedPtr pod = MakePodInfo(MakePod("p").Ptr());
  CycleState state;
  EXPECT_TRUE(plugin.Filter(state, *pod, node).IsSuccess());
  EXPECT_EQ(plugin.Name(), "NodeUnschedulable");
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
