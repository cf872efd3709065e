// File: transport.h
//
// The few HTTP calls the live GKE provider and its token sources make, behind a small interface
// so the same code runs over libcurl (http_transport.h), straight into `tidepool up`'s GkeApi
// without HTTP (InProcessTransport, below; tests), or against a fake.
//
// A Transport sends one request and returns the response whatever its status: a 4xx/5xx is a
// reply, not an error. Only failures to get a reply at all (connection refused, timeout, TLS)
// are errors, as Unavailable (or DeadlineExceeded) with the transport's text.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "client/http/http_client.h"
#include "cloud/gke/gke_api.h"
#include "common/status_or.h"

namespace tidepool::cloud::gke::live {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpCall {
  std::string method;  // "GET", "POST", ...
  std::string url;     // absolute, query included
  Headers headers;     // e.g. {"Authorization", "Bearer ..."}, {"Content-Type", ...}
  std::string body;
};

struct HttpReply {
  int status = 0;
  std::string body;
};

class Transport {
 public:
  virtual ~Transport() = default;
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Sends `call`; see the file comment for what is an error. Thread-safety: implementations
  // say; the provider calls it from its one control-loop thread.
  virtual StatusOr<HttpReply> Do(const HttpCall& call) = 0;
};

// Routes calls to a GkeApi in the same process: the URL's path (from its first '/' after the
// scheme and host; "/compute/v1/..." and "/v1/...") and percent-decoded query become a
// GkeRequest. Headers are ignored. Thread-safe (GkeApi::Handle is). `api` must outlive this.
class InProcessTransport final : public Transport {
 public:
  explicit InProcessTransport(GkeApi& api) : api_(api) {}
  StatusOr<HttpReply> Do(const HttpCall& call) override;

 private:
  GkeApi& api_;
};

// Percent-encoding of a query value or form field (RFC 3986 unreserved characters kept).
using client::http::UrlEncode;
// The inverse; '+' is a space (form encoding).
std::string UrlDecode(std::string_view s);

}  // namespace tidepool::cloud::gke::live
