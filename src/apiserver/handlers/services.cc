// The service registry's allocations (kube's pkg/registry/core/service, 1.32): a Service that
// is not ExternalName gets a cluster IP from the service range (ApiServerOptions'
// service_range, kube-apiserver's --service-cluster-ip-range; GKE's default 34.118.224.0/20:
// the kubernetes Service holds its first address) unless it asks for one or
// for none ("None": headless), with spec.clusterIPs, ipFamilies [IPv4] and ipFamilyPolicy
// SingleStack; NodePort and LoadBalancer ports get node ports from 30000-32767 (one a Service
// names must be in that range and free: portallocator's "provided port is not in the valid
// range. The range of valid ports is 30000-32767", "provided port is already allocated"). Taken
// addresses and ports are read from the stored Services (a registry of a few hundred objects).
// An update keeps the allocated IP when the new object does not name one.
#include <map>
#include <set>

#include "api/ipv4_cidr.h"
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr int kNodePortMin = 30000;
constexpr int kNodePortMax = 32767;

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
    if (auto ip = api::ParseIpv4(Str(other, "spec", "clusterIP"))) taken_ips.insert(*ip);
    const json* ports = Member(other, "spec");
    ports = ports != nullptr ? Member(*ports, "ports") : nullptr;
    if (ports == nullptr || !ports->is_array()) continue;
    for (const json& p : *ports) {
      const json* np = Member(p, "nodePort");
      if (np != nullptr && np->is_number_integer()) taken_ports.insert(np->get<int64_t>());
    }
  }
  const api::Ipv4Cidr& range = c.options.service_range;
  std::string ip = Str(spec, "clusterIP");
  if (ip.empty()) {
    // The first free address after the range's base and its first (the kubernetes Service's).
    for (uint64_t i = 1; i + 1 < range.size(); ++i) {
      if (taken_ips.count(range.Address(i)) == 0 &&
          (i != 1 || (ns == "default" && name == "kubernetes"))) {
        ip = api::Ipv4String(range.Address(i));
        break;
      }
    }
    if (ip.empty()) {
      return ApiError{500, "InternalError",
                      "Internal error occurred: failed to allocate a serviceIP: range is full",
                      json()};
    }
  } else if (ip != "None") {
    auto parsed = api::ParseIpv4(ip);
    if (!parsed || !range.Contains(*parsed) || *parsed == range.Address(0) ||
        *parsed == range.Address(range.size() - 1)) {
      return InvalidService(
          c, name,
          api::FieldError::InvalidRaw("spec.clusterIPs", "[]string{\"" + ip + "\"}",
                                      "failed to allocate IP " + ip + ": the provided IP (" + ip +
                                          ") is not in the valid range. The range of valid IPs "
                                          "is " +
                                          range.ToString()));
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
  // kube's initNodePorts: a node port the Service names must be in the range and free; the
  // entries of one port number (its TCP and UDP) share one node port, the first named among
  // them or the next free one.
  json& ports = spec["ports"];
  // An entry's integer member (port, nodePort); 0 when absent or not an integer.
  auto int_of = [](const json& p, std::string_view key) -> int64_t {
    const json* v = p.is_object() ? Member(p, key) : nullptr;
    return v != nullptr && v->is_number_integer() ? v->get<int64_t>() : 0;
  };
  auto take = [&](int64_t np, size_t i) -> std::optional<ApiError> {
    std::string why;
    if (np < kNodePortMin || np > kNodePortMax) {
      why = "provided port is not in the valid range. The range of valid ports is " +
            std::to_string(kNodePortMin) + "-" + std::to_string(kNodePortMax);
    } else if (!taken_ports.insert(np).second) {
      why = "provided port is already allocated";
    }
    if (why.empty()) return std::nullopt;
    return InvalidService(
        c, name,
        api::FieldError::InvalidRaw("spec.ports[" + std::to_string(i) + "].nodePort",
                                    std::to_string(np), why));
  };
  std::map<int64_t, int64_t> by_port;  // service port -> its node port
  int64_t next = kNodePortMin;
  for (size_t i = 0; i < ports.size(); ++i) {
    json& p = ports[i];
    if (!p.is_object()) continue;
    const int64_t port = int_of(p, "port"), requested = int_of(p, "nodePort");
    auto it = by_port.find(port);
    if (it == by_port.end()) {
      int64_t np = requested;
      for (size_t j = i + 1; np == 0 && j < ports.size(); ++j) {
        if (int_of(ports[j], "port") == port) np = int_of(ports[j], "nodePort");
      }
      if (np != 0) {
        if (auto e = take(np, i)) return e;
      } else {
        while (next <= kNodePortMax && taken_ports.count(next) != 0) ++next;
        if (next > kNodePortMax) {
          return ApiError{500, "InternalError",
                          "Internal error occurred: failed to allocate a nodePort: range is full",
                          json()};
        }
        np = next;
        taken_ports.insert(next++);
      }
      p["nodePort"] = np;
      by_port[port] = np;
    } else if (requested != it->second) {
      if (requested == 0) {
        p["nodePort"] = it->second;
      } else if (auto e = take(requested, i)) {
        return e;
      }
    }
  }
  return std::nullopt;
}

}  // namespace tidepool::apiserver::handlers
