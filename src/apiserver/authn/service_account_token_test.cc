#include "apiserver/authn/service_account_token.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/base64.h"

namespace tidepool::apiserver::authn {
namespace {

using nlohmann::json;

TimePoint At(int64_t s) { return TimePoint(std::chrono::seconds(s)); }

TokenClaims Claims() {
  TokenClaims c;
  c.ns = "team";
  c.service_account = {"builder", "sa-uid"};
  c.audiences = {"https://kubernetes.default.svc.cluster.local"};
  c.issued_at = At(1'000'000);
  c.expires_at = At(1'003'600);
  c.jti = "jti-1";
  c.pod = TokenClaims::Ref{"p", "pod-uid"};
  c.node = TokenClaims::Ref{"n", "node-uid"};
  return c;
}

json Part(const std::string& token, int i) {
  size_t start = 0;
  for (int k = 0; k < i; ++k) start = token.find('.', start) + 1;
  const size_t end = token.find('.', start);
  auto text = Base64Decode(token.substr(start, end - start), Base64Encoding::kRawUrl);
  return text.ok() ? json::parse(*text) : json();
}

// kube's JWT: RS256 with the key's id; the claims of claims.go; verified back while valid.
TEST(ServiceAccountTokensTest, IssuesRs256JwtsItVerifiesWhileValid) {
  ServiceAccountTokens tokens("https://kubernetes.default.svc.cluster.local");
  auto token = tokens.Issue(Claims());
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  const json header = Part(*token, 0);
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(header["kid"].get<std::string>().size(), 43u);  // base64url of 32 bytes
  const json claims = Part(*token, 1);
  EXPECT_EQ(claims["sub"], "system:serviceaccount:team:builder");
  EXPECT_EQ(claims["iss"], "https://kubernetes.default.svc.cluster.local");
  EXPECT_EQ(claims["aud"], json::array({"https://kubernetes.default.svc.cluster.local"}));
  EXPECT_EQ(claims["iat"], 1'000'000);
  EXPECT_EQ(claims["nbf"], 1'000'000);
  EXPECT_EQ(claims["exp"], 1'003'600);
  EXPECT_EQ(claims["jti"], "jti-1");
  EXPECT_EQ(claims["kubernetes.io"],
            json::parse(R"({"namespace":"team","serviceaccount":{"name":"builder","uid":"sa-uid"},
                            "pod":{"name":"p","uid":"pod-uid"},"node":{"name":"n","uid":"node-uid"}})"));

  auto verified = tokens.Verify(*token, At(1'000'100));
  ASSERT_TRUE(verified.ok() && verified->has_value());
  const auto& ok = *verified;
  EXPECT_EQ(ok->ns, "team");
  EXPECT_EQ(ok->service_account.uid, "sa-uid");
  EXPECT_EQ(ok->pod->name, "p");
  EXPECT_EQ(ok->node->uid, "node-uid");
  EXPECT_FALSE(ok->secret.has_value());
  EXPECT_EQ(ok->jti, "jti-1");

  struct Case {
    std::string name;
    std::string token;
    TimePoint now;
    bool ours;  // signed with this key: refused (Unauthenticated), else not this server's
  };
  // Another signature of the right length: the RSA check itself refuses it.
  std::string tampered = *token;
  const size_t sig = tampered.rfind('.') + 1;
  tampered[sig + 10] = tampered[sig + 10] == 'A' ? 'B' : 'A';
  // A header of our key id whose members have other types (any client may send one).
  const std::string odd_header =
      Base64Encode(R"({"alg":1,"kid":["x"]})", Base64Encoding::kRawUrl) + ".e30.c2ln";
  ServiceAccountTokens other("https://kubernetes.default.svc.cluster.local");
  const std::string foreign = *other.Issue(Claims());
  ServiceAccountTokens elsewhere("https://issuer.example");
  for (const Case& c :
       std::vector<Case>{{"expired", *token, At(1'003'600), true},
                         {"not yet valid", *token, At(999'999), true},
                         {"tampered", tampered, At(1'000'100), false},
                         {"another server's key", foreign, At(1'000'100), false},
                         {"not a JWT", "abc.def", At(1'000'100), false},
                         {"the run's opaque token", "Zm9vYmFy", At(1'000'100), false}}) {
    auto v = tokens.Verify(c.token, c.now);
    if (c.ours) {
      EXPECT_EQ(v.status().code(), StatusCode::kUnauthenticated) << c.name;
    } else {
      ASSERT_TRUE(v.ok()) << c.name;
      EXPECT_FALSE(v->has_value()) << c.name;
    }
  }
  auto none = elsewhere.Verify(*token, At(1'000'100));  // it never made a key
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace tidepool::apiserver::authn
