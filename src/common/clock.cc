#include "common/clock.h"

#include <ctime>

#include "common/check.h"

namespace tidepool {

void SimulatedClock::Advance(Duration d) {
  TIDEPOOL_CHECK(d >= Duration::zero());
  now_ += d;
}

void SimulatedClock::AdvanceTo(TimePoint t) {
  TIDEPOOL_CHECK(t >= now_);
  now_ = t;
}

int64_t UnixSeconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string FormatRfc3339(TimePoint t) {
  auto secs = std::chrono::floor<std::chrono::seconds>(t);
  std::time_t tt = static_cast<std::time_t>(secs.time_since_epoch().count());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace tidepool
