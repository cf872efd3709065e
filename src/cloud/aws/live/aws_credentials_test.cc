// File: aws_credentials_test.cc
//
// The credential chain (static keys, IRSA web identity, IMDSv2) and AwsClient (AWS's error
// shapes as Status, the SDK's retries) against a scripted HTTP transport.
#include "cloud/aws/live/aws_credentials.h"

#include <gtest/gtest.h>

#include <deque>

#include "cloud/aws/aws_catalog.h"
#include "cloud/aws/live/aws_client.h"
#include "cloud/aws/live/aws_cloud_provider.h"

namespace tidepool::cloud::aws::live {
namespace {

using client::http::HttpRequest;
using client::http::HttpResponse;

// Answers calls from a script, in order, and records them.
class ScriptedTransport final : public client::http::HttpTransport {
 public:
  void Add(int status, std::string body, std::map<std::string, std::string> headers = {}) {
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.headers = std::move(headers);
    script_.push_back(std::move(r));
  }
  StatusOr<HttpResponse> Do(const HttpRequest& req) const override {
    calls.push_back(req);
    if (script_.empty()) return UnavailableError("connection refused");
    HttpResponse r = script_.front();
    script_.pop_front();
    return r;
  }
  StatusOr<HttpResponse> Stream(const HttpRequest& req,
                                const client::http::ChunkCallback&) const override {
    return Do(req);
  }
  mutable std::vector<HttpRequest> calls;

 private:
  mutable std::deque<HttpResponse> script_;
};

std::string Header(const HttpRequest& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

const char kStsAnswer[] =
    R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <Credentials>
      <AccessKeyId>ASIATEMP</AccessKeyId>
      <SecretAccessKey>tempsecret</SecretAccessKey>
      <SessionToken>FwoGZXIvYXdz</SessionToken>
      <Expiration>2026-01-01T01:00:00Z</Expiration>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
</AssumeRoleWithWebIdentityResponse>)";

TEST(CredentialChainTest, StaticKeysFirst) {
  AwsSettings s;
  s.static_keys = AwsStaticKeys{"AKID", "secret", "token"};
  s.web_identity = AwsWebIdentity{"arn", "/t", ""};
  ScriptedTransport http;
  SimulatedClock clock;
  auto src = DefaultCredentialSource(s, http, clock);
  ASSERT_TRUE(src.ok());
  auto c = (*src)->Get();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "AKID");
  EXPECT_EQ(c->session_token, "token");
  EXPECT_TRUE(http.calls.empty());
}

TEST(CredentialChainTest, WebIdentityIsExchangedAtStsAndCachedUntilNearExpiry) {
  AwsSettings s;
  s.region = "us-west-2";
  s.web_identity = AwsWebIdentity{"arn:aws:iam::1:role/ca", "/var/run/token", "ca"};
  ScriptedTransport http;
  http.Add(200, kStsAnswer);
  http.Add(200, kStsAnswer);
  SimulatedClock clock(TimePoint(std::chrono::seconds(1767225600)));  // 2026-01-01T00:00:00Z
  int reads = 0;
  auto src = DefaultCredentialSource(s, http, clock, [&](const std::string& path) {
    ++reads;
    EXPECT_EQ(path, "/var/run/token");
    return StatusOr<std::string>("eyJhbGciOi.token\n");
  });
  ASSERT_TRUE(src.ok());
  auto c = (*src)->Get();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "ASIATEMP");
  EXPECT_EQ(c->session_token, "FwoGZXIvYXdz");
  ASSERT_EQ(http.calls.size(), 1u);
  const HttpRequest& call = http.calls[0];
  EXPECT_EQ(call.url, "https://sts.us-west-2.amazonaws.com/");
  EXPECT_FALSE(call.aws_sigv4.has_value());  // AssumeRoleWithWebIdentity is unsigned
  EXPECT_EQ(call.body,
            "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%"
            "3Arole%2Fca&RoleSessionName=ca&WebIdentityToken=eyJhbGciOi.token");
  // Cached for 54 minutes, fetched again (the token file re-read) within 5 of expiry.
  clock.Advance(std::chrono::minutes(54));
  ASSERT_TRUE((*src)->Get().ok());
  EXPECT_EQ(http.calls.size(), 1u);
  clock.Advance(std::chrono::minutes(2));
  ASSERT_TRUE((*src)->Get().ok());
  EXPECT_EQ(http.calls.size(), 2u);
  EXPECT_EQ(reads, 2);
}

TEST(CredentialChainTest, WebIdentityErrorsAreStsErrors) {
  AwsSettings s;
  s.region = "us-west-2";
  s.web_identity = AwsWebIdentity{"arn:aws:iam::1:role/ca", "/t", ""};
  ScriptedTransport http;
  http.Add(
      400,
      R"(<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>No OpenIDConnect provider found in your account</Message></Error><RequestId>r-1</RequestId></ErrorResponse>)");
  SimulatedClock clock;
  auto src = DefaultCredentialSource(s, http, clock,
                                     [](const std::string&) { return StatusOr<std::string>("t"); });
  auto c = (*src)->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "InvalidIdentityToken: No OpenIDConnect provider found in your account\n\tstatus "
            "code: 400, request id: r-1");
}

TEST(CredentialChainTest, ImdsV2TokenThenRoleThenCredentials) {
  AwsSettings s;
  s.imds_endpoint = "http://127.0.0.1:1338";
  ScriptedTransport http;
  http.Add(200, "imds-token");
  http.Add(200, "ca-node-role\n");
  http.Add(200, R"({"Code":"Success","AccessKeyId":"ASIAIMDS","SecretAccessKey":"s","Token":"t",
                    "Expiration":"2026-01-01T06:00:00Z"})");
  SimulatedClock clock;
  auto src = DefaultCredentialSource(s, http, clock);
  ASSERT_TRUE(src.ok());
  auto c = (*src)->Get();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "ASIAIMDS");
  ASSERT_EQ(http.calls.size(), 3u);
  EXPECT_EQ(http.calls[0].method, "PUT");
  EXPECT_EQ(http.calls[0].url, "http://127.0.0.1:1338/latest/api/token");
  EXPECT_EQ(Header(http.calls[0], "X-aws-ec2-metadata-token-ttl-seconds"), "21600");
  EXPECT_EQ(http.calls[2].url,
            "http://127.0.0.1:1338/latest/meta-data/iam/security-credentials/ca-node-role");
  EXPECT_EQ(Header(http.calls[2], "X-aws-ec2-metadata-token"), "imds-token");
}

TEST(CredentialChainTest, NothingConfigured) {
  AwsSettings s;
  s.imds_disabled = true;
  ScriptedTransport http;
  SimulatedClock clock;
  auto src = DefaultCredentialSource(s, http, clock);
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().message(), "NoCredentialProviders: no valid providers in chain");
}

TEST(AwsErrorStatusTest, EachProtocolsShape) {
  struct Case {
    int status;
    std::string body;
    std::map<std::string, std::string> headers;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {400,
       R"(<ErrorResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/"><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>a-1</RequestId></ErrorResponse>)",
       {},
       StatusCode::kResourceExhausted,
       "Throttling: Rate exceeded\n\tstatus code: 400, request id: a-1"},
      {400,
       R"(<?xml version="1.0"?><Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance ID 'i-1' does not exist</Message></Error></Errors><RequestID>e-1</RequestID></Response>)",
       {},
       StatusCode::kNotFound,
       "InvalidInstanceID.NotFound: The instance ID 'i-1' does not exist\n\tstatus code: 400, "
       "request id: e-1"},
      {404,
       R"({"message":"No node group found for name: x."})",
       {{"x-amzn-errortype", "ResourceNotFoundException:http://internal.amazon.com/"},
        {"x-amzn-requestid", "k-1"}},
       StatusCode::kNotFound,
       "ResourceNotFoundException: No node group found for name: x.\n\tstatus code: 404, "
       "request id: k-1"},
      {400,
       R"(<ErrorResponse><Error><Code>ValidationError</Code><Message>New SetDesiredCapacity value 30 is above max value 5 for the AutoScalingGroup.</Message></Error><RequestId>a-2</RequestId></ErrorResponse>)",
       {},
       StatusCode::kInvalidArgument,
       "ValidationError: New SetDesiredCapacity value 30 is above max value 5 for the "
       "AutoScalingGroup.\n\tstatus code: 400, request id: a-2"},
      {503,
       "",
       {},
       StatusCode::kUnavailable,
       "SerializationError: HTTP 503\n\tstatus code: 503, request id: "},
  };
  for (const Case& c : cases) {
    HttpResponse r;
    r.status = c.status;
    r.body = c.body;
    r.headers = c.headers;
    Status s = AwsErrorStatus(r);
    EXPECT_EQ(s.code(), c.code) << c.body;
    EXPECT_EQ(s.message(), c.message);
  }
}

class StaticKeys final : public CredentialSource {
 public:
  StatusOr<AwsCredentials> Get() override {
    return AwsCredentials{"AKID", "secret", "session", std::nullopt, "static"};
  }
};

TEST(AwsClientTest, SignsAndRetriesThrottlingWithTheSdksBackoff) {
  ScriptedTransport http;
  const std::string throttled =
      R"(<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>x</RequestId></ErrorResponse>)";
  http.Add(400, throttled);
  http.Add(500,
           "<ErrorResponse><Error><Code>InternalFailure</Code><Message>oops</Message></Error></"
           "ErrorResponse>");
  http.Add(200,
           "<DescribeTagsResponse><DescribeTagsResult><Tags/></DescribeTagsResult></"
           "DescribeTagsResponse>");
  StaticKeys keys;
  std::vector<Duration> waits;
  AwsClientOptions o;
  o.sleep = [&](Duration d) {
    waits.push_back(d);
    return true;
  };
  AwsSettings s;
  s.region = "eu-central-1";
  AwsClient client(s, http, keys, o);
  auto r = client.Query(AwsService::kAutoScaling, "DescribeTags", {{"MaxRecords", "10"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->name, "DescribeTagsResponse");
  ASSERT_EQ(http.calls.size(), 3u);
  const HttpRequest& call = http.calls[0];
  EXPECT_EQ(call.url, "https://autoscaling.eu-central-1.amazonaws.com/");
  EXPECT_EQ(call.body, "Action=DescribeTags&Version=2011-01-01&MaxRecords=10");
  ASSERT_TRUE(call.aws_sigv4.has_value());
  EXPECT_EQ(call.aws_sigv4->region, "eu-central-1");
  EXPECT_EQ(call.aws_sigv4->service, "autoscaling");
  EXPECT_EQ(Header(call, "X-Amz-Security-Token"), "session");
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_GE(waits[0], std::chrono::milliseconds(500));  // throttled: from 500 ms
  EXPECT_LE(waits[0], std::chrono::milliseconds(1000));
  EXPECT_GE(waits[1], std::chrono::milliseconds(30));  // 5xx: from 30 ms
  EXPECT_LE(waits[1], std::chrono::milliseconds(120));
}

TEST(AwsClientTest, ClientErrorsAreNotRetriedAndRetriesAreBounded) {
  ScriptedTransport http;
  http.Add(400,
           "<ErrorResponse><Error><Code>ValidationError</Code><Message>bad</Message></Error></"
           "ErrorResponse>");
  StaticKeys keys;
  int waits = 0;
  AwsClientOptions o;
  o.sleep = [&](Duration) {
    ++waits;
    return true;
  };
  AwsSettings s;
  s.region = "us-west-2";
  AwsClient client(s, http, keys, o);
  EXPECT_EQ(client.Query(AwsService::kEc2, "DescribeInstances", {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(waits, 0);
  // No more answers: transport failures, retried 3 times (4 attempts).
  http.calls.clear();
  auto r = client.Eks("GET", "/clusters/c");
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(http.calls.size(), 4u);
  EXPECT_EQ(http.calls[0].url, "https://eks.us-west-2.amazonaws.com/clusters/c");
}

TEST(ParseXmlTest, ListsTextsAndHostileNesting) {
  StatusOr<XmlNode> x = ParseXml(
      R"(<?xml version="1.0"?><R xmlns="x"><Set><item><id> i-1 </id></item><item><id>i-2</id></item></Set><E/></R>)");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(x->name, "R");
  ASSERT_EQ(x->List({"Set"}).size(), 2u);
  EXPECT_EQ(x->List({"Set"})[0]->Text({"id"}), "i-1");
  EXPECT_EQ(x->Text({"Missing", "id"}), "");
  EXPECT_FALSE(ParseXml("not xml <").ok());
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  EXPECT_EQ(ParseXml(deep).status().message(), "not XML: nested more than 64 elements deep");
}

// Replies of unexpected shapes are errors or defaults, never a throw: a DescribeNodegroup whose
// members have other types, an empty DescribeAutoScalingGroups page, a non-XML body.
TEST(AwsCloudProviderRepliesTest, WrongTypedRepliesNeverThrow) {
  ScriptedTransport http;
  http.Add(
      200,
      R"(<DescribeAutoScalingGroupsResponse><DescribeAutoScalingGroupsResult><AutoScalingGroups><member>
<AutoScalingGroupName>eks-ng</AutoScalingGroupName><MinSize>x</MinSize><MaxSize>5</MaxSize><DesiredCapacity>0</DesiredCapacity>
<AvailabilityZones><member>us-west-2a</member></AvailabilityZones>
<MixedInstancesPolicy><LaunchTemplate><Overrides><member><InstanceType>g4dn.xlarge</InstanceType></member></Overrides></LaunchTemplate></MixedInstancesPolicy>
<Tags><member><Key>eks:cluster-name</Key><Value>c</Value></member><member><Key>eks:nodegroup-name</Key><Value>ng</Value></member></Tags>
</member></AutoScalingGroups></DescribeAutoScalingGroupsResult></DescribeAutoScalingGroupsResponse>)");
  http.Add(200, R"({"nodegroup":{"labels":null,"tags":[1],"capacityType":5,"diskSize":"big",
                    "taints":[{"key":1,"value":null,"effect":"NO_SCHEDULE"}]}})");
  http.Add(200, "not xml");
  StaticKeys keys;
  AwsClientOptions o;
  o.max_retries = 0;
  o.sleep = [](Duration) { return false; };
  AwsSettings settings;
  settings.region = "us-west-2";
  AwsClient client(settings, http, keys, o);
  SimulatedClock clock;
  AwsProviderOptions po;
  po.discovery = {{"k8s.io/cluster-autoscaler/enabled", ""}};
  po.catalog = AwsCatalog();
  AwsCloudProvider provider(std::move(po), client, clock);
  ASSERT_TRUE(provider.Refresh().ok());
  ASSERT_EQ(provider.NodeGroups().size(), 1u);
  EXPECT_EQ(provider.NodeGroups()[0]->MinSize(), 0);  // "x" is no number
  StatusOr<api::Node> t = provider.NodeGroups()[0]->TemplateNode();
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->spec.taints.size(), 1u);
  EXPECT_EQ(t->spec.taints[0].key, "");
  EXPECT_EQ(t->meta.labels.at("eks.amazonaws.com/capacityType"), "ON_DEMAND");
  Status s = provider.Refresh();  // "not xml"
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message().rfind("SerializationError: failed decoding Query response", 0), 0u)
      << s.message();
  EXPECT_EQ(provider.NodeGroups().size(), 1u);  // the last good state is kept
}

}  // namespace
}  // namespace tidepool::cloud::aws::live
