// File: google_error_test.cc
#include "cloud/gke/live/google_error.h"

#include <gtest/gtest.h>

namespace tidepool::cloud::gke::live {
namespace {

TEST(GoogleApiErrorTest, CodesAndTexts) {
  struct Case {
    std::string name;
    int http;
    std::string body;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"container 404", 404,
       R"({"error":{"code":404,"message":"Not found: projects/p/locations/z/clusters/c/nodePools/x.","status":"NOT_FOUND"}})",
       StatusCode::kNotFound,
       "googleapi: Error 404: Not found: projects/p/locations/z/clusters/c/nodePools/x."},
      {"compute 404 with its reason", 404,
       R"({"error":{"code":404,"message":"The resource 'projects/p/zones/z/instanceGroupManagers/x' was not found","errors":[{"message":"The resource 'projects/p/zones/z/instanceGroupManagers/x' was not found","domain":"global","reason":"notFound"}]}})",
       StatusCode::kNotFound,
       "googleapi: Error 404: The resource 'projects/p/zones/z/instanceGroupManagers/x' was not "
       "found, notFound"},
      {"429 is ResourceExhausted", 429,
       R"({"error":{"code":429,"message":"Rate exceeded.","status":"RESOURCE_EXHAUSTED"}})",
       StatusCode::kResourceExhausted, "googleapi: Error 429: Rate exceeded."},
      {"500 is Unavailable whatever its status", 500,
       R"({"error":{"code":500,"message":"Internal error","status":"INTERNAL"}})",
       StatusCode::kUnavailable, "googleapi: Error 500: Internal error"},
      {"502 without JSON", 502, "<html>Bad Gateway</html>", StatusCode::kUnavailable,
       "googleapi: got HTTP response code 502 with body: <html>Bad Gateway</html>"},
      {"403 rate limit reason", 403,
       R"({"error":{"code":403,"message":"Rate Limit Exceeded","errors":[{"message":"Rate Limit Exceeded","domain":"usageLimits","reason":"rateLimitExceeded"}]}})",
       StatusCode::kResourceExhausted, "googleapi: Error 403: Rate Limit Exceeded, rateLimitExceeded"},
      {"403 by status name", 403,
       R"({"error":{"code":403,"message":"Insufficient quota","status":"RESOURCE_EXHAUSTED"}})",
       StatusCode::kResourceExhausted, "googleapi: Error 403: Insufficient quota"},
      {"403 permission", 403, R"({"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}})",
       StatusCode::kPermissionDenied, "googleapi: Error 403: denied"},
      {"400 failed precondition", 400,
       R"({"error":{"code":400,"message":"Cluster is running incompatible operation","status":"FAILED_PRECONDITION"}})",
       StatusCode::kFailedPrecondition,
       "googleapi: Error 400: Cluster is running incompatible operation"},
      {"401 without status", 401, R"({"error":{"code":401,"message":"Request had invalid authentication credentials."}})",
       StatusCode::kUnauthenticated,
       "googleapi: Error 401: Request had invalid authentication credentials."},
      {"409 conflict", 409, R"({"error":{"code":409,"message":"conflict"}})", StatusCode::kAborted,
       "googleapi: Error 409: conflict"},
      {"501", 501, R"({"error":{"code":501,"message":"nope","status":"UNIMPLEMENTED"}})",
       StatusCode::kUnimplemented, "googleapi: Error 501: nope"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = GoogleApiError(c.http, c.body);
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_EQ(s.message(), c.message);
  }
}

}  // namespace
}  // namespace tidepool::cloud::gke::live
