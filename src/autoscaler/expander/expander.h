// File: expander.h
//
// Expanders choose among scale-up options (the Cluster Autoscaler's expander.Strategy and
// expander.Filter, expander/expander.go). A Filter narrows the options to its best ones; a
// Strategy is a chain of filters (`--expander=priority,least-waste`) ending in a seeded random
// choice among whatever is left, so ties are broken the same way for the same seed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "common/random.h"
#include "common/status_or.h"
#include "scheduler/framework/pod_info.h"

namespace tidepool::cloud {
class PricingModel;
}

namespace tidepool::autoscaler::expander {

// One way to scale up: add `node_count` nodes to one group, which would schedule `pods`.
struct Option {
  std::string node_group_id;
  int node_count = 0;
  // The pods the new nodes would take (the estimator's answer).
  std::vector<scheduler::PodInfoConstSharedPtr> pods;
  // What one new node looks like (allocatable, labels, taints): the group's template.
  api::Node template_node;
  std::string debug;
};

class Filter {
 public:
  virtual ~Filter() = default;
  virtual std::string_view Name() const = 0;
  // The best of `options` by this filter's measure; never empty when `options` is not.
  virtual std::vector<const Option*> BestOptions(const std::vector<const Option*>& options) = 0;
};

class Strategy {
 public:
  // `filters` run in order; `random` breaks the remaining ties. REQUIRES: random outlives this.
  Strategy(std::vector<std::unique_ptr<Filter>> filters, Random& random);
  // nullptr when `options` is empty.
  const Option* BestOption(const std::vector<Option>& options);
  // "priority,least-waste"
  std::string Names() const;

 private:
  std::vector<std::unique_ptr<Filter>> filters_;
  Random& random_;
};

struct ExpanderConfig {
  // Comma-separated names as CA's --expander: random, most-pods, least-waste, price, priority.
  std::string names = "least-waste";
  // For "priority": priority -> regular expressions over node group ids (the
  // cluster-autoscaler-priority-expander ConfigMap's `priorities`).
  std::vector<std::pair<int, std::vector<std::string>>> priorities;
  // For "price": may be null, then "price" is an error.
  const cloud::PricingModel* pricing = nullptr;
};

// Builds a Strategy; InvalidArgument for an unknown name or a bad priority regex.
StatusOr<std::unique_ptr<Strategy>> NewStrategy(const ExpanderConfig& config, Random& random);

}  // namespace tidepool::autoscaler::expander
