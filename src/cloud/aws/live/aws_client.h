// File: aws_client.h
//
// AwsClient: the signed calls `tidepool autoscale --cloud-provider aws` makes, over client/http's
// libcurl client. Signing is libcurl's own AWS Signature Version 4 (CURLOPT_AWS_SIGV4, through
// HttpRequest::aws_sigv4); temporary credentials add X-Amz-Security-Token. Two protocols:
//   - Query (Auto Scaling 2011-01-01, EC2 2016-11-15, STS 2011-06-15): POST / with the form
//     Action=...&Version=...&<params>, answered with XML (aws_xml.h);
//   - REST-JSON (EKS): a method and path, answered with JSON (returned as text).
// Endpoints and the signing region come from AwsSettings.
//
// Errors are values, in the Go SDK's (v1, what CA 1.31 links) awserr text, which CA logs:
// "<Code>: <Message>\n\tstatus code: <N>, request id: <id>"; the code picks the Status code:
// throttling (Throttling, ThrottlingException, RequestLimitExceeded, TooManyRequestsException,
// RequestThrottled, SlowDown, PriorRequestNotComplete, or HTTP 429) ResourceExhausted, 5xx
// Unavailable, 404 / *NotFound* NotFound, 401/403 PermissionDenied, other 4xx
// InvalidArgument / FailedPrecondition.
//
// Retries as the Go SDK's DefaultRetryer (3 retries, 4 attempts): throttling, 5xx and transport
// failures are retried after a jittered exponential back-off — throttling from 500 ms,
// everything else from 30 ms, doubling, capped at 300 s — waited through the injected `sleep`
// (which returns false to give up at shutdown). Other errors are returned at once.
//
// Threading: thread-safe (no mutable state but the credential source's, which is).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "client/http/http_client.h"
#include "cloud/aws/live/aws_credentials.h"
#include "cloud/aws/live/aws_settings.h"
#include "cloud/aws/live/aws_xml.h"
#include "common/random.h"
#include "common/status_or.h"

namespace tidepool::cloud::aws::live {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// An error answer (status >= 300) as a Status, from the XML (<Error><Code/><Message/>, either
// shape) or JSON ({"__type"|x-amzn-ErrorType, "message"|"Message"}) body.
Status AwsErrorStatus(const client::http::HttpResponse& response);

// Whether an error is one the retryer retries (throttling, 5xx, transport).
bool IsRetryable(const Status& status);

struct AwsClientOptions {
  int max_retries = 3;
  Duration timeout = std::chrono::seconds(60);  // each attempt
  // Waits between attempts; false: stop (the last error is returned). Required.
  std::function<bool(Duration)> sleep;
  uint64_t seed = 1;  // the back-off's jitter
};

class AwsClient {
 public:
  // `settings`' region and endpoints are used as given. `http` and `credentials` must outlive
  // the client.
  AwsClient(AwsSettings settings, const client::http::HttpTransport& http,
            CredentialSource& credentials, AwsClientOptions options);

  // One Query action; the answer's root element.
  StatusOr<XmlNode> Query(AwsService service, const std::string& action, const QueryParams& params);
  // One EKS call: `path` ("/clusters/C/node-groups/N") with its query, JSON `body` for writes.
  StatusOr<std::string> Eks(const std::string& method, const std::string& path,
                            const std::string& body = "");

  const AwsSettings& settings() const { return settings_; }

 private:
  StatusOr<client::http::HttpResponse> Send(AwsService service, client::http::HttpRequest req);
  Duration Backoff(int retry, bool throttled);

  const AwsSettings settings_;
  const client::http::HttpTransport& http_;
  CredentialSource& credentials_;
  const AwsClientOptions options_;
  std::mutex random_mu_;
  Random random_;
};

// The API version of a Query service ("2011-01-01" for Auto Scaling).
std::string_view QueryVersion(AwsService service);

}  // namespace tidepool::cloud::aws::live
