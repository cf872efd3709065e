// File: cron_schedule.h
//
// CronSchedule: a CronJob's spec.schedule as Kubernetes 1.32 reads it - github.com/robfig/cron/v3's
// ParseStandard (kube-apiserver's validation and kube-controller-manager's CronJob controller
// both call it) and its Schedule.Next:
//   - five fields "minute hour day-of-month month day-of-week": `*` and `?`, numbers, ranges
//     `a-b`, steps `*/n`, `a/n` (a to the maximum), `a-b/n`, lists `a,b`; month names jan-dec
//     and day names sun-sat (any case); day-of-week 0-6 (0 is Sunday). When neither
//     day-of-month nor day-of-week is `*`/`?`, a day matching either one matches (cron's rule),
//     otherwise both must;
//   - descriptors @yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly, and
//     `@every <Go duration>` (at least 1 s, whole seconds);
//   - an optional prefix `TZ=<zone> ` or `CRON_TZ=<zone> ` (IANA names from the system tz
//     database, Debian's tzdata, read through Howard Hinnant's date/tz library); without one,
//     times are UTC (kube-controller-manager's time.Local in its container).
// Errors are robfig's texts (InvalidArgument), as kube-apiserver quotes them:
//   `expected exactly 5 fields, found 4: [* * * *]`, `end of range (60) above maximum (59): 60`,
//   `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`,
//   `unrecognized descriptor: @often`, `provided bad location Mars/Base: unknown time zone
//   Mars/Base`.
// Next(t) is robfig's: the first activation strictly after t (from the next whole second), in
// the schedule's zone with Go's time.Date normalisation across DST changes; nullopt when there
// is none within five years (robfig's zero time, e.g. "59 23 31 2 *").
//
// LoadTimeZone is Go's time.LoadLocation for a CronJob's spec.timeZone: "" and "UTC" are UTC;
// an unknown name is `unknown time zone <name>`.
//
// Thread-safe: immutable after Parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::api {

// An IANA time zone; UTC when `impl` is null. Copyable; the zone data lives as long as the
// process.
struct TimeZone {
  const void* impl = nullptr;
  std::string name = "UTC";
};

StatusOr<TimeZone> LoadTimeZone(std::string_view name);
// RFC 3339 with the zone's offset, as Go's t.In(zone).Format(time.RFC3339):
// "2026-12-03T09:00:00-05:00", "...Z" in UTC.
std::string FormatRfc3339In(TimePoint t, const TimeZone& zone);

class CronSchedule {
 public:
  static StatusOr<CronSchedule> Parse(std::string_view spec);

  std::optional<TimePoint> Next(TimePoint t) const;
  const TimeZone& zone() const { return zone_; }

 private:
  CronSchedule() = default;

  uint64_t second_ = 0, minute_ = 0, hour_ = 0, dom_ = 0, month_ = 0, dow_ = 0;
  TimeZone zone_;
  // @every: the delay (whole seconds); the fields above are unused.
  std::optional<Duration> every_;
};

}  // namespace tidepool::api
