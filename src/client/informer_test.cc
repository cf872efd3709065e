#include "client/informer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "client/shared_informers.h"
#include "client/test_api_server.h"

namespace tidepool::client {
namespace {

using nlohmann::json;
using testing::TestApiServer;

bool Eventually(const std::function<bool()>& cond, Duration timeout = std::chrono::seconds(5)) {
  RealClock clock;
  const TimePoint end = clock.Now() + timeout;
  while (clock.Now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

json ConfigMap(const std::string& name, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", value}}}};
}

// Records handler calls as text, in order.
class Recorder {
 public:
  ResourceEventHandlers Handlers() {
    ResourceEventHandlers h;
    h.on_add = [this](const ObjectRef& o, bool initial) {
      Push(std::string(initial ? "init-add " : "add ") + Informer::KeyOf(*o));
    };
    h.on_update = [this](const ObjectRef&, const ObjectRef& o) {
      Push("update " + Informer::KeyOf(*o) + "=" + (*o)["data"].value("k", ""));
    };
    h.on_delete = [this](const ObjectRef& o, bool unknown) {
      Push(std::string(unknown ? "delete-unknown " : "delete ") + Informer::KeyOf(*o));
    };
    return h;
  }
  std::vector<std::string> Events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  bool Has(const std::string& e) const {
    auto v = Events();
    return std::find(v.begin(), v.end(), e) != v.end();
  }

 private:
  void Push(std::string s) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(s));
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

class InformerTest : public ::testing::Test {
 protected:
  explicit InformerTest(apiserver::StoreOptions so = {}) : api_(so, std::chrono::milliseconds(200)) {}
  void SetUp() override {
    ASSERT_TRUE(api_.StartServer().ok());
    client_ = std::make_unique<RestClient>(api_.Config(), clock_);
  }
  InformerOptions Options() {
    InformerOptions o;
    o.path = "/api/v1/namespaces/default/configmaps";
    o.name = "configmaps";
    o.backoff.initial = std::chrono::milliseconds(50);
    o.backoff.max = std::chrono::milliseconds(300);
    o.transform = StripManagedFields;
    return o;
  }
  // Writes through the API server without HTTP (works while the HTTP server is down).
  int Write(const std::string& method, const std::string& name, const json& body = nullptr) {
    apiserver::http::HttpRequest req;
    req.method = method;
    req.path = req.target = "/api/v1/namespaces/default/configmaps" + (method == "POST" ? "" : "/" + name);
    req.headers["content-type"] = method == "PATCH" ? "application/merge-patch+json" : "application/json";
    if (!body.is_null()) req.body = body.dump();
    return api_.Serve(req).code;
  }

  TestApiServer api_;
  RealClock clock_;
  std::unique_ptr<RestClient> client_;
};

TEST_F(InformerTest, ListsThenWatches) {
  for (const char* n : {"a", "b"}) ASSERT_EQ(Write("POST", n, ConfigMap(n, "1")), 201);
  Informer inf(*client_, clock_, Options());
  Recorder rec;
  inf.AddEventHandlers(rec.Handlers());
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));
  EXPECT_EQ(inf.Size(), 2u);
  EXPECT_EQ(rec.Events(), (std::vector<std::string>{"init-add default/a", "init-add default/b"}));
  ASSERT_NE(inf.Get("default/a"), nullptr);
  EXPECT_FALSE((*inf.Get("default/a"))["metadata"].contains("managedFields"));

  ASSERT_EQ(Write("POST", "c", ConfigMap("c", "1")), 201);
  ASSERT_EQ(Write("PATCH", "a", json{{"data", {{"k", "2"}}}}), 200);
  ASSERT_EQ(Write("DELETE", "b"), 200);
  ASSERT_TRUE(Eventually([&] { return rec.Events().size() == 5; })) << ::testing::PrintToString(rec.Events());
  EXPECT_EQ(rec.Events(), (std::vector<std::string>{"init-add default/a", "init-add default/b", "add default/c",
                                                    "update default/a=2", "delete default/b"}));
  std::vector<std::string> keys;
  for (const ObjectRef& o : inf.List()) keys.push_back(Informer::KeyOf(*o));
  EXPECT_EQ(keys, (std::vector<std::string>{"default/a", "default/c"}));
  const InformerStats s = inf.stats();
  EXPECT_EQ(s.lists, 1u);
  EXPECT_EQ(s.events, 3u);
  // Bookmarks (the server sends one after an idle second here) advance the resourceVersion.
  ASSERT_TRUE(Eventually([&] { return inf.stats().bookmarks >= 1; }));
  inf.Stop();
}

TEST_F(InformerTest, MetadataOnlyCacheKeepsStubsAndHandsWholeObjectsToHandlers) {
  ASSERT_EQ(Write("POST", "a", ConfigMap("a", "1")), 201);
  InformerOptions o = Options();
  o.cache_metadata_only = true;
  Informer inf(*client_, clock_, o);
  std::mutex mu;
  std::vector<std::string> seen;  // what handlers got: the data, or "-" when absent
  ResourceEventHandlers h;
  auto data = [](const ObjectRef& obj) {
    return obj->contains("data") ? (*obj)["data"].value("k", "") : std::string("-");
  };
  h.on_add = [&](const ObjectRef& obj, bool) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back("add " + data(obj));
  };
  h.on_update = [&](const ObjectRef& old_obj, const ObjectRef& obj) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back("update " + data(old_obj) + " -> " + data(obj));
  };
  h.on_delete = [&](const ObjectRef& obj, bool) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back("delete " + data(obj) + " " + Informer::KeyOf(*obj));
  };
  inf.AddEventHandlers(h);
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));
  ObjectRef cached = inf.Get("default/a");
  ASSERT_NE(cached, nullptr);
  const json& md = (*cached)["metadata"];
  EXPECT_EQ(cached->size(), 1u) << cached->dump();
  EXPECT_EQ(md.size(), 3u) << cached->dump();
  EXPECT_EQ(md.value("name", ""), "a");
  EXPECT_EQ(md.value("namespace", ""), "default");
  EXPECT_FALSE(md.value("resourceVersion", "").empty());

  ASSERT_EQ(Write("PATCH", "a", json{{"data", {{"k", "2"}}}}), 200);
  ASSERT_EQ(Write("DELETE", "a"), 200);
  auto events = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return seen;
  };
  ASSERT_TRUE(Eventually([&] { return events().size() == 3; })) << ::testing::PrintToString(events());
  // Whole objects for the add, the update's new state and the observed deletion; the update's
  // old state is the stub.
  EXPECT_EQ(events(), (std::vector<std::string>{"add 1", "update - -> 2", "delete 2 default/a"}));
  EXPECT_EQ(inf.Size(), 0u);
  inf.Stop();
}

TEST_F(InformerTest, FollowsContinueTokensAndFallsBackWhenOneExpires) {
  for (const char* n : {"a", "b", "c", "d", "e"}) ASSERT_EQ(Write("POST", n, ConfigMap(n, "1")), 201);
  std::atomic<bool> expire{false};
  std::atomic<int> pages{0};
  std::mutex mu;
  std::vector<std::string> limits;
  // Paginates list answers by hand (the API server answers lists whole).
  api_.SetInterceptor([&](const apiserver::http::HttpRequest& req, apiserver::http::ResponseWriter& w) {
    if (req.method != "GET" || req.HasQuery("watch") || !req.HasQuery("limit")) return false;
    {
      std::lock_guard<std::mutex> lock(mu);
      limits.push_back(req.Query("limit"));
    }
    const size_t offset = std::stoul(req.Query("continue", "0"));
    if (offset > 0 && expire.load()) {
      w.Send(410, "application/json",
             R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"The provided continue parameter is too old","reason":"Expired","code":410})");
      return true;
    }
    apiserver::http::HttpRequest full = req;
    full.query.clear();
    json list = json::parse(api_.Serve(full).body);
    const size_t page = 2;
    json items = json::array();
    for (size_t i = offset; i < std::min(offset + page, list["items"].size()); ++i) items.push_back(list["items"][i]);
    if (offset + page < list["items"].size()) list["metadata"]["continue"] = std::to_string(offset + page);
    list["items"] = items;
    ++pages;
    w.Send(200, "application/json", list.dump());
    return true;
  });
  {
    Informer inf(*client_, clock_, Options());
    inf.Start();
    ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));
    EXPECT_EQ(inf.Size(), 5u);
    EXPECT_EQ(pages.load(), 3);
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(limits.front(), "500");
  }
  expire.store(true);
  Informer inf(*client_, clock_, Options());
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));
  EXPECT_EQ(inf.Size(), 5u);  // the full list after the expired continue token
}

TEST_F(InformerTest, ResumesWhenTheServerEndsTheWatch) {
  InformerOptions o = Options();
  o.min_watch_timeout = std::chrono::seconds(1);  // timeoutSeconds in [1, 2)
  Informer inf(*client_, clock_, o);
  Recorder rec;
  inf.AddEventHandlers(rec.Handlers());
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));
  ASSERT_TRUE(Eventually([&] { return inf.stats().watch_restarts >= 1; }));
  ASSERT_EQ(Write("POST", "late", ConfigMap("late", "1")), 201);
  ASSERT_TRUE(Eventually([&] { return rec.Has("add default/late"); }));
  const InformerStats s = inf.stats();
  EXPECT_EQ(s.lists, 1u);  // resumed from the resourceVersion, never relisted
  EXPECT_EQ(s.relists_on_expired, 0u);
}

class InformerExpiryTest : public InformerTest {
 protected:
  InformerExpiryTest() : InformerTest(WindowOf(5)) {}
  static apiserver::StoreOptions WindowOf(size_t events) {
    apiserver::StoreOptions o;
    o.history_events = events;
    return o;
  }
};

class InformerExpiryModeTest : public InformerExpiryTest, public ::testing::WithParamInterface<bool> {};

// Both caches: whole objects, and packed metadata (cache_metadata_only).
TEST_P(InformerExpiryModeTest, BacksOffWhileTheServerIsDownAndRelistsOn410) {
  for (const char* n : {"a", "b", "c"}) ASSERT_EQ(Write("POST", n, ConfigMap(n, "1")), 201);
  InformerOptions o = Options();
  o.cache_metadata_only = GetParam();
  Informer inf(*client_, clock_, o);
  Recorder rec;
  inf.AddEventHandlers(rec.Handlers());
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));

  // The server goes away; while it is down the cluster changes more than the watch window holds.
  const uint16_t port = api_.port();
  api_.StopServer();
  ASSERT_EQ(Write("DELETE", "a"), 200);
  ASSERT_EQ(Write("PATCH", "b", json{{"data", {{"k", "2"}}}}), 200);
  ASSERT_EQ(Write("POST", "d", ConfigMap("d", "1")), 201);
  for (int i = 0; i < 6; ++i) ASSERT_EQ(Write("PATCH", "c", json{{"data", {{"k", std::to_string(10 + i)}}}}), 200);
  ASSERT_EQ(Write("PATCH", "c", json{{"data", {{"k", "1"}}}}), 200);
  ASSERT_TRUE(Eventually([&] { return inf.stats().errors >= 2; })) << inf.stats().last_error;

  // Back on the same port, same store: the old resourceVersion is too old -> relist.
  ASSERT_TRUE(api_.StartServer(port).ok());
  ASSERT_TRUE(Eventually([&] { return inf.stats().relists_on_expired == 1; }, std::chrono::seconds(10)))
      << inf.stats().last_error;
  ASSERT_TRUE(Eventually([&] { return rec.Events().size() == 7; })) << ::testing::PrintToString(rec.Events());
  const std::vector<std::string> all = rec.Events();
  const std::vector<std::string> after(all.begin() + 3, all.end());
  EXPECT_EQ(after, (std::vector<std::string>{"update default/b=2", "update default/c=1", "add default/d",
                                             "delete-unknown default/a"}));
  EXPECT_EQ(inf.Size(), 3u);
  EXPECT_EQ(inf.stats().lists, 2u);
}

INSTANTIATE_TEST_SUITE_P(BothCaches, InformerExpiryModeTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return std::string(p.param ? "MetadataOnly" : "WholeObjects");
                         });

// The cache without an API server (ReplaceForTest / ApplyForTest), in both modes.

json Obj(const std::string& ns, const std::string& name, const std::string& rv) {
  json md = {{"name", name}, {"resourceVersion", rv}, {"uid", "u-" + name}};
  if (!ns.empty()) md["namespace"] = ns;
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", md}, {"data", {{"k", rv}}}};
}

// What the metadata-only cache hands out for an object (the documented stub).
json StubOf(const json& obj) {
  json md = json::object();
  for (const char* f : {"name", "namespace", "resourceVersion"}) {
    if (obj["metadata"].contains(f)) md[f] = obj["metadata"][f];
  }
  return {{"metadata", md}};
}

// "full" for a whole object (it has data), "stub" for a stub (exactly StubOf of the object).
std::string Shape(const ObjectRef& o) {
  if (o == nullptr) return "null";
  if (o->contains("data")) return "full";
  return *o == json{{"metadata", (*o)["metadata"]}} && (*o)["metadata"].size() <= 3 ? "stub" : "other";
}

std::string Rv(const ObjectRef& o) { return (*o)["metadata"].value("resourceVersion", ""); }

// Records calls with the shapes and resourceVersions of the objects handed over.
ResourceEventHandlers ShapeRecorder(std::vector<std::string>* out) {
  ResourceEventHandlers h;
  h.on_add = [out](const ObjectRef& o, bool initial) {
    out->push_back(std::string(initial ? "init-add " : "add ") + Informer::KeyOf(*o) + " " + Shape(o));
  };
  h.on_update = [out](const ObjectRef& old_obj, const ObjectRef& o) {
    out->push_back("update " + Informer::KeyOf(*o) + " " + Rv(old_obj) + "(" + Shape(old_obj) + ")->" + Rv(o) +
                   "(" + Shape(o) + ")");
  };
  h.on_delete = [out](const ObjectRef& o, bool unknown) {
    out->push_back(std::string(unknown ? "delete-unknown " : "delete ") + Informer::KeyOf(*o) + " " + Rv(o) + "(" +
                   Shape(o) + ")");
  };
  return h;
}

class InformerCacheTest : public ::testing::TestWithParam<bool> {
 protected:
  InformerCacheTest() : rest_(RestConfig{}, clock_) {}
  std::unique_ptr<Informer> Make() {
    InformerOptions o;
    o.path = "/api/v1/configmaps";
    o.transform = StripManagedFields;
    o.cache_metadata_only = GetParam();
    auto inf = std::make_unique<Informer>(rest_, clock_, o);
    inf->AddEventHandlers(ShapeRecorder(&events_));
    return inf;
  }
  // "stub" with cache_metadata_only, "full" without.
  std::string Kept() const { return GetParam() ? "stub" : "full"; }
  // Every object of List() and Get() is the cached state of `want` (same order, same keys):
  // the whole object, or exactly its stub.
  void ExpectCache(const Informer& inf, const std::vector<json>& want) {
    std::vector<json> sorted = want;
    std::sort(sorted.begin(), sorted.end(),
              [](const json& a, const json& b) { return Informer::KeyOf(a) < Informer::KeyOf(b); });
    std::vector<ObjectRef> got = inf.List();
    ASSERT_EQ(got.size(), sorted.size());
    EXPECT_EQ(inf.Size(), sorted.size());
    for (size_t i = 0; i < sorted.size(); ++i) {
      const json expected = GetParam() ? StubOf(sorted[i]) : sorted[i];
      EXPECT_EQ(*got[i], expected) << i;
      ObjectRef one = inf.Get(Informer::KeyOf(sorted[i]));
      ASSERT_NE(one, nullptr) << Informer::KeyOf(sorted[i]);
      EXPECT_EQ(*one, expected);
    }
  }

  SimulatedClock clock_;
  RestClient rest_;
  std::vector<std::string> events_;
};

TEST_P(InformerCacheTest, RelistAddsUpdatesAndDeletesAndSkipsUnchangedObjects) {
  struct Case {
    std::string name;
    std::vector<json> first, second;
    std::vector<std::string> want;  // events of the second list; "$" is Kept()
  };
  const std::vector<Case> cases = {
      {"an add, an update and an inferred deletion; the unchanged object produces no callback",
       {Obj("ns", "a", "1"), Obj("ns", "b", "1"), Obj("ns", "c", "1")},
       {Obj("ns", "a", "1"), Obj("ns", "b", "2"), Obj("ns", "d", "3")},
       {"update ns/b 1($)->2(full)", "add ns/d full", "delete-unknown ns/c 1($)"}},
      {"the same list again: nothing",
       {Obj("ns", "a", "1"), Obj("other", "a", "5")},
       {Obj("other", "a", "5"), Obj("ns", "a", "1")},
       {}},
      {"an empty list deletes everything, in key order",
       {Obj("z", "a", "1"), Obj("a", "z", "2"), Obj("", "node-1", "3")},
       {},
       {"delete-unknown a/z 2($)", "delete-unknown node-1 3($)", "delete-unknown z/a 1($)"}},
      {"adds and updates in list order, then deletions",
       {Obj("ns", "b", "1"), Obj("ns", "c", "1"), Obj("", "n", "7")},
       {Obj("ns", "x", "1"), Obj("", "n", "8"), Obj("ns", "a", "1")},
       {"add ns/x full", "update n 7($)->8(full)", "add ns/a full", "delete-unknown ns/b 1($)",
        "delete-unknown ns/c 1($)"}},
      {"a resourceVersion that goes back still counts as changed",
       {Obj("ns", "a", "10")},
       {Obj("ns", "a", "9")},
       {"update ns/a 10($)->9(full)"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    events_.clear();
    auto inf = Make();
    inf->ReplaceForTest(std::vector<json>(tc.first), "100");
    std::vector<std::string> initial;
    for (const json& o : tc.first) initial.push_back("init-add " + Informer::KeyOf(o) + " full");
    EXPECT_EQ(events_, initial);
    EXPECT_TRUE(inf->HasSynced());
    ExpectCache(*inf, tc.first);
    events_.clear();
    inf->ReplaceForTest(std::vector<json>(tc.second), "200");
    std::vector<std::string> want;
    for (std::string e : tc.want) {
      for (size_t p; (p = e.find('$')) != std::string::npos;) e.replace(p, 1, Kept());
      want.push_back(e);
    }
    EXPECT_EQ(events_, want);
    ExpectCache(*inf, tc.second);
    EXPECT_EQ(inf->stats().lists, 2u);
    EXPECT_EQ(inf->stats().last_resource_version, "200");
  }
}

TEST_P(InformerCacheTest, WatchEventsUpdateTheCache) {
  auto inf = Make();
  inf->ReplaceForTest({Obj("ns", "a", "1")}, "1");
  events_.clear();
  inf->ApplyForTest("ADDED", Obj("ns", "b", "2"));
  inf->ApplyForTest("MODIFIED", Obj("ns", "a", "3"));
  inf->ApplyForTest("MODIFIED", Obj("ns", "c", "4"));  // unknown: an add
  inf->ApplyForTest("DELETED", Obj("ns", "b", "5"));
  inf->ApplyForTest("DELETED", Obj("ns", "zz", "6"));  // unknown: OnDelete all the same
  EXPECT_EQ(events_, (std::vector<std::string>{"add ns/b full", "update ns/a 1(" + Kept() + ")->3(full)",
                                               "add ns/c full", "delete ns/b 5(full)", "delete ns/zz 6(full)"}));
  ExpectCache(*inf, {Obj("ns", "a", "3"), Obj("ns", "c", "4")});
  EXPECT_EQ(inf->Get("ns/b"), nullptr);
  EXPECT_EQ(inf->Get("ns"), nullptr);
  EXPECT_EQ(inf->stats().events, 5u);
  // A relist after watch events compares against what they left.
  events_.clear();
  inf->ReplaceForTest({Obj("ns", "a", "3"), Obj("ns", "c", "7")}, "9");
  EXPECT_EQ(events_, (std::vector<std::string>{"update ns/c 4(" + Kept() + ")->7(full)"}));
}

TEST_P(InformerCacheTest, StubsHoldTheFieldsTheObjectHad) {
  struct Case {
    std::string name;
    json obj;
    std::string key;
  };
  json no_rv = Obj("ns", "a", "1");
  no_rv["metadata"].erase("resourceVersion");
  json empty_ns = Obj("", "b", "2");
  empty_ns["metadata"]["namespace"] = "";
  json long_names = Obj(std::string(63, 'n'), std::string(253, 'x'), "18446744073709551615");
  json managed = Obj("ns", "m", "3");
  managed["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}}});
  const std::vector<Case> cases = {
      {"a namespaced object", Obj("kube-system", "coredns-1", "42"), "kube-system/coredns-1"},
      {"a cluster-scoped object: no namespace", Obj("", "gke-pool-1-abcd", "7"), "gke-pool-1-abcd"},
      {"no resourceVersion", no_rv, "ns/a"},
      {"an empty namespace is kept as such", empty_ns, "b"},
      {"long names", long_names, std::string(63, 'n') + "/" + std::string(253, 'x')},
      {"managedFields are stripped before anything is kept", managed, "ns/m"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    events_.clear();
    auto inf = Make();
    ObjectRef deleted;
    ResourceEventHandlers h;
    h.on_delete = [&deleted](const ObjectRef& o, bool) { deleted = o; };
    inf->AddEventHandlers(h);
    inf->ReplaceForTest({tc.obj}, "1");
    ObjectRef got = inf->Get(tc.key);
    ASSERT_NE(got, nullptr);
    json want = GetParam() ? StubOf(tc.obj) : StripManagedFields(json(tc.obj));
    EXPECT_EQ(*got, want) << got->dump();
    ASSERT_EQ(inf->List().size(), 1u);
    EXPECT_EQ(*inf->List()[0], want);
    // The inferred deletion hands out the same.
    inf->ReplaceForTest({}, "2");
    ASSERT_EQ(events_.size(), 2u);
    EXPECT_EQ(events_[1].rfind("delete-unknown " + tc.key + " ", 0), 0u) << events_[1];
    ASSERT_NE(deleted, nullptr);
    EXPECT_EQ(*deleted, want);
  }
}

INSTANTIATE_TEST_SUITE_P(BothCaches, InformerCacheTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return std::string(p.param ? "MetadataOnly" : "WholeObjects");
                         });

TEST_F(InformerTest, BacksOffOnServerErrorsThenSyncs) {
  std::atomic<int> failures{0};
  api_.SetInterceptor([&](const apiserver::http::HttpRequest& req, apiserver::http::ResponseWriter& w) {
    if (req.HasQuery("watch") || failures.load() >= 3) return false;
    ++failures;
    w.Send(500, "application/json",
           R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcdserver: leader changed","reason":"InternalError","code":500})");
    return true;
  });
  Informer inf(*client_, clock_, Options());
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));
  const InformerStats s = inf.stats();
  EXPECT_EQ(s.errors, 3u);
  EXPECT_NE(s.last_error.find("etcdserver: leader changed"), std::string::npos) << s.last_error;
}

TEST_F(InformerTest, StopIsPrompt) {
  Informer inf(*client_, clock_, Options());
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(5)));
  ASSERT_TRUE(Eventually([&] { return inf.stats().watches >= 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const TimePoint start = clock_.Now();
  inf.Stop();
  EXPECT_LT(clock_.Now() - start, std::chrono::seconds(1));
  // And while backing off against a dead server.
  api_.StopServer();
  Informer dead(*client_, clock_, Options());
  dead.Start();
  ASSERT_TRUE(Eventually([&] { return dead.stats().errors >= 1; }));
  const TimePoint start2 = clock_.Now();
  dead.Stop();
  EXPECT_LT(clock_.Now() - start2, std::chrono::seconds(1));
  EXPECT_FALSE(dead.HasSynced());
}

// ---- SharedInformerFactory (shared_informers.h) ------------------------------------------------

TEST_F(InformerTest, FactorySharesInformersOfTheSameOptionsOnly) {
  SharedInformerFactory factory(*client_, clock_);
  auto base = [] {
    InformerOptions o = DecodingInformerOptions("pods", "/api/v1/pods", 1);
    return o;
  };
  struct Case {
    std::string name;
    std::function<void(InformerOptions&)> change;
    bool shared;
  };
  const std::vector<Case> cases = {
      {"same options, other name and seed",
       [](InformerOptions& o) {
         o.name = "x";
         o.seed = 9;
       },
       true},
      {"other path", [](InformerOptions& o) { o.path = "/api/v1/nodes"; }, false},
      {"a label selector", [](InformerOptions& o) { o.label_selector = "app=a"; }, false},
      {"a field selector", [](InformerOptions& o) { o.field_selector = "spec.nodeName!="; }, false},
      {"whole objects cached", [](InformerOptions& o) { o.cache_metadata_only = false; }, false},
      {"another transform name", [](InformerOptions& o) { o.transform_name = "slim"; }, false},
      {"an unnamed transform", [](InformerOptions& o) { o.transform_name.clear(); }, false},
  };
  const std::shared_ptr<Informer> first = factory.InformerFor(base());
  for (const Case& c : cases) {
    InformerOptions o = base();
    c.change(o);
    EXPECT_EQ(factory.InformerFor(o) == first, c.shared) << c.name;
  }
  // Unnamed transforms are never shared, even with themselves.
  InformerOptions unnamed = base();
  unnamed.transform_name.clear();
  EXPECT_NE(factory.InformerFor(unnamed), factory.InformerFor(unnamed));
  // Neither transform: shared.
  InformerOptions plain;
  plain.path = "/api/v1/configmaps";
  EXPECT_EQ(factory.InformerFor(plain), factory.InformerFor(plain));
  EXPECT_EQ(factory.requests(), cases.size() + 5);
  EXPECT_EQ(factory.informers(), 10u);  // first, the 6 unshared cases, 2 unnamed, plain
  // Without a factory, MakeInformer makes a new one each time.
  EXPECT_NE(MakeInformer(nullptr, *client_, clock_, base(), nullptr),
            MakeInformer(nullptr, *client_, clock_, base(), nullptr));
  EXPECT_EQ(MakeInformer(&factory, *client_, clock_, base(), nullptr), first);
}

TEST_F(InformerTest, ConsumersOfASharedInformerSeeEveryEventFromOneListAndWatch) {
  ASSERT_EQ(Write("POST", "a", ConfigMap("a", "1")), 201);
  SharedInformerFactory factory(*client_, clock_);
  InformerOptions options = Options();
  options.transform_name = "strip-managed-fields";
  const std::shared_ptr<Informer> one = factory.InformerFor(options);
  const std::shared_ptr<Informer> two = factory.InformerFor(options);
  ASSERT_EQ(one, two);
  Recorder r1, r2;
  one->AddEventHandlers(r1.Handlers());
  two->AddEventHandlers(r2.Handlers());
  factory.Start();
  two->Start();  // a consumer's own Start of a started shared informer does nothing
  ASSERT_TRUE(one->WaitForSync(std::chrono::seconds(5)));
  ASSERT_EQ(Write("PATCH", "a", json{{"data", {{"k", "2"}}}}), 200);
  ASSERT_EQ(Write("DELETE", "a"), 200);
  const std::vector<std::string> want = {"init-add default/a", "update default/a=2",
                                         "delete default/a"};
  ASSERT_TRUE(Eventually([&] { return r1.Events().size() == 3 && r2.Events().size() == 3; }));
  EXPECT_EQ(r1.Events(), want);
  EXPECT_EQ(r2.Events(), want);
  EXPECT_EQ(one->stats().lists, 1u);
  EXPECT_EQ(one->stats().watches, 1u);
  // Handlers added once it runs would miss the list: refused.
  Recorder late;
  one->AddEventHandlers(late.Handlers());
  ASSERT_EQ(Write("POST", "b", ConfigMap("b", "1")), 201);
  ASSERT_TRUE(Eventually([&] { return r1.Has("add default/b"); }));
  EXPECT_TRUE(late.Events().empty());
  // Stopped by one owner (from two threads at once) and the factory: idempotent.
  std::thread t([&] { one->Stop(); });
  two->Stop();
  t.join();
  factory.Stop();
}

}  // namespace
}  // namespace tidepool::client
