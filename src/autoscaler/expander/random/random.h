// File: random.h
//
// The "random" expander (CA's expander/random/random.go): a uniform choice among the options,
// drawn from the injected, seeded Random so that a run replays for one seed. Like CA's random
// it always returns exactly one option, so no expander may follow it in a chain.
#pragma once

#include <string_view>
#include <vector>

#include "autoscaler/expander/expander.h"
#include "common/random.h"

namespace tidepool::autoscaler::expander {

inline constexpr std::string_view kRandomExpanderName = "random";

class RandomFilter final : public Filter {
 public:
  // REQUIRES: random outlives this.
  explicit RandomFilter(Random& random) : random_(random) {}
  std::string_view Name() const override { return kRandomExpanderName; }
  // One option chosen uniformly (Random::Uniform); no draw when there is only one.
  std::vector<const Option*> BestOptions(const std::vector<const Option*>& options) override;

 private:
  Random& random_;
};

}  // namespace tidepool::autoscaler::expander
