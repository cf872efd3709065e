// File: price_test.cc
//
// Tests for the "price" expander, a simplified CA expander/price/price.go: the cost of an
// option is node_count × NodePrice(template, t, t + 1h) and the cheapest per scheduled pod
// wins; options the pricing model cannot price are dropped, unless none can be priced.
#include "autoscaler/expander/price/price.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "autoscaler/expander/expander_test_util.h"

namespace tidepool::autoscaler::expander {
namespace {

using test::Ids;
using test::MakeOption;
using test::PodsWith;
using test::Ptrs;
using test::T4x1;
using test::T4x4;
using test::Template;

// Prices per hour by template node name; unknown nodes are an error. Records the last window.
class FakePricing final : public cloud::PricingModel {
 public:
  explicit FakePricing(std::map<std::string, double> hourly) : hourly_(std::move(hourly)) {}
  StatusOr<double> NodePrice(const api::Node& node, TimePoint start,
                             TimePoint end) const override {
    last_start = start;
    last_end = end;
    auto it = hourly_.find(node.Name());
    if (it == hourly_.end()) return NotFoundError("no price for " + node.Name());
    const double hours = std::chrono::duration<double, std::ratio<3600>>(end - start).count();
    return it->second * hours;
  }
  mutable TimePoint last_start;
  mutable TimePoint last_end;

 private:
  std::map<std::string, double> hourly_;
};

const std::map<std::string, double> kHourly = {
    {"n1-standard-4", 0.19},        {"n1-standard-8", 0.38},
    {"n1-standard-4-t4", 0.54},     {"n1-standard-48-t4x4", 3.68},
};

api::Node N1(int cpus) {
  return Template("n1-standard-" + std::to_string(cpus),
                  {{"cpu", std::to_string(cpus)}, {"memory", std::to_string(cpus * 15 / 4) + "Gi"}});
}

std::vector<scheduler::PodInfoConstSharedPtr> Web(int n) {
  return PodsWith(n, "web", {{"cpu", "1"}, {"memory", "2Gi"}});
}
std::vector<scheduler::PodInfoConstSharedPtr> Train(int n) {
  return PodsWith(n, "train", {{"cpu", "1"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}});
}

TEST(PriceFilterTest, PicksTheCheapestPerScheduledPod) {
  struct Case {
    std::string name;
    std::vector<Option> options;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"no options give no option", {}, {}},
      {"the cheaper pool that fits the same pods wins",
       {MakeOption("std-8", 1, Web(3), N1(8)), MakeOption("std-4", 1, Web(3), N1(4))},
       {"std-4"}},
      {"price is per scheduled pod: a dearer node taking more pods can win",
       {MakeOption("std-4", 1, Web(1), N1(4)), MakeOption("std-8", 1, Web(6), N1(8))},
       {"std-8"}},
      {"the node count multiplies the node price",
       {MakeOption("3x-std-4", 3, Web(3), N1(4)), MakeOption("1x-std-8", 1, Web(3), N1(8))},
       {"1x-std-8"}},
      {"equal price per pod ties are kept, in input order",
       {MakeOption("2x-std-4", 2, Web(2), N1(4)), MakeOption("1x-std-4", 1, Web(1), N1(4))},
       {"2x-std-4", "1x-std-4"}},
      {"for CPU pods a CPU pool beats a GPU pool",
       {MakeOption("t4", 1, Web(2), T4x1()), MakeOption("std-4", 1, Web(2), N1(4))},
       {"std-4"}},
      {"for one GPU pod the 1×T4 pool beats the 4×T4 pool",
       {MakeOption("t4x4", 1, Train(1), T4x4()), MakeOption("t4x1", 1, Train(1), T4x1())},
       {"t4x1"}},
      {"an option scheduling no pods loses",
       {MakeOption("empty", 1, {}, N1(4)), MakeOption("std-8", 1, Web(1), N1(8))},
       {"std-8"}},
      {"an option the model cannot price is dropped",
       {MakeOption("unpriced", 1, Web(3), Template("mystery", {{"cpu", "4"}})),
        MakeOption("std-8", 1, Web(3), N1(8))},
       {"std-8"}},
      {"when no option can be priced, all are kept",
       {MakeOption("a", 1, Web(1), Template("mystery-a", {{"cpu", "4"}})),
        MakeOption("b", 1, Web(1), Template("mystery-b", {{"cpu", "4"}}))},
       {"a", "b"}},
  };
  FakePricing pricing(kHourly);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PriceFilter filter(pricing);
    EXPECT_EQ(filter.Name(), "price");
    EXPECT_EQ(Ids(filter.BestOptions(Ptrs(c.options))), c.want);
  }
}

TEST(PriceFilterTest, PricesOneHourFromAFixedStart) {
  FakePricing pricing(kHourly);
  const std::vector<Option> options = {MakeOption("std-4", 1, Web(1), N1(4)),
                                       MakeOption("std-8", 1, Web(1), N1(8))};
  PriceFilter filter(pricing);
  EXPECT_EQ(Ids(filter.BestOptions(Ptrs(options))), std::vector<std::string>{"std-4"});
  EXPECT_EQ(pricing.last_start, SimulatedClock::kDefaultStart);
  EXPECT_EQ(pricing.last_end, SimulatedClock::kDefaultStart + std::chrono::hours(1));

  const TimePoint later = SimulatedClock::kDefaultStart + std::chrono::hours(24);
  PriceFilter at_later(pricing, later);
  (void)at_later.BestOptions(Ptrs(options));
  EXPECT_EQ(pricing.last_start, later);
  EXPECT_EQ(pricing.last_end, later + std::chrono::hours(1));
}

}  // namespace
}  // namespace tidepool::autoscaler::expander
