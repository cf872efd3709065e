#include "common/clock.h"

#include <cctype>
#include <cstdio>
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

std::string FormatRfc3339Millis(TimePoint t) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(t) -
                  std::chrono::floor<std::chrono::seconds>(t);
  std::string out = FormatRfc3339(t);
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03d", static_cast<int>(ms.count()));
  out.insert(out.size() - 1, frac);
  return out;
}

namespace {

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's days_from_civil.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

StatusOr<TimePoint> ParseRfc3339(std::string_view text) {
  const std::string s(text);
  auto bad = [&] { return InvalidArgumentError("parsing time \"" + s + "\" as RFC 3339: cannot parse"); };
  int y, mo, d, h, mi, sec;
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6 ||
      consumed != 19) {
    return bad();
  }
  size_t i = 19;
  int64_t nanos = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (digits < 9) {
        nanos = nanos * 10 + (s[i] - '0');
        ++digits;
      }
      ++i;
    }
    if (digits == 0) return bad();
    while (digits < 9) {
      nanos *= 10;
      ++digits;
    }
  }
  int64_t offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
    const int oh = std::atoi(s.substr(i + 1, 2).c_str());
    const int om = std::atoi(s.substr(i + 4, 2).c_str());
    offset = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
    i += 6;
  } else {
    return bad();
  }
  if (i != s.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return bad();
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const int64_t epoch = days * 86400 + h * 3600 + mi * 60 + sec - offset;
  return TimePoint(std::chrono::seconds(epoch) + std::chrono::nanoseconds(nanos));
}

}  // namespace tidepool
