// File: aws_credentials.h
//
// AWS credentials for `tidepool autoscale --cloud-provider aws`, from the first source that
// applies, in the AWS SDKs' default chain order:
//   1. static keys (the environment's, else the shared files' profile: aws_settings.h);
//   2. web identity (IRSA on EKS): the token file's content exchanged at STS with
//      AssumeRoleWithWebIdentity (an unsigned Query POST: RoleArn, RoleSessionName,
//      WebIdentityToken, DurationSeconds omitted); the file is re-read at each exchange (the
//      kubelet rotates it);
//   3. the EC2 instance metadata service, IMDSv2 only: PUT /latest/api/token with
//      X-aws-ec2-metadata-token-ttl-seconds: 21600, then with X-aws-ec2-metadata-token
//      GET /latest/meta-data/iam/security-credentials/ (the role) and
//      GET .../security-credentials/<role> (JSON: Code, AccessKeyId, SecretAccessKey, Token,
//      Expiration).
// Temporary credentials are cached until 5 minutes before their Expiration (by the injected
// Clock) and fetched again then.
//
// Errors: STS's and IMDS's answers as Status (aws_client.h's AwsErrorStatus); no source at all
// is FailedPrecondition "NoCredentialProviders: no valid providers in chain" (the Go SDK's
// text), said when the chain is built, not at the first call.
//
// Threading: Get() is thread-safe (one mutex; a refresh holds it during its HTTP calls).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "client/http/http_client.h"
#include "cloud/aws/live/aws_settings.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::cloud::aws::live {

inline constexpr Duration kCredentialExpiryWindow = std::chrono::minutes(5);

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;            // empty: none
  std::optional<TimePoint> expiration;  // nullopt: never
  std::string source;                   // "static", "web identity", "imds"
};

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // Valid credentials (fetched or refreshed as needed). Thread-safe.
  virtual StatusOr<AwsCredentials> Get() = 0;
};
using CredentialSourcePtr = std::unique_ptr<CredentialSource>;

// The source the chain picks for `settings`. `http` and `clock` must outlive it; `read_file`
// reads the web identity token (empty function: the file system).
StatusOr<CredentialSourcePtr> DefaultCredentialSource(
    const AwsSettings& settings, const client::http::HttpTransport& http, const Clock& clock,
    std::function<StatusOr<std::string>(const std::string&)> read_file = {});

// The region of the instance this runs on, from IMDSv2
// (GET /latest/meta-data/placement/region); for a region that nothing configured.
StatusOr<std::string> ImdsRegion(const AwsSettings& settings,
                                 const client::http::HttpTransport& http);

}  // namespace tidepool::cloud::aws::live
