#include "apiserver/validation/object_meta.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;

constexpr const char* kConfigMap = R"({
  "apiVersion": "v1", "kind": "ConfigMap",
  "metadata": {"name": "settings", "namespace": "default", "uid": "u1",
               "labels": {"app": "web", "example.com/tier": "front"},
               "annotations": {"example.com/note": "hello"}}})";

const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

TEST(ObjectMetaTest, CreateRulesAndTexts) {
  struct Case {
    std::string name;
    std::string patch;
    NameRule rule = NameRule::kDns1123Subdomain;
    bool namespaced = true;
    std::vector<std::string> want;
  };
  const std::string big(262144 - 15, 'x');  // with the key "example.com/big": 262144 bytes
  const std::vector<Case> cases = {
      {"a valid object", "", NameRule::kDns1123Subdomain, true, {}},
      {"no name", R"({"metadata": {"name": null}})", NameRule::kDns1123Subdomain, true,
       {"metadata.name: Required value: name or generateName is required"}},
      {"a name with capitals", R"({"metadata": {"name": "Bad_Name"}})",
       NameRule::kDns1123Subdomain, true,
       {"metadata.name: Invalid value: \"Bad_Name\": " + kSubdomainMsg}},
      {"a generateName ending in a dash", R"({"metadata": {"name": null, "generateName": "web-"}})",
       NameRule::kDns1123Subdomain, true, {}},
      {"a generateName with capitals", R"({"metadata": {"name": null, "generateName": "Web-"}})",
       NameRule::kDns1123Subdomain, true,
       {"metadata.generateName: Invalid value: \"Web-\": " + kSubdomainMsg}},
      {"a service name that is not a DNS-1035 label", R"({"metadata": {"name": "1web"}})",
       NameRule::kDns1035Label, true,
       {"metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case "
        "alphanumeric characters or '-', start with an alphabetic character, and end with an "
        "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')"}},
      {"an RBAC name with a slash", R"({"metadata": {"name": "a/b"}})", NameRule::kPathSegment,
       true, {"metadata.name: Invalid value: \"a/b\": may not contain '/'"}},
      {"a namespace on a cluster-scoped kind", "", NameRule::kDns1123Subdomain, false,
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"a label value too long",
       R"({"metadata": {"labels": {"app": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}})",
       NameRule::kDns1123Subdomain, true,
       {"metadata.labels: Invalid value: "
        "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": must be no more "
        "than 63 characters"}},
      {"annotations at the limit",
       R"({"metadata": {"annotations": {"example.com/note": null, "example.com/big": ")" + big +
           R"("}}})",
       NameRule::kDns1123Subdomain, true, {}},
      {"annotations over the limit",
       R"({"metadata": {"annotations": {"example.com/big": ")" + big + R"("}}})",
       NameRule::kDns1123Subdomain, true,
       {"metadata.annotations: Too long: must have at most 262144 bytes"}},
      {"a finalizer that is neither standard nor qualified",
       R"({"metadata": {"finalizers": ["kubernetes", "cleanup"]}})", NameRule::kDns1123Subdomain,
       true,
       {"metadata.finalizers[1]: Invalid value: \"cleanup\": name is neither a standard finalizer "
        "name nor is it fully qualified"}},
      {"an owner reference without uid",
       R"({"metadata": {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                            "name": "web-1"}]}})",
       NameRule::kDns1123Subdomain, true,
       {"metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty"}},
      {"a negative generation", R"({"metadata": {"generation": -1}})", NameRule::kDns1123Subdomain,
       true, {"metadata.generation: Invalid value: -1: must be greater than or equal to 0"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(Messages(ValidateObjectMeta(Patched(kConfigMap, tc.patch), tc.rule, tc.namespaced)),
                ElementsAreArray(tc.want));
  }
}

TEST(ObjectMetaTest, UpdateRulesAndTexts) {
  const json old = Patched(kConfigMap, R"({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z",
                                                         "finalizers": ["example.com/a"]}})");
  EXPECT_THAT(Messages(ValidateObjectMetaUpdate(
                  Patched(kConfigMap, R"({"metadata": {"finalizers": ["example.com/a"]}})"), old)),
              ::testing::IsEmpty());
  EXPECT_THAT(Messages(ValidateObjectMetaUpdate(
                  Patched(kConfigMap, R"({"metadata": {"uid": "u2", "finalizers":
                                          ["example.com/a", "example.com/b"]}})"),
                  old)),
              ElementsAreArray({"metadata.finalizers: Forbidden: no new finalizers can be added "
                                "if the object is being deleted, found new finalizers "
                                "[]string{\"example.com/b\"}",
                                "metadata.uid: Invalid value: \"u2\": field is immutable"}));
  // An update without a uid keeps the stored one.
  EXPECT_THAT(Messages(ValidateObjectMetaUpdate(Patched(kConfigMap, R"({"metadata": {"uid": null}})"),
                                                json::parse(kConfigMap))),
              ::testing::IsEmpty());
}

TEST(ObjectMetaTest, SelectorsParseAsLabelSelectorAsSelector) {
  EXPECT_EQ(AsSelector(nullptr).kind, Selector::Kind::kNothing);
  EXPECT_FALSE(AsSelector(nullptr).Matches({}));
  const json empty = json::object();
  EXPECT_TRUE(AsSelector(&empty).Empty());
  const json bad = json::parse(R"({"matchExpressions": [{"key": "a", "operator": "In"}]})");
  EXPECT_EQ(AsSelector(&bad).kind, Selector::Kind::kInvalid);
  const json in = json::parse(R"({"matchExpressions": [{"key": "a", "operator": "In",
                                                        "values": ["x"]}]})");
  EXPECT_TRUE(AsSelector(&in).Matches({{"a", "x"}}));
  EXPECT_FALSE(AsSelector(&in).Matches({{"a", "y"}}));
}

TEST(ObjectMetaTest, NothingThrowsOnWrongTypes) {
  for (const char* text : {R"({"metadata": 5})", R"({"metadata": {"name": 5, "labels": [1],
                           "annotations": "x", "finalizers": {}, "ownerReferences": 3}})",
                           "[]", "null"}) {
    SCOPED_TRACE(text);
    const json j = json::parse(text);
    EXPECT_NO_THROW((void)ValidateObjectMeta(j, NameRule::kDns1123Subdomain, true));
    EXPECT_NO_THROW((void)ValidateObjectMetaUpdate(j, j));
  }
}

}  // namespace
}  // namespace tidepool::apiserver::validation
