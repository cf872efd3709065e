// File: plugin_status.h
//
// PluginStatus is what a scheduling plugin returns: a value with an explicit Success (never a
// nullable pointer), one of kube-scheduler's codes, and the reasons that end up in the
// FailedScheduling message.
//   kUnschedulable                  the pod does not fit now; preemption might help;
//   kUnschedulableAndUnresolvable   the pod does not fit and preemption would not change that;
//   kError                          internal error or unexpected input, never for a misfit;
//   kSkip                           the plugin has nothing to do for this pod.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tidepool::scheduler {

enum class PluginCode {
  kSuccess,
  kError,
  kUnschedulable,
  kUnschedulableAndUnresolvable,
  kWait,
  kSkip,
  kPending,
};

std::string_view PluginCodeName(PluginCode c);

class PluginStatus {
 public:
  PluginStatus() = default;  // Success
  PluginStatus(PluginCode code, std::vector<std::string> reasons)
      : code_(code), reasons_(std::move(reasons)) {}

  static PluginStatus Success() { return PluginStatus(); }
  static PluginStatus Skip() { return PluginStatus(PluginCode::kSkip, {}); }
  static PluginStatus Unschedulable(std::string reason) {
    return PluginStatus(PluginCode::kUnschedulable, {std::move(reason)});
  }
  static PluginStatus Unresolvable(std::string reason) {
    return PluginStatus(PluginCode::kUnschedulableAndUnresolvable, {std::move(reason)});
  }
  static PluginStatus Error(std::string message) {
    return PluginStatus(PluginCode::kError, {std::move(message)});
  }

  PluginCode code() const { return code_; }
  bool IsSuccess() const { return code_ == PluginCode::kSuccess; }
  bool IsSkip() const { return code_ == PluginCode::kSkip; }
  bool IsRejected() const {
    return code_ == PluginCode::kUnschedulable ||
           code_ == PluginCode::kUnschedulableAndUnresolvable;
  }
  const std::vector<std::string>& reasons() const { return reasons_; }
  // The reasons joined by ", " (Status.Message()).
  std::string Message() const;

  // The plugin that produced the status (set by the framework).
  const std::string& plugin() const { return plugin_; }
  PluginStatus& WithPlugin(std::string_view p) {
    plugin_ = std::string(p);
    return *this;
  }

 private:
  PluginCode code_ = PluginCode::kSuccess;
  std::vector<std::string> reasons_;
  std::string plugin_;
};

}  // namespace tidepool::scheduler
