// File: in_process_transport.h
//
// InProcessTransport: client::http::HttpTransport over an API server in the same process. A
// request is handed to the server's handler (apiserver::http::Handler, the function its HTTP
// listeners call) as the listener would hand it over - method, target split into path and
// query, lower-case headers, body - and the answer comes back as an HttpResponse, or chunk by
// chunk for a stream (a watch). So client::RestClient, its informers and everything built on
// them (the autoscaler's KubeClusterCache, writer, event recorder) run unchanged against
// `tidepool up`'s own API: the same defaulting, validation, admission, managedFields, graceful
// deletion and eviction (with its PodDisruptionBudget check) as kubectl's requests get, minus
// the socket.
//
// The URL's scheme and authority are ignored (the client's config still prefixes them); the
// request's `cancel` flag, or the chunk callback returning false, ends a stream: the handler
// sees its writer Closed() (a watch notices within a second). The request timeout is not
// enforced: the handler runs on the calling thread. Thread-safe when the handler is.
#pragma once

#include "apiserver/http/server.h"
#include "client/http/http_client.h"
#include "client/rest_client.h"

namespace tidepool::cluster {

class InProcessTransport final : public client::http::HttpTransport {
 public:
  // `handler` is called on the caller's thread; `remote` is what it sees as the peer.
  explicit InProcessTransport(apiserver::http::Handler handler, std::string remote = "in-process");

  StatusOr<client::http::HttpResponse> Do(const client::http::HttpRequest& req) const override;
  StatusOr<client::http::HttpResponse> Stream(
      const client::http::HttpRequest& req,
      const client::http::ChunkCallback& on_chunk) const override;

 private:
  StatusOr<client::http::HttpResponse> Exchange(const client::http::HttpRequest& req,
                                                const client::http::ChunkCallback* on_chunk) const;

  const apiserver::http::Handler handler_;
  const std::string remote_;
};

// A client::RestClient over `transport`: its config (a placeholder host only the transport sees)
// and options (the transport, and the user agent the API records, e.g. in managedFields).
client::RestConfig InProcessRestConfig();
client::RestClientOptions InProcessRestOptions(const client::http::HttpTransport& transport,
                                               std::string user_agent = "");

}  // namespace tidepool::cluster
