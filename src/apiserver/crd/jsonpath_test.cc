#include "apiserver/crd/jsonpath.h"

#include <gtest/gtest.h>

namespace tidepool::apiserver::crd {
namespace {

using nlohmann::json;

const json kObject = json::parse(R"({
  "metadata": {"name": "a", "labels": {"app.kubernetes.io/name": "x"}},
  "spec": {"replicas": 3, "items": [{"n": 1}, {"n": 2}]},
  "status": {"conditions": [{"type": "Accepted", "status": "False"},
                            {"type": "Provisioned", "status": "True"}]}
})");

TEST(JsonPathTest, EvaluatesTheColumnSubset) {
  struct Case {
    std::string path;
    std::vector<json> want;
  } cases[] = {
      {".spec.replicas", {3}},
      {".spec.missing", {}},
      {".spec.items[0].n", {1}},
      {".spec.items[-1].n", {2}},
      {".spec.items[*].n", {1, 2}},
      {".status.conditions[?(@.type==\"Provisioned\")].status", {"True"}},
      {".status.conditions[?(@.type!=\"Provisioned\")].type", {"Accepted"}},
      {".metadata.labels.app\\.kubernetes\\.io/name", {"x"}},
      {".metadata.labels['app.kubernetes.io/name']", {"x"}},
  };
  for (const Case& c : cases) {
    auto p = JsonPath::Parse(c.path);
    ASSERT_TRUE(p.ok()) << c.path << ": " << p.status().message();
    std::vector<json> got;
    for (const json* v : p->Eval(kObject)) got.push_back(*v);
    EXPECT_EQ(got, c.want) << c.path;
  }
}

TEST(JsonPathTest, RefusesWhatIsNotASimplePath) {
  for (const char* bad : {"spec.replicas", "", ".spec[", ".spec[abc]", ".a..b"}) {
    EXPECT_FALSE(JsonPath::Parse(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace tidepool::apiserver::crd
