// File: sigv4_test.cc
//
// SigV4Verifier against signatures botocore 1.43.11 (the aws CLI's library) made with its own
// signers (SigV4Auth, SigV4QueryAuth as `aws eks get-token` uses it) for these credentials at
// 2026-12-05T02:03:04Z; one changed byte anywhere must fail.
#include "cloud/aws/sigv4.h"

#include <gtest/gtest.h>

namespace tidepool::cloud::aws {
namespace {

const char kId[] = "AKIATIDEPOOLEXAMPLE1";
const char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const TimePoint kSignedAt = TimePoint(std::chrono::seconds(1796436184));  // 2026-12-05T02:03:04Z

SignedRequest EksGet() {
  SignedRequest r;
  r.method = "GET";
  r.path = "/clusters/tidepool/node-groups";
  r.query = {{"maxResults", "10"}, {"nextToken", "a/b"}};
  r.headers = {{"host", "127.0.0.1:40807"},
               {"x-amz-date", "20261205T020304Z"},
               {"authorization",
                "AWS4-HMAC-SHA256 Credential=AKIATIDEPOOLEXAMPLE1/20261205/us-west-2/eks/"
                "aws4_request, SignedHeaders=host;x-amz-date, "
                "Signature=73a492b4181362d9df5b7b1ff0c27c651cc4b21b70a95c5a585f210ad964fdb0"}};
  return r;
}

SignedRequest AsgPost() {
  SignedRequest r;
  r.method = "POST";
  r.path = "/";
  r.body = "Action=DescribeAutoScalingGroups&Version=2011-01-01";
  r.headers = {{"host", "127.0.0.1:40807"},
               {"x-amz-date", "20261205T020304Z"},
               {"content-type", "application/x-www-form-urlencoded; charset=utf-8"},
               {"authorization",
                "AWS4-HMAC-SHA256 Credential=AKIATIDEPOOLEXAMPLE1/20261205/us-west-2/autoscaling/"
                "aws4_request, SignedHeaders=content-type;host;x-amz-date, "
                "Signature=8cba8b23692d8a086677334a80cd123c5e554c93985d7b78818ae2148b448d59"}};
  return r;
}

// `aws eks get-token --cluster-name tidepool` with endpoint_url http://127.0.0.1:40807.
const char kToken[] =
    "k8s-aws-v1.aHR0cDovLzEyNy4wLjAuMTo0MDgwNy8_QWN0aW9uPUdldENhbGxlcklkZW50aXR5JlZlcnNpb249MjAx"
    "MS0wNi0xNSZYLUFtei1BbGdvcml0aG09QVdTNC1ITUFDLVNIQTI1NiZYLUFtei1DcmVkZW50aWFsPUFLSUFUSURFUE9P"
    "TEVYQU1QTEUxJTJGMjAyNjEyMDUlMkZ1cy13ZXN0LTIlMkZzdHMlMkZhd3M0X3JlcXVlc3QmWC1BbXotRGF0ZT0yMDI2"
    "MTIwNVQwMjAzMDRaJlgtQW16LUV4cGlyZXM9NjAmWC1BbXotU2lnbmVkSGVhZGVycz1ob3N0JTNCeC1rOHMtYXdzLWlk"
    "JlgtQW16LVNpZ25hdHVyZT03Mjg0N2ExMzM4MzIxYWVlMjkzZmJjZmQ0NjEyMjZmMDNkMzY0NmQ0MTlhNDJhYTczZDcy"
    "ZWQ3Y2I5NGQxZGVi";

std::string CodeOf(const Status& s) {
  const std::string m(s.message());
  return m.substr(0, m.find(':'));
}

TEST(SigV4VerifierTest, BotocoreSignaturesVerify) {
  const SigV4Verifier v(SigV4Verifier::Credentials{{kId, kSecret}});
  EXPECT_TRUE(v.Verify(EksGet(), {}).ok()) << v.Verify(EksGet(), {}).ToString();
  EXPECT_TRUE(v.Verify(AsgPost(), {}).ok()) << v.Verify(AsgPost(), {}).ToString();
}

TEST(SigV4VerifierTest, AnyChangeFailsWithAwssCode) {
  struct Case {
    std::string name;
    SignedRequest request;
    std::string code;
  };
  std::vector<Case> cases;
  SignedRequest r = AsgPost();
  r.body += "&DesiredCapacity=3";
  cases.push_back({"body", r, "SignatureDoesNotMatch"});
  r = EksGet();
  r.path = "/clusters/other/node-groups";
  cases.push_back({"path", r, "SignatureDoesNotMatch"});
  r = EksGet();
  r.query.emplace("extra", "1");
  cases.push_back({"query", r, "SignatureDoesNotMatch"});
  r = EksGet();
  r.headers["host"] = "127.0.0.1:1";
  cases.push_back({"host", r, "SignatureDoesNotMatch"});
  r = EksGet();
  r.headers["authorization"].replace(r.headers["authorization"].find("AKIATIDEPOOL"), 4, "AKIB");
  cases.push_back({"unknown key", r, "InvalidClientTokenId"});
  r = EksGet();
  r.headers.erase("authorization");
  cases.push_back({"unsigned", r, "MissingAuthenticationToken"});
  r = EksGet();
  r.headers["authorization"] = "AWS4-HMAC-SHA256 Signature=00";
  cases.push_back({"incomplete", r, "IncompleteSignature"});

  const SigV4Verifier v(SigV4Verifier::Credentials{{kId, kSecret}});
  for (const Case& c : cases) {
    Status s = v.Verify(c.request, {});
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated) << c.name;
    EXPECT_EQ(CodeOf(s), c.code) << c.name << ": " << s.ToString();
  }
  const SigV4Verifier other_secret(SigV4Verifier::Credentials{{kId, "another-secret"}});
  EXPECT_EQ(CodeOf(other_secret.Verify(EksGet(), {})), "SignatureDoesNotMatch");
}

TEST(SigV4VerifierTest, EksTokens) {
  const SigV4Verifier v(SigV4Verifier::Credentials{{kId, kSecret}});
  StatusOr<std::string> who = v.VerifyEksToken(kToken, "tidepool", kSignedAt);
  ASSERT_TRUE(who.ok()) << who.status().ToString();
  EXPECT_EQ(*who, kId);
  EXPECT_TRUE(v.VerifyEksToken(kToken, "tidepool", kSignedAt + std::chrono::minutes(14)).ok());

  struct Case {
    std::string name;
    std::string token;
    std::string cluster;
    TimePoint now;
  };
  std::string tampered = kToken;
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  const std::vector<Case> cases = {
      {"another cluster", kToken, "other", kSignedAt},
      {"expired", kToken, "tidepool", kSignedAt + std::chrono::minutes(16)},
      {"tampered", tampered, "tidepool", kSignedAt},
      {"no prefix", std::string(kToken).substr(11), "tidepool", kSignedAt},
      {"garbage", "k8s-aws-v1.!!!", "tidepool", kSignedAt},
      {"empty", "", "tidepool", kSignedAt},
  };
  for (const Case& c : cases) {
    StatusOr<std::string> r = v.VerifyEksToken(c.token, c.cluster, c.now);
    EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated) << c.name;
  }
  const SigV4Verifier other(SigV4Verifier::Credentials{{kId, "x"}});
  EXPECT_FALSE(other.VerifyEksToken(kToken, "tidepool", kSignedAt).ok());
}

TEST(SigV4VerifierTest, WebIdentityTokens) {
  const SigV4Verifier v(SigV4Verifier::Credentials{{kId, kSecret}}, "irsa-key");
  const WebIdentityClaims claims{"https://oidc.eks.us-west-2.amazonaws.com/id/tidepool",
                                 "system:serviceaccount:kube-system:tidepool-autoscaler"};
  const std::string token =
      IssueWebIdentityToken("irsa-key", claims, kSignedAt, std::chrono::hours(1));
  StatusOr<WebIdentityClaims> got = v.VerifyWebIdentityToken(token, kSignedAt);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->subject, claims.subject);
  EXPECT_EQ(got->issuer, claims.issuer);

  WebIdentityClaims other_audience = claims;
  other_audience.audience = "kubernetes.default.svc";
  struct Case {
    std::string name;
    std::string token;
    TimePoint now;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"expired", token, kSignedAt + std::chrono::hours(1), "ExpiredTokenException: Token expired"},
      {"another key", IssueWebIdentityToken("k2", claims, kSignedAt, std::chrono::hours(1)),
       kSignedAt, "InvalidIdentityToken: Couldn't verify the token's signature"},
      {"audience",
       IssueWebIdentityToken("irsa-key", other_audience, kSignedAt, std::chrono::hours(1)),
       kSignedAt, "InvalidIdentityToken: Incorrect token audience"},
      {"not a JWT", "opaque-access-token", kSignedAt,
       "InvalidIdentityToken: The ID Token provided is not a valid JWT."},
  };
  for (const Case& c : cases) {
    StatusOr<WebIdentityClaims> r = v.VerifyWebIdentityToken(c.token, c.now);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().message().rfind(c.error, 0), 0u) << c.name << ": " << r.status().message();
  }
  const SigV4Verifier keyless(SigV4Verifier::Credentials{{kId, kSecret}});
  EXPECT_FALSE(keyless.VerifyWebIdentityToken(token, kSignedAt).ok());
}

}  // namespace
}  // namespace tidepool::cloud::aws
