// File: api_server.h
//
// ApiServer: the Kubernetes 1.32 REST API over an ObjectStore, as kube-apiserver serves it to
// kubectl (the measured surface is /work/shared/reference/kubectl-api.md; this file implements
// its "Must implement" list):
//   - /version, /healthz, /livez, /readyz; aggregated and legacy discovery; /openapi/v3 (the
//     root and one document per group-version); /openapi/v2 in JSON (openapi_v2.h);
//   - for every resource in the registry: get, list, watch, create, update (PUT), patch
//     (strategic merge, JSON merge, JSON patch, server-side apply), delete, deletecollection;
//     status subresources; pods/log (follow, tailLines, container), pods/eviction (with
//     PodDisruptionBudgets: 429 when a budget allows no disruption), pods/binding;
//   - Tables for `Accept: ...;as=Table` (printers/), for lists, gets and watch events
//     (column definitions in the first watch event only, as kube-apiserver does);
//   - label and field selectors on lists and watches (an object leaving a watch's selector
//     is a DELETED event, entering it an ADDED one);
//   - watches: chunked, never ending on their own unless timeoutSeconds asks; resourceVersion
//     semantics from the store (410 Expired as an ERROR event); BOOKMARK events when asked;
//   - request bodies in JSON, YAML for apply patches, and Kubernetes protobuf (kubectl create
//     configmap/secret/namespace, drain's DeleteOptions, every served kind a Go controller
//     writes: protobuf/decode.h);
//   - responses in Kubernetes protobuf (Content-Type application/vnd.kubernetes.protobuf) when
//     the Accept header prefers it (negotiation.h; client-go's default) and the kind has a
//     table: the object of a get, create, update, patch or delete, a list (XList with ListMeta),
//     and watch events (";stream=watch": length-framed metav1.WatchEvents, BOOKMARK and ERROR
//     events included). Left in JSON, whose Content-Type client-go reads to pick its decoder:
//     errors (metav1.Status; kube-apiserver would write them in protobuf), Tables, scale
//     subresources, deletecollection's list, eviction and binding answers. managedFields are
//     not in protobuf answers (ObjectMeta's table leaves field 17 out);
//   - fieldValidation Strict / Warn (default, as kube-apiserver 1.32) / Ignore against the schema
//     generated from @kubernetes/client-node (schema/), with kube-apiserver's texts: 400 on
//     create, 422 on patch, 500 on server-side apply;
//   - responses over 128 KiB gzip-compressed for clients that accept gzip (http/compression.h);
//   - defaulting and validation (admission.h), managedFields (patch/), optimistic concurrency,
//     namespaces that must exist, errors as metav1.Status with kube's reasons and details.
// Pods are deleted gracefully as kube-apiserver does: a pod bound to a node and not finished
// gets metadata.deletionTimestamp and stays (Terminating) until its kubelet removes it; other
// pods, and deletions with gracePeriodSeconds=0, are removed at once.
//
// Thread-safe: Handle is called from many connection threads.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "api/ipv4_cidr.h"
#include "apiserver/authn/service_account_token.h"
#include "apiserver/authn/user.h"
#include "apiserver/http/server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "common/clock.h"
#include "common/speed.h"

namespace tidepool::apiserver {

namespace crd {
class Registry;
}

struct ApiServerOptions {
  // Shown in legacy discovery's serverAddressByClientCIDRs ("127.0.0.1:6443").
  std::string server_address;
  // How often a watch that asked for bookmarks gets one.
  Duration bookmark_interval = std::chrono::seconds(30);
  // Services' cluster IPs (kube-apiserver's --service-cluster-ip-range): GKE's default unless
  // the cluster names another (the cloud's DefaultServiceRange, cluster.servicesIpv4Cidr).
  api::Ipv4Cidr service_range = *api::Ipv4Cidr::Parse("34.118.224.0/20");
  // kube-apiserver's TaintNodesByCondition admission plugin (enabled by default): a new Node
  // gets node.kubernetes.io/not-ready:NoSchedule, which the node lifecycle controller removes.
  // Off is --disable-admission-plugins=TaintNodesByCondition (tests of one component without
  // that controller).
  bool taint_nodes_by_condition = true;
  // TokenReview's token authenticator: whether a bearer token is one this API accepts (`tidepool
  // up`: the run's token; its user is then tidepool's administrator, authn/user.h). Unset: a
  // review is answered without a status, as kube-apiserver without a token authenticator.
  std::function<bool(std::string_view token)> token_valid;
  // kube-apiserver's --service-account-issuer, also its API audience: the issuer of the tokens
  // TokenRequest makes, and the audience a token must have to authenticate a request
  // (`tidepool up`: GKE's https://container.googleapis.com/v1/projects/P/locations/L/clusters/C,
  // or EKS's https://oidc.eks.<region>.amazonaws.com/id/<cluster>).
  std::string service_account_issuer = "https://kubernetes.default.svc.cluster.local";

  // Every Duration member, once (common/speed.h). Bookmarks go to real clients (kubectl,
  // client-go, a real cluster autoscaler) as progress notices on their own connections: real
  // time, not the emulated cluster's.
  template <typename F>
  void ForEachDuration(F&& f) {
    f("bookmarkInterval", bookmark_interval, TimeBase::kReal);
  }
};

class ApiServer {
 public:
  // Not owned; must outlive the server.
  ApiServer(const Clock& clock, ObjectStore& store, PodLogs& logs, ApiServerOptions options);
  ~ApiServer();

  void Handle(const http::HttpRequest& req, http::ResponseWriter& w);

  // Requests served so far (for logs and benchmarks).
  uint64_t requests() const { return requests_.load(); }

  struct Request;  // one parsed request (handlers/handler.h)

 private:
  // Handle, once the response writer is chosen.
  void Route(const http::HttpRequest& req, http::ResponseWriter& w);
  // Routes a request for a resource to its verb's or subresource's handler (handlers/).
  void HandleResource(Request& r, http::ResponseWriter& w);
  // The user of a service account's token this server issued, while it is valid, has the API
  // audience, and its account (and bound object) exist with their uids and are not being
  // deleted, as kube's service-account token validator checks (Unauthenticated otherwise;
  // nullopt for a token it did not issue: authn/user.h).
  StatusOr<std::optional<authn::UserInfo>> AuthenticateToken(std::string_view token) const;

  const Clock& clock_;
  ObjectStore& store_;
  PodLogs& logs_;
  std::unique_ptr<crd::Registry> crds_;  // the custom resources served
  ApiServerOptions options_;
  std::unique_ptr<authn::ServiceAccountTokens> tokens_;
  authn::BearerAuthenticator bearer_;
  std::atomic<uint64_t> requests_{0};
};

}  // namespace tidepool::apiserver
