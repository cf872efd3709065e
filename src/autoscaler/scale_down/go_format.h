// File: go_format.h
//
// The few Go formatting verbs that CA's scale-down texts use, so that tidepool prints the same
// characters:
//   GoDuration   time.Duration.String():  "10m0s", "1h0m0s", "1.5s", "250ms", "0s"
//   GoFloat      %v of a float64:          "0.5", "0.3333333333333333", "0", "1e-05"
//   GoQuote      %q of a string:           "\"node-1\"" (common/go_quote.h's strconv.Quote)
//   GoPrecision6 %.6g of a value:          "33.3333", "50", "0"
//   GoTime       %v of a UTC time.Time:    "2026-01-01 00:05:00 +0000 UTC" (no monotonic part)
#pragma once

#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/go_quote.h"

namespace tidepool::autoscaler::scaledown {

std::string GoDuration(Duration d);
std::string GoFloat(double v);
using ::tidepool::GoQuote;
std::string GoPrecision6(double v);
std::string GoTime(TimePoint t);

}  // namespace tidepool::autoscaler::scaledown
