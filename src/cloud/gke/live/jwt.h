// File: jwt.h
//
// The signed JWT of Google's service-account flow (RFC 7523 "JWT bearer" grant, as
// developers.google.com/identity/protocols/oauth2/service-account describes it): header
// {"alg":"RS256","typ":"JWT","kid":<private_key_id>}, claims {iss: client_email, scope, aud:
// token_uri, iat, exp = iat + 3600}, RSASSA-PKCS1-v1_5 SHA-256 over base64url(header) "."
// base64url(claims), every part base64url without padding. Signing uses OpenSSL's EVP API.
#pragma once

#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::cloud::gke::live {

// The RS256 signature (raw bytes) of `data` with a PEM private key ("BEGIN PRIVATE KEY" PKCS#8
// or "BEGIN RSA PRIVATE KEY" PKCS#1). InvalidArgument if the key does not load or is not RSA.
StatusOr<std::string> SignRs256(std::string_view pem_private_key, std::string_view data);

// A service-account key file's fields ("type": "service_account").
struct ServiceAccountKey {
  std::string client_email;
  std::string private_key;  // PEM
  std::string private_key_id;
  std::string token_uri = "https://oauth2.googleapis.com/token";
  std::string project_id;
};

// Parses a key file's JSON. InvalidArgument if it is not JSON, not "type": "service_account",
// or lacks client_email / private_key.
StatusOr<ServiceAccountKey> ParseServiceAccountKey(std::string_view json_text);

// The signed assertion for `scope` (space-separated) at `now` (iat; exp = iat + 1 h).
StatusOr<std::string> ServiceAccountJwt(const ServiceAccountKey& key, std::string_view scope,
                                        TimePoint now);

}  // namespace tidepool::cloud::gke::live
