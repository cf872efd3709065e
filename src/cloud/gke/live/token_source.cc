// File: token_source.cc
#include "cloud/gke/live/token_source.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cloud/gke/live/google_error.h"

namespace tidepool::cloud::gke::live {

using json = nlohmann::json;

namespace {

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Trim(std::string s) {
  const char* ws = " \t\r\n";
  s.erase(0, s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

bool Valid(const std::optional<CachedToken>& t, TimePoint now) {
  return t.has_value() && now + kTokenExpiryDelta < t->expiry;
}

}  // namespace

StatusOr<CachedToken> ParseTokenReply(const HttpReply& reply, TimePoint now) {
  const json j = json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (reply.status == 429 || reply.status >= 500) return GoogleApiError(reply.status, reply.body);
  if (reply.status != 200) {
    // OAuth 2.0 error reply (RFC 6749 §5.2): {"error": "invalid_grant", "error_description": ...}
    if (!j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_string()) {
      std::string msg = "oauth2: cannot fetch token: " + std::to_string(reply.status) +
                        " Response: " + reply.body;
      return Status(reply.status == 401 || reply.status == 400 ? StatusCode::kUnauthenticated
                                                               : StatusCode::kPermissionDenied,
                    msg);
    }
    return GoogleApiError(reply.status, reply.body);
  }
  if (j.is_discarded() || !j.is_object() || !j.contains("access_token") ||
      !j["access_token"].is_string() || j["access_token"].get<std::string>().empty()) {
    return InternalError("oauth2: server response missing access_token");
  }
  CachedToken t;
  t.value = j["access_token"].get<std::string>();
  int64_t expires_in = 3600;
  if (j.contains("expires_in")) {
    if (j["expires_in"].is_number_integer()) {
      expires_in = j["expires_in"].get<int64_t>();
    } else if (j["expires_in"].is_string()) {
      expires_in = std::atoll(j["expires_in"].get<std::string>().c_str());
    }
  }
  t.expiry = now + std::chrono::seconds(expires_in);
  return t;
}

StatusOr<std::string> FileTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  std::error_code ec;
  const auto mtime = std::filesystem::last_write_time(path_, ec);
  if (ec) return NotFoundError("token file " + path_ + ": " + ec.message());
  const uintmax_t size = std::filesystem::file_size(path_, ec);
  if (ec) return NotFoundError("token file " + path_ + ": " + ec.message());
  const std::pair<int64_t, uintmax_t> stamp{mtime.time_since_epoch().count(), size};
  if (!stamp_.has_value() || *stamp_ != stamp) {
    TIDEPOOL_ASSIGN_OR_RETURN(std::string content, ReadFile(path_));
    content = Trim(std::move(content));
    if (content.empty()) return InvalidArgumentError("token file " + path_ + " is empty");
    token_ = std::move(content);
    stamp_ = stamp;
  }
  return token_;
}

MetadataTokenSource::MetadataTokenSource(Transport& transport, const Clock& clock,
                                         std::string host, std::string account)
    : transport_(transport),
      clock_(clock),
      url_([&] {
        if (host.empty()) {
          const char* env = std::getenv("GCE_METADATA_HOST");
          host = env != nullptr && *env != '\0' ? env : "metadata.google.internal";
        }
        return "http://" + host + "/computeMetadata/v1/instance/service-accounts/" + account +
               "/token";
      }()) {}

StatusOr<std::string> MetadataTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = clock_.Now();
  if (Valid(cached_, now)) return cached_->value;
  HttpCall call{"GET", url_, {{"Metadata-Flavor", "Google"}}, ""};
  TIDEPOOL_ASSIGN_OR_RETURN(HttpReply reply, transport_.Do(call));
  TIDEPOOL_ASSIGN_OR_RETURN(CachedToken t, ParseTokenReply(reply, now));
  cached_ = t;
  return t.value;
}

StatusOr<std::unique_ptr<ServiceAccountTokenSource>> ServiceAccountTokenSource::Create(
    std::string_view key_json, Transport& transport, const Clock& clock, std::string scope) {
  TIDEPOOL_ASSIGN_OR_RETURN(ServiceAccountKey key, ParseServiceAccountKey(key_json));
  // Fail now, not at the first call, on a key that does not sign.
  TIDEPOOL_RETURN_IF_ERROR(SignRs256(key.private_key, "probe").status());
  return std::unique_ptr<ServiceAccountTokenSource>(
      new ServiceAccountTokenSource(std::move(key), transport, clock, std::move(scope)));
}

ServiceAccountTokenSource::ServiceAccountTokenSource(ServiceAccountKey key, Transport& transport,
                                                     const Clock& clock, std::string scope)
    : key_(std::move(key)), transport_(transport), clock_(clock), scope_(std::move(scope)) {}

StatusOr<std::string> ServiceAccountTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = clock_.Now();
  if (Valid(cached_, now)) return cached_->value;
  TIDEPOOL_ASSIGN_OR_RETURN(std::string jwt, ServiceAccountJwt(key_, scope_, now));
  HttpCall call{"POST",
                key_.token_uri,
                {{"Content-Type", "application/x-www-form-urlencoded"}},
                "grant_type=" + UrlEncode("urn:ietf:params:oauth:grant-type:jwt-bearer") +
                    "&assertion=" + UrlEncode(jwt)};
  TIDEPOOL_ASSIGN_OR_RETURN(HttpReply reply, transport_.Do(call));
  TIDEPOOL_ASSIGN_OR_RETURN(CachedToken t, ParseTokenReply(reply, now));
  cached_ = t;
  return t.value;
}

StatusOr<TokenSourcePtr> DefaultTokenSource(const std::string& token_file,
                                            const std::string& key_file, Transport& transport,
                                            const Clock& clock) {
  if (!token_file.empty()) return TokenSourcePtr(std::make_unique<FileTokenSource>(token_file));
  std::string key_path = key_file;
  if (key_path.empty()) {
    const char* env = std::getenv("GOOGLE_APPLICATION_CREDENTIALS");
    if (env != nullptr) key_path = env;
  }
  if (!key_path.empty()) {
    TIDEPOOL_ASSIGN_OR_RETURN(std::string text, ReadFile(key_path));
    TIDEPOOL_ASSIGN_OR_RETURN(auto source,
                              ServiceAccountTokenSource::Create(text, transport, clock));
    return TokenSourcePtr(std::move(source));
  }
  return TokenSourcePtr(std::make_unique<MetadataTokenSource>(transport, clock));
}

}  // namespace tidepool::cloud::gke::live
