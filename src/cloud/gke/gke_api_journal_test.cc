// File: gke_api_journal_test.cc
//
// GkeApiOptions::journal: operations and the taints users asked for survive a new GkeApi over
// the same journal (a restart of `tidepool up --data-dir`).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "cloud/gke/emulated_gke_control.h"
#include "cloud/gke/gke_api.h"
#include "sim/event_queue.h"

namespace tidepool::cloud::gke {
namespace {

namespace emu = cloud::emulated;
using json = nlohmann::json;

class NullSink final : public emu::NodeSink {
 public:
  Status UpsertNode(api::Node) override { return OkStatus(); }
  Status DeleteNode(const std::string&) override { return OkStatus(); }
};

class MapJournal final : public CloudJournal {
 public:
  Status Put(std::string_view kind, std::string_view name, std::string_view text) override {
    records[std::string(kind)][std::string(name)] = std::string(text);
    return OkStatus();
  }
  Status Delete(std::string_view kind, std::string_view name) override {
    records[std::string(kind)].erase(std::string(name));
    return OkStatus();
  }
  StatusOr<std::vector<CloudRecord>> List(std::string_view kind) const override {
    std::vector<CloudRecord> out;
    if (auto it = records.find(std::string(kind)); it != records.end()) {
      for (const auto& [n, t] : it->second) out.push_back({n, t});
    }
    return out;
  }
  std::map<std::string, std::map<std::string, std::string>> records;
};

constexpr char kCluster[] = "/v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool";

TEST(GkeApiJournalTest, OperationsAndRequestedTaintsSurviveARestart) {
  sim::EventQueue queue;
  NullSink sink;
  Random random(7);
  emu::EmulatedCloud cloud("tidepool-local", "tidepool", "us-central1-a", queue, sink, random);
  EmulatedGkeControl control(cloud, ClusterInfo{});
  MapJournal journal;
  GkeApiOptions options;
  options.journal = &journal;
  json ops_before, pool_before;
  {
    GkeApi api(control, queue.clock(), options);
    const json body = {
        {"nodePool",
         {{"name", "gpu-pool"},
          {"initialNodeCount", 1},
          {"config",
           {{"machineType", "n1-standard-4"},
            {"accelerators", {{{"acceleratorCount", "1"}, {"acceleratorType", "nvidia-tesla-t4"}}}},
            {"taints", {{{"key", "team"}, {"value", "ml"}, {"effect", "NO_SCHEDULE"}}}}}}}}};
    GkeResponse created = api.Handle({"POST", std::string(kCluster) + "/nodePools", body.dump()});
    ASSERT_EQ(created.status, 200) << created.body;
    EXPECT_EQ(json::parse(created.body)["status"], "RUNNING");
    queue.RunUntil(queue.Now() + std::chrono::minutes(10));
    ops_before = json::parse(
        api.Handle({"GET", "/v1/projects/tidepool-local/locations/us-central1-a/operations"}).body);
    pool_before = json::parse(api.Handle({"GET", std::string(kCluster) + "/nodePools/gpu-pool"}).body);
  }
  ASSERT_EQ(ops_before["operations"].size(), 1u);
  EXPECT_EQ(ops_before["operations"][0]["status"], "DONE");
  ASSERT_EQ(journal.records["operations"].size(), 1u);
  GkeApi restarted(control, queue.clock(), options);
  EXPECT_EQ(json::parse(restarted
                            .Handle({"GET",
                                     "/v1/projects/tidepool-local/locations/us-central1-a/operations"})
                            .body),
            ops_before);
  const json pool =
      json::parse(restarted.Handle({"GET", std::string(kCluster) + "/nodePools/gpu-pool"}).body);
  EXPECT_EQ(pool["config"]["taints"], pool_before["config"]["taints"]);
  EXPECT_EQ(pool["config"]["taints"].size(), 1u) << pool.dump();  // the user's, not GKE's GPU taint
}

}  // namespace
}  // namespace tidepool::cloud::gke
