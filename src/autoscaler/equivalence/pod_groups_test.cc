#include "autoscaler/equivalence/pod_groups.h"

#include <gtest/gtest.h>

#include "testing/builders.h"

namespace tidepool::autoscaler {
namespace {

using testing::MakePod;

scheduler::PodInfoConstSharedPtr P(testing::PodBuilder b) { return scheduler::MakePodInfo(b.Ptr()); }

TEST(PodEquivalenceGroupsTest, GroupsByControllerLabelsAndSpec) {
  std::vector<scheduler::PodInfoConstSharedPtr> pods = {
      P(MakePod("rs-a-1").OwnedBy("ReplicaSet", "a").Req("nvidia.com/gpu", "1")),
      P(MakePod("rs-a-2").OwnedBy("ReplicaSet", "a").Req("nvidia.com/gpu", "1")),
      P(MakePod("rs-b-1").OwnedBy("ReplicaSet", "b").Req("nvidia.com/gpu", "1")),
      P(MakePod("rs-a-big").OwnedBy("ReplicaSet", "a").Req("nvidia.com/gpu", "2")),
      P(MakePod("bare-1").Req("nvidia.com/gpu", "1")),
      P(MakePod("bare-2").Req("nvidia.com/gpu", "1")),
      P(MakePod("rs-a-3").OwnedBy("ReplicaSet", "a").Req("nvidia.com/gpu", "1")),
  };
  auto groups = BuildPodEquivalenceGroups(pods);
  std::vector<std::vector<std::string>> names;
  for (const auto& g : groups) {
    names.emplace_back();
    for (const auto& p : g.pods) {
      names.back().emplace_back(p->name());
    }
  }
  EXPECT_EQ(names, (std::vector<std::vector<std::string>>{{"rs-a-1", "rs-a-2", "rs-a-3"},
                                                          {"rs-b-1"},
                                                          {"rs-a-big"},
                                                          {"bare-1"},
                                                          {"bare-2"}}));
}

// A StatefulSet's pods differ by their claims (data-web-0, data-web-1): CA's
// PodSpecSemanticallyEqual tells them apart, so each is a group of its own; a configMap volume
// of another name does not (it does not schedule).
TEST(PodEquivalenceGroupsTest, PodsOfOtherClaimsAreOtherGroups) {
  auto pod = [](const std::string& name, const std::string& claim) {
    testing::PodBuilder b = MakePod(name).OwnedBy("StatefulSet", "web").Req("nvidia.com/gpu", "1");
    if (!claim.empty()) b.Claim("data", claim);
    return b;
  };
  api::Pod with_config = pod("web-2", "data-web-0").Obj();
  with_config.spec.volumes.push_back(api::Volume{.name = "kube-api-access-x1"});
  std::vector<scheduler::PodInfoConstSharedPtr> pods = {
      P(pod("web-0", "data-web-0")), P(pod("web-1", "data-web-1")),
      scheduler::MakePodInfo(with_config), P(pod("web-3", ""))};
  auto groups = BuildPodEquivalenceGroups(pods);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].pods.size(), 2u);  // web-0 and web-2
  EXPECT_EQ(groups[0].pods[1]->name(), "web-2");
  EXPECT_EQ(groups[1].pods.front()->name(), "web-1");
  EXPECT_EQ(groups[2].pods.front()->name(), "web-3");
}

TEST(PodEquivalenceGroupsTest, AControllerHasAtMostTenGroups) {
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  for (int i = 0; i < 12; ++i) {
    pods.push_back(P(MakePod("v" + std::to_string(i)).OwnedBy("ReplicaSet", "a").Req("cpu", std::to_string(i + 1))));
  }
  // The 11th and 12th variants (and a later copy of one) stay singletons.
  pods.push_back(P(MakePod("v10-copy").OwnedBy("ReplicaSet", "a").Req("cpu", "11")));
  pods.push_back(P(MakePod("v0-copy").OwnedBy("ReplicaSet", "a").Req("cpu", "1")));
  auto groups = BuildPodEquivalenceGroups(pods);
  EXPECT_EQ(groups.size(), 13u);
  EXPECT_EQ(groups[0].pods.size(), 2u);  // v0 + v0-copy
}

}  // namespace
}  // namespace tidepool::autoscaler
