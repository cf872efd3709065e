// File: quantity.h
//
// Quantity is Kubernetes' resource.Quantity (k8s.io/apimachinery/pkg/api/resource): an exact
// fixed-point number written as "<signedNumber><suffix>", e.g. "100m", "1.5Gi", "1e3".
//
// Contract (apimachinery's behaviour unless a "Deviation" note below says otherwise):
//   - Parse accepts what ParseQuantity accepts and fails with InvalidArgument carrying
//     apimachinery's exact error texts (kQuantityFormatWrongMessage, kQuantityNumericMessage,
//     kQuantitySuffixMessage). Like apimachinery, a bare suffix ("Ki", "m", ".", "-") is zero.
//   - Values are exact decimals. A value with more precision than nano (10^-9) is rounded
//     away from zero to nano when parsed ("0.1n" -> "1n", "-0.1n" -> "-1n"); zero stays zero.
//   - The format (DecimalSI / BinarySI / DecimalExponent) comes from the suffix and is only a
//     printing preference: Compare, ==, < ... look at the numeric value alone.
//   - A BinarySI value is capped at 2^63-1 by Parse ("8Ei" parses as 9223372036854775807), and
//     a BinarySI value in (0, 1) is parsed as DecimalSI. Decimal values are not capped.
//   - ToString is Quantity.String(): the canonical form (largest suffix without fraction digits).
//   - Value()/MilliValue() round away from zero to a whole unit / milli-unit.
//
// Deviations (deliberate; the code marks each one):
//   - Parse rejects a magnitude >= 10^1000 (which apimachinery accepts, e.g. "1e1000") with
//     kQuantityNumericMessage, so that no input can make this process build an enormous
//     number. apimachinery accepts any exponent that fits an int64 but truncates it to int32
//     ("1e4294967296" parses as 1), and a huge exponent can make its inf.Dec code build a
//     number with billions of digits (e.g. in Add). Negative exponents of any int64 size work
//     here (a non-zero value rounds to 1n).
//   - Value()/MilliValue() saturate at INT64_MAX / INT64_MIN where apimachinery's result
//     overflows (documented there as "undefined and must not be used"); a negative
//     non-integer always rounds away from zero (apimachinery's int64 path does; its inf.Dec
//     path, used for values that were parsed slowly, does not consistently).
//   - A BinarySI value whose canonical form would need a suffix above "Ei" (>= 1024^7, only
//     reachable through Add) prints with "Ei" ("1024Ei"); apimachinery drops the suffix and
//     prints a wrong number.
//
// Quantity is a value type; copies share no mutable state, so distinct copies may be used from
// different threads.
//
// Representation: the value in nano-units (value * 10^9), an exact integer because every value
// is a multiple of 10^-9. It is held in a signed 128-bit integer (|value| < ~1.7e29) and only
// values beyond that use an arbitrary-precision magnitude.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status_or.h"

namespace tidepool::api {

// resource.Format. kDecimalExponent prints like "12e6", kBinarySI like "12Mi" (12 * 2^20),
// kDecimalSI like "12M" (12 * 10^6).
enum class QuantityFormat { kDecimalExponent, kBinarySI, kDecimalSI };

// The texts of apimachinery's ErrFormatWrong, ErrNumeric and ErrSuffix.
inline constexpr std::string_view kQuantityFormatWrongMessage =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
inline constexpr std::string_view kQuantityNumericMessage =
    "unable to parse numeric part of quantity";
inline constexpr std::string_view kQuantitySuffixMessage = "unable to parse quantity's suffix";

namespace quantity_internal {

__extension__ typedef __int128 Int128;            // NOLINT: GCC/Clang builtin
__extension__ typedef unsigned __int128 UInt128;  // NOLINT: GCC/Clang builtin

// An exact signed integer. Values in (-2^127, 2^127) are held inline; larger ones as an
// immutable, shared sign + magnitude (little-endian base-2^32 limbs), so copies stay cheap.
class Int {
 public:
  Int() = default;
  explicit Int(Int128 value) : small_(value) {}
  // `digits` is a non-empty string of decimal digits.
  static Int FromDecimal(bool negative, std::string_view digits);

  int Sign() const;
  bool IsSmall() const { return big_ == nullptr; }
  // REQUIRES: IsSmall().
  Int128 small() const { return small_; }
  // |*this| in decimal, without leading zeros ("0" for zero).
  std::string MagnitudeDecimal() const;

  Int Negated() const;
  static Int Add(const Int& a, const Int& b);
  // -1, 0 or 1.
  static int Compare(const Int& a, const Int& b);

 private:
  struct Big {
    bool negative = false;
    std::vector<uint32_t> magnitude;  // no high zero limbs; never fits in 127 bits
  };
  static Int FromMagnitude(bool negative, std::vector<uint32_t> magnitude);
  void ToMagnitude(bool* negative, std::vector<uint32_t>* magnitude) const;

  Int128 small_ = 0;
  std::shared_ptr<const Big> big_;
};

}  // namespace quantity_internal

class Quantity {
 public:
  // Zero, DecimalSI.
  Quantity() = default;

  // resource.ParseQuantity. Errors are InvalidArgument with apimachinery's texts. Surrounding
  // whitespace is an error (as in ParseQuantity; only UnmarshalJSON trims).
  static StatusOr<Quantity> Parse(std::string_view s);
  // resource.NewQuantity: `value` units.
  static Quantity FromInt(int64_t value, QuantityFormat format);
  // resource.NewMilliQuantity: `milli` thousandths of a unit.
  static Quantity FromMilli(int64_t milli, QuantityFormat format);

  // Quantity.Value(): rounded away from zero to an integer, saturating at the int64 range.
  int64_t Value() const;
  // Quantity.MilliValue(): ceil(|q| * 1000) with q's sign, saturating at the int64 range.
  int64_t MilliValue() const;
  bool IsZero() const { return nanos_.Sign() == 0; }
  // -1, 0 or 1.
  int Sign() const { return nanos_.Sign(); }
  QuantityFormat format() const { return format_; }

  // Quantity.String() (CanonicalizeBytes): "1.5" -> "1500m", "1.5Gi" -> "1536Mi".
  std::string ToString() const;

  // Quantity.Cmp: -1, 0 or 1 by numeric value; the format is ignored.
  int Compare(const Quantity& other) const;
  // Quantity.Add / Quantity.Sub: exact. A zero receiver takes `other`'s format.
  void Add(const Quantity& other);
  void Sub(const Quantity& other);
  // Quantity.Neg.
  void Neg() { nanos_ = nanos_.Negated(); }

  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Compare(b) == 0; }
  friend bool operator<(const Quantity& a, const Quantity& b) { return a.Compare(b) < 0; }
  friend bool operator<=(const Quantity& a, const Quantity& b) { return a.Compare(b) <= 0; }
  friend bool operator>(const Quantity& a, const Quantity& b) { return a.Compare(b) > 0; }
  friend bool operator>=(const Quantity& a, const Quantity& b) { return a.Compare(b) >= 0; }

 private:
  Quantity(quantity_internal::Int nanos, QuantityFormat format)
      : nanos_(std::move(nanos)), format_(format) {}

  quantity_internal::Int nanos_;  // the value * 10^9
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

// Writes q.ToString() (so GoogleTest and logs print quantities readably).
std::ostream& operator<<(std::ostream& os, const Quantity& q);

}  // namespace tidepool::api
