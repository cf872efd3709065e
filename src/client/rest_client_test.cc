#include "client/rest_client.h"
#include "common/base64.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "client/internal.h"
#include "client/test_api_server.h"
#include "cloud/gke/tls_endpoint.h"
#include "testing/temp_dir.h"

namespace tidepool::client {
namespace {

using nlohmann::json;
using testing::TestApiServer;

json ConfigMap(const std::string& name, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", value}}}};
}

class RestClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(api_.StartServer().ok()); }
  TestApiServer api_;
  RealClock clock_;
};

TEST(RestPathsTest, ResourcePathAndMicroTime) {
  EXPECT_EQ(ResourcePath("", "v1", "pods", "default", "p", "eviction"), "/api/v1/namespaces/default/pods/p/eviction");
  EXPECT_EQ(ResourcePath("", "v1", "nodes"), "/api/v1/nodes");
  EXPECT_EQ(ResourcePath("coordination.k8s.io", "v1", "leases", "kube-system", "cluster-autoscaler"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cluster-autoscaler");
  const TimePoint t = TimePoint(std::chrono::seconds(1796079022)) + std::chrono::microseconds(123456);
  EXPECT_EQ(FormatMicroTime(t), "2026-11-30T22:50:22.123456Z");
  EXPECT_EQ(*ParseRfc3339("2026-11-30T22:50:22.123456Z"), t);
  EXPECT_EQ(*ParseRfc3339("2026-11-30T23:50:22.123456+01:00"), t);
  EXPECT_EQ(*ParseRfc3339("2026-11-30T22:50:22Z"), TimePoint(std::chrono::seconds(1796079022)));
  EXPECT_FALSE(ParseRfc3339("2026-11-30 nope").ok());
}

TEST(RestPathsTest, StatusMapping) {
  struct Case {
    int http;
    std::string reason;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {400, "BadRequest", StatusCode::kInvalidArgument},  {401, "Unauthorized", StatusCode::kUnauthenticated},
      {403, "Forbidden", StatusCode::kPermissionDenied},  {404, "NotFound", StatusCode::kNotFound},
      {409, "AlreadyExists", StatusCode::kAlreadyExists}, {409, "Conflict", StatusCode::kAborted},
      {410, "Expired", StatusCode::kOutOfRange},          {410, "Gone", StatusCode::kOutOfRange},
      {422, "Invalid", StatusCode::kInvalidArgument},     {429, "TooManyRequests", StatusCode::kResourceExhausted},
      {500, "InternalError", StatusCode::kUnavailable},   {503, "ServiceUnavailable", StatusCode::kUnavailable},
      {504, "Timeout", StatusCode::kDeadlineExceeded},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(std::to_string(tc.http) + " " + tc.reason);
    EXPECT_EQ(StatusCodeForHttp(tc.http, tc.reason), tc.code);
  }
}

TEST_F(RestClientTest, CrudAndErrors) {
  RestClient client(api_.Config(), clock_);
  const std::string coll = ResourcePath("", "v1", "configmaps", "default");
  const std::string path = ResourcePath("", "v1", "configmaps", "default", "cm");

  auto created = client.Create(coll, ConfigMap("cm", "1"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)["data"]["k"], "1");
  const std::string rv1 = (*created)["metadata"]["resourceVersion"];

  // 409 AlreadyExists.
  RestResult dup = client.CreateResult(coll, ConfigMap("cm", "1"));
  EXPECT_EQ(dup.http_status, 409);
  EXPECT_EQ(dup.reason, "AlreadyExists");
  EXPECT_EQ(dup.status.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.status.message(), "configmaps \"cm\" already exists");

  auto got = client.Get(path);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["metadata"]["uid"], (*created)["metadata"]["uid"]);

  // Update (PUT) with the current resourceVersion, then a stale one: 409 Conflict.
  json updated = *got;
  updated["data"]["k"] = "2";
  auto put = client.Update(path, updated);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_NE((*put)["metadata"]["resourceVersion"], rv1);
  json stale = *got;
  stale["data"]["k"] = "3";
  RestResult conflict = client.UpdateResult(path, stale);
  EXPECT_EQ(conflict.http_status, 409);
  EXPECT_EQ(conflict.reason, "Conflict");
  EXPECT_EQ(conflict.status.code(), StatusCode::kAborted);
  EXPECT_EQ(conflict.status.message(),
            "Operation cannot be fulfilled on configmaps \"cm\": the object has been modified; please apply your "
            "changes to the latest version and try again");

  // The three patch types.
  auto merge = client.Patch(path, PatchType::kMerge, json{{"data", {{"m", "x"}}}});
  ASSERT_TRUE(merge.ok()) << merge.status().ToString();
  EXPECT_EQ((*merge)["data"]["m"], "x");
  auto smp = client.Patch(path, PatchType::kStrategicMerge, json{{"metadata", {{"labels", {{"a", "b"}}}}}});
  ASSERT_TRUE(smp.ok()) << smp.status().ToString();
  EXPECT_EQ((*smp)["metadata"]["labels"]["a"], "b");
  auto jp = client.Patch(path, PatchType::kJsonPatch, json::array({{{"op", "replace"}, {"path", "/data/k"}, {"value", "9"}}}));
  ASSERT_TRUE(jp.ok()) << jp.status().ToString();
  EXPECT_EQ((*jp)["data"]["k"], "9");

  // A patch whose answer is not read: applied, OK; its errors still decoded.
  ASSERT_TRUE(client.PatchUnread(path, PatchType::kMerge, json{{"data", {{"u", "1"}}}}).ok());
  EXPECT_EQ((*client.Get(path))["data"]["u"], "1");
  const Status gone = client.PatchUnread(ResourcePath("", "v1", "configmaps", "default", "none"),
                                         PatchType::kMerge, json{{"data", {{"u", "1"}}}});
  EXPECT_EQ(gone.code(), StatusCode::kNotFound);
  EXPECT_EQ(gone.message(), "configmaps \"none\" not found");
  // The same for a create and an update.
  ASSERT_TRUE(client.CreateUnread(coll, ConfigMap("cm2", "c")).ok());
  EXPECT_EQ((*client.Get(ResourcePath("", "v1", "configmaps", "default", "cm2")))["data"]["k"],
            "c");
  EXPECT_EQ(client.CreateUnread(coll, ConfigMap("cm2", "c")).code(), StatusCode::kAlreadyExists);
  json current = *client.Get(path);
  current["data"]["p"] = "2";
  ASSERT_TRUE(client.UpdateUnread(path, current).ok());
  EXPECT_EQ((*client.Get(path))["data"]["p"], "2");
  EXPECT_EQ(client.UpdateUnread(path, current).code(),
            StatusCode::kAborted);  // stale resourceVersion
  ASSERT_TRUE(client.Delete(ResourcePath("", "v1", "configmaps", "default", "cm2")).ok());

  // List.
  auto list = client.List(coll);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ((*list)["items"].size(), 1u);
  EXPECT_FALSE((*list)["metadata"]["resourceVersion"].get<std::string>().empty());

  // 422 Invalid.
  RestResult invalid = client.CreateResult(coll, ConfigMap("Bad_Name", "1"));
  EXPECT_EQ(invalid.http_status, 422);
  EXPECT_EQ(invalid.reason, "Invalid");
  EXPECT_EQ(invalid.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(invalid.status.message()).rfind("ConfigMap \"Bad_Name\" is invalid: ", 0), 0u)
      << invalid.status.message();

  // Delete, then 404.
  ASSERT_TRUE(client.Delete(path).ok());
  RestResult missing = client.GetResult(path);
  EXPECT_EQ(missing.http_status, 404);
  EXPECT_EQ(missing.reason, "NotFound");
  EXPECT_EQ(missing.status.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status.message(), "configmaps \"cm\" not found");
  EXPECT_EQ(missing.body["kind"], "Status");
}

TEST_F(RestClientTest, HeadersRetryAfterAndNonStatusErrors) {
  std::mutex mu;
  std::map<std::string, std::string> seen;
  api_.SetInterceptor([&](const apiserver::http::HttpRequest& req, apiserver::http::ResponseWriter& w) {
    {
      std::lock_guard<std::mutex> lock(mu);
      seen = req.headers;
    }
    if (req.path == "/busy") {
      w.Send(429, "application/json",
             R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests","code":429})",
             {{"Retry-After", "7"}});
      return true;
    }
    if (req.path == "/html") {
      w.Send(502, "text/html", "<html>bad gateway</html>");
      return true;
    }
    return false;
  });
  RestConfig cfg = api_.Config();
  cfg.bearer_token = "secret-token";
  RestClient client(cfg, clock_);
  RestResult busy = client.GetResult("/busy");
  EXPECT_EQ(busy.http_status, 429);
  EXPECT_EQ(busy.status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(busy.status.message(), "Cannot evict pod as it would violate the pod's disruption budget.");
  ASSERT_TRUE(busy.retry_after.has_value());
  EXPECT_EQ(*busy.retry_after, std::chrono::seconds(7));
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(seen["accept"], "application/json");
    EXPECT_EQ(seen["authorization"], "Bearer secret-token");
    EXPECT_EQ(seen["user-agent"].rfind("tidepool-autoscaler/", 0), 0u);
  }
  RestResult html = client.GetResult("/html");
  EXPECT_EQ(html.http_status, 502);
  EXPECT_EQ(html.status.code(), StatusCode::kUnavailable);
  EXPECT_EQ(html.status.message(), "the server responded with the status code 502 but did not return more information");

  // Transport failure.
  api_.StopServer();
  RestResult down = client.GetResult("/api/v1/nodes");
  EXPECT_EQ(down.http_status, 0);
  EXPECT_EQ(down.status.code(), StatusCode::kUnavailable);
}

TEST_F(RestClientTest, A401RefreshesExecCredentialsOnce) {
  const std::string dir = tidepool::testing::TestTempDir();
  {
    std::ofstream(dir + "/plugin.sh")
        << "#!/bin/sh\nn=$(cat " << dir << "/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > " << dir
        << "/runs\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
           "\"status\":{\"token\":\"tok-%s\"}}' $n\n";
  }
  ::chmod((dir + "/plugin.sh").c_str(), 0755);
  api_.SetInterceptor([&](const apiserver::http::HttpRequest& req, apiserver::http::ResponseWriter& w) {
    if (req.Header("authorization") != "Bearer tok-2") {
      w.Send(401, "application/json",
             R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
      return true;
    }
    return false;
  });
  RestConfig cfg = api_.Config();
  ExecConfig exec;
  exec.api_version = "client.authentication.k8s.io/v1";
  exec.command = dir + "/plugin.sh";
  exec.interactive_mode = "Never";
  cfg.exec = exec;
  RestClient client(cfg, clock_);
  auto nodes = client.List("/api/v1/nodes");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_EQ(client.authenticator().exec_runs(), 2u);
  // Still refused after the refresh: the 401 comes back (no loop).
  api_.SetInterceptor([&](const apiserver::http::HttpRequest&, apiserver::http::ResponseWriter& w) {
    w.Send(401, "application/json", R"({"kind":"Status","message":"Unauthorized","reason":"Unauthorized","code":401})");
    return true;
  });
  RestResult r = client.GetResult("/api/v1/nodes");
  EXPECT_EQ(r.http_status, 401);
  EXPECT_EQ(r.status.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(client.authenticator().exec_runs(), 3u);
}

TEST_F(RestClientTest, WatchDeliversEvents) {
  RestClient client(api_.Config(), clock_);
  const std::string coll = ResourcePath("", "v1", "configmaps", "default");
  auto list = client.List(coll);
  ASSERT_TRUE(list.ok());
  const std::string rv = (*list)["metadata"]["resourceVersion"];

  std::vector<std::string> events;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(client.Create(coll, ConfigMap("w", "1")).ok());
    ASSERT_TRUE(client.Patch(coll + "/w", PatchType::kMerge, json{{"data", {{"k", "2"}}}}).ok());
    ASSERT_TRUE(client.Delete(coll + "/w").ok());
  });
  WatchOptions wo;
  wo.resource_version = rv;
  wo.timeout_seconds = 10;
  RestResult r = client.Watch(coll, wo, [&](WatchEvent&& e) {
    events.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
    return events.size() < 3;
  });
  writer.join();
  EXPECT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(events, (std::vector<std::string>{"ADDED w", "MODIFIED w", "DELETED w"}));
}

// drop_managed_fields: only metadata.managedFields is left out of the decoded object; a data key
// of the same name and the rest of the metadata stay. Without it the server's managedFields
// come through (so the first case is not vacuous).
TEST_F(RestClientTest, WatchCanDropManagedFieldsWhileDecoding) {
  RestClient client(api_.Config(), clock_);
  const std::string coll = ResourcePath("", "v1", "configmaps", "default");
  const std::string rv = (*client.List(coll))["metadata"]["resourceVersion"];
  json cm = ConfigMap("mf", "1");
  cm["metadata"]["labels"] = {{"app", "x"}};
  cm["data"]["managedFields"] = "kept";
  ASSERT_TRUE(client.Create(coll, cm).ok());
  for (const bool drop : {false, true}) {
    SCOPED_TRACE(drop ? "dropped" : "kept");
    WatchOptions wo;
    wo.resource_version = rv;
    wo.timeout_seconds = 10;
    wo.drop_managed_fields = drop;
    json seen;
    RestResult r = client.Watch(coll, wo, [&](WatchEvent&& e) {
      seen = std::move(e.object);
      return false;
    });
    EXPECT_TRUE(r.ok()) << r.status.ToString();
    EXPECT_EQ(seen["metadata"].contains("managedFields"), !drop);
    EXPECT_EQ(seen["metadata"]["name"], "mf");
    EXPECT_EQ(seen["metadata"]["labels"], json({{"app", "x"}}));
    EXPECT_EQ(seen["data"]["managedFields"], "kept");
  }
}

// HTTPS as `gcloud container clusters get-credentials` sets it up for tidepool up: a kubeconfig
// with certificate-authority-data and a token, through cloud/gke's TLS front.
TEST_F(RestClientTest, OverHttpsFromAKubeconfig) {
  auto tls = cloud::gke::TlsEndpoint::Start("127.0.0.1", 0, "127.0.0.1", api_.port(), clock_);
  ASSERT_TRUE(tls.ok()) << tls.status().ToString();
  const std::string b64 = Base64Encode((*tls)->ca_pem());
  const std::string kubeconfig =
      "apiVersion: v1\nkind: Config\ncurrent-context: gke_tidepool\n"
      "clusters:\n- name: gke_tidepool\n  cluster:\n    server: https://127.0.0.1:" +
      std::to_string((*tls)->port()) + "\n    certificate-authority-data: " + b64 +
      "\ncontexts:\n- name: gke_tidepool\n  context: {cluster: gke_tidepool, user: u}\n"
      "users:\n- name: u\n  user: {token: abc}\n";
  auto cfg = ParseKubeconfig(kubeconfig, "/");
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  RestClient client(*cfg, clock_);
  auto ns = client.Get("/api/v1/namespaces/kube-system");
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  EXPECT_EQ((*ns)["metadata"]["name"], "kube-system");
  // A watch streams through TLS too.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(client.Create(ResourcePath("", "v1", "configmaps", "default"), ConfigMap("tls", "1")).ok());
  });
  WatchOptions wo;
  wo.resource_version = (*client.List("/api/v1/configmaps"))["metadata"]["resourceVersion"];
  std::string got;
  RestResult r = client.Watch("/api/v1/configmaps", wo, [&](WatchEvent&& e) {
    got = e.type + " " + e.object["metadata"]["name"].get<std::string>();
    return false;
  });
  writer.join();
  EXPECT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(got, "ADDED tls");
  // Without the CA the server's certificate is refused.
  RestConfig no_ca = *cfg;
  no_ca.ca_pem.clear();
  RestResult refused = RestClient(no_ca, clock_).GetResult("/api/v1/namespaces");
  EXPECT_EQ(refused.http_status, 0);
  EXPECT_EQ(refused.status.code(), StatusCode::kUnavailable);
  (*tls)->Stop();
}

TEST_F(RestClientTest, WatchIsCancellable) {
  RestClient client(api_.Config(), clock_);
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel.store(true);
  });
  const TimePoint start = clock_.Now();
  WatchOptions wo;
  wo.resource_version = "1";
  RestResult r = client.Watch("/api/v1/nodes", wo, [](WatchEvent&&) { return true; }, &cancel);
  stopper.join();
  EXPECT_EQ(r.status.code(), StatusCode::kCancelled);
  EXPECT_LT(clock_.Now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace tidepool::client
