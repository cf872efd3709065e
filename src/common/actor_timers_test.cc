#include "common/actor_timers.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "common/event_queue.h"

namespace tidepool {
namespace {

using std::chrono::seconds;

TEST(ActorTimersTest, OnAnExecutorPostsAndTimersRunInItsOrderWithNoThread) {
  EventQueue queue;
  ActorTimers timers(queue.clock(), &queue);
  EXPECT_FALSE(timers.threaded());
  EXPECT_EQ(&timers.clock(), &queue.clock());
  std::vector<std::string> seen;
  const TimePoint t0 = queue.Now();
  timers.ScheduleAt(t0 + seconds(20), [&] { seen.push_back("b"); });
  timers.ScheduleAt(t0 + seconds(10), [&] { seen.push_back("a"); });
  timers.Post([&] {
    seen.push_back("now");
    timers.Post([&] { seen.push_back("then"); });
  });
  const TimerService::TimerId gone =
      timers.ScheduleAfter(seconds(5), [&] { seen.push_back("gone"); });
  timers.Cancel(gone);
  timers.Cancel(gone);  // twice: no effect
  EXPECT_EQ(timers.Pending(), 3u);
  queue.RunUntil(t0 + seconds(30));
  EXPECT_EQ(seen, std::vector<std::string>({"now", "then", "a", "b"}));
  EXPECT_EQ(timers.Pending(), 0u);
}

TEST(ActorTimersTest, StopCancelsWhatIsPendingAndDropsWhatComesLaterUntilStart) {
  EventQueue queue;
  std::vector<std::string> seen;
  {
    ActorTimers timers(queue.clock(), &queue);
    timers.ScheduleAfter(seconds(1), [&] { seen.push_back("pending"); });
    timers.Stop();
    EXPECT_EQ(timers.ScheduleAfter(seconds(1), [&] { seen.push_back("after stop"); }), 0u);
    EXPECT_EQ(queue.RunUntilIdle(10), 0u);
    timers.Start();
    timers.Post([&] { seen.push_back("restarted"); });
    timers.ScheduleAfter(seconds(1), [&] { seen.push_back("destroyed"); });
    queue.Step();
  }  // destroyed: what it scheduled never runs
  EXPECT_EQ(queue.RunUntilIdle(10), 0u);
  EXPECT_EQ(seen, std::vector<std::string>({"restarted"}));
}

TEST(ActorTimersTest, WithoutAnExecutorItRunsOnAThreadOfItsOwn) {
  RealClock clock;
  ActorTimers timers(clock, nullptr);
  EXPECT_TRUE(timers.threaded());
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> seen;
  for (int i = 0; i < 10; ++i) {
    timers.Post([&, i] {
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(i);
      cv.notify_all();
    });
  }
  timers.Start();
  std::unique_lock<std::mutex> lock(mu);
  cv.wait_for(lock, seconds(10), [&] { return seen.size() == 10; });
  EXPECT_EQ(seen, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  lock.unlock();
  timers.Stop();
  timers.Stop();  // idempotent
}

}  // namespace
}  // namespace tidepool
