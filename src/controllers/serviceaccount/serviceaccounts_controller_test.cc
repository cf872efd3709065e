#include "controllers/serviceaccount/serviceaccounts_controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::serviceaccount {
namespace {

using client::ResourcePath;
using nlohmann::json;

class PerNamespaceControllersTest : public ::testing::Test {
 protected:
  PerNamespaceControllersTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)),
        accounts_(NewServiceAccountsController(client_, api_.clock(), {})),
        publisher_(NewRootCaCertPublisher(client_, api_.clock(), {3, kCa})) {}
  ~PerNamespaceControllersTest() override {
    accounts_->Stop();
    publisher_->Stop();
  }

  void Namespace(const std::string& name) {
    ASSERT_TRUE(
        client_
            .Create("/api/v1/namespaces",
                    {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}})
            .ok());
  }
  json Get(const std::string& resource, const std::string& ns, const std::string& name) {
    auto r = client_.Get(ResourcePath("", "v1", resource, ns, name));
    return r.ok() ? *r : json();
  }
  static bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 500; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }

  static constexpr char kCa[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  std::unique_ptr<PerNamespaceObjectController> accounts_;
  std::unique_ptr<PerNamespaceObjectController> publisher_;
};

// Every active namespace gets a bare "default" ServiceAccount and kube-root-ca.crt, before and
// after the controllers start; a deleted one comes back; an edited ConfigMap is put back with
// the user's other fields kept.
TEST_F(PerNamespaceControllersTest, EveryNamespaceHasTheDefaultAccountAndTheRootCa) {
  Namespace("before");
  accounts_->Start();
  publisher_->Start();
  Namespace("after");
  for (const char* ns : {"before", "after"}) {
    ASSERT_TRUE(Eventually([&] { return !Get("serviceaccounts", ns, "default").is_null(); })) << ns;
    ASSERT_TRUE(Eventually([&] { return !Get("configmaps", ns, kRootCaConfigMap).is_null(); }))
        << ns;
  }
  const json sa = Get("serviceaccounts", "after", "default");
  EXPECT_EQ(sa["metadata"]["namespace"], "after");
  EXPECT_FALSE(sa.contains("secrets"));
  EXPECT_FALSE(sa.contains("automountServiceAccountToken"));
  json cm = Get("configmaps", "after", kRootCaConfigMap);
  EXPECT_EQ(cm["data"], json({{"ca.crt", kCa}}));
  EXPECT_EQ(cm["metadata"]["annotations"][kDescriptionAnnotation], kRootCaDescription);

  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "serviceaccounts", "after", "default")).ok());
  EXPECT_TRUE(Eventually([&] {
    const json again = Get("serviceaccounts", "after", "default");
    return !again.is_null() && again["metadata"]["uid"] != sa["metadata"]["uid"];
  }));

  cm["data"] = {{"ca.crt", "tampered"}};
  cm["metadata"]["labels"] = {{"mine", "yes"}};
  cm["metadata"]["annotations"].erase(kDescriptionAnnotation);
  ASSERT_TRUE(
      client_.Update(ResourcePath("", "v1", "configmaps", "after", kRootCaConfigMap), cm).ok());
  EXPECT_TRUE(Eventually([&] {
    const json fixed = Get("configmaps", "after", kRootCaConfigMap);
    return fixed["data"] == json({{"ca.crt", kCa}}) &&
           fixed["metadata"]["annotations"].value(kDescriptionAnnotation, "") ==
               kRootCaDescription &&
           fixed["metadata"]["labels"] == json({{"mine", "yes"}});
  }));
}

}  // namespace
}  // namespace tidepool::controllers::serviceaccount
