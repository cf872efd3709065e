// File: aws_client.cc
#include "cloud/aws/live/aws_client.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tidepool::cloud::aws::live {
namespace {

using client::http::HttpRequest;
using client::http::HttpResponse;

bool IsThrottleCode(std::string_view code) {
  static constexpr std::string_view kCodes[] = {"Throttling",
                                                "ThrottlingException",
                                                "ThrottledException",
                                                "RequestThrottledException",
                                                "TooManyRequestsException",
                                                "ProvisionedThroughputExceededException",
                                                "TransactionInProgressException",
                                                "RequestLimitExceeded",
                                                "BandwidthLimitExceeded",
                                                "LimitExceededException",
                                                "RequestThrottled",
                                                "SlowDown",
                                                "PriorRequestNotComplete",
                                                "EC2ThrottledException"};
  return std::find(std::begin(kCodes), std::end(kCodes), code) != std::end(kCodes);
}

// EKS's x-amzn-ErrorType is "Code:http://internal.amazon.com/..." at times.
std::string CodeOnly(std::string code) {
  if (size_t colon = code.find(':'); colon != std::string::npos) code.resize(colon);
  return code;
}

StatusCode CodeFor(int status, std::string_view code) {
  if (status == 429 || IsThrottleCode(code)) return StatusCode::kResourceExhausted;
  if (status == 501) return StatusCode::kUnimplemented;  // not retried, as the Go SDK's retryer
  if (status >= 500) return StatusCode::kUnavailable;
  if (status == 404 || code.find("NotFound") != std::string_view::npos) {
    return StatusCode::kNotFound;
  }
  if (status == 401 || status == 403) return StatusCode::kPermissionDenied;
  if (status == 409 || code == "ResourceInUse" || code == "ScalingActivityInProgress") {
    return StatusCode::kFailedPrecondition;
  }
  return StatusCode::kInvalidArgument;
}

}  // namespace

std::string_view QueryVersion(AwsService service) {
  switch (service) {
    case AwsService::kAutoScaling:
      return "2011-01-01";
    case AwsService::kEc2:
      return "2016-11-15";
    case AwsService::kSts:
      return "2011-06-15";
    case AwsService::kEks:
      return "";
  }
  return "";
}

Status AwsErrorStatus(const HttpResponse& response) {
  std::string code, message;
  std::string request_id = response.Header("x-amzn-requestid");
  const std::string_view body = response.body;
  const size_t start = body.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && body[start] == '<') {
    StatusOr<XmlNode> xml = ParseXml(body);
    if (xml.ok()) {
      // Query: ErrorResponse/Error; EC2: Response/Errors/Error.
      const XmlNode* error = xml->Child("Error");
      if (error == nullptr) error = xml->Find({"Errors", "Error"});
      if (error != nullptr) {
        code = error->Text({"Code"});
        message = error->Text({"Message"});
      }
      if (std::string id = xml->Text({"RequestId"}); !id.empty()) request_id = id;
      if (std::string id = xml->Text({"RequestID"}); !id.empty()) request_id = id;
    }
  } else {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object()) {
      for (const char* key : {"message", "Message"}) {
        if (j.contains(key) && j[key].is_string()) message = j[key].get<std::string>();
      }
      if (j.contains("__type") && j["__type"].is_string()) code = j["__type"].get<std::string>();
    }
    if (std::string t = response.Header("x-amzn-errortype"); !t.empty()) code = t;
    code = CodeOnly(code);
    if (size_t hash = code.rfind('#'); hash != std::string::npos) code = code.substr(hash + 1);
  }
  if (code.empty()) code = response.status == 429 ? "Throttling" : "SerializationError";
  if (message.empty()) message = "HTTP " + std::to_string(response.status);
  return Status(CodeFor(response.status, code),
                code + ": " + message + "\n\tstatus code: " + std::to_string(response.status) +
                    ", request id: " + request_id);
}

bool IsRetryable(const Status& status) {
  return status.code() == StatusCode::kResourceExhausted ||
         status.code() == StatusCode::kUnavailable ||
         status.code() == StatusCode::kDeadlineExceeded;
}

AwsClient::AwsClient(AwsSettings settings, const client::http::HttpTransport& http,
                     CredentialSource& credentials, AwsClientOptions options)
    : settings_(std::move(settings)),
      http_(http),
      credentials_(credentials),
      options_(std::move(options)),
      random_(options_.seed) {}

Duration AwsClient::Backoff(int retry, bool throttled) {
  // The Go SDK's DefaultRetryer: a random delay in [0, 2^retry) units of the minimum, at least
  // the minimum, at most 300 s.
  const Duration min = throttled ? std::chrono::milliseconds(500) : std::chrono::milliseconds(30);
  const int64_t units = int64_t{1} << std::min(retry, 13);
  uint64_t draw;
  {
    std::lock_guard<std::mutex> lock(random_mu_);
    draw = random_.Uniform(static_cast<uint64_t>(units));
  }
  Duration d = min * static_cast<int64_t>(draw) + min;
  return std::min<Duration>(d, std::chrono::seconds(300));
}

StatusOr<HttpResponse> AwsClient::Send(AwsService service, HttpRequest req) {
  for (int attempt = 0;; ++attempt) {
    TIDEPOOL_ASSIGN_OR_RETURN(AwsCredentials creds, credentials_.Get());
    HttpRequest signed_req = req;
    signed_req.timeout = options_.timeout;
    signed_req.aws_sigv4 = HttpRequest::AwsSigV4{settings_.SigningRegionFor(service),
                                                 std::string(SigningName(service)),
                                                 creds.access_key_id, creds.secret_access_key};
    if (!creds.session_token.empty()) {
      signed_req.headers.emplace_back("X-Amz-Security-Token", creds.session_token);
    }
    StatusOr<HttpResponse> resp = http_.Do(signed_req);
    Status failure = resp.ok() ? OkStatus() : resp.status();
    if (resp.ok()) {
      if (resp->status < 300) return resp;
      failure = AwsErrorStatus(*resp);
    }
    if (!IsRetryable(failure) || attempt >= options_.max_retries ||
        !options_.sleep(Backoff(attempt, failure.code() == StatusCode::kResourceExhausted))) {
      return failure;
    }
  }
}

StatusOr<XmlNode> AwsClient::Query(AwsService service, const std::string& action,
                                   const QueryParams& params) {
  std::string form = "Action=" + client::http::UrlEncode(action) +
                     "&Version=" + std::string(QueryVersion(service));
  for (const auto& [k, v] : params) {
    form += "&" + client::http::UrlEncode(k) + "=" + client::http::UrlEncode(v);
  }
  HttpRequest req;
  req.method = "POST";
  req.url = settings_.EndpointFor(service) + "/";
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
  req.body = std::move(form);
  TIDEPOOL_ASSIGN_OR_RETURN(HttpResponse resp, Send(service, std::move(req)));
  StatusOr<XmlNode> xml = ParseXml(resp.body);
  if (!xml.ok()) {
    return UnavailableError("SerializationError: failed decoding Query response (" + action +
                            "): " + std::string(xml.status().message()));
  }
  return xml;
}

StatusOr<std::string> AwsClient::Eks(const std::string& method, const std::string& path,
                                     const std::string& body) {
  HttpRequest req;
  req.method = method;
  req.url = settings_.EndpointFor(AwsService::kEks) + path;
  if (!body.empty()) req.headers = {{"Content-Type", "application/json"}};
  req.body = body;
  TIDEPOOL_ASSIGN_OR_RETURN(HttpResponse resp, Send(AwsService::kEks, std::move(req)));
  return std::move(resp.body);
}

}  // namespace tidepool::cloud::aws::live
