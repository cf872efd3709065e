// File: priority.cc
#include "autoscaler/expander/priority/priority.h"

#include <string>

#include "common/status.h"

namespace tidepool::autoscaler::expander {

StatusOr<std::unique_ptr<PriorityFilter>> PriorityFilter::Create(
    const std::vector<std::pair<int, std::vector<std::string>>>& priorities) {
  std::vector<Rule> rules;
  for (const auto& [priority, patterns] : priorities) {
    for (const std::string& pattern : patterns) {
      try {
        rules.push_back(Rule{priority, pattern, std::regex(pattern, std::regex::ECMAScript)});
      } catch (const std::regex_error& e) {
        return InvalidArgumentError("Can't compile regexp rule for priority " +
                                    std::to_string(priority) + " and rule " + pattern + ": " +
                                    e.what());
      }
    }
  }
  return std::unique_ptr<PriorityFilter>(new PriorityFilter(std::move(rules)));
}

bool PriorityFilter::PriorityOf(std::string_view node_group_id, int* priority) const {
  bool found = false;
  for (const Rule& rule : rules_) {
    if (found && rule.priority <= *priority) continue;
    if (std::regex_search(node_group_id.begin(), node_group_id.end(), rule.re)) {
      *priority = rule.priority;
      found = true;
    }
  }
  return found;
}

std::vector<const Option*> PriorityFilter::BestOptions(
    const std::vector<const Option*>& options) {
  std::vector<const Option*> best;
  int max_priority = 0;
  for (const Option* option : options) {
    int p = 0;
    if (!PriorityOf(option->node_group_id, &p)) continue;  // not used while others match
    if (best.empty() || p > max_priority) {
      max_priority = p;
      best = {option};
    } else if (p == max_priority) {
      best.push_back(option);
    }
  }
  if (best.empty()) return options;  // No option matched any priority: filter nothing.
  return best;
}

}  // namespace tidepool::autoscaler::expander
