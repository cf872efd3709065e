#include "apiserver/json_text.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace tidepool::apiserver::json_text {
namespace {

TEST(TopLevelMemberTest, FindsMembersByName) {
  struct Case {
    std::string name;
    std::string text;
    std::string key;
    std::optional<std::string> want;
  };
  const std::vector<Case> cases = {
      {"compact object", R"({"a":1,"metadata":{"name":"x"},"spec":{}})", "metadata",
       R"({"name":"x"})"},
      {"first member", R"({"metadata":{"b":[1,{"c":"}"}]},"z":2})", "metadata",
       R"({"b":[1,{"c":"}"}]})"},
      {"strings with braces, quotes and escapes before the member",
       R"({"a":"x\"metadata\":{}\\","b":["{[","\\\""],"metadata":{"n":"\u00e9"}})", "metadata",
       R"({"n":"\u00e9"})"},
      {"nested member of the same name is not top level",
       R"({"spec":{"metadata":{"x":1}},"status":{}})", "metadata", std::nullopt},
      {"whitespace", " { \"a\" : 1 ,\n \"metadata\" : { \"n\" : 1 } } ", "metadata",
       R"({ "n" : 1 })"},
      {"scalars", R"({"a":true,"b":null,"c":-1.5e3,"d":"s"})", "c", "-1.5e3"},
      {"not an object", R"([{"metadata":{}}])", "metadata", std::nullopt},
      {"truncated", R"({"a":"x)", "metadata", std::nullopt},
      {"empty", "", "metadata", std::nullopt},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const auto got = TopLevelMember(tc.text, tc.key);
    ASSERT_EQ(got.has_value(), tc.want.has_value());
    if (got) {
      EXPECT_EQ(std::string(*got), *tc.want);
    }
  }
}

}  // namespace
}  // namespace tidepool::apiserver::json_text
