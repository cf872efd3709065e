#include "common/base64.h"

#include <gtest/gtest.h>

namespace tidepool {
namespace {

TEST(Base64Test, EncodesAsGo) {
  struct Case {
    std::string in, std, raw_url;
  };
  const Case cases[] = {
      {"", "", ""},
      {"f", "Zg==", "Zg"},
      {"fo", "Zm8=", "Zm8"},
      {"foo", "Zm9v", "Zm9v"},
      {"\xfb\xff", "+/8=", "-_8"},
      {"user:pass", "dXNlcjpwYXNz", "dXNlcjpwYXNz"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Base64Encode(c.in), c.std);
    EXPECT_EQ(Base64Encode(c.in, Base64Encoding::kRawUrl), c.raw_url);
    EXPECT_EQ(*Base64Decode(c.std), c.in);
    EXPECT_EQ(*Base64Decode(c.raw_url, Base64Encoding::kRawUrl), c.in);
  }
}

TEST(Base64Test, DecodingSkipsNewlinesAndNamesTheBadByte) {
  EXPECT_EQ(*Base64Decode("Zm9v\nYmFy\r\n"), "foobar");
  EXPECT_EQ(Base64Decode("ab$c").status().message(), "illegal base64 data at input byte 2");
  EXPECT_EQ(Base64Decode("Zg=x").status().message(), "illegal base64 data at input byte 3");
  EXPECT_FALSE(Base64Decode("-_8", Base64Encoding::kStd).ok());
}

}  // namespace
}  // namespace tidepool
