// HumanDuration and the Table envelope (BuildTable).

#include "apiserver/printers/printers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::apiserver::printers {
namespace {

using ::nlohmann::json;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

struct DurationCase {
  Duration d;
  std::string want;
};

// apimachinery's duration_test.go TestHumanDuration and TestHumanDurationBoundaries.
TEST(HumanDurationTest, MatchesApimachinery) {
  const auto day = hours(24);
  const auto year = 365 * day;
  const std::vector<DurationCase> cases = {
      {seconds(1), "1s"},
      {seconds(70), "70s"},
      {seconds(190), "3m10s"},
      {minutes(70), "70m"},
      {hours(47), "47h"},
      {hours(49), "2d1h"},
      {hours(8 * 24 + 2), "8d"},
      {hours(367 * 24), "367d"},
      {hours(365 * 2 * 24 + 25), "2y1d"},
      {hours(365 * 8 * 24 + 2), "8y"},
      // Boundaries.
      {-seconds(2), "<invalid>"},
      {-seconds(2) + nanoseconds(1), "0s"},
      {Duration::zero(), "0s"},
      {seconds(1) - milliseconds(1), "0s"},
      {minutes(2) - milliseconds(1), "119s"},
      {minutes(2), "2m"},
      {minutes(2) + seconds(1), "2m1s"},
      {minutes(10) - milliseconds(1), "9m59s"},
      {minutes(10), "10m"},
      {minutes(10) + seconds(1), "10m"},
      {hours(3) - milliseconds(1), "179m"},
      {hours(3), "3h"},
      {hours(3) + minutes(1), "3h1m"},
      {hours(8) - milliseconds(1), "7h59m"},
      {hours(8), "8h"},
      {hours(8) + minutes(59), "8h"},
      {2 * day - milliseconds(1), "47h"},
      {2 * day, "2d"},
      {2 * day + hours(1), "2d1h"},
      {8 * day - milliseconds(1), "7d23h"},
      {8 * day, "8d"},
      {8 * day + hours(23), "8d"},
      {2 * year - milliseconds(1), "729d"},
      {2 * year, "2y"},
      {2 * year + hours(23), "2y"},
      {2 * year + hours(23) + minutes(59), "2y"},
      {2 * year + day - milliseconds(1), "2y"},
      {2 * year + day, "2y1d"},
      {3 * year, "3y"},
      {4 * year, "4y"},
      {5 * year, "5y"},
      {6 * year, "6y"},
      {7 * year, "7y"},
      {8 * year - milliseconds(1), "7y364d"},
      {8 * year, "8y"},
      {8 * year + 364 * day, "8y"},
      {9 * year, "9y"},
      // The examples of kubectl-api.md §2.4, and a few more.
      {seconds(5), "5s"},
      {seconds(123), "2m3s"},
      {minutes(25), "25m"},
      {hours(3) + minutes(5), "3h5m"},
      {hours(20), "20h"},
      {3 * day, "3d"},
      {2 * year + 45 * day, "2y45d"},
      {-seconds(1), "0s"},
      {-milliseconds(1999), "0s"},
      {-hours(5), "<invalid>"},
  };
  for (const DurationCase& tc : cases) {
    SCOPED_TRACE(std::to_string(tc.d.count()) + "ns");
    EXPECT_EQ(HumanDuration(tc.d), tc.want);
  }
}

constexpr int64_t k2026 = 1767225600;  // 2026-01-01T00:00:00Z
const TimePoint kNow = TimePoint(seconds(k2026 + 7));

const json kPod = json::parse(R"({
  "kind":"Pod","apiVersion":"v1",
  "metadata":{"name":"standalone-1","namespace":"default","uid":"u-1","resourceVersion":"110",
              "creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"standalone"}},
  "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"nginx"}]},
  "status":{"phase":"Running","podIP":"10.244.0.11",
            "containerStatuses":[{"name":"app","ready":true,"restartCount":0,
                                  "state":{"running":{}}}]}
})");

const json kDonePod = json::parse(R"({
  "metadata":{"name":"done","namespace":"batch","creationTimestamp":"2026-01-01T00:00:00Z"},
  "spec":{"containers":[{"name":"app"}]},
  "status":{"phase":"Succeeded","containerStatuses":[{"name":"app",
            "state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}
})");

TEST(BuildTableTest, ListWithHeadersAndPartialObjectMetadata) {
  json table = BuildTable("", "pods", {&kPod}, "113", kNow, IncludeObject::kMetadata, true);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(table["metadata"], json({{"resourceVersion", "113"}}));

  const json& columns = table["columnDefinitions"];
  ASSERT_TRUE(columns.is_array());
  ASSERT_EQ(columns.size(), 9u);
  EXPECT_EQ(columns[0]["name"], "Name");
  EXPECT_EQ(columns[0]["type"], "string");
  EXPECT_EQ(columns[0]["format"], "name");
  EXPECT_EQ(columns[0]["priority"], 0);
  EXPECT_TRUE(columns[0]["description"].is_string());
  EXPECT_EQ(columns[5]["name"], "IP");
  EXPECT_EQ(columns[5]["priority"], 1);
  for (const json& c : columns) {
    // Every TableColumnDefinition field is present (none is omitempty).
    EXPECT_EQ(c.size(), 5u) << c.dump();
  }

  ASSERT_EQ(table["rows"].size(), 1u);
  const json& row = table["rows"][0];
  EXPECT_EQ(row["cells"], json({"standalone-1", "1/1", "Running", "0", "7s", "10.244.0.11",
                                "node-1", "<none>", "<none>"}));
  EXPECT_FALSE(row.contains("conditions"));
  EXPECT_EQ(row["object"], json::parse(R"({
    "kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
    "metadata":{"name":"standalone-1","namespace":"default","uid":"u-1","resourceVersion":"110",
                "creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"standalone"}}})"));
}

TEST(BuildTableTest, IncludeObjectVariantsAndHeaders) {
  struct Case {
    std::string name;
    IncludeObject include;
    bool with_headers;
    json want_object;
  };
  const std::vector<Case> cases = {
      {"metadata without headers (a later watch event)",
       IncludeObject::kMetadata,
       false,
       {{"kind", "PartialObjectMetadata"},
        {"apiVersion", "meta.k8s.io/v1"},
        {"metadata", kPod["metadata"]}}},
      {"whole object (includeObject=Object, --sort-by)", IncludeObject::kObject, true, kPod},
      {"no object (includeObject=None)", IncludeObject::kNone, true, nullptr},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    json table = BuildTable("", "pods", {&kPod}, "5", kNow, tc.include, tc.with_headers);
    EXPECT_EQ(table["columnDefinitions"].is_null(), !tc.with_headers);
    ASSERT_EQ(table["rows"].size(), 1u);
    ASSERT_TRUE(table["rows"][0].contains("object"));
    EXPECT_EQ(table["rows"][0]["object"], tc.want_object);
    EXPECT_EQ(table["rows"][0]["cells"].size(), 9u);
  }
}

TEST(BuildTableTest, EmptyListAndResourceVersion) {
  json table = BuildTable("", "nodes", {}, "", kNow, IncludeObject::kMetadata, true);
  EXPECT_EQ(table["rows"], json::array());
  EXPECT_EQ(table["metadata"], json::object());
  EXPECT_EQ(table["columnDefinitions"].size(), 10u);
}

TEST(BuildTableTest, RowsKeepOrderAndCompletedPodsCarryConditions) {
  const json no_metadata = {{"kind", "Pod"}};
  json table = BuildTable("", "pods", {&kDonePod, &kPod, &no_metadata}, "9", kNow,
                          IncludeObject::kMetadata, true);
  ASSERT_EQ(table["rows"].size(), 3u);
  EXPECT_EQ(table["rows"][0]["cells"][0], "done");
  EXPECT_EQ(table["rows"][0]["cells"][2], "Completed");
  EXPECT_EQ(table["rows"][0]["conditions"], json::parse(R"([{"type":"Completed","status":"True",
    "reason":"Succeeded","message":"The pod has completed successfully."}])"));
  EXPECT_EQ(table["rows"][1]["cells"][0], "standalone-1");
  EXPECT_EQ(table["rows"][2]["cells"][0], "");
  EXPECT_EQ(table["rows"][2]["object"]["metadata"], json::object());
}

TEST(BuildTableTest, DefaultConvertorTable) {
  const json role =
      json::parse(R"({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",
    "metadata":{"name":"admin","creationTimestamp":"2025-12-31T23:00:00Z"},"rules":[]})");
  json table = BuildTable("rbac.authorization.k8s.io", "clusterroles", {&role}, "77", kNow,
                          IncludeObject::kMetadata, true);
  ASSERT_EQ(table["columnDefinitions"].size(), 2u);
  EXPECT_EQ(table["columnDefinitions"][1]["name"], "Created At");
  EXPECT_EQ(table["columnDefinitions"][1]["type"], "date");
  EXPECT_EQ(table["rows"][0]["cells"], json({"admin", "2025-12-31T23:00:00Z"}));
}

// BuildTableText is what the API server sends; BuildTable is the reference it must equal byte
// for byte, for every resource and includeObject, with and without the stored text.
TEST(BuildTableTextTest, EqualsTheDumpOfBuildTable) {
  const json tricky = json::parse(R"({"kind":"ConfigMap","apiVersion":"v1",
    "metadata":{"name":"cm-\"q\"","namespace":"default","labels":{"a/b":"c\\d","é":"ü"},
      "annotations":{"x":"{\"metadata\":{}}","emoji":"\ud83d\ude00 </script>&"},
      "creationTimestamp":"2025-12-31T23:59:00Z"},
    "data":{"metadata":"not this one","k":"v\n"}})");
  const json no_metadata = {{"kind", "Pod"}};
  const json metadata_not_object = {{"kind", "Pod"}, {"metadata", "x"}};
  const json empty_metadata = {{"kind", "Pod"}, {"metadata", json::object()}};
  json invalid_utf8 = kPod;
  invalid_utf8["metadata"]["labels"]["bad"] = std::string("\xff\xfe", 2);
  struct Case {
    std::string name;
    std::string group, resource;
    std::vector<const json*> objects;
  };
  const std::vector<Case> cases = {
      {"pods, one completed", "", "pods", {&kDonePod, &kPod}},
      {"pods with odd metadata", "", "pods",
       {&no_metadata, &metadata_not_object, &empty_metadata, &invalid_utf8}},
      {"configmap with escapes", "", "configmaps", {&tricky}},
      {"default convertor", "rbac.authorization.k8s.io", "clusterroles", {&tricky, &kPod}},
      {"no rows", "", "pods", {}},
  };
  const auto dump = [](const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  for (const Case& tc : cases) {
    for (IncludeObject include :
         {IncludeObject::kMetadata, IncludeObject::kNone, IncludeObject::kObject}) {
      for (bool headers : {true, false}) {
        for (const char* rv : {"", "42"}) {
          for (bool with_text : {true, false}) {
            SCOPED_TRACE(tc.name + " include=" + std::to_string(static_cast<int>(include)) +
                         " headers=" + std::to_string(headers) + " rv=" + rv +
                         " text=" + std::to_string(with_text));
            std::vector<std::string> texts;
            for (const json* o : tc.objects) texts.push_back(with_text ? dump(*o) : "");
            std::vector<TableObject> objects;
            for (size_t i = 0; i < tc.objects.size(); ++i) {
              objects.push_back({tc.objects[i], texts[i]});
            }
            const std::string want = dump(
                BuildTable(tc.group, tc.resource, tc.objects, rv, kNow, include, headers));
            EXPECT_EQ(BuildTableText(tc.group, tc.resource, objects, rv, kNow, include, headers),
                      want);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tidepool::apiserver::printers
