// File: priority_test.cc
//
// Tests for the "priority" expander (CA's expander/priority/priority.go and its
// priority_test.go cases): node group ids are matched against each priority's regexes with a
// partial match (Go's FindStringIndex; std::regex_search here), the options with the highest
// matched priority are kept, unmatched options are dropped while others match, and if nothing
// matches nothing is filtered. A regex that does not compile is an error.
#include "autoscaler/expander/priority/priority.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "autoscaler/expander/expander_test_util.h"

namespace tidepool::autoscaler::expander {
namespace {

using test::Ids;
using test::Named;
using test::Ptrs;

using Priorities = std::vector<std::pair<int, std::vector<std::string>>>;

// CA's priority_test.go configurations.
const Priorities kConfig = {
    {5, {R"(.*t2\.micro.*)"}},
    {10, {R"(.*t2\.large.*)", R"(.*t3\.large.*)"}},
    {50, {R"(.*m4\.4xlarge.*)"}},
};
const Priorities kNotMatching = {{5, {R"(.*t\.micro.*)"}}, {10, {R"(.*t\.large.*)"}}};
const Priorities kWildcard = {{5, {".*"}}, {10, {R"(.t2\.large.*)"}}};

TEST(PriorityFilterTest, KeepsTheHighestMatchedPriority) {
  struct Case {
    std::string name;
    Priorities priorities;
    std::vector<Option> options;
    std::vector<std::string> want;
  };
  const Option t2micro = Named("my-asg.t2.micro");
  const Option t2large = Named("my-asg.t2.large");
  const Option t3large = Named("my-asg.t3.large");
  const Option m4 = Named("my-asg.m4.4xlarge");
  const std::vector<Case> cases = {
      {"no options give no option", kConfig, {}, {}},
      {"a single matching option out of one", kConfig, {t2large}, {"my-asg.t2.large"}},
      {"the single best option out of many", kConfig, {t2large, m4}, {"my-asg.m4.4xlarge"}},
      {"a higher priority beats a wildcard at a lower one",
       kWildcard,
       {t2large, t2micro},
       {"my-asg.t2.large"}},
      {"two options at the same priority are both kept",
       kConfig,
       {t2large, t3large, t2micro},
       {"my-asg.t2.large", "my-asg.t3.large"}},
      {"nothing matches: nothing is filtered",
       kNotMatching,
       {t2large, t3large},
       {"my-asg.t2.large", "my-asg.t3.large"}},
      {"an option matching nothing is dropped while another matches",
       {{10, {"a100"}}},
       {Named("t4-pool"), Named("a100-pool")},
       {"a100-pool"}},
      {"a group takes the highest of the priorities it matches",
       {{1, {"pool"}}, {20, {"spot"}}, {10, {"a100"}}},
       {Named("a100-pool"), Named("a100-spot-pool")},
       {"a100-spot-pool"}},
      {"matching is partial, as Go's FindStringIndex",
       {{10, {"gpu"}}},
       {Named("cpu-pool"), Named("my-gpu-pool")},
       {"my-gpu-pool"}},
      {"anchors give a full match",
       {{10, {"^gpu$"}}, {5, {"^my-gpu-pool$"}}},
       {Named("my-gpu-pool"), Named("cpu-pool")},
       {"my-gpu-pool"}},
      {"negative priorities compare as integers",
       {{-10, {"b"}}, {-5, {"a"}}},
       {Named("b"), Named("a")},
       {"a"}},
      {"no priorities at all filter nothing", {}, {Named("a"), Named("b")}, {"a", "b"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<std::unique_ptr<PriorityFilter>> filter = PriorityFilter::Create(c.priorities);
    ASSERT_TRUE(filter.ok()) << filter.status().ToString();
    EXPECT_EQ((*filter)->Name(), "priority");
    EXPECT_EQ(Ids((*filter)->BestOptions(Ptrs(c.options))), c.want);
  }
}

TEST(PriorityFilterTest, PriorityOfReportsTheHighestMatch) {
  StatusOr<std::unique_ptr<PriorityFilter>> filter = PriorityFilter::Create(kConfig);
  ASSERT_TRUE(filter.ok());
  int p = 0;
  ASSERT_TRUE((*filter)->PriorityOf("my-asg.m4.4xlarge", &p));
  EXPECT_EQ(p, 50);
  ASSERT_TRUE((*filter)->PriorityOf("my-asg.t2.micro", &p));
  EXPECT_EQ(p, 5);
  EXPECT_FALSE((*filter)->PriorityOf("my-asg.c5.large", &p));
}

TEST(PriorityFilterTest, ABadRegexIsAnError) {
  struct Case {
    std::string name;
    Priorities priorities;
    std::string want_prefix;
  };
  const std::vector<Case> cases = {
      {"an unclosed bracket", {{10, {"["}}}, "Can't compile regexp rule for priority 10 and rule [: "},
      {"an unbalanced parenthesis after good rules",
       {{5, {".*"}}, {7, {"ok", "(gpu"}}},
       "Can't compile regexp rule for priority 7 and rule (gpu: "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<std::unique_ptr<PriorityFilter>> filter = PriorityFilter::Create(c.priorities);
    ASSERT_FALSE(filter.ok());
    EXPECT_EQ(filter.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(filter.status().message()).rfind(c.want_prefix, 0), 0u)
        << filter.status().message();
  }
}

}  // namespace
}  // namespace tidepool::autoscaler::expander
