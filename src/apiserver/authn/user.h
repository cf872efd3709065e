// File: authn/user.h
//
// Who a request is served as, as kube-apiserver's authentication and impersonation filters
// decide it (k8s.io/apiserver endpoints/filters/impersonation.go), for what records the user:
// a CertificateSigningRequest's spec.username/uid/groups/extra, SelfSubjectReview (`kubectl
// auth whoami`).
//   - The requester: with a service account's token this server issued, that account (the
//     BearerAuthenticator's user); with another bearer token, tidepool's administrator
//     ("tidepool-admin", groups
//     system:masters and system:authenticated; exposure.h checks the token where one is
//     required); without one, kube's anonymous user (system:anonymous, system:unauthenticated).
//   - Impersonation (kubectl --as, --as-group, --as-uid; every requester may impersonate, as
//     under tidepool's AlwaysAllow authorization): Impersonate-User names the user (a
//     "system:serviceaccount:<ns>:<name>" one gets groups system:serviceaccounts and
//     system:serviceaccounts:<ns> unless groups are given), each Impersonate-Group line a group
//     (verbatim, commas included), Impersonate-Uid the uid, each Impersonate-Extra-<key> line a
//     value of extra[<key>] (key lower-cased and percent-decoded). A non-anonymous user then gets
//     system:authenticated unless system:authenticated or system:unauthenticated is among the
//     groups; system:anonymous gets system:unauthenticated unless it is there.
//   - Groups, a uid or extras without Impersonate-User: 400 BadRequest "requested [...] without
//     impersonating a user", the references printed as Go's %v prints v1.ObjectReference.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http/server.h"
#include "common/status_or.h"

namespace tidepool::apiserver::authn {

struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// The user of a bearer token the API server issued itself (a service account's token,
// service_account_token.h); Unauthenticated for one it issued that is no longer valid (kube's
// 401); nullopt for any other token.
using BearerAuthenticator =
    std::function<StatusOr<std::optional<UserInfo>>(std::string_view token)>;

// The user `req` is served as (a bearer token `bearer` knows is its user, not the
// administrator). InvalidArgument (kube's BadRequest text) for impersonation headers without
// Impersonate-User; Unauthenticated for a token `bearer` refuses.
StatusOr<UserInfo> RequestUser(const http::HttpRequest& req,
                               const BearerAuthenticator* bearer = nullptr);

}  // namespace tidepool::apiserver::authn
