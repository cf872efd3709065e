#include "apiserver/http/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <mutex>
#include <stdexcept>
#include <thread>

namespace tidepool::apiserver::http {
namespace {

// One raw connection to the server (what curl or an attacker would send, byte for byte).
class RawConn {
 public:
  explicit RawConn(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  }
  ~RawConn() { ::close(fd_); }
  bool connected() const { return connected_; }
  // Sends everything (false when the peer stopped reading and closed).
  bool Send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Reads until the server closes (or 10 s without a byte: a test failure, not a hang).
  std::string ReadAll() {
    std::string out;
    char buf[65536];
    while (true) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) break;
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  // Reads until `needle` was seen (or the server closed).
  std::string ReadUntil(std::string_view needle) {
    std::string out;
    char buf[4096];
    while (out.find(needle) == std::string::npos) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) break;
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions o;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(line);
    };
    auto s = HttpServer::Start(o, [this](const HttpRequest& req, ResponseWriter& w) {
      if (req.path == "/throw") throw std::runtime_error("decoder said \"no\"");
      if (req.path == "/throw-late") {
        w.StartStream(200, "application/json");
        w.WriteChunk("{}\n");
        throw std::logic_error("after the headers");
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        last_ = req;
      }
      w.Send(200, "text/plain", "ok " + std::to_string(req.body.size()));
    });
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(s).value();
  }
  uint16_t port() const { return server_->port(); }
  // A request that the server must still answer (the process and the listener are alive).
  void ExpectServing() {
    RawConn c(port());
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.Send("GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    const std::string r = c.ReadAll();
    EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r.substr(0, 200);
  }
  HttpRequest Last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }
  std::vector<std::string> Log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

  std::unique_ptr<HttpServer> server_;
  std::mutex mu_;
  HttpRequest last_;
  std::vector<std::string> log_;
};

TEST_F(HttpServerTest, AHeaderValueOver64KiBIsServed) {
  // Beast's own header container throws std::length_error for this (the crash of issue 14);
  // Go's server takes it (under MaxHeaderBytes), and so does this one.
  const std::string big(70000, 'a');
  RawConn c(port());
  ASSERT_TRUE(c.Send("GET /version?x=1 HTTP/1.1\r\nHost: x\r\nX-Big: " + big +
                     "\r\nConnection: close\r\n\r\n"));
  const std::string r = c.ReadAll();
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r.substr(0, 200);
  const HttpRequest last = Last();
  EXPECT_EQ(last.Header("x-big"), big);
  EXPECT_EQ(last.path, "/version");
  EXPECT_EQ(last.Query("x"), "1");
  EXPECT_EQ(last.method, "GET");
}

TEST_F(HttpServerTest, AHeaderSectionOverTheLimitIs431AsGoAnswersIt) {
  const std::string big((1 << 20) + 4096, 'a');
  RawConn c(port());
  // The server answers once the limit is passed; the rest may not all be taken.
  (void)c.Send("GET /version HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n");
  EXPECT_EQ(c.ReadAll(),
            "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; "
            "charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large");
  ExpectServing();
}

TEST_F(HttpServerTest, AHeaderSectionJustUnderTheLimitIsServed) {
  // Request line + headers + the blank line: 1 MiB + 4 KiB in all, as Go's read limit.
  const std::string head = "GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ";
  const std::string big((1 << 20) + 4096 - head.size() - 4 - 1, 'a');
  RawConn c(port());
  ASSERT_TRUE(c.Send(head + big + "\r\n\r\n"));
  const std::string r = c.ReadAll();
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r.substr(0, 200);
}

TEST_F(HttpServerTest, MalformedFramingIs400) {
  for (const char* bad : {"GARBAGE\r\n\r\n", "GET / HTTP/9.9\r\n\r\n",
                          "GET / HTTP/1.1\r\nBad Header\r\n\r\n",
                          "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
                          "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}) {
    SCOPED_TRACE(bad);
    RawConn c(port());
    ASSERT_TRUE(c.Send(bad));
    EXPECT_EQ(c.ReadAll(),
              "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
              "Connection: close\r\n\r\n400 Bad Request");
  }
  ExpectServing();
}

TEST_F(HttpServerTest, AClientGoneMidRequestGetsNothingAndHarmsNothing) {
  {
    RawConn c(port());
    ASSERT_TRUE(c.Send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"));
  }
  {
    RawConn c(port());
    ASSERT_TRUE(c.Send("GET /x HTTP/1.1\r\nHost: x\r\nX-Half: "));
  }
  ExpectServing();
}

std::string Post(size_t body_bytes, bool chunked) {
  std::string req = "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
                    "Content-Type: application/json\r\nConnection: close\r\n";
  const std::string body(body_bytes, 'x');
  if (chunked) {
    req += "Transfer-Encoding: chunked\r\n\r\n";
    for (size_t at = 0; at < body.size(); at += 1 << 20) {
      const size_t n = std::min<size_t>(1 << 20, body.size() - at);
      char len[32];
      std::snprintf(len, sizeof(len), "%zx\r\n", n);
      req += len;
      req.append(body, at, n);
      req += "\r\n";
    }
    req += "0\r\n\r\n";
  } else {
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  return req;
}

constexpr char k413[] =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
    "\"Request entity too large: limit is 3145728\",\"reason\":\"RequestEntityTooLarge\","
    "\"code\":413}";

TEST_F(HttpServerTest, BodiesOverThreeMebibytesAre413WithKubesStatus) {
  for (bool chunked : {false, true}) {
    SCOPED_TRACE(chunked ? "chunked" : "content-length");
    {
      RawConn c(port());
      ASSERT_TRUE(c.Send(Post(3 << 20, chunked)));
      const std::string r = c.ReadAll();
      EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r.substr(0, 300);
      EXPECT_NE(r.find("ok 3145728"), std::string::npos);
    }
    {
      RawConn c(port());
      (void)c.Send(Post((3 << 20) + 1, chunked));
      const std::string r = c.ReadAll();
      EXPECT_EQ(r.rfind("HTTP/1.1 413 Payload Too Large\r\n", 0), 0u) << r.substr(0, 300);
      EXPECT_NE(r.find("Connection: close\r\n"), std::string::npos);
      EXPECT_EQ(r.substr(r.find("\r\n\r\n") + 4), k413);
    }
  }
  // 50 MB announced: refused from the headers, before any of the body is read.
  RawConn c(port());
  ASSERT_TRUE(c.Send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n"));
  const std::string r = c.ReadAll();
  EXPECT_EQ(r.substr(r.find("\r\n\r\n") + 4), k413);
  ExpectServing();
}

TEST_F(HttpServerTest, ExpectContinueIsAnsweredBeforeTheBody) {
  RawConn c(port());
  ASSERT_TRUE(c.Send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                     "Expect: 100-continue\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(c.ReadUntil("\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(c.Send("hello"));
  const std::string r = c.ReadAll();
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("ok 5"), std::string::npos);
}

TEST_F(HttpServerTest, AHandlerThatThrowsGetsA500StatusAndALogLine) {
  RawConn c(port());
  ASSERT_TRUE(c.Send("GET /throw HTTP/1.1\r\nHost: x\r\n\r\n"
                     "GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const std::string r = c.ReadAll();
  EXPECT_EQ(r.rfind("HTTP/1.1 500 Internal Server Error\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                   "\"message\":\"Internal error occurred: decoder said \\\"no\\\"\",\"reason\":"
                   "\"InternalError\",\"details\":{\"causes\":[{\"message\":\"decoder said "
                   "\\\"no\\\"\"}]},\"code\":500}"),
            std::string::npos)
      << r;
  // The same connection goes on to the next request.
  EXPECT_NE(r.find("HTTP/1.1 200 OK\r\n"), std::string::npos) << r;
  EXPECT_EQ(Last().path, "/after");
  const std::vector<std::string> log = Log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "http: exception serving " + Last().remote + " GET /throw: decoder said \"no\"");
}

TEST_F(HttpServerTest, AHandlerThatThrowsMidStreamEndsTheConnection) {
  RawConn c(port());
  ASSERT_TRUE(c.Send("GET /throw-late HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string r = c.ReadAll();  // the server closes: the stream is cut short
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_EQ(r.find("0\r\n\r\n"), std::string::npos) << r;
  ASSERT_EQ(Log().size(), 1u);
  ExpectServing();
}

}  // namespace
}  // namespace tidepool::apiserver::http
