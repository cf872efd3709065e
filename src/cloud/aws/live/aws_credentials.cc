// File: aws_credentials.cc
#include "cloud/aws/live/aws_credentials.h"

#include <nlohmann/json.hpp>

#include "api/codec/json_fields.h"
#include "cloud/aws/live/aws_client.h"
#include "cloud/aws/live/aws_xml.h"
#include "common/private_file.h"
#include "common/strings.h"

namespace tidepool::cloud::aws::live {
namespace {

using api::codec::JsonStr;
using client::http::HttpRequest;
using client::http::HttpResponse;
using client::http::HttpTransport;

constexpr Duration kCallTimeout = std::chrono::seconds(10);

StatusOr<HttpResponse> Call(const HttpTransport& http, HttpRequest req) {
  req.timeout = kCallTimeout;
  TIDEPOOL_ASSIGN_OR_RETURN(HttpResponse resp, http.Do(req));
  if (resp.status >= 300) return AwsErrorStatus(resp);
  return resp;
}

class StaticSource final : public CredentialSource {
 public:
  explicit StaticSource(AwsStaticKeys k) : keys_(std::move(k)) {}
  StatusOr<AwsCredentials> Get() override {
    return AwsCredentials{keys_.access_key_id, keys_.secret_access_key, keys_.session_token,
                          std::nullopt, "static"};
  }

 private:
  const AwsStaticKeys keys_;
};

// Caches temporary credentials until kCredentialExpiryWindow before they expire.
class RefreshingSource : public CredentialSource {
 protected:
  // A temporary credential's Expiration; without a readable one, 15 minutes from now (fetched
  // again after 10), never "forever".
  TimePoint ExpirationOf(std::string_view text) const {
    StatusOr<TimePoint> t = ParseRfc3339(text);
    return t.ok() ? *t : clock_.Now() + std::chrono::minutes(15);
  }

 public:
  explicit RefreshingSource(const Clock& clock) : clock_(clock) {}
  StatusOr<AwsCredentials> Get() final {
    std::lock_guard<std::mutex> lock(mu_);
    const TimePoint now = clock_.Now();
    if (cached_ && (!cached_->expiration || now + kCredentialExpiryWindow < *cached_->expiration)) {
      return *cached_;
    }
    TIDEPOOL_ASSIGN_OR_RETURN(AwsCredentials fresh, Fetch());
    cached_ = fresh;
    return fresh;
  }

 protected:
  virtual StatusOr<AwsCredentials> Fetch() = 0;

 private:
  const Clock& clock_;
  std::mutex mu_;
  std::optional<AwsCredentials> cached_;
};

class WebIdentitySource final : public RefreshingSource {
 public:
  WebIdentitySource(AwsWebIdentity identity, std::string sts_endpoint, const HttpTransport& http,
                    const Clock& clock,
                    std::function<StatusOr<std::string>(const std::string&)> read_file)
      : RefreshingSource(clock),
        identity_(std::move(identity)),
        endpoint_(std::move(sts_endpoint)),
        http_(http),
        clock_(clock),
        read_file_(std::move(read_file)) {}

 private:
  StatusOr<AwsCredentials> Fetch() override {
    StatusOr<std::string> token =
        read_file_ ? read_file_(identity_.token_file) : ReadFile(identity_.token_file);
    if (!token.ok()) {
      return Status(token.status().code(), "WebIdentityErr: failed fetching WebIdentity token: " +
                                               std::string(token.status().message()));
    }
    // The Go SDK's default session name is the time in nanoseconds.
    const std::string session =
        !identity_.session_name.empty()
            ? identity_.session_name
            : std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 clock_.Now().time_since_epoch())
                                 .count());
    HttpRequest req;
    req.method = "POST";
    req.url = endpoint_ + "/";
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
    req.body = "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" +
               client::http::UrlEncode(identity_.role_arn) +
               "&RoleSessionName=" + client::http::UrlEncode(session) +
               "&WebIdentityToken=" + client::http::UrlEncode(TrimSpace(*token));
    TIDEPOOL_ASSIGN_OR_RETURN(HttpResponse resp, Call(http_, std::move(req)));
    TIDEPOOL_ASSIGN_OR_RETURN(XmlNode xml, ParseXml(resp.body));
    const XmlNode* c = xml.Find({"AssumeRoleWithWebIdentityResult", "Credentials"});
    if (c == nullptr || c->Text({"AccessKeyId"}).empty()) {
      return UnavailableError("WebIdentityErr: STS answered without credentials");
    }
    return AwsCredentials{c->Text({"AccessKeyId"}), c->Text({"SecretAccessKey"}),
                          c->Text({"SessionToken"}), ExpirationOf(c->Text({"Expiration"})),
                          "web identity"};
  }

  const AwsWebIdentity identity_;
  const std::string endpoint_;
  const HttpTransport& http_;
  const Clock& clock_;
  const std::function<StatusOr<std::string>(const std::string&)> read_file_;
};

// IMDSv2's session token.
StatusOr<std::string> ImdsToken(const std::string& endpoint, const HttpTransport& http) {
  HttpRequest req;
  req.method = "PUT";
  req.url = endpoint + "/latest/api/token";
  req.headers = {{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}};
  TIDEPOOL_ASSIGN_OR_RETURN(HttpResponse resp, Call(http, std::move(req)));
  return TrimSpace(resp.body);
}

StatusOr<std::string> ImdsGet(const std::string& endpoint, const std::string& token,
                              const std::string& path, const HttpTransport& http) {
  HttpRequest req;
  req.url = endpoint + path;
  req.headers = {{"X-aws-ec2-metadata-token", token}};
  TIDEPOOL_ASSIGN_OR_RETURN(HttpResponse resp, Call(http, std::move(req)));
  return TrimSpace(resp.body);
}

class ImdsSource final : public RefreshingSource {
 public:
  ImdsSource(std::string endpoint, const HttpTransport& http, const Clock& clock)
      : RefreshingSource(clock), endpoint_(std::move(endpoint)), http_(http) {}

 private:
  StatusOr<AwsCredentials> Fetch() override {
    const std::string base = "/latest/meta-data/iam/security-credentials/";
    TIDEPOOL_ASSIGN_OR_RETURN(std::string token, ImdsToken(endpoint_, http_));
    TIDEPOOL_ASSIGN_OR_RETURN(std::string roles, ImdsGet(endpoint_, token, base, http_));
    const std::string role = roles.substr(0, roles.find('\n'));
    if (role.empty()) return UnavailableError("EC2RoleRequestError: no EC2 instance role found");
    TIDEPOOL_ASSIGN_OR_RETURN(std::string body, ImdsGet(endpoint_, token, base + role, http_));
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (JsonStr(j, "Code") != "Success" || JsonStr(j, "AccessKeyId").empty()) {
      return UnavailableError("EC2RoleRequestError: failed to get " + role +
                              " EC2 instance role credentials");
    }
    return AwsCredentials{JsonStr(j, "AccessKeyId"), JsonStr(j, "SecretAccessKey"),
                          JsonStr(j, "Token"), ExpirationOf(JsonStr(j, "Expiration")), "imds"};
  }

  const std::string endpoint_;
  const HttpTransport& http_;
};

}  // namespace

StatusOr<CredentialSourcePtr> DefaultCredentialSource(
    const AwsSettings& settings, const HttpTransport& http, const Clock& clock,
    std::function<StatusOr<std::string>(const std::string&)> read_file) {
  if (settings.static_keys) return CredentialSourcePtr(new StaticSource(*settings.static_keys));
  if (settings.web_identity) {
    return CredentialSourcePtr(new WebIdentitySource(*settings.web_identity,
                                                     settings.EndpointFor(AwsService::kSts), http,
                                                     clock, std::move(read_file)));
  }
  if (!settings.imds_disabled) {
    return CredentialSourcePtr(new ImdsSource(settings.imds_endpoint, http, clock));
  }
  return FailedPreconditionError("NoCredentialProviders: no valid providers in chain");
}

StatusOr<std::string> ImdsRegion(const AwsSettings& settings, const HttpTransport& http) {
  if (settings.imds_disabled) {
    return FailedPreconditionError("MissingRegion: could not find region configuration");
  }
  TIDEPOOL_ASSIGN_OR_RETURN(std::string token, ImdsToken(settings.imds_endpoint, http));
  return ImdsGet(settings.imds_endpoint, token, "/latest/meta-data/placement/region", http);
}

}  // namespace tidepool::cloud::aws::live
