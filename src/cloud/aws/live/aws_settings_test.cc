// File: aws_settings_test.cc
#include "cloud/aws/live/aws_settings.h"

#include <gtest/gtest.h>

namespace tidepool::cloud::aws::live {
namespace {

struct World {
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> files;
  AwsSettingsSource Source() const {
    AwsSettingsSource s;
    s.getenv = [this](const std::string& k) -> std::optional<std::string> {
      auto it = env.find(k);
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    s.read_file = [this](const std::string& p) -> StatusOr<std::string> {
      auto it = files.find(p);
      if (it == files.end()) return NotFoundError(p);
      return it->second;
    };
    return s;
  }
};

const char kConfig[] = R"(# a comment
[default]
region = eu-west-1
endpoint_url = http://127.0.0.1:9000   ; inline comment
s3 =
  addressing_style = path

[profile ci]
region = us-east-2
role_arn = arn:aws:iam::111122223333:role/ca
web_identity_token_file = /var/run/token
)";
const char kCredentials[] = R"([default]
aws_access_key_id = AKIDDEFAULT
aws_secret_access_key = secretdefault
[half]
aws_access_key_id = AKIDHALF
)";

TEST(ParseIniTest, SectionsCommentsAndNestedValues) {
  IniSections s = ParseIni(kConfig);
  EXPECT_EQ(s["default"]["region"], "eu-west-1");
  EXPECT_EQ(s["default"]["endpoint_url"], "http://127.0.0.1:9000");
  EXPECT_EQ(s["default"].count("addressing_style"), 0u);
  EXPECT_EQ(s["profile ci"]["role_arn"], "arn:aws:iam::111122223333:role/ca");
}

TEST(ResolveAwsSettingsTest, Table) {
  const std::map<std::string, std::string> files = {{"/h/.aws/config", kConfig},
                                                    {"/h/.aws/credentials", kCredentials}};
  struct Case {
    std::string name;
    std::map<std::string, std::string> env;
    std::string region;
    std::string autoscaling;  // EndpointFor(kAutoScaling)
    std::string key;          // static key id, "" for none
    bool web_identity;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"files", {{"HOME", "/h"}}, "eu-west-1", "http://127.0.0.1:9000", "AKIDDEFAULT", false, ""},
      {"env wins",
       {{"HOME", "/h"},
        {"AWS_REGION", "us-west-2"},
        {"AWS_ACCESS_KEY_ID", "AKIDENV"},
        {"AWS_SECRET_ACCESS_KEY", "s"},
        {"AWS_ENDPOINT_URL", "http://localhost:1"},
        {"AWS_ENDPOINT_URL_AUTO_SCALING", "http://localhost:2/"}},
       "us-west-2",
       "http://localhost:2",
       "AKIDENV",
       false,
       ""},
      {"ignored endpoints",
       {{"HOME", "/h"}, {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"}},
       "eu-west-1",
       "https://autoscaling.eu-west-1.amazonaws.com",
       "AKIDDEFAULT",
       false,
       ""},
      {"profile with web identity",
       {{"HOME", "/h"}, {"AWS_PROFILE", "ci"}},
       "us-east-2",
       "https://autoscaling.us-east-2.amazonaws.com",
       "",
       true,
       ""},
      {"irsa env before the files' keys",
       {{"HOME", "/h"},
        {"AWS_ROLE_ARN", "arn:aws:iam::1:role/x"},
        {"AWS_WEB_IDENTITY_TOKEN_FILE", "/t"}},
       "eu-west-1",
       "http://127.0.0.1:9000",
       "",
       true,
       ""},
      {"irsa env",
       {{"HOME", "/nowhere"},
        {"AWS_REGION", "cn-north-1"},
        {"AWS_ROLE_ARN", "arn:aws:iam::1:role/x"},
        {"AWS_WEB_IDENTITY_TOKEN_FILE", "/t"}},
       "cn-north-1",
       "https://autoscaling.cn-north-1.amazonaws.com.cn",
       "",
       true,
       ""},
      {"unknown profile",
       {{"HOME", "/h"}, {"AWS_PROFILE", "nope"}},
       "",
       "",
       "",
       false,
       "The config profile (nope) could not be found"},
      {"partial keys",
       {{"HOME", "/h"}, {"AWS_PROFILE", "half"}},
       "",
       "",
       "",
       false,
       "Partial credentials found in profile half, missing: aws_secret_access_key"},
      {"half env pair",
       {{"HOME", "/h"}, {"AWS_ACCESS_KEY_ID", "x"}},
       "",
       "",
       "",
       false,
       "must be set together"},
  };
  for (const Case& c : cases) {
    World w{c.env, files};
    StatusOr<AwsSettings> s = ResolveAwsSettings(w.Source());
    if (!c.error.empty()) {
      ASSERT_FALSE(s.ok()) << c.name;
      EXPECT_NE(s.status().message().find(c.error), std::string::npos)
          << c.name << ": " << s.status().message();
      continue;
    }
    ASSERT_TRUE(s.ok()) << c.name << ": " << s.status().ToString();
    EXPECT_EQ(s->region, c.region) << c.name;
    EXPECT_EQ(s->EndpointFor(AwsService::kAutoScaling), c.autoscaling) << c.name;
    EXPECT_EQ(s->static_keys ? s->static_keys->access_key_id : "", c.key) << c.name;
    EXPECT_EQ(s->web_identity.has_value(), c.web_identity) << c.name;
  }
}

TEST(ResolveAwsSettingsTest, MetadataSettings) {
  World w{{{"HOME", "/x"},
           {"AWS_EC2_METADATA_DISABLED", "true"},
           {"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:1338/"},
           {"AWS_CA_BUNDLE", "/etc/proxy-ca.pem"}},
          {}};
  StatusOr<AwsSettings> s = ResolveAwsSettings(w.Source());
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->imds_disabled);
  EXPECT_EQ(s->imds_endpoint, "http://127.0.0.1:1338");
  EXPECT_EQ(s->ca_bundle, "/etc/proxy-ca.pem");
}

}  // namespace
}  // namespace tidepool::cloud::aws::live
