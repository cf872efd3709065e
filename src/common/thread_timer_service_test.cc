#include "common/thread_timer_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace tidepool {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A clock the test moves while the service's thread reads it.
class TestClock final : public Clock {
 public:
  TimePoint Now() const override { return TimePoint(Duration(ns_.load())); }
  void Advance(Duration d) { ns_ += d.count(); }

 private:
  std::atomic<int64_t> ns_{SimulatedClock::kDefaultStart.time_since_epoch().count()};
};

// Collects what the callbacks record and waits for a count of them.
class Recorder {
 public:
  void Add(std::string s) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.push_back(std::move(s));
    cv_.notify_all();
  }
  std::vector<std::string> WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, seconds(10), [&] { return seen_.size() >= n; });
    return seen_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> seen_;
};

TEST(ThreadTimerServiceTest, PostsRunInPostingOrder) {
  TestClock clock;
  ThreadTimerService timers(clock, milliseconds(5));
  Recorder rec;
  for (int i = 0; i < 100; ++i) timers.Post([&rec, i] { rec.Add(std::to_string(i)); });
  timers.Start();
  std::vector<std::string> seen = rec.WaitFor(100);
  ASSERT_EQ(seen.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(seen[i], std::to_string(i));
}

TEST(ThreadTimerServiceTest, TimersRunWhenTheClockReachesThemInTimeOrder) {
  TestClock clock;
  ThreadTimerService timers(clock, milliseconds(5));
  Recorder rec;
  const TimePoint t0 = clock.Now();
  timers.ScheduleAt(t0 + seconds(20), [&] { rec.Add("b"); });
  timers.ScheduleAt(t0 + seconds(10), [&] { rec.Add("a"); });
  timers.ScheduleAt(t0 + seconds(20), [&] { rec.Add("c"); });  // same time: scheduling order
  timers.Start();
  timers.Post([&] { rec.Add("now"); });
  EXPECT_EQ(rec.WaitFor(1), std::vector<std::string>({"now"}));
  EXPECT_EQ(timers.Pending(), 3u);  // nothing due before the clock moves
  clock.Advance(seconds(10));
  EXPECT_EQ(rec.WaitFor(2), std::vector<std::string>({"now", "a"}));
  clock.Advance(seconds(10));
  EXPECT_EQ(rec.WaitFor(4), std::vector<std::string>({"now", "a", "b", "c"}));
}

TEST(ThreadTimerServiceTest, CancelledTimersNeverRunAndCallbacksMayScheduleMore) {
  TestClock clock;
  ThreadTimerService timers(clock, milliseconds(5));
  Recorder rec;
  const TimerService::TimerId gone = timers.ScheduleAfter(seconds(1), [&] { rec.Add("gone"); });
  timers.Cancel(gone);
  timers.Cancel(gone);  // twice: no effect
  timers.Post([&] {
    rec.Add("first");
    timers.Post([&] { rec.Add("second"); });
  });
  timers.Start();
  clock.Advance(seconds(2));
  EXPECT_EQ(rec.WaitFor(2), std::vector<std::string>({"first", "second"}));
  timers.Stop();
  timers.Stop();  // idempotent
  EXPECT_EQ(timers.Pending(), 0u);
}

}  // namespace
}  // namespace tidepool
