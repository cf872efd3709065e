#include "apiserver/object_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "testing/temp_dir.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

const Resource& Pods() { return *FindResource("", "v1", "pods"); }
const Resource& Nodes() { return *FindResource("", "v1", "nodes"); }

json Pod(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
}

class ObjectStoreTest : public ::testing::Test {
 protected:
  SimulatedClock clock_;
  ObjectStore store_{clock_, nullptr};
  ObjectStore::WriteOptions opts_{"test", false};
};

TEST_F(ObjectStoreTest, CreateAssignsServerFields) {
  auto o = store_.Create(Pods(), Pod("default", "a"), opts_);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const json m = (*o)->Parse()["metadata"];
  EXPECT_EQ(m["resourceVersion"], "1");
  EXPECT_EQ(m["creationTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(m["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(m["uid"].get<std::string>()[14], '4');
  EXPECT_FALSE(m.contains("generation"));  // pods have none in 1.32
  EXPECT_EQ((*o)->text, (*o)->Parse().dump());
  auto again = store_.Create(Pods(), Pod("default", "a"), opts_);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().message(), "pods \"a\" already exists");
  auto missing = store_.Get(Pods(), "default", "nope");
  EXPECT_EQ(missing.status().message(), "pods \"nope\" not found");
  const Resource& leases = *FindResource("coordination.k8s.io", "v1", "leases");
  EXPECT_EQ(store_.Get(leases, "kube-node-lease", "n").status().message(),
            "leases.coordination.k8s.io \"n\" not found");
}

TEST_F(ObjectStoreTest, ListByNamespaceSortedWithRevision) {
  for (auto [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"b", "x"}, {"a", "z"}, {"a", "y"}, {"ab", "q"}}) {
    ASSERT_TRUE(store_.Create(Pods(), Pod(ns, name), opts_).ok());
  }
  auto all = store_.List(Pods(), "");
  ASSERT_EQ(all.items.size(), 4u);
  EXPECT_EQ(all.resource_version, 4);
  EXPECT_EQ(all.items[0]->Parse()["metadata"]["name"], "y");
  auto a = store_.List(Pods(), "a");
  ASSERT_EQ(a.items.size(), 2u);  // not "ab"
  auto filtered = store_.List(Pods(), "", [](const json& o) { return o["metadata"]["name"] == "q"; });
  ASSERT_EQ(filtered.items.size(), 1u);
}

TEST_F(ObjectStoreTest, UpdateConflictsAndNoOps) {
  ASSERT_TRUE(store_.Create(Pods(), Pod("default", "a"), opts_).ok());
  auto set_label = [](std::string rv) {
    return [rv](const StoredObject* cur) -> StatusOr<json> {
      json next = cur->Parse();
      next["metadata"]["labels"]["x"] = "1";
      next["metadata"]["resourceVersion"] = rv;
      return next;
    };
  };
  auto stale = store_.Update(Pods(), "default", "a", set_label("0"), opts_);
  EXPECT_EQ(stale.status().code(), StatusCode::kAborted);
  EXPECT_EQ(stale.status().message(),
            "Operation cannot be fulfilled on pods \"a\": the object has been modified; please "
            "apply your changes to the latest version and try again");
  auto ok = store_.Update(Pods(), "default", "a", set_label("1"), opts_);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->changed);
  EXPECT_EQ(ok->object->Parse()["metadata"]["resourceVersion"], "2");
  auto same = store_.Update(Pods(), "default", "a", set_label(""), opts_);
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->changed);
  EXPECT_EQ(store_.resource_version(), 2);
  // Server-owned fields survive an update that drops them.
  auto drop = store_.Update(Pods(), "default", "a",
                            [](const StoredObject* cur) -> StatusOr<json> {
                              json next = cur->Parse();
                              next["metadata"].erase("uid");
                              next["metadata"]["labels"]["y"] = "2";
                              return next;
                            },
                            opts_);
  ASSERT_TRUE(drop.ok());
  EXPECT_EQ(drop->object->Parse()["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(store_.Update(Pods(), "default", "nope", set_label(""), opts_).status().code(),
            StatusCode::kNotFound);
}

TEST_F(ObjectStoreTest, WatchReplaysFromRevisionThenLive) {
  ASSERT_TRUE(store_.Create(Pods(), Pod("default", "a"), opts_).ok());  // rv 1
  ASSERT_TRUE(store_.Create(Nodes(), json{{"metadata", {{"name", "n1"}}}}, opts_).ok());  // 2
  ASSERT_TRUE(store_.Create(Pods(), Pod("other", "b"), opts_).ok());  // 3
  auto w = store_.OpenWatch(&Pods(), "", 1);
  ASSERT_TRUE(w.ok());
  WatchEvent e;
  ASSERT_EQ((*w)->Next(std::chrono::milliseconds(10), &e), Watch::Result::kEvent);
  EXPECT_EQ(e.resource_version, 3);
  EXPECT_EQ(e.type, EventType::kAdded);
  EXPECT_EQ((*w)->Next(std::chrono::milliseconds(10), &e), Watch::Result::kTimeout);
  ASSERT_TRUE(store_.Delete(Pods(), "default", "a", opts_).ok());  // 4
  ASSERT_EQ((*w)->Next(std::chrono::milliseconds(10), &e), Watch::Result::kEvent);
  EXPECT_EQ(e.type, EventType::kDeleted);
  EXPECT_EQ(e.object->Parse()["metadata"]["resourceVersion"], "4");
  EXPECT_EQ(e.origin, "test");
  // From 0: the current objects as ADDED; a namespace filter.
  auto w0 = store_.OpenWatch(&Pods(), "other", 0);
  ASSERT_TRUE(w0.ok());
  ASSERT_EQ((*w0)->Next(std::chrono::milliseconds(10), &e), Watch::Result::kEvent);
  EXPECT_EQ(e.object->Parse()["metadata"]["name"], "b");
  EXPECT_EQ((*w0)->Next(std::chrono::milliseconds(10), &e), Watch::Result::kTimeout);
}

TEST_F(ObjectStoreTest, CreatedTextIsTheDumpOfTheValue) {
  // The text is serialized outside the store's lock with the resourceVersion written in
  // afterwards: it must still be exactly the value's dump, for every kind of object.
  const std::vector<json> objects = {
      Pod("default", "a"),
      json{{"metadata", {{"name", "n1"}, {"labels", {{"resourceVersion", ""}}}}}},
      json{{"metadata", {{"generateName", "web-"}, {"namespace", "default"}}},
           {"data", {{"resourceVersion", ""}, {"x", "\"metadata\":{\"resourceVersion\":\"\"}"}}}},
  };
  const Resource* resources[] = {&Pods(), &Nodes(), FindResource("", "v1", "configmaps")};
  for (size_t i = 0; i < objects.size(); ++i) {
    SCOPED_TRACE(i);
    auto o = store_.Create(*resources[i], objects[i], opts_);
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    EXPECT_EQ((*o)->text, (*o)->Parse().dump());
    EXPECT_EQ((*o)->Parse()["metadata"]["resourceVersion"], std::to_string((*o)->resource_version));
    auto dry = store_.Create(*resources[i], objects[i], {"test", true});
    if (i == 2) {  // generateName: a new name, a dry run
      ASSERT_TRUE(dry.ok());
      EXPECT_EQ((*dry)->text, (*dry)->Parse().dump());
      EXPECT_EQ((*dry)->resource_version, store_.resource_version() + 1);
    }
  }
}

TEST_F(ObjectStoreTest, NextBatchTakesQueuedEventsInOrderWithinTheBound) {
  auto w = store_.OpenWatch(&Pods(), "default", store_.resource_version());
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(store_.Create(Pods(), Pod("default", "p" + std::to_string(i)), opts_).ok());
  }
  ASSERT_TRUE(store_.Create(Pods(), Pod("other", "x"), opts_).ok());  // not this namespace
  std::vector<WatchEvent> batch;
  // A bound below one object's size still takes one event.
  ASSERT_EQ((*w)->NextBatch(std::chrono::seconds(10), 1, &batch), Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].resource_version, 1);
  // A bound of three objects' text takes three.
  const size_t one = batch[0].object->text.size();
  ASSERT_EQ((*w)->NextBatch(std::chrono::seconds(10), 3 * one, &batch), Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 4u);
  // The rest, appended, in order.
  ASSERT_EQ((*w)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 10u);
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(batch[i].resource_version, static_cast<int64_t>(i) + 1);
  }
  batch.clear();
  EXPECT_EQ((*w)->NextBatch(std::chrono::milliseconds(1), 1 << 20, &batch),
            Watch::Result::kTimeout);
  EXPECT_TRUE(batch.empty());
  // A blocked watcher is woken by a write from another thread.
  std::thread writer([&] { ASSERT_TRUE(store_.Create(Pods(), Pod("default", "late"), opts_).ok()); });
  Watch::Result r;
  while ((r = (*w)->NextBatch(std::chrono::seconds(1), 1 << 20, &batch)) ==
         Watch::Result::kTimeout) {
  }
  writer.join();
  EXPECT_EQ(r, Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].object->Parse()["metadata"]["name"], "late");
  (*w)->Stop();
  EXPECT_EQ((*w)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kClosed);
}

TEST(ObjectStoreBacklogTest, AWatcherTooFarBehindIsClosedWithAnError) {
  SimulatedClock clock;
  StoreOptions o;
  o.max_watch_backlog = 3;
  ObjectStore store(clock, nullptr, o);
  auto w = store.OpenWatch(&Pods(), "", 0);
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store.Create(Pods(), Pod("default", "p" + std::to_string(i)), {"t", false}).ok());
  }
  std::vector<WatchEvent> batch;
  EXPECT_EQ((*w)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kClosed);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ((*w)->error(), "the watcher fell too far behind and was closed");
}

TEST(ObjectStoreWindowTest, TooOldRevisionIsExpired) {
  SimulatedClock clock;
  StoreOptions o;
  o.event_window = 2;
  ObjectStore store(clock, nullptr, o);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store.Create(Pods(), Pod("default", "p" + std::to_string(i)), {"t", false}).ok());
  }
  auto w = store.OpenWatch(&Pods(), "", 1);
  EXPECT_EQ(w.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(w.status().message(), "too old resource version: 1 (3)");
  EXPECT_TRUE(store.OpenWatch(&Pods(), "", 3).ok());
}

TEST(ObjectStorePersistenceTest, ReopenRestoresObjectsAndRevision) {
  const std::string dir = tidepool::testing::TestTempDir();
  SimulatedClock clock;
  std::string uid;
  {
    auto b = storage::OpenSqlite(dir);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ObjectStore store(clock, std::move(b).value());
    ASSERT_TRUE(store.Load().ok());
    auto a = store.Create(Pods(), Pod("default", "a"), {"t", false});
    ASSERT_TRUE(a.ok());
    uid = (*a)->Parse()["metadata"]["uid"];
    ASSERT_TRUE(store.Create(Pods(), Pod("default", "b"), {"t", false}).ok());
    ASSERT_TRUE(store.Delete(Pods(), "default", "b", {"t", false}).ok());
  }
  auto b = storage::OpenSqlite(dir);
  ASSERT_TRUE(b.ok());
  ObjectStore store(clock, std::move(b).value());
  auto n = store.Load();
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 1u);
  EXPECT_EQ(store.resource_version(), 3);
  auto a = store.Get(Pods(), "default", "a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)->Parse()["metadata"]["uid"], uid);
  EXPECT_EQ((*a)->resource_version, 1);
  auto c = store.Create(Pods(), Pod("default", "c"), {"t", false});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->Parse()["metadata"]["resourceVersion"], "4");
  EXPECT_NE((*c)->Parse()["metadata"]["uid"], uid);
}

}  // namespace
}  // namespace tidepool::apiserver
