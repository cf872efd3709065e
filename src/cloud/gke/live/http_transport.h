// File: http_transport.h
//
// HttpClientTransport: the live provider's Transport over client/http's libcurl HttpClient (the
// one HTTP client of `tidepool autoscale`). A reply of any status is a reply; transport failures
// are HttpClient's Unavailable / DeadlineExceeded with curl's text.
//
// Threading: thread-safe (HttpClient is).
#pragma once

#include "client/http/http_client.h"
#include "cloud/gke/live/transport.h"

namespace tidepool::cloud::gke::live {

class HttpClientTransport final : public Transport {
 public:
  // `client` must outlive this. `timeout` bounds each call (0: none).
  explicit HttpClientTransport(const client::http::HttpClient& client,
                               Duration timeout = std::chrono::seconds(60))
      : client_(client), timeout_(timeout) {}

  StatusOr<HttpReply> Do(const HttpCall& call) override;

 private:
  const client::http::HttpClient& client_;
  const Duration timeout_;
};

}  // namespace tidepool::cloud::gke::live
