// The "gke" registration (gke_provider_factory.h): its flags, validation with the texts
// `tidepool autoscale` prints, the credential check before anything else, and a provider built
// through the registry that drives a GKE API over HTTP (the GkeApi of `tidepool up` over an
// emulated cloud, gke_api_test_server.h).
#include "cloud/gke/live/gke_provider_factory.h"

#include <gtest/gtest.h>

#include "cloud/gke/live/gke_api_test_server.h"
#include "cloud/providers.h"

namespace tidepool::cloud::gke::live {
namespace {

CloudProviderOptions ClusterFlags() {
  CloudProviderOptions o;
  o.flags = {{"project", "tidepool-local"},
             {"location", "us-central1-a"},
             {"cluster-name", "tidepool"}};
  return o;
}

TEST(GkeProviderFactoryTest, RegisteredAsGkeWithItsFlags) {
  CloudProviderRegistry registry = NewCloudProviderRegistry();
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"aws", "gke"}));
  const CloudProviderRegistration* gke = registry.Find("gke");
  ASSERT_NE(gke, nullptr);
  std::vector<std::string> names;
  for (const ProviderFlag& f : gke->flags) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"project", "location", "cluster-name",
                                             "gke-api-endpoint", "compute-api-endpoint",
                                             "gcp-token-file", "gcp-credentials-file",
                                             "gcp-no-auth"}));
  EXPECT_EQ(gke->flags.back().kind, ProviderFlag::Kind::kSwitch);
  EXPECT_EQ(registry.Find("gce"), nullptr);
  EXPECT_EQ(UnknownCloudProviderMessage("gce"), "Unknown cloud provider: gce");
}

TEST(GkeProviderFactoryTest, ValidationErrorsAreTheCommandsTexts) {
  const CloudProviderRegistration r = GkeProviderRegistration();
  EXPECT_TRUE(r.validate(ClusterFlags()).ok());

  CloudProviderOptions discovery = ClusterFlags();
  discovery.node_group_auto_discovery = {"mig:namePrefix=gke-,min=0,max=5"};
  EXPECT_EQ(r.validate(discovery).message(),
            "--node-group-auto-discovery: the gke provider discovers the node pools with GKE "
            "autoscaling on; name others with --nodes=MIN:MAX:POOL");

  CloudProviderOptions missing = ClusterFlags();
  missing.flags.erase("location");
  EXPECT_EQ(r.validate(missing).message(),
            "--cloud-provider=gke needs --project, --location and --cluster-name");

  CloudProviderOptions bad_nodes = ClusterFlags();
  bad_nodes.node_groups = {"0:2:good", "0:x:manual-pool"};
  Status s = r.validate(bad_nodes);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "--nodes: failed to parse node group spec: failed to set max size: x, expected "
            "integer");

  CloudProviderOptions config = ClusterFlags();
  config.cloud_config = "/etc/gce.conf";
  EXPECT_EQ(r.validate(config).code(), StatusCode::kInvalidArgument);
}

TEST(GkeProviderFactoryTest, EndpointsAreCheckedBeforeCredentialsAreRead) {
  const CloudProviderRegistration r = GkeProviderRegistration();
  RealClock clock;
  log::Logger logger("test", clock);
  std::vector<std::string> checked;
  CloudProviderEnvironment env;
  env.clock = &clock;
  env.logger = &logger;
  env.check_credential_transport = [&](std::string_view flag, std::string_view url,
                                       bool sends) -> Status {
    checked.push_back(std::string(flag) + " " + std::string(url) + (sends ? " token" : ""));
    if (url.find("10.0.0.1") != std::string_view::npos) return InvalidArgumentError("refused");
    return OkStatus();
  };
  CloudProviderOptions o = ClusterFlags();
  o.flags["gke-api-endpoint"] = "http://10.0.0.1/";
  // A key file is read at build (a token file only at the first call); never read here: the
  // check refuses first.
  o.flags["gcp-credentials-file"] = "/nonexistent/key.json";
  auto built = r.build(o, env);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().message(), "refused");
  EXPECT_EQ(checked, std::vector<std::string>{"--gke-api-endpoint http://10.0.0.1/ token"});

  // Allowed endpoints; then the key file that does not exist is the error.
  checked.clear();
  o.flags["gke-api-endpoint"] = "http://127.0.0.1:1/";
  built = r.build(o, env);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(checked, (std::vector<std::string>{"--gke-api-endpoint http://127.0.0.1:1/ token",
                                               "--compute-api-endpoint  token"}));
  EXPECT_NE(built.status().message().find("/nonexistent/key.json"), std::string::npos)
      << built.status().ToString();
}

TEST(GkeProviderFactoryTest, BuiltThroughTheRegistryItDrivesTheGkeApi) {
  GkeApiTestServer server;
  emulated::NodePoolSpec pool;
  pool.name = "gpu-pool";
  pool.machine_type = "n1-standard-4";
  pool.accelerator = emulated::Accelerator{"nvidia-tesla-t4", 1};
  pool.autoscaling = true;
  pool.max_nodes = 5;
  ASSERT_TRUE(server.cloud().CreateNodePool(pool).ok());
  server.queue().RunUntil(server.queue().Now() + std::chrono::minutes(5));
  ASSERT_NO_FATAL_FAILURE(server.Start());
  const std::string base = server.base();

  CloudProviderRegistry registry = NewCloudProviderRegistry();
  CloudProviderOptions o = ClusterFlags();
  o.flags["gke-api-endpoint"] = base;
  o.flags["compute-api-endpoint"] = base + "compute/v1/";
  o.flags["gcp-no-auth"] = "true";
  o.node_groups = {"0:3:gpu-pool"};
  const CloudProviderRegistration* gke = registry.Find("gke");
  ASSERT_NE(gke, nullptr);
  ASSERT_TRUE(gke->validate(o).ok());
  SimulatedClock clock;
  log::Logger logger("test", clock);
  CloudProviderEnvironment env;
  env.clock = &clock;
  env.logger = &logger;
  auto built = gke->build(o, env);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  CloudProvider& provider = (*built)->provider();
  EXPECT_EQ(provider.Name(), "gke");
  // The server's thread reads the cloud under its mutex; this thread no longer touches it.
  Status refreshed = provider.Refresh();
  ASSERT_TRUE(refreshed.ok()) << refreshed.ToString();
  ASSERT_EQ(provider.NodeGroups().size(), 1u);
  EXPECT_EQ(provider.NodeGroups()[0]->Debug(), "gpu-pool (0:3)");  // --nodes' limits
  (*built)->Stop();
}

}  // namespace
}  // namespace tidepool::cloud::gke::live
