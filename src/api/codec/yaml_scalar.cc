#include "api/codec/yaml_scalar.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/base64.h"
#include "common/go_quote.h"

namespace tidepool::api::codec::yaml_scalar {
namespace {

using nlohmann::json;

constexpr std::string_view kTagStr = "tag:yaml.org,2002:str";
constexpr std::string_view kTagNull = "tag:yaml.org,2002:null";
constexpr std::string_view kTagBool = "tag:yaml.org,2002:bool";
constexpr std::string_view kTagInt = "tag:yaml.org,2002:int";
constexpr std::string_view kTagFloat = "tag:yaml.org,2002:float";
constexpr std::string_view kTagBinary = "tag:yaml.org,2002:binary";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return static_cast<char>(c | 0x20); }

// ---- go-yaml v2's resolve table (resolve.go) ----

// The plain scalars go-yaml v2 looks up before trying numbers.
std::optional<json> FromResolveMap(std::string_view s) {
  static constexpr std::array<std::string_view, 11> kTrue = {
      "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::array<std::string_view, 11> kFalse = {
      "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (std::string_view t : kTrue) {
    if (s == t) return json(true);
  }
  for (std::string_view f : kFalse) {
    if (s == f) return json(false);
  }
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return json(nullptr);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    return json(std::numeric_limits<double>::quiet_NaN());
  }
  for (std::string_view sign : {"", "+", "-"}) {
    if (s.substr(0, sign.size()) != sign) continue;
    const std::string_view rest = s.substr(sign.size());
    if (rest == ".inf" || rest == ".Inf" || rest == ".INF") return json(sign == "-" ? -kInf : kInf);
  }
  return std::nullopt;
}

// Go's strconv.ParseUint(s, base, 64) for base 2, 8, 10 or 16 on digits only (no sign, no
// underscores); nullopt on a bad digit, an empty string or overflow.
std::optional<uint64_t> ParseDigits(std::string_view s, int base) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// Go's strconv.ParseUint(s, 0, 64) once underscores are gone: 0b, 0o, 0x prefixes (either
// case), a leading 0 for octal, else decimal.
std::optional<uint64_t> ParseUintBase0(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s[0] != '0') return ParseDigits(s, 10);
  if (s.size() >= 3) {
    const char p = Lower(s[1]);
    if (p == 'b') return ParseDigits(s.substr(2), 2);
    if (p == 'o') return ParseDigits(s.substr(2), 8);
    if (p == 'x') return ParseDigits(s.substr(2), 16);
  }
  if (s.size() == 1) return uint64_t{0};
  return ParseDigits(s.substr(1), 8);
}

// Go's strconv.ParseInt(s, 0, 64) once underscores are gone.
std::optional<int64_t> ParseIntBase0(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  auto magnitude = ParseUintBase0(s);
  if (!magnitude) return std::nullopt;
  constexpr uint64_t kCutoff = uint64_t{1} << 63;
  if (!negative && *magnitude >= kCutoff) return std::nullopt;
  if (negative && *magnitude > kCutoff) return std::nullopt;
  if (negative) return static_cast<int64_t>(0 - *magnitude);  // two's complement, -2^63 too
  return static_cast<int64_t>(*magnitude);
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? (go-yaml's yamlStyleFloat).
bool MatchesYamlFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++int_digits;
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++frac_digits;
    if (int_digits == 0 && frac_digits == 0) return false;
  } else if (int_digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// Go's strconv.ParseFloat(s, 64) on a decimal float: the nearest double, 0 (or a denormal) on
// underflow, nullopt on overflow (Go's ErrRange).
std::optional<double> ParseDecimalFloat(std::string_view s) {
  const std::string text(s);  // NUL-terminated for strtod, which reports under- and overflow
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isinf(d)) return std::nullopt;
  return d;
}

// Go's strconv.ParseFloat on a plain scalar starting with '.': underscores only between digits.
std::optional<double> ParseDotFloat(std::string_view s) {
  std::string digits;
  char last = '!';  // '0' after a digit, '_' after an underscore, '!' after anything else
  for (char c : s) {
    if (c == '_') {
      if (last != '0') return std::nullopt;
      last = '_';
      continue;
    }
    if (last == '_' && !IsDigit(c)) return std::nullopt;
    last = IsDigit(c) ? '0' : '!';
    digits += c;
  }
  if (last == '_' || !MatchesYamlFloat(digits)) return std::nullopt;
  return ParseDecimalFloat(digits);
}

std::string WithoutUnderscores(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '_') out += c;
  }
  return out;
}

// An int64 as go-yaml returns it, or a uint64 above 2^63-1.
json IntegerJson(uint64_t magnitude, bool negative) {
  if (negative) return json(static_cast<int64_t>(0 - magnitude));
  if (magnitude <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return json(static_cast<int64_t>(magnitude));
  }
  return json(magnitude);
}

// Plain scalars starting with a digit or a sign (resolve.go's 'D' and 'S' hints).
std::optional<json> ResolveNumber(std::string_view in) {
  const std::string plain = WithoutUnderscores(in);
  if (auto i = ParseIntBase0(plain)) return json(*i);
  if (auto u = ParseUintBase0(plain)) return IntegerJson(*u, false);  // no sign: above 2^63-1
  if (MatchesYamlFloat(plain)) {
    if (auto d = ParseDecimalFloat(plain)) return json(*d);
  }
  // "0b" then a (signed) binary number; "-0b..." is ParseInt's already.
  if (plain.size() > 2 && plain[0] == '0' && plain[1] == 'b') {
    std::string_view rest = std::string_view(plain).substr(2);
    bool negative = false;
    if (rest[0] == '+' || rest[0] == '-') {
      negative = rest[0] == '-';
      rest.remove_prefix(1);
    }
    auto v = ParseDigits(rest, 2);
    if (v && (!negative || *v <= (uint64_t{1} << 63))) return IntegerJson(*v, negative);
  }
  return std::nullopt;
}

// go-yaml v2's resolve("", in): what a plain, untagged scalar is.
json ResolvePlain(std::string_view in) {
  if (auto v = FromResolveMap(in)) return *v;
  const char c = in.front();  // not empty: "" is null
  if (IsDigit(c) || c == '+' || c == '-') {
    if (auto v = ResolveNumber(in)) return *v;
  } else if (c == '.') {
    if (auto d = ParseDotFloat(in)) return json(*d);
  }
  return json(in);
}

std::string_view ShortTag(const json& resolved) {
  switch (resolved.type()) {
    case json::value_t::null:
      return "!!null";
    case json::value_t::boolean:
      return "!!bool";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "!!int";
    case json::value_t::number_float:
      return "!!float";
    default:
      return "!!str";
  }
}

StatusOr<json> ResolveTagged(std::string_view text, std::string_view tag) {
  json v = ResolvePlain(text);
  const std::string want = "!!" + std::string(tag.substr(tag.rfind(':') + 1));
  if (ShortTag(v) == want) return v;
  if (tag == kTagFloat && v.type() == json::value_t::number_integer) {  // not uint64, as in go-yaml
    return json(static_cast<double>(v.get<int64_t>()));
  }
  return InvalidArgumentError("cannot decode " + std::string(ShortTag(v)) + " `" +
                              std::string(text) + "` as a " + want);
}

// encoding/json writes each byte that is not part of valid UTF-8 as U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// !!binary: go-yaml decodes it with base64.StdEncoding (padded; line breaks are skipped).
StatusOr<json> DecodeBinary(std::string_view text) {
  std::string compact;
  for (char c : text) {
    if (c != '\r' && c != '\n') compact += c;
  }
  if (compact.size() % 4 == 0) {
    if (auto data = Base64Decode(compact); data.ok()) return json(ValidUtf8(*data));
  }
  return InvalidArgumentError("!!binary value contains invalid base64 data");
}

// ---- Go's number formatting ----

// strconv.FormatFloat(v, 'g', -1, bits) for finite v: the shortest digits that round-trip at
// that precision, %e when the exponent is below -4 or at least 6 (the shortest form's rule).
template <typename Float>
std::string GoFormatG(Float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const size_t e = s.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits += s[i];
  }
  const int exp = std::atoi(s.c_str() + e + 1);
  if (digits == "0") return sign + "0";
  const int nd = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 6) {
    std::string out = sign + digits.substr(0, 1);
    if (nd > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + ebuf;
  }
  const int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) return sign + "0." + std::string(-dp, '0') + digits;
  if (dp >= nd) return sign + digits + std::string(dp - nd, '0');
  return sign + digits.substr(0, dp) + "." + digits.substr(dp);
}

// float32(v) as Go converts it (round to nearest, to infinity beyond float32's range).
float ToFloat32(double v) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kOverflow = 0x1.ffffffp127;  // half an ulp above kMax: rounds to infinity
  if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  if (std::fabs(v) >= kOverflow) return v > 0 ? std::numeric_limits<float>::infinity()
                                                : -std::numeric_limits<float>::infinity();
  if (std::fabs(v) > kMax) return static_cast<float>(v > 0 ? kMax : -kMax);
  return static_cast<float>(v);
}

// Go's %#v of a value, as far as JSON holds it (object keys are strings by now).
std::string GoSyntax(const json& v, bool nested) {
  switch (v.type()) {
    case json::value_t::null:
      return nested ? "interface {}(nil)" : "<nil>";
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
      return std::to_string(v.get<int64_t>());
    case json::value_t::number_unsigned: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "0x%llx",
                    static_cast<unsigned long long>(v.get<uint64_t>()));
      return buf;
    }
    case json::value_t::number_float:
      return GoFormatG(v.get<double>());
    case json::value_t::string:
      return GoQuote(v.get_ref<const std::string&>());
    case json::value_t::array: {
      std::string out = "[]interface {}{";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + GoSyntax(v[i], true);
      return out + "}";
    }
    default: {
      std::string out = "map[interface {}]interface {}{";
      bool first = true;
      for (const auto& [k, e] : v.items()) {
        out += (first ? "" : ", ") + GoQuote(k) + ":" + GoSyntax(e, true);
        first = false;
      }
      return out + "}";
    }
  }
}

}  // namespace

StatusOr<json> ResolveScalar(std::string_view text, std::string_view tag, bool plain) {
  if (tag.empty()) return plain ? ResolvePlain(text) : json(text);
  if (tag == kTagStr) return json(text);
  if (tag == kTagNull || tag == kTagBool || tag == kTagInt || tag == kTagFloat) {
    return ResolveTagged(text, tag);
  }
  if (tag == kTagBinary) return DecodeBinary(text);
  return json(text);  // "!" and the other tags: the text as written
}

StatusOr<json> ToJsonValue(json resolved) {
  if (!resolved.is_number_float()) return resolved;
  const double d = resolved.get<double>();
  if (std::isnan(d)) return InvalidArgumentError("json: unsupported value: NaN");
  if (std::isinf(d)) return InvalidArgumentError(d > 0 ? "json: unsupported value: +Inf"
                                                       : "json: unsupported value: -Inf");
  // encoding/json writes |d| < 1e21 without an exponent: a whole number reads back as one.
  if (std::trunc(d) != d || std::fabs(d) >= 1e21) return resolved;
  constexpr double kTwo63 = 9223372036854775808.0;
  if (d >= -kTwo63 && d < kTwo63) return json(static_cast<int64_t>(d));
  if (d > 0 && d < 2 * kTwo63) return json(static_cast<uint64_t>(d));
  return resolved;
}

StatusOr<std::string> ToJsonKey(const json& resolved, const json& value) {
  switch (resolved.type()) {
    case json::value_t::string:
      return resolved.get<std::string>();
    case json::value_t::boolean:
      return std::string(resolved.get<bool>() ? "true" : "false");
    case json::value_t::number_integer:
      return std::to_string(resolved.get<int64_t>());
    case json::value_t::number_float: {
      const float f = ToFloat32(resolved.get<double>());
      if (std::isnan(f)) return std::string(".nan");
      if (std::isinf(f)) return std::string(f > 0 ? ".inf" : "-.inf");
      return GoFormatG(f);
    }
    case json::value_t::number_unsigned:
      return InvalidArgumentError("unsupported map key of type: uint64, key: " +
                                  GoSyntax(resolved, false) + ", value: " + GoSyntax(value, false));
    default:
      return InvalidArgumentError("unsupported map key of type: %!s(<nil>), key: <nil>, value: " +
                                  GoSyntax(value, false));
  }
}

}  // namespace tidepool::api::codec::yaml_scalar
