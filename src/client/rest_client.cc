#include "client/rest_client.h"

#include <cctype>
#include <cstdio>
#include <ctime>

#include "apiserver/json_io.h"

namespace tidepool::client {
namespace {

using nlohmann::json;

bool Is2xx(int code) { return code >= 200 && code < 300; }

// client-go's reasonForError / newUnstructuredResponseError: the reason of a status code when
// the body is not a metav1.Status.
std::string ReasonForCode(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return code >= 500 ? "InternalError" : "Unknown";
  }
}

// client-go's messages for bodies that are not a Status (errors.NewGenericServerResponse).
std::string MessageForCode(int code) {
  switch (code) {
    case 401: return "Unauthorized";
    case 403: return "forbidden";
    case 404: return "the server could not find the requested resource";
    case 409: return "the server reported a conflict";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 500: return "an error on the server has prevented the request from succeeding";
    case 503: return "the server is currently unable to handle the request";
    case 504: return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default:
      return "the server responded with the status code " + std::to_string(code) +
             " but did not return more information";
  }
}

std::optional<Duration> ParseRetryAfter(const std::string& v) {
  if (v.empty()) return std::nullopt;
  for (char c : v) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return std::chrono::seconds(std::atoll(v.c_str()));
}

// The JSON of a response body or a watch event line: the API server's parser (Boost.JSON's,
// into the same trees nlohmann builds), null when the text is not JSON.
json ParseOrNull(std::string_view text, bool drop_managed_fields = false) {
  StatusOr<json> j = drop_managed_fields ? apiserver::json_io::ParseWithoutManagedFields(text)
                                         : apiserver::json_io::Parse(text);
  return j.ok() ? std::move(*j) : json(nullptr);
}

RestResult DecodeResponse(http::HttpResponse&& resp, bool decode_body = true) {
  RestResult out;
  out.http_status = resp.status;
  out.retry_after = ParseRetryAfter(resp.Header("retry-after"));
  if (!decode_body && Is2xx(resp.status)) {
    out.headers = std::move(resp.headers);
    return out;
  }
  if (!resp.body.empty()) {
    out.body = ParseOrNull(resp.body);
  }
  out.headers = std::move(resp.headers);
  if (Is2xx(resp.status)) {
    if (out.body.is_null() && !resp.body.empty()) {
      out.status = InternalError("decoding the response body: not JSON");
    }
    return out;
  }
  std::string message;
  int code = resp.status;
  if (out.body.is_object() && out.body.value("kind", "") == "Status") {
    out.reason = out.body.value("reason", "");
    message = out.body.value("message", "");
    if (out.body.contains("code") && out.body["code"].is_number_integer()) code = out.body["code"].get<int>();
  }
  if (out.reason.empty()) out.reason = ReasonForCode(resp.status);
  if (message.empty()) message = MessageForCode(resp.status);
  // Prefer the Status' code for the mapping when it disagrees (client-go trusts the body).
  out.status = Status(StatusCodeForHttp(code, out.reason), message);
  return out;
}

void AppendQuery(std::string* url, const std::vector<std::pair<std::string, std::string>>& query) {
  char sep = url->find('?') == std::string::npos ? '?' : '&';
  for (const auto& [k, v] : query) {
    *url += sep;
    *url += http::UrlEncode(k);
    *url += '=';
    *url += http::UrlEncode(v);
    sep = '&';
  }
}

std::vector<std::pair<std::string, std::string>> ListQuery(const ListOptions& o) {
  std::vector<std::pair<std::string, std::string>> q;
  if (!o.label_selector.empty()) q.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) q.emplace_back("fieldSelector", o.field_selector);
  if (o.limit > 0) q.emplace_back("limit", std::to_string(o.limit));
  if (!o.continue_token.empty()) q.emplace_back("continue", o.continue_token);
  if (!o.resource_version.empty()) q.emplace_back("resourceVersion", o.resource_version);
  if (!o.resource_version_match.empty()) q.emplace_back("resourceVersionMatch", o.resource_version_match);
  return q;
}


}  // namespace

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kStrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::kJsonPatch: return "application/json-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

StatusOr<json> RestResult::ToStatusOr() && {
  if (!status.ok()) return std::move(status);
  return std::move(body);
}

StatusCode StatusCodeForHttp(int http_status, std::string_view reason) {
  if (Is2xx(http_status)) return StatusCode::kOk;
  switch (http_status) {
    case 400: return StatusCode::kInvalidArgument;
    case 401: return StatusCode::kUnauthenticated;
    case 403: return StatusCode::kPermissionDenied;
    case 404: return StatusCode::kNotFound;
    case 405: return StatusCode::kUnimplemented;
    case 406:
    case 413:
    case 415:
    case 422: return StatusCode::kInvalidArgument;
    case 409: return reason == "AlreadyExists" ? StatusCode::kAlreadyExists : StatusCode::kAborted;
    case 410: return StatusCode::kOutOfRange;
    case 429: return StatusCode::kResourceExhausted;
    case 504: return StatusCode::kDeadlineExceeded;
    default: break;
  }
  if (http_status >= 500) return StatusCode::kUnavailable;
  if (http_status == 0) return StatusCode::kUnavailable;
  return StatusCode::kUnknown;
}

RestClient::RestClient(RestConfig config, const Clock& clock, RestClientOptions options)
    : config_(std::move(config)), clock_(clock), options_(std::move(options)) {
  user_agent_ = !options_.user_agent.empty() ? options_.user_agent
                : !config_.user_agent.empty() ? config_.user_agent
                                              : DefaultUserAgent();
  auth_ = std::make_unique<Authenticator>(config_, clock_);
  http::HttpClientOptions hopts;
  hopts.tls.ca_pem = config_.ca_pem;
  hopts.tls.insecure_skip_verify = config_.insecure_skip_tls_verify;
  hopts.tls.client_cert_pem = config_.client_cert_pem;
  hopts.tls.client_key_pem = config_.client_key_pem;
  hopts.connect_timeout = options_.connect_timeout;
  if (options_.transport != nullptr) {
    http_ = options_.transport;
  } else {
    owned_http_ = std::make_unique<http::HttpClient>(std::move(hopts));
    http_ = owned_http_.get();
  }
}

RestClient::~RestClient() = default;

http::HttpRequest RestClient::BuildRequest(const RestRequest& req, const Credentials& creds) const {
  http::HttpRequest h;
  h.method = req.method;
  h.url = config_.host + req.path;
  AppendQuery(&h.url, req.query);
  h.headers.emplace_back("Accept", "application/json");
  h.headers.emplace_back("User-Agent", user_agent_);
  if (!creds.authorization.empty()) h.headers.emplace_back("Authorization", creds.authorization);
  if (!req.body.is_null()) {
    h.headers.emplace_back("Content-Type", req.content_type);
    h.body = req.body.dump();
  }
  h.timeout = req.timeout > Duration::zero() ? req.timeout : config_.timeout;
  h.client_cert_and_key = creds.client_cert_and_key;
  h.cancel = req.cancel;
  return h;
}

RestResult RestClient::Do(const RestRequest& req) const {
  for (int attempt = 0;; ++attempt) {
    auto creds = auth_->Get();
    if (!creds.ok()) {
      RestResult r;
      r.status = creds.status();
      return r;
    }
    auto resp = http_->Do(BuildRequest(req, *creds));
    if (!resp.ok()) {
      RestResult r;
      r.status = resp.status();
      return r;
    }
    if (resp->status == 401 && attempt == 0 && auth_->Refreshable()) {
      auth_->Invalidate(*creds);
      continue;
    }
    return DecodeResponse(std::move(resp).value(), req.decode_body);
  }
}

StatusOr<json> RestClient::Get(const std::string& path) const { return GetResult(path).ToStatusOr(); }
StatusOr<json> RestClient::List(const std::string& path, const ListOptions& options) const {
  return ListResult(path, options).ToStatusOr();
}
StatusOr<json> RestClient::Create(const std::string& collection_path, const json& object) const {
  return CreateResult(collection_path, object).ToStatusOr();
}
StatusOr<json> RestClient::Update(const std::string& path, const json& object) const {
  return UpdateResult(path, object).ToStatusOr();
}
StatusOr<json> RestClient::Patch(const std::string& path, PatchType type, const json& patch) const {
  return PatchResult(path, type, patch).ToStatusOr();
}
StatusOr<json> RestClient::Delete(const std::string& path, const json& delete_options) const {
  return DeleteResult(path, delete_options).ToStatusOr();
}

RestResult RestClient::GetResult(const std::string& path) const {
  RestRequest r;
  r.path = path;
  return Do(r);
}

RestResult RestClient::ListResult(const std::string& path, const ListOptions& options) const {
  RestRequest r;
  r.path = path;
  r.query = ListQuery(options);
  return Do(r);
}

namespace {

RestRequest WriteRequest(std::string method, const std::string& path, const json& body) {
  RestRequest r;
  r.method = std::move(method);
  r.path = path;
  r.body = body;
  return r;
}

RestRequest PatchRequest(const std::string& path, PatchType type, const json& patch) {
  RestRequest r = WriteRequest("PATCH", path, patch);
  r.content_type = std::string(PatchContentType(type));
  return r;
}

// `r` with its 2xx answer left undecoded.
RestRequest Unread(RestRequest r) {
  r.decode_body = false;
  return r;
}

}  // namespace

RestResult RestClient::CreateResult(const std::string& collection_path, const json& object) const {
  return Do(WriteRequest("POST", collection_path, object));
}

Status RestClient::CreateUnread(const std::string& collection_path, const json& object) const {
  return Do(Unread(WriteRequest("POST", collection_path, object))).status;
}

RestResult RestClient::UpdateResult(const std::string& path, const json& object) const {
  return Do(WriteRequest("PUT", path, object));
}

Status RestClient::UpdateUnread(const std::string& path, const json& object) const {
  return Do(Unread(WriteRequest("PUT", path, object))).status;
}

RestResult RestClient::PatchResult(const std::string& path, PatchType type,
                                   const json& patch) const {
  return Do(PatchRequest(path, type, patch));
}

Status RestClient::PatchUnread(const std::string& path, PatchType type, const json& patch) const {
  return Do(Unread(PatchRequest(path, type, patch))).status;
}

RestResult RestClient::DeleteResult(const std::string& path, const json& delete_options) const {
  RestRequest r;
  r.method = "DELETE";
  r.path = path;
  r.body = delete_options;
  return Do(r);
}

RestResult RestClient::Watch(const std::string& collection_path, const WatchOptions& options,
                             const WatchHandler& handler, const std::atomic<bool>* cancel) const {
  RestRequest req;
  req.path = collection_path;
  req.query.emplace_back("watch", "1");
  if (!options.label_selector.empty()) req.query.emplace_back("labelSelector", options.label_selector);
  if (!options.field_selector.empty()) req.query.emplace_back("fieldSelector", options.field_selector);
  if (!options.resource_version.empty()) req.query.emplace_back("resourceVersion", options.resource_version);
  if (options.allow_bookmarks) req.query.emplace_back("allowWatchBookmarks", "true");
  if (options.timeout_seconds > 0) req.query.emplace_back("timeoutSeconds", std::to_string(options.timeout_seconds));

  for (int attempt = 0;; ++attempt) {
    auto creds = auth_->Get();
    if (!creds.ok()) {
      RestResult r;
      r.status = creds.status();
      return r;
    }
    http::HttpRequest h = BuildRequest(req, *creds);
    h.timeout = Duration::zero();  // a watch lasts as long as the server keeps it
    h.cancel = cancel;
    http::LineSplitter splitter;
    Status decode_error;
    auto on_chunk = [&](std::string_view chunk) {
      return splitter.Feed(chunk, [&](std::string_view line) {
        if (line.empty()) return true;
        json ev = ParseOrNull(line, options.drop_managed_fields);
        if (!ev.is_object() || !ev.contains("type") || !ev["type"].is_string()) {
          decode_error = InternalError("unable to decode an event from the watch stream: " +
                                       std::string(line.substr(0, 200)));
          return false;
        }
        WatchEvent e;
        e.type = ev["type"].get<std::string>();
        if (ev.contains("object")) e.object = std::move(ev["object"]);
        return handler(std::move(e));
      });
    };
    auto resp = http_->Stream(h, on_chunk);
    if (!resp.ok()) {
      RestResult r;
      r.status = resp.status();
      return r;
    }
    if (resp->status == 401 && attempt == 0 && auth_->Refreshable()) {
      auth_->Invalidate(*creds);
      continue;
    }
    RestResult r = DecodeResponse(std::move(resp).value());
    if (r.ok()) {
      r.body = nullptr;
      if (!decode_error.ok()) r.status = decode_error;
    }
    return r;
  }
}

std::string ResourcePath(std::string_view group, std::string_view version, std::string_view resource,
                         std::string_view ns, std::string_view name, std::string_view subresource) {
  std::string p = group.empty() ? "/api/" + std::string(version)
                                : "/apis/" + std::string(group) + "/" + std::string(version);
  if (!ns.empty()) p += "/namespaces/" + std::string(ns);
  p += "/" + std::string(resource);
  if (!name.empty()) p += "/" + std::string(name);
  if (!subresource.empty()) p += "/" + std::string(subresource);
  return p;
}

std::string FormatMicroTime(TimePoint t) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  int64_t secs = us / 1000000;
  int64_t frac = us % 1000000;
  if (frac < 0) {
    frac += 1000000;
    secs -= 1;
  }
  const time_t tt = static_cast<time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(frac));
  return buf;
}


}  // namespace tidepool::client
