// serviceaccounts/token: TokenRequest, as kube-apiserver 1.32's token REST
// (pkg/registry/core/serviceaccount/storage/token.go) answers it.
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr int64_t kMinExpirationSeconds = 10 * 60;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;

const Resource& Core(const char* resource) { return *FindResource("", "v1", resource); }

// A JSON number with an integral value (the decoder takes 3600.0 for an int64), or nullopt.
std::optional<int64_t> IntegralNumber(const json* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d))) {
      return static_cast<int64_t>(d);
    }
  }
  return std::nullopt;
}

// ValidateTokenRequest.
api::FieldErrors ValidateSpec(const json& spec) {
  api::FieldErrors errors;
  if (const std::optional<int64_t> e = IntegralNumber(Member(spec, "expirationSeconds"))) {
    const int64_t s = *e;
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
  const std::string api_version = Str(ref, "apiVersion");
  // schema.FromAPIVersionAndKind: only the core group's kinds bind.
  const bool core = api_version.find('/') == std::string::npos;
  const char* resource = !core              ? nullptr
                         : kind == "Pod"    ? "pods"
                         : kind == "Secret" ? "secrets"
                         : kind == "Node"   ? "nodes"
                                            : nullptr;
  if (resource == nullptr) {
    // gvk.String(): "<group>/<version>, Kind=<kind>".
    const std::string gv = core ? "/" + api_version : api_version;
    return ApiError{400, "BadRequest",
                    "cannot bind token to object of type " + gv + ", Kind=" + kind, json()};
  }
  if (name.empty()) return ApiError{400, "BadRequest", "Name parameter required.", json()};
  const Resource& r = Core(resource);
  auto got = c.store.Get(r, r.namespaced ? c.r.ns : "", name);
  if (!got.ok()) return FromStatus(got.status(), &r, name);
  const json o = (*got)->Parse();
  const std::string have_uid = Str(o, "metadata", "uid");
  if (kind == "Pod" && Str(o, "spec", "serviceAccountName") != account) {
    return ApiError{400, "BadRequest",
                    "cannot bind token for serviceaccount \"" + account +
                        "\" to pod running with different serviceaccount name.",
                    json()};
  }
  if (!uid.empty() && uid != have_uid) {
    // errors.NewConflict(GroupResource{Group: "", Resource: <kind>}, name, ...).
    return ApiError{409, "Conflict",
                    "Operation cannot be fulfilled on " + kind + " \"" + name +
                        "\": the UID in the bound object reference (" + uid +
                        ") does not match the UID in record. The object might have been "
                        "deleted and then recreated",
                    json{{"name", name}, {"group", ""}, {"kind", kind}}};
  }
  const authn::TokenClaims::Ref bound{name, have_uid};
  if (kind == "Pod") {
    claims->pod = bound;
    if (const std::string node = Str(o, "spec", "nodeName"); !node.empty()) {
      auto n = c.store.Get(Core("nodes"), "", node);
      if (n.ok()) {
        claims->node = authn::TokenClaims::Ref{node, Str((*n)->Parse(), "metadata", "uid")};
      }
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
  if (auto invalid = ValidateSpec(spec); !invalid.empty()) {
    return SendError(c.w, TokenInvalid("", invalid));
  }
  const authn::ServiceAccountTokens& tokens = *c.tokens;
  if (!spec.contains("audiences") || !spec["audiences"].is_array() || spec["audiences"].empty()) {
    spec["audiences"] = json::array({tokens.issuer()});
  }
  // SetDefaults_TokenRequestSpec: an hour.
  spec["expirationSeconds"] = IntegralNumber(Member(spec, "expirationSeconds")).value_or(3600);
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
      {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", FormatRfc3339(now)}}},
      {"spec", spec},
      {"status", {{"token", *token}, {"expirationTimestamp", FormatRfc3339(claims.expires_at)}}}};
  SendJson(c.w, 201, out, c.r.Headers());
}

}  // namespace tidepool::apiserver::handlers
