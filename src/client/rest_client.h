// File: rest_client.h
//
// RestClient: JSON calls on Kubernetes API paths, as client-go's rest.RESTClient / dynamic
// client use them (v0.32): get, list, create (POST), update (PUT), patch (merge, strategic
// merge, JSON patch), delete, and watch. Paths are absolute API paths: core
// "/api/v1/namespaces/default/pods/p", groups "/apis/coordination.k8s.io/v1/...";
// ResourcePath() builds them. Every request sends `Accept: application/json`, a User-Agent
// ("tidepool-autoscaler/<version>") and the Authenticator's credentials; a 401 invalidates
// refreshable credentials (exec plugin, token file) and the request is sent once more with
// fresh ones (client-go only refreshes for the next request; a 401 means nothing was done, so
// one retry is safe).
//
// Errors: a non-2xx answer is decoded from its metav1.Status and mapped to a Status code, the
// server's `message` kept verbatim:
//   400 BadRequest -> InvalidArgument        404 NotFound -> NotFound
//   401 Unauthorized -> Unauthenticated      409 AlreadyExists -> AlreadyExists
//   403 Forbidden -> PermissionDenied        409 Conflict (and other 409s) -> Aborted
//   405 MethodNotAllowed -> Unimplemented    410 Gone / Expired -> OutOfRange (the apiserver's own
//   415 UnsupportedMediaType -> InvalidArgument  mapping of "too old resource version")
//   422 Invalid -> InvalidArgument           429 TooManyRequests -> ResourceExhausted
//   504 Timeout -> DeadlineExceeded          other 5xx -> Unavailable
//   a transport failure -> Unavailable (http_status 0).
// Callers that need the HTTP status, the reason ("Conflict", "Expired", ...) or Retry-After use
// Do()/the *Result calls, which return a RestResult; the StatusOr conveniences drop them.
//
// Thread-safe: one RestClient serves all threads (informers, leader election, writes).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/auth.h"
#include "client/config.h"
#include "client/http/http_client.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::client {

enum class PatchType {
  kMerge,           // application/merge-patch+json (RFC 7386)
  kStrategicMerge,  // application/strategic-merge-patch+json
  kJsonPatch,       // application/json-patch+json (RFC 6902)
  kApply,           // application/apply-patch+yaml (server-side apply; JSON is YAML)
};
std::string_view PatchContentType(PatchType type);

// One call, as sent. `query` is appended in order, each value percent-encoded.
struct RestRequest {
  std::string method = "GET";
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  // Sent when not null (as `content_type`).
  nlohmann::json body;
  std::string content_type = "application/json";
  // Zero: the config's timeout (none by default).
  Duration timeout = Duration::zero();
  // When non-null, setting it from any thread aborts the call (Cancelled).
  const std::atomic<bool>* cancel = nullptr;
  // false: a 2xx answer's body is not decoded (RestResult::body stays null), for writes whose
  // answer the caller never reads (events). Error answers are always decoded.
  bool decode_body = true;
};

// What a call got back.
struct RestResult {
  // The HTTP status; 0 when no answer arrived (transport failure, cancel).
  int http_status = 0;
  // metav1.Status reason of an error answer ("NotFound", "Conflict", "AlreadyExists",
  // "Expired", "Gone", "Invalid", "TooManyRequests", ...); derived from the HTTP status when
  // the body is not a Status (as client-go's newUnstructuredResponseError does). Empty on 2xx.
  std::string reason;
  // OK for 2xx; otherwise the mapped error (see the file comment) with the server's message.
  Status status;
  // The decoded body: the object on 2xx, the metav1.Status on errors; null when empty or not JSON.
  nlohmann::json body;
  // Retry-After of a 429/503 (client-go honours it), or nullopt.
  std::optional<Duration> retry_after;
  // Response headers, lower-case names.
  std::map<std::string, std::string> headers;

  bool ok() const { return status.ok(); }
  // The body, or the status when not ok.
  StatusOr<nlohmann::json> ToStatusOr() &&;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  // 0: no limit. client-go's pager asks 500.
  int64_t limit = 0;
  std::string continue_token;
  // Empty: a consistent (quorum) read; "0": any cached state.
  std::string resource_version;
  std::string resource_version_match;  // "NotOlderThan" / "Exact", or empty
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  bool allow_bookmarks = true;
  // Server-side timeout (timeoutSeconds); 0: none.
  int64_t timeout_seconds = 0;
  // Each event object's metadata.managedFields is skipped while the event is decoded, never
  // built (apiserver/json_io.h's ParseWithoutManagedFields), for a consumer that never reads
  // them (InformerOptions::drop_managed_fields).
  bool drop_managed_fields = false;
};

// One decoded watch event. `type` is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (then `object`
// is a metav1.Status).
struct WatchEvent {
  std::string type;
  nlohmann::json object;
};
// Returns false to end the watch.
using WatchHandler = std::function<bool(WatchEvent&& event)>;

struct RestClientOptions {
  // Overrides the config's user agent when set.
  std::string user_agent;
  // Transport tuning (the TLS part comes from the config).
  Duration connect_timeout = std::chrono::seconds(30);
  // When set, requests go through it instead of a socket (an API server in the same process,
  // cluster/in_process_transport.h); it must outlive the client. The config's host still
  // prefixes every URL.
  const http::HttpTransport* transport = nullptr;
};

class RestClient {
 public:
  // `clock` must outlive the client (credential expiry).
  RestClient(RestConfig config, const Clock& clock, RestClientOptions options = {});
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  const RestConfig& config() const { return config_; }

  // Sends one request and decodes the answer. Never fails otherwise: errors are in the result.
  RestResult Do(const RestRequest& req) const;

  // Conveniences (StatusOr of the decoded body).
  StatusOr<nlohmann::json> Get(const std::string& path) const;
  StatusOr<nlohmann::json> List(const std::string& path, const ListOptions& options = {}) const;
  StatusOr<nlohmann::json> Create(const std::string& collection_path, const nlohmann::json& object) const;
  StatusOr<nlohmann::json> Update(const std::string& path, const nlohmann::json& object) const;
  StatusOr<nlohmann::json> Patch(const std::string& path, PatchType type, const nlohmann::json& patch) const;
  // `delete_options` is a meta/v1 DeleteOptions body (e.g. gracePeriodSeconds), or null.
  StatusOr<nlohmann::json> Delete(const std::string& path,
                                  const nlohmann::json& delete_options = nullptr) const;

  // The same, with the full RestResult (HTTP status, reason, Retry-After).
  RestResult GetResult(const std::string& path) const;
  RestResult ListResult(const std::string& path, const ListOptions& options) const;
  RestResult CreateResult(const std::string& collection_path, const nlohmann::json& object) const;
  RestResult UpdateResult(const std::string& path, const nlohmann::json& object) const;
  RestResult PatchResult(const std::string& path, PatchType type, const nlohmann::json& patch) const;
  // Writes whose answer the caller never reads: a 2xx body is not decoded (RestRequest's
  // decode_body), so only its status comes back (a status write that keeps nothing); a 2xx
  // whose body is not JSON is OK here.
  Status CreateUnread(const std::string& collection_path, const nlohmann::json& object) const;
  Status UpdateUnread(const std::string& path, const nlohmann::json& object) const;
  Status PatchUnread(const std::string& path, PatchType type, const nlohmann::json& patch) const;
  RestResult DeleteResult(const std::string& path, const nlohmann::json& delete_options = nullptr) const;

  // GET `collection_path`?watch=1&resourceVersion=..&allowWatchBookmarks=true&timeoutSeconds=N,
  // decoding one event per line and handing it to `handler` on the calling thread. Returns when
  // the server ends the stream (OK: the caller re-watches from its last resourceVersion), when
  // `handler` returns false (OK), when `cancel` is set (Cancelled), or on error (the answer's
  // RestResult: e.g. 410 Expired when the server refuses the resourceVersion up front). A
  // line that is not JSON ends the watch with InternalError. ERROR events are delivered as
  // events (the server sends a 410 that way too).
  RestResult Watch(const std::string& collection_path, const WatchOptions& options,
                   const WatchHandler& handler, const std::atomic<bool>* cancel = nullptr) const;

  // The authenticator (tests: exec runs).
  Authenticator& authenticator() const { return *auth_; }

 private:
  http::HttpRequest BuildRequest(const RestRequest& req, const Credentials& creds) const;

  const RestConfig config_;
  const Clock& clock_;
  const RestClientOptions options_;
  std::string user_agent_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<http::HttpClient> owned_http_;
  const http::HttpTransport* http_ = nullptr;
};
using RestClientPtr = std::unique_ptr<RestClient>;

// "/api/v1/namespaces/<ns>/pods/<name>/<subresource>" for group "" (core),
// "/apis/<group>/<version>/..." otherwise; empty `ns` means cluster-wide (or cluster-scoped),
// empty `name` the collection.
std::string ResourcePath(std::string_view group, std::string_view version,
                         std::string_view resource, std::string_view ns = "",
                         std::string_view name = "", std::string_view subresource = "");

// Maps an HTTP status and metav1.Status reason to a Status code (see the file comment).
StatusCode StatusCodeForHttp(int http_status, std::string_view reason);

// metav1.MicroTime text: RFC 3339 in UTC with six fractional digits,
// "2026-11-29T22:50:22.123456Z".
std::string FormatMicroTime(TimePoint t);
// RFC 3339 parsing is common/clock.h's.
using ::tidepool::ParseRfc3339;

}  // namespace tidepool::client
