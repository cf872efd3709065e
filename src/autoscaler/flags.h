// File: flags.h
//
// The autoscaler's settings by the Cluster Autoscaler's flag names (options.h), set from a
// config file's `autoscaler:` map (`tidepool up --config`, `tidepool simulate`) or from the
// command line of `tidepool autoscale` (`--scale-down-unneeded-time=10m`). One table serves
// both, so a flag means the same everywhere.
//
// Value syntax is CA's: durations in Go's syntax ("10s", "1m30s"), "<min>:<max>" for
// --cores-total / --memory-total, "<gpu type>:<min>:<max>" for --gpu-total (a list in a config
// file; repeated or comma-separated on the command line), true/false for booleans.
//
// Two settings CA hard-codes are flags here (tidepool's own names, documented as such):
// --unschedulable-pod-time-buffer (CA: 2s) and --unschedulable-pod-with-gpu-time-buffer
// (CA: 30s), so that tests and fast demos can shorten them.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "autoscaler/options.h"
#include "common/status.h"

namespace tidepool::autoscaler {

struct FlagInfo {
  std::string name;  // without "--"
  std::string help;
};

// Every flag, in the order `--help` lists them.
const std::vector<FlagInfo>& AutoscalerFlags();

// Sets `name` (with or without a leading "--") from a config value; errors name `path`
// (e.g. "s.yaml: autoscaler.scan-interval: ..."). NotFound for an unknown flag.
Status SetAutoscalerFlag(AutoscalingOptions& options, std::string_view name,
                         const nlohmann::json& value, const std::string& path);

// Sets `name` from a command-line string, typed by the flag's kind; errors name `--name`.
Status SetAutoscalerFlagFromString(AutoscalingOptions& options, std::string_view name,
                                   std::string_view value);

// Checks the settings as a whole (e.g. a positive scan interval).
Status ValidateAutoscalingOptions(const AutoscalingOptions& options, const std::string& path);

}  // namespace tidepool::autoscaler
