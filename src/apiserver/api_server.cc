#include "apiserver/api_server.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "apiserver/authn/user.h"
#include "apiserver/crd/registry.h"
#include "apiserver/discovery.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/health.h"
#include "apiserver/http/compression.h"
#include "apiserver/openapi_v2.h"

namespace tidepool::apiserver {

using handlers::ApiError;
using handlers::MethodNotAllowed;
using handlers::SendError;
using handlers::SendJson;
using http::HttpRequest;
using http::ResponseWriter;
using nlohmann::json;

namespace {

// A ResponseWriter that adds `extra` headers to every complete response, whatever the handler
// answers (a warning about the whole request, such as a deprecated version's).
class ExtraHeadersWriter final : public http::ForwardingWriter {
 public:
  ExtraHeadersWriter(ResponseWriter& w, handlers::HeaderList extra)
      : ForwardingWriter(w), extra_(std::move(extra)) {}
  void Send(int status, std::string_view content_type, std::string body,
            const handlers::HeaderList& headers) override {
    w_.Send(status, content_type, std::move(body), With(headers));
  }
  void SendView(int status, std::string_view content_type, std::string_view body,
                const handlers::HeaderList& headers) override {
    w_.SendView(status, content_type, body, With(headers));
  }

 private:
  handlers::HeaderList With(const handlers::HeaderList& headers) const {
    handlers::HeaderList all = headers;
    for (const auto& h : extra_) {
      if (std::find(all.begin(), all.end(), h) == all.end()) all.push_back(h);
    }
    return all;
  }
  const handlers::HeaderList extra_;
};

ApiError NotFoundPath(std::string_view path) {
  (void)path;
  return {404, "NotFound", "the server could not find the requested resource",
          json{{"causes", json::array({{{"reason", "UnexpectedServerResponse"},
                                        {"message", "404 page not found"}}})}}};
}

std::vector<std::string> Split(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    if (i >= path.size()) break;
    const size_t j = path.find('/', i);
    out.emplace_back(path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j;
  }
  return out;
}

}  // namespace

ApiServer::ApiServer(const Clock& clock, ObjectStore& store, PodLogs& logs,
                     ApiServerOptions options)
    : clock_(clock),
      store_(store),
      logs_(logs),
      crds_(std::make_unique<crd::Registry>(store)),
      options_(std::move(options)),
      tokens_(std::make_unique<authn::ServiceAccountTokens>(options_.service_account_issuer)),
      bearer_([this](std::string_view token) { return AuthenticateToken(token); }) {}

StatusOr<std::optional<authn::UserInfo>> ApiServer::AuthenticateToken(
    std::string_view token) const {
  StatusOr<std::optional<authn::TokenClaims>> verified = tokens_->Verify(token, clock_.Now());
  if (!verified.ok()) return verified.status();
  if (!verified->has_value()) return std::optional<authn::UserInfo>();
  const authn::TokenClaims* claims = &**verified;
  const Status invalidated(StatusCode::kUnauthenticated, "token has been invalidated");
  const auto& auds = claims->audiences;
  if (std::find(auds.begin(), auds.end(), tokens_->issuer()) == auds.end()) {
    return Status(StatusCode::kUnauthenticated,
                  "token audiences is invalid for the target audiences");
  }
  // The account, and the object the token is bound to, still there with the same uid.
  // The account, and the objects the token is bound to, still there with the same uid and not
  // deleted over a minute ago (kube's validator lets a terminating pod's token work through
  // its grace period).
  const TimePoint deleted_before = clock_.Now() - std::chrono::seconds(60);
  auto alive = [&](const char* resource, const std::string& ns, const authn::TokenClaims::Ref& r) {
    auto o = store_.Get(*FindResource("", "v1", resource), ns, r.name);
    if (!o.ok()) return false;
    const json v = (*o)->Parse();
    const StatusOr<TimePoint> deleted = ParseRfc3339(Str(v, "metadata", "deletionTimestamp"));
    return Str(v, "metadata", "uid") == r.uid && !(deleted.ok() && *deleted < deleted_before);
  };
  if (!alive("serviceaccounts", claims->ns, claims->service_account)) return invalidated;
  if (claims->pod && !alive("pods", claims->ns, *claims->pod)) return invalidated;
  if (claims->secret && !alive("secrets", claims->ns, *claims->secret)) return invalidated;
  // A node-bound token (not a pod's, whose node is informational): the node too.
  if (!claims->pod && claims->node && !alive("nodes", "", *claims->node)) return invalidated;
  authn::UserInfo user;
  user.username = "system:serviceaccount:" + claims->ns + ":" + claims->service_account.name;
  user.uid = claims->service_account.uid;
  user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + claims->ns,
                 "system:authenticated"};
  if (!claims->jti.empty()) {
    user.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + claims->jti};
  }
  if (claims->node) {
    user.extra["authentication.kubernetes.io/node-name"] = {claims->node->name};
    user.extra["authentication.kubernetes.io/node-uid"] = {claims->node->uid};
  }
  if (claims->pod) {
    user.extra["authentication.kubernetes.io/pod-name"] = {claims->pod->name};
    user.extra["authentication.kubernetes.io/pod-uid"] = {claims->pod->uid};
  }
  return std::optional<authn::UserInfo>(std::move(user));
}

ApiServer::~ApiServer() = default;

void ApiServer::Handle(const HttpRequest& req, ResponseWriter& w) {
  requests_.fetch_add(1);
  if (http::WantsGzip(req.Header("accept-encoding"))) {
    http::CompressingWriter compressing(w);
    return Route(req, compressing);
  }
  Route(req, w);
}

void ApiServer::Route(const HttpRequest& req, ResponseWriter& w) {
  const std::string& path = req.path;
  // kube's impersonation filter, before any handler: groups, a uid or extras without a user.
  // ... and kube's authentication: a service account's token this server issued that is no
  // longer valid is a 401.
  // Worked out once: the handlers read it from the Request (an update's admission runs under
  // the store's lock, where authenticating a token, which reads the store, may not).
  StatusOr<authn::UserInfo> user = authn::RequestUser(req, &bearer_);
  if (!user.ok()) {
    if (user.status().code() == StatusCode::kUnauthenticated) {
      SendError(w, {401, "Unauthorized", "Unauthorized", json()});
      return;
    }
    SendError(w, {400, "BadRequest", std::string(user.status().message()), json()});
    return;
  }
  if (path == "/version" || path == "/version/") {
    SendJson(w, 200, VersionInfo());
    return;
  }
  if (ServeHealth(req, w)) return;
  const bool aggregated =
      req.Header("accept").find("as=APIGroupDiscoveryList") != std::string::npos;
  if (path == "/api" || path == "/api/") {
    if (aggregated) {
      w.Send(200, kAggregatedDiscoveryType,
             AggregatedDiscovery(true, {}).dump(-1, ' ', false, json::error_handler_t::replace));
    } else {
      SendJson(w, 200, LegacyApiVersions(options_.server_address));
    }
    return;
  }
  if (path == "/apis" || path == "/apis/") {
    if (aggregated) {
      w.Send(200, kAggregatedDiscoveryType,
             AggregatedDiscovery(false, crds_->Served())
                 .dump(-1, ' ', false, json::error_handler_t::replace));
    } else {
      SendJson(w, 200, LegacyApiGroupList(crds_->Served()));
    }
    return;
  }
  if (path == "/openapi/v2") {
    if (!ServeOpenApiV2(req, w, crds_->Served())) SendError(w, NotFoundPath(path));
    return;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    SendJson(w, 200, OpenApiV3Root(crds_->Served()));
    return;
  }
  if (path.rfind("/openapi/v3/", 0) == 0) {
    if (auto doc = OpenApiV3Document(std::string_view(path).substr(12), crds_->Served())) {
      SendJson(w, 200, *doc);
    } else {
      SendError(w, NotFoundPath(path));
    }
    return;
  }
  const std::vector<std::string> seg = Split(path);
  Request r;
  r.http = &req;
  r.user = *std::move(user);
  size_t rest = 0;
  std::string group, version;
  if (seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1") {
    version = "v1";
    rest = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    rest = 3;
  } else if (seg.size() == 2 && seg[0] == "apis") {
    if (auto g = LegacyApiGroup(seg[1], crds_->Served())) {
      SendJson(w, 200, *g);
    } else {
      SendError(w, NotFoundPath(path));
    }
    return;
  } else {
    SendError(w, NotFoundPath(path));
    return;
  }
  if (seg.size() == rest) {
    if (req.method != "GET") {
      SendError(w, MethodNotAllowed(req.method));
      return;
    }
    if (auto list =
            ApiResourceList(group.empty() ? version : group + "/" + version, crds_->Served())) {
      w.Send(200, handlers::kJson,
             list->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    } else {
      SendError(w, NotFoundPath(path));
    }
    return;
  }
  std::vector<std::string> rs(seg.begin() + static_cast<long>(rest), seg.end());
  if (rs.size() >= 3 && rs[0] == "namespaces" && rs[2] != "status" && rs[2] != "finalize") {
    r.ns = rs[1];
    rs.erase(rs.begin(), rs.begin() + 2);
  }
  r.resource = FindResource(group, version, rs[0]);
  if (r.resource == nullptr) r.resource = crds_->Find(group, version, rs[0]);
  if (r.resource == nullptr || rs.size() > 3) {
    SendError(w, NotFoundPath(path));
    return;
  }
  if (rs.size() >= 2) r.name = rs[1];
  if (rs.size() == 3) {
    r.subresource = rs[2];
    bool known = false;
    for (const Subresource& s : r.resource->subresources) known |= s.name == r.subresource;
    if (!known) {
      SendError(w, NotFoundPath(path));
      return;
    }
  }
  if (!r.resource->namespaced && !r.ns.empty()) {
    SendError(w, NotFoundPath(path));
    return;
  }
  // apiextensions: every request to a deprecated version of a custom resource is warned.
  if (r.resource->custom != nullptr && r.resource->custom->deprecation_warning.has_value()) {
    ExtraHeadersWriter warned(
        w, {{"Warning", handlers::WarningHeader(*r.resource->custom->deprecation_warning)}});
    return HandleResource(r, warned);
  }
  HandleResource(r, w);
}

// ---- Routing to the handlers (handlers/handler.h) ---------------------------------------------

void ApiServer::HandleResource(Request& r, ResponseWriter& w) {
  if (r.resource == &crd::DefinitionResource()) crds_->Sync();
  handlers::Context c(clock_, store_, logs_, *crds_, options_, r, w);
  c.tokens = tokens_.get();
  c.bearer = &bearer_;
  const std::string& method = c.method;
  if (handlers::IsReviewResource(*r.resource)) return handlers::HandleReview(c);
  if (handlers::IsMetricsResource(*r.resource)) return handlers::HandleMetrics(c);
  if (handlers::IsComponentStatusResource(*r.resource)) return handlers::HandleComponentStatuses(c);
  if (r.subresource == "log") return handlers::HandleLog(c);
  if (r.subresource == "eviction") return handlers::HandleEviction(c);
  if (r.subresource == "binding") return handlers::HandleBinding(c);
  if (r.subresource == "scale") return handlers::HandleScale(c);
  if (r.subresource == "finalize") return handlers::HandleFinalize(c);
  if (r.subresource == "token") return handlers::HandleTokenRequest(c);
  if (r.name.empty()) {
    if (method == "GET") {
      return handlers::QueryBool(*r.http, "watch") ? handlers::HandleWatch(c)
                                                   : handlers::HandleList(c);
    }
    if (method == "POST") return handlers::HandleCreate(c);
    if (method == "DELETE") return handlers::HandleDeleteCollection(c);
    return SendError(w, MethodNotAllowed(method));
  }
  if (method == "GET") return handlers::HandleGet(c);
  if (method == "DELETE") return handlers::HandleDelete(c);
  if (method == "PUT" || method == "PATCH") return handlers::HandleUpdatePatch(c);
  SendError(w, MethodNotAllowed(method));
}

}  // namespace tidepool::apiserver
