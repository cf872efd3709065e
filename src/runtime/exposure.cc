#include "runtime/exposure.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apiserver/http/server.h"
#include "cloud/gke/gke_api.h"
#include "common/base64.h"

namespace tidepool::runtime {
namespace {

using nlohmann::json;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool EqualsConstantTime(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

}  // namespace

bool IsLoopbackAddress(std::string_view address) {
  if (address == "localhost" || address == "::1" || address == "[::1]") return true;
  in_addr a{};
  const std::string text(address);
  if (::inet_pton(AF_INET, text.c_str(), &a) != 1) return false;
  return (ntohl(a.s_addr) >> 24) == 127;
}

std::vector<std::string> LocalIpv4Addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if ((i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0) continue;
    char buf[INET_ADDRSTRLEN] = {0};
    const auto* sin = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    if (::inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof(buf)) == nullptr) continue;
    if (IsLoopbackAddress(buf)) continue;
    out.emplace_back(buf);
  }
  ::freeifaddrs(list);
  return out;
}

StatusOr<std::string> NewBearerToken() {
  unsigned char bytes[32];
  FILE* f = std::fopen("/dev/urandom", "rb");
  if (f == nullptr) return UnavailableError("cannot open /dev/urandom for a bearer token");
  const size_t n = std::fread(bytes, 1, sizeof(bytes), f);
  std::fclose(f);
  if (n != sizeof(bytes)) return UnavailableError("short read from /dev/urandom");
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)),
                      Base64Encoding::kRawUrl);
}

bool BearerMatches(std::string_view authorization, std::string_view token) {
  if (token.empty() || authorization.size() < 7) return false;
  const std::string_view scheme = authorization.substr(0, 7);
  for (size_t i = 0; i < 6; ++i) {
    if (std::tolower(static_cast<unsigned char>(scheme[i])) != "bearer"[i]) return false;
  }
  if (scheme[6] != ' ') return false;
  std::string_view given = authorization.substr(7);
  while (!given.empty() && given.front() == ' ') given.remove_prefix(1);
  while (!given.empty() && (given.back() == ' ' || given.back() == '\t')) given.remove_suffix(1);
  return EqualsConstantTime(given, token);
}

std::string KubernetesUnauthorizedBody() {
  // kube-apiserver's responsewriters.UnauthorizedResponse, byte for byte.
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
         R"("message":"Unauthorized","reason":"Unauthorized","code":401})";
}

std::string GoogleUnauthenticatedBody(std::string_view path, bool missing) {
  static constexpr char kSeeAlso[] =
      " Expected OAuth 2 access token, login cookie or other valid authentication credential. "
      "See https://developers.google.com/identity/sign-in/web/devconsole-project.";
  const bool compute = StartsWith(path, "/compute/");
  // Google's member order: code, message, (errors,) status, details.
  using ordered = nlohmann::ordered_json;
  ordered error = {{"code", 401},
                   {"message", std::string(missing
                                               ? "Request is missing required authentication "
                                                 "credential."
                                               : "Request had invalid authentication "
                                                 "credentials.") +
                                   kSeeAlso}};
  if (compute) {
    // Compute Engine's v1 API also lists errors[] (the older Google API error shape).
    error["errors"] = ordered::array({{{"message", missing ? "Login Required." : "Invalid Credentials"},
                                       {"domain", "global"},
                                       {"reason", missing ? "required" : "authError"},
                                       {"location", "Authorization"},
                                       {"locationType", "header"}}});
  }
  error["status"] = "UNAUTHENTICATED";
  error["details"] = ordered::array(
      {{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
        {"reason", missing ? "CREDENTIALS_MISSING" : "ACCESS_TOKEN_TYPE_UNSUPPORTED"},
        {"domain", "googleapis.com"},
        {"metadata",
         {{"service", compute ? "compute.googleapis.com" : "container.googleapis.com"}}}}});
  return ordered{{"error", error}}.dump();
}

std::optional<Denial> ApiAccess::Check(const apiserver::http::HttpRequest& request) const {
  const std::string authorization = request.Header("authorization");
  if (cloud::gke::IsGkePath(request.path)) {
    if (BearerMatches(authorization, token_)) return std::nullopt;
    return Denial{401, "application/json; charset=UTF-8",
                  GoogleUnauthenticatedBody(request.path, authorization.empty())};
  }
  constexpr std::string_view kEksBearer = "Bearer k8s-aws-v1.";
  if (eks_token_valid_ && StartsWith(authorization, kEksBearer)) {
    if (eks_token_valid_(std::string_view(authorization).substr(7))) return std::nullopt;
    return Denial{401, "application/json", KubernetesUnauthorizedBody()};
  }
  if (!kubernetes_needs_token_ || BearerMatches(authorization, token_)) return std::nullopt;
  return Denial{401, "application/json", KubernetesUnauthorizedBody()};
}

}  // namespace tidepool::runtime
