// File: expander_test.cc
//
// Tests for Strategy (CA's chainStrategy, expander/factory/chain.go) and NewStrategy (CA's
// Factory.Build, expander/factory/expander_factory.go): filters run in order and stop at one
// option, a seeded random choice breaks what is left, and the --expander names are checked
// with CA's error texts.
#include "autoscaler/expander/expander.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "autoscaler/expander/expander_test_util.h"
#include "cloud/cloud_provider.h"

namespace tidepool::autoscaler::expander {
namespace {

using test::MakeOption;
using test::Named;
using test::PodsWith;
using test::T4x1;
using test::T4x4;
using test::Template;

class FlatPricing final : public cloud::PricingModel {
 public:
  StatusOr<double> NodePrice(const api::Node& node, TimePoint, TimePoint) const override {
    static const std::map<std::string, double> kPrices = {
        {"n1-standard-4-t4", 0.54}, {"n1-standard-48-t4x4", 3.68}, {"cpu", 0.19}};
    auto it = kPrices.find(node.Name());
    if (it == kPrices.end()) return NotFoundError("no price");
    return it->second;
  }
};

std::unique_ptr<Strategy> MustBuild(const ExpanderConfig& config, Random& random) {
  StatusOr<std::unique_ptr<Strategy>> s = NewStrategy(config, random);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

std::vector<scheduler::PodInfoConstSharedPtr> Train(int n) {
  return PodsWith(n, "train", {{"cpu", "1"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}});
}
std::vector<scheduler::PodInfoConstSharedPtr> Web(int n) {
  return PodsWith(n, "web", {{"cpu", "1"}, {"memory", "2Gi"}});
}

TEST(NewStrategyTest, BuildsTheNamedChain) {
  struct Case {
    std::string name;
    std::string names;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"the default is least-waste", ExpanderConfig().names, "least-waste"},
      {"a single expander", "most-pods", "most-pods"},
      {"priority then least-waste", "priority,least-waste", "priority,least-waste"},
      {"every expander, random last", "priority,price,most-pods,least-waste,random",
       "priority,price,most-pods,least-waste,random"},
  };
  FlatPricing pricing;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Random random(1);
    ExpanderConfig config;
    config.names = c.names;
    config.pricing = &pricing;
    std::unique_ptr<Strategy> s = MustBuild(config, random);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->Names(), c.want);
  }
}

TEST(NewStrategyTest, RejectsBadConfigurations) {
  struct Case {
    std::string name;
    std::string names;
    bool with_pricing;
    std::vector<std::pair<int, std::vector<std::string>>> priorities;
    std::string want_message;  // prefix
  };
  const std::vector<Case> cases = {
      {"an unknown expander", "cheapest", true, {}, "Expander cheapest not supported"},
      {"CA's least-nodes is not offered", "least-nodes", true, {}, "Expander least-nodes not supported"},
      {"CA's grpc is not offered", "grpc", true, {}, "Expander grpc not supported"},
      {"an empty name", "", true, {}, "Expander  not supported"},
      {"names are not trimmed, as in CA", "priority, least-waste", true, {},
       "Expander  least-waste not supported"},
      {"an unknown name later in the chain", "priority,fastest", true, {},
       "Expander fastest not supported"},
      {"a repeated expander", "least-waste,least-waste", true, {},
       "Expander least-waste was specified multiple times, each expander must not be specified "
       "more than once"},
      {"an expander after random", "random,least-waste", true, {},
       "Expander least-waste came after an expander random that will always return only one "
       "result, this is not allowed since least-waste will never be used"},
      {"price without a pricing model", "price", false, {},
       "Couldn't access cloud provider pricing for expander price"},
      {"priority with a bad regex", "priority,least-waste", true, {{10, {"gpu-(a100"}}},
       "Can't compile regexp rule for priority 10 and rule gpu-(a100: "},
  };
  FlatPricing pricing;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Random random(1);
    ExpanderConfig config;
    config.names = c.names;
    config.pricing = c.with_pricing ? &pricing : nullptr;
    config.priorities = c.priorities;
    StatusOr<std::unique_ptr<Strategy>> s = NewStrategy(config, random);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(s.status().message()).rfind(c.want_message, 0), 0u)
        << s.status().message();
  }
}

TEST(StrategyTest, ChoosesThroughTheChain) {
  struct Case {
    std::string name;
    std::string names;
    std::vector<std::pair<int, std::vector<std::string>>> priorities;
    std::vector<Option> options;
    std::string want;  // "" for no option
  };
  const std::vector<Case> cases = {
      {"no options give no option", "least-waste", {}, {}, ""},
      {"least-waste picks the 1×T4 pool for one GPU pod",
       "least-waste",
       {},
       {MakeOption("t4x4", 1, Train(1), T4x4()), MakeOption("t4x1", 1, Train(1), T4x1())},
       "t4x1"},
      {"priority falls through to least-waste among its best",
       "priority,least-waste",
       {{10, {"^gpu-"}}, {1, {"cpu"}}},
       {MakeOption("cpu-pool", 1, Web(4), Template("cpu", {{"cpu", "4"}, {"memory", "8Gi"}})),
        MakeOption("gpu-t4x4", 1, Train(1), T4x4()), MakeOption("gpu-t4x1", 1, Train(1), T4x1())},
       "gpu-t4x1"},
      {"priority alone decides when one option has the top priority",
       "priority,least-waste",
       {{10, {"t4x4"}}},
       {MakeOption("gpu-t4x1", 1, Train(1), T4x1()), MakeOption("gpu-t4x4", 1, Train(1), T4x4())},
       "gpu-t4x4"},
      {"priority matching nothing leaves the choice to least-waste",
       "priority,least-waste",
       {{10, {"a100"}}},
       {MakeOption("gpu-t4x4", 1, Train(1), T4x4()), MakeOption("gpu-t4x1", 1, Train(1), T4x1())},
       "gpu-t4x1"},
      {"most-pods first, then least-waste among the ties",
       "most-pods,least-waste",
       {},
       {MakeOption("t4x1-one", 1, Train(1), T4x1()),
        MakeOption("t4x4-four", 1, Train(4), T4x4()),
        MakeOption("t4x1-four", 4, Train(4), T4x1())},
       "t4x1-four"},
      {"price picks the cheapest per pod",
       "price",
       {},
       {MakeOption("gpu-t4x4", 1, Train(4), T4x4()), MakeOption("gpu-t4x1", 1, Train(1), T4x1())},
       "gpu-t4x1"},
  };
  FlatPricing pricing;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Random random(3);
    ExpanderConfig config;
    config.names = c.names;
    config.priorities = c.priorities;
    config.pricing = &pricing;
    std::unique_ptr<Strategy> s = MustBuild(config, random);
    ASSERT_NE(s, nullptr);
    const Option* best = s->BestOption(c.options);
    EXPECT_EQ(best == nullptr ? "" : best->node_group_id, c.want);
    if (best != nullptr) {
      bool in_input = false;
      for (const Option& o : c.options) in_input = in_input || &o == best;
      EXPECT_TRUE(in_input) << "BestOption must point into its argument";
    }
  }
}

TEST(StrategyTest, TheSameSeedGivesTheSameChoices) {
  // Four options that least-waste cannot tell apart: the seeded random choice decides.
  const std::vector<Option> options = {Named("a"), Named("b"), Named("c"), Named("d")};
  for (const std::string names : {"least-waste", "random", "most-pods,least-waste"}) {
    SCOPED_TRACE(names);
    Random r1(2024);
    Random r2(2024);
    ExpanderConfig config;
    config.names = names;
    std::unique_ptr<Strategy> s1 = MustBuild(config, r1);
    std::unique_ptr<Strategy> s2 = MustBuild(config, r2);
    ASSERT_NE(s1, nullptr);
    ASSERT_NE(s2, nullptr);
    std::set<std::string> chosen;
    for (int i = 0; i < 64; ++i) {
      const Option* b1 = s1->BestOption(options);
      const Option* b2 = s2->BestOption(options);
      ASSERT_NE(b1, nullptr);
      EXPECT_EQ(b1, b2) << "draw " << i;
      chosen.insert(b1->node_group_id);
    }
    EXPECT_EQ(chosen.size(), 4u) << "ties must be broken at random, not always the same way";
  }
}

TEST(StrategyTest, AWinnerFoundByAFilterTakesNoRandomDraw) {
  // CA's chain returns as soon as a filter leaves one option; a single option takes no draw.
  Random random(11);
  Random untouched(11);
  ExpanderConfig config;
  config.names = "most-pods";
  std::unique_ptr<Strategy> s = MustBuild(config, random);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->BestOption({Named("a", 1), Named("b", 2)})->node_group_id, "b");
  EXPECT_EQ(s->BestOption({Named("only")})->node_group_id, "only");
  EXPECT_EQ(random.Next(), untouched.Next());
}

TEST(StrategyTest, AChainWithoutFiltersIsRandom) {
  Random random(8);
  Random mirror(8);
  Strategy s({}, random);
  EXPECT_EQ(s.Names(), "");
  const std::vector<Option> options = {Named("a"), Named("b"), Named("c")};
  for (int i = 0; i < 10; ++i) {
    SCOPED_TRACE("draw " + std::to_string(i));
    EXPECT_EQ(s.BestOption(options), &options[mirror.Uniform(options.size())]);
  }
}

}  // namespace
}  // namespace tidepool::autoscaler::expander
