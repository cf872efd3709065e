#include "client/config.h"
#include "common/base64.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "client/auth.h"
#include "client/internal.h"
#include "testing/temp_dir.h"

namespace tidepool::client {
namespace {

void WriteFile(const std::string& path, const std::string& text, bool executable = false) {
  std::ofstream(path) << text;
  if (executable) ::chmod(path.c_str(), 0755);
}

std::string B64(const std::string& s) { return Base64Encode(s); }

TEST(Base64Test, RoundTrips) {
  for (const std::string s : {"", "a", "ab", "abc", "abcd", "-----BEGIN CERTIFICATE-----\n"}) {
    auto d = Base64Decode(B64(s));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(Base64Decode("ab$c").status().message(), "illegal base64 data at input byte 2");
}

// A kubeconfig with one cluster, one context and the user given.
std::string Kubeconfig(const std::string& cluster_extra, const std::string& user) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\n"
         "clusters:\n- name: c1\n  cluster:\n    server: https://10.0.0.1:443/\n" + cluster_extra +
         "contexts:\n- name: main\n  context:\n    cluster: c1\n    user: u1\n    namespace: team-a\n"
         "- name: other\n  context:\n    cluster: c1\n    user: u1\n"
         "users:\n- name: u1\n  user:\n" + user;
}

TEST(KubeconfigTest, AuthForms) {
  const std::string dir = testing::TestTempDir();
  WriteFile(dir + "/ca.crt", "CA-PEM");
  WriteFile(dir + "/client.crt", "CERT-PEM");
  WriteFile(dir + "/client.key", "KEY-PEM");
  WriteFile(dir + "/token", "file-token\n");
  struct Case {
    std::string name;
    std::string cluster_extra;
    std::string user;
    std::function<void(const RestConfig&)> check;
  };
  const std::vector<Case> cases = {
      {"bearer token and CA data", "    certificate-authority-data: " + B64("CA-DATA") + "\n", "    token: abc\n",
       [](const RestConfig& c) {
         EXPECT_EQ(c.host, "https://10.0.0.1:443");
         EXPECT_EQ(c.ca_pem, "CA-DATA");
         EXPECT_EQ(c.bearer_token, "abc");
         EXPECT_EQ(c.namespace_name, "team-a");
         EXPECT_EQ(c.context_name, "main");
       }},
      {"token file and CA file, relative to the kubeconfig", "    certificate-authority: ca.crt\n",
       "    tokenFile: token\n",
       [&](const RestConfig& c) {
         EXPECT_EQ(c.ca_pem, "CA-PEM");
         EXPECT_EQ(c.bearer_token_file, dir + "/token");
       }},
      {"client certificate files", "    insecure-skip-tls-verify: true\n",
       "    client-certificate: " + dir + "/client.crt\n    client-key: client.key\n",
       [](const RestConfig& c) {
         EXPECT_TRUE(c.insecure_skip_tls_verify);
         EXPECT_EQ(c.client_cert_pem, "CERT-PEM");
         EXPECT_EQ(c.client_key_pem, "KEY-PEM");
       }},
      {"client certificate data", "",
       "    client-certificate-data: " + B64("C") + "\n    client-key-data: " + B64("K") + "\n",
       [](const RestConfig& c) {
         EXPECT_EQ(c.client_cert_pem, "C");
         EXPECT_EQ(c.client_key_pem, "K");
       }},
      {"basic auth", "", "    username: admin\n    password: secret\n",
       [](const RestConfig& c) {
         EXPECT_EQ(c.username, "admin");
         EXPECT_EQ(c.password, "secret");
       }},
      {"exec plugin (gke-gcloud-auth-plugin's stanza)", "",
       "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: gke-gcloud-auth-plugin\n"
       "      args: [--verbose]\n      env:\n      - name: A\n        value: b\n"
       "      installHint: Install gke-gcloud-auth-plugin\n      provideClusterInfo: true\n",
       [](const RestConfig& c) {
         ASSERT_TRUE(c.exec.has_value());
         EXPECT_EQ(c.exec->command, "gke-gcloud-auth-plugin");
         EXPECT_EQ(c.exec->args, std::vector<std::string>{"--verbose"});
         ASSERT_EQ(c.exec->env.size(), 1u);
         EXPECT_EQ(c.exec->env[0].first, "A");
         EXPECT_EQ(c.exec->interactive_mode, "IfAvailable");
         EXPECT_TRUE(c.exec->provide_cluster_info);
         EXPECT_EQ(c.exec->install_hint, "Install gke-gcloud-auth-plugin");
       }},
      {"exec plugin with a relative path", "",
       "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./bin/plugin\n"
       "      interactiveMode: Never\n",
       [&](const RestConfig& c) {
         ASSERT_TRUE(c.exec.has_value());
         EXPECT_EQ(c.exec->command, dir + "/bin/plugin");
         EXPECT_EQ(c.exec->interactive_mode, "Never");
       }},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    WriteFile(dir + "/config", Kubeconfig(tc.cluster_extra, tc.user));
    auto c = LoadKubeconfig(dir + "/config");
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    tc.check(*c);
  }
}

TEST(KubeconfigTest, ContextSelection) {
  auto c = ParseKubeconfig(Kubeconfig("", "    token: t\n"), "/", "other");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->context_name, "other");
  EXPECT_EQ(c->namespace_name, "default");
}

TEST(KubeconfigTest, BadFilesGiveClearErrors) {
  const std::string dir = testing::TestTempDir();
  struct Case {
    std::string name;
    std::string text;
    std::string context;
    std::string error;
  };
  const std::string ok_user = "    token: t\n";
  const std::vector<Case> cases = {
      {"empty file", "", "",
       "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable"},
      {"unknown context", Kubeconfig("", ok_user), "nope",
       "invalid configuration: context was not found for specified context: nope"},
      {"no current context",
       "clusters:\n- name: c1\n  cluster:\n    server: https://x\ncontexts: []\nusers: []\n", "",
       "invalid configuration: no context chosen"},
      {"cluster without a server",
       "current-context: a\nclusters:\n- name: c1\n  cluster: {}\ncontexts:\n- name: a\n  context: {cluster: c1}\n", "",
       "invalid configuration: no server found for cluster \"c1\""},
      {"unknown user",
       "current-context: a\nclusters:\n- name: c1\n  cluster: {server: 'https://x'}\n"
       "contexts:\n- name: a\n  context: {cluster: c1, user: ghost}\n", "",
       "invalid configuration: auth info \"ghost\" does not exist"},
      {"missing CA file", Kubeconfig("    certificate-authority: /nonexistent/ca.crt\n", ok_user), "",
       "invalid configuration: unable to read certificate-authority /nonexistent/ca.crt for c1 due to open "
       "/nonexistent/ca.crt: no such file or directory"},
      {"bad base64", Kubeconfig("    certificate-authority-data: '%%%'\n", ok_user), "",
       "invalid configuration: certificate-authority-data for c1: illegal base64 data at input byte 0"},
      {"certificate without key", Kubeconfig("", "    client-certificate-data: " + B64("C") + "\n"), "",
       "invalid configuration: client-key-data or client-key must be specified for u1 to use the clientCert "
       "authentication method."},
      {"exec v1 without interactiveMode",
       Kubeconfig("", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: p\n"), "",
       "invalid configuration: interactiveMode must be specified for u1 to use exec authentication plugin"},
      {"exec without command", Kubeconfig("", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"), "",
       "invalid configuration: command must be specified for u1 to use exec authentication plugin"},
      {"exec v1alpha1",
       Kubeconfig("", "    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: p\n"), "",
       "invalid configuration: exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\""},
      {"not YAML", "a: [", "", "error loading config: yaml: "},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto c = ParseKubeconfig(tc.text, dir, tc.context);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(c.status().message()).substr(0, tc.error.size()), tc.error);
  }
  auto missing = LoadKubeconfig(dir + "/nope");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "open " + dir + "/nope: no such file or directory");
}

TEST(InClusterTest, ReadsTheServiceAccountDirectory) {
  const std::string dir = testing::TestTempDir();
  WriteFile(dir + "/token", "sa-token\n");
  WriteFile(dir + "/ca.crt", "CA");
  WriteFile(dir + "/namespace", "kube-system\n");
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}};
  InClusterOptions o;
  o.service_account_dir = dir;
  o.getenv = [&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  auto c = InClusterConfig(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://10.96.0.1:443");
  EXPECT_EQ(c->ca_pem, "CA");
  EXPECT_EQ(c->namespace_name, "kube-system");
  EXPECT_EQ(c->bearer_token_file, dir + "/token");

  env["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  EXPECT_EQ(InClusterConfig(o)->host, "https://[fd00::1]:443");

  // The token is re-read after a minute (it rotates).
  SimulatedClock clock;
  Authenticator auth(*c, clock);
  EXPECT_EQ(auth.Get()->authorization, "Bearer sa-token");
  WriteFile(dir + "/token", "rotated\n");
  clock.Advance(std::chrono::seconds(30));
  EXPECT_EQ(auth.Get()->authorization, "Bearer sa-token");
  clock.Advance(std::chrono::seconds(30));
  EXPECT_EQ(auth.Get()->authorization, "Bearer rotated");

  env.erase("KUBERNETES_SERVICE_PORT");
  auto outside = InClusterConfig(o);
  EXPECT_EQ(outside.status().message(),
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
            "defined");
  env["KUBERNETES_SERVICE_PORT"] = "443";
  o.service_account_dir = dir + "/missing";
  EXPECT_EQ(InClusterConfig(o).status().message(), "open " + dir + "/missing/token: no such file or directory");
}

// A plugin script that counts its runs and prints an ExecCredential whose expiry and token
// come from files.
class ExecPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TestTempDir();
    WriteFile(dir_ + "/plugin.sh",
              "#!/bin/sh\n"
              "n=$(cat \"$STATE/runs\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$STATE/runs\"\n"
              "echo \"$KUBERNETES_EXEC_INFO\" > \"$STATE/info\"\n"
              "echo \"$@\" > \"$STATE/args\"\n"
              "cat \"$STATE/out\"\n",
              true);
  }
  RestConfig Config(const std::string& api_version = "client.authentication.k8s.io/v1") {
    RestConfig c;
    c.host = "https://example";
    ExecConfig e;
    e.api_version = api_version;
    e.command = dir_ + "/plugin.sh";
    e.args = {"get-token", "--x"};
    e.env = {{"STATE", dir_}};
    e.interactive_mode = "Never";
    c.exec = e;
    return c;
  }
  void SetOutput(const std::string& json) { WriteFile(dir_ + "/out", json); }
  std::string dir_;
};

TEST_F(ExecPluginTest, CachesUntilExpiryAndRefreshesAfter401) {
  SimulatedClock clock;  // 2026-01-01T00:00:00Z
  SetOutput(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                "status":{"token":"tok-1","expirationTimestamp":"2026-01-01T00:10:00Z"}})");
  Authenticator auth(Config(), clock);
  auto c1 = auth.Get();
  ASSERT_TRUE(c1.ok()) << c1.status().ToString();
  EXPECT_EQ(c1->authorization, "Bearer tok-1");
  EXPECT_EQ(auth.exec_runs(), 1u);
  std::ifstream info(dir_ + "/info");
  std::string info_text((std::istreambuf_iterator<char>(info)), {});
  EXPECT_NE(info_text.find("\"interactive\":false"), std::string::npos) << info_text;
  EXPECT_NE(info_text.find("\"kind\":\"ExecCredential\""), std::string::npos);

  clock.Advance(std::chrono::minutes(5));
  EXPECT_EQ(auth.Get()->authorization, "Bearer tok-1");
  EXPECT_EQ(auth.exec_runs(), 1u);  // cached

  SetOutput(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                "status":{"token":"tok-2","expirationTimestamp":"2026-01-01T01:00:00Z"}})");
  clock.Advance(std::chrono::minutes(6));  // past the expiry
  auto c2 = auth.Get();
  EXPECT_EQ(c2->authorization, "Bearer tok-2");
  EXPECT_EQ(auth.exec_runs(), 2u);

  // A 401 with these credentials: the plugin runs again on the next Get.
  SetOutput(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                "status":{"token":"tok-3"}})");
  auth.Invalidate(*c2);
  EXPECT_EQ(auth.Get()->authorization, "Bearer tok-3");
  EXPECT_EQ(auth.exec_runs(), 3u);
  auth.Invalidate(*c2);  // stale credentials: no effect
  EXPECT_EQ(auth.Get()->authorization, "Bearer tok-3");
  EXPECT_EQ(auth.exec_runs(), 3u);
}

TEST_F(ExecPluginTest, ClientCertificateFromThePlugin) {
  SimulatedClock clock;
  SetOutput(R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
                "status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})");
  Authenticator auth(Config("client.authentication.k8s.io/v1beta1"), clock);
  auto c = auth.Get();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->authorization, "");
  ASSERT_TRUE(c->client_cert_and_key.has_value());
  EXPECT_EQ(c->client_cert_and_key->first, "CERT");
}

TEST_F(ExecPluginTest, Errors) {
  SimulatedClock clock;
  struct Case {
    std::string name;
    std::string output;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"no status", R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})",
       "getting credentials: exec plugin didn't return a status field"},
      {"empty status", R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})",
       "getting credentials: exec plugin didn't return a token or cert/key pair"},
      {"only a certificate",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"C"}})",
       "getting credentials: exec plugin returned only certificate or key, not both"},
      {"wrong version",
       R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}})",
       "getting credentials: exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin "
       "returned version client.authentication.k8s.io/v1beta1"},
      {"not JSON", "oops", "getting credentials: decoding stdout: "},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    SetOutput(tc.output);
    Authenticator auth(Config(), clock);
    auto c = auth.Get();
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(std::string(c.status().message()).substr(0, tc.error.size()), tc.error);
  }
  RestConfig missing = Config();
  missing.exec->command = "tidepool-no-such-plugin";
  missing.exec->install_hint = "install it";
  Authenticator auth(missing, clock);
  EXPECT_EQ(auth.Get().status().message(),
            "getting credentials: exec: executable tidepool-no-such-plugin not found\n\ninstall it");
  RestConfig failing = Config();
  failing.exec->command = "false";
  Authenticator auth2(failing, clock);
  EXPECT_EQ(auth2.Get().status().message(), "getting credentials: exec: executable false failed with exit code 1");
}

}  // namespace
}  // namespace tidepool::client

namespace tidepool::client {
namespace {

TEST(BuildConfigFromFlagsTest, KubeconfigMasterOrInCluster) {
  const std::string dir = testing::TestTempDir();
  WriteFile(dir + "/config", Kubeconfig("", "    token: t\n"));
  auto kc = BuildConfigFromFlags("", dir + "/config");
  ASSERT_TRUE(kc.ok()) << kc.status().ToString();
  EXPECT_EQ(kc->host, "https://10.0.0.1:443");
  auto overridden = BuildConfigFromFlags("http://127.0.0.1:8080/", dir + "/config");
  EXPECT_EQ(overridden->host, "http://127.0.0.1:8080");
  EXPECT_EQ(overridden->bearer_token, "t");
  EXPECT_EQ(BuildConfigFromFlags("http://127.0.0.1:8080", "")->host, "http://127.0.0.1:8080");
  InClusterOptions none;
  none.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  EXPECT_EQ(BuildConfigFromFlags("", "", none).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace tidepool::client
