#include "scheduler/framework/plugin_status.h"

namespace tidepool::scheduler {

std::string_view PluginCodeName(PluginCode c) {
  switch (c) {
    case PluginCode::kSuccess: return "Success";
    case PluginCode::kError: return "Error";
    case PluginCode::kUnschedulable: return "Unschedulable";
    case PluginCode::kUnschedulableAndUnresolvable: return "UnschedulableAndUnresolvable";
    case PluginCode::kWait: return "Wait";
    case PluginCode::kSkip: return "Skip";
    case PluginCode::kPending: return "Pending";
  }
  return "Unknown";
}

std::string PluginStatus::Message() const {
  std::string out;
  for (size_t i = 0; i < reasons_.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += reasons_[i];
  }
  return out;
}

}  // namespace tidepool::scheduler
