// File: node_name_test.cc
//
// Tests for NodeName against kube-scheduler 1.32 (plugins/nodename): a pod with spec.nodeName
// fits only that node, UnschedulableAndUnresolvable "node(s) didn't match the requested node
// name" elsewhere.
#include "scheduler/plugins/node_name/node_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;

TEST(NodeNameTest, Filter) {
  struct Case {
    std::string name;
    api::Pod pod;
    bool want_fit;
    NodeScope want_scope;
  };
  const std::vector<Case> cases = {
      {"a pod without a node name fits any node", MakePod("p").Obj(), true, NodeScope::kClass},
      {"a pod naming this node fits", MakePod("p").NodeName("node-1").Obj(), true,
       NodeScope::kNode},
      {"a pod naming another node does not fit", MakePod("p").NodeName("node-2").Obj(), false,
       NodeScope::kNode},
      {"the name must match exactly", MakePod("p").NodeName("node-10").Obj(), false,
       NodeScope::kNode},
      {"the name is case-sensitive", MakePod("p").NodeName("Node-1").Obj(), false,
       NodeScope::kNode},
  };
  NodeName plugin;
  NodeInfo node(MakeNode("node-1").Ptr());
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    PodInfoConstSharedPtr pod = MakePodInfo(std::make_shared<const api::Pod>(tc.pod));
    CycleState state;
    EXPECT_EQ(plugin.FilterScope(state, *pod), tc.want_scope);
    PluginStatus status = plugin.Filter(state, *pod, node);
    if (tc.want_fit) {
      EXPECT_TRUE(status.IsSuccess()) << status.Message();
    } else {
      EXPECT_EQ(status.code(), PluginCode::kUnschedulableAndUnresolvable);
      EXPECT_EQ(status.reasons(),
                std::vector<std::string>{"node(s) didn't match the requested node name"});
    }
  }
  EXPECT_EQ(plugin.Name(), "NodeName");
}

TEST(NodeNameTest, HostnameLabelDoesNotCount) {
  // The node's name decides, not its kubernetes.io/hostname label.
  NodeName plugin;
  NodeInfo node(MakeNode("node-1").Label("kubernetes.io/hostname", "host-a").Ptr());
  CycleState state;
  EXPECT_TRUE(
      plugin.Filter(state, *MakePodInfo(MakePod("p").NodeName("node-1").Ptr()), node).IsSuccess());
  EXPECT_FALSE(
      plugin.Filter(state, *MakePodInfo(MakePod("p").NodeName("host-a").Ptr()), node).IsSuccess());
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
