#include "cloud/node_group_spec.h"

#include <gtest/gtest.h>

namespace tidepool::cloud {
namespace {

TEST(NodeGroupSpecTest, ParsesLikeTheClusterAutoscalersNodesFlag) {
  struct Case {
    std::string in;
    NodeGroupSpec want;
  } cases[] = {
      {"0:5:gpu-pool", {0, 5, "gpu-pool"}},
      {"1:1:a", {1, 1, "a"}},
      {"+2:10:pool", {2, 10, "pool"}},
      // The name keeps everything after the second ':' (a MIG URL has none, labels may).
      {"0:3:https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/instanceGroups/g",
       {0, 3, "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/instanceGroups/g"}},
      {"0:3:a:b", {0, 3, "a:b"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    StatusOr<NodeGroupSpec> got = ParseNodeGroupSpec(c.in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  }
  EXPECT_EQ(NodeGroupSpecString({0, 5, "gpu-pool"}), "0:5:gpu-pool");
}

TEST(NodeGroupSpecTest, RefusesWithTheClusterAutoscalersTexts) {
  struct Case {
    std::string in;
    std::string want;
  } cases[] = {
      {"gpu-pool", "wrong nodes configuration: gpu-pool"},
      {"1:gpu-pool", "wrong nodes configuration: 1:gpu-pool"},
      {"", "wrong nodes configuration: "},
      {"a:5:p", "failed to set min size: a, expected integer"},
      {":5:p", "failed to set min size: , expected integer"},
      {" 1:5:p", "failed to set min size:  1, expected integer"},
      {"1.5:5:p", "failed to set min size: 1.5, expected integer"},
      {"0:x:p", "failed to set max size: x, expected integer"},
      {"0:99999999999:p", "failed to set max size: 99999999999, expected integer"},
      {"-1:5:p", "invalid node group spec: min size must be >= 0"},
      {"5:2:p", "invalid node group spec: max size must be greater or equal to min size"},
      {"0:2:", "invalid node group spec: name must not be blank"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    StatusOr<NodeGroupSpec> got = ParseNodeGroupSpec(c.in);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), c.want);
  }
}

}  // namespace
}  // namespace tidepool::cloud
