#include "apiserver/health.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apiserver/api_server_test_util.h"

namespace tidepool::apiserver {
namespace {

using HealthTest = ApiServerTest;

TEST_F(HealthTest, EndpointsAndChecksAsKubeApiserverServesThem) {
  struct Case {
    std::string target;
    int code;
    std::string body;  // exact, or with `contains` a part of it
    bool contains = false;
  };
  const std::vector<Case> cases = {
      {"/healthz", 200, "ok"},
      {"/livez", 200, "ok"},
      {"/readyz", 200, "ok"},
      {"/readyz?exclude=etcd", 200, "ok"},
      {"/readyz?verbose", 200,
       "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n"
       "[+]poststarthook/start-apiserver-admission-initializer ok\n",
       true},
      {"/readyz?verbose", 200, "[+]shutdown ok\nreadyz check passed\n", true},
      {"/livez?verbose", 200,
       "[+]poststarthook/apiservice-openapiv3-controller ok\nlivez check passed\n", true},
      {"/healthz?verbose", 200, "[+]autoregister-completion ok\n", true},
      {"/livez?verbose&exclude=etcd", 200, "[+]log ok\n[+]etcd excluded: ok\n", true},
      {"/livez?verbose&exclude=kms-provider-1&exclude=etcd&exclude=kms-provider-0", 200,
       "ok\nwarn: some health checks cannot be excluded: no matches for "
       "\"kms-provider-0\",\"kms-provider-1\"\nlivez check passed\n",
       true},
      {"/readyz/etcd", 200, "ok"},
      {"/readyz/informer-sync?verbose", 200, "ok"},
      {"/livez/poststarthook/rbac/bootstrap-roles", 200, "ok"},
      {"/healthz/ping", 200, "ok"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.target);
    FakeWriter w = Do("GET", c.target);
    EXPECT_EQ(w.code, c.code);
    EXPECT_EQ(w.type, "text/plain; charset=utf-8");
    if (c.contains) {
      EXPECT_NE(w.body.find(c.body), std::string::npos) << w.body;
    } else {
      EXPECT_EQ(w.body, c.body);
    }
  }
  // Checks only readyz has, and paths that are no check, are not served.
  for (const char* target : {"/livez/shutdown", "/healthz/informer-sync", "/readyz/nope",
                             "/readyz/", "/livez/poststarthook"}) {
    SCOPED_TRACE(target);
    EXPECT_EQ(Do("GET", target).code, 404);
  }
  // Not verbose: no warning in the body.
  EXPECT_EQ(Do("GET", "/readyz?exclude=nope").body, "ok");
  const std::string livez = Do("GET", "/livez?verbose").body;
  EXPECT_EQ(livez.find("etcd-readiness"), std::string::npos);
  EXPECT_EQ(livez.find("shutdown"), std::string::npos);
}

}  // namespace
}  // namespace tidepool::apiserver
