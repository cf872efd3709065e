// File: go_quote_test.cc
//
// Tests for GoQuote against what Go's strconv.Quote prints, and for Utf8SequenceLength.
#include "common/go_quote.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool {
namespace {

TEST(GoQuoteTest, QuotesAsStrconvQuote) {
  struct Case {
    std::string name;
    std::string in;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"plain", "foo", R"("foo")"},
      {"empty", "", R"("")"},
      {"quote and backslash", R"(a"b\c)", R"("a\"b\\c")"},
      {"named control characters", "\a\b\f\n\r\t\v", R"("\a\b\f\n\r\t\v")"},
      {"other control characters", std::string("\x01\x1f\x7f", 3), R"("\x01\x1f\x7f")"},
      {"NUL", std::string("a\0b", 3), R"("a\x00b")"},
      {"printable UTF-8 is kept", "caf\xc3\xa9", "\"caf\xc3\xa9\""},
      {"printable astral is kept", "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
      {"invalid UTF-8 byte", "a\xff", R"("a\xff")"},
      {"truncated UTF-8 sequence", "\xc3", R"("\xc3")"},
      {"surrogate", "\xed\xa0\x80", R"("\xed\xa0\x80")"},
      {"overlong", "\xc0\xaf", R"("\xc0\xaf")"},
      {"above U+10FFFF", "\xf4\x90\x80\x80", R"("\xf4\x90\x80\x80")"},
      {"C1 control", "\xc2\x85", R"("\u0085")"},
      {"no-break space", "a\xc2\xa0", R"("a\u00a0")"},
      {"soft hyphen", "\xc2\xad", R"("\u00ad")"},
      {"line separator", "\xe2\x80\xa8", R"("\u2028")"},
      {"unassigned U+2065", "\xe2\x81\xa5", R"("\u2065")"},
      {"byte order mark", "bom\xef\xbb\xbf", R"("bom\ufeff")"},
      {"private use", "\xee\x80\x80", R"("\ue000")"},
      {"noncharacter", "\xef\xbf\xbf", R"("\uffff")"},
      {"supplementary private use", "\xf3\xb0\x80\x80", R"("\U000f0000")"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(GoQuote(tc.in), tc.want);
  }
}

TEST(GoQuoteTest, Utf8SequenceLength) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength(std::string("\0", 1), 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xc3\xa9", 0), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82\xac", 0), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xf0\x9f\x98\x80", 0), 4u);
  EXPECT_EQ(Utf8SequenceLength("a\xc3\xa9", 1), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xff", 0), 0u);
  EXPECT_EQ(Utf8SequenceLength("\xc3", 0), 0u);              // truncated
  EXPECT_EQ(Utf8SequenceLength("\xc0\x80", 0), 0u);          // overlong
  EXPECT_EQ(Utf8SequenceLength("\xed\xa0\x80", 0), 0u);      // surrogate
  EXPECT_EQ(Utf8SequenceLength("\xf4\x90\x80\x80", 0), 0u);  // above U+10FFFF
}

}  // namespace
}  // namespace tidepool
