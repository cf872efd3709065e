// File: exposure.h
//
// Who may use `tidepool up`'s APIs, and how they are reached when the cluster is exposed beyond
// this machine (issue 14, "Exposure").
//
// One bearer token per run (NewBearerToken: 32 bytes from the OS, base64url), never printed,
// written only into the files `up` writes for its users, each with mode 0600
// (common/private_file.h): the gcloud configuration's access-token file, and the kubeconfig
// when the Kubernetes API needs it.
//
//   GKE and Compute APIs (cloud::gke::IsGkePath): always need `Authorization: Bearer <token>`,
//     as Google's APIs need an OAuth token. Without one: Google's 401
//     {"error":{"code":401,"message":"Request is missing required authentication credential.
//     ...","status":"UNAUTHENTICATED",...}}; with another: the same with "Request had invalid
//     authentication credentials. ..." (Compute adds errors[] with reason "required" /
//     "authError", as Compute Engine's v1 API does).
//   Kubernetes API on loopback (the default, 127.0.0.1): no credential, as before; any
//     Authorization header is ignored (only this machine's users reach it).
//   Kubernetes API on any other address (0.0.0.0, a LAN address), or with --anonymous-auth=false
//     on loopback: every request needs the token, as kube-apiserver with --anonymous-auth=false;
//     without it kube-apiserver's 401 Status {"kind":"Status","apiVersion":"v1","metadata":{},
//     "status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}. The
//     token of the gcloud configuration is the same one, so the kubeconfig that `gcloud
//     container clusters get-credentials` writes (gke-gcloud-auth-plugin hands kubectl
//     gcloud's token) works too, as on GKE.
//   EKS tokens (`tidepool up --cloud aws`): a Kubernetes request with `Authorization: Bearer
//     k8s-aws-v1.<...>` (what `aws eks get-token` makes for the kubeconfig of `aws eks
//     update-kubeconfig`) is served when the token checks out (cloud/aws/sigv4.h), and gets the
//     401 above when it does not - also on loopback: kube-apiserver lets anonymous requests
//     through, not requests whose credentials fail.
//
// Thread-safe (immutable after construction).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status_or.h"

namespace tidepool::apiserver::http {
struct HttpRequest;
}

namespace tidepool::runtime {

// True for 127.0.0.0/8, ::1 and "localhost": addresses that only this machine reaches.
// 0.0.0.0 (every interface) is not loopback.
bool IsLoopbackAddress(std::string_view address);

// This machine's IPv4 addresses that are up, loopback excluded, in interface order.
std::vector<std::string> LocalIpv4Addresses();

// 32 random bytes from /dev/urandom, base64url without padding (43 characters).
StatusOr<std::string> NewBearerToken();

// True when `authorization` is "Bearer <token>" (the scheme case-insensitive, RFC 6750) and the
// token equals `token`, compared in constant time. An empty `token` matches nothing.
bool BearerMatches(std::string_view authorization, std::string_view token);

// An answer that refuses a request.
struct Denial {
  int status = 401;
  std::string content_type;
  std::string body;
};

class ApiAccess {
 public:
  // `kubernetes_needs_token`: see the file comment. `eks_token_valid`, when set, checks EKS
  // tokens (the part after "Bearer ").
  ApiAccess(std::string token, bool kubernetes_needs_token,
            std::function<bool(std::string_view)> eks_token_valid = {})
      : token_(std::move(token)),
        kubernetes_needs_token_(kubernetes_needs_token),
        eks_token_valid_(std::move(eks_token_valid)) {}

  // nullopt: serve the request. Otherwise the 401 to send (see the file comment).
  std::optional<Denial> Check(const apiserver::http::HttpRequest& request) const;

  bool kubernetes_needs_token() const { return kubernetes_needs_token_; }

 private:
  const std::string token_;
  const bool kubernetes_needs_token_;
  const std::function<bool(std::string_view)> eks_token_valid_;
};

// kube-apiserver's body for an unauthenticated request.
std::string KubernetesUnauthorizedBody();
// Google's body for a request to `path` (a GKE / Compute path) without a token (`missing`) or
// with a wrong one.
std::string GoogleUnauthenticatedBody(std::string_view path, bool missing);

}  // namespace tidepool::runtime
