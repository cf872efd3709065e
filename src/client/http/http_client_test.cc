#include "client/http/http_client.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "apiserver/http/server.h"
#include "cloud/gke/tls_endpoint.h"
#include "testing/temp_dir.h"

namespace tidepool::client::http {
namespace {

namespace srv = apiserver::http;

TEST(LineSplitterTest, CutsLines) {
  struct Case {
    std::string name;
    std::vector<std::string> chunks;
    std::vector<std::string> lines;
    std::string pending;
  };
  const std::vector<Case> cases = {
      {"one line in one chunk", {"a\n"}, {"a"}, ""},
      {"a line split across chunks", {"ab", "c\nd"}, {"abc"}, "d"},
      {"several lines in a chunk, CRLF dropped", {"x\r\ny\n\nz\n"}, {"x", "y", "", "z"}, ""},
      {"no newline yet", {"{\"type\":"}, {}, "{\"type\":"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    LineSplitter s;
    std::vector<std::string> got;
    for (const std::string& c : tc.chunks) {
      EXPECT_TRUE(s.Feed(c, [&](std::string_view line) {
        got.emplace_back(line);
        return true;
      }));
    }
    EXPECT_EQ(got, tc.lines);
    EXPECT_EQ(s.pending(), tc.pending);
  }
}

TEST(LineSplitterTest, StopsWhenTold) {
  LineSplitter s;
  int n = 0;
  EXPECT_FALSE(s.Feed("a\nb\nc\n", [&](std::string_view) { return ++n < 2; }));
  EXPECT_EQ(n, 2);
}

TEST(UrlEncodeTest, EncodesReserved) {
  EXPECT_EQ(UrlEncode("app=web,tier in (a b)"), "app%3Dweb%2Ctier%20in%20%28a%20b%29");
  EXPECT_EQ(UrlEncode("a-b_c.d~"), "a-b_c.d~");
}

// An echo server: answers with the method, path, a header and the body.
class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = srv::HttpServer::Start({}, [this](const srv::HttpRequest& req, srv::ResponseWriter& w) { Handle(req, w); });
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(s).value();
  }
  void TearDown() override { server_->Stop(); }

  void Handle(const srv::HttpRequest& req, srv::ResponseWriter& w) {
    if (req.path == "/slow") {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      w.Send(200, "text/plain", "late");
      return;
    }
    if (req.path == "/stream") {
      if (!w.StartStream(200, "application/json")) return;
      for (int i = 0; i < 3; ++i) {
        if (!w.WriteChunk("{\"n\":" + std::to_string(i) + "}\n")) return;
      }
      // Then keep the stream open (idle) until the peer goes away.
      for (int i = 0; i < 100 && !w.Closed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      w.EndStream();
      return;
    }
    if (req.path == "/missing") {
      w.Send(404, "application/json", "{\"kind\":\"Status\"}", {{"X-Thing", "a"}});
      return;
    }
    w.Send(201, "text/plain", req.method + " " + req.path + " " + req.Header("x-test") + " " + req.body,
           {{"X-Reply", "yes"}});
  }

  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(server_->port()) + path; }

  std::unique_ptr<srv::HttpServer> server_;
};

TEST_F(HttpClientTest, SendsRequestsAndReadsAnswers) {
  HttpClient client;
  for (const std::string method : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
    SCOPED_TRACE(method);
    HttpRequest req;
    req.method = method;
    req.url = Url("/echo");
    req.headers = {{"X-Test", "v"}};
    if (method != "GET") req.body = "{\"a\":1}";
    auto resp = client.Do(req);
    ASSERT_TRUE(resp.ok()) << resp.status().ToString();
    EXPECT_EQ(resp->status, 201);
    EXPECT_EQ(resp->body, method + " /echo v " + req.body);
    EXPECT_EQ(resp->Header("x-reply"), "yes");
    EXPECT_EQ(resp->Header("content-type"), "text/plain");
  }
  HttpRequest req;
  req.url = Url("/missing");
  auto resp = client.Do(req);
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->status, 404);
  EXPECT_EQ(resp->Header("x-thing"), "a");
}

TEST_F(HttpClientTest, IsThreadSafe) {
  HttpClient client;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        HttpRequest req;
        req.url = Url("/echo");
        auto resp = client.Do(req);
        if (resp.ok() && resp->status == 201) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 80);
}

TEST_F(HttpClientTest, TransportErrorsAreValues) {
  HttpClient client;
  const uint16_t port = server_->port();
  server_->Stop();
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/api";
  auto resp = client.Do(req);
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(resp.status().message().rfind("Get \"" + req.url + "\": ", 0), 0u) << resp.status().ToString();
}

TEST_F(HttpClientTest, TimeoutIsDeadlineExceeded) {
  HttpClient client;
  HttpRequest req;
  req.url = Url("/slow");
  req.timeout = std::chrono::milliseconds(200);
  auto resp = client.Do(req);
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), StatusCode::kDeadlineExceeded) << resp.status().ToString();
}

TEST_F(HttpClientTest, StreamsUntilTheCallbackStops) {
  HttpClient client;
  HttpRequest req;
  req.url = Url("/stream");
  LineSplitter lines;
  std::vector<std::string> got;
  auto resp = client.Stream(req, [&](std::string_view chunk) {
    return lines.Feed(chunk, [&](std::string_view line) {
      got.emplace_back(line);
      return got.size() < 2;
    });
  });
  ASSERT_TRUE(resp.ok()) << resp.status().ToString();
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(got, (std::vector<std::string>{"{\"n\":0}", "{\"n\":1}"}));
}

TEST_F(HttpClientTest, CancelStopsAnIdleStreamPromptly) {
  HttpClient client;
  std::atomic<bool> cancel{false};
  HttpRequest req;
  req.url = Url("/stream");
  req.cancel = &cancel;
  std::atomic<int> chunks{0};
  std::thread canceller([&] {
    while (chunks.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel.store(true);
  });
  RealClock clock;
  const TimePoint start = clock.Now();
  auto resp = client.Stream(req, [&](std::string_view) {
    ++chunks;
    return true;
  });
  canceller.join();
  EXPECT_EQ(resp.status().code(), StatusCode::kCancelled);
  EXPECT_LT(clock.Now() - start, std::chrono::seconds(2));
}

TEST_F(HttpClientTest, NonSuccessStreamIsCollected) {
  HttpClient client;
  HttpRequest req;
  req.url = Url("/missing");
  bool called = false;
  auto resp = client.Stream(req, [&](std::string_view) { return called = true; });
  ASSERT_TRUE(resp.ok());
  EXPECT_FALSE(called);
  EXPECT_EQ(resp->status, 404);
  EXPECT_EQ(resp->body, "{\"kind\":\"Status\"}");
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// TLS through cloud/gke's TlsEndpoint (a throw-away CA and a server certificate for 127.0.0.1).
TEST_F(HttpClientTest, TlsWithCaBlobInsecureAndClientCertificate) {
  RealClock clock;
  auto tls = cloud::gke::TlsEndpoint::Start("127.0.0.1", 0, "127.0.0.1", server_->port(), clock);
  ASSERT_TRUE(tls.ok()) << tls.status().ToString();
  const std::string url = "https://127.0.0.1:" + std::to_string((*tls)->port()) + "/echo";
  HttpRequest req;
  req.url = url;
  {
    SCOPED_TRACE("the endpoint's CA as a PEM blob");
    HttpClientOptions o;
    o.tls.ca_pem = (*tls)->ca_pem();
    auto resp = HttpClient(o).Do(req);
    ASSERT_TRUE(resp.ok()) << resp.status().ToString();
    EXPECT_EQ(resp->status, 201);
  }
  {
    SCOPED_TRACE("no CA: the system's bundle does not know it");
    auto resp = HttpClient().Do(req);
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), StatusCode::kUnavailable);
  }
  {
    SCOPED_TRACE("insecure-skip-tls-verify");
    HttpClientOptions o;
    o.tls.insecure_skip_verify = true;
    auto resp = HttpClient(o).Do(req);
    ASSERT_TRUE(resp.ok()) << resp.status().ToString();
  }
  // A client certificate as PEM blobs (the endpoint does not ask for one, but curl loads and
  // checks the pair before the handshake: a broken key fails the request).
  const std::string dir = tidepool::testing::TestTempDir();
  const std::string cmd = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
                          "-subj /CN=tester -keyout " + dir + "/key.pem -out " + dir + "/cert.pem >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "openssl is not available";
  {
    SCOPED_TRACE("a valid client certificate");
    HttpClientOptions o;
    o.tls.ca_pem = (*tls)->ca_pem();
    o.tls.client_cert_pem = Slurp(dir + "/cert.pem");
    o.tls.client_key_pem = Slurp(dir + "/key.pem");
    auto resp = HttpClient(o).Do(req);
    ASSERT_TRUE(resp.ok()) << resp.status().ToString();
    EXPECT_EQ(resp->status, 201);
  }
  {
    SCOPED_TRACE("a certificate with a key that is not PEM");
    HttpClientOptions o;
    o.tls.ca_pem = (*tls)->ca_pem();
    HttpRequest bad = req;
    bad.client_cert_and_key = std::make_pair(Slurp(dir + "/cert.pem"), std::string("not a key"));
    auto resp = HttpClient(o).Do(bad);
    EXPECT_FALSE(resp.ok());
  }
  (*tls)->Stop();
}

}  // namespace
}  // namespace tidepool::client::http
