#include "api/codec/yaml.h"

#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "testing/builders.h"

namespace tidepool::api::codec {
namespace {

using ::nlohmann::json;
using ::testing::HasSubstr;
using ::tidepool::testing::Q;

// The seed walkthrough's step 3 manifest, verbatim, with its `important:` typo.
constexpr std::string_view kSeedPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: gpu-test-pod
spec:
  restartPolicy: Never
  containers:
  - name: cuda-container
    image: nvidia/cuda:11.4.2-base-ubuntu20.04
    command: ["/bin/bash", "-c", "sleep 3600"] # pause for 1 hour
    resources:
      limits:
        nvidia.com/gpu: 1
  tolerations:
  - important: "nvidia.com/gpu"
    operator: "Equal"
    value: "present"
    effect: "NoSchedule"
)";

std::string Corrected(std::string_view manifest) {
  std::string s(manifest);
  s.replace(s.find("important:"), std::string_view("important:").size(), "key:");
  return s;
}

// Parses a stream that must hold exactly one document.
json One(std::string_view yaml) {
  auto docs = ParseYamlDocuments(yaml);
  EXPECT_TRUE(docs.ok()) << docs.status().ToString() << "\n" << yaml;
  if (!docs.ok()) {
    return json();
  }
  EXPECT_EQ(docs->size(), 1u) << yaml;
  return docs->empty() ? json() : docs->front();
}

TEST(YamlTest, SeedManifestWithTypoDecodesWithEmptyKey) {
  ::testing::internal::CaptureStderr();
  json doc = One(kSeedPod);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(doc["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], 1);
  EXPECT_EQ(doc["spec"]["tolerations"][0]["important"], "nvidia.com/gpu");

  auto pod = PodFromJson(doc);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->meta.name, "gpu-test-pod");
  EXPECT_EQ(pod->meta.namespace_, "");
  EXPECT_EQ(pod->spec.restart_policy, "Never");
  ASSERT_EQ(pod->spec.containers.size(), 1u);
  const Container& c = pod->spec.containers[0];
  EXPECT_EQ(c.name, "cuda-container");
  EXPECT_EQ(c.image, "nvidia/cuda:11.4.2-base-ubuntu20.04");
  EXPECT_EQ(c.command, (std::vector<std::string>{"/bin/bash", "-c", "sleep 3600"}));
  EXPECT_EQ(c.resources.limits, (ResourceList{{"nvidia.com/gpu", Q("1")}}));
  EXPECT_TRUE(c.resources.requests.empty());  // ApplyPodDefaults' job, not the codec's
  // The unknown field `important` is ignored: the toleration has key "" and operator Equal.
  // Note that v1.Toleration.ToleratesTaint treats an empty key as "any key", so this toleration
  // matches every taint whose value is "present"; it is the API server's validation (empty key
  // requires operator Exists), not the codec or the matcher, that rejects the manifest.
  ASSERT_EQ(pod->spec.tolerations.size(), 1u);
  const Toleration& t = pod->spec.tolerations[0];
  EXPECT_EQ(t.key, "");
  EXPECT_EQ(t.op, TolerationOperator::kEqual);
  EXPECT_EQ(t.value, "present");
  EXPECT_EQ(t.effect, TaintEffect::kNoSchedule);
  EXPECT_TRUE(t.ToleratesTaint(Taint{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}));
  EXPECT_TRUE(t.ToleratesTaint(Taint{"other", "present", TaintEffect::kNoSchedule}));
  EXPECT_FALSE(t.ToleratesTaint(Taint{"nvidia.com/gpu", "absent", TaintEffect::kNoSchedule}));
}

TEST(YamlTest, CorrectedSeedManifestToleratesTheGpuTaint) {
  auto pod = PodFromJson(One(Corrected(kSeedPod)));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  ASSERT_EQ(pod->spec.tolerations.size(), 1u);
  const Toleration& t = pod->spec.tolerations[0];
  EXPECT_EQ(t, (Toleration{"nvidia.com/gpu", TolerationOperator::kEqual, "present",
                           TaintEffect::kNoSchedule, std::nullopt}));
  EXPECT_TRUE(t.ToleratesTaint(Taint{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}));

  // YAML -> Pod -> JSON text -> Pod.
  auto reparsed = ParseJson(DumpJson(PodToJson(*pod)));
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString();
  auto again = PodFromJson(*reparsed);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *pod);
}

// Plain scalars are typed as go-yaml v2 (sigs.k8s.io/yaml, so kubectl and kube-apiserver)
// types them, YAML 1.1's way, then written as encoding/json writes them.
TEST(YamlTest, ScalarTyping) {
  struct Case {
    std::string yaml_value;
    json expected;
  };
  const std::vector<Case> cases = {
      // Null.
      {"~", nullptr},
      {"null", nullptr},
      {"Null", nullptr},
      {"NULL", nullptr},
      {"", nullptr},
      {"'~'", "~"},
      {"\"null\"", "null"},
      {"nULL", "nULL"},
      // Booleans: YAML 1.1's, as go-yaml v2 reads them.
      {"true", true},
      {"False", false},
      {"TRUE", true},
      {"yes", true},
      {"Yes", true},
      {"NO", false},
      {"on", true},
      {"Off", false},
      {"y", true},
      {"N", false},
      {"yES", "yES"},
      {"'true'", "true"},
      {"\"yes\"", "yes"},
      // Integers: Go's strconv.ParseInt with base 0, underscores removed first.
      {"1", 1},
      {"-12", -12},
      {"+7", 7},
      {"0", 0},
      {"-0", 0},
      {"0755", 493},
      {"-0755", -493},
      {"0o17", 15},
      {"0O17", 15},
      {"0x1F", 31},
      {"0X1f", 31},
      {"0b101", 5},
      {"-0b101", -5},
      {"1_000", 1000},
      {"1__0_", 10},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
      {"9223372036854775808", uint64_t{9223372036854775808u}},
      {"18446744073709551615", UINT64_MAX},
      {"18446744073709551616", 18446744073709551616.0},  // a float, beyond 64 bits
      {"-9223372036854775809", INT64_MIN},  // a float, -2^63 once rounded: an integer again
      {"\"1\"", "1"},
      {"'1'", "1"},
      {"0x", "0x"},
      {"0b", "0b"},
      {"0xZ", "0xZ"},
      {"12:30", "12:30"},  // no sexagesimal numbers in go-yaml
      {"1-2", "1-2"},
      // Floats; a whole number is written without a fraction by encoding/json, so it is an
      // integer ("08" is not octal: a float 8).
      {"1.5", 1.5},
      {"-0.25", -0.25},
      {".5", 0.5},
      {"+.5", 0.5},
      {".5_5", 0.55},
      {"1.", 1},
      {"1.0", 1},
      {"1e3", 1000},
      {"08", 8},
      {"09.5", 9.5},
      {"2.5e-3", 0.0025},
      {"1_000.5", 1000.5},
      {"1e20", 1e20},  // whole, but beyond 64 bits
      {"1e21", 1e21},  // encoding/json writes 1e+21
      {"1e-400", 0},   // underflow is zero, as in Go
      {"1e999", "1e999"},  // overflow is not a float
      {"._5", "._5"},
      {".5_", ".5_"},
      {".e3", ".e3"},
      {"1e", "1e"},
      {".infinity", ".infinity"},
      // Strings.
      {"500m", "500m"},
      {"1Gi", "1Gi"},
      {"hello world", "hello world"},
      {"\"a\\tb\"", "a\tb"},
      {"'it''s'", "it's"},
      {"2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},  // timestamps stay strings
      {"2026-01-01", "2026-01-01"},
      {"nvidia/cuda:11.4.2", "nvidia/cuda:11.4.2"},
      {"<<", "<<"},
      {"|\n  line1\n  line2", "line1\nline2\n"},
      {">-\n  folded\n  text", "folded text"},
      {"|\n  yes", "yes\n"},
      {"[1, \"1\", a, ~, yes]", json::array({1, "1", "a", nullptr, true})},
      {"{a: 1, b: [true]}", json{{"a", 1}, {"b", json::array({true})}}},
      {"{}", json::object()},
      {"[]", json::array()},
      // Tags.
      {"!!str 1", "1"},
      {"!!str yes", "yes"},
      {"!!int \"42\"", 42},
      {"!!int 0x10", 16},
      {"!!float 1", 1},
      {"!!float 1.5", 1.5},
      {"!!bool \"yes\"", true},
      {"!!null ''", nullptr},
      {"! 1", "1"},
      {"!foo 1", "1"},
      {"!!timestamp 2026-01-01", "2026-01-01"},
      {"!!binary aGVsbG8=", "hello"},
      {"!!binary |\n  aGVs\n  bG8=", "hello"},
      {"!!binary /w==", "\xef\xbf\xbd"},  // a byte that is not UTF-8: U+FFFD, as encoding/json
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("v: " + c.yaml_value);
    json doc = One("v: " + c.yaml_value + "\n");
    ASSERT_TRUE(doc.is_object());
    const json& v = doc["v"];
    EXPECT_EQ(v, c.expected) << v.dump();
    EXPECT_EQ(v.type(), c.expected.type()) << v.dump();
  }
}

// sigs.k8s.io/yaml turns go-yaml's keys into strings: booleans, decimal integers, floats as
// strconv.FormatFloat(f, 'g', -1, 32).
TEST(YamlTest, KeysAreConvertedAsKubectlConvertsThem) {
  struct Case {
    std::string yaml_key;
    std::string key;
  };
  const std::vector<Case> cases = {
      {"a", "a"},          {"yes", "true"},     {"off", "false"},    {"'yes'", "yes"},
      {"1", "1"},          {"-1", "-1"},        {"0x10", "16"},      {"0755", "493"},
      {"1_0", "10"},       {"1.0", "1"},        {"1.5", "1.5"},      {"0.1", "0.1"},
      {"1e3", "1000"},     {"1e6", "1e+06"},    {"123456", "123456"}, {"1e-5", "1e-05"},
      {"0.0001", "0.0001"}, {"-0.0", "-0"},     {"3.14159265358979", "3.1415927"},
      {"1e39", ".inf"},    {".inf", ".inf"},    {"-.Inf", "-.inf"},  {".nan", ".nan"},
      {"\"1.0\"", "1.0"},  {"!!str 1.0", "1.0"}, {"2026-01-01", "2026-01-01"},
      {"9223372036854775807", "9223372036854775807"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml_key);
    EXPECT_EQ(One(c.yaml_key + ": v\n"), (json{{c.key, "v"}}));
  }
  // Keys equal once converted are duplicates.
  auto dup = ParseYamlDocuments("yes: 1\ntrue: 2\n");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(), "yaml: line 2, column 1: duplicate key");
}

// What sigs.k8s.io/yaml and encoding/json refuse, with their texts (no position: kubectl prints
// none), reported when the document ends, after its syntax errors.
TEST(YamlTest, KeysAndValuesJsonCannotHoldAreErrors) {
  struct Case {
    std::string yaml;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"a: .inf\n", "json: unsupported value: +Inf"},
      {"a: [1, -.INF]\n", "json: unsupported value: -Inf"},
      {"a: {b: .NaN}\n", "json: unsupported value: NaN"},
      {"a: !!float .inf\n", "json: unsupported value: +Inf"},
      {"--- .nan\n", "json: unsupported value: NaN"},
      {"~: x\n", "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"x\""},
      {"null: 1\n", "unsupported map key of type: %!s(<nil>), key: <nil>, value: 1"},
      {"? \n: [1, a, ~]\n",
       "unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{1, \"a\", "
       "interface {}(nil)}"},
      {"? ~\n: {b: 1.5}\n",
       "unsupported map key of type: %!s(<nil>), key: <nil>, value: map[interface "
       "{}]interface {}{\"b\":1.5}"},
      {"18446744073709551615: x\n",
       "unsupported map key of type: uint64, key: 0xffffffffffffffff, value: \"x\""},
      // The value of a key that cannot be converted may hold anchors: found by the kubeconfig
      // fuzz target (a heap-use-after-free when the value was dropped).
      {"~: &a [1, {b: 2}]\nc: *a\n",
       "unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{1, "
       "map[interface {}]interface {}{\"b\":2}}"},
      // Key errors come before value errors; both after the document's syntax errors, and
      // before the next document's.
      {"a: .inf\n~: 1\n", "unsupported map key of type: %!s(<nil>), key: <nil>, value: 1"},
      {"a: .inf\nb: [\n", "yaml: line 3, column 1: did not find expected node content"},
      {"a: .inf\n---\nb: [\n", "json: unsupported value: +Inf"},
      // Tags whose text does not fit: go-yaml's words.
      {"a: !!int abc\n", "yaml: line 1, column 4: cannot decode !!str `abc` as a !!int"},
      {"a: !!int 1.5\n", "yaml: line 1, column 4: cannot decode !!float `1.5` as a !!int"},
      {"a: !!bool 1\n", "yaml: line 1, column 4: cannot decode !!int `1` as a !!bool"},
      {"a: !!null x\n", "yaml: line 1, column 4: cannot decode !!str `x` as a !!null"},
      {"a: !!float 18446744073709551615\n",
       "yaml: line 1, column 4: cannot decode !!int `18446744073709551615` as a !!float"},
      {"a: !!binary abc\n", "yaml: line 1, column 4: !!binary value contains invalid base64 data"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto docs = ParseYamlDocuments(c.yaml);
    ASSERT_FALSE(docs.ok());
    EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(docs.status().message(), c.error);
  }
}

TEST(YamlTest, MultipleDocumentsSkipEmptyOnes) {
  struct Case {
    std::string name;
    std::string yaml;
    std::vector<json> expected;
  };
  const std::vector<Case> cases = {
      {"empty stream", "", {}},
      {"only a comment", "# nothing here\n", {}},
      {"only separators", "---\n---\n...\n", {}},
      {"null documents", "--- ~\n--- null\n", {}},
      {"one document", "a: 1\n", {json{{"a", 1}}}},
      {"leading comment and separator", "# c\n---\na: 1\n", {json{{"a", 1}}}},
      {"three with empty ones between",
       "---\nkind: A\n---\n---\n# just a comment\n---\nkind: B\n...\n---\nkind: C\n---\n",
       {json{{"kind", "A"}}, json{{"kind", "B"}}, json{{"kind", "C"}}}},
      {"scalar and list documents", "--- hello\n--- [1, 2]\n",
       {json("hello"), json::array({1, 2})}},
      {"false is not null", "--- false\n--- 0\n", {json(false), json(0)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = ParseYamlDocuments(c.yaml);
    ASSERT_TRUE(docs.ok()) << docs.status().ToString();
    EXPECT_EQ(*docs, c.expected);
  }
}

TEST(YamlTest, AnchorsAliasesAndMergeKeys) {
  json doc = One(R"(
base: &base
  cpu: 500m
  memory: 1Gi
labels: &labels {app: web, tier: front}
small:
  <<: *base
  memory: 256Mi
both:
  <<: [*base, *labels]
  extra: true
copy: *labels
list: &list [a, b]
lists: [*list, *list]
)");
  EXPECT_EQ(doc["small"], (json{{"cpu", "500m"}, {"memory", "256Mi"}}));
  EXPECT_EQ(doc["both"], (json{{"cpu", "500m"},
                               {"memory", "1Gi"},
                               {"app", "web"},
                               {"tier", "front"},
                               {"extra", true}}));
  EXPECT_EQ(doc["copy"], (json{{"app", "web"}, {"tier", "front"}}));
  EXPECT_EQ(doc["lists"], json::parse(R"([["a","b"],["a","b"]])"));
  EXPECT_FALSE(doc["small"].contains("<<"));
}

TEST(YamlTest, MergeKeysAreAppliedWhereTheyStand) {
  // As go-yaml v2 merges: "<<" sets the merged mapping's keys at its place, over keys written
  // before it and under keys written after it; a later "<<" over an earlier one; of a list of
  // mappings, the earlier wins. "<<" quoted is an ordinary key, tagged !!merge it merges.
  json doc = One(R"(
after: {x: 1, <<: {x: 2, z: 2}}
before: {<<: {x: 2, z: 2}, x: 1}
list: {<<: [{x: 1}, {x: 2, z: 2}]}
twice: {<<: {x: 1}, <<: {x: 2, z: 3}}
quoted: {"<<": {x: 1}}
tagged: {!!merge "<<": {x: 1}}
empty: {<<: [], x: 1}
)");
  EXPECT_EQ(doc["after"], (json{{"x", 2}, {"z", 2}}));
  EXPECT_EQ(doc["before"], (json{{"x", 1}, {"z", 2}}));
  EXPECT_EQ(doc["list"], (json{{"x", 1}, {"z", 2}}));
  EXPECT_EQ(doc["twice"], (json{{"x", 2}, {"z", 3}}));
  EXPECT_EQ(doc["quoted"], (json{{"<<", {{"x", 1}}}}));
  EXPECT_EQ(doc["tagged"], (json{{"x", 1}}));
  EXPECT_EQ(doc["empty"], (json{{"x", 1}}));
  // An anchor inside a merged mapping stays usable after the merge, and so does one inside a
  // value a merge replaced.
  EXPECT_EQ(One("a:\n  <<: {x: &y [1, 2]}\nb: *y\n"),
            json::parse(R"({"a": {"x": [1, 2]}, "b": [1, 2]})"));
  EXPECT_EQ(One("a: {x: &v [1, {w: 2}], <<: {x: 3}}\nb: *v\n"),
            json::parse(R"({"a": {"x": 3}, "b": [1, {"w": 2}]})"));
  // A key written twice is a duplicate, merges between or not.
  auto dup = ParseYamlDocuments("{x: 1, <<: {x: 2}, x: 3}");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(), "yaml: line 1, column 20: duplicate key");
}

TEST(YamlTest, AnchorsAreRedefinedAndAliasesCanBeKeys) {
  EXPECT_EQ(One("a: &x 1\nb: *x\nc: &x [2]\nd: *x\n"),
            json::parse(R"({"a": 1, "b": 1, "c": [2], "d": [2]})"));
  // An alias of a scalar as a key is the scalar's text.
  EXPECT_EQ(One("x: &k 1\n*k : v\n"), (json{{"x", 1}, {"1", "v"}}));
  EXPECT_EQ(One("&k a: *k\n"), (json{{"a", "a"}}));
}

TEST(YamlTest, ErrorsCarryLineAndColumn) {
  struct Case {
    std::string name;
    std::string yaml;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"duplicate key", "a: 1\nb:\n  c: 2\n  c: 3\n", "yaml: line 4, column 3: duplicate key"},
      {"duplicate top-level key in second document", "a: 1\n---\nx: 1\ny: 2\nx: 3\n",
       "yaml: line 5, column 1: duplicate key"},
      // The position of a node is that of its first character: a quoted scalar's quote, a tag.
      {"keys equal as JSON", "1: a\n\"1\": b\n", "yaml: line 2, column 1: duplicate key"},
      // libyaml's own problem texts (go-yaml prints the same words), at libyaml's problem mark.
      {"unterminated quote", "a: 1\n---\nb: \"abc\nc: 2\n",
       "yaml: line 5, column 1: found unexpected end of stream"},
      {"unterminated quote at end", "a: \"abc\n",
       "yaml: line 2, column 1: found unexpected end of stream"},
      {"bad indentation", "a:\n  b: 1\n c: 2\n", "yaml: line 3, column 2: did not find expected key"},
      {"mapping value in a plain scalar", "key: value: x\n",
       "yaml: line 1, column 11: mapping values are not allowed in this context"},
      {"reserved indicator", "a: @b\n",
       "yaml: line 1, column 4: found character that cannot start any token"},
      {"unclosed flow sequence", "a: [1, 2\n",
       "yaml: line 2, column 1: did not find expected ',' or ']'"},
      {"undefined tag handle", "a: !e!x 1\n", "yaml: line 1, column 4: found undefined tag handle"},
      {"control character", "a: b\n\x1e\n", "yaml: line 2, column 1: control characters are not allowed"},
      // Aliases: go-yaml's texts, at the alias' '*'.
      {"undefined alias", "a: *nope\n", "yaml: line 1, column 4: unknown anchor 'nope' referenced"},
      {"cyclic alias", "a: &x [1, *x]\n",
       "yaml: line 1, column 11: anchor 'x' value contains itself"},
      {"sequence as key", "? [a, b]\n: 1\n", "yaml: line 1, column 3: mapping keys must be scalars"},
      {"alias of a mapping as key", "a: &m {b: 1}\n*m : 2\n",
       "yaml: line 2, column 1: mapping keys must be scalars"},
      {"tag mismatch", "a: !!int abc\n", "yaml: line 1, column 4: cannot decode !!str `abc` as a !!int"},
      {"merge of a scalar", "a: 1\n<<: 5\n",
       "yaml: line 2, column 1: map merge requires map or sequence of maps as the value"},
      {"merge of a list of scalars", "b: &b [1]\nc:\n  <<: *b\n",
       "yaml: line 3, column 3: map merge requires map or sequence of maps as the value"},
      {"tab indentation", "a:\n\tb: 1\n",
       "yaml: line 2, column 1: found character that cannot start any token"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ::testing::internal::CaptureStderr();
    auto docs = ParseYamlDocuments(c.yaml);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // diagnostics are collected
    ASSERT_FALSE(docs.ok());
    EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(docs.status().message()), HasSubstr(c.message));
  }
}

// Inputs the yaml fuzz target found (fuzz/yaml_fuzzer.cc): each one made libfyaml loop forever
// (a directive or scalar ending in a truncated UTF-8 sequence) or is the same class of input.
// Each now fails fast with the position of the bad byte.
TEST(YamlTest, InvalidUtf8IsAnErrorNotAHang) {
  struct Case {
    std::string input;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"%\xcd", "yaml: line 1, column 2: incomplete UTF-8 octet sequence"},
      {std::string("# Th:\n%%%%%%%%%%%%%%%0o%%%%f\0\0\0%x\0%%%%%%%  -se:alu):p\"0resent\xcd\n"
                   "\0chedule\"\n",
                   73),
       "yaml: line 2, column 56: invalid trailing UTF-8 octet"},
      {"a: b\n%%u\x8a" "ext", "yaml: line 2, column 4: invalid leading UTF-8 octet"},
      {"a: \xc0\xaf", "yaml: line 1, column 4: invalid length of a UTF-8 sequence"},
      {"a: \xed\xa0\x80", "yaml: line 1, column 4: invalid Unicode character"},
      {"a: \xf4\x90\x80\x80", "yaml: line 1, column 4: invalid Unicode character"},
      {"k: \"\xff\"", "yaml: line 1, column 5: invalid leading UTF-8 octet"},
  };
  for (const Case& c : cases) {
    // Before the fix the first three never returned (the test's timeout caught them).
    auto docs = ParseYamlDocuments(c.input);
    ASSERT_FALSE(docs.ok()) << c.error;
    EXPECT_EQ(docs.status().message(), c.error);
  }
  // Valid multi-byte text is untouched.
  auto ok = ParseYamlDocuments("name: \"caf\xc3\xa9 \xf0\x9f\x98\x80\"\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0]["name"], "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

// Inputs the yaml fuzz target found in Debian's libfyaml 0.7.12, which decoded YAML before
// libyaml (FUZZING.md): the first made libfyaml crash (SEGV in fy_parser_destroy after its own
// error), the second leaked 4 KB on its error path. Both are plain errors now; the fuzz build
// (ASan + LeakSanitizer) replays them from fuzz/corpus/yaml/.
TEST(YamlTest, FuzzFoundLibfyamlCrashesAreErrors) {
  struct Case {
    std::string input;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"? 8:\t:", "yaml: line 1, column 3: mapping keys must be scalars"},
      {std::string(128, '\'') + "\n\x1e",
       "yaml: line 2, column 1: control characters are not allowed"},
      {"'''\n", "yaml: line 2, column 1: found unexpected end of stream"},
      {"? 8:\t:\n? 8:\t:", "yaml: line 1, column 3: mapping keys must be scalars"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.error);
    auto docs = ParseYamlDocuments(c.input);
    ASSERT_FALSE(docs.ok());
    EXPECT_EQ(docs.status().message(), c.error);
  }
  // The same shapes without the error are fine: an even run of quotes is a quoted scalar.
  EXPECT_EQ(One(std::string(128, '\'') + "\n"), json(std::string(63, '\'')));
  EXPECT_EQ(One("? 8\n: 9\n"), (json{{"8", 9}}));
}

// Odd inputs, each a value or an error, never a crash, a hang or a stack overflow (the fuzz
// build replays this kind of input under ASan and UBSan).
TEST(YamlTest, OddInputsAreValuesOrErrors) {
  struct Case {
    std::string input;
    std::string result;  // the documents as JSON text, or the error
  };
  const std::vector<Case> cases = {
      // Tabs: allowed as separation, not as indentation (libyaml's and go-yaml's YAML 1.1 rule).
      {"? 8:\t:", "yaml: line 1, column 3: mapping keys must be scalars"},
      {"\t", "yaml: line 1, column 1: found character that cannot start any token"},
      {"a:\t1\t", R"([{"a":1}])"},
      {"-\tx", "yaml: line 1, column 2: found character that cannot start any token"},
      // Lone indicators.
      {":", "yaml: line 1, column 1: did not find expected key"},
      {"-", "[[null]]"},
      {"?", "unsupported map key of type: %!s(<nil>), key: <nil>, value: <nil>"},
      {"&", "yaml: line 1, column 2: did not find expected alphabetic or numeric character"},
      {"*", "yaml: line 1, column 2: did not find expected alphabetic or numeric character"},
      {"!", R"([""])"},
      {"|", R"([""])"},
      {"%", "yaml: line 1, column 2: could not find expected directive name"},
      {"@", "yaml: line 1, column 1: found character that cannot start any token"},
      {"...", "yaml: line 1, column 1: did not find expected node content"},
      {"[", "yaml: line 2, column 1: did not find expected node content"},
      {"}", "yaml: line 1, column 1: did not find expected node content"},
      {"'", "yaml: line 1, column 2: found unexpected end of stream"},
      {"#", "[]"},
      {"---", "[]"},
      // Bytes and characters.
      {std::string("a: \0", 4), "yaml: line 1, column 4: control characters are not allowed"},
      {"\xef\xbb\xbf" "a: 1", R"([{"a":1}])"},  // a byte order mark
      {"a: \"\\x7f\"", "[{\"a\":\"\x7f\"}]"},
      {"key: \"\\ud83d\\ude00\"",
       "yaml: line 1, column 9: found invalid Unicode character escape code"},
      // Directives.
      {"%YAML 1.1\n---\na: 1", R"([{"a":1}])"},
      {"%YAML 2.0\n---\na: 1", "yaml: line 1, column 1: found incompatible YAML document"},
      {"%YAML 1.1\n%YAML 1.1\n---", "yaml: line 2, column 1: found duplicate %YAML directive"},
      {"%TAG ! tag:x,2000:\n--- !a 1", R"(["1"])"},
      // Anchors and aliases.
      {"*a", "yaml: line 1, column 1: unknown anchor 'a' referenced"},
      {"&a [*a]", "yaml: line 1, column 5: anchor 'a' value contains itself"},
      {"a: &a\n  b: *a", "yaml: line 2, column 6: anchor 'a' value contains itself"},
      {"--- &a\n--- *a", "yaml: line 2, column 5: unknown anchor 'a' referenced"},
      {"s: &s 1\n<<: *s",
       "yaml: line 2, column 1: map merge requires map or sequence of maps as the value"},
      {"&a a: &b b\n*a : *b", "yaml: line 2, column 1: duplicate key"},
      // Structure.
      {"- - - - x", R"([[[[["x"]]]]])"},
      {"? - a\n: b", "yaml: line 1, column 3: mapping keys must be scalars"},
      {"[a, b]: c", "yaml: line 1, column 1: mapping keys must be scalars"},
      {"a:\n  - b\n  c: d", "yaml: line 3, column 3: did not find expected '-' indicator"},
      {"a: [1,]", R"([{"a":[1]}])"},
      {"{a: 1}}", "yaml: line 1, column 7: did not find expected <document start>"},
      {"!!str [1]", "[[1]]"},  // a tag on a collection is ignored
      {"--- !!int\n", "yaml: line 1, column 5: cannot decode !!null `` as a !!int"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    auto docs = ParseYamlDocuments(c.input);
    if (docs.ok()) {
      EXPECT_EQ(json(*docs).dump(), c.result);
    } else {
      EXPECT_EQ(docs.status().message(), c.result);
    }
  }
}

// Nesting far beyond the limit stops at the limit, in every style: nothing recurses per level.
TEST(YamlTest, VeryDeepNestingStopsAtTheLimit) {
  struct Case {
    std::string name;
    std::string input;
    std::string error;
  };
  std::string flow_maps;
  for (int i = 0; i < 100000; ++i) flow_maps += "{a: ";
  std::string dashes;
  for (int i = 0; i < 100000; ++i) dashes += "- ";
  const std::vector<Case> cases = {
      {"flow sequences", std::string(1000000, '['),
       "yaml: line 1, column 1001: exceeded max depth of 1000"},
      {"flow mappings", flow_maps, "yaml: line 1, column 4001: exceeded max depth of 1000"},
      {"block sequences on one line", dashes + "x",
       "yaml: line 1, column 2001: exceeded max depth of 1000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = ParseYamlDocuments(c.input);
    ASSERT_FALSE(docs.ok());
    EXPECT_EQ(docs.status().message(), c.error);
  }
}

TEST(YamlTest, AcceptsJson) {
  const std::string text = "{\n\t\"kind\": \"Node\",\n\t\"metadata\": {\"name\": \"n1\"},\n"
                           "\t\"status\": {\"capacity\": {\"cpu\": 4, \"memory\": \"8Gi\"}},\n"
                           "\t\"list\": [1.5, true, null, \"x\"]\n}\n";
  json doc = One(text);
  auto direct = ParseJson(text);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(doc, *direct);
}

TEST(YamlTest, AliasBombIsRejected) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) {
      yaml += (k > 0 ? ", *a" : "*a") + std::to_string(i - 1);
    }
    yaml += "]\n";
  }
  auto docs = ParseYamlDocuments(yaml);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "yaml: aliases expand to more than 1000000 nodes");

  // A few levels are fine: 10^4 leaves.
  std::string small = yaml.substr(0, yaml.find("a4:"));
  auto ok = ParseYamlDocuments(small);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0]["a3"].size(), 10u);
  EXPECT_EQ((*ok)[0]["a3"][9][9][9][9], "x");
}

TEST(YamlTest, AliasTextBombIsRejected) {
  // Few nodes, but a 1 MiB string copied 100 times: more than 64 MiB of text.
  const std::string yaml = "s: &s " + std::string(1 << 20, 'x') +
                           "\nt: &t [*s, *s, *s, *s, *s, *s, *s, *s, *s, *s]\n"
                           "u: [*t, *t, *t, *t, *t, *t, *t, *t, *t, *t]\n";
  auto docs = ParseYamlDocuments(yaml);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "yaml: aliases expand to more than 67108864 bytes of text");
  auto ok = ParseYamlDocuments(yaml.substr(0, yaml.find("u:")));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0]["t"].size(), 10u);
}

// At most 1000 nested collections, as for JSON (json_codec.cc), written or through aliases.
TEST(YamlTest, DeepNestingIsRejected) {
  auto ok = ParseYamlDocuments(std::string(1000, '[') + std::string(1000, ']'));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto docs = ParseYamlDocuments(std::string(1001, '[') + std::string(1001, ']'));
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "yaml: line 1, column 1001: exceeded max depth of 1000");

  // Block style: a mapping per level.
  std::string block;
  for (int i = 0; i < 1001; ++i) block += std::string(i, ' ') + "k:\n";
  auto deep = ParseYamlDocuments(block);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message(), "yaml: line 1001, column 1001: exceeded max depth of 1000");

  // 600 levels aliased inside the root mapping and 399 sequences: 1000 levels once expanded;
  // one more is too many.
  const std::string anchored = "a: &d " + std::string(600, '[') + std::string(600, ']') + "\n";
  auto fits =
      ParseYamlDocuments(anchored + "b: " + std::string(399, '[') + "*d" + std::string(399, ']'));
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  auto expanded =
      ParseYamlDocuments(anchored + "b: " + std::string(400, '[') + "*d" + std::string(400, ']'));
  ASSERT_FALSE(expanded.ok());
  EXPECT_EQ(expanded.status().message(),
            "yaml: line 2, column 404: aliases nest deeper than 1000 levels");
}

TEST(YamlTest, QuantitiesAsNumbersAndStrings) {
  auto pod = PodFromJson(One(R"(
spec:
  containers:
  - name: c
    resources:
      requests:
        cpu: 0.5
        memory: 1Gi
        ephemeral-storage: "2"
        nvidia.com/gpu: 1
      limits:
        cpu: 1.5
        memory: '1.5Gi'
        example.com/foo: 1e3
  overhead:
    cpu: 100m
)"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  const Container& c = pod->spec.containers[0];
  EXPECT_EQ(c.resources.requests.at("cpu").ToString(), "500m");
  EXPECT_EQ(c.resources.requests.at("memory").ToString(), "1Gi");
  EXPECT_EQ(c.resources.requests.at("ephemeral-storage").ToString(), "2");
  EXPECT_EQ(c.resources.requests.at("nvidia.com/gpu").ToString(), "1");
  EXPECT_EQ(c.resources.limits.at("cpu").ToString(), "1500m");
  EXPECT_EQ(c.resources.limits.at("memory").ToString(), "1536Mi");
  EXPECT_EQ(c.resources.limits.at("example.com/foo").ToString(), "1k");
  EXPECT_EQ(pod->spec.overhead.at("cpu").ToString(), "100m");

  auto bad = PodFromJson(One("spec:\n  containers:\n  - resources:\n      limits:\n"
                             "        nvidia.com/gpu: one\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "spec.containers[0].resources.limits[nvidia.com/gpu]: " +
                                        std::string(kQuantityFormatWrongMessage));
  // "yes" is YAML 1.1's true, as for kubectl.
  auto yes = PodFromJson(One("spec:\n  containers:\n  - resources:\n      limits:\n"
                             "        nvidia.com/gpu: yes\n"));
  ASSERT_FALSE(yes.ok());
  EXPECT_EQ(yes.status().message(),
            "spec.containers[0].resources.limits[nvidia.com/gpu]: expected string or number, got "
            "boolean");
}

TEST(YamlTest, NodeWithTaintsAndCapacity) {
  auto docs = ParseYamlDocuments(R"(
apiVersion: v1
kind: Node
metadata:
  name: gke-gpu-pool-1
  labels:
    cloud.google.com/gke-nodepool: gpu-pool
    nvidia.com/gpu.present: "true"
spec:
  providerID: gce://p/us-central1-a/gke-gpu-pool-1
  taints:
  - key: nvidia.com/gpu
    value: present
    effect: NoSchedule
  - key: node.kubernetes.io/not-ready
    effect: NoExecute
    timeAdded: "2026-01-01T00:00:30Z"
status:
  capacity: &cap
    cpu: 8
    memory: 30Gi
    nvidia.com/gpu: 1
    pods: 110
  allocatable:
    <<: *cap
    cpu: 7910m
  conditions:
  - type: Ready
    status: "False"
    reason: KubeletNotReady
---
)");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 1u);
  auto node = NodeFromJson((*docs)[0]);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->meta.labels.at("nvidia.com/gpu.present"), "true");
  ASSERT_EQ(node->spec.taints.size(), 2u);
  EXPECT_EQ(node->spec.taints[0], (Taint{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}));
  EXPECT_EQ(node->spec.taints[1].effect, TaintEffect::kNoExecute);
  EXPECT_EQ(node->spec.taints[1].time_added, TimePoint(std::chrono::seconds(1767225630)));
  EXPECT_EQ(node->status.capacity.at("cpu"), Q("8"));
  EXPECT_EQ(node->status.capacity.at("pods"), Q("110"));
  EXPECT_EQ(node->status.allocatable.at("cpu"), Q("7910m"));
  EXPECT_EQ(node->status.allocatable.at("memory"), Q("30Gi"));
  EXPECT_EQ(node->status.allocatable.at("nvidia.com/gpu"), Q("1"));
  EXPECT_FALSE(node->IsReady());

  auto again = NodeFromJson(NodeToJson(*node));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *node);
  EXPECT_EQ(again->spec.taints[1].time_added, node->spec.taints[1].time_added);
}

TEST(YamlTest, ManyDocumentsAreIndependent) {
  // Anchors are per document; reusing a name in a later document is fine.
  auto docs = ParseYamlDocuments("a: &x 1\nb: *x\n---\na: &x 2\nb: *x\n");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1]["b"], 2);
  auto cross = ParseYamlDocuments("a: &x 1\n---\nb: *x\n");
  ASSERT_FALSE(cross.ok());
  EXPECT_EQ(cross.status().message(), "yaml: line 3, column 4: unknown anchor 'x' referenced");
}

}  // namespace
}  // namespace tidepool::api::codec
