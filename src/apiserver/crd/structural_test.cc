#include "apiserver/crd/structural.h"

#include <gtest/gtest.h>

namespace tidepool::apiserver::crd {
namespace {

using nlohmann::json;

Schema MustParse(const char* text) {
  auto s = Schema::Parse(json::parse(text));
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

constexpr char kSchema[] = R"({"type": "object", "properties": {
  "spec": {"type": "object", "properties": {
    "mode": {"type": "string", "enum": ["Fast", "Slow"], "default": "Fast"},
    "name": {"type": "string", "maxLength": 5, "minLength": 2},
    "count": {"type": "integer", "format": "int32", "minimum": 0, "exclusiveMinimum": true},
    "ratio": {"type": "number", "maximum": 1},
    "size": {"x-kubernetes-int-or-string": true},
    "when": {"type": "string", "format": "date-time"},
    "tags": {"type": "array", "maxItems": 2, "minItems": 1,
             "items": {"type": "string"}},
    "params": {"type": "object", "additionalProperties": {"type": "string"}},
    "opaque": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
    "nested": {"type": "object", "default": {}, "properties": {
      "level": {"type": "integer", "default": 3}}},
    "maybe": {"type": "string", "nullable": true},
    "labels": {"type": "object", "maxProperties": 1,
               "additionalProperties": {"type": "string"}}}}}})";

TEST(StructuralSchemaTest, ValidatesWithKubesTexts) {
  const Schema s = MustParse(kSchema);
  struct Case {
    json spec;
    std::vector<std::string> want;
  } cases[] = {
      {{{"mode", "Medium"}},
       {"spec.mode: Unsupported value: \"Medium\": supported values: \"Fast\", \"Slow\""}},
      {{{"name", "abcdef"}}, {"spec.name: Too long: may not be more than 5 bytes"}},
      {{{"name", "a"}},
       {"spec.name: Invalid value: \"a\": spec.name in body should be at least 2 chars long"}},
      {{{"count", 0}},
       {"spec.count: Invalid value: 0: spec.count in body should be greater than 0"}},
      {{{"count", 1.5}},
       {"spec.count: Invalid value: \"number\": spec.count in body must be of type integer: "
        "\"number\""}},
      {{{"ratio", 2}},
       {"spec.ratio: Invalid value: 2: spec.ratio in body should be less than or equal to 1"}},
      {{{"size", true}},
       {"spec.size: Invalid value: \"boolean\": spec.size in body must be of type "
        "integer,string: \"boolean\""}},
      {{{"when", "yesterday"}},
       {"spec.when: Invalid value: \"yesterday\": spec.when in body must be of type "
        "date-time: \"yesterday\""}},
      {{{"tags", json::array({"a", "b", "c"})}},
       {"spec.tags: Too many: 3: must have at most 2 items"}},
      {{{"tags", json::array()}},
       {"spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items"}},
      {{{"mode", "Fast"}, {"when", "2024-05-01T12:00:00Z"}, {"count", 5000000000}}, {}},
      {{{"tags", json::array({1})}},
       {"spec.tags[0]: Invalid value: \"integer\": spec.tags[0] in body must be of type "
        "string: \"integer\""}},
      {{{"params", {{"k", 1}}}},
       {"spec.params.k: Invalid value: \"integer\": spec.params.k in body must be of type "
        "string: \"integer\""}},
      {{{"maybe", nullptr}, {"size", 3}, {"opaque", {{"any", {{"thing", 1}}}}}}, {}},
      {{{"labels", {{"a", "1"}, {"b", "2"}}}},
       {"spec.labels: Too many: 2: must have at most 1 items"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> got;
    for (const auto& e : s.Validate(json{{"spec", c.spec}})) got.push_back(e.ToString());
    EXPECT_EQ(got, c.want) << c.spec;
  }
}

TEST(StructuralSchemaTest, StatusRootedMessagesAndCompositions) {
  const Schema s = MustParse(R"({"type": "object", "properties": {
    "status": {"type": "object", "properties": {"ready": {"type": "integer"}}},
    "spec": {"type": "object", "properties": {
      "x": {"type": "string", "anyOf": [{"pattern": "^a"}, {"pattern": "^b"}]}}}}})");
  std::vector<std::string> got;
  for (const auto& e : s.Validate(json::parse(R"({"status": {"ready": "no"}, "spec": {"x": "c"}})"),
                                  /*status_rooted=*/true)) {
    got.push_back(e.ToString());
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "<nil>: Invalid value: \"\": \"spec.x\" must validate at least one schema "
                     "(anyOf)",
                     "status.ready: Invalid value: \"string\": ready in body must be of type "
                     "integer: \"string\""}));
}

TEST(StructuralSchemaTest, NonNullableNullsAreDropped) {
  const Schema s = MustParse(kSchema);
  json obj = json::parse(R"({"spec": {"name": null, "maybe": null, "tags": [null]}})");
  s.Default(obj);
  EXPECT_FALSE(obj["spec"].contains("name"));
  EXPECT_TRUE(obj["spec"].contains("maybe"));
  std::vector<std::string> got;
  for (const auto& e : s.Validate(obj)) got.push_back(e.ToString());
  EXPECT_EQ(got, (std::vector<std::string>{"spec.tags[0]: Invalid value: \"null\": spec.tags[0] "
                                           "in body must be of type string: \"null\""}));
}

TEST(StructuralSchemaTest, PrunesWhatIsNotSpecified) {
  const Schema s = MustParse(kSchema);
  json obj = json::parse(R"({"apiVersion": "x/v1", "kind": "K",
    "metadata": {"name": "a", "bogus": 1},
    "spec": {"mode": "Fast", "unknown": {"deep": 1}, "opaque": {"kept": 1},
             "params": {"free": "x"}, "tags": ["a"]},
    "top": 1})");
  const std::vector<std::string> dropped = s.Prune(obj);
  EXPECT_EQ(dropped, (std::vector<std::string>{"metadata.bogus", "spec.unknown", "top"}));
  EXPECT_EQ(obj, json::parse(R"({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"},
    "spec": {"mode": "Fast", "opaque": {"kept": 1}, "params": {"free": "x"}, "tags": ["a"]}})"));
}

TEST(StructuralSchemaTest, DefaultsWhereTheParentExists) {
  const Schema s = MustParse(kSchema);
  json obj = {{"metadata", {{"name", "a"}}}, {"spec", {{"mode", nullptr}}}};
  s.Default(obj);
  EXPECT_EQ(obj["spec"]["mode"], "Fast");
  EXPECT_EQ(obj["spec"]["nested"], json({{"level", 3}}));
  json none = {{"metadata", {{"name", "a"}}}};
  s.Default(none);
  EXPECT_FALSE(none.contains("spec"));
}

TEST(StructuralSchemaTest, ChecksStructuralRules) {
  struct Case {
    const char* schema;
    std::vector<std::string> want;
  } cases[] = {
      {kSchema, {}},
      {R"({"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}})",
       {"s.properties[spec].type: Required value: must not be empty for specified object "
        "fields"}},
      {R"({"type": "object", "properties": {"list": {"type": "array"}}})",
       {"s.properties[list].items: Required value: must be specified"}},
      {R"({"type": "object", "properties": {"p": {"type": "string", "pattern": "("}}})",
       {"s.properties[p].pattern: Forbidden: must be a valid regular expression, but isn't: "
        "missing ): ("}},
      {R"({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}})",
       {"s.properties[metadata]: Forbidden: must not specify anything other than name and "
        "generateName, but metadata is implicitly specified"}},
      {R"({"type": "object", "properties": {"l": {"type": "array", "uniqueItems": true, "items": {}}}})",
       {"s.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the "
        "runtime complexity becomes quadratic",
        "s.properties[l].items.type: Required value: must not be empty for specified array "
        "items"}},
      // x-kubernetes-int-or-string's two patterns (what controller-gen writes for an
      // IntOrString field) may carry types; any other value validation may not.
      {R"({"type": "object", "properties": {"q": {"x-kubernetes-int-or-string": true,
          "anyOf": [{"type": "integer"}, {"type": "string"}]}}})",
       {}},
      {R"({"type": "object", "properties": {"q": {"x-kubernetes-int-or-string": true,
          "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^x"}]}}})",
       {}},
      {R"({"type": "object", "properties": {"q": {"x-kubernetes-int-or-string": true,
          "anyOf": [{"type": "string"}, {"type": "integer"}]}}})",
       {"s.properties[q].anyOf[0].type: Forbidden: must be empty to be structural",
        "s.properties[q].anyOf[1].type: Forbidden: must be empty to be structural"}},
      {R"({"type": "object", "properties": {"q": {"type": "string",
          "anyOf": [{"type": "integer"}, {"type": "string"}]}}})",
       {"s.properties[q].anyOf[0].type: Forbidden: must be empty to be structural",
        "s.properties[q].anyOf[1].type: Forbidden: must be empty to be structural"}},
  };
  for (const Case& c : cases) {
    const Schema s = MustParse(c.schema);
    std::vector<std::string> got;
    for (const auto& e : s.CheckStructural("s")) got.push_back(e.ToString());
    EXPECT_EQ(got, c.want) << c.schema;
  }
}

TEST(StructuralSchemaTest, ParseRefusesWhatIsNotASchema) {
  EXPECT_FALSE(Schema::Parse(json::array()).ok());
  EXPECT_FALSE(Schema::Parse(json::parse(R"({"type": 3})")).ok());
  EXPECT_FALSE(Schema::Parse(json::parse(R"({"properties": []})")).ok());
  EXPECT_FALSE(Schema::Parse(json::parse(R"({"minimum": "x"})")).ok());
}

}  // namespace
}  // namespace tidepool::apiserver::crd
