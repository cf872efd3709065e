#include "apiserver/json_parse.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/random.h"
#include "testing/repository_manifests.h"

namespace tidepool::apiserver::json_text {
namespace {

using nlohmann::json;

json Reference(std::string_view text) { return json::parse(text, nullptr, false); }

// Equal values of equal types all the way down (json's == says 1 == 1u == 1.0).
bool Same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json::value_t::object: {
      if (a.size() != b.size()) return false;
      auto i = a.begin();
      auto j = b.begin();
      for (; i != a.end(); ++i, ++j) {
        if (i.key() != j.key() || !Same(*i, *j)) return false;
      }
      return true;
    }
    case json::value_t::array:
      if (a.size() != b.size()) return false;
      for (size_t k = 0; k < a.size(); ++k) {
        if (!Same(a[k], b[k])) return false;
      }
      return true;
    case json::value_t::number_float: {
      const double x = a.get<double>(), y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case json::value_t::discarded:
      return true;
    default:
      return a == b;
  }
}

void ExpectSame(std::string_view text, const std::string& what) {
  const json got = Parse(text);
  const json want = Reference(text);
  EXPECT_TRUE(Same(got, want)) << what << ": " << std::string(text.substr(0, 300))
                               << "\n got: " << got.dump() << "\nwant: " << want.dump();
}

TEST(JsonParseTest, SameAsNlohmannOnEdgeTexts) {
  const std::vector<std::string> texts = {
      // Accepted.
      "null", "true", "false", "0", "-0", "1", "-1", "123456789", "0.5", "-0.0", "1e5", "1E+5",
      "1e-5", "2.5e3", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
      "-9223372036854775809", "9223372036854775808", "123456789012345678901234567890",
      "1.7976931348623157e308", "4.9e-324", "1e-400", R"("")", R"("abc")",
      R"("q\" b\\ s\/ \b\f\n\r\t")", R"("\u0000\u001f\u00e9\u20AC\ud834\udd1e")",
      "\"é € 𝄞 \x7f\"", "{}", "[]", " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n",
      R"({"b":1,"a":2,"c":{"z":[],"y":null}})", R"({"a":1,"a":2})", R"({"a":{"x":1},"a":[3]})",
      "\xEF\xBB\xBF{\"bom\":true}", R"([[[[[]]]]])", R"(["a",1,-2.5,true,null,{}])",
      R"({"k":"01234567890123456789 long string without escapes, more than eight bytes"})",
      // Refused.
      "", " ", "nul", "tru", "falsey", "01", "-01", "1.", ".5", "+1", "-", "1e", "1e+", "--1",
      "1x", "0x10", "NaN", "Infinity", "1e400", "-1e400", R"("abc)", "\"a\nb\"", "\"a\tb\"",
      "\"\x01\"", R"("\x")", R"("\u12")", R"("\u12G4")", R"("\ud834")", R"("\ud834x")",
      R"("\ud834\u0041")", R"("\udd1e")", "\"\x80\"", "\"\xc3\"", "\"\xc0\xaf\"",
      "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xff\"", "{", "}", "[", "]", "[1,]",
      "[,1]", "{\"a\":1,}", "{\"a\"}", "{\"a\" 1}", "{a:1}", "{'a':1}", "[1 2]", "{} {}", "1 2",
      "// c\n1", "/* c */ 1", "\xEF\xBB", "\xEF\xBB\xBF", "\xEF\xBBx1", std::string("\"a\0b\"", 5),
      std::string("\0", 1), std::string("[1,\0]", 5), std::string("tr\0ue", 5),
      // nlohmann's lexer reads a NUL byte between tokens as the end of the input.
      std::string("1\0", 2), std::string("{\"a\":1} \0 garbage", 17)};
  for (size_t i = 0; i < texts.size(); ++i) ExpectSame(texts[i], "case " + std::to_string(i));
}

TEST(JsonParseTest, DeepDocumentsGoToNlohmann) {
  for (int depth : {kMaxFastDepth - 1, kMaxFastDepth, kMaxFastDepth + 1, 5000}) {
    const std::string ok = std::string(depth, '[') + std::string(depth, ']');
    ExpectSame(ok, "depth " + std::to_string(depth));
    const std::string bad = std::string(depth, '[') + std::string(depth - 1, ']');
    ExpectSame(bad, "unbalanced depth " + std::to_string(depth));
    EXPECT_TRUE(Parse(bad).is_discarded());
  }
}

TEST(JsonParseTest, SameAsNlohmannOnEveryRepositoryManifest) {
  const auto manifests = testing::RepositoryManifests(std::filesystem::path(TIDEPOOL_SOURCE_DIR));
  ASSERT_GT(manifests.size(), 10u);
  for (const json& m : manifests) {
    json applied = m;
    applied["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
        m.dump() + "\n";
    ExpectSame(applied.dump(), "compact");
    ExpectSame(applied.dump(2), "indented");
    ExpectSame(applied.dump(-1, ' ', true), "ASCII-escaped");
  }
}

// Documents built from random pieces, then corrupted by random byte edits: the two parsers
// must agree on every one (the same tree, or both refuse).
TEST(JsonParseTest, SameAsNlohmannOnGeneratedAndCorruptedTexts) {
  static const std::vector<std::string> kPieces = {
      "{", "}", "[", "]", ",", ":", " ", "\n", "\"a\"", "\"key\"", "\"\\u00e9\"", "\"\\ud834\\udd1e\"",
      "\"\\n\\t\\\"\"", "\"é€\"", "0", "-0", "12", "-7", "3.25", "1e3", "-2E-2", "true", "false",
      "null", "18446744073709551615", "99999999999999999999", "\"\x80\"", "\\", "\"", "e", ".",
      "-", "\x01", "\xc3\xa9", "\xff"};
  Random rng(42);
  int accepted = 0;
  for (int n = 0; n < 30000; ++n) {
    std::string text;
    const uint64_t parts = 1 + rng.Uniform(12);
    for (uint64_t k = 0; k < parts; ++k) text += kPieces[rng.Uniform(kPieces.size())];
    ExpectSame(text, "generated " + std::to_string(n));
    if (!Reference(text).is_discarded()) ++accepted;
  }
  EXPECT_GT(accepted, 500);  // the generator reaches valid documents too
  const auto manifests = testing::RepositoryManifests(std::filesystem::path(TIDEPOOL_SOURCE_DIR));
  for (size_t m = 0; m < manifests.size(); ++m) {
    const std::string text = manifests[m].dump();
    for (int k = 0; k < 200; ++k) {
      std::string bad = text;
      const size_t at = rng.Uniform(bad.size());
      switch (rng.Uniform(3)) {
        case 0:
          bad[at] = kPieces[rng.Uniform(kPieces.size())][0];
          break;
        case 1:
          bad.erase(at, 1);
          break;
        default:
          bad.insert(at, kPieces[rng.Uniform(kPieces.size())]);
          break;
      }
      ExpectSame(bad, "manifest " + std::to_string(m) + " edit " + std::to_string(k));
    }
  }
}

}  // namespace
}  // namespace tidepool::apiserver::json_text
