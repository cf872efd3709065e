// File: most_pods.h
//
// The "most-pods" expander (CA's expander/mostpods/mostpods.go): keeps the options that would
// schedule the most pods (len(option.Pods)), every tie kept, in input order.
#pragma once

#include <string_view>
#include <vector>

#include "autoscaler/expander/expander.h"

namespace tidepool::autoscaler::expander {

inline constexpr std::string_view kMostPodsExpanderName = "most-pods";

class MostPodsFilter final : public Filter {
 public:
  std::string_view Name() const override { return kMostPodsExpanderName; }
  std::vector<const Option*> BestOptions(const std::vector<const Option*>& options) override;
};

}  // namespace tidepool::autoscaler::expander
