#include "apiserver/certificates/csr.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/base64.h"

namespace tidepool::apiserver::certificates {
namespace {

using nlohmann::json;

// An ECDSA P-256 request for CN=kube-admin (openssl req -new), the same with its signature's
// last byte flipped, and a self-signed certificate.
const std::string kRequest = R"PEM(-----BEGIN CERTIFICATE REQUEST-----
MIHQMHcCAQAwFTETMBEGA1UEAwwKa3ViZS1hZG1pbjBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABHVtKS3DqPaazj+SGfABh2r7We2+qCLuDouScD0XkvIgK2r2IMkF
KkV+8l/CIvMyID6a2NziGxKdfj+mgSTMN++gADAKBggqhkjOPQQDAgNJADBGAiEA
6Y3/NTJyaOeH1Jq8fRskEekiFzQwbHuADrqTCckkGP8CIQCpBKBImHcKdQq1oag5
myZC38k66TeX9bHzjwtsSvht5Q==
-----END CERTIFICATE REQUEST-----
)PEM";
const std::string kBadSignature = R"PEM(-----BEGIN CERTIFICATE REQUEST-----
MIHQMHcCAQAwFTETMBEGA1UEAwwKa3ViZS1hZG1pbjBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABHVtKS3DqPaazj+SGfABh2r7We2+qCLuDouScD0XkvIgK2r2IMkF
KkV+8l/CIvMyID6a2NziGxKdfj+mgSTMN++gADAKBggqhkjOPQQDAgNJADBGAiEA
6Y3/NTJyaOeH1Jq8fRskEekiFzQwbHuADrqTCckkGP8CIQCpBKBImHcKdQq1oag5
myZC38k66TeX9bHzjwtsSvht5A==
-----END CERTIFICATE REQUEST-----
)PEM";
const std::string kCertificate = R"PEM(-----BEGIN CERTIFICATE-----
MIIBbDCCAROgAwIBAgIUS860N0CmhX43/GWCne6rwddxcp8wCgYIKoZIzj0EAwIw
DDEKMAgGA1UEAwwBeDAeFw0yNjEyMDYwMjI2MTlaFw0yNjEyMDcwMjI2MTlaMAwx
CjAIBgNVBAMMAXgwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR1bSktw6j2ms4/
khnwAYdq+1ntvqgi7g6LknA9F5LyICtq9iDJBSpFfvJfwiLzMiA+mtjc4hsSnX4/
poEkzDfvo1MwUTAdBgNVHQ4EFgQU+vv4U60bSQHz9Nt0uwnG0J7bLV0wHwYDVR0j
BBgwFoAU+vv4U60bSQHz9Nt0uwnG0J7bLV0wDwYDVR0TAQH/BAUwAwEB/zAKBggq
hkjOPQQDAgNHADBEAiBI+fYh+W3jMbtgFVgvfd2X6MXWRF4E2BKQQSOea5FoqwIg
UjFDv7YdcFpb7ajbngDrnUiXofgHi3DQ5a4lAEElQno=
-----END CERTIFICATE-----
)PEM";

json Csr(const std::string& pem = kRequest) {
  return {{"apiVersion", "certificates.k8s.io/v1"},
          {"kind", "CertificateSigningRequest"},
          {"metadata", {{"name", "foo"}}},
          {"spec",
           {{"request", Base64Encode(pem)},
            {"signerName", "kubernetes.io/kube-apiserver-client"},
            {"usages", {"digital signature", "key encipherment", "client auth"}}}}};
}

json Condition(const std::string& type, const std::string& status = "True") {
  return {{"type", type}, {"status", status}};
}

std::vector<std::string> Messages(const api::FieldErrors& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

TEST(CsrTest, CreateRecordsTheRequesterAndClearsStatus) {
  json csr = Csr();
  csr["spec"]["username"] = "mallory";
  csr["spec"]["groups"] = {"system:masters"};
  csr["status"] = {{"conditions", json::array({Condition("Approved")})}};
  authn::UserInfo user{"user1", "", {"group2", "system:authenticated"}, {{"foo", {"bar"}}}};
  PrepareCsrForCreate(csr, user);
  EXPECT_EQ(csr["spec"]["username"], "user1");
  EXPECT_FALSE(csr["spec"].contains("uid"));
  EXPECT_EQ(csr["spec"]["groups"], json({"group2", "system:authenticated"}));
  EXPECT_EQ(csr["spec"]["extra"], json({{"foo", {"bar"}}}));
  EXPECT_EQ(csr["status"], json::object());
}

TEST(CsrTest, ValidateCreate) {
  struct Case {
    std::string name;
    std::function<void(json&)> edit;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"valid", [](json&) {}, {}},
      {"not a CSR PEM",
       [](json& c) { c["spec"]["request"] = Base64Encode("abc"); },
       {"spec.request: Invalid value: []byte{0x61, 0x62, 0x63}: PEM block type must be CERTIFICATE "
        "REQUEST"}},
      {"a certificate, not a request",
       [](json& c) { c["spec"]["request"] = Base64Encode(kCertificate); },
       {}},  // checked by prefix below
      {"bad signature", [](json& c) { c["spec"]["request"] = Base64Encode(kBadSignature); }, {}},
      {"no usages", [](json& c) { c["spec"].erase("usages"); }, {"spec.usages: Required value"}},
      {"unknown and duplicate usages",
       [](json& c) {
         c["spec"]["usages"] = {"client auth", "bogus", "client auth"};
       },
       {"spec.usages[1]: Unsupported value: \"bogus\": supported values: \"any\", \"cert sign\", "
        "\"client auth\", \"code signing\", \"content commitment\", \"crl sign\", \"data "
        "encipherment\", \"decipher only\", \"digital signature\", \"email protection\", "
        "\"encipher only\", \"ipsec end system\", \"ipsec tunnel\", \"ipsec user\", \"key "
        "agreement\", \"key encipherment\", \"microsoft sgc\", \"netscape sgc\", \"ocsp "
        "signing\", \"s/mime\", \"server auth\", \"signing\", \"timestamping\"",
        "spec.usages[2]: Duplicate value: \"client auth\""}},
      {"no signer",
       [](json& c) { c["spec"].erase("signerName"); },
       {"spec.signerName: Required value"}},
      {"legacy signer",
       [](json& c) { c["spec"]["signerName"] = "kubernetes.io/legacy-unknown"; },
       {"spec.signerName: Invalid value: \"kubernetes.io/legacy-unknown\": the legacy signerName "
        "is not allowed via this API version"}},
      {"signer without a path",
       [](json& c) { c["spec"]["signerName"] = "example.com"; },
       {"spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and "
        "path of the form 'example.com/signer-name'"}},
      {"signer domain of one label",
       [](json& c) { c["spec"]["signerName"] = "example/signer"; },
       {"spec.signerName: Invalid value: \"example\": should be a domain with at least two "
        "segments separated by dots"}},
      {"signer path not a subdomain",
       [](json& c) { c["spec"]["signerName"] = "example.com/Signer"; },
       {"spec.signerName: Invalid value: \"Signer\": validating label \"Signer\": a lowercase RFC "
        "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
        "must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
      {"expiration under 10 minutes",
       [](json& c) { c["spec"]["expirationSeconds"] = 599; },
       {"spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 "
        "seconds (10 minutes)"}},
      {"conditions",
       [](json& c) {
         c["status"]["conditions"] = {Condition("Approved"), Condition("Denied", "False"),
                                      Condition("Denied"), Condition("")};
       },
       {"status.conditions[1].status: Unsupported value: \"False\": supported values: \"True\"",
        "status.conditions[1].type: Invalid value: \"Denied\": Approved and Denied conditions are "
        "mutually exclusive",
        "status.conditions[2].type: Invalid value: \"Denied\": Approved and Denied conditions are "
        "mutually exclusive",
        "status.conditions[2].type: Duplicate value: \"Denied\"",
        "status.conditions[3].type: Required value"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json csr = Csr();
    c.edit(csr);
    const std::vector<std::string> got = Messages(ValidateCsr(csr, nullptr, ""));
    if (c.name == "a certificate, not a request") {
      ASSERT_EQ(got.size(), 1u);
      EXPECT_NE(got[0].find(": PEM block type must be CERTIFICATE REQUEST"), std::string::npos);
      continue;
    }
    if (c.name == "bad signature") {
      ASSERT_EQ(got.size(), 1u);
      EXPECT_NE(got[0].find(": x509: ECDSA verification failure"), std::string::npos) << got[0];
      continue;
    }
    EXPECT_EQ(got, c.want);
  }
}

// The three ways to write one: the object (metadata only), status and approval.
TEST(CsrTest, UpdatesBySubresource) {
  json old = Csr();
  PrepareCsrForCreate(old, authn::UserInfo{"user1", "", {"system:authenticated"}, {}});
  const std::string now = "2026-12-06T01:00:00Z";
  struct Case {
    std::string name, subresource;
    std::function<void(json&)> edit;
    std::function<void(const json&)> check;
    std::vector<std::string> errors;
  };
  const std::vector<Case> cases = {
      {"object: spec and status stay, labels change",
       "",
       [](json& c) {
         c["metadata"]["labels"] = {{"a", "b"}};
         c["spec"]["signerName"] = "example.com/other";
         c["status"]["conditions"] = {Condition("Approved")};
       },
       [](const json& c) {
         EXPECT_EQ(c["metadata"]["labels"]["a"], "b");
         EXPECT_EQ(c["spec"]["signerName"], "kubernetes.io/kube-apiserver-client");
         EXPECT_EQ(c["status"], json::object());
       },
       {}},
      {"approval: an Approved condition, stamped",
       "approval",
       [](json& c) {
         json cond = Condition("Approved");
         cond["reason"] = "KubectlApprove";
         cond["lastTransitionTime"] = nullptr;
         c["status"]["conditions"] = {cond};
         c["status"]["certificate"] = Base64Encode(kCertificate);
       },
       [&](const json& c) {
         EXPECT_EQ(c["status"]["conditions"][0]["lastUpdateTime"], now);
         EXPECT_EQ(c["status"]["conditions"][0]["lastTransitionTime"], now);
         EXPECT_FALSE(c["status"].contains("certificate"));  // approval keeps the old one
       },
       {}},
      {"status: may not add Approved",
       "status",
       [](json& c) { c["status"]["conditions"] = {Condition("Approved")}; },
       [](const json&) {},
       {"status.conditions: Forbidden: updates may not add a condition of type \"Approved\""}},
      {"status: may set the certificate and Failed",
       "status",
       [](json& c) {
         c["status"]["certificate"] = Base64Encode(kCertificate);
         c["status"]["conditions"] = {Condition("Failed")};
       },
       [](const json& c) { EXPECT_TRUE(c["status"].contains("certificate")); },
       {}},
      {"status: a certificate that is not one",
       "status",
       [](json& c) { c["status"]["certificate"] = Base64Encode(kRequest); },
       [](const json&) {},
       {"status.certificate: Invalid value: \"<certificate data>\": only CERTIFICATE PEM blocks "
        "are allowed, found \"CERTIFICATE REQUEST\""}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json next = old;
    c.edit(next);
    PrepareCsrForUpdate(next, old, c.subresource, now);
    c.check(next);
    EXPECT_EQ(Messages(ValidateCsr(next, &old, c.subresource)), c.errors);
  }
  // Denied cannot follow Approved, nor Approved be removed.
  json approved = old;
  approved["status"]["conditions"] = {Condition("Approved")};
  PrepareCsrForUpdate(approved, old, "approval", now);
  json both = approved;
  both["status"]["conditions"].push_back(Condition("Denied"));
  PrepareCsrForUpdate(both, approved, "approval", now);
  EXPECT_EQ(Messages(ValidateCsr(both, &approved, "approval")),
            std::vector<std::string>({"status.conditions[1].type: Invalid value: \"Denied\": "
                                      "Approved and Denied conditions are mutually exclusive"}));
  json removed = approved;
  removed["status"]["conditions"] = json::array();
  PrepareCsrForUpdate(removed, approved, "approval", now);
  EXPECT_EQ(Messages(ValidateCsr(removed, &approved, "approval")),
            std::vector<std::string>(
                {"status.conditions: Forbidden: updates may not remove a condition of type "
                 "\"Approved\""}));
}

}  // namespace
}  // namespace tidepool::apiserver::certificates
