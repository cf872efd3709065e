// File: random.cc
#include "autoscaler/expander/random/random.h"

namespace tidepool::autoscaler::expander {

std::vector<const Option*> RandomFilter::BestOptions(const std::vector<const Option*>& options) {
  if (options.size() <= 1) return options;
  return {options[random_.Uniform(options.size())]};
}

}  // namespace tidepool::autoscaler::expander
