#include "controllers/namespace/namespace_controller.h"

#include <gtest/gtest.h>

#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::ns {
namespace {

using nlohmann::json;
using testing::DrivenCluster;

json ConfigMap(const std::string& name, const std::string& ns) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", ns}}}};
}

class NamespaceControllerTest : public ::testing::Test {
 protected:
  NamespaceControllerTest() {
    NamespaceControllerOptions o;
    o.retry_after = std::chrono::seconds(2);
    controller_ = std::make_unique<NamespaceController>(c_.client, c_.events.clock(), o, nullptr,
                                                        &c_.informers, &c_.events);
    controller_->Start();
    c_.Create("/api/v1/namespaces",
              {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}});
  }
  ~NamespaceControllerTest() override { controller_->Stop(); }

  StatusOr<json> Namespace() { return c_.client.Get("/api/v1/namespaces/team"); }
  std::map<std::string, json> Conditions() {
    std::map<std::string, json> out;
    auto ns = Namespace();
    if (!ns.ok()) return out;
    for (const json& c : (*ns)["status"].value("conditions", json::array())) out[c["type"]] = c;
    return out;
  }

  DrivenCluster c_;
  std::unique_ptr<NamespaceController> controller_;
};

TEST_F(NamespaceControllerTest, DeletesTheContentsThenTheNamespace) {
  c_.Create("/api/v1/namespaces/team/configmaps", ConfigMap("a", "team"));
  json held = ConfigMap("held", "team");
  held["metadata"]["finalizers"] = json::array({"example.com/hold"});
  c_.Create("/api/v1/namespaces/team/configmaps", held);
  c_.Create("/api/v1/namespaces/default/configmaps", ConfigMap("elsewhere", "default"));
  c_.RunFor(std::chrono::seconds(1));

  auto deleted = c_.client.DeleteResult("/api/v1/namespaces/team");
  ASSERT_TRUE(deleted.ok()) << deleted.status.ToString();
  EXPECT_EQ((*Namespace())["status"]["phase"], "Terminating");
  // A create in a namespace being deleted is refused (NamespaceLifecycle).
  auto refused =
      c_.client.CreateResult("/api/v1/namespaces/team/configmaps", ConfigMap("b", "team"));
  EXPECT_EQ(refused.http_status, 403);
  EXPECT_EQ(refused.reason, "Forbidden");

  c_.RunFor(std::chrono::seconds(5));
  // The finalizer of "held" keeps it, and so the namespace, with kcm's conditions.
  ASSERT_TRUE(Namespace().ok());
  auto conditions = Conditions();
  EXPECT_EQ(conditions["NamespaceContentRemaining"]["message"],
            "Some resources are remaining: configmaps. has 1 resource instances");
  EXPECT_EQ(conditions["NamespaceFinalizersRemaining"]["message"],
            "Some content in the namespace has finalizers remaining: example.com/hold in 1 "
            "resource instances");
  EXPECT_EQ(conditions["NamespaceDeletionDiscoveryFailure"]["status"], "False");
  EXPECT_EQ(c_.List("/api/v1/namespaces/team/configmaps").size(), 1u);

  ASSERT_TRUE(c_.client
                  .Patch("/api/v1/namespaces/team/configmaps/held", client::PatchType::kMerge,
                         {{"metadata", {{"finalizers", nullptr}}}})
                  .ok());
  c_.RunFor(std::chrono::seconds(5));
  EXPECT_EQ(Namespace().status().code(), StatusCode::kNotFound);
  EXPECT_EQ(c_.List("/api/v1/namespaces/default/configmaps").size(), 1u);
}

TEST_F(NamespaceControllerTest, FinalizeRefusesNamesThatAreNotQualified) {
  json ns = *Namespace();
  ns["spec"]["finalizers"] = json::array({"kubernetes", "nope"});
  auto r = c_.client.UpdateResult("/api/v1/namespaces/team/finalize", ns);
  EXPECT_EQ(r.http_status, 422);
}

TEST_F(NamespaceControllerTest, ANamespaceWithoutFinalizersGoesAtOnce) {
  json ns = *Namespace();
  ns["spec"]["finalizers"] = json::array();
  ASSERT_TRUE(c_.client.Update("/api/v1/namespaces/team/finalize", ns).ok());
  ASSERT_TRUE(c_.client.DeleteResult("/api/v1/namespaces/team").ok());
  EXPECT_EQ(Namespace().status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tidepool::controllers::ns
