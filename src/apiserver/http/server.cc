#include "apiserver/http/server.h"

#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <mutex>
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
    res.set(bhttp::field::content_type, content_type);
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

// Takes the request's body (no copy of it).
HttpRequest Convert(bhttp::request<bhttp::string_body>& req, const std::string& remote) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  out.target = std::string(req.target());
  out.remote = remote;
  std::string_view t = out.target;
  const size_t q = t.find('?');
  out.path = UrlDecode(t.substr(0, q), false);
  if (q != std::string_view::npos) {
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
  for (const auto& f : req) {
    std::string name(f.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[name] = std::string(f.value());
  }
  out.body = std::move(req.body());
  return out;
}

}  // namespace

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
      connections.push_back(std::move(conn));
      c->thread = std::thread([this, c] {
        Serve(*c);
        c->done = true;
      });
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
      bhttp::request_parser<bhttp::string_body> parser;
      parser.body_limit(options.max_body_bytes);
      parser.header_limit(1 << 20);
      bhttp::read(c.socket, buffer, parser, ec);
      if (ec == bhttp::error::end_of_stream || ec) {
        if (ec == bhttp::error::body_limit) {
          BeastWriter w(c.socket, 11, false, stopping);
          w.Send(413, "application/json",
                 R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413})", {});
        }
        break;
      }
      auto& req = parser.get();
      BeastWriter writer(c.socket, req.version(), req.keep_alive(), stopping);
      HttpRequest r = Convert(req, remote);
      handler(r, writer);
      if (!writer.sent()) {
        writer.Send(500, "text/plain", "handler sent no response\n", {});
      }
      if (writer.failed() || writer.streaming() || !req.keep_alive()) break;
    }
    c.socket.shutdown(tcp::socket::shutdown_both, ec);
    c.socket.close(ec);
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
