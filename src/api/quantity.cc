// File: quantity.cc
//
// resource.Quantity. Parsing, rounding and printing follow apimachinery's quantity.go
// (parseQuantityString, ParseQuantity, CanonicalizeBytes), suffix.go (interpret,
// constructBytes), amount.go and math.go (AsCanonicalBytes, AsCanonicalBase1024Bytes,
// removeInt64Factors / removeBigIntFactors, AsScaledInt64). See quantity.h for the contract and
// the few deliberate deviations.
//
// Parsing works on decimal digit strings: the number's digits are shifted to nano-units,
// rounded, capped and only then turned into an integer, so a long input never costs more than
// a linear pass plus one conversion of at most ~1000 digits.
#include "api/quantity.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace tidepool::api {
namespace quantity_internal {
namespace {

using Limbs = std::vector<uint32_t>;  // little-endian base-2^32 magnitude

constexpr Int128 kInt128Max = static_cast<Int128>(~static_cast<UInt128>(0) >> 1);
constexpr Int128 kInt128Min = -kInt128Max - 1;
constexpr uint32_t kBillion = 1000000000;

void TrimLimbs(Limbs* m) {
  while (!m->empty() && m->back() == 0) {
    m->pop_back();
  }
}

Limbs LimbsFromUInt128(UInt128 v) {
  Limbs m;
  while (v != 0) {
    m.push_back(static_cast<uint32_t>(v));
    v >>= 32;
  }
  return m;
}

// Sets *out and returns true if `m` < 2^127.
bool LimbsToUInt127(const Limbs& m, UInt128* out) {
  if (m.size() > 4) {
    return false;
  }
  UInt128 v = 0;
  for (size_t i = m.size(); i-- > 0;) {
    v = (v << 32) | m[i];
  }
  if (v > static_cast<UInt128>(kInt128Max)) {
    return false;
  }
  *out = v;
  return true;
}

int CompareLimbs(const Limbs& a, const Limbs& b) {
  if (a.size() != b.size()) {
    return a.size() < b.size() ? -1 : 1;
  }
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) {
      return a[i] < b[i] ? -1 : 1;
    }
  }
  return 0;
}

Limbs AddLimbs(const Limbs& a, const Limbs& b) {
  const Limbs& longer = a.size() >= b.size() ? a : b;
  const Limbs& shorter = a.size() >= b.size() ? b : a;
  Limbs sum(longer.size() + 1, 0);
  uint64_t carry = 0;
  for (size_t i = 0; i < longer.size(); ++i) {
    uint64_t cur = static_cast<uint64_t>(longer[i]) + carry;
    if (i < shorter.size()) {
      cur += shorter[i];
    }
    sum[i] = static_cast<uint32_t>(cur);
    carry = cur >> 32;
  }
  sum[longer.size()] = static_cast<uint32_t>(carry);
  TrimLimbs(&sum);
  return sum;
}

// REQUIRES: a >= b.
Limbs SubLimbs(const Limbs& a, const Limbs& b) {
  Limbs diff(a.size(), 0);
  int64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t cur = static_cast<int64_t>(a[i]) - borrow - (i < b.size() ? b[i] : 0);
    borrow = cur < 0 ? 1 : 0;
    diff[i] = static_cast<uint32_t>(cur + (borrow << 32));
  }
  TrimLimbs(&diff);
  return diff;
}

// m = m * mul + add.
void MulAddLimbs(Limbs* m, uint32_t mul, uint32_t add) {
  uint64_t carry = add;
  for (uint32_t& limb : *m) {
    uint64_t cur = static_cast<uint64_t>(limb) * mul + carry;
    limb = static_cast<uint32_t>(cur);
    carry = cur >> 32;
  }
  if (carry != 0) {
    m->push_back(static_cast<uint32_t>(carry));
  }
}

// m = m / div; returns m % div.
uint32_t DivModLimbs(Limbs* m, uint32_t div) {
  uint64_t rem = 0;
  for (size_t i = m->size(); i-- > 0;) {
    uint64_t cur = (rem << 32) | (*m)[i];
    (*m)[i] = static_cast<uint32_t>(cur / div);
    rem = cur % div;
  }
  TrimLimbs(m);
  return static_cast<uint32_t>(rem);
}

std::string UInt128ToDecimal(UInt128 v) {
  if (v == 0) {
    return "0";
  }
  std::string out;
  while (v != 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

UInt128 Magnitude(Int128 v) {
  // v is never kInt128Min (Int keeps that out of small_), so -v does not overflow.
  return v < 0 ? static_cast<UInt128>(-v) : static_cast<UInt128>(v);
}

}  // namespace

Int Int::FromDecimal(bool negative, std::string_view digits) {
  // 10^38 - 1 < 2^127 - 1: up to 38 digits always fit inline.
  if (digits.size() <= 38) {
    UInt128 v = 0;
    for (char c : digits) {
      v = v * 10 + static_cast<UInt128>(c - '0');
    }
    Int128 value = static_cast<Int128>(v);
    return Int(negative ? -value : value);
  }
  Limbs m;
  size_t chunk = digits.size() % 9;
  if (chunk == 0) {
    chunk = 9;
  }
  for (size_t i = 0; i < digits.size(); i += chunk, chunk = 9) {
    uint32_t part = 0;
    for (size_t j = i; j < i + chunk; ++j) {
      part = part * 10 + static_cast<uint32_t>(digits[j] - '0');
    }
    MulAddLimbs(&m, kBillion, part);
  }
  return FromMagnitude(negative, std::move(m));
}

Int Int::FromMagnitude(bool negative, std::vector<uint32_t> magnitude) {
  TrimLimbs(&magnitude);
  UInt128 v = 0;
  if (LimbsToUInt127(magnitude, &v)) {
    Int128 value = static_cast<Int128>(v);
    return Int(negative ? -value : value);
  }
  Int out;
  out.big_ = std::make_shared<const Big>(Big{negative, std::move(magnitude)});
  return out;
}

void Int::ToMagnitude(bool* negative, std::vector<uint32_t>* magnitude) const {
  if (big_ != nullptr) {
    *negative = big_->negative;
    *magnitude = big_->magnitude;
    return;
  }
  *negative = small_ < 0;
  *magnitude = LimbsFromUInt128(Magnitude(small_));
}

int Int::Sign() const {
  if (big_ != nullptr) {
    return big_->negative ? -1 : 1;
  }
  return (small_ > 0) - (small_ < 0);
}

std::string Int::MagnitudeDecimal() const {
  if (big_ == nullptr) {
    return UInt128ToDecimal(Magnitude(small_));
  }
  Limbs m = big_->magnitude;
  std::vector<uint32_t> chunks;  // base-10^9 digits, least significant first
  while (!m.empty()) {
    chunks.push_back(DivModLimbs(&m, kBillion));
  }
  std::string out = std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::string part = std::to_string(chunks[i]);
    out.append(9 - part.size(), '0');
    out += part;
  }
  return out;
}

Int Int::Negated() const {
  if (big_ == nullptr) {
    return Int(-small_);
  }
  Int out;
  out.big_ = std::make_shared<const Big>(Big{!big_->negative, big_->magnitude});
  return out;
}

Int Int::Add(const Int& a, const Int& b) {
  if (a.big_ == nullptr && b.big_ == nullptr) {
    Int128 sum = 0;
    if (!__builtin_add_overflow(a.small_, b.small_, &sum) && sum != kInt128Min) {
      return Int(sum);
    }
  }
  bool a_negative = false;
  bool b_negative = false;
  Limbs a_magnitude;
  Limbs b_magnitude;
  a.ToMagnitude(&a_negative, &a_magnitude);
  b.ToMagnitude(&b_negative, &b_magnitude);
  if (a_negative == b_negative) {
    return FromMagnitude(a_negative, AddLimbs(a_magnitude, b_magnitude));
  }
  int cmp = CompareLimbs(a_magnitude, b_magnitude);
  if (cmp == 0) {
    return Int();
  }
  if (cmp > 0) {
    return FromMagnitude(a_negative, SubLimbs(a_magnitude, b_magnitude));
  }
  return FromMagnitude(b_negative, SubLimbs(b_magnitude, a_magnitude));
}

int Int::Compare(const Int& a, const Int& b) {
  if (a.big_ == nullptr && b.big_ == nullptr) {
    return (a.small_ > b.small_) - (a.small_ < b.small_);
  }
  int a_sign = a.Sign();
  int b_sign = b.Sign();
  if (a_sign != b_sign) {
    return a_sign < b_sign ? -1 : 1;
  }
  // Same sign and at least one is big, hence both are non-zero.
  bool negative = false;
  Limbs a_magnitude;
  Limbs b_magnitude;
  a.ToMagnitude(&negative, &a_magnitude);
  b.ToMagnitude(&negative, &b_magnitude);
  int cmp = CompareLimbs(a_magnitude, b_magnitude);
  return a_sign > 0 ? cmp : -cmp;
}

}  // namespace quantity_internal

namespace {

using quantity_internal::Int;
using quantity_internal::Int128;

constexpr int kNanoDigits = 9;  // values are kept in units of 10^-9 (apimachinery's Nano)
// Parse rejects |value| >= 10^kMaxIntegerDigits (tidepool's bound; see quantity.h).
constexpr Int128 kMaxIntegerDigits = 1000;
// 2^63-1 (apimachinery's maxAllowed, the BinarySI cap) in nano-units.
constexpr std::string_view kMaxBinaryNanos = "9223372036854775807000000000";
// 1024 in nano-units (CanonicalizeBytes prints BinarySI values in (-1024, 1024) as DecimalSI).
constexpr std::string_view k1024Nanos = "1024000000000";

Status FormatWrongError() { return InvalidArgumentError(kQuantityFormatWrongMessage); }
Status NumericError() { return InvalidArgumentError(kQuantityNumericMessage); }
Status SuffixError() { return InvalidArgumentError(kQuantitySuffixMessage); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The suffix letters parseQuantityString accepts before an optional sign and digits.
bool IsSuffixLetter(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

struct Suffix {
  int base = 10;         // 10 or 2
  int64_t exponent = 0;  // the power of `base`
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

struct SuffixEntry {
  std::string_view text;
  int exponent;
};

// suffix.go's decSuffixes (base 10) and binSuffixes (base 2), ordered by exponent: ToString
// indexes kDecimalSuffixes by (exponent + 9) / 3 and kBinarySuffixes by exponent / 10 - 1.
constexpr SuffixEntry kDecimalSuffixes[] = {
    {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
    {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18},
};
static_assert(kDecimalSuffixes[0].exponent == -9 && kDecimalSuffixes[9].exponent == 18);
constexpr SuffixEntry kBinarySuffixes[] = {
    {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60},
};

// strconv.ParseInt(s, 10, 64): an optional sign then at least one digit, within int64.
bool ParseInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) {
    return false;
  }
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
  uint64_t magnitude = 0;
  for (char c : s) {
    if (!IsDigit(c)) {
      return false;
    }
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) {
      return false;
    }
    magnitude = magnitude * 10 + digit;
  }
  // Two's complement: negating the magnitude as uint64 is exact for the full int64 range.
  *out = negative ? static_cast<int64_t>(~magnitude + 1) : static_cast<int64_t>(magnitude);
  return true;
}

// suffixHandler.interpret: the decimal and binary tables, then "e"/"E" followed by an int64.
// Deviation: apimachinery truncates that int64 to int32; the exponent is kept whole here and
// Parse bounds the resulting magnitude instead.
bool InterpretSuffix(std::string_view s, Suffix* out) {
  for (const SuffixEntry& e : kDecimalSuffixes) {
    if (s == e.text) {
      *out = Suffix{10, e.exponent, QuantityFormat::kDecimalSI};
      return true;
    }
  }
  for (const SuffixEntry& e : kBinarySuffixes) {
    if (s == e.text) {
      *out = Suffix{2, e.exponent, QuantityFormat::kBinarySI};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int64_t exponent = 0;
    if (!ParseInt64(s.substr(1), &exponent)) {
      return false;
    }
    *out = Suffix{10, exponent, QuantityFormat::kDecimalExponent};
    return true;
  }
  return false;
}

// --- Decimal digit strings: non-empty, no leading zeros unless the value is "0". ---

void StripLeadingZeros(std::string* digits) {
  size_t first = digits->find_first_not_of('0');
  if (first == std::string::npos) {
    *digits = "0";
  } else {
    digits->erase(0, first);
  }
}

int CompareDecimal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return a.size() < b.size() ? -1 : 1;
  }
  int cmp = a.compare(b);
  return (cmp > 0) - (cmp < 0);
}

// *digits *= factor, for factor <= 2^30.
void MultiplyDecimal(std::string* digits, uint32_t factor) {
  uint64_t carry = 0;
  for (size_t i = digits->size(); i-- > 0;) {
    uint64_t cur = static_cast<uint64_t>((*digits)[i] - '0') * factor + carry;
    (*digits)[i] = static_cast<char>('0' + cur % 10);
    carry = cur / 10;
  }
  std::string head;
  while (carry != 0) {
    head.push_back(static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  std::reverse(head.begin(), head.end());
  digits->insert(0, head);
}

// *digits += 1.
void IncrementDecimal(std::string* digits) {
  for (size_t i = digits->size(); i-- > 0;) {
    if ((*digits)[i] != '9') {
      ++(*digits)[i];
      return;
    }
    (*digits)[i] = '0';
  }
  digits->insert(digits->begin(), '1');
}

// *quotient = digits / divisor; returns digits % divisor.
uint32_t DivModDecimal(std::string_view digits, uint32_t divisor, std::string* quotient) {
  quotient->clear();
  uint64_t rem = 0;
  for (char c : digits) {
    rem = rem * 10 + static_cast<uint64_t>(c - '0');
    quotient->push_back(static_cast<char>('0' + rem / divisor));
    rem %= divisor;
  }
  StripLeadingZeros(quotient);
  return static_cast<uint32_t>(rem);
}

// Quantity.ScaledValue for a positive power of ten `divisor` (in nano-units): rounded away
// from zero like int64Amount.AsScaledInt64. Deviation: saturates at the int64 range where
// apimachinery's result overflows.
int64_t ScaledValue(const Int& nanos, int64_t divisor) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (!nanos.IsSmall()) {
    return nanos.Sign() > 0 ? kMax : kMin;  // |value| >= 2^127 * 10^-9: beyond int64 anyway
  }
  Int128 n = nanos.small();
  Int128 q = n / divisor;
  if (n % divisor != 0) {
    q += n > 0 ? 1 : -1;
  }
  if (q > kMax) {
    return kMax;
  }
  if (q < kMin) {
    return kMin;
  }
  return static_cast<int64_t>(q);
}

}  // namespace

StatusOr<Quantity> Quantity::Parse(std::string_view str) {
  // ParseQuantity: the empty string is ErrFormatWrong.
  if (str.empty()) {
    return FormatWrongError();
  }

  // parseQuantityString: sign, leading zeros, integer digits, optional "." and fraction
  // digits, then suffix letters, one optional sign and digits. Anything left is
  // ErrFormatWrong. Like apimachinery, no digit at all is allowed ("Ki", ".", "-" are zero).
  const size_t end = str.size();
  size_t pos = 0;
  bool negative = false;
  if (str[0] == '-' || str[0] == '+') {
    negative = str[0] == '-';
    ++pos;
  }
  const size_t number_start = pos;
  while (pos < end && str[pos] == '0') {
    ++pos;
  }
  if (pos == end) {
    return Quantity();  // only a sign and zeros: "0", "-", "+000"
  }
  const size_t int_start = pos;
  while (pos < end && IsDigit(str[pos])) {
    ++pos;
  }
  std::string_view int_digits = str.substr(int_start, pos - int_start);
  std::string_view frac_digits;
  if (pos < end && str[pos] == '.') {
    ++pos;
    const size_t frac_start = pos;
    while (pos < end && IsDigit(str[pos])) {
      ++pos;
    }
    frac_digits = str.substr(frac_start, pos - frac_start);
  }
  const bool has_digit = int_start > number_start || !int_digits.empty() || !frac_digits.empty();
  const size_t suffix_start = pos;
  while (pos < end && IsSuffixLetter(str[pos])) {
    ++pos;
  }
  if (pos < end && (str[pos] == '+' || str[pos] == '-')) {
    ++pos;
  }
  while (pos < end && IsDigit(str[pos])) {
    ++pos;
  }
  if (pos != end) {
    return FormatWrongError();
  }

  Suffix suffix;
  if (!InterpretSuffix(str.substr(suffix_start), &suffix)) {
    return SuffixError();
  }
  const bool decimal = suffix.base == 10;

  // The value is digits * 10^scale (times 2^exponent for a binary suffix).
  Int128 scale = -static_cast<Int128>(frac_digits.size());
  if (decimal) {
    scale += suffix.exponent;
  }
  // ParseQuantity's int64 fast path takes every decimal number whose scale is at least nano;
  // the rest goes to inf.Dec.SetString, which rejects a number without digits ("e-10", ".e-10")
  // with ErrNumeric.
  if (decimal && !has_digit && scale < -kNanoDigits) {
    return NumericError();
  }

  std::string digits(int_digits);
  digits += frac_digits;
  StripLeadingZeros(&digits);
  if (digits == "0") {
    // Zero keeps the suffix's format and is never rounded ("0Ki" is a BinarySI zero).
    return Quantity(Int(), suffix.format);
  }
  if (!decimal) {
    // Multiply by 2^exponent exactly (ParseQuantity's big.Int path).
    for (int64_t left = suffix.exponent; left > 0; left -= 30) {
      MultiplyDecimal(&digits, uint32_t{1} << std::min<int64_t>(left, 30));
    }
  }

  // Shift to nano-units. Finer digits round the magnitude away from zero (inf.RoundUp at
  // Nano): "if you want some resources, you should get some resources".
  const Int128 shift = scale + kNanoDigits;
  std::string nanos;
  if (shift >= 0) {
    if (decimal && static_cast<Int128>(digits.size()) + shift > kMaxIntegerDigits + kNanoDigits) {
      return NumericError();  // Deviation: tidepool's magnitude bound; see quantity.h
    }
    nanos = digits;
    nanos.append(static_cast<size_t>(shift), '0');
  } else {
    const Int128 keep = static_cast<Int128>(digits.size()) + shift;
    bool dropped_non_zero = true;  // keep <= 0 drops every digit, and digits is non-zero
    if (keep > 0) {
      nanos = digits.substr(0, static_cast<size_t>(keep));
      dropped_non_zero =
          digits.find_first_not_of('0', static_cast<size_t>(keep)) != std::string::npos;
    } else {
      nanos = "0";
    }
    if (dropped_non_zero) {
      IncrementDecimal(&nanos);
    }
    if (decimal && static_cast<Int128>(nanos.size()) > kMaxIntegerDigits + kNanoDigits) {
      return NumericError();
    }
  }

  QuantityFormat format = suffix.format;
  if (!decimal) {
    // ParseQuantity caps a BinarySI magnitude at 2^63-1 ...
    if (CompareDecimal(nanos, kMaxBinaryNanos) > 0) {
      nanos = std::string(kMaxBinaryNanos);
    }
    // ... and turns a BinarySI value in (0, 1) into DecimalSI.
    if (nanos.size() <= static_cast<size_t>(kNanoDigits)) {
      format = QuantityFormat::kDecimalSI;
    }
  }
  return Quantity(Int::FromDecimal(negative, nanos), format);
}

Quantity Quantity::FromInt(int64_t value, QuantityFormat format) {
  return Quantity(Int(static_cast<Int128>(value) * 1000000000), format);
}

Quantity Quantity::FromMilli(int64_t milli, QuantityFormat format) {
  return Quantity(Int(static_cast<Int128>(milli) * 1000000), format);
}

int64_t Quantity::Value() const { return ScaledValue(nanos_, 1000000000); }

int64_t Quantity::MilliValue() const { return ScaledValue(nanos_, 1000000); }

std::string Quantity::ToString() const {
  // CanonicalizeBytes: zero is "0" whatever the format.
  const int sign = Sign();
  if (sign == 0) {
    return "0";
  }
  const std::string digits = nanos_.MagnitudeDecimal();  // |value| * 10^9
  std::string out = sign < 0 ? "-" : "";

  QuantityFormat format = format_;
  if (format == QuantityFormat::kBinarySI) {
    // A BinarySI value in (-1024, 1024), or one that is not a whole number, prints as
    // DecimalSI ("This avoids rounding", "Don't lose precision").
    if (CompareDecimal(digits, k1024Nanos) < 0 ||
        digits.compare(digits.size() - kNanoDigits, kNanoDigits, "000000000") != 0) {
      format = QuantityFormat::kDecimalSI;
    }
  }

  if (format == QuantityFormat::kBinarySI) {
    // AsCanonicalBase1024Bytes: divide out factors of 1024 and name the power with
    // Ki..Ei. Deviation: stops at Ei where apimachinery would print no suffix.
    std::string units = digits.substr(0, digits.size() - kNanoDigits);
    size_t power = 0;
    std::string quotient;
    while (power < std::size(kBinarySuffixes) && DivModDecimal(units, 1024, &quotient) == 0) {
      units.swap(quotient);
      ++power;
    }
    out += units;
    if (power > 0) {
      out += kBinarySuffixes[power - 1].text;
    }
    return out;
  }

  // AsCanonicalBytes: move factors of ten into the exponent, then lower the exponent to a
  // multiple of three (multiplying the mantissa by 10 or 100) so no fraction digits remain.
  const size_t last_non_zero = digits.find_last_not_of('0');
  std::string mantissa = digits.substr(0, last_non_zero + 1);
  int64_t exponent = static_cast<int64_t>(digits.size() - mantissa.size()) - kNanoDigits;
  const int64_t excess = ((exponent % 3) + 3) % 3;
  mantissa.append(static_cast<size_t>(excess), '0');
  exponent -= excess;
  out += mantissa;

  // constructBytes: DecimalSI names exponents -9..18 (n, u, m, "", k, M, G, T, P, E). Above
  // "E" apimachinery falls back to exponent notation ("1000E" prints as "1e21").
  // DecimalExponent prints "e<exponent>", nothing for 0.
  if (format == QuantityFormat::kDecimalSI && exponent >= -9 && exponent <= 18) {
    out += kDecimalSuffixes[static_cast<size_t>((exponent + 9) / 3)].text;
  } else if (exponent != 0) {
    out += "e" + std::to_string(exponent);
  }
  return out;
}

int Quantity::Compare(const Quantity& other) const { return Int::Compare(nanos_, other.nanos_); }

void Quantity::Add(const Quantity& other) {
  if (IsZero()) {
    format_ = other.format_;
  }
  nanos_ = Int::Add(nanos_, other.nanos_);
}

void Quantity::Sub(const Quantity& other) {
  if (IsZero()) {
    format_ = other.format_;
  }
  nanos_ = Int::Add(nanos_, other.nanos_.Negated());
}

std::ostream& operator<<(std::ostream& os, const Quantity& q) { return os << q.ToString(); }

}  // namespace tidepool::api
