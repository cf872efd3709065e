// The shared helpers: timestamps, labels and selectors, white space.

#include "apiserver/printers/internal.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::apiserver::printers::internal {
namespace {

using ::nlohmann::json;

constexpr int64_t k2026 = 1767225600;  // 2026-01-01T00:00:00Z

TEST(ParseRfc3339Test, Table) {
  struct Case {
    std::string text;
    std::optional<int64_t> unix_seconds;  // nullopt: rejected
    int32_t nanos = 0;
  };
  const std::vector<Case> cases = {
      {"2026-01-01T00:00:00Z", k2026},
      {"2026-01-01T09:00:00+09:00", k2026},
      {"2025-12-31T19:30:00-04:30", k2026},
      {"2026-01-01T00:00:00.5Z", k2026, 500000000},
      {"2026-01-01T00:00:00.123456Z", k2026, 123456000},
      {"2026-01-01T00:00:00.123456789Z", k2026, 123456789},
      {"1970-01-01T00:00:00Z", 0},
      {"1969-12-31T23:59:59Z", -1},
      {"2024-02-29T00:00:00Z", 1709164800},
      {"0001-01-01T00:00:00Z", -62135596800},
      {"2025-02-29T00:00:00Z", std::nullopt},
      {"2026-01-01 00:00:00Z", std::nullopt},
      {"2026-01-01T00:00:00", std::nullopt},
      {"2026-01-01T24:00:00Z", std::nullopt},
      {"2026-01-01T00:00:60Z", std::nullopt},
      {"2026-13-01T00:00:00Z", std::nullopt},
      {"2026-01-01T00:00:00.Z", std::nullopt},
      {"2026-01-01T00:00:00Zjunk", std::nullopt},
      {"2026-01-01T00:00:00+0900", std::nullopt},
      {"", std::nullopt},
      {"yesterday", std::nullopt},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.text);
    auto t = ParseRfc3339(tc.text);
    ASSERT_EQ(t.has_value(), tc.unix_seconds.has_value());
    if (t.has_value()) {
      EXPECT_EQ(t->unix_seconds, *tc.unix_seconds);
      EXPECT_EQ(t->nanos, tc.nanos);
    }
  }
}

TEST(TimeFieldTest, ZeroAndInvalidAreUnknown) {
  const TimePoint now = TimePoint(std::chrono::seconds(k2026 + 65));
  struct Case {
    json field;
    std::string since;
  };
  const std::vector<Case> cases = {
      {"2026-01-01T00:00:00Z", "65s"},
      {"2026-01-01T00:01:04.5Z", "0s"},
      {"2026-01-01T00:01:06.5Z", "0s"},       // 1.5s in the future: tolerated as "almost now"
      {"2026-01-01T00:01:07Z", "<invalid>"},  // 2s in the future
      {nullptr, "<unknown>"},
      {"0001-01-01T00:00:00Z", "<unknown>"},
      {"not a time", "<unknown>"},
      {12, "<unknown>"},
      {"3000-01-01T00:00:00Z", "<unknown>"},  // beyond TimePoint's range
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.field.dump());
    EXPECT_EQ(Since(&tc.field, now), tc.since);
  }
  EXPECT_EQ(Since(nullptr, now), "<unknown>");
  // Far apart instants saturate instead of overflowing.
  const json old_time = "1680-01-01T00:00:00Z";
  EXPECT_EQ(Since(&old_time, TimePoint(std::chrono::seconds(9000000000))), "292y");
  const json late_time = "2260-01-01T00:00:00Z";
  EXPECT_EQ(Since(&late_time, TimePoint(std::chrono::seconds(-9000000000))), "<invalid>");
}

TEST(Rfc3339UtcTest, Table) {
  const std::vector<std::pair<json, std::string>> cases = {
      {"2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
      {"2026-01-01T00:00:00.999Z", "2026-01-01T00:00:00Z"},
      {"2026-01-01T01:00:00+02:00", "2025-12-31T23:00:00Z"},
      {"1969-07-20T20:17:40Z", "1969-07-20T20:17:40Z"},
      {"3000-06-15T12:00:00Z", "3000-06-15T12:00:00Z"},
      {nullptr, "0001-01-01T00:00:00Z"},
      {"garbage", "0001-01-01T00:00:00Z"},
  };
  for (const auto& [field, want] : cases) {
    SCOPED_TRACE(field.dump());
    EXPECT_EQ(Rfc3339Utc(&field), want);
  }
}

TEST(FormatLabelsTest, SortsKeyValuePairs) {
  EXPECT_EQ(FormatLabels(nullptr), "<none>");
  const json empty = json::object();
  EXPECT_EQ(FormatLabels(&empty), "<none>");
  const json labels = {{"b", "2"}, {"a", "1"}, {"a.b", "3"}};
  // Set.String() sorts "key=value" strings: "a.b=3" < "a=1" because '.' < '='.
  EXPECT_EQ(FormatLabels(&labels), "a.b=3,a=1,b=2");
  const json not_object = json::array({"a"});
  EXPECT_EQ(FormatLabels(&not_object), "<none>");
}

TEST(SelectorTest, FormatLabelSelector) {
  struct Case {
    std::string name;
    json selector;
    std::string format;                 // FormatLabelSelector
    std::optional<std::string> string;  // SelectorString
  };
  const std::vector<Case> cases = {
      {"nil selector", nullptr, "<none>", ""},
      {"empty selector", json::object(), "<none>", ""},
      {"match labels sorted by key",
       {{"matchLabels", {{"tier", "gpu"}, {"app", "train"}}}},
       "app=train,tier=gpu",
       "app=train,tier=gpu"},
      {"expressions", json::parse(R"({"matchExpressions":[
          {"key":"zone","operator":"NotIn","values":["b","a"]},
          {"key":"gpu","operator":"Exists"},
          {"key":"spot","operator":"DoesNotExist"},
          {"key":"app","operator":"In","values":["x"]}]})"),
       "app in (x),gpu,!spot,zone notin (a,b)", "app in (x),gpu,!spot,zone notin (a,b)"},
      {"prefixed key",
       {{"matchLabels", {{"app.kubernetes.io/name", "web"}}}},
       "app.kubernetes.io/name=web",
       "app.kubernetes.io/name=web"},
      {"empty label value", {{"matchLabels", {{"a", ""}}}}, "a=", "a="},
      {"unknown operator",
       json::parse(R"({"matchExpressions":[{"key":"a","operator":"Is","values":["x"]}]})"),
       "<error>", std::nullopt},
      {"In without values", json::parse(R"({"matchExpressions":[{"key":"a","operator":"In"}]})"),
       "<error>", std::nullopt},
      {"Exists with values",
       json::parse(R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})"),
       "<error>", std::nullopt},
      {"invalid key", {{"matchLabels", {{"-bad", "x"}}}}, "<error>", std::nullopt},
      {"invalid prefix", {{"matchLabels", {{"Bad_Prefix/a", "x"}}}}, "<error>", std::nullopt},
      {"invalid value", {{"matchLabels", {{"a", "has space"}}}}, "<error>", std::nullopt},
      {"value too long", {{"matchLabels", {{"a", std::string(64, 'v')}}}}, "<error>", std::nullopt},
      {"not an object", "app=web", "<error>", std::nullopt},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const json* sel = tc.selector.is_null() ? nullptr : &tc.selector;
    EXPECT_EQ(FormatLabelSelector(sel), tc.format);
    EXPECT_EQ(SelectorString(sel), tc.string);
  }
}

TEST(TrimSpaceTest, Table) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"  a b \n", "a b"},
      {"\t\r\v\f x", "x"},
      {"\xC2\xA0nbsp\xC2\xA0", "nbsp"},
      {"\xE3\x80\x80ideographic\xE2\x80\x83", "ideographic"},
      {"caf\xC3\xA9", "caf\xC3\xA9"},
      {" \n ", ""},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(TrimSpace(in), want) << in;
  }
}

TEST(JsonAccessTest, ZeroValues) {
  const json j = json::parse(R"({"s":"x","i":3,"f":2.0,"g":2.5,"u":18446744073709551615,
                                "b":true,"a":[1,2],"o":{"k":1},"n":null})");
  EXPECT_EQ(Str(Field(j, "s")), "x");
  EXPECT_EQ(Str(Field(j, "i")), "");
  EXPECT_EQ(Int(Field(j, "i")), 3);
  EXPECT_EQ(Int(Field(j, "f")), 2);
  EXPECT_EQ(Int(Field(j, "g")), 0);
  EXPECT_EQ(Int(Field(j, "g"), 7), 7);
  EXPECT_EQ(Int(Field(j, "u")), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Int(Field(j, "s")), 0);
  EXPECT_TRUE(Bool(Field(j, "b")));
  EXPECT_FALSE(Bool(Field(j, "i")));
  EXPECT_EQ(Size(Field(j, "a")), 2);
  EXPECT_EQ(Size(Field(j, "o")), 1);
  EXPECT_EQ(Size(Field(j, "s")), 0);
  EXPECT_EQ(Field(j, "missing"), nullptr);
  EXPECT_EQ(Path(j, "o", "k", "deeper"), nullptr);
  EXPECT_EQ(Int(Path(j, "o", "k")), 1);
  EXPECT_EQ(Field(Field(j, "a"), "x"), nullptr);
  EXPECT_TRUE(Field(j, "n")->is_null());
  EXPECT_EQ(Str(nullptr), "");
}

TEST(LayoutContainersTest, JoinsNamesAndImages) {
  const json containers = json::parse(R"([{"name":"a","image":"i1"},{"name":"b"},{"image":"i3"}])");
  ContainerCells cells = LayoutContainers(&containers);
  EXPECT_EQ(cells.names, "a,b,");
  EXPECT_EQ(cells.images, "i1,,i3");
  EXPECT_EQ(LayoutContainers(nullptr).names, "");
}

}  // namespace
}  // namespace tidepool::apiserver::printers::internal
