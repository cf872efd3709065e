#include "apiserver/authn/user.h"

#include <gtest/gtest.h>

namespace tidepool::apiserver::authn {
namespace {

TEST(RequestUserTest, RequesterAndImpersonation) {
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> headers;  // lower-case, in order
    std::string username;
    std::vector<std::string> groups;
    std::string uid;
    std::map<std::string, std::vector<std::string>> extra;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"anonymous", {}, "system:anonymous", {"system:unauthenticated"}},
      {"bearer token",
       {{"authorization", "Bearer t"}},
       "tidepool-admin",
       {"system:masters", "system:authenticated"}},
      {"--as",
       {{"authorization", "Bearer t"}, {"impersonate-user", "user1"}},
       "user1",
       {"system:authenticated"}},
      // test-cmd's run_impersonation_tests: groups verbatim, in order, then system:authenticated.
      {"--as-group x3",
       {{"impersonate-user", "user1"},
        {"impersonate-group", "group2"},
        {"impersonate-group", "group1"},
        {"impersonate-group", ",,,chameleon"}},
       "user1",
       {"group2", "group1", ",,,chameleon", "system:authenticated"}},
      {"system:unauthenticated given",
       {{"impersonate-user", "u"}, {"impersonate-group", "system:unauthenticated"}},
       "u",
       {"system:unauthenticated"}},
      {"anonymous impersonated",
       {{"impersonate-user", "system:anonymous"}},
       "system:anonymous",
       {"system:unauthenticated"}},
      {"service account",
       {{"impersonate-user", "system:serviceaccount:kube-system:default"}},
       "system:serviceaccount:kube-system:default",
       {"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}},
      {"not a service account name (namespace not a DNS-1123 label)",
       {{"impersonate-user", "system:serviceaccount:Foo_Bar:x"}},
       "system:serviceaccount:Foo_Bar:x",
       {"system:authenticated"}},
      {"uid and extra",
       {{"impersonate-user", "userb"},
        {"impersonate-uid", "abc123"},
        {"impersonate-extra-foo", "bar"},
        {"impersonate-extra-foo", "baz"},
        {"impersonate-extra-a%2fb", "c"}},
       "userb",
       {"system:authenticated"},
       "abc123",
       {{"a/b", {"c"}}, {"foo", {"bar", "baz"}}}},
      {"a group without a user",
       {{"impersonate-group", "foo"}},
       "",
       {},
       "",
       {},
       "requested [{Group  foo    }] without impersonating a user"},
      {"a uid without a user",
       {{"impersonate-uid", "x"}},
       "",
       {},
       "",
       {},
       "requested [{UID  x  authentication.k8s.io/v1  }] without impersonating a user"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    http::HttpRequest req;
    for (const auto& [k, v] : c.headers) req.AddHeader(k, v);
    auto got = RequestUser(req);
    if (!c.error.empty()) {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.status().message(), c.error);
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->username, c.username);
    EXPECT_EQ(got->groups, c.groups);
    EXPECT_EQ(got->uid, c.uid);
    EXPECT_EQ(got->extra, c.extra);
  }
}

}  // namespace
}  // namespace tidepool::apiserver::authn
