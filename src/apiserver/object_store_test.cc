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

// ListPage reads the list as it was at a revision (writes after it undone from the history),
// from a start key, at most `limit` matching objects, and says what follows.
TEST_F(ObjectStoreTest, ListPageReadsAPageAtARevision) {
  for (const char* ns : {"a", "b"}) {
    for (const char* name : {"p1", "p2", "p3"}) {
      ASSERT_TRUE(store_.Create(Pods(), Pod(ns, name), opts_).ok());
    }
  }
  const int64_t rv = store_.resource_version();
  auto names = [](const ObjectStore::PageResult& p) {
    std::vector<std::string> out;
    for (const ObjectPtr& o : p.items) {
      out.push_back(o->view["metadata"]["namespace"].get<std::string>() + "/" +
                    o->view["metadata"]["name"].get<std::string>());
    }
    return out;
  };
  // After rv: a/p2 deleted, a/p25 created, b/p1 relabelled twice.
  ASSERT_TRUE(store_.Delete(Pods(), "a", "p2", opts_).ok());
  ASSERT_TRUE(store_.Create(Pods(), Pod("a", "p25"), opts_).ok());
  for (const char* v : {"x", "y"}) {
    ASSERT_TRUE(store_
                    .Update(
                        Pods(), "b", "p1",
                        [&](const StoredObject* cur) -> StatusOr<json> {
                          json o = cur->Parse();
                          o["metadata"]["labels"]["v"] = v;
                          return o;
                        },
                        opts_)
                    .ok());
  }
  auto all = store_.ListPage(Pods(), "", rv, {}, "", 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(names(*all),
            (std::vector<std::string>{"a/p1", "a/p2", "a/p3", "b/p1", "b/p2", "b/p3"}));
  EXPECT_FALSE(all->items[3]->view["metadata"].contains("labels"));
  EXPECT_EQ(all->resource_version, rv);
  EXPECT_FALSE(all->more);

  auto page = store_.ListPage(Pods(), "", rv, {}, std::string("a/p2") + '\0', 2);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(names(*page), (std::vector<std::string>{"a/p3", "b/p1"}));
  EXPECT_TRUE(page->more);
  EXPECT_EQ(page->remaining, 2);

  auto latest = store_.ListPage(Pods(), "a", 0, {}, "", 0);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(names(*latest), (std::vector<std::string>{"a/p1", "a/p25", "a/p3"}));
  EXPECT_EQ(latest->resource_version, store_.resource_version());

  auto labelled = store_.ListPage(
      Pods(), "", 0, [](const json& v) { return v["metadata"].contains("labels"); }, "", 1);
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ(names(*labelled), (std::vector<std::string>{"b/p1"}));
  EXPECT_TRUE(labelled->more);  // b/p2 and b/p3 follow, matching or not

  auto future = store_.ListPage(Pods(), "", store_.resource_version() + 1, {}, "", 0);
  EXPECT_EQ(future.status().code(), StatusCode::kFailedPrecondition);
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

// ObjectMeta's omitempty lists and maps are stored absent when empty, on create and update,
// as kube-apiserver's typed round trip leaves them; others and non-empty ones stay.
TEST_F(ObjectStoreTest, EmptyObjectMetaListsAndMapsAreNotStored) {
  json pod = Pod("default", "e");
  pod["metadata"]["labels"] = json::object();
  pod["metadata"]["annotations"] = json::object();
  pod["metadata"]["finalizers"] = json::array();
  pod["metadata"]["ownerReferences"] = json::array();
  pod["spec"]["tolerations"] = json::array();  // not ObjectMeta: the schema's business
  auto o = store_.Create(Pods(), pod, opts_);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  json m = (*o)->Parse()["metadata"];
  for (const char* k : {"labels", "annotations", "finalizers", "ownerReferences"}) {
    EXPECT_FALSE(m.contains(k)) << k;
  }
  EXPECT_EQ((*o)->Parse()["spec"]["tolerations"], json::array());
  EXPECT_EQ((*o)->text, (*o)->Parse().dump());
  struct Case {
    const char* field;
    json value;
    bool kept;
  };
  const Case cases[] = {
      {"finalizers", json::array({"x/y"}), true},
      {"finalizers", json::array(), false},
      {"labels", {{"a", "b"}}, true},
      {"labels", json::object(), false},
      {"ownerReferences", json::array(), false},
      {"annotations", json::object(), false},
  };
  for (const Case& c : cases) {
    auto u = store_.Update(
        Pods(), "default", "e",
        [&c](const StoredObject* cur) -> StatusOr<json> {
          json next = cur->Parse();
          next["metadata"][c.field] = c.value;
          return next;
        },
        opts_);
    ASSERT_TRUE(u.ok()) << u.status().ToString();
    EXPECT_EQ(u->object->Parse()["metadata"].contains(c.field), c.kept) << c.field << c.value;
    EXPECT_EQ(u->object->text, u->object->Parse().dump());
  }
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
  auto stale = store_.Update(Pods(), "default", "a", set_label("7"), opts_);
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
  // "0", like "", is an unconditional update (kube's Versioner parses both to 0).
  auto zero = store_.Update(Pods(), "default", "a", set_label("0"), opts_);
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  EXPECT_FALSE(zero->changed);
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
  std::vector<EventPtr> batch;
  // A bound below one object's size still takes one event.
  ASSERT_EQ((*w)->NextBatch(std::chrono::seconds(10), 1, &batch), Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0]->resource_version, 1);
  // A bound of three objects' text takes three.
  const size_t one = batch[0]->object->text.size();
  ASSERT_EQ((*w)->NextBatch(std::chrono::seconds(10), 3 * one, &batch), Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 4u);
  // The rest, appended, in order.
  ASSERT_EQ((*w)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 10u);
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(batch[i]->resource_version, static_cast<int64_t>(i) + 1);
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
  EXPECT_EQ(batch[0]->object->Parse()["metadata"]["name"], "late");
  (*w)->Stop();
  EXPECT_EQ((*w)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kClosed);
}

// A store whose log lines are kept.
struct LoggedStore {
  explicit LoggedStore(StoreOptions o) : store(clock, nullptr, WithLog(std::move(o), &lines)) {}
  static StoreOptions WithLog(StoreOptions o, std::vector<std::string>* lines) {
    o.log = [lines](const std::string& l) { lines->push_back(l); };
    return o;
  }
  SimulatedClock clock;
  std::vector<std::string> lines;
  ObjectStore store;
};

Status CreatePod(ObjectStore& store, const std::string& ns, const std::string& name) {
  return store.Create(Pods(), Pod(ns, name), {"t", false}).status();
}

TEST(ObjectStoreBacklogTest, ASlowWatcherIsClosedAndTheOthersAreNot) {
  StoreOptions o;
  o.max_watch_backlog = 3;
  LoggedStore ls(o);
  ObjectStore& store = ls.store;
  auto slow = store.OpenWatch(&Pods(), "", 0);
  auto fast = store.OpenWatch(&Pods(), "", 0);
  auto internal = store.OpenWatch(nullptr, "", 0, ObjectStore::Backlog::kUnbounded);
  ASSERT_TRUE(slow.ok() && fast.ok() && internal.ok());
  std::vector<EventPtr> got;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(CreatePod(store, "default", "p" + std::to_string(i)).ok());
    ASSERT_EQ((*fast)->NextBatch(std::chrono::seconds(10), 1 << 20, &got), Watch::Result::kEvent);
  }
  // The fourth event found three waiting: the slow watcher was closed then, its queue dropped.
  std::vector<EventPtr> batch;
  EXPECT_EQ((*slow)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kClosed);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ((*slow)->error(), "the watcher fell too far behind and was closed");
  ASSERT_EQ(ls.lines.size(), 1u);
  EXPECT_EQ(ls.lines[0].rfind("Forcing pods watcher close due to unresponsiveness: key: \"/pods/\". "
                              "3 events waiting (limit 3), ",
                              0),
            0u)
      << ls.lines[0];
  // The one that read, and the unbounded one that did not, have every event, in order.
  ASSERT_EQ(got.size(), 5u);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i]->resource_version, int64_t(i) + 1);
  EXPECT_TRUE((*fast)->error().empty());
  std::vector<EventPtr> all;
  EXPECT_TRUE((*internal)->Drain(&all));
  ASSERT_EQ(all.size(), 5u);
  // One event, shared by the watchers and the history: not a copy per watcher.
  EXPECT_EQ(all[4].get(), got[4].get());
}

TEST(ObjectStoreBacklogTest, AWatcherTooManyBytesBehindIsClosedEvenWithoutItsOwnEvents) {
  SimulatedClock clock;
  ObjectStore probe(clock, nullptr);
  ASSERT_TRUE(CreatePod(probe, "a", "p00").ok());
  const size_t pod = (*probe.Get(Pods(), "a", "p00"))->memory;
  ASSERT_GT(pod, (*probe.Get(Pods(), "a", "p00"))->text.size());  // text and view
  StoreOptions o;
  o.max_watch_lag_bytes = 3 * pod + pod / 2;  // three creates of such a pod, not four
  LoggedStore ls(o);
  ObjectStore& store = ls.store;
  auto in_a = store.OpenWatch(&Pods(), "a", 0);
  auto in_b = store.OpenWatch(&Pods(), "b", 0);
  auto reader = store.OpenWatch(&Pods(), "", 0);
  ASSERT_TRUE(in_a.ok() && in_b.ok() && reader.ok());
  ASSERT_TRUE(CreatePod(store, "b", "p00").ok());  // one event waits for in_b, none for in_a
  std::vector<EventPtr> got;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(CreatePod(store, "a", "p0" + std::to_string(i)).ok());
    ASSERT_EQ((*reader)->NextBatch(std::chrono::seconds(10), 1 << 20, &got), Watch::Result::kEvent);
  }
  // in_b's one event is now 4 pods behind, more than allowed: closed although namespace b had
  // no new event. in_a (3 pods waiting) is within the bound, and the reader is never behind.
  std::vector<EventPtr> batch;
  EXPECT_EQ((*in_b)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kClosed);
  EXPECT_TRUE(batch.empty());
  ASSERT_EQ((*in_a)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kEvent);
  EXPECT_EQ(batch.size(), 3u);
  EXPECT_TRUE((*reader)->error().empty());
  ASSERT_EQ(ls.lines.size(), 1u);
  EXPECT_NE(ls.lines[0].find("key: \"/pods/b\""), std::string::npos) << ls.lines[0];
}

TEST(ObjectStoreBacklogTest, TheEventsAWatchStartsWithDoNotCountAsBacklog) {
  StoreOptions o;
  o.max_watch_backlog = 3;
  SimulatedClock clock;
  ObjectStore store(clock, nullptr, o);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(CreatePod(store, "default", "p" + std::to_string(i)).ok());
  auto from0 = store.OpenWatch(&Pods(), "", 0);  // 10 synthetic ADDED
  auto from2 = store.OpenWatch(&Pods(), "", 2);  // 8 replayed
  ASSERT_TRUE(from0.ok() && from2.ok());
  ASSERT_TRUE(CreatePod(store, "default", "live").ok());
  std::vector<EventPtr> a, b;
  ASSERT_EQ((*from0)->NextBatch(std::chrono::seconds(10), 1 << 30, &a), Watch::Result::kEvent);
  ASSERT_EQ((*from2)->NextBatch(std::chrono::seconds(10), 1 << 30, &b), Watch::Result::kEvent);
  EXPECT_EQ(a.size(), 11u);
  ASSERT_EQ(b.size(), 9u);
  EXPECT_EQ(b.front()->resource_version, 3);
  EXPECT_EQ(b.back()->resource_version, 11);
}

TEST(ObjectStoreWindowTest, TooOldRevisionIsExpired) {
  SimulatedClock clock;
  StoreOptions o;
  o.history_events = 2;
  ObjectStore store(clock, nullptr, o);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(CreatePod(store, "default", "p" + std::to_string(i)).ok());
  // Writes of another resource neither use nor drop the pods' history.
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store.Create(Nodes(), json{{"metadata", {{"name", "n" + std::to_string(i)}}}},
                             {"t", false})
                    .ok());
  }
  auto w = store.OpenWatch(&Pods(), "", 1);
  EXPECT_EQ(w.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(w.status().message(), "too old resource version: 1 (3)");
  EXPECT_EQ(store.CheckHistory(Pods(), 2).message(), "too old resource version: 2 (3)");
  EXPECT_TRUE(store.CheckHistory(Pods(), 3).ok());
  auto from3 = store.OpenWatch(&Pods(), "", 3);
  ASSERT_TRUE(from3.ok());
  std::vector<EventPtr> batch;
  ASSERT_EQ((*from3)->NextBatch(std::chrono::seconds(10), 1 << 20, &batch), Watch::Result::kEvent);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0]->resource_version, 4);
  // Nodes: the last two of five; a watch from a pods' revision in between is served.
  EXPECT_EQ(store.OpenWatch(&Nodes(), "", 7).status().message(), "too old resource version: 7 (8)");
  EXPECT_TRUE(store.OpenWatch(&Nodes(), "", 5).status().ok() == false);
  EXPECT_TRUE(store.OpenWatch(&Nodes(), "", 8).ok());
}

TEST(ObjectStoreWindowTest, TheHistoryIsBoundedInBytes) {
  SimulatedClock clock;
  ObjectStore probe(clock, nullptr);
  ASSERT_TRUE(CreatePod(probe, "default", "p0").ok());
  const size_t pod = (*probe.Get(Pods(), "default", "p0"))->memory;
  StoreOptions o;
  o.history_bytes = 3 * pod + pod / 2;  // three pods' creates
  ObjectStore store(clock, nullptr, o);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(CreatePod(store, "default", "p" + std::to_string(i)).ok());
  EXPECT_EQ(store.CheckHistory(Pods(), 2).message(), "too old resource version: 2 (3)");
  EXPECT_TRUE(store.CheckHistory(Pods(), 3).ok());
  // An update counts its new object only (its old one is the previous event's).
  for (const char* name : {"p4", "p5"}) {
    ASSERT_TRUE(store
                    .Update(Pods(), "default", name,
                            [](const StoredObject* cur) -> StatusOr<json> {
                              json next = cur->Parse();
                              next["metadata"]["labels"]["x"] = "y";
                              return next;
                            },
                            {"t", false})
                    .ok());
  }
  EXPECT_EQ(store.CheckHistory(Pods(), 4).message(), "too old resource version: 4 (5)");
  EXPECT_TRUE(store.CheckHistory(Pods(), 5).ok());
  // A watch from revision 1 on a store that dropped history is refused, not a replay of all.
  EXPECT_EQ(store.OpenWatch(&Pods(), "", 1).status().code(), StatusCode::kOutOfRange);
}

TEST(ObjectStoreTtlTest, EventsExpireAnHourAfterTheirLastWrite) {
  SimulatedClock clock;
  ObjectStore store(clock, nullptr);  // event_ttl: 1 h by default
  const Resource& events = *FindResource("", "v1", "events");
  const Resource& events_v1 = *FindResource("events.k8s.io", "v1", "events");
  auto event = [](const std::string& name) {
    return json{{"metadata", {{"name", name}, {"namespace", "default"}}}, {"reason", "Test"}};
  };
  ASSERT_TRUE(store.Create(events, event("old"), {"t", false}).ok());
  ASSERT_TRUE(store.Create(events, event("rewritten"), {"t", false}).ok());
  ASSERT_TRUE(store.Create(events_v1, event("new-api"), {"t", false}).ok());
  ASSERT_TRUE(CreatePod(store, "default", "pod").ok());
  auto w = store.OpenWatch(&events, "", store.resource_version());
  ASSERT_TRUE(w.ok());
  clock.Advance(std::chrono::minutes(30));
  ASSERT_TRUE(store
                  .Update(events, "default", "rewritten",
                          [](const StoredObject* cur) -> StatusOr<json> {
                            json next = cur->Parse();
                            next["count"] = 2;
                            return next;
                          },
                          {"t", false})
                  .ok());
  clock.Advance(std::chrono::minutes(29));
  EXPECT_EQ(store.ExpireEvents(), 0u);
  clock.Advance(std::chrono::minutes(1));  // 1 h after the first writes
  EXPECT_EQ(store.ExpireEvents(), 2u);
  EXPECT_EQ(store.Get(events, "default", "old").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store.Get(events_v1, "default", "new-api").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store.Get(events, "default", "rewritten").ok());
  EXPECT_TRUE(store.Get(Pods(), "default", "pod").ok());  // only Events have a TTL
  clock.Advance(std::chrono::minutes(30));
  EXPECT_EQ(store.ExpireEvents(), 1u);
  EXPECT_EQ(store.Get(events, "default", "rewritten").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store.ExpireEvents(), 0u);
  // Watchers saw the deletions, as kube's watchers see an expired lease's key go.
  std::vector<EventPtr> seen;
  (*w)->Drain(&seen);
  // The update, then three deletions: events.k8s.io Events are kept with core's.
  ASSERT_EQ(seen.size(), 4u);
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i]->type, EventType::kDeleted);
    EXPECT_EQ(seen[i]->origin, "event-ttl");
  }
  // An Event deleted by a client leaves nothing behind in the queue.
  ASSERT_TRUE(store.Create(events, event("deleted"), {"t", false}).ok());
  ASSERT_TRUE(store.Delete(events, "default", "deleted", {"t", false}).ok());
  clock.Advance(std::chrono::hours(2));
  EXPECT_EQ(store.ExpireEvents(), 0u);
}

TEST(ObjectStoreTtlTest, NoTtlKeepsEvents) {
  SimulatedClock clock;
  StoreOptions o;
  o.event_ttl = Duration::zero();
  ObjectStore store(clock, nullptr, o);
  const Resource& events = *FindResource("", "v1", "events");
  ASSERT_TRUE(store.Create(events, json{{"metadata", {{"name", "e"}, {"namespace", "default"}}}},
                           {"t", false})
                  .ok());
  clock.Advance(std::chrono::hours(48));
  EXPECT_EQ(store.ExpireEvents(), 0u);
  EXPECT_TRUE(store.Get(events, "default", "e").ok());
}

// A resource served in two versions is kept once, under its storage version, also across a
// restart: what was written through one version reads back through the other.
TEST(ObjectStorePersistenceTest, AnObjectOfTwoVersionsIsOneAndSurvivesARestart) {
  const std::string dir = tidepool::testing::TestTempDir();
  SimulatedClock clock;
  const Resource& v1 = *FindResource("autoscaling", "v1", "horizontalpodautoscalers");
  const Resource& v2 = *FindResource("autoscaling", "v2", "horizontalpodautoscalers");
  const json hpa = {{"metadata", {{"name", "web"}, {"namespace", "default"}}},
                    {"spec", {{"maxReplicas", 3}}}};
  {
    auto b = storage::OpenSqlite(dir);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ObjectStore store(clock, std::move(b).value());
    ASSERT_TRUE(store.Load().ok());
    auto created = store.Create(v1, hpa, {"t", false});
    ASSERT_TRUE(created.ok());
    EXPECT_EQ((*created)->Parse()["apiVersion"], "autoscaling/v2");
    EXPECT_TRUE(store.Get(v2, "default", "web").ok());
  }
  auto b = storage::OpenSqlite(dir);
  ASSERT_TRUE(b.ok());
  ObjectStore store(clock, std::move(b).value());
  ASSERT_TRUE(store.Load().ok());
  EXPECT_TRUE(store.Get(v1, "default", "web").ok());
  EXPECT_EQ(store.List(v2, "default").items.size(), 1u);
}

// events.k8s.io Events kept in a shard of their own by an earlier tidepool are dropped at the
// next start (they are core's now, and expire within the hour), and deleted from the storage.
TEST(ObjectStorePersistenceTest, EventsOfTheOldEventsShardAreDropped) {
  const std::string dir = tidepool::testing::TestTempDir();
  {
    auto b = storage::OpenSqlite(dir);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ASSERT_TRUE((*b)->Load().ok());
    const std::string old_event = R"({"apiVersion":"events.k8s.io/v1","kind":"Event",)"
                                  R"("metadata":{"name":"old","namespace":"default"},"note":"n"})";
    const std::string core_event = R"({"apiVersion":"v1","kind":"Event",)"
                                   R"("metadata":{"name":"kept","namespace":"default"}})";
    (*b)->Put("events.k8s.io/events/default/old", 1, old_event);
    ASSERT_TRUE((*b)->Wait((*b)->Put("core/events/default/kept", 2, core_event)).ok());
    ASSERT_TRUE((*b)->Close().ok());
  }
  SimulatedClock clock;
  const Resource& events_v1 = *FindResource("events.k8s.io", "v1", "events");
  {
    auto b = storage::OpenSqlite(dir);
    ASSERT_TRUE(b.ok());
    ObjectStore store(clock, std::move(b).value());
    auto n = store.Load();
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 1u);
    EXPECT_EQ(store.resource_version(), 3);  // the deletion's revision
    EXPECT_EQ(store.List(events_v1, "default").items.size(), 1u);
  }
  auto b = storage::OpenSqlite(dir);
  ASSERT_TRUE(b.ok());
  auto snap = (*b)->Load();
  ASSERT_TRUE(snap.ok());
  ASSERT_EQ(snap->records.size(), 1u);
  EXPECT_EQ(snap->records[0].key, "core/events/default/kept");
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
  // The writes before the restart are not in the history: a watch from before is 410.
  EXPECT_EQ(store.OpenWatch(&Pods(), "", 2).status().message(), "too old resource version: 2 (3)");
  EXPECT_TRUE(store.OpenWatch(&Pods(), "", 3).ok());
}

TEST(ObjectStorePersistenceTest, RestoredEventsGetAFullTtl) {
  const std::string dir = tidepool::testing::TestTempDir();
  SimulatedClock clock;
  const Resource& events = *FindResource("", "v1", "events");
  {
    auto b = storage::OpenSqlite(dir);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ObjectStore store(clock, std::move(b).value());
    ASSERT_TRUE(store.Load().ok());
    ASSERT_TRUE(store.Create(events, json{{"metadata", {{"name", "e"}, {"namespace", "default"}}}},
                             {"t", false})
                    .ok());
  }
  clock.Advance(std::chrono::minutes(50));
  auto b = storage::OpenSqlite(dir);
  ASSERT_TRUE(b.ok());
  ObjectStore store(clock, std::move(b).value());
  ASSERT_TRUE(store.Load().ok());
  clock.Advance(std::chrono::minutes(59));
  EXPECT_EQ(store.ExpireEvents(), 0u);
  clock.Advance(std::chrono::minutes(1));
  EXPECT_EQ(store.ExpireEvents(), 1u);
}

}  // namespace
}  // namespace tidepool::apiserver
