// File: price.cc
#include "autoscaler/expander/price/price.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

namespace tidepool::autoscaler::expander {

std::vector<const Option*> PriceFilter::BestOptions(const std::vector<const Option*>& options) {
  const TimePoint end = start_ + std::chrono::hours(1);
  std::vector<std::pair<const Option*, double>> priced;
  priced.reserve(options.size());
  for (const Option* option : options) {
    StatusOr<double> node_price = pricing_.NodePrice(option->template_node, start_, end);
    if (!node_price.ok()) continue;  // CA: "Failed to calculate node price for %s"; dropped.
    const double cost = *node_price * option->node_count;
    const double score = option->pods.empty()
                             ? std::numeric_limits<double>::infinity()
                             : cost / static_cast<double>(option->pods.size());
    priced.emplace_back(option, score);
  }
  if (priced.empty()) return options;  // Nothing could be priced: filter nothing.

  double best = std::numeric_limits<double>::infinity();
  for (const auto& [option, score] : priced) best = std::min(best, score);
  std::vector<const Option*> out;
  for (const auto& [option, score] : priced) {
    if (score == best || score - best <= kPriceRelativeTolerance * std::fabs(best)) {
      out.push_back(option);
    }
  }
  if (out.empty()) return options;  // Only NaN prices: filter nothing.
  return out;
}

}  // namespace tidepool::autoscaler::expander
