// File: fit_error.h
//
// The FailedScheduling message, byte for byte as kube-scheduler 1.32's FitError.Error()
// (pkg/scheduler/framework/types.go, release-1.32):
//
//   "0/<N> nodes are available:" + (" <PreFilterMsg>." | " <sorted "<count> <reason>", ...>.")
//                                + (" <PostFilterMsg>" if any)
//
// The histogram entries are the strings "<count> <reason>" sorted lexicographically as whole
// strings (so "10 ..." sorts before "2 ..."), joined by ", ".
#pragma once

#include <map>
#include <string>

namespace tidepool::scheduler {

struct FitErrorParts {
  size_t num_all_nodes = 0;
  // reason -> number of nodes that gave it.
  std::map<std::string, size_t> reason_counts;
  std::string pre_filter_msg;
  std::string post_filter_msg;
};

std::string FitErrorMessage(const FitErrorParts& parts);

}  // namespace tidepool::scheduler
