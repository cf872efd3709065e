#include "apiserver/json_dump.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/random.h"
#include "testing/repository_manifests.h"

namespace tidepool::apiserver::json_text {
namespace {

using nlohmann::json;

std::string Reference(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

TEST(JsonDumpTest, SameAsNlohmannOnEdgeValues) {
  const std::vector<std::pair<std::string, json>> cases = {
      {"null", json()},
      {"true", true},
      {"false", false},
      {"zero", 0},
      {"negative", -42},
      {"int64 min", std::numeric_limits<int64_t>::min()},
      {"int64 max", std::numeric_limits<int64_t>::max()},
      {"uint64 max", std::numeric_limits<uint64_t>::max()},
      {"float", 1.5},
      {"float integral", 1.0},
      {"float tiny", 1e-300},
      {"float huge", 1.7976931348623157e308},
      {"float negative zero", -0.0},
      {"empty string", ""},
      {"empty object", json::object()},
      {"empty array", json::array()},
      {"escapes", "q\" b\\ \b\f\n\r\t \x01\x1f\x7f /"},
      {"nul", std::string("a\0b", 3)},
      {"utf-8", "é ü € 𝄞 \xef\xbf\xbd \xf4\x8f\xbf\xbf"},
      {"invalid lone continuation", "a\x80z"},
      {"invalid truncated", "ab\xe2\x82"},
      {"invalid overlong", "\xc0\xaf and \xe0\x80\xaf"},
      {"invalid surrogate", "\xed\xa0\x80"},
      {"invalid above U+10FFFF", "\xf4\x90\x80\x80"},
      {"invalid key", json::object({{"k\xff", 1}, {"ok", "v"}})},
      {"binary", json::binary({1, 2, 3}, 7)},
      {"nested",
       json::parse(R"({"a":[1,-2,3.25,{"b":null,"c":[true,false]}],"d\"e":{"":""},"z":[[]]})")},
  };
  for (const auto& [name, j] : cases) {
    EXPECT_EQ(Dump(j), Reference(j)) << name;
  }
}

TEST(JsonDumpTest, SameAsNlohmannOnEveryRepositoryManifest) {
  const auto manifests = testing::RepositoryManifests(std::filesystem::path(TIDEPOOL_SOURCE_DIR));
  ASSERT_GT(manifests.size(), 10u);
  for (const json& m : manifests) {
    EXPECT_EQ(Dump(m), Reference(m)) << m.value("kind", "") << " " << Reference(m).substr(0, 200);
    // With the last-applied annotation (JSON text in a string: quotes to escape).
    json applied = m;
    applied["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
        m.dump() + "\n";
    EXPECT_EQ(Dump(applied), Reference(applied));
  }
}

// Random values whose strings mix every kind of byte: ASCII, the characters to escape,
// controls, valid multi-byte UTF-8 and invalid sequences.
json RandomValue(Random& rng, int depth) {
  auto random_string = [&rng] {
    static const std::vector<std::string> kPieces = {
        "a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f", "\x7f", "é", "€", "𝄞",
        "\xef\xbf\xbd", "\x80", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xf5", "\xff", "{}",
        "kubectl.kubernetes.io/last-applied-configuration"};
    std::string s;
    const uint64_t n = rng.Uniform(8);
    for (uint64_t i = 0; i < n; ++i) s += kPieces[rng.Uniform(kPieces.size())];
    return s;
  };
  const uint64_t kind = depth >= 4 ? rng.Uniform(6) : rng.Uniform(8);
  switch (kind) {
    case 0:
      return json();
    case 1:
      return rng.Bernoulli(0.5);
    case 2:
      return static_cast<int64_t>(rng.Next());
    case 3:
      return rng.Next();
    case 4:
      return (rng.UniformDouble() - 0.5) * 1e6;
    case 5:
      return random_string();
    case 6: {
      json o = json::object();
      const uint64_t n = rng.Uniform(5);
      for (uint64_t i = 0; i < n; ++i) o[random_string()] = RandomValue(rng, depth + 1);
      return o;
    }
    default: {
      json a = json::array();
      const uint64_t n = rng.Uniform(5);
      for (uint64_t i = 0; i < n; ++i) a.push_back(RandomValue(rng, depth + 1));
      return a;
    }
  }
}

TEST(JsonDumpTest, SameAsNlohmannOnRandomValues) {
  Random rng(20261130);
  for (int i = 0; i < 20000; ++i) {
    const json j = RandomValue(rng, 0);
    ASSERT_EQ(Dump(j), Reference(j)) << "value " << i;
  }
}

TEST(JsonDumpTest, AppendDumpAppends) {
  std::string out = "x=";
  AppendDump(json::parse(R"({"a":[1,"b"]})"), &out);
  EXPECT_EQ(out, R"(x={"a":[1,"b"]})");
}

TEST(JsonDumpTest, MarksWhereAValueStarts) {
  const json j = json::parse(R"({"a":[1,"b"],"metadata":{"name":"x","resourceVersion":""}})");
  std::string out = "prefix";
  size_t at = 0;
  AppendDump(j, &out, &j["metadata"]["resourceVersion"], &at);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(out.substr(at), R"(""}})");
  AppendDump(j, &out, nullptr, &at);
  EXPECT_EQ(at, std::string::npos);
}

}  // namespace
}  // namespace tidepool::apiserver::json_text
