// File: priority.h
//
// The "priority" expander (CA's expander/priority/priority.go): user-given priorities, each a
// list of regular expressions over node group ids (the `priorities` key of the
// cluster-autoscaler-priority-expander ConfigMap, `map[int][]regex`).
//   - A node group's priority is the highest priority with a regex that matches its id. CA
//     matches with regexp.FindStringIndex (a partial match: the regex may match any substring);
//     here std::regex_search (ECMAScript grammar) does the same. Anchor with ^...$ for a full
//     match.
//   - The options with the highest priority among the options are kept; options matching no
//     regex are dropped ("node group %s not found in priority expander configuration. The
//     group won't be used.").
//   - If no option matches any regex, every option is kept ("no priorities info found for any
//     of the expansion options").
//   - A regex that does not compile is an error at construction (CA rejects the whole ConfigMap
//     update with "Can't compile regexp rule for priority %d and rule %s: %v").
// Differences from CA: CA's running maximum starts at -1, so there priorities below -1 never
// win; here every int priority compares normally. Go's RE2 syntax and ECMAScript agree on the
// usual patterns (".*", "\\.", classes, anchors, alternation) but not on every construct. An
// empty priority list keeps every option (CA would reject an empty ConfigMap and choose none).
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autoscaler/expander/expander.h"
#include "common/status_or.h"

namespace tidepool::autoscaler::expander {

inline constexpr std::string_view kPriorityExpanderName = "priority";

class PriorityFilter final : public Filter {
 public:
  // InvalidArgument if a regex does not compile.
  static StatusOr<std::unique_ptr<PriorityFilter>> Create(
      const std::vector<std::pair<int, std::vector<std::string>>>& priorities);

  std::string_view Name() const override { return kPriorityExpanderName; }
  std::vector<const Option*> BestOptions(const std::vector<const Option*>& options) override;

  // The highest priority whose regexes match `node_group_id`, or false if none does.
  bool PriorityOf(std::string_view node_group_id, int* priority) const;

 private:
  struct Rule {
    int priority;
    std::string pattern;
    std::regex re;
  };
  explicit PriorityFilter(std::vector<Rule> rules) : rules_(std::move(rules)) {}

  std::vector<Rule> rules_;
};

}  // namespace tidepool::autoscaler::expander
