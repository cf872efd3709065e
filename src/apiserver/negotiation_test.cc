#include "apiserver/negotiation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool::apiserver {
namespace {

TEST(NegotiateResponseTest, AcceptHeaders) {
  struct Case {
    std::string accept;
    ResponseEncoding want;
  };
  using enum ResponseEncoding;
  const std::vector<Case> cases = {
      {"", kJson},
      {"application/json", kJson},
      {"*/*", kJson},
      {"application/vnd.kubernetes.protobuf", kProtobuf},
      {"application/vnd.kubernetes.protobuf,application/json", kProtobuf},  // client-go
      {"application/vnd.kubernetes.protobuf, */*", kProtobuf},
      {"Application/Vnd.Kubernetes.Protobuf ; charset=x", kProtobuf},
      {"application/json,application/vnd.kubernetes.protobuf", kJson},
      {"application/json;q=0.5,application/vnd.kubernetes.protobuf", kProtobuf},
      {"application/vnd.kubernetes.protobuf;q=0.9,application/json", kJson},
      {"application/vnd.kubernetes.protobuf;q=0,application/json", kJson},
      {"text/html,application/vnd.kubernetes.protobuf", kProtobuf},  // unserved ranges skipped
      {"application/yaml,application/vnd.kubernetes.protobuf", kJson},
      // kubectl get's Table request, and a metadata informer's PartialObjectMetadataList.
      {"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
       "g=meta.k8s.io,application/json",
       kJson},
      {"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
       "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
       kJson},
      {"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", kJson},
  };
  for (const Case& tc : cases) {
    EXPECT_EQ(NegotiateResponse(tc.accept), tc.want) << tc.accept;
  }
}

}  // namespace
}  // namespace tidepool::apiserver
