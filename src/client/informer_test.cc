#include "client/informer.h"

#include <gtest/gtest.h>

#include <thread>

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
  InformerExpiryTest() : InformerTest(apiserver::StoreOptions{1, 5, 200000}) {}
};

TEST_F(InformerExpiryTest, BacksOffWhileTheServerIsDownAndRelistsOn410) {
  for (const char* n : {"a", "b", "c"}) ASSERT_EQ(Write("POST", n, ConfigMap(n, "1")), 201);
  Informer inf(*client_, clock_, Options());
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

}  // namespace
}  // namespace tidepool::client
