#include "common/duration.h"

#include <gtest/gtest.h>

namespace tidepool {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(DurationTest, ParsesGoDurations) {
  struct Case {
    const char* in;
    Duration want;
  };
  for (const Case& c : std::vector<Case>{
           {"0", Duration::zero()},
           {"10s", seconds(10)},
           {"1m30s", seconds(90)},
           {"2h45m", minutes(165)},
           {"1.5h", minutes(90)},
           {"300ms", milliseconds(300)},
           {"-1m", -minutes(1)},
           {"+5s", seconds(5)},
           {"1h0m0s", hours(1)},
           {"10us", std::chrono::microseconds(10)},
           {".5s", milliseconds(500)},
       }) {
    SCOPED_TRACE(c.in);
    auto d = ParseGoDuration(c.in);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(*d, c.want);
  }
}

TEST(DurationTest, RefusesWhatGoRefuses) {
  EXPECT_EQ(ParseGoDuration("10").status().message(), "time: missing unit in duration \"10\"");
  EXPECT_EQ(ParseGoDuration("5 minutes").status().message(),
            "time: unknown unit \" minutes\" in duration \"5 minutes\"");
  EXPECT_EQ(ParseGoDuration("").status().message(), "time: invalid duration \"\"");
  EXPECT_EQ(ParseGoDuration("s").status().message(), "time: invalid duration \"s\"");
  EXPECT_FALSE(ParseGoDuration("10d").ok());
}

TEST(DurationTest, FormatsLikeGo) {
  EXPECT_EQ(FormatGoDuration(Duration::zero()), "0s");
  EXPECT_EQ(FormatGoDuration(seconds(4)), "4s");
  EXPECT_EQ(FormatGoDuration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatGoDuration(seconds(200)), "3m20s");
  EXPECT_EQ(FormatGoDuration(hours(1)), "1h0m0s");
  EXPECT_EQ(FormatGoDuration(milliseconds(100)), "100ms");
  EXPECT_EQ(FormatGoDuration(-minutes(35)), "-35m0s");
}

TEST(DurationTest, HumanDurationIsKubectlsAge) {
  EXPECT_EQ(HumanDuration(seconds(45)), "45s");
  EXPECT_EQ(HumanDuration(seconds(119)), "119s");
  EXPECT_EQ(HumanDuration(seconds(150)), "2m30s");
  EXPECT_EQ(HumanDuration(minutes(5)), "5m");
  EXPECT_EQ(HumanDuration(minutes(59)), "59m");
  EXPECT_EQ(HumanDuration(minutes(303)), "5h3m");
  EXPECT_EQ(HumanDuration(hours(30)), "30h");
  EXPECT_EQ(HumanDuration(hours(72)), "3d");
  EXPECT_EQ(HumanDuration(-seconds(1)), "0s");
}

TEST(DurationTest, ElapsedStamp) {
  EXPECT_EQ(FormatElapsed(Duration::zero()), "00:00:00");
  EXPECT_EQ(FormatElapsed(seconds(201)), "00:03:21");
  EXPECT_EQ(FormatElapsed(hours(101) + seconds(1)), "101:00:01");
  EXPECT_EQ(FormatElapsed(milliseconds(1999)), "00:00:01");
}

}  // namespace
}  // namespace tidepool
