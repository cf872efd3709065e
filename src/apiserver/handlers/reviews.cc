// The review resources: kube-apiserver answers a POST of one with its status and stores nothing.
// tidepool up authorizes every request (kube-apiserver's AlwaysAllow; exposure.h decides who
// reaches the API at all), so:
//   - SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview: allowed;
//   - SelfSubjectRulesReview: every verb on every resource and non-resource URL;
//   - SelfSubjectReview (`kubectl auth whoami`): the user the request is served as
//     (authn/user.h: tidepool's administrator with a bearer token, else kube's anonymous user;
//     or whom it impersonates).
//   - TokenReview: spec.token authenticated as a bearer token (ApiServerOptions::token_valid):
//     authenticated, with tidepool's administrator as the user, or the bearer authenticator's
//     "invalid bearer token"; no status without an authenticator. A token is required.
// Validation as kube's: an access review names exactly one of resourceAttributes and
// nonResourceAttributes; a SubjectAccessReview a user or a group.

#include "apiserver/authn/user.h"
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

bool Has(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && !obj[key].is_null();
}

// obj[key] when it is an object, else an empty object (absent, null).
const json& Object(const json& obj, const char* key) {
  static const json kEmpty = json::object();
  return Has(obj, key) && obj[key].is_object() ? obj[key] : kEmpty;
}
std::string String(const json& obj, const char* key) {
  return Has(obj, key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

api::FieldErrors ValidateReview(const Resource& r, const json& review) {
  api::FieldErrors errors;
  if (r.group != "authorization.k8s.io" || r.resource == "selfsubjectrulesreviews") return errors;
  const json& spec = Object(review, "spec");
  const bool res = Has(spec, "resourceAttributes"), non = Has(spec, "nonResourceAttributes");
  if (!res && !non) {
    errors.push_back(api::FieldError::Required(
        "spec.resourceAttributes",
        "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  } else if (res && non) {
    errors.push_back(api::FieldError::InvalidRaw("spec.nonResourceAttributes",
                                                 "&v1.NonResourceAttributes{...}",
                                                 "cannot be specified in combination with "
                                                 "resourceAttributes"));
  }
  if (r.resource == "subjectaccessreviews" || r.resource == "localsubjectaccessreviews") {
    const bool user = !String(spec, "user").empty();
    const bool groups = Has(spec, "groups") && spec["groups"].is_array() && !spec["groups"].empty();
    if (!user && !groups) {
      errors.push_back(api::FieldError::Invalid("spec.user", "",
                                                "at least one of user or group must be specified"));
    }
  }
  return errors;
}

// authentication/v1 UserInfo: the fields the user has.
json UserInfoJson(const authn::UserInfo& user) {
  json info = {{"username", user.username}};
  if (!user.uid.empty()) info["uid"] = user.uid;
  if (!user.groups.empty()) info["groups"] = user.groups;
  if (!user.extra.empty()) info["extra"] = user.extra;
  return info;
}

// TokenReview's status: the token authenticated as a request with only that bearer token.
json TokenStatus(const Context& c, const std::string& token) {
  if (c.bearer != nullptr) {
    StatusOr<std::optional<authn::UserInfo>> account = (*c.bearer)(token);
    if (!account.ok()) {
      return {{"user", json::object()}, {"error", std::string(account.status().message())}};
    }
    if (account->has_value()) {
      return {{"authenticated", true},
              {"user", UserInfoJson(**account)},
              {"audiences", json::array({c.tokens->issuer()})}};
    }
  }
  if (!c.options.token_valid) return json::object();
  if (!c.options.token_valid(token)) {
    return {{"user", json::object()}, {"error", "invalid bearer token"}};
  }
  http::HttpRequest fake;
  fake.AddHeader("authorization", "Bearer " + token);
  const auto user = authn::RequestUser(fake);
  return {{"authenticated", true}, {"user", user.ok() ? UserInfoJson(*user) : json::object()}};
}

json Status(const Context& c, const json& review) {
  const Resource& r = c.res;
  if (r.resource == "tokenreviews") return TokenStatus(c, String(Object(review, "spec"), "token"));
  if (r.resource == "selfsubjectreviews") {
    return {{"userInfo", UserInfoJson(c.r.user)}};
  }
  if (r.resource == "selfsubjectrulesreviews") {
    return {{"resourceRules",
             json::array({{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}})},
            {"nonResourceRules", json::array({{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}})},
            {"incomplete", false}};
  }
  return {{"allowed", true}};
}

}  // namespace

bool IsReviewResource(const Resource& r) { return r.verbs.size() == 1 && r.verbs[0] == "create"; }

void HandleReview(Context& c) {
  if (!c.r.name.empty() || c.method != "POST") return SendError(c.w, MethodNotAllowed(c.method));
  std::optional<json> body = PostedObject(c);
  if (!body) return;
  if (auto e = VersionKindTypeError(*body)) return SendError(c.w, *e);
  // The typed decode (a value of the wrong type is the decoder's 400), then Go's zero values.
  if (auto e = DecodeTyped(c.res, *body)) return SendError(c.w, *e);
  json review = std::move(*body);
  if (c.res.namespaced) {
    const std::string ns = String(Object(review, "metadata"), "namespace");
    const std::string spec_ns =
        String(Object(Object(review, "spec"), "resourceAttributes"), "namespace");
    if ((!ns.empty() && ns != c.r.ns) || spec_ns != c.r.ns) {
      return SendError(
          c.w, Invalid(c.res, "",
                       {api::FieldError::Invalid("spec.resourceAttributes.namespace", spec_ns,
                                                 "must match metadata.namespace")}));
    }
  }
  const api::FieldErrors errors = ValidateReview(c.res, review);
  if (!errors.empty()) return SendError(c.w, Invalid(c.res, "", errors));
  if (c.res.resource == "tokenreviews" && String(Object(review, "spec"), "token").empty()) {
    return SendError(
        c.w, {400, "BadRequest", "token is required for TokenReview in authentication", json()});
  }
  review["apiVersion"] = c.res.GroupVersion();
  review["kind"] = c.res.kind;
  json meta = Object(review, "metadata");
  meta["creationTimestamp"] = nullptr;
  review["metadata"] = std::move(meta);
  review["status"] = Status(c, review);
  SendJson(c.w, 201, review);
}

}  // namespace tidepool::apiserver::handlers
