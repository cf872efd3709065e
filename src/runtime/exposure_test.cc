#include "runtime/exposure.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "apiserver/http/server.h"

namespace tidepool::runtime {
namespace {

using nlohmann::json;

apiserver::http::HttpRequest Request(const std::string& path, const std::string& authorization) {
  apiserver::http::HttpRequest r;
  r.method = "GET";
  r.path = path;
  if (!authorization.empty()) r.headers["authorization"] = authorization;
  return r;
}

TEST(ExposureTest, LoopbackAddresses) {
  for (const char* a : {"127.0.0.1", "127.1.2.3", "::1", "localhost"}) {
    EXPECT_TRUE(IsLoopbackAddress(a)) << a;
  }
  for (const char* a : {"0.0.0.0", "192.0.2.2", "10.0.0.1", "::", "example.com", ""}) {
    EXPECT_FALSE(IsLoopbackAddress(a)) << a;
  }
}

TEST(ExposureTest, TokensAreLongRandomAndUrlSafe) {
  std::set<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    StatusOr<std::string> t = NewBearerToken();
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->size(), 43u);
    EXPECT_EQ(t->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
              std::string::npos);
    seen.insert(*t);
  }
  EXPECT_EQ(seen.size(), 20u);
}

TEST(ExposureTest, BearerMatchesOnlyTheToken) {
  EXPECT_TRUE(BearerMatches("Bearer abc", "abc"));
  EXPECT_TRUE(BearerMatches("bearer abc", "abc"));  // the scheme is case-insensitive
  EXPECT_TRUE(BearerMatches("BEARER  abc ", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer abd", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer abcd", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer ", "abc"));
  EXPECT_FALSE(BearerMatches("Basic abc", "abc"));
  EXPECT_FALSE(BearerMatches("abc", "abc"));
  EXPECT_FALSE(BearerMatches("", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer ", ""));  // no token configured: nothing matches
}

TEST(ExposureTest, TheGkeApiAlwaysNeedsTheToken) {
  const ApiAccess access("tok", /*kubernetes_needs_token=*/false);
  const std::string pools = "/v1/projects/p/locations/us-central1-a/clusters/c/nodePools";
  EXPECT_FALSE(access.Check(Request(pools, "Bearer tok")).has_value());

  std::optional<Denial> missing = access.Check(Request(pools, ""));
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->status, 401);
  json m = json::parse(missing->body);
  EXPECT_EQ(m["error"]["code"], 401);
  EXPECT_EQ(m["error"]["status"], "UNAUTHENTICATED");
  EXPECT_EQ(m["error"]["message"],
            "Request is missing required authentication credential. Expected OAuth 2 access "
            "token, login cookie or other valid authentication credential. See "
            "https://developers.google.com/identity/sign-in/web/devconsole-project.");
  EXPECT_EQ(m["error"]["details"][0]["reason"], "CREDENTIALS_MISSING");

  std::optional<Denial> wrong = access.Check(Request(pools, "Bearer nope"));
  ASSERT_TRUE(wrong.has_value());
  json w = json::parse(wrong->body);
  EXPECT_EQ(w["error"]["message"],
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
            "cookie or other valid authentication credential. See "
            "https://developers.google.com/identity/sign-in/web/devconsole-project.");
  EXPECT_FALSE(w["error"].contains("errors"));

  std::optional<Denial> compute =
      access.Check(Request("/compute/v1/projects/p/zones/us-central1-a/instances", "Bearer x"));
  ASSERT_TRUE(compute.has_value());
  json c = json::parse(compute->body);
  EXPECT_EQ(c["error"]["errors"][0]["reason"], "authError");
  EXPECT_EQ(c["error"]["details"][0]["metadata"]["service"], "compute.googleapis.com");
}

TEST(ExposureTest, TheKubernetesApiNeedsTheTokenOnlyWhenExposed) {
  const ApiAccess loopback("tok", false);
  EXPECT_FALSE(loopback.Check(Request("/api/v1/pods", "")).has_value());
  EXPECT_FALSE(loopback.Check(Request("/api/v1/pods", "Bearer whatever")).has_value());

  const ApiAccess exposed("tok", true);
  EXPECT_FALSE(exposed.Check(Request("/api/v1/pods", "Bearer tok")).has_value());
  for (const char* auth : {"", "Bearer nope", "Basic dG9rOg=="}) {
    SCOPED_TRACE(auth);
    std::optional<Denial> d = exposed.Check(Request("/version", auth));
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->status, 401);
    EXPECT_EQ(d->body,
              R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
              R"("message":"Unauthorized","reason":"Unauthorized","code":401})");
  }
}

TEST(ExposureTest, EksTokensAreCheckedEvenOnLoopback) {
  const ApiAccess access("tok", false, [](std::string_view t) { return t == "k8s-aws-v1.good"; });
  EXPECT_FALSE(access.Check(Request("/api/v1/pods", "Bearer k8s-aws-v1.good")).has_value());
  EXPECT_FALSE(access.Check(Request("/api/v1/pods", "")).has_value());  // anonymous
  std::optional<Denial> bad = access.Check(Request("/api/v1/pods", "Bearer k8s-aws-v1.bad"));
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->status, 401);
  // Without a checker (--cloud gke) such a token is just ignored on loopback.
  EXPECT_FALSE(
      ApiAccess("tok", false).Check(Request("/api/v1/pods", "Bearer k8s-aws-v1.bad")).has_value());
}

}  // namespace
}  // namespace tidepool::runtime
