#include "common/clock.h"

#include <gtest/gtest.h>

namespace tidepool {
namespace {

using std::chrono::seconds;

TEST(SimulatedClockTest, MovesOnlyWhenAdvanced) {
  SimulatedClock clock;
  TimePoint t0 = clock.Now();
  EXPECT_EQ(clock.Now(), t0);
  clock.Advance(seconds(10));
  EXPECT_EQ(clock.Now() - t0, seconds(10));
  clock.AdvanceTo(t0 + seconds(60));
  EXPECT_EQ(clock.Now(), t0 + seconds(60));
}

TEST(SimulatedClockDeathTest, NeverGoesBackwards) {
  SimulatedClock clock;
  EXPECT_DEATH(clock.Advance(seconds(-1)), "check failed");
  EXPECT_DEATH(clock.AdvanceTo(clock.Now() - seconds(1)), "check failed");
}

TEST(ClockTest, FormatsRfc3339InUtc) {
  EXPECT_EQ(FormatRfc3339(SimulatedClock::kDefaultStart), "2026-01-01T00:00:00Z");
  EXPECT_EQ(
      FormatRfc3339Millis(SimulatedClock::kDefaultStart + std::chrono::microseconds(61500900)),
      "2026-01-01T00:01:01.500Z");
  EXPECT_EQ(FormatRfc3339(SimulatedClock::kDefaultStart + std::chrono::milliseconds(61500)),
            "2026-01-01T00:01:01Z");
  EXPECT_EQ(UnixSeconds(SimulatedClock::kDefaultStart), 1767225600);
}

TEST(RealClockTest, IsAfter2025) {
  RealClock clock;
  EXPECT_GT(UnixSeconds(clock.Now()), 1735689600);
}

}  // namespace
}  // namespace tidepool
