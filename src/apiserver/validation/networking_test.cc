// Ingress and IngressClass (networking.k8s.io/v1).
#include "apiserver/validation/networking.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;

constexpr const char* kIngress = R"({
  "apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
  "metadata": {"name": "web", "namespace": "default"},
  "spec": {"rules": [{"host": "foo.com", "http": {"paths": [
    {"path": "/bar", "pathType": "Prefix",
     "backend": {"service": {"name": "svc", "port": {"number": 80}}}}]}}]}})";

json WithPath(const json& path) {
  json ing = json::parse(kIngress);
  ing["spec"]["rules"][0]["http"]["paths"][0].merge_patch(path);
  return ing;
}

TEST(IngressTest, HttpPathRulesAndTexts) {
  struct Case {
    std::string name;
    json path;
    std::vector<std::string> want;
  };
  const std::string at = "spec.rules[0].http.paths[0]";
  for (const Case& tc : std::vector<Case>{
           {"a valid path", json::object(), {}},
           {"no pathType", {{"pathType", nullptr}},
            {at + ".pathType: Required value: pathType must be specified"}},
           {"an unknown pathType", {{"pathType", "Regex"}},
            {at + ".pathType: Unsupported value: \"Regex\": supported values: \"Exact\", "
                  "\"ImplementationSpecific\", \"Prefix\""}},
           {"a relative Exact path", {{"pathType", "Exact"}, {"path", "bar"}},
            {at + ".path: Invalid value: \"bar\": must be an absolute path"}},
           {"an empty Prefix path", {{"pathType", "Prefix"}, {"path", nullptr}},
            {at + ".path: Invalid value: \"\": must be an absolute path"}},
           {"dot segments", {{"path", "/a/../b/."}},
            {at + ".path: Invalid value: \"/a/../b/.\": must not contain '/../'",
             at + ".path: Invalid value: \"/a/../b/.\": cannot end with '/.'"}},
           {"an empty ImplementationSpecific path",
            {{"pathType", "ImplementationSpecific"}, {"path", nullptr}},
            {}},
           {"a relative ImplementationSpecific path",
            {{"pathType", "ImplementationSpecific"}, {"path", "x"}},
            {at + ".path: Invalid value: \"x\": must be an absolute path"}},
       }) {
    SCOPED_TRACE(tc.name);
    api::FieldErrors errors;
    ASSERT_TRUE(ValidateIngress(WithPath(tc.path), nullptr, &errors).ok());
    EXPECT_THAT(Messages(errors), ElementsAreArray(tc.want));
  }
}

TEST(IngressClassTest, ControllerIsRequiredAndImmutable) {
  const char* base = R"({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
    "metadata": {"name": "nginx"}, "spec": {"controller": "k8s.io/ingress-nginx"}})";
  api::FieldErrors errors;
  ASSERT_TRUE(ValidateIngressClass(Patched(base, ""), nullptr, &errors).ok());
  EXPECT_TRUE(errors.empty());
  ASSERT_TRUE(
      ValidateIngressClass(Patched(base, R"({"spec": {"controller": null}})"), nullptr, &errors)
          .ok());
  EXPECT_THAT(Messages(errors), ElementsAreArray({"spec.controller: Required value"}));
  const json old = Patched(base, R"({"metadata": {"resourceVersion": "1"}})");
  ASSERT_TRUE(ValidateIngressClass(
                  Patched(base, R"({"metadata": {"resourceVersion": "1"},
                                    "spec": {"controller": "example.com/other"}})"),
                  &old, &errors)
                  .ok());
  EXPECT_THAT(Messages(errors),
              ElementsAreArray({"spec.controller: Invalid value: \"example.com/other\": field is "
                                "immutable"}));
}

}  // namespace
}  // namespace tidepool::apiserver::validation
