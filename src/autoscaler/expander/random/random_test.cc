// File: random_test.cc
//
// Tests for the "random" expander (CA's expander/random/random.go): one option, chosen
// uniformly through the injected Random, the same one for the same seed.
#include "autoscaler/expander/random/random.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "autoscaler/expander/expander_test_util.h"

namespace tidepool::autoscaler::expander {
namespace {

using test::Ids;
using test::Named;
using test::Ptrs;

TEST(RandomFilterTest, ReturnsOneOptionOrNone) {
  struct Case {
    std::string name;
    std::vector<Option> options;
    size_t want_size;
  };
  const std::vector<Case> cases = {
      {"no options give no option", {}, 0},
      {"a single option is returned as is", {Named("a")}, 1},
      {"several options give exactly one", {Named("a"), Named("b"), Named("c")}, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Random random(1);
    RandomFilter filter(random);
    EXPECT_EQ(filter.Name(), "random");
    std::vector<const Option*> got = filter.BestOptions(Ptrs(c.options));
    ASSERT_EQ(got.size(), c.want_size);
    if (!got.empty()) {
      bool in_input = false;
      for (const Option& o : c.options) in_input = in_input || &o == got[0];
      EXPECT_TRUE(in_input);
    }
  }
}

TEST(RandomFilterTest, TheSameSeedMakesTheSameChoices) {
  const std::vector<Option> options = {Named("a"), Named("b"), Named("c"), Named("d")};
  Random r1(42);
  Random r2(42);
  RandomFilter f1(r1);
  RandomFilter f2(r2);
  for (int i = 0; i < 50; ++i) {
    SCOPED_TRACE("draw " + std::to_string(i));
    EXPECT_EQ(Ids(f1.BestOptions(Ptrs(options))), Ids(f2.BestOptions(Ptrs(options))));
  }
}

TEST(RandomFilterTest, EveryOptionCanBeChosen) {
  const std::vector<Option> options = {Named("a"), Named("b"), Named("c"), Named("d")};
  Random random(7);
  RandomFilter filter(random);
  std::set<std::string> chosen;
  for (int i = 0; i < 200; ++i) chosen.insert(Ids(filter.BestOptions(Ptrs(options)))[0]);
  EXPECT_EQ(chosen, (std::set<std::string>{"a", "b", "c", "d"}));
}

TEST(RandomFilterTest, AChoiceIsTheDrawOfRandomUniform) {
  const std::vector<Option> options = {Named("a"), Named("b"), Named("c")};
  Random random(99);
  Random mirror(99);
  RandomFilter filter(random);
  for (int i = 0; i < 20; ++i) {
    SCOPED_TRACE("draw " + std::to_string(i));
    EXPECT_EQ(filter.BestOptions(Ptrs(options))[0]->node_group_id,
              options[mirror.Uniform(options.size())].node_group_id);
  }
}

TEST(RandomFilterTest, ASingleOptionTakesNoDraw) {
  const std::vector<Option> one = {Named("only")};
  Random random(5);
  Random untouched(5);
  RandomFilter filter(random);
  ASSERT_EQ(Ids(filter.BestOptions(Ptrs(one))), std::vector<std::string>{"only"});
  EXPECT_EQ(random.Next(), untouched.Next());
}

}  // namespace
}  // namespace tidepool::autoscaler::expander
