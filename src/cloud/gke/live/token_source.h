// File: token_source.h
//
// OAuth 2.0 access tokens for Google APIs (the "Authorization: Bearer <token>" of every call the
// live GKE provider makes), from one of:
//   - a token file: its content (whitespace trimmed) is the token, re-read when the file's
//     modification time or size changes (for a sidecar that refreshes it);
//   - the GCE metadata server (on GKE with Workload Identity or the node's service account):
//     GET http://<host>/computeMetadata/v1/instance/service-accounts/<account>/token with
//     "Metadata-Flavor: Google"; host metadata.google.internal, or the GCE_METADATA_HOST
//     environment variable as Google's client libraries read it
//     (cloud.google.com/go/compute/metadata);
//   - a service-account JSON key: a signed JWT (jwt.h) exchanged at the key's token_uri with
//     grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer.
// Tokens from the metadata server and the key are cached until 10 s before they expire
// (golang.org/x/oauth2's expiryDelta), by the injected Clock; a reply without expires_in is
// kept for an hour.
//
// Errors: the token endpoint's error reply ({"error": "...", "error_description": "..."}) or a
// transport failure as a Status; 429/5xx are Unavailable/ResourceExhausted (google_error.h).
//
// Threading: Token() is thread-safe for every implementation here (one mutex each); a refresh
// holds the mutex during its HTTP call.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cloud/gke/live/jwt.h"
#include "cloud/gke/live/transport.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::cloud::gke::live {

inline constexpr std::string_view kCloudPlatformScope =
    "https://www.googleapis.com/auth/cloud-platform";
inline constexpr Duration kTokenExpiryDelta = std::chrono::seconds(10);

class TokenSource {
 public:
  virtual ~TokenSource() = default;
  TokenSource() = default;
  TokenSource(const TokenSource&) = delete;
  TokenSource& operator=(const TokenSource&) = delete;

  // A valid access token (without "Bearer "). Thread-safe.
  virtual StatusOr<std::string> Token() = 0;
};

using TokenSourcePtr = std::unique_ptr<TokenSource>;

// Always the same token (tests, and `--token` style flags).
class StaticTokenSource final : public TokenSource {
 public:
  explicit StaticTokenSource(std::string token) : token_(std::move(token)) {}
  StatusOr<std::string> Token() override { return token_; }

 private:
  const std::string token_;
};

class FileTokenSource final : public TokenSource {
 public:
  explicit FileTokenSource(std::string path) : path_(std::move(path)) {}
  // NotFound if the file cannot be read; InvalidArgument if it is empty.
  StatusOr<std::string> Token() override;

 private:
  const std::string path_;
  std::mutex mu_;
  // The file's (mtime, size) when last read, and what it held.
  std::optional<std::pair<int64_t, uintmax_t>> stamp_;
  std::string token_;
};

// A token and when it stops being valid.
struct CachedToken {
  std::string value;
  TimePoint expiry{};
};

class MetadataTokenSource final : public TokenSource {
 public:
  // `host` empty: GCE_METADATA_HOST, else "metadata.google.internal". `transport` and `clock`
  // must outlive this.
  MetadataTokenSource(Transport& transport, const Clock& clock, std::string host = "",
                      std::string account = "default");
  StatusOr<std::string> Token() override;
  // The URL it asks (for logs and tests).
  std::string url() const { return url_; }

 private:
  Transport& transport_;
  const Clock& clock_;
  const std::string url_;
  std::mutex mu_;
  std::optional<CachedToken> cached_;
};

class ServiceAccountTokenSource final : public TokenSource {
 public:
  // Parses and checks the key (ParseServiceAccountKey). `transport` and `clock` must outlive it.
  static StatusOr<std::unique_ptr<ServiceAccountTokenSource>> Create(
      std::string_view key_json, Transport& transport, const Clock& clock,
      std::string scope = std::string(kCloudPlatformScope));
  StatusOr<std::string> Token() override;
  const ServiceAccountKey& key() const { return key_; }

 private:
  ServiceAccountTokenSource(ServiceAccountKey key, Transport& transport, const Clock& clock,
                            std::string scope);
  const ServiceAccountKey key_;
  Transport& transport_;
  const Clock& clock_;
  const std::string scope_;
  std::mutex mu_;
  std::optional<CachedToken> cached_;
};

// Parses an OAuth token endpoint reply ({"access_token", "expires_in", "token_type"}) received
// at `now`. Errors as the file comment says.
StatusOr<CachedToken> ParseTokenReply(const HttpReply& reply, TimePoint now);

// The usual choice: a token file if `token_file` is set, else the key file `key_file` (or the
// GOOGLE_APPLICATION_CREDENTIALS environment variable's) if set, else the metadata server.
StatusOr<TokenSourcePtr> DefaultTokenSource(const std::string& token_file,
                                            const std::string& key_file, Transport& transport,
                                            const Clock& clock);

}  // namespace tidepool::cloud::gke::live
