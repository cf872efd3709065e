// File: most_pods_test.cc
//
// Tests for the "most-pods" expander (CA's expander/mostpods/mostpods.go): the options that
// schedule the most pods, ties kept in input order.
#include "autoscaler/expander/most_pods/most_pods.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autoscaler/expander/expander_test_util.h"

namespace tidepool::autoscaler::expander {
namespace {

using test::Ids;
using test::Named;
using test::Ptrs;

TEST(MostPodsFilterTest, KeepsTheOptionsSchedulingTheMostPods) {
  struct Case {
    std::string name;
    std::vector<Option> options;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"no options give no option", {}, {}},
      {"a single option is kept", {Named("a", 2)}, {"a"}},
      {"the option with the most pods wins", {Named("a", 1), Named("b", 3), Named("c", 2)}, {"b"}},
      {"ties on the most pods are all kept, in input order",
       {Named("a", 3), Named("b", 1), Named("c", 3)},
       {"a", "c"}},
      {"options scheduling no pods all tie", {Named("a", 0), Named("b", 0)}, {"a", "b"}},
      {"any pod beats none", {Named("a", 0), Named("b", 1)}, {"b"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MostPodsFilter filter;
    EXPECT_EQ(filter.Name(), "most-pods");
    EXPECT_EQ(Ids(filter.BestOptions(Ptrs(c.options))), c.want);
  }
}

}  // namespace
}  // namespace tidepool::autoscaler::expander
