// File: token_source_test.cc
//
// The service-account JWT is checked with OpenSSL against a key generated here; the token
// exchanges run against a fake transport on a simulated clock.
#include "cloud/gke/live/token_source.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/base64.h"

namespace tidepool::cloud::gke::live {
namespace {

using json = nlohmann::json;

// A fresh RSA key: the PEM private key (PKCS#8) and the EVP_PKEY to verify with.
struct TestKey {
  TestKey() : key(EVP_RSA_gen(2048), &EVP_PKEY_free) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
    PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    pem.assign(data, static_cast<size_t>(n));
  }
  bool Verify(std::string_view data, std::string_view sig) const {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                &EVP_MD_CTX_free);
    return EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
           EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()),
                            sig.size(), reinterpret_cast<const unsigned char*>(data.data()),
                            data.size()) == 1;
  }
  std::string KeyJson(const std::string& token_uri = "https://oauth2.googleapis.com/token") const {
    return json{{"type", "service_account"},
                {"project_id", "tidepool-local"},
                {"private_key_id", "0123abcd"},
                {"private_key", pem},
                {"client_email", "autoscaler@tidepool-local.iam.gserviceaccount.com"},
                {"client_id", "1"},
                {"token_uri", token_uri}}
        .dump();
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key;
  std::string pem;
};

const TestKey& Key() {
  static const TestKey* key = new TestKey();
  return *key;
}

std::vector<std::string> SplitDots(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    out.push_back(s.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

class FakeTransport final : public Transport {
 public:
  StatusOr<HttpReply> Do(const HttpCall& call) override {
    calls.push_back(call);
    return reply;
  }
  std::vector<HttpCall> calls;
  HttpReply reply{200, R"({"access_token":"ya29.first","expires_in":3600,"token_type":"Bearer"})"};
};

TEST(JwtTest, Base64UrlRoundTrips) {
  for (const std::string s : {"", "f", "fo", "foo", "foob", "\xff\xfe\x00?>", "hello world!"}) {
    auto back = Base64Decode(Base64Encode(s, Base64Encoding::kRawUrl), Base64Encoding::kRawUrl);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, s);
    EXPECT_EQ(Base64Encode(s, Base64Encoding::kRawUrl).find_first_of("+/="), std::string::npos);
  }
  EXPECT_EQ(Base64Encode("\xfb\xff", Base64Encoding::kRawUrl), "-_8");
}

TEST(JwtTest, ServiceAccountJwtIsSignedWithRs256AndCarriesTheClaims) {
  auto key = ParseServiceAccountKey(Key().KeyJson());
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  const TimePoint now = SimulatedClock::kDefaultStart;
  auto jwt = ServiceAccountJwt(*key, kCloudPlatformScope, now);
  ASSERT_TRUE(jwt.ok()) << jwt.status().ToString();
  const std::vector<std::string> parts = SplitDots(*jwt);
  ASSERT_EQ(parts.size(), 3u);
  const json header = json::parse(*Base64Decode(parts[0], Base64Encoding::kRawUrl));
  EXPECT_EQ(header, (json{{"alg", "RS256"}, {"typ", "JWT"}, {"kid", "0123abcd"}}));
  const json claims = json::parse(*Base64Decode(parts[1], Base64Encoding::kRawUrl));
  EXPECT_EQ(claims["iss"], "autoscaler@tidepool-local.iam.gserviceaccount.com");
  EXPECT_EQ(claims["scope"], "https://www.googleapis.com/auth/cloud-platform");
  EXPECT_EQ(claims["aud"], "https://oauth2.googleapis.com/token");
  EXPECT_EQ(claims["iat"], 1767225600);
  EXPECT_EQ(claims["exp"], 1767225600 + 3600);
  const std::string sig = *Base64Decode(parts[2], Base64Encoding::kRawUrl);
  EXPECT_EQ(sig.size(), 256u);
  EXPECT_TRUE(Key().Verify(parts[0] + "." + parts[1], sig));
  EXPECT_FALSE(Key().Verify(parts[0] + "." + parts[1] + "x", sig));
}

TEST(JwtTest, BadKeysAreRefused) {
  struct Case {
    std::string name;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"not JSON", "{"},
      {"not a service account", R"({"type":"authorized_user","client_email":"a","private_key":"b"})"},
      {"no private key", R"({"type":"service_account","client_email":"a"})"},
      {"a key that is not PEM",
       R"({"type":"service_account","client_email":"a","private_key":"-----BEGIN PRIVATE KEY-----\nxx\n-----END PRIVATE KEY-----\n"})"},
  };
  FakeTransport transport;
  SimulatedClock clock;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto source = ServiceAccountTokenSource::Create(c.text, transport, clock);
    EXPECT_EQ(source.status().code(), StatusCode::kInvalidArgument) << source.status().ToString();
  }
}

TEST(ServiceAccountTokenSourceTest, ExchangesTheJwtAndCachesTheToken) {
  FakeTransport transport;
  SimulatedClock clock;
  auto source = ServiceAccountTokenSource::Create(
      Key().KeyJson("http://127.0.0.1:9/token"), transport, clock);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto token = (*source)->Token();
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(*token, "ya29.first");
  ASSERT_EQ(transport.calls.size(), 1u);
  const HttpCall& call = transport.calls[0];
  EXPECT_EQ(call.method, "POST");
  EXPECT_EQ(call.url, "http://127.0.0.1:9/token");
  EXPECT_EQ(call.headers, (Headers{{"Content-Type", "application/x-www-form-urlencoded"}}));
  const std::string prefix =
      "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=";
  ASSERT_EQ(call.body.rfind(prefix, 0), 0u) << call.body;
  const std::string jwt = UrlDecode(call.body.substr(prefix.size()));
  const json claims = json::parse(*Base64Decode(SplitDots(jwt)[1], Base64Encoding::kRawUrl));
  EXPECT_EQ(claims["aud"], "http://127.0.0.1:9/token");

  // Cached until 10 s before it expires.
  transport.reply.body = R"({"access_token":"ya29.second","expires_in":3600})";
  clock.Advance(std::chrono::seconds(3589));
  EXPECT_EQ(*(*source)->Token(), "ya29.first");
  EXPECT_EQ(transport.calls.size(), 1u);
  clock.Advance(std::chrono::seconds(2));
  EXPECT_EQ(*(*source)->Token(), "ya29.second");
  EXPECT_EQ(transport.calls.size(), 2u);
  const json claims2 = json::parse(*Base64Decode(
      SplitDots(UrlDecode(transport.calls[1].body.substr(prefix.size())))[1],
      Base64Encoding::kRawUrl));
  EXPECT_EQ(claims2["iat"], UnixSeconds(clock.Now()));
}

TEST(TokenReplyTest, ErrorsFromTheTokenEndpoint) {
  struct Case {
    std::string name;
    HttpReply reply;
    StatusCode code;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"invalid grant", {400, R"({"error":"invalid_grant","error_description":"Invalid JWT Signature."})"},
       StatusCode::kUnauthenticated, "oauth2: cannot fetch token: 400"},
      {"503", {503, "unavailable"}, StatusCode::kUnavailable, "503"},
      {"429", {429, R"({"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}})"},
       StatusCode::kResourceExhausted, "slow down"},
      {"no access_token", {200, R"({"token_type":"Bearer"})"}, StatusCode::kInternal,
       "missing access_token"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto t = ParseTokenReply(c.reply, SimulatedClock::kDefaultStart);
    EXPECT_EQ(t.status().code(), c.code) << t.status().ToString();
    EXPECT_NE(t.status().message().find(c.message_part), std::string_view::npos)
        << t.status().ToString();
  }
  auto ok = ParseTokenReply({200, R"({"access_token":"t","expires_in":"120"})"},
                            SimulatedClock::kDefaultStart);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->expiry, SimulatedClock::kDefaultStart + std::chrono::seconds(120));
}

TEST(MetadataTokenSourceTest, AsksTheMetadataServerWithItsHeader) {
  FakeTransport transport;
  SimulatedClock clock;
  ::unsetenv("GCE_METADATA_HOST");
  EXPECT_EQ(MetadataTokenSource(transport, clock).url(),
            "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/"
            "default/token");
  ::setenv("GCE_METADATA_HOST", "127.0.0.1:8989", 1);
  MetadataTokenSource source(transport, clock);
  ::unsetenv("GCE_METADATA_HOST");
  EXPECT_EQ(source.url(),
            "http://127.0.0.1:8989/computeMetadata/v1/instance/service-accounts/default/token");
  transport.reply.body = R"({"access_token":"ya29.md","expires_in":100,"token_type":"Bearer"})";
  EXPECT_EQ(*source.Token(), "ya29.md");
  ASSERT_EQ(transport.calls.size(), 1u);
  EXPECT_EQ(transport.calls[0].method, "GET");
  EXPECT_EQ(transport.calls[0].headers, (Headers{{"Metadata-Flavor", "Google"}}));
  clock.Advance(std::chrono::seconds(80));
  EXPECT_EQ(*source.Token(), "ya29.md");
  EXPECT_EQ(transport.calls.size(), 1u);
  clock.Advance(std::chrono::seconds(15));  // within 10 s of expiry
  EXPECT_TRUE(source.Token().ok());
  EXPECT_EQ(transport.calls.size(), 2u);
  transport.reply = HttpReply{500, "boom"};
  clock.Advance(std::chrono::hours(1));
  EXPECT_EQ(source.Token().status().code(), StatusCode::kUnavailable);
}

TEST(FileTokenSourceTest, RereadsTheFileWhenItChanges) {
  const std::string path = ::testing::TempDir() + "/gke_token_" + std::to_string(::getpid());
  {
    std::ofstream(path) << "ya29.one\n";
  }
  FileTokenSource source(path);
  EXPECT_EQ(*source.Token(), "ya29.one");
  {
    std::ofstream(path) << "ya29.second-token";
  }
  EXPECT_EQ(*source.Token(), "ya29.second-token");
  {
    std::ofstream(path) << "  \n";
  }
  EXPECT_EQ(source.Token().status().code(), StatusCode::kInvalidArgument);
  std::filesystem::remove(path);
  EXPECT_EQ(source.Token().status().code(), StatusCode::kNotFound);

  FakeTransport transport;
  SimulatedClock clock;
  {
    std::ofstream(path) << "ya29.default";
  }
  auto chosen = DefaultTokenSource(path, "", transport, clock);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(*(*chosen)->Token(), "ya29.default");
  EXPECT_TRUE(transport.calls.empty());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tidepool::cloud::gke::live
