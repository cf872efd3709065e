#include "runtime/event_spam_filter.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace tidepool::runtime {
namespace {

using std::chrono::seconds;

TEST(EventSpamFilterTest, ABurstOf25ThenOneTokenEvery300Seconds) {
  EventSpamFilter f;
  const TimePoint t0 = TimePoint() + std::chrono::hours(1000);
  struct Step {
    std::chrono::seconds after;  // since t0
    int events;
    int allowed;
  };
  const Step steps[] = {
      {seconds(0), 30, 25},    // the burst, then nothing
      {seconds(299), 1, 0},    // not a whole token yet
      {seconds(300), 2, 1},    // one token per 300 s
      {seconds(1500), 10, 4},  // 1,200 s more: 4 tokens
      {seconds(100000), 30, 25},  // refilled up to the burst, never beyond
  };
  for (const Step& s : steps) {
    SCOPED_TRACE(s.after.count());
    int allowed = 0;
    for (int i = 0; i < s.events; ++i) allowed += f.Allow("pod-a", t0 + s.after) ? 1 : 0;
    EXPECT_EQ(allowed, s.allowed);
  }
  // Another source or object has a bucket of its own.
  EXPECT_TRUE(f.Allow("pod-b", t0 + seconds(100000)));
}

TEST(EventSpamFilterTest, KeepsTheMostRecentlyUsedKeysOnly) {
  EventSpamFilter f;
  const TimePoint t = TimePoint() + std::chrono::hours(1);
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(f.Allow("busy", t));
  EXPECT_FALSE(f.Allow("busy", t));
  // 4,096 other keys push "busy" out: it starts again with a full bucket, as in client-go.
  for (size_t i = 0; i < EventSpamFilter::kMaxKeys; ++i) f.Allow("k" + std::to_string(i), t);
  EXPECT_EQ(f.keys(), EventSpamFilter::kMaxKeys);
  EXPECT_TRUE(f.Allow("busy", t));
  // A key in use is kept: "busy" was just used, the oldest "k" key went instead.
  EXPECT_EQ(f.keys(), EventSpamFilter::kMaxKeys);
}

}  // namespace
}  // namespace tidepool::runtime
