// File: clock.h
//
// The one time interface. Code that needs the current time takes a `const Clock&` (or a
// `TimePoint now` argument, for control loops) and never reads the OS clock itself. Only
// common/real_clock.cc may call std::chrono::*_clock::now(); a check in the test suite enforces
// it (tests/no_os_clock_test.sh).
//
// Time values are std::chrono types; never bare integers or doubles.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status_or.h"

namespace tidepool {

using Duration = std::chrono::nanoseconds;
// Wall-clock time (Unix epoch), with nanosecond resolution. API timestamps are built from it.
using TimePoint = std::chrono::time_point<std::chrono::system_clock, Duration>;

class Clock {
 public:
  virtual ~Clock() = default;
  Clock() = default;
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;

  // The current time. Thread-safe for every implementation.
  virtual TimePoint Now() const = 0;
};

// The operating system's wall clock.
class RealClock final : public Clock {
 public:
  TimePoint Now() const override;
};

// A clock that moves only when told to (tests and the discrete-event simulator). Not
// thread-safe: the simulator is single-threaded by design.
class SimulatedClock final : public Clock {
 public:
  // 2026-01-01T00:00:00Z: a fixed, readable default start for simulations and tests.
  static constexpr TimePoint kDefaultStart = TimePoint(std::chrono::seconds(1767225600));

  explicit SimulatedClock(TimePoint start = kDefaultStart) : now_(start) {}

  TimePoint Now() const override { return now_; }
  // REQUIRES: d >= 0 (time never goes backwards).
  void Advance(Duration d);
  // REQUIRES: t >= Now().
  void AdvanceTo(TimePoint t);

 private:
  TimePoint now_;
};

// RFC 3339 in UTC with second precision, as Kubernetes' metav1.Time: "2026-01-01T00:00:00Z".
std::string FormatRfc3339(TimePoint t);
// With milliseconds, as AWS's XML APIs write times: "2026-01-01T00:00:00.250Z".
std::string FormatRfc3339Millis(TimePoint t);
// Parses RFC 3339 ("...Z", "+hh:mm" offsets, an optional fraction up to nanoseconds), as Go's
// time.Parse(time.RFC3339Nano); InvalidArgument ("parsing time ... as RFC 3339: cannot
// parse") otherwise.
StatusOr<TimePoint> ParseRfc3339(std::string_view text);
// Seconds since the epoch, fractional part truncated.
int64_t UnixSeconds(TimePoint t);

}  // namespace tidepool
