// File: quantity_test.cc
//
// Tests for api::Quantity against apimachinery's resource.Quantity. Expected strings come from
// apimachinery's quantity_test.go tables (TestQuantityParse, TestQuantityString,
// TestQuantityParseEmit, TestNewSet, TestMilliNewSet, TestAdd, TestSub) or are derived by hand
// from quantity.go / amount.go; cases marked "tidepool" pin a documented deviation.
#include "api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tidepool::api {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

constexpr QuantityFormat kDecimalSI = QuantityFormat::kDecimalSI;
constexpr QuantityFormat kBinarySI = QuantityFormat::kBinarySI;
constexpr QuantityFormat kDecimalExponent = QuantityFormat::kDecimalExponent;

// Parses `s`, failing the test (and returning zero) if it does not parse.
Quantity MustParse(std::string_view s) {
  StatusOr<Quantity> q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << "\"" << s << "\": " << q.status().ToString();
  return q.ok() ? *q : Quantity();
}

struct ParseCase {
  std::string_view name;
  std::string_view input;
  std::string_view canonical;
  QuantityFormat format;
};

constexpr ParseCase kParseCases[] = {
    // Decimal SI suffixes are kept when the mantissa is whole.
    {"a milli value stays in milli", "100m", "100m", kDecimalSI},
    {"500m is already canonical", "500m", "500m", kDecimalSI},
    {"one milli is 1m", "1m", "1m", kDecimalSI},
    {"a bare integer has no suffix", "2", "2", kDecimalSI},
    {"a thousand becomes 1k", "1000", "1k", kDecimalSI},
    {"1024 is not a power of ten and stays decimal", "1024", "1024", kDecimalSI},
    {"nine digits stay as written", "123456789", "123456789", kDecimalSI},
    {"mega stays mega", "1M", "1M", kDecimalSI},
    {"a thousand mega is giga", "1000M", "1G", kDecimalSI},
    {"peta stays peta", "1P", "1P", kDecimalSI},
    {"twelve exa stays exa", "12E", "12E", kDecimalSI},
    {"a nano value stays nano", "1n", "1n", kDecimalSI},
    {"micro stays micro", "4u", "4u", kDecimalSI},
    // Fractions move to a smaller suffix.
    {"one half is 500m", "0.5", "500m", kDecimalSI},
    {"one and a half is 1500m", "1.5", "1500m", kDecimalSI},
    {"one point one is 1100m", "1.1", "1100m", kDecimalSI},
    {"one tenth is 100m", "0.1", "100m", kDecimalSI},
    {"1.08 is 1080m", "1.08", "1080m", kDecimalSI},
    {"a leading dot is allowed", ".5", "500m", kDecimalSI},
    {"a trailing dot is allowed", "5.", "5", kDecimalSI},
    {"a trailing dot before a suffix is allowed", "1.G", "1G", kDecimalSI},
    {"one thousandth equals one milli", "0.001", "1m", kDecimalSI},
    {"a ten-thousandth is 100u", "0.0001", "100u", kDecimalSI},
    {"a fractional kilo keeps its digits", "100.035k", "100035", kDecimalSI},
    {"a fractional mega becomes kilo", "10.035M", "10035k", kDecimalSI},
    // Signs.
    {"a plus sign is dropped", "+1", "1", kDecimalSI},
    {"minus one stays negative", "-1", "-1", kDecimalSI},
    {"a negative half is -500m", "-0.5", "-500m", kDecimalSI},
    {"zero is 0", "0", "0", kDecimalSI},
    {"negative zero is 0", "-0", "0", kDecimalSI},
    // Sub-nano precision rounds away from zero.
    {"a tenth of a nano rounds up to 1n", "0.1n", "1n", kDecimalSI},
    {"3.001n rounds up to 4n", "3.001n", "4n", kDecimalSI},
    {"ten decimal places round up to 1n", "0.0000000001", "1n", kDecimalSI},
    {"a negative sub-nano rounds away from zero", "-0.0000000001", "-1n", kDecimalSI},
    {"0.00000012345 rounds up to 124n", "0.00000012345", "124n", kDecimalSI},
    {"1e-100 rounds up to one nano", "1e-100", "1e-9", kDecimalExponent},
    {"half a nano in exponent form rounds up", "0.5e-9", "1e-9", kDecimalExponent},
    // Exponents.
    {"1e3 keeps exponent notation", "1e3", "1e3", kDecimalExponent},
    {"an upper-case E exponent prints lower-case", "1E3", "1e3", kDecimalExponent},
    {"a negative exponent stays", "1e-3", "1e-3", kDecimalExponent},
    {"twelve million is 12e6", "12e6", "12e6", kDecimalExponent},
    {"1e4 lowers the exponent to a multiple of three", "1e4", "10e3", kDecimalExponent},
    {"12e-1 becomes 1200e-3", "12e-1", "1200e-3", kDecimalExponent},
    {"1.3E+6 becomes 1300e3", "1.3E+6", "1300e3", kDecimalExponent},
    {"1.2e3 needs no exponent", "1.2e3", "1200", kDecimalExponent},
    {"e0 prints no exponent", "1e0", "1", kDecimalExponent},
    {"1e100 is kept exactly", "1e100", "10e99", kDecimalExponent},
    {"1e999 is the largest power of ten tidepool accepts", "1e999", "1e999", kDecimalExponent},
    // Binary SI.
    {"one kibi stays 1Ki", "1Ki", "1Ki", kBinarySI},
    {"one mebi stays 1Mi", "1Mi", "1Mi", kBinarySI},
    {"1024Mi becomes 1Gi", "1024Mi", "1Gi", kBinarySI},
    {"2048Ki becomes 2Mi", "2048Ki", "2Mi", kBinarySI},
    {"1.5Gi becomes 1536Mi", "1.5Gi", "1536Mi", kBinarySI},
    {"1025Ki has no larger binary suffix", "1025Ki", "1025Ki", kBinarySI},
    {"1.5Ki is 1536 with no suffix", "1.5Ki", "1536", kBinarySI},
    {"half a kibi is below 1024 and prints as decimal", "0.5Ki", "512", kBinarySI},
    {"a tenth of a kibi prints its fraction in milli", "0.1Ki", "102400m", kBinarySI},
    {"1.1Ki is not whole and prints as decimal", "1.1Ki", "1126400m", kBinarySI},
    {".001Ki is 1024m", ".001Ki", "1024m", kBinarySI},
    {"a negative kibi stays binary", "-1Ki", "-1Ki", kBinarySI},
    {"a sub-unit binary value becomes decimal SI", ".000000001Ki", "1024n", kDecimalSI},
    {"a sub-nano binary value rounds up and becomes decimal SI", ".000000000001Ki", "2n",
     kDecimalSI},
    {"8Ei is capped at 2^63-1", "8Ei", "9223372036854775807", kBinarySI},
    {"9Ei is capped at 2^63-1", "9Ei", "9223372036854775807", kBinarySI},
    {"-8Ei is capped at -(2^63-1)", "-8Ei", "-9223372036854775807", kBinarySI},
    {"a zero binary value keeps its format", "0Ki", "0", kBinarySI},
    // Beyond int64.
    {"2^63 in decimal is kept exactly", "9223372036854775808", "9223372036854775808", kDecimalSI},
    {"twenty nines are kept exactly", "99999999999999999999", "99999999999999999999", kDecimalSI},
    {"beyond exa, decimal SI falls back to an exponent", "1000E", "1e21", kDecimalSI},
    // apimachinery accepts a number without digits (kubernetes/apimachinery#165): it is zero.
    {"a bare binary suffix is zero", "Ki", "0", kBinarySI},
    {"a bare dot is zero", ".", "0", kDecimalSI},
    {"a bare minus sign is zero", "-", "0", kDecimalSI},
    {"a bare exponent is zero", "e3", "0", kDecimalExponent},
};

TEST(QuantityParseTest, ParsesToApimachineryCanonicalStrings) {
  for (const ParseCase& c : kParseCases) {
    SCOPED_TRACE(std::string(c.name) + " (\"" + std::string(c.input) + "\")");
    StatusOr<Quantity> q = Quantity::Parse(c.input);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    EXPECT_EQ(q->ToString(), c.canonical);
    EXPECT_EQ(q->format(), c.format);
  }
}

TEST(QuantityParseTest, CanonicalStringsParseBackToTheSameValue) {
  for (const ParseCase& c : kParseCases) {
    SCOPED_TRACE(std::string(c.name) + " (\"" + std::string(c.input) + "\")");
    Quantity q = MustParse(c.input);
    Quantity again = MustParse(q.ToString());
    EXPECT_EQ(again, q);
    EXPECT_EQ(again.ToString(), q.ToString());
  }
}

TEST(QuantityParseTest, NegatedInputsPrintWithAMinusSign) {
  for (const ParseCase& c : kParseCases) {
    if (c.input.empty() || c.input[0] == '-' || c.input[0] == '+' || c.canonical == "0") {
      continue;
    }
    SCOPED_TRACE(std::string(c.name) + " (\"-" + std::string(c.input) + "\")");
    Quantity q = MustParse("-" + std::string(c.input));
    EXPECT_EQ(q.ToString(), "-" + std::string(c.canonical));
    EXPECT_EQ(q.format(), c.format);
  }
}

struct InvalidCase {
  std::string_view name;
  std::string_view input;
  std::string_view message;
};

constexpr InvalidCase kInvalidCases[] = {
    {"the empty string is malformed", "", kQuantityFormatWrongMessage},
    {"letters outside the suffix set are malformed", "abc", kQuantityFormatWrongMessage},
    {"aoeu is malformed", "aoeu", kQuantityFormatWrongMessage},
    {"two dots are malformed", "1.2.3", kQuantityFormatWrongMessage},
    {"a dot after a suffix is malformed", "1.1.M", kQuantityFormatWrongMessage},
    {"a byte unit is malformed", "1Kb", kQuantityFormatWrongMessage},
    {"a space before the suffix is malformed", "1 Ki", kQuantityFormatWrongMessage},
    {"a leading space is malformed", " 1", kQuantityFormatWrongMessage},
    {"a trailing space is malformed", "1 ", kQuantityFormatWrongMessage},
    {"a fractional exponent is malformed", "1.5e1.5", kQuantityFormatWrongMessage},
    {"a sign inside the number is malformed", "1+1.0M", kQuantityFormatWrongMessage},
    {"an unknown letter is malformed", "0.1am", kQuantityFormatWrongMessage},
    {"a suffix after an exponent is malformed", "1e3Ki", kQuantityFormatWrongMessage},
    {"lower-case ki is an unknown suffix", "1ki", kQuantitySuffixMessage},
    {"a double sign reads as an unknown suffix", "--1", kQuantitySuffixMessage},
    {"a bare e is an unknown suffix", "1e", kQuantitySuffixMessage},
    {"an exponent without digits is an unknown suffix", "-3.01e-", kQuantitySuffixMessage},
    {"mi is an unknown suffix", "0.1mi", kQuantitySuffixMessage},
    {"a bare i is an unknown suffix", ".5i", kQuantitySuffixMessage},
    {"1i is an unknown suffix", "1i", kQuantitySuffixMessage},
    {"-3.01i is an unknown suffix", "-3.01i", kQuantitySuffixMessage},
    {"digits after a binary suffix are an unknown suffix", "1Ki5", kQuantitySuffixMessage},
    {"an exponent beyond int64 is an unknown suffix", "1e99999999999999999999",
     kQuantitySuffixMessage},
    {"no digits below nano fail numerically", "e-10", kQuantityNumericMessage},
    {"a bare dot below nano fails numerically", ".e-10", kQuantityNumericMessage},
    // tidepool: magnitudes of 10^1000 and more are rejected (apimachinery would truncate
    // 4294967296 to an int32 exponent of 0).
    {"10^1000 is too large for tidepool", "1e1000", kQuantityNumericMessage},
    {"an exponent beyond int32 is too large for tidepool", "1e4294967296", kQuantityNumericMessage},
};

TEST(QuantityParseTest, RejectsMalformedInputsWithApimachineryMessages) {
  for (const InvalidCase& c : kInvalidCases) {
    SCOPED_TRACE(std::string(c.name) + " (\"" + std::string(c.input) + "\")");
    StatusOr<Quantity> q = Quantity::Parse(c.input);
    ASSERT_FALSE(q.ok()) << "parsed as " << q->ToString();
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(q.status().message(), c.message);
  }
}

TEST(QuantityParseTest, ZeroWithAnyExponentIsZero) {
  EXPECT_TRUE(MustParse("0e99999").IsZero());
  EXPECT_TRUE(MustParse("0.0e-100").IsZero());
  EXPECT_TRUE(MustParse("00.000").IsZero());
}

TEST(QuantityParseTest, LongInputsParseExactly) {
  // 2000 fraction digits: only the first nine survive, the rest round the last one up.
  std::string tiny = "0." + std::string(1999, '0') + "1";
  EXPECT_EQ(MustParse(tiny).ToString(), "1n");
  std::string one_and_a_bit = "1." + std::string(1999, '0') + "1";
  EXPECT_EQ(MustParse(one_and_a_bit).ToString(), "1000000001n");
  // 999 nines is below tidepool's 10^1000 bound; 1001 nines is above it.
  std::string nines(999, '9');
  EXPECT_EQ(MustParse(nines).ToString(), nines);
  EXPECT_FALSE(Quantity::Parse(std::string(1001, '9')).ok());
}

struct ValueCase {
  std::string_view name;
  std::string_view input;
  int64_t value;
  int64_t milli_value;
};

constexpr ValueCase kValueCases[] = {
    {"one and a half rounds up to two", "1.5", 2, 1500},
    {"100m rounds up to one", "100m", 1, 100},
    {"half a milli rounds up to one milli", "0.5m", 1, 1},
    {"one nano rounds up to one and one milli", "1n", 1, 1},
    {"a whole number is exact", "2", 2, 2000},
    {"one kibi is 1024", "1Ki", 1024, 1024000},
    {"1.5Gi is exact", "1.5Gi", 1610612736, 1610612736000},
    {"zero is zero", "0", 0, 0},
    {"negative one and a half rounds away from zero", "-1.5", -2, -1500},
    {"minus one nano rounds away from zero", "-1n", -1, -1},
    {"int64 max is exact, its milli value saturates", "9223372036854775807", kInt64Max, kInt64Max},
    {"a milli value at int64 max is exact", "9223372036854775.807", 9223372036854776, kInt64Max},
    {"8Ei is capped to int64 max", "8Ei", kInt64Max, kInt64Max},
    {"1e30 saturates", "1e30", kInt64Max, kInt64Max},
    {"-1e30 saturates", "-1e30", kInt64Min, kInt64Min},
    {"2^63 saturates", "9223372036854775808", kInt64Max, kInt64Max},
};

TEST(QuantityValueTest, RoundsAwayFromZeroAndSaturates) {
  for (const ValueCase& c : kValueCases) {
    SCOPED_TRACE(std::string(c.name) + " (\"" + std::string(c.input) + "\")");
    Quantity q = MustParse(c.input);
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.MilliValue(), c.milli_value);
  }
}

TEST(QuantityTest, DefaultIsDecimalZero) {
  Quantity q;
  EXPECT_TRUE(q.IsZero());
  EXPECT_EQ(q.Sign(), 0);
  EXPECT_EQ(q.format(), kDecimalSI);
  EXPECT_EQ(q.ToString(), "0");
  EXPECT_EQ(q.Value(), 0);
  EXPECT_EQ(q.MilliValue(), 0);
  EXPECT_EQ(q, MustParse("0"));
}

TEST(QuantityTest, SignReportsTheDirection) {
  EXPECT_EQ(MustParse("1n").Sign(), 1);
  EXPECT_EQ(MustParse("-1n").Sign(), -1);
  EXPECT_EQ(MustParse("1e30").Sign(), 1);
  EXPECT_EQ(MustParse("-1e30").Sign(), -1);
  EXPECT_EQ(MustParse("-0").Sign(), 0);
}

struct ConstructCase {
  std::string_view name;
  Quantity quantity;
  std::string_view canonical;
};

TEST(QuantityTest, FromIntAndFromMilliPrintLikeNewQuantity) {
  const ConstructCase cases[] = {
      {"NewQuantity(1, DecimalSI)", Quantity::FromInt(1, kDecimalSI), "1"},
      {"NewQuantity(1000, DecimalSI)", Quantity::FromInt(1000, kDecimalSI), "1k"},
      {"NewQuantity(1234000, DecimalSI)", Quantity::FromInt(1234000, kDecimalSI), "1234k"},
      {"NewQuantity(1024, BinarySI)", Quantity::FromInt(1024, kBinarySI), "1Ki"},
      {"NewQuantity(1Mi, BinarySI)", Quantity::FromInt(int64_t{1024} * 1024, kBinarySI), "1Mi"},
      {"NewQuantity(1000000, DecimalExponent)", Quantity::FromInt(1000000, kDecimalExponent),
       "1e6"},
      {"NewQuantity(int64 min)", Quantity::FromInt(kInt64Min, kDecimalSI), "-9223372036854775808"},
      {"NewMilliQuantity(1, DecimalSI)", Quantity::FromMilli(1, kDecimalSI), "1m"},
      {"NewMilliQuantity(1000, DecimalSI)", Quantity::FromMilli(1000, kDecimalSI), "1"},
      {"NewMilliQuantity(1234000, DecimalSI)", Quantity::FromMilli(1234000, kDecimalSI), "1234"},
      {"NewMilliQuantity(1024, BinarySI) prints as decimal", Quantity::FromMilli(1024, kBinarySI),
       "1024m"},
      {"NewMilliQuantity(1Mi, BinarySI) prints as decimal",
       Quantity::FromMilli(int64_t{1024} * 1024, kBinarySI), "1048576m"},
      {"NewMilliQuantity(1000000, DecimalExponent)", Quantity::FromMilli(1000000, kDecimalExponent),
       "1e3"},
      {"NewMilliQuantity(int64 max)", Quantity::FromMilli(kInt64Max, kDecimalSI),
       "9223372036854775807m"},
  };
  for (const ConstructCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.quantity.ToString(), c.canonical);
  }
  EXPECT_EQ(Quantity::FromInt(1024, kBinarySI).format(), kBinarySI);
  EXPECT_EQ(Quantity::FromMilli(1500, kDecimalSI).MilliValue(), 1500);
  EXPECT_EQ(Quantity::FromMilli(1500, kDecimalSI).Value(), 2);
}

struct CompareCase {
  std::string_view name;
  std::string_view a;
  std::string_view b;
  int want;
};

constexpr CompareCase kCompareCases[] = {
    {"1Ki equals 1024", "1Ki", "1024", 0},
    {"a half equals 500m", "0.5", "500m", 0},
    {"1m equals 0.001", "1m", "0.001", 0},
    {"1e3 equals 1k", "1e3", "1k", 0},
    {"1Mi equals 1048576", "1Mi", "1048576", 0},
    {"zero equals a binary zero", "0", "0Ki", 0},
    {"100m is more than 50m", "100m", "50m", 1},
    {"50m is less than 100m", "50m", "100m", -1},
    {"10000T is more than 100Gi", "10000T", "100Gi", 1},
    {"1Gi is more than 1G", "1Gi", "1G", 1},
    {"minus one is less than zero", "-1", "0", -1},
    {"minus one is less than one nano", "-1", "1n", -1},
    {"1e30 is more than 1e29", "1e30", "1e29", 1},
    {"-1e30 is less than -1e29", "-1e30", "-1e29", -1},
    {"1e30 is more than -1e30", "1e30", "-1e30", 1},
    {"a huge value is more than int64 max", "1e100", "9223372036854775807", 1},
    {"a huge negative value is less than a small one", "-1e100", "-1", -1},
    {"equal huge values compare equal", "1e100", "10000e96", 0},
};

TEST(QuantityCompareTest, ComparesNumericValuesIgnoringFormat) {
  for (const CompareCase& c : kCompareCases) {
    SCOPED_TRACE(std::string(c.name));
    Quantity a = MustParse(c.a);
    Quantity b = MustParse(c.b);
    EXPECT_EQ(a.Compare(b), c.want);
    EXPECT_EQ(b.Compare(a), -c.want);
    EXPECT_EQ(a == b, c.want == 0);
    EXPECT_EQ(a != b, c.want != 0);
    EXPECT_EQ(a < b, c.want < 0);
    EXPECT_EQ(a <= b, c.want <= 0);
    EXPECT_EQ(a > b, c.want > 0);
    EXPECT_EQ(a >= b, c.want >= 0);
  }
}

struct ArithmeticCase {
  std::string_view name;
  std::string_view a;
  std::string_view b;
  std::string_view sum;
  std::string_view difference;
};

constexpr ArithmeticCase kArithmeticCases[] = {
    {"milli values add up to a whole", "100m", "900m", "1", "-800m"},
    {"binary values stay binary", "1Gi", "512Mi", "1536Mi", "512Mi"},
    {"the receiver's format wins", "10", "1Ki", "1034", "-1014"},
    {"ten plus 1e1", "10", "1e1", "20", "0"},
    {"one minus one and a half", "1", "1.5", "2500m", "-500m"},
    {"adding zero keeps the suffix", "100m", "0", "100m", "100m"},
    {"4Ei plus 4Ei is 8Ei exactly", "4Ei", "4Ei", "8Ei", "0"},
    {"sums beyond 128 bits stay exact", "100000000000000000000000000000",
     "100000000000000000000000000000", "200e27", "0"},
};

TEST(QuantityArithmeticTest, AddAndSubAreExact) {
  for (const ArithmeticCase& c : kArithmeticCases) {
    SCOPED_TRACE(std::string(c.name));
    Quantity sum = MustParse(c.a);
    sum.Add(MustParse(c.b));
    EXPECT_EQ(sum.ToString(), c.sum);
    EXPECT_EQ(sum.format(), MustParse(c.a).format());
    Quantity difference = MustParse(c.a);
    difference.Sub(MustParse(c.b));
    EXPECT_EQ(difference.ToString(), c.difference);
    // Going back recovers the first operand exactly.
    sum.Sub(MustParse(c.b));
    EXPECT_EQ(sum, MustParse(c.a));
    difference.Add(MustParse(c.b));
    EXPECT_EQ(difference, MustParse(c.a));
  }
}

TEST(QuantityArithmeticTest, HugeAndTinyValuesAddExactly) {
  Quantity q = MustParse("1e50");
  q.Add(MustParse("1n"));
  // 10^50 + 10^-9 in nano-units is 10^59 + 1; "1e50" is DecimalExponent, hence "e-9".
  EXPECT_EQ(q.ToString(), "1" + std::string(58, '0') + "1e-9");
  q.Sub(MustParse("2n"));
  EXPECT_EQ(q.ToString(), std::string(59, '9') + "e-9");
  q.Add(MustParse("1n"));
  EXPECT_EQ(q.ToString(), "100e48");
  EXPECT_EQ(q.format(), kDecimalExponent);
}

TEST(QuantityArithmeticTest, ZeroReceiverTakesTheOtherFormat) {
  // TestQuantityAddZeroPreservesSuffix / TestQuantitySubZeroPreservesSuffix.
  for (std::string_view s : {"100m", "1Gi", "1e3"}) {
    SCOPED_TRACE(std::string(s));
    Quantity value = MustParse(s);
    Quantity sum;
    sum.Add(value);
    EXPECT_EQ(sum.ToString(), s);
    EXPECT_EQ(sum.format(), value.format());
    Quantity difference = MustParse("0");
    difference.Sub(value);
    EXPECT_EQ(difference.ToString(), "-" + std::string(s));
    Quantity unchanged = value;
    unchanged.Add(Quantity());
    EXPECT_EQ(unchanged.ToString(), s);
  }
}

TEST(QuantityArithmeticTest, BinaryPowersAboveExbiKeepTheEiSuffix) {
  // tidepool: 2^70 is 1024Ei; apimachinery has no suffix for 1024^7 and would print "1".
  Quantity q = MustParse("4Ei");
  for (int i = 0; i < 8; ++i) {
    q.Add(q);
  }
  EXPECT_EQ(q.ToString(), "1024Ei");
  EXPECT_EQ(q.Value(), kInt64Max);
}

TEST(QuantityArithmeticTest, NegFlipsTheSign) {
  Quantity q = MustParse("9.01");
  q.Neg();
  EXPECT_EQ(q.ToString(), "-9010m");
  Quantity big = MustParse("1e40");
  big.Neg();
  EXPECT_EQ(big.ToString(), "-10e39");
  big.Neg();
  EXPECT_EQ(big, MustParse("1e40"));
}

TEST(QuantityArithmeticTest, RandomSumsCancelAcrossScales) {
  // TestAddSubRoundTripAcrossScales, plus a check of every partial sum against an
  // independent 128-bit accumulator of milli-units.
  std::mt19937_64 rng(42);
  Quantity q;
  __extension__ __int128 expected_milli = 0;
  std::vector<Quantity> added;
  for (int i = 0; i < 200; ++i) {
    int64_t milli = static_cast<int64_t>(rng());
    Quantity x = Quantity::FromMilli(milli, kDecimalSI);
    q.Add(x);
    added.push_back(x);
    expected_milli += milli;
    std::ostringstream expected;
    expected << (expected_milli < 0 ? "-" : "");
    __extension__ unsigned __int128 magnitude =
        expected_milli < 0 ? -expected_milli : expected_milli;
    std::string digits;
    do {
      digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
      magnitude /= 10;
    } while (magnitude != 0);
    expected << digits << "m";
    ASSERT_EQ(q, MustParse(expected.str())) << "after " << i + 1 << " additions";
  }
  for (const Quantity& x : added) {
    q.Sub(x);
  }
  EXPECT_TRUE(q.IsZero());
}

TEST(QuantityTest, StreamsItsCanonicalString) {
  std::ostringstream os;
  os << MustParse("1.5Gi");
  EXPECT_EQ(os.str(), "1536Mi");
}

}  // namespace
}  // namespace tidepool::api
