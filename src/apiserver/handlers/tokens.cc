// serviceaccounts/token: TokenRequest, as kube-apiserver 1.32's token REST
// (pkg/registry/core/serviceaccount/storage/token.go) answers it.
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr int64_t kMinExpirationSeconds = 10 * 60;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;

const Resource& Core(const char* resource) { return *FindResource("", "v1", resource); }

// ValidateTokenRequest.
api::FieldErrors ValidateSpec(const json& spec) {
  api::FieldErrors errors;
  const json* e = Member(spec, "expirationSeconds");
  if (e != nullptr && e->is_number_integer()) {
    const int64_t s = e->get<int64_t>();
    if (s < kMinExpirationSeconds) {
      errors.push_back(
          api::FieldError::InvalidRaw("spec.expirationSeconds", std::to_string(s),
                                      "may not specify a duration less than 10 minutes"));
    } else if (s > kMaxExpirationSeconds) {
      errors.push_back(
          api::FieldError::InvalidRaw("spec.expirationSeconds", std::to_string(s),
                                      "may not specify a duration larger than 2^32 seconds"));
    }
  }
  return errors;
}

ApiError TokenInvalid(const std::string& name, const api::FieldErrors& errors) {
  static const Resource kTokenRequest = [] {
    Resource r;
    r.group = "authentication.k8s.io";
    r.version = "v1";
    r.resource = "tokenrequests";
    r.kind = "TokenRequest";
    return r;
  }();
  return Invalid(kTokenRequest, name, errors);
}

// The bound object's claims (the pod's node too), or the error kube answers.
std::optional<ApiError> Bind(Context& c, const json& ref, const std::string& account,
                             authn::TokenClaims* claims) {
  const std::string kind = Str(ref, "kind");
  const std::string name = Str(ref, "name");
  const std::string uid = Str(ref, "uid");
  const char* resource = kind == "Pod"      ? "pods"
                         : kind == "Secret" ? "secrets"
                         : kind == "Node"   ? "nodes"
                                            : nullptr;
  if (resource == nullptr) {
    return ApiError{400, "BadRequest", "cannot bind token to object of type " + kind, json()};
  }
  const Resource& r = Core(resource);
  auto got = c.store.Get(r, r.namespaced ? c.r.ns : "", name);
  if (!got.ok()) return FromStatus(got.status(), &r, name);
  const json o = (*got)->Parse();
  const std::string have_uid = Str(o, "metadata", "uid");
  if (!uid.empty() && uid != have_uid) {
    return ApiError{
        409, "Conflict",
        "Operation cannot be fulfilled on TokenRequest.authentication.k8s.io \"" + name +
            "\": the UID in the bound object reference (" + uid +
            ") does not match the UID in record. The object might have been "
            "deleted and then recreated",
        json{{"name", name}, {"group", "authentication.k8s.io"}, {"kind", "TokenRequest"}}};
  }
  const authn::TokenClaims::Ref bound{name, have_uid};
  if (kind == "Pod") {
    if (Str(o, "spec", "serviceAccountName") != account) {
      return ApiError{400, "BadRequest",
                      "cannot bind token for serviceaccount \"" + account +
                          "\" to pod running with different serviceaccount name.",
                      json()};
    }
    claims->pod = bound;
    if (const std::string node = Str(o, "spec", "nodeName"); !node.empty()) {
      auto n = c.store.Get(Core("nodes"), "", node);
      if (n.ok())
        claims->node = authn::TokenClaims::Ref{node, Str((*n)->Parse(), "metadata", "uid")};
    }
  } else if (kind == "Secret") {
    claims->secret = bound;
  } else {
    claims->node = bound;
  }
  return std::nullopt;
}

}  // namespace

void HandleTokenRequest(Context& c) {
  if (c.method != "POST") return SendError(c.w, MethodNotAllowed(c.method));
  std::optional<json> body = PostedObject(c);
  if (!body) return;
  if (auto e = DecodeTyped("authentication.k8s.io/v1", "TokenRequest", *body)) {
    return SendError(c.w, *e);
  }
  json spec =
      body->contains("spec") && (*body)["spec"].is_object() ? (*body)["spec"] : json::object();
  if (auto errors = ValidateSpec(spec); !errors.empty()) {
    return SendError(c.w, TokenInvalid("", errors));
  }
  const std::string name = c.r.name;
  const std::string ns = c.r.ns;
  api::FieldErrors errors;
  const std::string body_name = Str(*body, "metadata", "name");
  const std::string body_ns = Str(*body, "metadata", "namespace");
  if (!body_name.empty() && body_name != name) {
    errors.push_back(api::FieldError::Invalid("metadata.name", body_name,
                                              "must match the service account name if specified"));
  }
  if (!body_ns.empty() && body_ns != ns) {
    errors.push_back(api::FieldError::Invalid(
        "metadata.namespace", body_ns, "must match the service account namespace if specified"));
  }
  if (!errors.empty()) return SendError(c.w, TokenInvalid(name, errors));
  auto account = c.store.Get(c.res, ns, name);
  if (!account.ok()) return c.Fail(account.status());
  const authn::ServiceAccountTokens& tokens = *c.tokens;
  if (!spec.contains("audiences") || !spec["audiences"].is_array() || spec["audiences"].empty()) {
    spec["audiences"] = json::array({tokens.issuer()});
  }
  if (!spec.contains("expirationSeconds") || !spec["expirationSeconds"].is_number_integer()) {
    spec["expirationSeconds"] = 3600;  // SetDefaults_TokenRequestSpec
  }
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  const TimePoint now = c.clock.Now();
  authn::TokenClaims claims;
  claims.ns = ns;
  claims.service_account = {name, Str((*account)->Parse(), "metadata", "uid")};
  for (const json& a : spec["audiences"]) {
    if (a.is_string()) claims.audiences.push_back(a.get<std::string>());
  }
  claims.issued_at = now;
  claims.expires_at = now + std::chrono::seconds(spec["expirationSeconds"].get<int64_t>());
  claims.jti = c.store.GenerateUid();
  if (spec["boundObjectRef"].is_object()) {
    if (auto e = Bind(c, spec["boundObjectRef"], name, &claims)) return SendError(c.w, *e);
  }
  auto token = tokens.Issue(claims);
  if (!token.ok()) return SendError(c.w, {500, "", std::string(token.status().message()), json()});
  const json out = {
      {"kind", "TokenRequest"},
      {"apiVersion", "authentication.k8s.io/v1"},
      {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", nullptr}}},
      {"spec", spec},
      {"status", {{"token", *token}, {"expirationTimestamp", FormatRfc3339(claims.expires_at)}}}};
  SendJson(c.w, 201, out, c.r.Headers());
}

}  // namespace tidepool::apiserver::handlers
