#include "controllers/work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/event_queue.h"

namespace tidepool::controllers {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A WorkQueue on an EventQueue that records "key@seconds-since-start" for every sync.
class WorkQueueOnEventQueueTest : public ::testing::Test {
 protected:
  WorkQueueOnEventQueueTest()
      : t0_(events_.Now()),
        queue_(
            events_.clock(),
            [this](const std::string& key) -> std::optional<TimePoint> {
              synced_.push_back(key + "@" + std::to_string(Seconds(events_.Now())));
              if (during_sync_) during_sync_(key);
              auto it = answers_.find(key);
              if (it == answers_.end() || it->second.empty()) return std::nullopt;
              const Duration d = it->second.front();
              it->second.erase(it->second.begin());
              return events_.Now() + d;
            },
            [this] { return ready_; }, seconds(1), &events_) {}

  int64_t Seconds(TimePoint t) const {
    return std::chrono::duration_cast<seconds>(t - t0_).count();
  }

  EventQueue events_;
  const TimePoint t0_;
  bool ready_ = true;
  std::vector<std::string> synced_;
  std::function<void(const std::string&)> during_sync_;
  std::map<std::string, std::vector<Duration>> answers_;  // key -> sync's next answers
  WorkQueue queue_;
};

TEST_F(WorkQueueOnEventQueueTest, DueKeysRunInTimeThenKeyOrderEachInACallbackOfItsOwn) {
  queue_.AddAt("b", t0_ + seconds(2));
  queue_.AddAt("c", t0_ + seconds(1));
  queue_.Add("z");
  queue_.Add("a");
  queue_.AddAt("a2", t0_ + seconds(2));
  queue_.Start();
  EXPECT_EQ(queue_.Len(), 5u);
  // A callback of someone else's, scheduled now: it runs between the first two keys.
  events_.ScheduleAt(t0_, [this] { synced_.push_back("other"); });
  events_.RunUntil(t0_ + seconds(10));
  EXPECT_EQ(synced_, (std::vector<std::string>{"a@0", "other", "z@0", "c@1", "a2@2", "b@2"}));
  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_TRUE(events_.Empty());
}

TEST_F(WorkQueueOnEventQueueTest, NothingRunsBeforeStart) {
  queue_.Add("a");
  events_.RunUntil(t0_ + seconds(5));
  EXPECT_TRUE(synced_.empty());
  queue_.Start();
  events_.RunUntil(t0_ + seconds(6));
  EXPECT_EQ(synced_, (std::vector<std::string>{"a@5"}));
}

TEST_F(WorkQueueOnEventQueueTest, AKeyIsQueuedOnceAtItsEarliestTime) {
  queue_.Start();
  queue_.AddAt("k", t0_ + seconds(5));
  queue_.AddAt("k", t0_ + seconds(3));  // earlier wins
  queue_.AddAt("k", t0_ + seconds(4));  // later: ignored
  queue_.AddAt("k", t0_ + seconds(9));
  EXPECT_EQ(queue_.Len(), 1u);
  events_.RunUntil(t0_ + seconds(20));
  EXPECT_EQ(synced_, (std::vector<std::string>{"k@3"}));
  // The superseded callback is cancelled, not left to run.
  EXPECT_TRUE(events_.Empty());
}

TEST_F(WorkQueueOnEventQueueTest, SyncsAgainWhenSyncAsks) {
  answers_["k"] = {seconds(4), seconds(1)};
  queue_.Start();
  queue_.Add("k");
  events_.RunUntil(t0_ + seconds(20));
  EXPECT_EQ(synced_, (std::vector<std::string>{"k@0", "k@4", "k@5"}));
}

TEST_F(WorkQueueOnEventQueueTest, AKeyAddedDuringItsSyncIsSyncedAgainAfterwards) {
  answers_["k"] = {seconds(10)};
  during_sync_ = [this](const std::string& key) {
    if (key != "k" || synced_.size() > 1) return;
    EXPECT_EQ(queue_.Len(), 0u);
    queue_.AddAt("k", events_.Now() + seconds(2));  // earlier than sync's own answer
    queue_.AddAt("other", events_.Now() + seconds(1));
    EXPECT_EQ(queue_.Len(), 1u);  // "other" only: "k" is in progress
  };
  queue_.Start();
  queue_.Add("k");
  events_.RunUntil(t0_ + seconds(20));
  EXPECT_EQ(synced_, (std::vector<std::string>{"k@0", "other@1", "k@2"}));
}

TEST_F(WorkQueueOnEventQueueTest, NothingIsSyncedWhileNotReadyAndItLooksAgainEveryPoll) {
  ready_ = false;
  queue_.Start();
  queue_.Add("a");
  events_.RunUntil(t0_ + milliseconds(3500));
  EXPECT_TRUE(synced_.empty());
  EXPECT_EQ(queue_.Len(), 1u);
  ready_ = true;
  events_.RunUntil(t0_ + seconds(10));
  // Seen at the next poll after it became ready (poll is 1 s here).
  EXPECT_EQ(synced_, (std::vector<std::string>{"a@4"}));
  EXPECT_TRUE(events_.Empty());  // no polling once the queue is empty
}

TEST_F(WorkQueueOnEventQueueTest, StopCancelsWhatIsScheduledAndLaterAddsDoNothing) {
  queue_.Start();
  queue_.AddAt("a", t0_ + seconds(1));
  queue_.Stop();
  queue_.Add("b");
  events_.RunUntil(t0_ + seconds(5));
  EXPECT_TRUE(synced_.empty());
  EXPECT_TRUE(events_.Empty());
}

TEST_F(WorkQueueOnEventQueueTest, ReplaysTheSame) {
  auto run = [] {
    EventQueue events;
    std::vector<std::string> log;
    WorkQueue* self = nullptr;
    WorkQueue q(
        events.clock(),
        [&](const std::string& key) -> std::optional<TimePoint> {
          log.push_back(key);
          if (key.size() < 3) self->Add(key + "x");
          return key.size() < 2 ? std::optional<TimePoint>(events.Now() + seconds(1))
                                : std::nullopt;
        },
        {}, seconds(1), &events);
    self = &q;
    for (const char* k : {"m", "b", "q", "a"}) q.Add(k);
    q.Start();
    events.RunUntil(events.Now() + seconds(3));
    return log;
  };
  const std::vector<std::string> first = run();
  EXPECT_GT(first.size(), 16u);
  EXPECT_EQ(first, run());
}

// Without an executor: the queue's own worker thread, on the real clock.
TEST(WorkQueueThreadTest, SyncsOnItsOwnThreadAndStopJoins) {
  RealClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> synced;
  std::atomic<bool> ready{false};
  WorkQueue q(
      clock,
      [&](const std::string& key) -> std::optional<TimePoint> {
        std::lock_guard<std::mutex> lock(mu);
        synced.push_back(key);
        cv.notify_all();
        return std::nullopt;
      },
      [&] { return ready.load(); }, milliseconds(5));
  const TimePoint now = clock.Now();
  q.AddAt("b", now);
  q.AddAt("a", now);
  q.AddAt("later", now + milliseconds(50));
  q.Start();
  std::this_thread::sleep_for(milliseconds(20));
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_TRUE(synced.empty());  // not ready
  }
  ready = true;
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, seconds(10), [&] { return synced.size() == 3; }));
  EXPECT_EQ(synced, (std::vector<std::string>{"a", "b", "later"}));
  lock.unlock();
  q.Stop();
  q.Add("after-stop");
  std::this_thread::sleep_for(milliseconds(20));
  lock.lock();
  EXPECT_EQ(synced.size(), 3u);
}

}  // namespace
}  // namespace tidepool::controllers
