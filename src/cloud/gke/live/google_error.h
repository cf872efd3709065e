// File: google_error.h
//
// Google API error replies as Status values, so the engine's backoff and fallback see the
// cloud's own words. Bodies are google.rpc-style JSON ({"error":{"code","message","status",
// "errors":[{"reason",...}]}}); the message follows the Go client's googleapi.Error.Error()
// (google.golang.org/api/googleapi): "googleapi: Error 429: <message>, <reason>", the reason
// only when the one error item repeats the message; a body that is not such JSON gives
// "googleapi: got HTTP response code 502 with body: <body>".
//
// Codes: 429 ResourceExhausted and every 5xx but 501 Unavailable (both retried by the
// engine's backoff), whatever the body says; otherwise the body's google.rpc status name when
// it has one (RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ...), else by HTTP status (400
// InvalidArgument, 401 Unauthenticated, 403 PermissionDenied, or ResourceExhausted when the
// reason is quotaExceeded / rateLimitExceeded / userRateLimitExceeded, 404 NotFound, 409
// Aborted, 412 FailedPrecondition, 501 Unimplemented).
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace tidepool::cloud::gke::live {

// REQUIRES: http_status >= 300 (anything else is treated as a 5xx-less unknown error).
Status GoogleApiError(int http_status, std::string_view body);

// The canonical code for a google.rpc.Code name ("NOT_FOUND"); kUnknown if unknown.
StatusCode CodeFromRpcName(std::string_view name);

}  // namespace tidepool::cloud::gke::live
