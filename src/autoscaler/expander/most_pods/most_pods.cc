// File: most_pods.cc
#include "autoscaler/expander/most_pods/most_pods.h"

namespace tidepool::autoscaler::expander {

std::vector<const Option*> MostPodsFilter::BestOptions(
    const std::vector<const Option*>& options) {
  std::vector<const Option*> best;
  size_t max_pods = 0;
  for (const Option* option : options) {
    const size_t n = option->pods.size();
    if (best.empty() || n > max_pods) {
      max_pods = n;
      best = {option};
    } else if (n == max_pods) {
      best.push_back(option);
    }
  }
  return best;
}

}  // namespace tidepool::autoscaler::expander
