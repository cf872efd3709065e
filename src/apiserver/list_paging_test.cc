#include "apiserver/list_paging.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/base64.h"

namespace tidepool::apiserver {
namespace {

std::string Token(const std::string& json_text) {
  return Base64Encode(json_text, Base64Encoding::kRawUrl);
}

TEST(ContinueTokenTest, RoundTripsKubesEncoding) {
  const std::string token = EncodeContinue({42, std::string("default/web-1\0", 14)});
  EXPECT_EQ(Base64Decode(token, Base64Encoding::kRawUrl).value(),
            R"({"v":"meta.k8s.io/v1","rv":42,"start":"default/web-1\u0000"})");
  StatusOr<ContinueToken> back = DecodeContinue(token);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->resource_version, 42);
  EXPECT_EQ(back->start_key, std::string("default/web-1\0", 14));
  // A leading '/' is kube's too.
  EXPECT_EQ(DecodeContinue(Token(R"({"v":"meta.k8s.io/v1","rv":-1,"start":"/n"})"))->start_key,
            "n");
}

// kube's storage.DecodeContinue, error by error.
TEST(ContinueTokenTest, RefusesWhatKubeRefusesWithItsText) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"!!!!", "continue key is not valid: illegal base64 data at input byte 0"},
      {Token("{"), "continue key is not valid: unexpected end of JSON input"},
      {Token(R"({"v":"v2","rv":1,"start":"a"})"),
       "continue key is not valid: server does not recognize this encoded version v2"},
      {Token(R"({"v":"meta.k8s.io/v1","start":"a"})"),
       "continue key is not valid: incorrect encoded start resourceVersion (version "
       "meta.k8s.io/v1)"},
      {Token(R"({"v":"meta.k8s.io/v1","rv":3})"),
       "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"},
      {Token(R"({"v":"meta.k8s.io/v1","rv":3,"start":"../secrets/x"})"),
       "continue key is not valid: ../secrets/x"},
      {Token(R"({"v":"meta.k8s.io/v1","rv":3,"start":"a//b"})"), "continue key is not valid: a//b"},
      {Token(R"({"v":"meta.k8s.io/v1","rv":"3","start":"a"})"),
       "continue key is not valid: json: cannot unmarshal string into Go struct field "
       "continueToken.rv of type int64"},
      {Token(R"([1])"),
       "continue key is not valid: json: cannot unmarshal array into Go value of type "
       "storage.continueToken"},
  };
  for (const auto& [token, message] : cases) {
    SCOPED_TRACE(token);
    StatusOr<ContinueToken> t = DecodeContinue(token);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(t.status().message(), message);
  }
}

}  // namespace
}  // namespace tidepool::apiserver
