#include "apiserver/patch/field_set.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tidepool::apiserver::patch {
namespace {

using ::nlohmann::json;

TEST(FieldSetTest, FieldsV1RoundTrip) {
  const json fields = json::parse(R"({
    "f:metadata":{"f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:containers":{"k:{\"name\":\"cuda\"}":{".":{},"f:image":{},"f:name":{}}},
              "f:tolerations":{}}})");
  auto set = FieldSet::FromFieldsV1(fields);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->size(), 6u);
  EXPECT_TRUE(set->Has({"f:metadata", "f:labels"}));
  EXPECT_TRUE(set->Has({"f:metadata", "f:labels", "f:app"}));
  EXPECT_TRUE(set->Has({"f:spec", "f:containers", "k:{\"name\":\"cuda\"}"}));
  EXPECT_FALSE(set->Has({"f:spec"}));
  EXPECT_FALSE(set->Has({"f:spec", "f:containers"}));
  EXPECT_TRUE(set->HasPathOrDescendant({"f:spec", "f:containers"}));
  EXPECT_FALSE(set->HasPathOrDescendant({"f:status"}));
  EXPECT_EQ(set->ToFieldsV1(), fields);
}

TEST(FieldSetTest, EmptySet) {
  auto set = FieldSet::FromFieldsV1(json::object());
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->empty());
  EXPECT_EQ(set->ToFieldsV1(), json::object());
}

TEST(FieldSetTest, RejectsUnknownElements) {
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::parse(R"({"x:a":{}})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::parse(R"({"f:a":1})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::parse(R"([])")).ok());
}

TEST(FieldSetTest, SetAlgebra) {
  FieldSet a;
  a.Insert({"f:a"});
  a.Insert({"f:b", "f:c"});
  FieldSet b;
  b.Insert({"f:b", "f:c"});
  b.Insert({"f:d"});
  EXPECT_EQ(a.Union(b).size(), 3u);
  EXPECT_EQ(a.Intersection(b).size(), 1u);
  EXPECT_TRUE(a.Intersection(b).Has({"f:b", "f:c"}));
  EXPECT_EQ(a.Difference(b).size(), 1u);
  EXPECT_TRUE(a.Difference(b).Has({"f:a"}));
}

struct PathCase {
  FieldPath path;
  std::string want;
};

class FieldPathStringTest : public ::testing::TestWithParam<PathCase> {};

TEST_P(FieldPathStringTest, Formats) { EXPECT_EQ(FieldPathString(GetParam().path), GetParam().want); }

INSTANTIATE_TEST_SUITE_P(
    StructuredMergeDiffSpelling, FieldPathStringTest,
    ::testing::Values(
        PathCase{{"f:metadata", "f:labels", "f:app"}, ".metadata.labels.app"},
        PathCase{{"f:spec", "f:containers", "k:{\"name\":\"cuda\"}", "f:image"},
                 ".spec.containers[name=\"cuda\"].image"},
        PathCase{{"f:spec", "f:containers", "k:{\"name\":\"a\"}", "f:ports",
                  "k:{\"containerPort\":80,\"protocol\":\"TCP\"}"},
                 ".spec.containers[name=\"a\"].ports[containerPort=80,protocol=\"TCP\"]"},
        PathCase{{"f:metadata", "f:finalizers", "v:\"x\""}, ".metadata.finalizers[=\"x\"]"},
        PathCase{{"f:list", "i:3"}, ".list[3]"},
        PathCase{{"bogus"}, "{{invalid path element}}"}));

TEST(FieldSetTest, IterationOrderIsMembersFirstThenChildren) {
  FieldSet s;
  s.Insert({"f:a", "f:x"});
  s.Insert({"f:b"});
  s.Insert({"f:a", "f:y", "f:z"});
  s.Insert({"f:c"});
  std::vector<FieldPath> want = {
      {"f:b"}, {"f:c"}, {"f:a", "f:x"}, {"f:a", "f:y", "f:z"}};
  EXPECT_EQ(s.IterationOrder(), want);
}

}  // namespace
}  // namespace tidepool::apiserver::patch
