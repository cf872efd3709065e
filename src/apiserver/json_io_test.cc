#include "apiserver/json_io.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidepool::apiserver::json_io {
namespace {

using json = nlohmann::json;

std::string NlohmannDump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The tree's shape with every node's type: nlohmann's operator== holds 1u == 1, this does not.
std::string Typed(const json& j) {
  std::string out = std::to_string(static_cast<int>(j.type())) + ":";
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) out += k + "=" + Typed(v) + ",";
  } else if (j.is_array()) {
    for (const json& v : j) out += Typed(v) + ",";
  } else {
    out += NlohmannDump(j);
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ParseTest, GivesNlohmannsTreeOrRefusesWhereNlohmannDoes) {
  struct Case {
    std::string name;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"scalars", R"([null,true,false,0,-0,1,-1,"s",""])"},
      {"integer limits",
       R"([9223372036854775807,9223372036854775808,-9223372036854775808,18446744073709551615])"},
      {"beyond uint64 is a double", R"([18446744073709551616,-9223372036854775809])"},
      {"doubles", R"([1.0,-1.5,0.1,1e5,1E-7,2.5e+3,-0.0,1.7976931348623157e308,5e-324,)"
                  R"(0.30000000000000004,123456789012345678901234567890.0])"},
      {"beyond a double's range", "[1e400]"},
      {"beyond a double's range, negative", "[-1e400]"},
      {"below a double's range", "[1e-400,-1e-400]"},
      {"strings with escapes",
       R"(["a\"b","\\","\/","\b\f\n\r\t","\u0001\u001f","\u00e9\u20ac","\ud83d\ude00"])"},
      {"utf-8 text", "[\"caf\xc3\xa9\",\"\xe2\x82\xac\"]"},
      {"nested", R"({"a":{"b":[{"c":[[],{}]}]},"d":[1,[2,[3]]]})"},
      {"repeated key keeps the last", R"({"a":1,"b":2,"a":3})"},
      {"surrounding whitespace", " \n\t{ \"a\" : [ 1 , 2 ] }\r\n "},
      {"a long string with an escape in the middle",
       "\"" + std::string(10000, 'x') + "\\n" + std::string(5000, 'z') + "\""},
      {"empty", ""},
      {"only whitespace", "  "},
      {"trailing text", R"({"a":1} x)"},
      {"two documents", R"({} {})"},
      {"trailing comma", R"({"a":1,})"},
      {"comment", R"({"a":1 /* c */})"},
      {"unterminated string", R"({"a":"b)"},
      {"bad escape", R"(["\x"])"},
      {"lone surrogate", R"(["\ud800"])"},
      {"control character in a string", "[\"a\x01\"]"},
      {"invalid utf-8", "[\"\xff\"]"},
      {"truncated utf-8", "[\"\xc3\"]"},
      {"leading zero", "[01]"},
      {"bare minus", "[-]"},
      {"NaN", "[NaN]"},
      {"single quotes", "['a']"},
      {"unquoted key", "{a:1}"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json want = json::parse(c.text, nullptr, /*allow_exceptions=*/false);
    StatusOr<json> got = Parse(c.text);
    if (want.is_discarded()) {
      EXPECT_FALSE(got.ok()) << NlohmannDump(*got);
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(Typed(*got), Typed(want));
    EXPECT_EQ(NlohmannDump(*got), NlohmannDump(want));
  }
}

TEST(ParseTest, ErrorSaysWhereAndWhat) {
  StatusOr<json> got = Parse(R"({"a":tru})");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find("at byte"), std::string::npos) << got.status().ToString();
}

// The one place Parse and nlohmann differ (found by the json fuzz target): nlohmann takes a NUL
// byte as the end of the input; here it is extra data after the value, as in encoding/json.
TEST(ParseTest, NulByteIsAnErrorWhereNlohmannStops) {
  const std::string text("21\0-0,", 6);
  EXPECT_EQ(json::parse(text, nullptr, false), json(21));
  StatusOr<json> got = Parse(text);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("at byte 2"), std::string::npos) << got.status().ToString();
  EXPECT_FALSE(Parse(std::string("\0", 1)).ok());
  EXPECT_FALSE(Parse(std::string("\"a\0\"", 4)).ok());
}

// Exponents beyond Boost's int range (found by the json fuzz target): nlohmann reads them with
// strtod, so a tiny number is 0 and a huge one is refused; Parse now agrees.
TEST(ParseTest, ExponentsBeyondIntRangeReadAsNlohmannReadsThem) {
  for (const std::string text :
       {"1E-409223372036854775806", "[1,-0,1E-409223372036854775806,10]",
        "{\"a\":0e99999999999999999999}", "-5e-99999999999999999999"}) {
    SCOPED_TRACE(text);
    const json want = json::parse(text);
    StatusOr<json> got = Parse(text);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, want);
  }
  for (const std::string text : {"1e99999999999999999999", "[1e99999999999999999999]"}) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(json::parse(text, nullptr, false).is_discarded());
    EXPECT_FALSE(Parse(text).ok());
  }
}

TEST(ParseTest, DepthLimit) {
  const std::string ok = std::string(kMaxDepth - 1, '[') + std::string(kMaxDepth - 1, ']');
  EXPECT_TRUE(Parse(ok).ok());
  const std::string deep = std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
  EXPECT_FALSE(Parse(deep).ok());
}

TEST(ParseTest, ListsRepeatedKeysByPath) {
  std::vector<std::string> dups;
  auto j = Parse(R"({"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2"}},)"
                 R"("spec":{"containers":[{"name":"c"},{"image":"i","image":"j"}]},"kind":"Pod",)"
                 R"("kind":"Pod"})",
                 &dups);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["metadata"]["name"], "b");  // the last one wins, as before
  EXPECT_EQ(dups, (std::vector<std::string>{"metadata.name", "metadata.labels.x",
                                            "spec.containers[1].image", "kind"}));
  std::vector<std::string> none;
  ASSERT_TRUE(Parse(R"({"a":[{"a":1},{"a":2}],"b":{"a":1}})", &none).ok());
  EXPECT_TRUE(none.empty());
}

struct SyntaxCase {
  std::string text;
  std::string want;  // Go's encoding/json error text; empty: valid
};

// Go 1.23's encoding/json (json.Unmarshal / json.Valid) on each text.
const SyntaxCase kSyntaxCases[] = {
    {R"({"a":1})", ""},
    {" [1, -0.5e+3, true, false, null, \"\\u00e9\\n\"] ", ""},
    {"", "unexpected end of JSON input"},
    {"   ", "unexpected end of JSON input"},
    {R"({"a":1)", "unexpected end of JSON input"},
    {"x", "invalid character 'x' looking for beginning of value"},
    {R"({a:1})", "invalid character 'a' looking for beginning of object key string"},
    {R"({"a" 1})", "invalid character '1' after object key"},
    {R"({"a":1 "b":2})", "invalid character '\"' after object key:value pair"},
    {R"({"a":1,})", "invalid character '}' looking for beginning of object key string"},
    {R"([1 2])", "invalid character '2' after array element"},
    {R"([1,])", "invalid character ']' looking for beginning of value"},
    {R"({"a":tru})", "invalid character '}' in literal true (expecting 'e')"},
    {R"({"a":nul1})", "invalid character '1' in literal null (expecting 'l')"},
    {R"({"a":-})", "invalid character '}' in numeric literal"},
    {R"({"a":1.})", "invalid character '}' after decimal point in numeric literal"},
    {R"({"a":1e})", "invalid character '}' in exponent of numeric literal"},
    {R"({"a":01})", "invalid character '1' after object key:value pair"},
    {R"({"a":"\q"})", "invalid character 'q' in string escape code"},
    {R"({"a":"\u12x4"})", "invalid character 'x' in \\u hexadecimal character escape"},
    {"{\"a\":\"\t\"}", "invalid character '\\t' in string literal"},
    {R"({"a":1}})", "invalid character '}' after top-level value"},
    {"{'a':1}", "invalid character '\\'' looking for beginning of object key string"},
    // Go's quoteChar reads a byte as the rune of that value: 0xC3 is 'Ã', printed as it is.
    {"\xc3", "invalid character '\xc3\x83' looking for beginning of value"},
};

// ParseWithoutManagedFields: Parse's tree minus the managedFields of the document's
// ObjectMetas (the root's, a watch event object's, a list item's), whatever the value's shape;
// a "managedFields" anywhere else, a template's included, and everything around, stays.
TEST(ParseTest, WithoutManagedFieldsDropsOnlyObjectMetas) {
  const std::string mf =
      R"([{"manager":"kubectl","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:a":{}}}},"n":[1,-2,3.5,true,null]}])";
  struct Case {
    std::string name, text, want;
  };
  const std::vector<Case> cases = {
      {"object",
       R"({"metadata":{"name":"a","managedFields":)" + mf + R"(,"uid":"u"},"spec":{"x":1}})",
       R"({"metadata":{"name":"a","uid":"u"},"spec":{"x":1}})"},
      {"watch event",
       R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"managedFields":)" + mf +
           R"(,"labels":{"managedFields":"v"}}}})",
       R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"labels":{"managedFields":"v"}}}})"},
      {"list items",
       R"({"items":[{"metadata":{"managedFields":[]}},{"metadata":{"managedFields":"s"}}]})",
       R"({"items":[{"metadata":{}},{"metadata":{}}]})"},
      {"scalar and null values", R"({"metadata":{"managedFields":null,"b":2}})",
       R"({"metadata":{"b":2}})"},
      {"not a metadata object", R"({"data":{"managedFields":"kept"},"spec":{"managedFields":[1]}})",
       R"({"data":{"managedFields":"kept"},"spec":{"managedFields":[1]}})"},
      {"metadata that is not an object", R"({"metadata":["managedFields"]})",
       R"({"metadata":["managedFields"]})"},
      {"a template's metadata",
       R"({"spec":{"template":{"metadata":{"managedFields":[{}],"name":"t"}}}})",
       R"({"spec":{"template":{"metadata":{"managedFields":[{}],"name":"t"}}}})"},
      {"an event object's template",
       R"({"type":"ADDED","object":{"metadata":{"managedFields":[]},"spec":{"jobTemplate":{"metadata":{"managedFields":[]}}}}})",
       R"({"type":"ADDED","object":{"metadata":{},"spec":{"jobTemplate":{"metadata":{"managedFields":[]}}}}})"},
      {"items below the root", R"({"spec":{"items":[{"metadata":{"managedFields":[]}}]}})",
       R"({"spec":{"items":[{"metadata":{"managedFields":[]}}]}})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<json> got = ParseWithoutManagedFields(c.text);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(Typed(*got), Typed(json::parse(c.want)));
  }
  // Refused where Parse refuses, inside the skipped value too.
  for (const char* bad :
       {R"({"metadata":{"managedFields":[1,}})", R"({"metadata":{"managedFields":1e400}})"}) {
    EXPECT_FALSE(Parse(bad).ok()) << bad;
    EXPECT_FALSE(ParseWithoutManagedFields(bad).ok()) << bad;
  }
}

TEST(GoSyntaxErrorTest, SaysWhatGoSays) {
  for (const SyntaxCase& c : kSyntaxCases) {
    EXPECT_EQ(GoSyntaxError(c.text), c.want) << c.text;
  }
}

TEST(DumpTest, WritesWhatNlohmannWrites) {
  std::string every_ascii;
  for (int c = 1; c < 128; ++c) every_ascii.push_back(static_cast<char>(c));
  std::vector<std::pair<std::string, json>> cases = {
      {"scalars", json::parse(R"([null,true,false,0,-1,1,"s",""])")},
      {"integer limits", json::array({std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<uint64_t>::max()})},
      {"doubles", json::array({0.0, -0.0, 1.0, 0.1, 1e300, 5e-324, 1.5e-7, 123456789.125,
                               std::numeric_limits<double>::infinity()})},
      {"every ASCII character", json::array({every_ascii, json{{every_ascii, every_ascii}}})},
      {"utf-8 text", json::array({"caf\xc3\xa9", "\xf0\x9f\x98\x80 \\ \""})},
      {"invalid utf-8 is replaced", json::array({"a\xff" "b", "\xc3", std::string("\0x", 2)})},
      {"nested and empty", json::parse(R"({"a":{},"b":[],"c":[{}],"d":{"e":[[[]]]}})")},
      {"keys needing escapes", json{{"a\"b", 1}, {"\n", 2}, {"\xc3\xa9", 3}}},
  };
  // A stored object as the server writes it: last-applied annotation, managedFields.
  json pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":
      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}\n"},
      "managedFields":[{"fieldsV1":{"f:metadata":{"f:annotations":{".":{}}}},
      "manager":"kubectl-client-side-apply","operation":"Update"}],"resourceVersion":"12"},
      "spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})");
  cases.push_back({"a pod", pod});
  for (const auto& [name, value] : cases) {
    SCOPED_TRACE(name);
    EXPECT_EQ(Dump(value), NlohmannDump(value));
    std::string appended = "prefix";
    Dump(value, &appended);
    EXPECT_EQ(appended, "prefix" + NlohmannDump(value));
  }
}

TEST(DumpTest, OneSpecialByteAnywhereInStringsOfEveryLength) {
  // The string writer looks at eight bytes at a time, the last eight overlapping: put each
  // kind of byte at every position of strings from 1 to 40 bytes.
  const std::vector<char> bytes = {'"', '\\', '\n', '\x01', '\x1f', ' ', '!', '#', '[', ']',
                                   '\x7f', 'a', '\xc3', '\xff', '\x80'};
  for (size_t len = 1; len <= 40; ++len) {
    for (size_t at = 0; at < len; ++at) {
      for (const char b : bytes) {
        std::string s(len, 'x');
        s[at] = b;
        const json j = json::array({s, json{{s, 1}}});
        ASSERT_EQ(Dump(j), NlohmannDump(j)) << "length " << len << " at " << at << " byte "
                                            << static_cast<int>(static_cast<unsigned char>(b));
      }
    }
  }
}

TEST(DumpTest, RoundTripsALargeDocument) {
  // The generated schema the repository ships (about 1 MB of real JSON): parse and dump it
  // both ways.
  const std::string text =
      ReadFile(std::string(TIDEPOOL_SOURCE_DIR) + "/src/apiserver/schema/k8s_schema.json");
  ASSERT_FALSE(text.empty());
  StatusOr<json> got = Parse(text);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const json want = json::parse(text);
  EXPECT_EQ(Typed(*got), Typed(want));
  EXPECT_EQ(Dump(*got), NlohmannDump(want));
}

TEST(DumpTest, MarksWhereANodeStarts) {
  json obj = json::parse(R"({"kind":"Pod","metadata":{"a":"\"x\"","resourceVersion":"","z":1}})");
  const json* rv = &obj["metadata"]["resourceVersion"];
  std::string out = "ab";
  size_t at = 0;
  Dump(obj, &out, rv, &at);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(out.substr(at, 6), R"("","z")");
  EXPECT_EQ(out.substr(2), NlohmannDump(obj));

  const json other = json("elsewhere");
  std::string out2;
  Dump(obj, &out2, &other, &at);
  EXPECT_EQ(at, std::string::npos);
}

}  // namespace
}  // namespace tidepool::apiserver::json_io
