#include "apiserver/http/server.h"

#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <cstdio>
#include <list>
#include <mutex>
#include <system_error>
#include <thread>

namespace tidepool::apiserver::http {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::string UrlDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string HttpRequest::Query(std::string_view name, std::string_view def) const {
  auto it = query.find(std::string(name));
  return it == query.end() ? std::string(def) : it->second;
}

bool HttpRequest::HasQuery(std::string_view name) const {
  return query.count(std::string(name)) != 0;
}

std::string HttpRequest::Header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? "" : it->second;
}

void HttpRequest::AddHeader(const std::string& name, std::string value) {
  auto [it, added] = headers.try_emplace(name, value);
  if (added) return;
  // A repeated header: every value is kept (the first one too, once).
  if (repeated_headers.count(name) == 0) repeated_headers.emplace(name, it->second);
  repeated_headers.emplace(name, value);
  it->second = std::move(value);
}

std::vector<std::string> HttpRequest::HeaderValues(std::string_view name) const {
  const std::string key(name);
  std::vector<std::string> out;
  auto [first, last] = repeated_headers.equal_range(key);
  for (auto it = first; it != last; ++it) out.push_back(it->second);
  if (out.empty()) {
    if (auto it = headers.find(key); it != headers.end()) out.push_back(it->second);
  }
  return out;
}

namespace {

struct Connection {
  tcp::socket socket;
  std::thread thread;
  std::atomic<bool> done{false};
  explicit Connection(tcp::socket s) : socket(std::move(s)) {}
};

class BeastWriter final : public ResponseWriter {
 public:
  BeastWriter(tcp::socket& socket, unsigned version, bool keep_alive,
              const std::atomic<bool>& stopping)
      : socket_(socket), version_(version), keep_alive_(keep_alive), stopping_(stopping) {}

  void Send(int status, std::string_view content_type, std::string body,
            const std::vector<std::pair<std::string, std::string>>& headers) override {
    SendView(status, content_type, body, headers);
  }

  // The same bytes as a string_body response would be (the header fields in this order, then
  // Content-Length from prepare_payload), with the body written from the caller's memory.
  void SendView(int status, std::string_view content_type, std::string_view body,
                const std::vector<std::pair<std::string, std::string>>& headers) override {
    bhttp::response<bhttp::span_body<const char>> res{static_cast<bhttp::status>(status),
                                                      version_};
    if (!content_type.empty()) res.set(bhttp::field::content_type, content_type);
    res.set("Audit-Id", "");
    res.set(bhttp::field::cache_control, "no-cache, private");
    for (const auto& [k, v] : headers) res.set(k, v);
    res.keep_alive(keep_alive_);
    res.body() = boost::span<const char>(body.data(), body.size());
    res.prepare_payload();
    beast::error_code ec;
    bhttp::write(socket_, res, ec);
    if (ec) failed_ = true;
    sent_ = true;
  }

  bool StartStream(int status, std::string_view content_type) override {
    bhttp::response<bhttp::empty_body> res{static_cast<bhttp::status>(status), version_};
    res.set(bhttp::field::content_type, content_type);
    res.set(bhttp::field::cache_control, "no-cache, private");
    res.chunked(true);
    res.keep_alive(false);
    bhttp::response_serializer<bhttp::empty_body> sr{res};
    beast::error_code ec;
    bhttp::write_header(socket_, sr, ec);
    sent_ = true;
    streaming_ = true;
    if (ec) failed_ = true;
    return !failed_;
  }

  bool WriteChunk(std::string_view data) override {
    if (failed_) return false;
    if (data.empty()) return true;
    beast::error_code ec;
    asio::write(socket_, bhttp::make_chunk(asio::const_buffer(data.data(), data.size())), ec);
    if (ec) failed_ = true;
    return !failed_;
  }

  void EndStream() override {
    if (failed_) return;
    beast::error_code ec;
    asio::write(socket_, bhttp::make_chunk_last(), ec);
    if (ec) failed_ = true;
  }

  bool Closed() override {
    if (failed_ || stopping_.load()) return true;
    pollfd p{};
    p.fd = socket_.native_handle();
    p.events = POLLIN | POLLRDHUP;
    if (::poll(&p, 1, 0) <= 0) return false;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
    char c;
    const ssize_t n = ::recv(p.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0;
  }

  bool sent() const { return sent_; }
  bool failed() const { return failed_; }
  bool streaming() const { return streaming_; }

 private:
  tcp::socket& socket_;
  unsigned version_;
  bool keep_alive_;
  const std::atomic<bool>& stopping_;
  bool sent_ = false;
  bool failed_ = false;
  bool streaming_ = false;
};

// Splits a request target into the path and the decoded query parameters.
void SplitTarget(HttpRequest& out) {
  std::string_view t = out.target;
  const size_t q = t.find('?');
  out.path = UrlDecode(t.substr(0, q), false);
  if (q == std::string_view::npos) return;
  std::string_view qs = t.substr(q + 1);
  while (!qs.empty()) {
    const size_t amp = qs.find('&');
    std::string_view kv = qs.substr(0, amp);
    if (!kv.empty()) {
      const size_t eq = kv.find('=');
      out.query.emplace(UrlDecode(kv.substr(0, eq), true),
                        eq == std::string_view::npos ? "" : UrlDecode(kv.substr(eq + 1), true));
    }
    if (amp == std::string_view::npos) break;
    qs.remove_prefix(amp + 1);
  }
}

// Beast's request parser writing straight into an HttpRequest. Not bhttp::request_parser:
// its header container (basic_fields) throws std::length_error for a field value over 64 KB,
// while Go's server takes any header section up to MaxHeaderBytes; here the only header limit
// is the parser's header_limit (error::header_limit, answered with 431).
class RequestParser final : public bhttp::basic_parser<true> {
 public:
  explicit RequestParser(HttpRequest* out) : out_(out) {}
  unsigned version() const { return version_; }

 private:
  void on_request_impl(bhttp::verb, beast::string_view method, beast::string_view target,
                       int version, beast::error_code&) override {
    out_->method.assign(method.data(), method.size());
    out_->target.assign(target.data(), target.size());
    version_ = static_cast<unsigned>(version);
  }
  void on_response_impl(int, beast::string_view, int, beast::error_code& ec) override {
    ec = bhttp::error::bad_version;  // not reached: this is a request parser
  }
  void on_field_impl(bhttp::field, beast::string_view name, beast::string_view value,
                     beast::error_code&) override {
    std::string lower(name.data(), name.size());
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out_->AddHeader(lower, std::string(value.data(), value.size()));
  }
  void on_header_impl(beast::error_code&) override {}
  // The body limit was checked before this call (Content-Length), so reserving is bounded.
  void on_body_init_impl(const boost::optional<std::uint64_t>& length,
                         beast::error_code&) override {
    if (length) out_->body.reserve(static_cast<size_t>(*length));
  }
  size_t on_body_impl(beast::string_view body, beast::error_code&) override {
    out_->body.append(body.data(), body.size());
    return body.size();
  }
  void on_chunk_header_impl(std::uint64_t, beast::string_view, beast::error_code&) override {}
  size_t on_chunk_body_impl(std::uint64_t, beast::string_view body,
                            beast::error_code&) override {
    out_->body.append(body.data(), body.size());
    return body.size();
  }
  void on_finish_impl(beast::error_code&) override {}

  HttpRequest* out_;
  unsigned version_ = 11;
};

// What a read error is answered with, as Go's net/http server (which serves kube-apiserver)
// answers it: nothing for a connection that closed or broke, 431 for a header section over
// the limit, 400 for malformed framing; 413 with kube's Status for a body over the limit
// (kube-apiserver's limitedReadBody).
enum class ReadFailure { kSilent, kHeaderTooLarge, kBodyTooLarge, kBadRequest };

ReadFailure Classify(const beast::error_code& ec) {
  if (ec == bhttp::error::header_limit) return ReadFailure::kHeaderTooLarge;
  if (ec == bhttp::error::body_limit) return ReadFailure::kBodyTooLarge;
  if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message ||
      ec == bhttp::error::short_read) {
    return ReadFailure::kSilent;
  }
  if (&ec.category() == &bhttp::make_error_code(bhttp::error::bad_target).category()) {
    return ReadFailure::kBadRequest;
  }
  return ReadFailure::kSilent;  // the socket's errors: reset, timeout, shutdown
}

// Go's net/http texts for requests it cannot read (server.go, conn.serve): a plain-text status
// line repeated as the body, and the connection closed.
constexpr char kGoErrorHeaders[] =
    "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n";
constexpr char kHeaderTooLarge[] = "431 Request Header Fields Too Large";
constexpr char kBadRequest[] = "400 Bad Request";
// kube-apiserver's answer to a body over MaxRequestBodyBytes (errors.NewRequestEntityTooLargeError).
constexpr char kBodyTooLargeStatus[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is )";

std::string InternalErrorStatus(std::string_view what) {
  // kube's errors.NewInternalError: the message, and the error again as the one cause. The text
  // is escaped for JSON by hand (this file does not see a JSON library).
  std::string esc;
  for (char ch : what) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      esc += '\\';
      esc += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      esc += buf;
    } else {
      esc += ch;
    }
  }
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: )" +
         esc + R"(","reason":"InternalError","details":{"causes":[{"message":")" + esc +
         R"("}]},"code":500})";
}

}  // namespace

void SplitRequestTarget(HttpRequest& r) { SplitTarget(r); }

struct HttpServer::Impl {
  ServerOptions options;
  Handler handler;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread accept_thread;
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::list<std::unique_ptr<Connection>> connections;
  uint16_t port = 0;

  void Log(const std::string& line) {
    if (options.log) {
      options.log(line);
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }

  void AcceptLoop() {
    while (!stopping.load()) {
      beast::error_code ec;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (ec) {
        if (stopping.load()) return;
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      std::lock_guard<std::mutex> lock(mu);
      Reap();
      auto conn = std::make_unique<Connection>(std::move(socket));
      Connection* c = conn.get();
      try {
        c->thread = std::thread([this, c] {
          ServeGuarded(*c);
          c->done = true;
        });
      } catch (const std::system_error& e) {
        // No thread for this connection (the process is out of threads): it is closed
        // unanswered, as a listener whose backlog is full would drop it.
        Log(std::string("http: cannot serve a connection: ") + e.what());
        continue;  // `conn` closes the socket
      }
      connections.push_back(std::move(conn));
    }
  }

  // Joins finished connection threads. Requires mu.
  void Reap() {
    for (auto it = connections.begin(); it != connections.end();) {
      if ((*it)->done.load()) {
        (*it)->thread.join();
        it = connections.erase(it);
      } else {
        ++it;
      }
    }
  }

  // The connection thread's body: nothing thrown may leave a thread (std::terminate).
  void ServeGuarded(Connection& c) {
    try {
      Serve(c);
    } catch (const std::exception& e) {
      Log(std::string("http: connection failed: ") + e.what());
    } catch (...) {
      Log("http: connection failed: unknown exception");
    }
    beast::error_code ec;
    c.socket.shutdown(tcp::socket::shutdown_both, ec);
    c.socket.close(ec);
  }

  void WriteRaw(Connection& c, const std::string& bytes) {
    beast::error_code ec;
    asio::write(c.socket, asio::buffer(bytes), ec);
  }

  // After an answer that ends the connection while the client may still be sending (a body
  // over the limit): closes our side for writing and reads what is in flight for a short
  // while, so that closing does not reset the connection before the client read the answer
  // (Go's closeWriteAndWait waits 500 ms for the same reason). Bounded in bytes and in polls.
  void LingerAndDiscard(Connection& c) {
    const int fd = c.socket.native_handle();
    ::shutdown(fd, SHUT_WR);
    char sink[16384];
    size_t discarded = 0;
    int idle_polls = 0, reads = 0;
    while (idle_polls < 5 && discarded < (64u << 20) && reads < 4096 && !stopping.load()) {
      pollfd p{fd, POLLIN, 0};
      const int r = ::poll(&p, 1, 100);
      if (r < 0 && errno != EINTR) return;
      if (r <= 0) {
        ++idle_polls;
        continue;
      }
      const ssize_t n = ::recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
      if (n <= 0) return;
      discarded += static_cast<size_t>(n);
      ++reads;
    }
  }

  // Answers a request that could not be read, as Go's server would, and returns.
  void AnswerReadFailure(Connection& c, ReadFailure failure) {
    switch (failure) {
      case ReadFailure::kSilent:
        return;
      case ReadFailure::kHeaderTooLarge:
        WriteRaw(c, std::string("HTTP/1.1 ") + kHeaderTooLarge + kGoErrorHeaders +
                        kHeaderTooLarge);
        break;
      case ReadFailure::kBadRequest:
        WriteRaw(c, std::string("HTTP/1.1 ") + kBadRequest + kGoErrorHeaders + kBadRequest);
        break;
      case ReadFailure::kBodyTooLarge: {
        BeastWriter w(c.socket, 11, false, stopping);
        w.Send(413, "application/json",
               kBodyTooLargeStatus + std::to_string(options.max_body_bytes) +
                   R"(","reason":"RequestEntityTooLarge","code":413})",
               {});
        break;
      }
    }
    LingerAndDiscard(c);
  }

  // Calls the handler; an exception from it is the last line of defence against a decoder
  // that throws: a 500 Status (when nothing was sent yet) and a log line, never a dead process.
  // Returns false when the connection must end.
  bool CallHandler(const HttpRequest& r, BeastWriter& writer) {
    std::string what;
    try {
      handler(r, writer);
      return true;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
      what = "unknown exception";
    }
    Log("http: exception serving " + r.remote + " " + r.method + " " + r.target + ": " + what);
    if (!writer.sent()) {
      writer.Send(500, "application/json", InternalErrorStatus(what), {});
      return true;
    }
    return false;  // a response was under way: its framing is unknown, end the connection
  }

  void Serve(Connection& c) {
    // Beast reads max(512, free capacity) bytes at a time: an empty buffer took five recv calls
    // for a 2.5 KB create. With 16 KB free, a request up to that size is one recv.
    beast::flat_buffer buffer;
    buffer.reserve(16 << 10);
    beast::error_code ec;
    std::string remote;
    {
      auto ep = c.socket.remote_endpoint(ec);
      if (!ec) remote = ep.address().to_string() + ":" + std::to_string(ep.port());
    }
    while (!stopping.load()) {
      HttpRequest r;
      RequestParser parser(&r);
      parser.body_limit(options.max_body_bytes);
      parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
      bhttp::read_header(c.socket, buffer, parser, ec);
      if (!ec && !parser.is_done()) {
        // A client that asked to be told before sending the body (curl does above 1 MB) is
        // told now, as Go's server does when the handler first reads the body.
        auto expect = r.headers.find("expect");
        if (expect != r.headers.end() && beast::iequals(expect->second, "100-continue")) {
          WriteRaw(c, "HTTP/1.1 100 Continue\r\n\r\n");
        }
        bhttp::read(c.socket, buffer, parser, ec);
      }
      if (ec) {
        AnswerReadFailure(c, Classify(ec));
        return;
      }
      const bool keep_alive = parser.keep_alive();
      BeastWriter writer(c.socket, parser.version(), keep_alive, stopping);
      r.remote = remote;
      SplitTarget(r);
      if (!CallHandler(r, writer)) return;
      if (!writer.sent()) {
        writer.Send(500, "text/plain", "handler sent no response\n", {});
      }
      if (writer.failed() || writer.streaming() || !keep_alive) return;
    }
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(ServerOptions options, Handler handler) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->handler = std::move(handler);
  beast::error_code ec;
  auto address = asio::ip::make_address(options.address, ec);
  if (ec) {
    return Status(StatusCode::kInvalidArgument,
                  "invalid listen address \"" + options.address + "\": " + ec.message());
  }
  tcp::endpoint ep(address, options.port);
  impl->acceptor.open(ep.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(ep, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable, "listen tcp " + options.address + ":" +
                                                std::to_string(options.port) + ": " +
                                                ec.message());
  }
  impl->port = impl->acceptor.local_endpoint().port();
  Impl* raw = impl.get();
  impl->accept_thread = std::thread([raw] { raw->AcceptLoop(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::~HttpServer() { Stop(); }

uint16_t HttpServer::port() const { return impl_->port; }
const std::string& HttpServer::address() const { return impl_->options.address; }

void HttpServer::Stop() {
  if (impl_->stopping.exchange(true)) return;
  beast::error_code ec;
  // Unblock accept(): shutting the listening socket down wakes the blocked call.
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  impl_->acceptor.close(ec);
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();
  std::list<std::unique_ptr<Connection>> conns;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (auto& c : impl_->connections) {
      ::shutdown(c->socket.native_handle(), SHUT_RDWR);
    }
    conns.swap(impl_->connections);
  }
  for (auto& c : conns) {
    if (c->thread.joinable()) c->thread.join();
  }
}

}  // namespace tidepool::apiserver::http
