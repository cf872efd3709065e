// File: name_validation_test.cc
//
// Tests for the util/validation name checks against apimachinery's texts.
#include "api/name_validation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool::api {
namespace {

using Errs = std::vector<std::string>;

const std::string kNameRegex =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kValueRegex =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kSubdomainRegex =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kLabelRegex =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

TEST(NameValidationTest, IsQualifiedName) {
  struct Case {
    std::string in;
    Errs want;
  };
  const std::vector<Case> cases = {
      {"app", {}},
      {"My.Name_1-x", {}},
      {"example.com/app", {}},
      {"kubernetes.io/hostname", {}},
      {std::string(63, 'a'), {}},
      {std::string(253, 'a') + "/x", {}},
      {"", {"name part must be non-empty", "name part " + kNameRegex}},
      {"-a", {"name part " + kNameRegex}},
      {"a_", {"name part " + kNameRegex}},
      {std::string(64, 'a'), {"name part must be no more than 63 characters"}},
      {"/a", {"prefix part must be non-empty"}},
      {"Example.com/a", {"prefix part " + kSubdomainRegex}},
      {"a..b/a", {"prefix part " + kSubdomainRegex}},
      {std::string(254, 'a') + "/x", {"prefix part must be no more than 253 characters"}},
      {"example.com/", {"name part must be non-empty", "name part " + kNameRegex}},
      {"a/b/c",
       {"a qualified name " + kNameRegex +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.in);
    EXPECT_EQ(IsQualifiedName(tc.in), tc.want);
  }
}

TEST(NameValidationTest, IsValidLabelValue) {
  EXPECT_EQ(IsValidLabelValue(""), Errs{});
  EXPECT_EQ(IsValidLabelValue("v1.2_x-Y"), Errs{});
  EXPECT_EQ(IsValidLabelValue(std::string(63, 'v')), Errs{});
  EXPECT_EQ(IsValidLabelValue("-x"), Errs{kValueRegex});
  EXPECT_EQ(IsValidLabelValue("a/b"), Errs{kValueRegex});
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'v')), Errs{"must be no more than 63 characters"});
  EXPECT_EQ(IsValidLabelValue(std::string(64, '-')),
            (Errs{"must be no more than 63 characters", kValueRegex}));
}

TEST(NameValidationTest, IsDns1123Subdomain) {
  EXPECT_EQ(IsDns1123Subdomain("example.com"), Errs{});
  EXPECT_EQ(IsDns1123Subdomain("a-1.b2"), Errs{});
  EXPECT_EQ(IsDns1123Subdomain(""), Errs{kSubdomainRegex});
  EXPECT_EQ(IsDns1123Subdomain("a."), Errs{kSubdomainRegex});
  EXPECT_EQ(IsDns1123Subdomain("a-.b"), Errs{kSubdomainRegex});
  EXPECT_EQ(IsDns1123Subdomain("A.b"), Errs{kSubdomainRegex});
  EXPECT_EQ(IsDns1123Subdomain(std::string(254, 'a')), Errs{"must be no more than 253 characters"});
}

TEST(NameValidationTest, IsDns1123Label) {
  EXPECT_EQ(IsDns1123Label("my-name"), Errs{});
  EXPECT_EQ(IsDns1123Label("123-abc"), Errs{});
  EXPECT_EQ(IsDns1123Label(""), Errs{kLabelRegex});
  EXPECT_EQ(IsDns1123Label("a.b"), Errs{kLabelRegex});
  EXPECT_EQ(IsDns1123Label("-a"), Errs{kLabelRegex});
  EXPECT_EQ(IsDns1123Label(std::string(64, 'a')), Errs{"must be no more than 63 characters"});
  EXPECT_EQ(IsDns1123Label(std::string(64, 'A')),
            (Errs{"must be no more than 63 characters", kLabelRegex}));
}

}  // namespace
}  // namespace tidepool::api
