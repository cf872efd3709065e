#include "common/duration.h"

#include <cstdint>
#include <cstdio>

namespace tidepool {
namespace {

__extension__ typedef __int128 Int128;  // NOLINT: GCC/Clang builtin

Status Invalid(std::string_view s) {
  return InvalidArgumentError("time: invalid duration \"" + std::string(s) + "\"");
}

// Go's fmtFrac/fmtInt on a decimal string: v with `prec` fractional digits, trailing zeros and
// a trailing '.' dropped.
std::string FormatFrac(uint64_t v, int prec) {
  std::string frac;
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const int digit = static_cast<int>(v % 10);
    print = print || digit != 0;
    if (print) {
      frac.insert(frac.begin(), static_cast<char>('0' + digit));
    }
    v /= 10;
  }
  std::string out = std::to_string(v);
  if (print) {
    out += "." + frac;
  }
  return out;
}

}  // namespace

StatusOr<Duration> ParseGoDuration(std::string_view orig) {
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    return Duration::zero();
  }
  if (s.empty()) {
    return Invalid(orig);
  }
  // Exact: nanoseconds in 128 bits; fraction digits beyond 18 are ignored.
  Int128 total = 0;
  while (!s.empty()) {
    // The number: [0-9]*(\.[0-9]*)?
    Int128 whole = 0;
    size_t i = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      whole = whole * 10 + (s[i] - '0');
      if (whole > (static_cast<Int128>(1) << 80)) {
        return Invalid(orig);
      }
      ++i;
      digits = true;
    }
    Int128 frac = 0;
    Int128 scale = 1;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (scale < static_cast<Int128>(1000000000000000000LL)) {
          frac = frac * 10 + (s[i] - '0');
          scale *= 10;
        }
        ++i;
        digits = true;
      }
    }
    if (!digits) {
      return Invalid(orig);
    }
    s.remove_prefix(i);
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && (s[u] < '0' || s[u] > '9')) {
      ++u;
    }
    if (u == 0) {
      return InvalidArgumentError("time: missing unit in duration \"" + std::string(orig) + "\"");
    }
    const std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    int64_t mult = 0;
    if (unit == "ns") {
      mult = 1;
    } else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") {
      mult = 1000;
    } else if (unit == "ms") {
      mult = 1000000;
    } else if (unit == "s") {
      mult = 1000000000;
    } else if (unit == "m") {
      mult = 60LL * 1000000000;
    } else if (unit == "h") {
      mult = 3600LL * 1000000000;
    } else {
      return InvalidArgumentError("time: unknown unit \"" + std::string(unit) +
                                  "\" in duration \"" + std::string(orig) + "\"");
    }
    total += whole * mult + (frac * mult) / scale;
    if (total > static_cast<Int128>(INT64_MAX)) {
      return InvalidArgumentError("time: invalid duration \"" + std::string(orig) + "\"");
    }
  }
  const int64_t n = static_cast<int64_t>(total);
  return Duration(neg ? -n : n);
}

std::string FormatGoDuration(Duration d) {
  int64_t n = d.count();
  if (n == 0) {
    return "0s";
  }
  const bool neg = n < 0;
  uint64_t u = neg ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  std::string out;
  if (u < 1000000000ULL) {
    // Sub-second: ns, µs or ms with a fraction.
    if (u < 1000ULL) {
      out = std::to_string(u) + "ns";
    } else if (u < 1000000ULL) {
      out = FormatFrac(u, 3) + "\xc2\xb5s";
    } else {
      out = FormatFrac(u, 6) + "ms";
    }
  } else {
    const uint64_t secs_frac = u % 1000000000ULL;
    uint64_t secs = u / 1000000000ULL;
    std::string s = FormatFrac(secs % 60 * 1000000000ULL + secs_frac, 9) + "s";
    secs /= 60;
    if (secs > 0) {
      const uint64_t minutes = secs % 60;
      const uint64_t hours = secs / 60;
      s = std::to_string(minutes) + "m" + s;
      if (hours > 0) {
        s = std::to_string(hours) + "h" + s;
      }
    }
    out = s;
  }
  return neg ? "-" + out : out;
}

std::string HumanDuration(Duration d) {
  const int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (seconds < -1) {
    return "<invalid>";
  }
  if (seconds < 0) {
    return "0s";
  }
  if (seconds < 60 * 2) {
    return std::to_string(seconds) + "s";
  }
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m"
                  : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) {
    return std::to_string(minutes) + "m";
  }
  const int64_t hours = seconds / 3600;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h"
                  : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) {
    return std::to_string(hours) + "h";
  }
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d"
                  : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) {
    return std::to_string(hours / 24) + "d";
  }
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                   : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string FormatElapsed(Duration d) {
  int64_t s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  const bool neg = s < 0;
  if (neg) {
    s = -s;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%s%02lld:%02lld:%02lld", neg ? "-" : "",
                static_cast<long long>(s / 3600), static_cast<long long>(s / 60 % 60),
                static_cast<long long>(s % 60));
  return buf;
}

}  // namespace tidepool
