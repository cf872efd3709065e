// File: cron_schedule_test.cc
//
// CronSchedule against robfig/cron v3's ParseStandard texts and Next() answers.
#include "api/cron_schedule.h"

#include <gtest/gtest.h>

#include <string>

namespace tidepool::api {
namespace {

TimePoint At(const std::string& rfc3339) { return ParseRfc3339(rfc3339).value(); }

TEST(CronScheduleTest, ParseErrorsAreRobfigTexts) {
  struct Case {
    const char* spec;
    const char* error;
  };
  const Case cases[] = {
      {"", "empty spec string"},
      {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
      {"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
      {"60 * * * *", "end of range (60) above maximum (59): 60"},
      {"* 24 * * *", "end of range (24) above maximum (23): 24"},
      {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
      {"* * * 13 *", "end of range (13) above maximum (12): 13"},
      {"* * * * 7", "end of range (7) above maximum (6): 7"},
      {"5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"},
      {"*/0 * * * *", "step of range should be a positive number: */0"},
      {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
      {"*/2/3 * * * *", "too many slashes: */2/3"},
      {"x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"* * * foo *",
       "failed to parse int from foo: strconv.Atoi: parsing \"foo\": invalid syntax"},
      {"@often", "unrecognized descriptor: @often"},
      {"@every 5 minutes",
       "failed to parse duration @every 5 minutes: time: unknown unit \" minutes\" in duration "
       "\"5 minutes\""},
      {"TZ=Mars/Base * * * * *", "provided bad location Mars/Base: unknown time zone Mars/Base"},
  };
  for (const Case& c : cases) {
    auto s = CronSchedule::Parse(c.spec);
    ASSERT_FALSE(s.ok()) << c.spec;
    EXPECT_EQ(s.status().message(), c.error) << c.spec;
  }
}

TEST(CronScheduleTest, NextActivations) {
  struct Case {
    const char* spec;
    const char* after;
    const char* next;  // "" for none within five years
  };
  const Case cases[] = {
      {"* * * * *", "2026-12-03T10:00:00Z", "2026-12-03T10:01:00Z"},
      {"* * * * *", "2026-12-03T10:00:30.5Z", "2026-12-03T10:01:00Z"},
      {"*/5 * * * *", "2026-12-03T10:03:00Z", "2026-12-03T10:05:00Z"},
      {"7/20 * * * *", "2026-12-03T10:08:00Z", "2026-12-03T10:27:00Z"},
      {"0 9 * * mon-fri", "2026-12-04T09:00:00Z", "2026-12-07T09:00:00Z"},  // Fri -> Mon
      {"30 6-16/4 * * 1-5", "2026-12-03T11:00:00Z", "2026-12-03T14:30:00Z"},
      {"0 0 1 jan *", "2026-12-03T00:00:00Z", "2027-01-01T00:00:00Z"},
      {"0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},
      // Day-of-month and day-of-week both restricted: either matches.
      {"0 0 13 * 5", "2026-12-03T00:00:00Z", "2026-12-04T00:00:00Z"},
      {"0 0 13 * ?", "2026-12-03T00:00:00Z", "2026-12-13T00:00:00Z"},
      {"59 23 31 2 *", "2026-12-03T00:00:00Z", ""},
      {"@hourly", "2026-12-03T10:59:59Z", "2026-12-03T11:00:00Z"},
      {"@daily", "2026-12-03T10:00:00Z", "2026-12-04T00:00:00Z"},
      {"@weekly", "2026-12-03T10:00:00Z", "2026-12-06T00:00:00Z"},
      {"@monthly", "2026-12-03T10:00:00Z", "2027-01-01T00:00:00Z"},
      {"@yearly", "2026-12-03T10:00:00Z", "2027-01-01T00:00:00Z"},
      {"@every 90s", "2026-12-03T10:00:00.7Z", "2026-12-03T10:01:30Z"},
      {"@every 100ms", "2026-12-03T10:00:00Z", "2026-12-03T10:00:01Z"},
      // In a zone: 09:00 New York is 14:00 UTC in winter, 13:00 in summer.
      {"TZ=America/New_York 0 9 * * *", "2026-12-03T15:00:00Z", "2026-12-04T14:00:00Z"},
      {"CRON_TZ=America/New_York 0 9 * * *", "2026-07-03T14:00:00Z", "2026-07-04T13:00:00Z"},
      // The spring-forward day has no 02:30: robfig steps hours in absolute time (01:00 EST + 1 h
      // is 03:00 EDT) and so skips that day.
      {"TZ=America/New_York 30 2 * * *", "2026-03-07T12:00:00Z", "2026-03-09T06:30:00Z"},
  };
  for (const Case& c : cases) {
    auto s = CronSchedule::Parse(c.spec);
    ASSERT_TRUE(s.ok()) << c.spec << ": " << s.status().ToString();
    const std::optional<TimePoint> next = s->Next(At(c.after));
    if (std::string(c.next).empty()) {
      EXPECT_FALSE(next.has_value()) << c.spec;
    } else {
      ASSERT_TRUE(next.has_value()) << c.spec;
      EXPECT_EQ(FormatRfc3339(*next), c.next) << c.spec << " after " << c.after;
    }
  }
}

TEST(CronScheduleTest, TimeZones) {
  EXPECT_EQ(LoadTimeZone("").value().name, "UTC");
  EXPECT_EQ(LoadTimeZone("UTC").value().impl, nullptr);
  auto tokyo = LoadTimeZone("Asia/Tokyo");
  ASSERT_TRUE(tokyo.ok()) << tokyo.status().ToString();
  EXPECT_EQ(FormatRfc3339In(At("2026-12-03T00:00:00Z"), *tokyo), "2026-12-03T09:00:00+09:00");
  EXPECT_EQ(FormatRfc3339In(At("2026-12-03T00:00:00Z"), LoadTimeZone("").value()),
            "2026-12-03T00:00:00Z");
  auto bad = LoadTimeZone("Not/AZone");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown time zone Not/AZone");
}

}  // namespace
}  // namespace tidepool::api
