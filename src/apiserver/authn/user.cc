#include "apiserver/authn/user.h"

#include <algorithm>
#include <cctype>

#include "api/name_validation.h"

namespace tidepool::apiserver::authn {
namespace {

constexpr char kAuthenticated[] = "system:authenticated";
constexpr char kUnauthenticated[] = "system:unauthenticated";
constexpr char kAnonymous[] = "system:anonymous";
constexpr char kExtraPrefix[] = "impersonate-extra-";
constexpr char kServiceAccountPrefix[] = "system:serviceaccount:";

bool HasBearerToken(const http::HttpRequest& req) {
  const std::string auth = req.Header("authorization");
  return auth.size() > 7 &&
         (auth.compare(0, 7, "Bearer ") == 0 || auth.compare(0, 7, "bearer ") == 0);
}

// url.PathUnescape; the text as given when it is malformed (unescapeExtraKey): a '%' not
// followed by two hex digits.
std::string PathUnescape(const std::string& s) {
  for (size_t i = s.find('%'); i != std::string::npos; i = s.find('%', i + 1)) {
    if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      return s;
    }
  }
  return http::UrlDecode(s, /*plus_is_space=*/false);
}

// Go's %v of a v1.ObjectReference: its 7 fields (Kind, Namespace, Name, UID, APIVersion,
// ResourceVersion, FieldPath) between braces, separated by spaces.
std::string Reference(const std::string& kind, const std::string& ns, const std::string& name,
                      const std::string& api_version, const std::string& field_path) {
  return "{" + kind + " " + ns + " " + name + "  " + api_version + "  " + field_path + "}";
}

// serviceaccount.SplitUsername: "system:serviceaccount:<ns>:<name>" with a valid namespace
// name (a DNS-1123 label) and service account name (a DNS-1123 subdomain).
bool SplitServiceAccount(const std::string& user, std::string* ns, std::string* name) {
  if (user.rfind(kServiceAccountPrefix, 0) != 0) return false;
  const std::string rest = user.substr(sizeof(kServiceAccountPrefix) - 1);
  const size_t colon = rest.find(':');
  if (colon == std::string::npos || rest.find(':', colon + 1) != std::string::npos) return false;
  *ns = rest.substr(0, colon);
  *name = rest.substr(colon + 1);
  return api::IsDns1123Label(*ns).empty() && api::IsDns1123Subdomain(*name).empty();
}

// Go's Header.Get: a header's first value.
std::string First(const http::HttpRequest& req, const char* name) {
  const std::vector<std::string> values = req.HeaderValues(name);
  return values.empty() ? "" : values.front();
}

}  // namespace

StatusOr<UserInfo> RequestUser(const http::HttpRequest& req, const BearerAuthenticator* bearer) {
  UserInfo requester;
  std::optional<UserInfo> known;
  if (HasBearerToken(req) && bearer != nullptr && *bearer) {
    const std::string authorization = req.Header("authorization");
    StatusOr<std::optional<UserInfo>> user = (*bearer)(std::string_view(authorization).substr(7));
    if (!user.ok()) return user.status();
    known = *std::move(user);
  }
  if (known) {
    requester = std::move(*known);
  } else if (HasBearerToken(req)) {
    requester.username = "tidepool-admin";
    requester.groups = {"system:masters", kAuthenticated};
  } else {
    requester.username = kAnonymous;
    requester.groups = {kUnauthenticated};
  }
  const std::string user = First(req, "impersonate-user");
  const std::vector<std::string> groups = req.HeaderValues("impersonate-group");
  const std::string uid = First(req, "impersonate-uid");
  std::map<std::string, std::vector<std::string>> extra;
  for (const auto& [name, value] : req.headers) {
    if (name.rfind(kExtraPrefix, 0) != 0) continue;
    std::vector<std::string>& values = extra[PathUnescape(name.substr(sizeof(kExtraPrefix) - 1))];
    for (std::string& v : req.HeaderValues(name)) values.push_back(std::move(v));
  }
  if (user.empty()) {
    if (groups.empty() && uid.empty() && extra.empty()) return requester;
    std::string refs;
    auto add = [&refs](const std::string& r) { refs += (refs.empty() ? "" : " ") + r; };
    for (const std::string& g : groups) add(Reference("Group", "", g, "", ""));
    for (const auto& [key, values] : extra) {
      for (const std::string& v : values) {
        add(Reference("UserExtra", "", v, "authentication.k8s.io/v1", key));
      }
    }
    if (!uid.empty()) add(Reference("UID", "", uid, "authentication.k8s.io/v1", ""));
    return InvalidArgumentError("requested [" + refs + "] without impersonating a user");
  }
  UserInfo u;
  u.username = user;
  u.uid = uid;
  u.extra = std::move(extra);
  std::string ns, name;
  if (groups.empty() && SplitServiceAccount(user, &ns, &name)) {
    u.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns};
  }
  u.groups.insert(u.groups.end(), groups.begin(), groups.end());
  auto has = [&u](const char* g) {
    return std::find(u.groups.begin(), u.groups.end(), g) != u.groups.end();
  };
  if (user != kAnonymous) {
    if (!has(kAuthenticated) && !has(kUnauthenticated)) u.groups.push_back(kAuthenticated);
  } else if (!has(kUnauthenticated)) {
    u.groups.push_back(kUnauthenticated);
  }
  return u;
}

}  // namespace tidepool::apiserver::authn
