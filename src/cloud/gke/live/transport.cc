// File: transport.cc
#include "cloud/gke/live/transport.h"

#include <cctype>

namespace tidepool::cloud::gke::live {

std::string UrlDecode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

StatusOr<HttpReply> InProcessTransport::Do(const HttpCall& call) {
  std::string_view url = call.url;
  size_t start = 0;
  if (size_t scheme = url.find("://"); scheme != std::string_view::npos) {
    start = url.find('/', scheme + 3);
    if (start == std::string_view::npos) start = url.size();
  }
  std::string_view rest = url.substr(start);
  std::string_view query;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  GkeRequest request;
  request.method = call.method;
  request.path = rest.empty() ? std::string(1, '/') : UrlDecode(rest);
  request.body = call.body;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    size_t eq = kv.find('=');
    request.query.emplace(UrlDecode(kv.substr(0, eq)),
                          eq == std::string_view::npos ? "" : UrlDecode(kv.substr(eq + 1)));
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  GkeResponse r = api_.Handle(request);
  return HttpReply{r.status, std::move(r.body)};
}

}  // namespace tidepool::cloud::gke::live
