#include "cloud/aws/sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "apiserver/http/server.h"
#include "common/base64.h"
#include "common/strings.h"

namespace tidepool::cloud::aws {
namespace {

constexpr char kAlgorithm[] = "AWS4-HMAC-SHA256";
constexpr char kTokenPrefix[] = "k8s-aws-v1.";
constexpr auto kTokenLifetime = std::chrono::minutes(15);

std::string Hex(const unsigned char* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return Hex(digest, sizeof(digest));
}

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<const char*>(out), n);
}

// RFC 3986: everything but A-Z a-z 0-9 - _ . ~ percent-encoded (and '/' kept when `path`).
std::string UriEncode(std::string_view s, bool path) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (path && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  return out;
}

std::string Trimmed(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

Status UnauthenticatedError(std::string_view message) {
  return Status(StatusCode::kUnauthenticated, message);
}

Status Unauthenticated(std::string_view code, std::string_view message) {
  return UnauthenticatedError(std::string(code) + ": " + std::string(message));
}

// "k1=v1, k2=v2" fields of an Authorization header after the algorithm.
std::map<std::string, std::string> AuthFields(std::string_view header) {
  std::map<std::string, std::string> out;
  header.remove_prefix(std::min(header.size(), sizeof(kAlgorithm) - 1));
  for (const std::string& field : SplitString(header, ',')) {
    std::string part = Trimmed(field);
    const size_t eq = part.find('=');
    if (eq != std::string::npos) out[part.substr(0, eq)] = part.substr(eq + 1);
  }
  return out;
}

bool SameSignature(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// "20261205T020304Z" -> time; nullopt when malformed.
std::optional<TimePoint> ParseAmzDate(std::string_view s) {
  if (s.size() != 16 || s[8] != 'T' || s[15] != 'Z') return std::nullopt;
  const std::string rfc = std::string(s.substr(0, 4)) + "-" + std::string(s.substr(4, 2)) + "-" +
                          std::string(s.substr(6, 2)) + "T" + std::string(s.substr(9, 2)) + ":" +
                          std::string(s.substr(11, 2)) + ":" + std::string(s.substr(13, 2)) + "Z";
  StatusOr<TimePoint> t = ParseRfc3339(rfc);
  if (!t.ok()) return std::nullopt;
  return *t;
}

}  // namespace

std::string SigV4Verifier::CanonicalRequest(const SignedRequest& r, std::string_view signed_headers,
                                            std::string_view payload) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [k, v] : r.query) {
    if (k == "X-Amz-Signature") continue;
    query.emplace_back(UriEncode(k, false), UriEncode(v, false));
  }
  std::sort(query.begin(), query.end());
  std::string q;
  for (const auto& [k, v] : query) q += (q.empty() ? "" : "&") + k + "=" + v;
  std::string headers;
  for (const std::string& name : SplitString(signed_headers, ';')) {
    auto it = r.headers.find(name);
    headers += name + ":" + (it == r.headers.end() ? "" : Trimmed(it->second)) + "\n";
  }
  return r.method + "\n" + UriEncode(r.path.empty() ? "/" : r.path, true) + "\n" + q + "\n" +
         headers + "\n" + std::string(signed_headers) + "\n" + std::string(payload);
}

std::string SigV4Verifier::Sign(std::string_view secret, std::string_view date_time,
                                std::string_view scope, std::string_view canonical_request) {
  const std::vector<std::string> s = SplitString(scope, '/');  // date/region/service/aws4_request
  std::string key = "AWS4" + std::string(secret);
  for (const std::string& part : s) key = Hmac(key, part);
  const std::string to_sign = std::string(kAlgorithm) + "\n" + std::string(date_time) + "\n" +
                              std::string(scope) + "\n" + Sha256Hex(canonical_request);
  const std::string mac = Hmac(key, to_sign);
  return Hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
}

void SigV4Verifier::AddTemporary(std::string access_key_id, std::string secret,
                                 std::string session_token, TimePoint expiration) {
  std::lock_guard<std::mutex> lock(mu_);
  if (temporary_.count(access_key_id) == 0) temporary_order_.push_back(access_key_id);
  temporary_[std::move(access_key_id)] =
      Temporary{std::move(secret), std::move(session_token), expiration};
  while (temporary_order_.size() > kMaxTemporaryCredentials) {
    temporary_.erase(temporary_order_.front());
    temporary_order_.pop_front();
  }
}

StatusOr<std::string> SigV4Verifier::SecretOf(std::string_view access_key_id,
                                              std::string_view session_token, TimePoint now) const {
  if (auto it = credentials_.find(access_key_id); it != credentials_.end()) return it->second;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = temporary_.find(access_key_id);
  if (it == temporary_.end() || it->second.session_token != session_token) {
    return Unauthenticated("InvalidClientTokenId", kInvalidClientTokenIdMessage);
  }
  if (now >= it->second.expiration) return Unauthenticated("ExpiredToken", kExpiredTokenMessage);
  return it->second.secret;
}

Status SigV4Verifier::Verify(const SignedRequest& r, TimePoint now) const {
  auto auth = r.headers.find("authorization");
  if (auth == r.headers.end() || auth->second.empty()) {
    return Unauthenticated("MissingAuthenticationToken", "Request is missing Authentication Token");
  }
  if (!auth->second.starts_with(kAlgorithm)) {
    return Unauthenticated("IncompleteSignature",
                           "Authorization header requires 'Credential' parameter.");
  }
  std::map<std::string, std::string> f = AuthFields(auth->second);
  const std::string credential = f["Credential"];
  const size_t slash = credential.find('/');
  if (slash == std::string::npos || f["SignedHeaders"].empty() || f["Signature"].empty()) {
    return Unauthenticated("IncompleteSignature",
                           "Authorization header requires 'Credential', 'SignedHeaders' and "
                           "'Signature' parameters.");
  }
  auto token = r.headers.find("x-amz-security-token");
  StatusOr<std::string> secret = SecretOf(
      std::string_view(credential).substr(0, slash),
      token == r.headers.end() ? std::string_view() : std::string_view(token->second), now);
  if (!secret.ok()) return secret.status();
  auto date = r.headers.find("x-amz-date");
  const std::string canonical = CanonicalRequest(r, f["SignedHeaders"], Sha256Hex(r.body));
  const std::string expected = Sign(*secret, date == r.headers.end() ? "" : date->second,
                                    credential.substr(slash + 1), canonical);
  if (!SameSignature(expected, f["Signature"])) {
    return Unauthenticated("SignatureDoesNotMatch", kSignatureDoesNotMatchMessage);
  }
  return OkStatus();
}

StatusOr<std::string> SigV4Verifier::VerifyEksToken(std::string_view token,
                                                    std::string_view cluster, TimePoint now) const {
  if (!token.starts_with(kTokenPrefix)) return UnauthenticatedError("invalid token: no prefix");
  StatusOr<std::string> url =
      Base64Decode(token.substr(sizeof(kTokenPrefix) - 1), Base64Encoding::kRawUrl);
  if (!url.ok()) return UnauthenticatedError("invalid token: not base64url");
  // https://<host>/?<query>
  const size_t scheme = url->find("://");
  if (scheme == std::string::npos) return UnauthenticatedError("invalid token: not a URL");
  const size_t path_at = url->find('/', scheme + 3);
  const size_t query_at = url->find('?', scheme + 3);
  if (path_at == std::string::npos || query_at == std::string::npos || query_at < path_at) {
    return UnauthenticatedError("invalid token: no query");
  }
  SignedRequest r;
  r.method = "GET";
  r.path = url->substr(path_at, query_at - path_at);
  r.headers["host"] = url->substr(scheme + 3, path_at - scheme - 3);
  r.headers["x-k8s-aws-id"] = std::string(cluster);
  std::map<std::string, std::string> q;
  for (const std::string& pair : SplitString(std::string_view(*url).substr(query_at + 1), '&')) {
    const size_t eq = pair.find('=');
    if (eq == std::string::npos) continue;
    std::string k = apiserver::http::UrlDecode(pair.substr(0, eq), false);
    std::string v = apiserver::http::UrlDecode(pair.substr(eq + 1), false);
    q[k] = v;
    r.query.emplace(std::move(k), std::move(v));
  }
  if (q["Action"] != "GetCallerIdentity" || q["X-Amz-Algorithm"] != kAlgorithm) {
    return UnauthenticatedError("invalid token: not a GetCallerIdentity presigned URL");
  }
  if (q["X-Amz-SignedHeaders"].find("x-k8s-aws-id") == std::string::npos) {
    return UnauthenticatedError("invalid token: x-k8s-aws-id is not signed");
  }
  std::optional<TimePoint> signed_at = ParseAmzDate(q["X-Amz-Date"]);
  if (!signed_at.has_value()) return UnauthenticatedError("invalid token: bad X-Amz-Date");
  if (now > *signed_at + kTokenLifetime) {
    return UnauthenticatedError("expired token: signed at " + q["X-Amz-Date"]);
  }
  const std::string credential = q["X-Amz-Credential"];
  const size_t slash = credential.find('/');
  auto secret = credentials_.find(credential.substr(0, slash == std::string::npos ? 0 : slash));
  if (slash == std::string::npos || secret == credentials_.end()) {
    return UnauthenticatedError("invalid token: unknown access key");
  }
  const std::string canonical = CanonicalRequest(r, q["X-Amz-SignedHeaders"], Sha256Hex(""));
  const std::string expected =
      Sign(secret->second, q["X-Amz-Date"], credential.substr(slash + 1), canonical);
  if (!SameSignature(expected, q["X-Amz-Signature"])) {
    return UnauthenticatedError("invalid token: signature does not match (another cluster's?)");
  }
  return secret->first;
}

std::string IssueWebIdentityToken(std::string_view key, const WebIdentityClaims& claims,
                                  TimePoint now, Duration lifetime) {
  const int64_t iat = UnixSeconds(now);
  const nlohmann::json payload = {
      {"iss", claims.issuer},
      {"sub", claims.subject},
      {"aud", nlohmann::json::array({claims.audience})},
      {"iat", iat},
      {"exp", iat + std::chrono::duration_cast<std::chrono::seconds>(lifetime).count()}};
  const std::string signing_input =
      Base64Encode(R"({"alg":"HS256","typ":"JWT"})", Base64Encoding::kRawUrl) + "." +
      Base64Encode(payload.dump(), Base64Encoding::kRawUrl);
  return signing_input + "." +
         Base64Encode(Hmac(std::string(key), signing_input), Base64Encoding::kRawUrl);
}

StatusOr<WebIdentityClaims> SigV4Verifier::VerifyWebIdentityToken(std::string_view token,
                                                                  TimePoint now) const {
  // STS's texts.
  const Status not_jwt = InvalidArgumentError(
      "InvalidIdentityToken: The ID Token provided is not a valid JWT. (You may see this error "
      "if you sent an Access Token)");
  const std::vector<std::string> parts = SplitString(token, '.');
  if (parts.size() != 3) return not_jwt;
  StatusOr<std::string> payload_text = Base64Decode(parts[1], Base64Encoding::kRawUrl);
  if (!payload_text.ok()) return not_jwt;
  const nlohmann::json payload = nlohmann::json::parse(*payload_text, nullptr, false);
  if (!payload.is_object()) return not_jwt;
  const std::string expected =
      Base64Encode(Hmac(web_identity_key_, parts[0] + "." + parts[1]), Base64Encoding::kRawUrl);
  if (web_identity_key_.empty() || !SameSignature(expected, parts[2])) {
    return InvalidArgumentError(
        "InvalidIdentityToken: Couldn't verify the token's signature with the OpenID Connect "
        "provider's keys");
  }
  WebIdentityClaims claims;
  claims.issuer = payload.value("iss", std::string());
  claims.subject = payload.value("sub", std::string());
  bool sts = false;
  const nlohmann::json aud = payload.value("aud", nlohmann::json());
  for (const auto& a : aud.is_array() ? aud : nlohmann::json::array({aud})) {
    sts = sts || (a.is_string() && a.get<std::string>() == claims.audience);
  }
  if (!sts) return InvalidArgumentError("InvalidIdentityToken: Incorrect token audience");
  const nlohmann::json exp = payload.value("exp", nlohmann::json());
  if (!exp.is_number_integer() || UnixSeconds(now) >= exp.get<int64_t>()) {
    return InvalidArgumentError("ExpiredTokenException: Token expired: current date/time " +
                                FormatRfc3339(now) + " must be before the expiration date/time");
  }
  return claims;
}

}  // namespace tidepool::cloud::aws
