// File: scale_test.cc
#include "apiserver/scale.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

TEST(ScaleTest, SelectorStringIsLabelSelectorAsSelector) {
  struct Case {
    std::string selector;
    std::string want;
  };
  const std::vector<Case> cases = {
      {R"(null)", ""},
      {R"({})", ""},
      {R"({"matchLabels":{"app":"web"}})", "app=web"},
      {R"({"matchLabels":{"tier":"gpu","app":"web"}})", "app=web,tier=gpu"},
      {R"({"matchLabels":{"z":"1"},"matchExpressions":[
          {"key":"env","operator":"In","values":["prod","dev","prod"]},
          {"key":"a","operator":"NotIn","values":["x"]},
          {"key":"gpu","operator":"Exists"},
          {"key":"spot","operator":"DoesNotExist"}]})",
       "a notin (x),env in (dev,prod),gpu,!spot,z=1"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.selector);
    EXPECT_EQ(SelectorString(json::parse(tc.selector)), tc.want);
  }
}

TEST(ScaleTest, ScaleOfADeployment) {
  const json d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","namespace":"ml","uid":"u-1","resourceVersion":"7",
                  "creationTimestamp":"2026-01-01T00:00:00Z","generation":3,"labels":{"a":"b"}},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}}},
      "status":{"replicas":2,"readyReplicas":1}})");
  EXPECT_EQ(ScaleOf(d), json::parse(R"({"apiVersion":"autoscaling/v1","kind":"Scale",
      "metadata":{"name":"web","namespace":"ml","uid":"u-1","resourceVersion":"7",
                  "creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"replicas":3},"status":{"replicas":2,"selector":"app=web"}})"));
  // replicas 0 is left out of spec (omitempty); status.replicas is always written.
  const json zero = json::parse(R"({"metadata":{"name":"z"},"spec":{"replicas":0}})");
  EXPECT_EQ(ScaleOf(zero), json::parse(R"({"apiVersion":"autoscaling/v1","kind":"Scale",
      "metadata":{"name":"z"},"spec":{},"status":{"replicas":0}})"));
}

// A ReplicationController's selector is a label map: labels.SelectorFromSet(...).String().
TEST(ScaleTest, ScaleOfAReplicationController) {
  const json rc = json::parse(R"({"apiVersion":"v1","kind":"ReplicationController",
      "metadata":{"name":"web","namespace":"default","uid":"u-2","resourceVersion":"9",
                  "creationTimestamp":"2026-01-01T00:00:00Z","generation":2},
      "spec":{"replicas":4,"selector":{"tier":"fe","app":"web"}},
      "status":{"replicas":3}})");
  EXPECT_EQ(ScaleOf(rc, ScaleSelector::kLabelMap),
            json::parse(R"({"apiVersion":"autoscaling/v1","kind":"Scale",
      "metadata":{"name":"web","namespace":"default","uid":"u-2","resourceVersion":"9",
                  "creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"replicas":4},"status":{"replicas":3,"selector":"app=web,tier=fe"}})"));
  const json bare = json::parse(R"({"metadata":{"name":"b"},"spec":{"selector":{}}})");
  EXPECT_EQ(ScaleOf(bare, ScaleSelector::kLabelMap)["status"], json::parse(R"({"replicas":0})"));
}

TEST(ScaleTest, ScaleReplicas) {
  struct Case {
    std::string scale;
    int32_t want;
    std::string decode_error;
    std::string field_error;
  };
  const std::string prefix =
      "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal ";
  const std::vector<Case> cases = {
      {R"({"spec":{"replicas":6}})", 6, "", ""},
      {R"({"spec":{}})", 0, "", ""},
      {R"({})", 0, "", ""},
      {R"({"spec":{"replicas":null}})", 0, "", ""},
      {R"({"spec":{"replicas":-1}})", -1, "",
       "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
      {R"({"spec":{"replicas":"6"}})", 0,
       prefix + "string into Go struct field ScaleSpec.spec.replicas of type int32", ""},
      {R"({"spec":{"replicas":1.5}})", 0,
       prefix + "number 1.5 into Go struct field ScaleSpec.spec.replicas of type int32", ""},
      {R"({"spec":{"replicas":4294967296}})", 0,
       prefix + "number 4294967296 into Go struct field ScaleSpec.spec.replicas of type int32", ""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.scale);
    std::string decode_error;
    api::FieldErrors errors;
    const int32_t got = ScaleReplicas(json::parse(tc.scale), &decode_error, &errors);
    EXPECT_EQ(decode_error, tc.decode_error);
    if (tc.decode_error.empty()) {
      EXPECT_EQ(got, tc.want);
    }
    EXPECT_EQ(errors.empty() ? "" : api::AggregateMessage(errors), tc.field_error);
  }
}

}  // namespace
}  // namespace tidepool::apiserver
