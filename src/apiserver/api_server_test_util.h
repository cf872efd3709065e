// File: api_server_test_util.h
//
// What the API server's tests share: a ResponseWriter that keeps the answer, and a fixture
// that sends requests to an ApiServer over a simulated clock and an in-memory store (with the
// default and kube-system namespaces).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/api_server.h"

namespace tidepool::apiserver {

class FakeWriter : public http::ResponseWriter {
 public:
  void Send(int status, std::string_view content_type, std::string body,
            const std::vector<std::pair<std::string, std::string>>& headers) override {
    code = status;
    type = std::string(content_type);
    this->body = std::move(body);
    this->headers = headers;
  }
  bool StartStream(int status, std::string_view content_type) override {
    code = status;
    type = std::string(content_type);
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    body += data;
    return ++chunks < max_chunks;
  }
  void EndStream() override {}
  bool Closed() override { return chunks >= max_chunks; }

  nlohmann::json Json() const { return nlohmann::json::parse(body); }

  int code = 0;
  std::string type, body;
  std::vector<std::pair<std::string, std::string>> headers;
  int chunks = 0;
  int max_chunks = 1000;
};

class ApiServerTest : public ::testing::Test {
 protected:
  FakeWriter Do(const std::string& method, const std::string& target, std::string body = "",
                std::map<std::string, std::string> headers = {}) {
    http::HttpRequest req;
    req.method = method;
    req.target = target;
    const size_t q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string qs = target.substr(q + 1);
      size_t start = 0;
      while (start <= qs.size()) {
        size_t amp = qs.find('&', start);
        std::string kv =
            qs.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
        size_t eq = kv.find('=');
        req.query.emplace(kv.substr(0, eq),
                          eq == std::string::npos ? "" : http::UrlDecode(kv.substr(eq + 1), true));
        if (amp == std::string::npos) break;
        start = amp + 1;
      }
    }
    req.headers = std::move(headers);
    if (!req.headers.count("content-type")) req.headers["content-type"] = "application/json";
    req.body = std::move(body);
    FakeWriter w;
    server_.Handle(req, w);
    return w;
  }

  void SetUp() override {
    for (const char* ns : {"default", "kube-system"}) {
      auto w = Do(
          "POST", "/api/v1/namespaces",
          nlohmann::json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}
              .dump());
      ASSERT_EQ(w.code, 201) << w.body;
    }
  }

  SimulatedClock clock_;
  ObjectStore store_{clock_, nullptr};
  PodLogs logs_{&clock_};
  ApiServer server_{clock_, store_, logs_, ApiServerOptions{"127.0.0.1:6443"}};
};

}  // namespace tidepool::apiserver
