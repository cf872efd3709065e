// File: google_error.cc
#include "cloud/gke/live/google_error.h"

#include <nlohmann/json.hpp>

namespace tidepool::cloud::gke::live {

using json = nlohmann::json;

StatusCode CodeFromRpcName(std::string_view name) {
  for (int c = 0; c <= static_cast<int>(StatusCode::kUnauthenticated); ++c) {
    if (StatusCodeName(static_cast<StatusCode>(c)) == name) return static_cast<StatusCode>(c);
  }
  return StatusCode::kUnknown;
}

Status GoogleApiError(int http_status, std::string_view body) {
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message;
  std::string rpc_status;
  std::string reason;
  bool structured = false;
  if (!j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_object()) {
    const json& e = j["error"];
    structured = true;
    if (e.contains("message") && e["message"].is_string()) message = e["message"];
    if (e.contains("status") && e["status"].is_string()) rpc_status = e["status"];
    if (e.contains("errors") && e["errors"].is_array() && !e["errors"].empty() &&
        e["errors"][0].is_object()) {
      reason = e["errors"][0].value("reason", "");
      const std::string first = e["errors"][0].value("message", "");
      message = "googleapi: Error " + std::to_string(http_status) + ": " + message;
      if (e["errors"].size() == 1 && first == std::string(e.value("message", "")) &&
          !reason.empty()) {
        message += ", " + reason;
      }
    } else {
      message = "googleapi: Error " + std::to_string(http_status) + ": " + message;
    }
  }
  if (!structured) {
    message = "googleapi: got HTTP response code " + std::to_string(http_status) +
              " with body: " + std::string(body);
  }
  StatusCode code = StatusCode::kUnknown;
  if (http_status == 429) {
    code = StatusCode::kResourceExhausted;
  } else if (http_status >= 500 && http_status != 501) {
    code = StatusCode::kUnavailable;
  } else if (!rpc_status.empty() && CodeFromRpcName(rpc_status) != StatusCode::kUnknown) {
    code = CodeFromRpcName(rpc_status);
  } else {
    switch (http_status) {
      case 400: code = StatusCode::kInvalidArgument; break;
      case 401: code = StatusCode::kUnauthenticated; break;
      case 403:
        code = (reason == "quotaExceeded" || reason == "rateLimitExceeded" ||
                reason == "userRateLimitExceeded")
                   ? StatusCode::kResourceExhausted
                   : StatusCode::kPermissionDenied;
        break;
      case 404: code = StatusCode::kNotFound; break;
      case 409: code = StatusCode::kAborted; break;
      case 412: code = StatusCode::kFailedPrecondition; break;
      case 501: code = StatusCode::kUnimplemented; break;
      default: code = StatusCode::kUnknown; break;
    }
  }
  return Status(code, message);
}

}  // namespace tidepool::cloud::gke::live
