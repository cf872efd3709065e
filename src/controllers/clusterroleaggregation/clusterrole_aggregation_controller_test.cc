#include "controllers/clusterroleaggregation/clusterrole_aggregation_controller.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::clusterroleaggregation {
namespace {

using client::ResourcePath;
using nlohmann::json;

class ClusterRoleAggregationControllerTest : public ::testing::Test {
 protected:
  ClusterRoleAggregationControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)),
        controller_(client_, api_.clock(), {}) {}
  ~ClusterRoleAggregationControllerTest() override { controller_.Stop(); }

  void Role(const std::string& name, const json& labels, const json& rules,
            const json& aggregation = json()) {
    json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                 {"kind", "ClusterRole"},
                 {"metadata", {{"name", name}, {"labels", labels}}}};
    if (!rules.is_null()) role["rules"] = rules;
    if (!aggregation.is_null()) role["aggregationRule"] = aggregation;
    ASSERT_TRUE(
        client_.Create(ResourcePath("rbac.authorization.k8s.io", "v1", "clusterroles", ""), role)
            .ok());
  }
  json Get(const std::string& name) {
    auto r = client_.Get(ResourcePath("rbac.authorization.k8s.io", "v1", "clusterroles", "", name));
    return r.ok() ? *r : json();
  }
  bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 500; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  static json Rule(const std::string& resource, const std::string& verb) {
    return {{"apiGroups", {""}}, {"resources", {resource}}, {"verbs", {verb}}};
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  ClusterRoleAggregationController controller_;
};

// kcm's syncClusterRole: selector by selector, selected roles by name, each rule once; the
// result applied with the controller's field manager; a new selected role grows it.
TEST_F(ClusterRoleAggregationControllerTest, GathersTheSelectedRolesRulesInOrder) {
  const json selector = {
      {"clusterRoleSelectors", json::array({{{"matchLabels", {{"aggregate-to-mine", "true"}}}},
                                            {{"matchLabels", {{"extra", "yes"}}}}})}};
  Role("mine", json::object(), json(), selector);
  Role("b-pods", {{"aggregate-to-mine", "true"}},
       json::array({Rule("pods", "get"), Rule("pods", "list")}));
  Role("a-cms", {{"aggregate-to-mine", "true"}},
       json::array({Rule("configmaps", "get"), Rule("pods", "get")}));
  Role("z-extra", {{"extra", "yes"}}, json::array({Rule("secrets", "get")}));
  Role("unrelated", {{"aggregate-to-other", "true"}}, json::array({Rule("nodes", "get")}));
  controller_.Start();
  const json want = json::array({Rule("configmaps", "get"), Rule("pods", "get"),
                                 Rule("pods", "list"), Rule("secrets", "get")});
  ASSERT_TRUE(Eventually([&] { return Get("mine")["rules"] == want; })) << Get("mine").dump();
  const json managed = Get("mine")["metadata"]["managedFields"];
  bool applied = false;
  for (const json& m : managed) {
    applied |= m["manager"] == "clusterrole-aggregation-controller" && m["operation"] == "Apply";
  }
  EXPECT_TRUE(applied) << managed.dump();
  Role("c-more", {{"aggregate-to-mine", "true"}}, json::array({Rule("services", "list")}));
  ASSERT_TRUE(Eventually([&] { return Get("mine")["rules"].size() == 5; })) << Get("mine").dump();
  EXPECT_EQ(Get("mine")["rules"][3], Rule("services", "list"));
  EXPECT_FALSE(Get("unrelated").contains("aggregationRule"));
}

}  // namespace
}  // namespace tidepool::controllers::clusterroleaggregation
