#include "scheduler/framework/fit_error.h"

#include <algorithm>
#include <vector>

namespace tidepool::scheduler {

std::string FitErrorMessage(const FitErrorParts& parts) {
  std::string msg = "0/" + std::to_string(parts.num_all_nodes) + " nodes are available:";
  if (!parts.pre_filter_msg.empty()) {
    msg += " " + parts.pre_filter_msg + ".";
  } else {
    std::vector<std::string> entries;
    entries.reserve(parts.reason_counts.size());
    for (const auto& [reason, count] : parts.reason_counts) {
      entries.push_back(std::to_string(count) + " " + reason);
    }
    std::sort(entries.begin(), entries.end());
    if (!entries.empty()) {
      msg += " ";
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) {
          msg += ", ";
        }
        msg += entries[i];
      }
      msg += ".";
    }
  }
  if (!parts.post_filter_msg.empty()) {
    msg += " " + parts.post_filter_msg;
  }
  return msg;
}

}  // namespace tidepool::scheduler
