#include "common/strings.h"

#include <gtest/gtest.h>

namespace tidepool {
namespace {

TEST(StringsTest, SplitKeepsEveryField) {
  struct Case {
    std::string in;
    std::vector<std::string> out;
  };
  for (const Case& c : std::vector<Case>{
           {"a,b,,c", {"a", "b", "", "c"}}, {"", {""}}, {",", {"", ""}}, {"abc", {"abc"}}}) {
    EXPECT_EQ(SplitString(c.in, ','), c.out) << c.in;
  }
}

TEST(StringsTest, XmlEscape) {
  EXPECT_EQ(XmlEscape(R"(a<b & "c">)"), "a&lt;b &amp; &quot;c&quot;&gt;");
  EXPECT_EQ(XmlEscape("plain"), "plain");
}

}  // namespace
}  // namespace tidepool
