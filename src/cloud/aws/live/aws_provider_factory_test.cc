// File: aws_provider_factory_test.cc
//
// The "aws" entry of the cloud registry: its validation texts (CA's), and a build from the
// environment an AWS SDK reads (region, endpoint and keys from the shared files), with the
// endpoints passed to the program's credential check.
#include "cloud/aws/live/aws_provider_factory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cloud/providers.h"

namespace tidepool::cloud::aws::live {
namespace {

TEST(AwsProviderFactoryTest, ValidationTexts) {
  const CloudProviderRegistration* r = nullptr;
  CloudProviderRegistry registry = NewCloudProviderRegistry();
  r = registry.Find("aws");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->flags.empty());
  CloudProviderOptions o;
  o.node_group_auto_discovery = {"asg:tag=k8s.io/cluster-autoscaler/enabled"};
  o.node_groups = {"0:5:eks-gpu-abc"};
  EXPECT_TRUE(r->validate(o).ok());
  o.node_groups = {"5:0:eks-gpu-abc"};
  EXPECT_EQ(r->validate(o).message().rfind("--nodes: failed to parse node group spec: ", 0), 0u)
      << r->validate(o).message();
  o.node_groups = {};
  o.node_group_auto_discovery = {"mig:namePrefix=x"};
  EXPECT_EQ(r->validate(o).message(),
            "--node-group-auto-discovery: unsupported discoverer specified: mig");
}

TEST(AwsProviderFactoryTest, BuildsFromTheSharedFilesAndChecksEachEndpoint) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("aws-factory-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config") << "[default]\nregion = us-west-2\nendpoint_url = "
                                   "http://127.0.0.1:9\n";
  std::ofstream(dir / "credentials") << "[default]\naws_access_key_id = AKID\n"
                                        "aws_secret_access_key = s\n";
  std::ofstream(dir / "cloud.conf")
      << "[Global]\nZone = us-west-2a\n[ServiceOverride \"1\"]\nService = eks\nRegion = "
         "us-west-2\nURL = https://eks.example.test\nSigningRegion = us-west-2\n";
  for (const char* v : {"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID",
                        "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL", "AWS_MAX_ATTEMPTS"}) {
    unsetenv(v);
  }
  setenv("AWS_CONFIG_FILE", (dir / "config").c_str(), 1);
  setenv("AWS_SHARED_CREDENTIALS_FILE", (dir / "credentials").c_str(), 1);

  SimulatedClock clock;
  std::vector<std::string> checked;
  CloudProviderEnvironment env;
  env.clock = &clock;
  env.check_credential_transport = [&](std::string_view flag, std::string_view url, bool sends) {
    checked.push_back(std::string(flag) + "=" + std::string(url) + (sends ? "" : " (none)"));
    return OkStatus();
  };
  CloudProviderOptions o;
  o.cloud_config = (dir / "cloud.conf").string();
  auto built = AwsProviderRegistration().build(o, env);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ((*built)->provider().Name(), "aws");
  EXPECT_EQ(checked, (std::vector<std::string>{"AWS autoscaling endpoint=http://127.0.0.1:9",
                                               "AWS ec2 endpoint=http://127.0.0.1:9",
                                               "AWS eks endpoint=https://eks.example.test",
                                               "AWS sts endpoint=http://127.0.0.1:9"}));

  std::ofstream(dir / "bad.conf") << "[ServiceOverride \"1\"]\nService = eks\nRegion = us-west-2\n";
  o.cloud_config = (dir / "bad.conf").string();
  EXPECT_EQ(AwsProviderRegistration().build(o, env).status().message(),
            "url is missing [URL is \"\"] in override ServiceOverride \"1\"");
  unsetenv("AWS_CONFIG_FILE");
  unsetenv("AWS_SHARED_CREDENTIALS_FILE");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tidepool::cloud::aws::live
