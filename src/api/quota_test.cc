#include "api/quota.h"

#include <gtest/gtest.h>

namespace tidepool::api {
namespace {

Quantity Q(const char* s) { return Quantity::Parse(s).value(); }

Container C(std::string name, ResourceList requests, ResourceList limits = {}) {
  Container c;
  c.name = std::move(name);
  c.resources.requests = std::move(requests);
  c.resources.limits = std::move(limits);
  return c;
}

std::map<std::string, std::string> Strings(const ResourceList& l) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : l) out[k] = v.ToString();
  return out;
}

TEST(QuotaTest, PodUsage) {
  Pod pod;
  pod.spec.containers = {C("a", {{"cpu", Q("500m")}, {"nvidia.com/gpu", Q("1")}},
                           {{"cpu", Q("1")}, {"nvidia.com/gpu", Q("1")}}),
                         C("b", {{"memory", Q("1Gi")}})};
  pod.spec.init_containers = {C("init", {{"cpu", Q("2")}})};
  EXPECT_EQ(Strings(PodQuotaUsage(pod)),
            (std::map<std::string, std::string>{{"count/pods", "1"},
                                                {"cpu", "2"},
                                                {"limits.cpu", "1"},
                                                {"memory", "1Gi"},
                                                {"pods", "1"},
                                                {"requests.cpu", "2"},
                                                {"requests.memory", "1Gi"},
                                                {"requests.nvidia.com/gpu", "1"}}));
  pod.status.phase = PodPhase::kSucceeded;
  EXPECT_EQ(Strings(PodQuotaUsage(pod)), (std::map<std::string, std::string>{{"count/pods", "1"}}));
}

TEST(QuotaTest, ObjectCountsAndNames) {
  EXPECT_EQ(Strings(ObjectQuotaUsage("", "configmaps")),
            (std::map<std::string, std::string>{{"configmaps", "1"}, {"count/configmaps", "1"}}));
  EXPECT_EQ(Strings(ObjectQuotaUsage("apps", "deployments")),
            (std::map<std::string, std::string>{{"count/deployments.apps", "1"}}));
  struct Case {
    const char* name;
    bool quota;
    bool pod;
  } cases[] = {
      {"pods", true, true},
      {"requests.nvidia.com/gpu", true, true},
      {"limits.nvidia.com/gpu", true, false},
      {"limits.cpu", true, true},
      {"cpu", true, true},
      {"count/deployments.apps", true, false},
      {"configmaps", true, false},
      {"foo", false, false},
      {"requests.foo", false, true},
      {"hugepages-2Mi", true, true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(IsQuotaResourceName(c.name), c.quota) << c.name;
    EXPECT_EQ(IsPodQuotaResource(c.name), c.pod) << c.name;
  }
  auto counted = CountedResourceOf("count/deployments.apps");
  ASSERT_TRUE(counted.has_value());
  EXPECT_EQ(counted->group, "apps");
  EXPECT_EQ(counted->resource, "deployments");
  EXPECT_FALSE(CountedResourceOf("count/pods").has_value());
}

TEST(QuotaTest, MustSpecifyWhatAComputeQuotaTracks) {
  Pod pod;
  pod.spec.containers = {C("web", {{"cpu", Q("1")}}), C("side", {})};
  const ResourceList tracked = {
      {"requests.cpu", Q("4")}, {"limits.memory", Q("1Gi")}, {"requests.nvidia.com/gpu", Q("1")}};
  const auto missing = MissingQuotaResources(pod, tracked);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].first, "limits.memory");
  EXPECT_EQ(missing[0].second, (std::vector<std::string>{"side", "web"}));
  EXPECT_EQ(missing[1].first, "requests.cpu");
  EXPECT_EQ(missing[1].second, (std::vector<std::string>{"side"}));
}

}  // namespace
}  // namespace tidepool::api
