// File: price.h
//
// The "price" expander: the idea of CA's expander/price/price.go (proposals/pricing.md), pick
// the option whose money is best spent, simplified:
//   cost(option)  = node_count × PricingModel::NodePrice(template_node, t, t + 1h)
//   score(option) = cost / number of pods the option schedules   (dollars per pod-hour)
// The options with the lowest score are kept (ties within a relative 1e-9, so 2 nodes for 2
// pods ties 1 node for 1 pod despite rounding). An option whose price the model cannot give is
// dropped; if no option can be priced, every option is kept (nothing filtered). An option that
// schedules no pods scores +inf.
//
// What is left out of CA's formula, and why:
//   - the stabilisation pod and per-pod prices (PodPrice): tidepool's PricingModel prices nodes
//     only; dividing by the pod count keeps the "price per scheduled pod" meaning;
//   - node unfitness against a preferred node size and its tanh suppression: cluster-shape
//     preferences are not what a GPU autoscaler optimises;
//   - the GPU unfitness override (1000): CA needs it because its score would otherwise favour
//     big GPU nodes for CPU pods; with a plain price per pod, GPU nodes are already expensive
//     and lose to CPU nodes for CPU pods, and among GPU nodes the cheapest per pod wins;
//   - the ×2 penalty for node groups that do not exist yet (not modelled here).
// Time: CA prices [now, now + 1h). Prices in tidepool's models do not vary with time, so a fixed
// window starting at SimulatedClock::kDefaultStart is used by default, which keeps the filter
// free of any clock; a caller with time-varying prices may pass its own start.
#pragma once

#include <string_view>
#include <vector>

#include "autoscaler/expander/expander.h"
#include "cloud/cloud_provider.h"
#include "common/clock.h"

namespace tidepool::autoscaler::expander {

inline constexpr std::string_view kPriceExpanderName = "price";

// Options whose score is within this fraction of the best tie.
inline constexpr double kPriceRelativeTolerance = 1e-9;

class PriceFilter final : public Filter {
 public:
  // REQUIRES: pricing outlives this.
  explicit PriceFilter(const cloud::PricingModel& pricing,
                       TimePoint start = SimulatedClock::kDefaultStart)
      : pricing_(pricing), start_(start) {}
  std::string_view Name() const override { return kPriceExpanderName; }
  std::vector<const Option*> BestOptions(const std::vector<const Option*>& options) override;

 private:
  const cloud::PricingModel& pricing_;
  TimePoint start_;
};

}  // namespace tidepool::autoscaler::expander
