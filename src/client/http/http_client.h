// File: http_client.h
//
// HttpClient: a small, generic HTTP/1.1 client over libcurl, shared by the Kubernetes client
// (client/) and the live GKE provider (cloud/gke/). Nothing here knows about Kubernetes.
//
// What it does:
//   - one request -> one response (status, lower-case headers, body), with a total timeout and
//     a connect timeout;
//   - TLS from memory: the CA bundle as PEM (CURLOPT_CAINFO_BLOB; empty: the system's CAs),
//     insecure-skip-verify, a client certificate and key as PEM (CURLOPT_SSLCERT_BLOB /
//     CURLOPT_SSLKEY_BLOB); a request may override the client certificate (exec credential
//     plugins can hand one out at run time);
//   - streaming (watches, log follows): Stream() hands the body of a 2xx answer to a callback
//     chunk by chunk as it arrives; the callback stops the stream by returning false, and any
//     thread stops it by setting the request's `cancel` flag (noticed within ~100 ms). A non-2xx
//     answer is not streamed: its body is collected and returned as for Do(). LineSplitter cuts
//     chunks into lines (watch events are one JSON document per line);
//   - errors are values: a transport failure (DNS, connect, TLS, timeout, reset) is Unavailable
//     (DeadlineExceeded for a timeout) with curl's text, shaped like Go's url.Error:
//     `Get "https://10.0.0.1/api": Failed to connect to 10.0.0.1 port 443 ...`; a cancelled
//     request is Cancelled. Any HTTP status, 4xx and 5xx included, is a successful exchange: the
//     caller interprets it.
//
// Thread-safety: an HttpClient may be used from any number of threads at once. Each call takes
// its own curl handle from a small pool (connections are kept alive and reused between calls of
// one client, as Go's http.Transport does); curl_global_init runs once per process.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::client::http {

// TLS settings of a client (they apply to https:// URLs only).
struct TlsConfig {
  // PEM CA certificates to trust; empty: the system's default bundle.
  std::string ca_pem;
  // Do not verify the server's certificate chain nor its host name (kubeconfig's
  // insecure-skip-tls-verify).
  bool insecure_skip_verify = false;
  // PEM client certificate and its PEM private key (both or neither).
  std::string client_cert_pem;
  std::string client_key_pem;
};

struct HttpClientOptions {
  TlsConfig tls;
  // Default connect timeout (Go's net.Dialer in client-go: 30 s).
  Duration connect_timeout = std::chrono::seconds(30);
  // Upper bound on idle pooled handles kept for reuse.
  size_t max_idle_handles = 8;
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  // Sent in this order. A header with an empty value is sent as "Name:" (curl would drop it).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Total time allowed for the exchange; zero: no limit (watches).
  Duration timeout = Duration::zero();
  // Overrides the client's TLS client certificate and key when set (both PEM).
  std::optional<std::pair<std::string, std::string>> client_cert_and_key;
  // When non-null, setting it to true from any thread aborts the request (Cancelled).
  const std::atomic<bool>* cancel = nullptr;
  // When set, curl signs the request with AWS Signature Version 4 (CURLOPT_AWS_SIGV4): every
  // header given above is signed with Host and X-Amz-Date (a session token goes in as the
  // X-Amz-Security-Token header).
  struct AwsSigV4 {
    std::string region;   // "us-west-2"
    std::string service;  // the signing name: "autoscaling", "ec2", "eks", "sts"
    std::string access_key_id;
    std::string secret_access_key;
  };
  std::optional<AwsSigV4> aws_sigv4;
};

struct HttpResponse {
  int status = 0;
  // Lower-case names; a repeated header's values are joined with ", " (as Go's Header.Get
  // would see the first; joined is what a comma-list header means).
  std::map<std::string, std::string> headers;
  // The whole body (Do, or a non-2xx answer of Stream); empty for a streamed 2xx answer.
  std::string body;

  // The value of header `lower_name`, or "".
  std::string Header(std::string_view lower_name) const;
};

// Receives a piece of a streamed body; returns false to stop the stream.
using ChunkCallback = std::function<bool(std::string_view chunk)>;

// What a caller of Do/Stream needs from an HTTP exchange, so that the same client code (the
// Kubernetes RestClient, its informers) runs over a socket (HttpClient) or over a server in the
// same process (cluster/in_process_transport.h). The contract of each call is HttpClient's below.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual StatusOr<HttpResponse> Do(const HttpRequest& req) const = 0;
  virtual StatusOr<HttpResponse> Stream(const HttpRequest& req,
                                        const ChunkCallback& on_chunk) const = 0;
};

class HttpClient final : public HttpTransport {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `req` and returns the whole response. Errors: Unavailable (transport),
  // DeadlineExceeded (req.timeout passed), Cancelled (req.cancel set), InvalidArgument (a URL
  // curl refuses). Thread-safe.
  StatusOr<HttpResponse> Do(const HttpRequest& req) const override;

  // Sends `req`; when the answer is 2xx, hands its body to `on_chunk` as it arrives until the
  // server ends it (OK), `on_chunk` returns false (OK) or req.cancel is set (Cancelled). The
  // returned response has the status and headers (and the body only for non-2xx answers).
  // `on_chunk` runs on the calling thread. Thread-safe.
  StatusOr<HttpResponse> Stream(const HttpRequest& req,
                                const ChunkCallback& on_chunk) const override;

  const HttpClientOptions& options() const { return options_; }

  struct Pool;  // http_client.cc

 private:
  StatusOr<HttpResponse> Perform(const HttpRequest& req, const ChunkCallback* on_chunk) const;

  const HttpClientOptions options_;
  std::unique_ptr<Pool> pool_;
};
using HttpClientPtr = std::unique_ptr<HttpClient>;

// Cuts a byte stream into lines ("\n"; a trailing "\r" is dropped). Not thread-safe.
class LineSplitter {
 public:
  // Calls `on_line` for every complete line in buffered + `chunk`; returns false as soon as
  // `on_line` does (the rest is dropped).
  bool Feed(std::string_view chunk, const std::function<bool(std::string_view line)>& on_line);
  // The unterminated tail so far.
  const std::string& pending() const { return pending_; }

 private:
  std::string pending_;
};

// Percent-encodes a query component (RFC 3986 unreserved characters stay as they are).
std::string UrlEncode(std::string_view s);

}  // namespace tidepool::client::http
