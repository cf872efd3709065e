#include "runtime/client_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "client/config.h"
#include "common/base64.h"
#include "testing/temp_dir.h"

namespace tidepool::runtime {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST(ClientFilesTest, AKubeconfigWithTokenAndCaIsPrivateAndLoads) {
  const std::string path = tidepool::testing::TestTempDir() + "/kc/config";
  const std::string ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  ASSERT_TRUE(WriteKubeconfig(path, "https://192.0.2.2:6443", ca, "s3cret").ok());
  EXPECT_EQ(ModeOf(path), 0600u);
  StatusOr<client::RestConfig> c = client::LoadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://192.0.2.2:6443");
  EXPECT_EQ(c->bearer_token, "s3cret");
  EXPECT_EQ(c->ca_pem, ca);
  EXPECT_EQ(c->namespace_name, "default");
}

TEST(ClientFilesTest, ALoopbackKubeconfigHasNoCredentialButIsPrivateToo) {
  const std::string path = tidepool::testing::TestTempDir() + "/kc2";
  ASSERT_TRUE(WriteKubeconfig(path, "http://127.0.0.1:8080", "", "").ok());
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_EQ(Read(path).find("token"), std::string::npos);
  EXPECT_NE(Read(path).find("  user: {}\n"), std::string::npos);
}

TEST(ClientFilesTest, TheGcloudConfigHoldsTheTokenPrivately) {
  const std::string dir = tidepool::testing::TestTempDir() + "/gcloud";
  ASSERT_TRUE(WriteGcloudConfig({dir, "https://192.0.2.2:6443", "proj", "us-central1-a", "tok",
                                 "PEM\n"})
                  .ok());
  EXPECT_EQ(Read(dir + "/access-token"), "tok\n");
  EXPECT_EQ(ModeOf(dir + "/access-token"), 0600u);
  EXPECT_EQ(ModeOf(dir + "/configurations/config_default"), 0600u);
  const std::string cfg = Read(dir + "/configurations/config_default");
  EXPECT_NE(cfg.find("container = https://192.0.2.2:6443/\n"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("compute = https://192.0.2.2:6443/compute/v1/\n"), std::string::npos);
  EXPECT_NE(cfg.find("custom_ca_certs_file = " + dir + "/ca.crt\n"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("access_token_file = " + dir + "/access-token\n"), std::string::npos);
  EXPECT_EQ(Read(dir + "/ca.crt"), "PEM\n");
  EXPECT_EQ(Read(dir + "/active_config"), "default");
}

}  // namespace
}  // namespace tidepool::runtime
