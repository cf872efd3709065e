// The service registry's allocations (kube's pkg/registry/core/service, 1.32): a Service that
// is not ExternalName gets a cluster IP from the service range (GKE's default,
// 34.118.224.0/20: the kubernetes Service holds its first address) unless it asks for one or
// for none ("None": headless), with spec.clusterIPs, ipFamilies [IPv4] and ipFamilyPolicy
// SingleStack; NodePort and LoadBalancer ports get node ports from 30000-32767. Taken
// addresses and ports are read from the stored Services (a registry of a few hundred objects).
// An update keeps the allocated IP when the new object does not name one.
#include <arpa/inet.h>

#include <set>

#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr uint32_t kRangeBase = (34u << 24) | (118u << 16) | (224u << 8);  // 34.118.224.0
constexpr uint32_t kRangeSize = 1u << 12;                                  // /20
constexpr int kNodePortMin = 30000;
constexpr int kNodePortMax = 32767;

std::string IpString(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
         std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

std::optional<uint32_t> ParseIp(const std::string& s) {
  in_addr a{};
  if (inet_pton(AF_INET, s.c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

ApiError InvalidService(const Context& c, const std::string& name, api::FieldError e) {
  return Invalid(c.res, name, {std::move(e)});
}

}  // namespace

std::optional<ApiError> AllocateService(Context& c, json& svc, const std::string& ns,
                                        const std::string& name) {
  json& spec = svc["spec"];
  if (!spec.is_object()) return std::nullopt;  // validation refuses it
  const std::string type = Str(spec, "type").empty() ? "ClusterIP" : Str(spec, "type");
  if (type == "ExternalName") return std::nullopt;
  std::set<uint32_t> taken_ips;
  std::set<int64_t> taken_ports;
  for (const ObjectPtr& o : c.store.List(StorageOf(c.res), "").items) {
    const json other = o->Parse();
    if (auto ip = ParseIp(Str(other, "spec", "clusterIP"))) taken_ips.insert(*ip);
    const json* ports = Member(other, "spec");
    ports = ports != nullptr ? Member(*ports, "ports") : nullptr;
    if (ports == nullptr || !ports->is_array()) continue;
    for (const json& p : *ports) {
      const json* np = Member(p, "nodePort");
      if (np != nullptr && np->is_number_integer()) taken_ports.insert(np->get<int64_t>());
    }
  }
  std::string ip = Str(spec, "clusterIP");
  if (ip.empty()) {
    // The first free address after the range's base and its first (the kubernetes Service's).
    for (uint32_t i = 1; i < kRangeSize - 1; ++i) {
      if (taken_ips.count(kRangeBase + i) == 0 &&
          (i != 1 || (ns == "default" && name == "kubernetes"))) {
        ip = IpString(kRangeBase + i);
        break;
      }
    }
    if (ip.empty()) {
      return ApiError{500, "InternalError",
                      "Internal error occurred: failed to allocate a serviceIP: range is full",
                      json()};
    }
  } else if (ip != "None") {
    auto parsed = ParseIp(ip);
    if (!parsed || *parsed <= kRangeBase || *parsed >= kRangeBase + kRangeSize - 1) {
      return InvalidService(
          c, name,
          api::FieldError::InvalidRaw("spec.clusterIPs", "[]string{\"" + ip + "\"}",
                                      "failed to allocate IP " + ip + ": the provided IP (" + ip +
                                          ") is not in the valid range. The range of valid IPs "
                                          "is 34.118.224.0/20"));
    }
    if (taken_ips.count(*parsed) != 0) {
      return InvalidService(
          c, name,
          api::FieldError::InvalidRaw(
              "spec.clusterIPs", "[]string{\"" + ip + "\"}",
              "failed to allocate IP " + ip + ": provided IP is already allocated"));
    }
  }
  spec["clusterIP"] = ip;
  spec["clusterIPs"] = json::array({ip});
  if (ip != "None" || Member(spec, "ipFamilies") == nullptr) {
    spec["ipFamilies"] = json::array({"IPv4"});
  }
  if (Member(spec, "ipFamilyPolicy") == nullptr) spec["ipFamilyPolicy"] = "SingleStack";
  if (type != "NodePort" && type != "LoadBalancer") return std::nullopt;
  if (!spec.contains("ports") || !spec["ports"].is_array()) return std::nullopt;
  int64_t next = kNodePortMin;
  for (json& p : spec["ports"]) {
    if (!p.is_object() || (p.contains("nodePort") && p["nodePort"].is_number_integer())) continue;
    while (next <= kNodePortMax && taken_ports.count(next) != 0) ++next;
    if (next > kNodePortMax) {
      return ApiError{500, "InternalError",
                      "Internal error occurred: failed to allocate a nodePort: range is full",
                      json()};
    }
    p["nodePort"] = next;
    taken_ports.insert(next++);
  }
  return std::nullopt;
}

}  // namespace tidepool::apiserver::handlers
