// File: expander.cc
//
// Strategy (CA's chainStrategy, expander/factory/chain.go) and NewStrategy (CA's
// Factory.Build, expander/factory/expander_factory.go).
//
// Chain: each filter narrows the options in turn; as soon as one option is left it is the
// answer (CA returns early, so later filters and the random tie-break are not consulted and
// draw nothing); whatever is left after the last filter is broken by the seeded random choice.
// Deviation: with a single option left, the final random choice takes no draw from `random`
// (CA calls rand.Int31n(1)); the choice is the same and the seeded stream is not disturbed.
//
// NewStrategy mirrors Factory.Build: the comma-separated names are taken verbatim (CA splits
// --expander on "," without trimming), a repeated name, a name after "random" (a strategy that
// always returns one option), and an unknown name are errors with CA's texts. CA also knows
// "least-nodes" and "grpc"; tidepool does not offer them, so they are "not supported".
#include "autoscaler/expander/expander.h"

#include <set>
#include <string>
#include <utility>

#include "autoscaler/expander/least_waste/least_waste.h"
#include "autoscaler/expander/most_pods/most_pods.h"
#include "autoscaler/expander/price/price.h"
#include "autoscaler/expander/priority/priority.h"
#include "autoscaler/expander/random/random.h"
#include "common/status.h"

namespace tidepool::autoscaler::expander {

Strategy::Strategy(std::vector<std::unique_ptr<Filter>> filters, Random& random)
    : filters_(std::move(filters)), random_(random) {}

const Option* Strategy::BestOption(const std::vector<Option>& options) {
  if (options.empty()) return nullptr;
  std::vector<const Option*> left;
  left.reserve(options.size());
  for (const Option& o : options) left.push_back(&o);
  for (const std::unique_ptr<Filter>& filter : filters_) {
    std::vector<const Option*> best = filter->BestOptions(left);
    // A filter must never empty a non-empty set; if one does, keep what it was given.
    if (!best.empty()) left = std::move(best);
    if (left.size() == 1) return left.front();
  }
  if (left.size() == 1) return left.front();
  return left[random_.Uniform(left.size())];
}

std::string Strategy::Names() const {
  std::string out;
  for (const std::unique_ptr<Filter>& filter : filters_) {
    if (!out.empty()) out += ',';
    out += filter->Name();
  }
  return out;
}

namespace {

std::vector<std::string> SplitNames(const std::string& names) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = names.find(',', start);
    out.push_back(names.substr(start, comma == std::string::npos ? std::string::npos
                                                                  : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<Strategy>> NewStrategy(const ExpanderConfig& config, Random& random) {
  std::vector<std::unique_ptr<Filter>> filters;
  std::set<std::string> seen;
  const std::vector<std::string> names = SplitNames(config.names);
  bool strategy_seen = false;  // "random" always returns one option: nothing may follow it.
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (seen.count(name) > 0) {
      return InvalidArgumentError("Expander " + name +
                                  " was specified multiple times, each expander must not be "
                                  "specified more than once");
    }
    if (strategy_seen) {
      return InvalidArgumentError("Expander " + name + " came after an expander " +
                                  names[i - 1] +
                                  " that will always return only one result, this is not "
                                  "allowed since " +
                                  name + " will never be used");
    }
    seen.insert(name);

    if (name == kRandomExpanderName) {
      filters.push_back(std::make_unique<RandomFilter>(random));
      strategy_seen = true;
    } else if (name == kMostPodsExpanderName) {
      filters.push_back(std::make_unique<MostPodsFilter>());
    } else if (name == kLeastWasteExpanderName) {
      filters.push_back(std::make_unique<LeastWasteFilter>());
    } else if (name == kPriceExpanderName) {
      if (config.pricing == nullptr) {
        return InvalidArgumentError(
            "Couldn't access cloud provider pricing for expander price: the cloud provider "
            "has no pricing model");
      }
      filters.push_back(std::make_unique<PriceFilter>(*config.pricing));
    } else if (name == kPriorityExpanderName) {
      StatusOr<std::unique_ptr<PriorityFilter>> p = PriorityFilter::Create(config.priorities);
      if (!p.ok()) return p.status();
      filters.push_back(std::move(p).value());
    } else {
      return InvalidArgumentError("Expander " + name + " not supported");
    }
  }
  return std::make_unique<Strategy>(std::move(filters), random);
}

}  // namespace tidepool::autoscaler::expander
