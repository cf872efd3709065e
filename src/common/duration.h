// File: duration.h
//
// Durations as Kubernetes tools write and read them:
//   - ParseGoDuration: Go's time.ParseDuration ("300ms", "1.5h", "2h45m", "-1m", "0"); units
//     ns, us, µs, ms, s, m, h. Errors are InvalidArgument in Go's words:
//     `time: invalid duration "5 minutes"`, `time: missing unit in duration "10"`.
//   - FormatGoDuration: Go's time.Duration.String() ("4s", "1.5s", "3m20s", "1h0m0s", "100ms").
//   - HumanDuration: kubectl's AGE column (apimachinery duration.HumanDuration: "45s", "3m20s",
//     "12m", "5h3m", "3d").
//   - FormatElapsed: the timeline's stamp, "HH:MM:SS" (hours keep growing past 99).
#pragma once

#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool {

StatusOr<Duration> ParseGoDuration(std::string_view s);
std::string FormatGoDuration(Duration d);
std::string HumanDuration(Duration d);
std::string FormatElapsed(Duration d);

}  // namespace tidepool
