#include "runtime/store_cloud_journal.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apiserver/resources.h"
#include "apiserver/storage/backend.h"
#include "common/clock.h"
#include "testing/temp_dir.h"

namespace tidepool::runtime {
namespace {

std::unique_ptr<apiserver::ObjectStore> OpenStore(const Clock& clock, const std::string& dir) {
  auto backend = apiserver::storage::OpenSqlite(dir);
  EXPECT_TRUE(backend.ok()) << backend.status().ToString();
  auto store = std::make_unique<apiserver::ObjectStore>(clock, std::move(backend).value());
  EXPECT_TRUE(store->Load().ok());
  return store;
}

TEST(StoreCloudJournalTest, RecordsSurviveAReopenBesideTheApiObjects) {
  SimulatedClock clock;
  const std::string dir = tidepool::testing::TestTempDir() + "/data";
  int64_t revision = 0;
  {
    auto store = OpenStore(clock, dir);
    StoreCloudJournal journal(*store);
    const apiserver::Resource& cms = *apiserver::FindResource("", "v1", "configmaps");
    ASSERT_TRUE(store->Create(cms, {{"metadata", {{"name", "a"}}}}, {"api", false}).ok());
    ASSERT_TRUE(journal.Put("nodepools", "gpu-pool", R"({"spec":{"name":"gpu-pool"}})").ok());
    ASSERT_TRUE(journal.Put("instances", "vm-1", R"({"name":"vm-1","seq":1})").ok());
    ASSERT_TRUE(journal.Put("instances", "vm-2", R"({"name":"vm-2","seq":2})").ok());
    ASSERT_TRUE(journal.Delete("instances", "vm-1").ok());
    ASSERT_TRUE(journal.Delete("instances", "never-was").ok());
    // Writing the same record again is no write: the revision does not move.
    const int64_t before = store->resource_version();
    ASSERT_TRUE(journal.Put("instances", "vm-2", R"({"seq":2,"name":"vm-2"})").ok());
    EXPECT_EQ(store->resource_version(), before);
    revision = store->resource_version();
  }
  auto store = OpenStore(clock, dir);
  EXPECT_EQ(store->resource_version(), revision);
  StoreCloudJournal journal(*store);
  auto pools = journal.List("nodepools");
  ASSERT_TRUE(pools.ok());
  ASSERT_EQ(pools->size(), 1u);
  EXPECT_EQ((*pools)[0].name, "gpu-pool");
  EXPECT_EQ(nlohmann::json::parse((*pools)[0].json), nlohmann::json::parse(R"({"spec":{"name":"gpu-pool"}})"));
  auto vms = journal.List("instances");
  ASSERT_TRUE(vms.ok());
  ASSERT_EQ(vms->size(), 1u);
  EXPECT_EQ((*vms)[0].name, "vm-2");
  EXPECT_TRUE(store->Get(*apiserver::FindResource("", "v1", "configmaps"), "default", "a").ok());
}

TEST(StoreCloudJournalTest, TheRecordsAreNeverServed) {
  EXPECT_EQ(apiserver::FindResource(apiserver::kInternalCloudGroup, "v1", "instances"), nullptr);
  EXPECT_NE(apiserver::FindStoredResource(apiserver::kInternalCloudGroup, "v1", "instances"),
            nullptr);
  for (const apiserver::Resource& r : apiserver::Resources()) {
    EXPECT_NE(r.group, apiserver::kInternalCloudGroup) << r.resource;
  }
}

TEST(StoreCloudJournalTest, AnUnknownKindOrBadJsonIsRefused) {
  SimulatedClock clock;
  apiserver::ObjectStore store(clock, apiserver::storage::NewMemoryBackend());
  StoreCloudJournal journal(store);
  EXPECT_EQ(journal.Put("pods", "x", "{}").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(journal.Put("instances", "x", "{").code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(journal.List("pods").ok());
}

}  // namespace
}  // namespace tidepool::runtime
