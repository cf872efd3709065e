#include "common/event_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool {
namespace {

using std::chrono::seconds;

TEST(EventQueueTest, RunsByTimeThenBySchedulingOrder) {
  EventQueue q;
  const TimePoint t0 = q.Now();
  std::vector<std::string> ran;
  q.ScheduleAt(t0 + seconds(2), [&] { ran.push_back("b@2"); });
  q.ScheduleAt(t0 + seconds(1), [&] { ran.push_back("a@1"); });
  q.ScheduleAt(t0 + seconds(2), [&] { ran.push_back("c@2"); });
  q.ScheduleAt(t0 + seconds(1), [&] { ran.push_back("d@1"); });
  EXPECT_EQ(q.RunUntilIdle(100), 4u);
  EXPECT_EQ(ran, (std::vector<std::string>{"a@1", "d@1", "b@2", "c@2"}));
  EXPECT_EQ(q.Now(), t0 + seconds(2));
}

TEST(EventQueueTest, ClockIsAtTheEventsTimeWhenItRuns) {
  EventQueue q;
  const TimePoint t0 = q.Now();
  std::vector<TimePoint> seen;
  q.ScheduleAfter(seconds(5), [&] { seen.push_back(q.clock().Now()); });
  q.ScheduleAfter(seconds(1), [&] { seen.push_back(q.clock().Now()); });
  q.RunUntilIdle(10);
  EXPECT_EQ(seen, (std::vector<TimePoint>{t0 + seconds(1), t0 + seconds(5)}));
}

TEST(EventQueueTest, CallbacksScheduledForNowRunAfterThoseAlreadyDue) {
  EventQueue q;
  std::vector<std::string> ran;
  q.ScheduleAfter(seconds(1), [&] {
    ran.push_back("first");
    q.ScheduleAfter(seconds(0), [&] { ran.push_back("nested"); });
    // A time in the past means now.
    q.ScheduleAt(q.Now() - seconds(30), [&] { ran.push_back("past"); });
  });
  q.ScheduleAfter(seconds(1), [&] { ran.push_back("second"); });
  q.RunUntilIdle(10);
  EXPECT_EQ(ran, (std::vector<std::string>{"first", "second", "nested", "past"}));
}

TEST(EventQueueTest, CancelRemovesAPendingCallbackOnly) {
  EventQueue q;
  int ran = 0;
  const auto a = q.ScheduleAfter(seconds(1), [&] { ++ran; });
  const auto b = q.ScheduleAfter(seconds(2), [&] { ran += 10; });
  q.Cancel(a);
  q.Cancel(a);       // twice: no effect
  q.Cancel(999999);  // unknown: no effect
  EXPECT_EQ(q.Size(), 1u);
  q.RunUntilIdle(10);
  EXPECT_EQ(ran, 10);
  q.Cancel(b);  // already ran: no effect
  EXPECT_TRUE(q.Empty());
}

TEST(EventQueueTest, RunUntilStopsAtTheLimitAndAdvancesTheClock) {
  EventQueue q;
  const TimePoint t0 = q.Now();
  int ran = 0;
  q.ScheduleAfter(seconds(1), [&] { ++ran; });
  q.ScheduleAfter(seconds(10), [&] { ++ran; });
  q.ScheduleAfter(seconds(11), [&] { ++ran; });
  EXPECT_EQ(q.RunUntil(t0 + seconds(10)), 2u);  // inclusive
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(q.Now(), t0 + seconds(10));
  ASSERT_TRUE(q.NextEventTime().has_value());
  EXPECT_EQ(*q.NextEventTime(), t0 + seconds(11));
  EXPECT_EQ(q.RunUntil(t0 + seconds(100)), 1u);
  EXPECT_EQ(q.Now(), t0 + seconds(100));
  EXPECT_FALSE(q.NextEventTime().has_value());
}

TEST(EventQueueTest, RunUntilIdleStopsAPeriodicTimerAtTheLimit) {
  EventQueue q;
  int ticks = 0;
  std::function<void()> tick = [&] {
    ++ticks;
    q.ScheduleAfter(seconds(10), tick);
  };
  q.ScheduleAfter(seconds(10), tick);
  EXPECT_EQ(q.RunUntilIdle(5), 5u);
  EXPECT_EQ(ticks, 5);
  EXPECT_FALSE(q.Empty());
  EXPECT_EQ(q.executed(), 5u);
}

TEST(EventQueueTest, IdsAreNeverReused) {
  EventQueue q;
  const auto a = q.ScheduleAfter(seconds(1), [] {});
  q.RunUntilIdle(1);
  const auto b = q.ScheduleAfter(seconds(1), [] {});
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace tidepool
