#include "api/cron_schedule.h"

#include <date/tz.h>

#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <vector>

#include "common/duration.h"

namespace tidepool::api {
namespace {

constexpr uint64_t kStarBit = uint64_t{1} << 63;

struct Bounds {
  unsigned min;
  unsigned max;
  const std::array<std::string_view, 13>* names;  // index = value; "" where none
};

constexpr std::array<std::string_view, 13> kMonthNames = {
    "", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 13> kDayNames = {
    "sun", "mon", "tue", "wed", "thu", "fri", "sat", "", "", "", "", "", ""};
constexpr Bounds kSeconds{0, 59, nullptr};
constexpr Bounds kMinutes{0, 59, nullptr};
constexpr Bounds kHours{0, 23, nullptr};
constexpr Bounds kDom{1, 31, nullptr};
constexpr Bounds kMonths{1, 12, &kMonthNames};
constexpr Bounds kDow{0, 6, &kDayNames};

uint64_t Bits(unsigned min, unsigned max, unsigned step) {
  uint64_t bits = 0;
  for (unsigned i = min; i <= max; i += step) bits |= uint64_t{1} << i;
  return bits;
}
uint64_t All(const Bounds& b) { return Bits(b.min, b.max, 1) | kStarBit; }

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// Go's strconv.Atoi, with mustParseInt's negative check.
StatusOr<unsigned> MustParseInt(std::string_view expr) {
  std::string_view digits = expr;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const std::string quoted = "strconv.Atoi: parsing \"" + std::string(expr) + "\": ";
  if (digits.empty() || end != digits.data() + digits.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return InvalidArgumentError("failed to parse int from " + std::string(expr) + ": " + quoted +
                                "invalid syntax");
  }
  if (ec == std::errc::result_out_of_range) {
    return InvalidArgumentError("failed to parse int from " + std::string(expr) + ": " + quoted +
                                "value out of range");
  }
  if (negative && value != 0) {
    return InvalidArgumentError("negative number (-" + std::to_string(value) +
                                ") not allowed: " + std::string(expr));
  }
  if (value > std::numeric_limits<int32_t>::max()) value = std::numeric_limits<int32_t>::max();
  return static_cast<unsigned>(value);
}

StatusOr<unsigned> ParseIntOrName(std::string_view expr, const Bounds& b) {
  if (b.names != nullptr) {
    std::string lower(expr);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (size_t i = 0; i < b.names->size(); ++i) {
      if (!(*b.names)[i].empty() && (*b.names)[i] == lower) return static_cast<unsigned>(i);
    }
  }
  return MustParseInt(expr);
}

// robfig's getRange.
StatusOr<uint64_t> GetRange(std::string_view expr, const Bounds& b) {
  const std::vector<std::string_view> range_and_step = Split(expr, '/');
  const std::vector<std::string_view> low_high = Split(range_and_step[0], '-');
  const bool single = low_high.size() == 1;
  unsigned start = 0, end = 0, step = 1;
  uint64_t extra = 0;
  if (low_high[0] == "*" || low_high[0] == "?") {
    start = b.min;
    end = b.max;
    extra = kStarBit;
  } else {
    TIDEPOOL_ASSIGN_OR_RETURN(start, ParseIntOrName(low_high[0], b));
    if (low_high.size() == 1) {
      end = start;
    } else if (low_high.size() == 2) {
      TIDEPOOL_ASSIGN_OR_RETURN(end, ParseIntOrName(low_high[1], b));
    } else {
      return InvalidArgumentError("too many hyphens: " + std::string(expr));
    }
  }
  if (range_and_step.size() == 2) {
    TIDEPOOL_ASSIGN_OR_RETURN(step, MustParseInt(range_and_step[1]));
    if (single) end = b.max;  // "N/step" is "N-max/step"
    if (step > 1) extra = 0;
  } else if (range_and_step.size() > 2) {
    return InvalidArgumentError("too many slashes: " + std::string(expr));
  }
  const std::string tail = "): " + std::string(expr);
  if (start < b.min) {
    return InvalidArgumentError("beginning of range (" + std::to_string(start) +
                                ") below minimum (" + std::to_string(b.min) + tail);
  }
  if (end > b.max) {
    return InvalidArgumentError("end of range (" + std::to_string(end) + ") above maximum (" +
                                std::to_string(b.max) + tail);
  }
  if (start > end) {
    return InvalidArgumentError("beginning of range (" + std::to_string(start) +
                                ") beyond end of range (" + std::to_string(end) + tail);
  }
  if (step == 0) {
    return InvalidArgumentError("step of range should be a positive number: " + std::string(expr));
  }
  return Bits(start, end, step) | extra;
}

StatusOr<uint64_t> GetField(std::string_view field, const Bounds& b) {
  uint64_t bits = 0;
  for (std::string_view expr : Split(field, ',')) {
    if (expr.empty()) continue;  // strings.FieldsFunc drops empty parts
    TIDEPOOL_ASSIGN_OR_RETURN(uint64_t bit, GetRange(expr, b));
    bits |= bit;
  }
  return bits;
}

std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

const date::time_zone* Zone(const TimeZone& z) {
  return static_cast<const date::time_zone*>(z.impl);
}

// Local civil time of a zone.
struct Civil {
  int64_t year;
  unsigned month, day, hour, minute, second, weekday;
};

Civil ToCivil(int64_t unix, const TimeZone& z) {
  date::sys_seconds sys{std::chrono::seconds(unix)};
  int64_t local = unix;
  if (const date::time_zone* zone = Zone(z)) local += zone->get_info(sys).offset.count();
  const date::sys_days days =
      date::floor<date::days>(date::sys_seconds{std::chrono::seconds(local)});
  const date::year_month_day ymd{days};
  const int64_t secs =
      local - std::chrono::duration_cast<std::chrono::seconds>(days.time_since_epoch()).count();
  return {static_cast<int>(ymd.year()),          static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()),      static_cast<unsigned>(secs / 3600),
          static_cast<unsigned>(secs / 60 % 60), static_cast<unsigned>(secs % 60),
          date::weekday{days}.c_encoding()};
}

// Go's time.Date(y, m, d, hh, mm, ss, 0, zone): fields normalised (month 13 is next January,
// day 32 the next month's first), the zone's offset found as Go finds it.
int64_t FromCivil(int64_t y, int64_t m, int64_t d, int64_t hh, int64_t mm, int64_t ss,
                  const TimeZone& z) {
  int64_t m0 = m - 1;
  y += m0 >= 0 ? m0 / 12 : (m0 - 11) / 12;
  m0 = ((m0 % 12) + 12) % 12;
  const date::sys_days first =
      date::year{static_cast<int>(y)} / date::month{static_cast<unsigned>(m0 + 1)} / 1;
  int64_t unix = (first.time_since_epoch().count() + d - 1) * 86400 + hh * 3600 + mm * 60 + ss;
  const date::time_zone* zone = Zone(z);
  if (zone == nullptr) return unix;
  const date::sys_info info = zone->get_info(date::sys_seconds{std::chrono::seconds(unix)});
  int64_t offset = info.offset.count();
  if (offset != 0) {
    const int64_t utc = unix - offset;
    if (utc < info.begin.time_since_epoch().count() || utc >= info.end.time_since_epoch().count()) {
      offset = zone->get_info(date::sys_seconds{std::chrono::seconds(utc)}).offset.count();
    }
    unix -= offset;
  }
  return unix;
}

int64_t FloorMod(int64_t a, int64_t b) { return ((a % b) + b) % b; }

}  // namespace

StatusOr<TimeZone> LoadTimeZone(std::string_view name) {
  TimeZone z;
  if (name.empty() || name == "UTC") return z;
  try {
    z.impl = date::locate_zone(name);
    z.name = std::string(name);
    return z;
  } catch (const std::exception&) {
    return InvalidArgumentError("unknown time zone " + std::string(name));
  }
}

std::string FormatRfc3339In(TimePoint t, const TimeZone& zone) {
  const int64_t unix = std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
  const Civil c = ToCivil(unix, zone);
  int64_t offset = 0;
  if (const date::time_zone* z = Zone(zone)) {
    offset = z->get_info(date::sys_seconds{std::chrono::seconds(unix)}).offset.count();
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02u:%02u:%02u", static_cast<long long>(c.year),
                c.month, c.day, c.hour, c.minute, c.second);
  std::string out = buf;
  if (offset == 0) return out + "Z";
  const int64_t abs = offset < 0 ? -offset : offset;
  std::snprintf(buf, sizeof(buf), "%c%02lld:%02lld", offset < 0 ? '-' : '+',
                static_cast<long long>(abs / 3600), static_cast<long long>(abs / 60 % 60));
  return out + buf;
}

StatusOr<CronSchedule> CronSchedule::Parse(std::string_view spec) {
  if (spec.empty()) return InvalidArgumentError("empty spec string");
  CronSchedule s;
  if (spec.substr(0, 3) == "TZ=" || spec.substr(0, 8) == "CRON_TZ=") {
    const size_t eq = spec.find('=');
    const size_t space = spec.find(' ');
    const std::string_view name =
        space == std::string_view::npos ? spec.substr(eq + 1) : spec.substr(eq + 1, space - eq - 1);
    auto zone = LoadTimeZone(name);
    if (!zone.ok()) {
      return InvalidArgumentError("provided bad location " + std::string(name) + ": " +
                                  std::string(zone.status().message()));
    }
    s.zone_ = *zone;
    spec = space == std::string_view::npos ? std::string_view() : TrimSpace(spec.substr(space));
  }
  if (!spec.empty() && spec[0] == '@') {
    if (spec == "@yearly" || spec == "@annually") {
      s.second_ = 1, s.minute_ = 1, s.hour_ = 1, s.dom_ = 1 << 1, s.month_ = 1 << 1;
      s.dow_ = All(kDow);
    } else if (spec == "@monthly") {
      s.second_ = 1, s.minute_ = 1, s.hour_ = 1, s.dom_ = 1 << 1;
      s.month_ = All(kMonths), s.dow_ = All(kDow);
    } else if (spec == "@weekly") {
      s.second_ = 1, s.minute_ = 1, s.hour_ = 1, s.dom_ = All(kDom), s.month_ = All(kMonths);
      s.dow_ = 1;
    } else if (spec == "@daily" || spec == "@midnight") {
      s.second_ = 1, s.minute_ = 1, s.hour_ = 1;
      s.dom_ = All(kDom), s.month_ = All(kMonths), s.dow_ = All(kDow);
    } else if (spec == "@hourly") {
      s.second_ = 1, s.minute_ = 1, s.hour_ = All(kHours);
      s.dom_ = All(kDom), s.month_ = All(kMonths), s.dow_ = All(kDow);
    } else if (spec.substr(0, 7) == "@every ") {
      auto d = ParseGoDuration(spec.substr(7));
      if (!d.ok()) {
        return InvalidArgumentError("failed to parse duration " + std::string(spec) + ": " +
                                    std::string(d.status().message()));
      }
      Duration delay = std::max<Duration>(*d, std::chrono::seconds(1));
      s.every_ = std::chrono::floor<std::chrono::seconds>(delay);
    } else {
      return InvalidArgumentError("unrecognized descriptor: " + std::string(spec));
    }
    return s;
  }
  const std::vector<std::string_view> fields = Fields(spec);
  if (fields.size() != 5) {
    std::string list = "[";
    for (size_t i = 0; i < fields.size(); ++i) list += (i > 0 ? " " : "") + std::string(fields[i]);
    return InvalidArgumentError("expected exactly 5 fields, found " +
                                std::to_string(fields.size()) + ": " + list + "]");
  }
  TIDEPOOL_ASSIGN_OR_RETURN(s.second_, GetField("0", kSeconds));
  TIDEPOOL_ASSIGN_OR_RETURN(s.minute_, GetField(fields[0], kMinutes));
  TIDEPOOL_ASSIGN_OR_RETURN(s.hour_, GetField(fields[1], kHours));
  TIDEPOOL_ASSIGN_OR_RETURN(s.dom_, GetField(fields[2], kDom));
  TIDEPOOL_ASSIGN_OR_RETURN(s.month_, GetField(fields[3], kMonths));
  TIDEPOOL_ASSIGN_OR_RETURN(s.dow_, GetField(fields[4], kDow));
  return s;
}

std::optional<TimePoint> CronSchedule::Next(TimePoint t) const {
  const auto since = t.time_since_epoch();
  const int64_t whole = std::chrono::floor<std::chrono::seconds>(since).count();
  if (every_) return TimePoint(std::chrono::seconds(whole)) + *every_;
  const TimeZone& z = zone_;
  auto bit = [](uint64_t set, unsigned v) { return (set & (uint64_t{1} << v)) != 0; };
  auto day_matches = [&](const Civil& c) {
    const bool dom = bit(dom_, c.day), dow = bit(dow_, c.weekday);
    if ((dom_ & kStarBit) != 0 || (dow_ & kStarBit) != 0) return dom && dow;
    return dom || dow;
  };
  int64_t u = whole + 1;  // the upcoming second
  bool added = false;
  const int64_t year_limit = ToCivil(u, z).year + 5;
  for (;;) {  // robfig's WRAP
    Civil c = ToCivil(u, z);
    if (c.year > year_limit) return std::nullopt;
    bool wrap = false;
    while (!bit(month_, c.month)) {
      if (!added) {
        added = true;
        u = FromCivil(c.year, c.month, 1, 0, 0, 0, z);
        c = ToCivil(u, z);
      }
      u = FromCivil(c.year, c.month + 1, c.day, c.hour, c.minute, c.second, z);
      c = ToCivil(u, z);
      if (c.month == 1) {
        wrap = true;
        break;
      }
    }
    if (wrap) continue;
    while (!day_matches(c)) {
      if (!added) {
        added = true;
        u = FromCivil(c.year, c.month, c.day, 0, 0, 0, z);
        c = ToCivil(u, z);
      }
      u = FromCivil(c.year, c.month, c.day + 1, c.hour, c.minute, c.second, z);
      c = ToCivil(u, z);
      if (c.hour != 0) {  // DST moved midnight
        u += c.hour > 12 ? int64_t{24 - c.hour} * 3600 : -int64_t{c.hour} * 3600;
        c = ToCivil(u, z);
      }
      if (c.day == 1) {
        wrap = true;
        break;
      }
    }
    if (wrap) continue;
    while (!bit(hour_, c.hour)) {
      if (!added) {
        added = true;
        u = FromCivil(c.year, c.month, c.day, c.hour, 0, 0, z);
      }
      u += 3600;
      c = ToCivil(u, z);
      if (c.hour == 0) {
        wrap = true;
        break;
      }
    }
    if (wrap) continue;
    while (!bit(minute_, c.minute)) {
      if (!added) {
        added = true;
        u -= FloorMod(u, 60);
      }
      u += 60;
      c = ToCivil(u, z);
      if (c.minute == 0) {
        wrap = true;
        break;
      }
    }
    if (wrap) continue;
    while (!bit(second_, c.second)) {
      if (!added) added = true;
      u += 1;
      c = ToCivil(u, z);
      if (c.second == 0) {
        wrap = true;
        break;
      }
    }
    if (wrap) continue;
    return TimePoint(std::chrono::seconds(u));
  }
}

}  // namespace tidepool::api
