#include "sim/cluster_changes.h"

#include <chrono>
#include <cstdio>

namespace tidepool::sim {

std::string EventName(std::string_view object_name, TimePoint t) {
  char hex[24];
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch());
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(nanos.count()));
  return std::string(object_name) + "." + hex;
}

}  // namespace tidepool::sim
