#include "autoscaler/scale_down/go_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "common/duration.h"

namespace tidepool::autoscaler::scaledown {

std::string GoDuration(Duration d) { return FormatGoDuration(d); }

std::string GoFloat(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "+Inf" : "-Inf";
  }
  // The shortest digits that round-trip, as strconv.FormatFloat(v, 'g', -1, 64) finds them.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  std::string sign;
  if (!s.empty() && s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const size_t e = s.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') {
      digits += s[i];
    }
  }
  const int exp = std::atoi(s.c_str() + e + 1);
  const int nd = static_cast<int>(digits.size());
  if (digits == "0") {
    return sign + "0";
  }
  // %v uses %e when the exponent is < -4 or >= 6 (the shortest form's precision rule).
  if (exp < -4 || exp >= 6) {
    std::string out = sign + digits.substr(0, 1);
    if (nd > 1) {
      out += "." + digits.substr(1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + ebuf;
  }
  const int dp = exp + 1;  // digits before the decimal point
  std::string out;
  if (dp <= 0) {
    out = "0." + std::string(static_cast<size_t>(-dp), '0') + digits;
  } else if (dp >= nd) {
    out = digits + std::string(static_cast<size_t>(dp - nd), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(dp)) + "." + digits.substr(static_cast<size_t>(dp));
  }
  return sign + out;
}

std::string GoPrecision6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string GoTime(TimePoint t) {
  // time.Time.String(): "2006-01-02 15:04:05.999999999 -0700 MST", trailing zeros of the
  // fraction dropped.
  const auto since_epoch = t.time_since_epoch();
  auto secs = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const int64_t nanos = (since_epoch - secs).count();
  std::time_t tt = static_cast<std::time_t>(secs.count());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  std::string out = buf;
  if (nanos != 0) {
    char frac[16];
    std::snprintf(frac, sizeof(frac), ".%09lld", static_cast<long long>(nanos));
    std::string f = frac;
    while (f.back() == '0') {
      f.pop_back();
    }
    out += f;
  }
  return out + " +0000 UTC";
}

}  // namespace tidepool::autoscaler::scaledown
