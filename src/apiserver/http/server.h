// File: server.h
//
// HttpServer: the HTTP/1.1 front door of tidepool up (the Kubernetes API, and the GKE API of a
// later issue), on Boost.Beast. This file and server.cc are the only ones that see Beast; what
// handlers get is an HttpRequest and a ResponseWriter.
//
// Model: one thread per connection, synchronous reads and writes, HTTP keep-alive. A connection
// thread serves one request at a time; a handler may hold it for as long as it streams (a watch,
// `logs -f`), writing chunked output. 1,000 watches are 1,000 mostly sleeping threads, which is
// cheap on Linux and keeps every handler a plain function.
//
// Binding: loopback (127.0.0.1) unless told otherwise; port 0 picks a free port (port() tells
// which). Stop() closes the listener and every connection, and joins their threads.
//
// Bad input never ends the process; it is answered as Go's net/http server (which serves
// kube-apiserver) answers it: a header section over max_header_bytes gets "431 Request Header
// Fields Too Large", malformed framing "400 Bad Request" (both plain text, then the connection
// is closed), a body over max_body_bytes kube's 413 Status, and a client that goes away mid
// request no answer. A handler that throws gets a 500 Status ("Internal error occurred: ...")
// when it had sent nothing yet, and a log line; the connection's thread and the process carry
// on. "Expect: 100-continue" is answered before the body is read.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status_or.h"

namespace tidepool::apiserver::http {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: "/api/v1/pods?limit=500"
  std::string path;    // percent-decoded path, without the query
  // Decoded query parameters; a repeated parameter keeps every value in order.
  std::multimap<std::string, std::string> query;
  // Lower-case header names; a repeated header's last value.
  std::map<std::string, std::string> headers;
  // Every value of a header sent more than once, in order (Impersonate-Group is one line per
  // group, and a group may contain commas); other headers are in `headers` only.
  std::multimap<std::string, std::string> repeated_headers;
  std::string body;
  std::string remote;  // "127.0.0.1:53422"

  // The first value of a query parameter, or `def`.
  std::string Query(std::string_view name, std::string_view def = "") const;
  bool HasQuery(std::string_view name) const;
  // The value of a header (lower-case name), or "".
  std::string Header(std::string_view name) const;
  // Every value of a header (lower-case name), in the order sent; empty when absent.
  std::vector<std::string> HeaderValues(std::string_view name) const;
  // Records one header line (lower-case name) as the server reads it: `headers` gets the
  // value; a name already there keeps every value in `repeated_headers`.
  void AddHeader(const std::string& name, std::string value);
};

// Sets `path` (percent-decoded) and `query` (decoded, '+' as space) from `target`, as the
// server does for every request it reads.
void SplitRequestTarget(HttpRequest& r);

class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  // A complete response with Content-Length. `headers` are extra headers (name, value). An
  // empty `content_type` sends no Content-Type (a 304, a bodiless 406).
  virtual void Send(int status, std::string_view content_type, std::string body,
                    const std::vector<std::pair<std::string, std::string>>& headers = {}) = 0;
  // Starts a chunked response; false when the peer is gone.
  virtual bool StartStream(int status, std::string_view content_type) = 0;
  // Writes one chunk and flushes it; false when the peer is gone.
  virtual bool WriteChunk(std::string_view data) = 0;
  // Ends the chunked response (the zero-length chunk).
  virtual void EndStream() = 0;
  // True once the peer closed its side (checked without blocking), or the server is stopping.
  virtual bool Closed() = 0;
  // The same response from a body the caller keeps alive for the call (a stored object's
  // text): the server writes it without copying. The default copies it into Send.
  virtual void SendView(int status, std::string_view content_type, std::string_view body,
                        const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    Send(status, content_type, std::string(body), headers);
  }
};

// A ResponseWriter that passes everything to `w`: the base of decorators, which override what
// they change (compression.h's CompressingWriter, the API server's extra headers).
class ForwardingWriter : public ResponseWriter {
 public:
  explicit ForwardingWriter(ResponseWriter& w) : w_(w) {}
  void Send(int status, std::string_view content_type, std::string body,
            const std::vector<std::pair<std::string, std::string>>& headers) override {
    w_.Send(status, content_type, std::move(body), headers);
  }
  void SendView(int status, std::string_view content_type, std::string_view body,
                const std::vector<std::pair<std::string, std::string>>& headers) override {
    w_.SendView(status, content_type, body, headers);
  }
  bool StartStream(int status, std::string_view content_type) override {
    return w_.StartStream(status, content_type);
  }
  bool WriteChunk(std::string_view data) override { return w_.WriteChunk(data); }
  void EndStream() override { w_.EndStream(); }
  bool Closed() override { return w_.Closed(); }

 protected:
  ResponseWriter& w_;
};

using Handler = std::function<void(const HttpRequest&, ResponseWriter&)>;

struct ServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 0;
  // Requests with a larger body are refused with 413 and kube's Status ("Request entity too
  // large: limit is 3145728"): kube-apiserver's MaxRequestBodyBytes, 3 MiB.
  size_t max_body_bytes = 3 << 20;
  // A request line and header section larger than this is refused with Go's "431 Request
  // Header Fields Too Large": kube-apiserver serves with MaxHeaderBytes 1 MiB, and Go reads
  // up to 4 KiB past it before refusing.
  size_t max_header_bytes = (1 << 20) + 4096;
  // Where the server's own log lines go (a handler's exception, a connection that could not
  // get a thread); stderr when empty.
  std::function<void(const std::string&)> log;
};

class HttpServer {
 public:
  // Binds and starts accepting. Unavailable with the OS's reason when the address is taken.
  static StatusOr<std::unique_ptr<HttpServer>> Start(ServerOptions options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  const std::string& address() const;
  // Idempotent.
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Percent-decoding of a URL component ('+' is a space only in queries).
std::string UrlDecode(std::string_view s, bool plus_is_space);

}  // namespace tidepool::apiserver::http
