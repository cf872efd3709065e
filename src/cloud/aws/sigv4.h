// File: sigv4.h
//
// Server-side checks of AWS Signature Version 4, for the emulated AWS (aws_api.h) and the
// Kubernetes API of `tidepool up --cloud aws` (EKS's bearer tokens): the signature is computed
// again with the secret of the access key the request names, from the credentials tidepool
// issued, and compared in constant time. The algorithm is AWS's (docs.aws.amazon.com, "Create a
// signed AWS API request"), as botocore signs: canonical request = method, URI-encoded path,
// canonical query (RFC 3986-encoded pairs, sorted), the signed headers' `name:value` lines
// (values trimmed, inner spaces collapsed), the signed header names, hex SHA-256 of the payload
// (of the empty body for a presigned URL: botocore's SigV4QueryAuth signs it); string to sign =
// algorithm, X-Amz-Date, scope, hex SHA-256 of the canonical request; key = HMAC chain over date,
// region, service, "aws4_request". HMAC-SHA-256 and SHA-256 are OpenSSL's.
//
// EKS tokens are what `aws eks get-token` makes (and aws-iam-authenticator checks): "k8s-aws-v1."
// + base64url(a presigned STS GetCallerIdentity URL signed with the header x-k8s-aws-id = the
// cluster's name). A token is valid for 15 minutes from its X-Amz-Date, aws-iam-authenticator's
// presigned URL lifetime (kubectl caches the ExecCredential for 14).
//
// Errors carry AWS's code as the message's first word (Unauthenticated): "SignatureDoesNotMatch",
// "InvalidClientTokenId", "MissingAuthenticationToken", "IncompleteSignature", and for tokens
// "expired" / "invalid token" texts (the API answers 401 for any of them).
//
// Web identity tokens (IRSA): the emulated STS exchanges a JWT for temporary credentials when the
// token's HS256 signature checks out with the verifier's web identity key, its audience is
// sts.amazonaws.com and it has not expired. Deviation: EKS's OIDC provider signs service
// account tokens with RS256 and STS fetches its keys; here `tidepool up` is the provider and
// signs with a key of the run (IssueWebIdentityToken), so that only those it gave a token to
// get credentials.
//
// Temporary credentials (STS AssumeRoleWithWebIdentity's, aws_api.h) are added at run time:
// their requests must carry the session token (X-Amz-Security-Token) and be made before they
// expire ("ExpiredToken"). At most kMaxTemporaryCredentials are kept (the oldest go first).
//
// Thread-safe.
#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::cloud::aws {

// The parts of a request a signature covers.
struct SignedRequest {
  std::string method;
  std::string path;                               // percent-decoded
  std::multimap<std::string, std::string> query;  // decoded
  std::map<std::string, std::string> headers;     // lower-case names
  std::string body;
};

// What a web identity token says.
struct WebIdentityClaims {
  std::string issuer;   // iss: the OIDC provider's URL
  std::string subject;  // sub: "system:serviceaccount:<namespace>:<name>"
  std::string audience = "sts.amazonaws.com";
};

// A JWT (HS256 with `key`) of `claims`, issued at `now`, expiring `lifetime` later.
std::string IssueWebIdentityToken(std::string_view key, const WebIdentityClaims& claims,
                                  TimePoint now, Duration lifetime);

class SigV4Verifier {
 public:
  // access key id -> secret access key.
  using Credentials = std::map<std::string, std::string, std::less<>>;
  // `web_identity_key`: the key web identity tokens are signed with; empty: none accepted.
  explicit SigV4Verifier(Credentials credentials, std::string web_identity_key = "")
      : credentials_(std::move(credentials)), web_identity_key_(std::move(web_identity_key)) {}

  static constexpr size_t kMaxTemporaryCredentials = 1024;
  // Accepts `access_key_id` with `secret` and `session_token` until `expiration`.
  void AddTemporary(std::string access_key_id, std::string secret, std::string session_token,
                    TimePoint expiration);

  // Checks a request signed in its Authorization header at `now`. OK, or Unauthenticated with
  // AWS's code and message.
  Status Verify(const SignedRequest& request, TimePoint now) const;

  // Checks a web identity token at `now`: its claims, or InvalidArgument whose message starts
  // with STS's code ("InvalidIdentityToken: ...", "ExpiredTokenException: ...").
  StatusOr<WebIdentityClaims> VerifyWebIdentityToken(std::string_view token, TimePoint now) const;

  // Checks an EKS bearer token for `cluster` at `now`; returns the caller's access key id.
  StatusOr<std::string> VerifyEksToken(std::string_view token, std::string_view cluster,
                                       TimePoint now) const;

  // The signature botocore would send (for tests): hex HMAC of the string to sign.
  static std::string Sign(std::string_view secret, std::string_view date_time,
                          std::string_view scope, std::string_view canonical_request);
  static std::string CanonicalRequest(const SignedRequest& request, std::string_view signed_headers,
                                      std::string_view payload);

 private:
  struct Temporary {
    std::string secret;
    std::string session_token;
    TimePoint expiration;
  };
  // The secret of `access_key_id` for a request with `session_token` at `now`, or the error.
  StatusOr<std::string> SecretOf(std::string_view access_key_id, std::string_view session_token,
                                 TimePoint now) const;

  const Credentials credentials_;
  const std::string web_identity_key_;
  mutable std::mutex mu_;
  std::map<std::string, Temporary, std::less<>> temporary_;  // guarded by mu_
  std::deque<std::string> temporary_order_;                  // guarded by mu_; oldest first
};

// AWS's messages for the codes above.
inline constexpr char kSignatureDoesNotMatchMessage[] =
    "The request signature we calculated does not match the signature you provided. Check your "
    "AWS Secret Access Key and signing method. Consult the service documentation for details.";
inline constexpr char kInvalidClientTokenIdMessage[] =
    "The security token included in the request is invalid.";
inline constexpr char kExpiredTokenMessage[] =
    "The security token included in the request is expired";

}  // namespace tidepool::cloud::aws
