// File: ipv4_cidr.h
//
// An IPv4 network in CIDR notation ("34.118.224.0/20"), as the service cluster IP range of
// kube-apiserver's --service-cluster-ip-range (GKE's servicesIpv4Cidr, EKS's
// kubernetesNetworkConfig.serviceIpv4Cidr) names it. Parse accepts what Go's net.ParseCIDR
// accepts for IPv4 (dotted quad, prefix 0-32) and keeps the network address (host bits
// cleared, as ParseCIDR's *IPNet does); for a service range kube-apiserver also refuses a
// prefix shorter than /12 (more than 2^20 addresses).
//
// Value type; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status_or.h"

namespace tidepool::api {

class Ipv4Cidr {
 public:
  // "a.b.c.d/n". InvalidArgument: `invalid CIDR address: <text>` (Go's net.ParseCIDR text).
  static StatusOr<Ipv4Cidr> Parse(std::string_view text);
  // The same, for a service range: also `specified service range is too large; for 32-bit
  // addresses, the mask must be >= 12` (kube-apiserver's check), and `specified service range
  // is too small: the mask must be <= 28` (tidepool's: kube-dns takes the tenth address).
  static StatusOr<Ipv4Cidr> ParseServiceRange(std::string_view text);

  uint32_t base() const { return base_; }
  int prefix() const { return prefix_; }
  uint64_t size() const { return uint64_t{1} << (32 - prefix_); }
  // The i-th address of the network (0: the network address itself). REQUIRES: i < size().
  uint32_t Address(uint64_t i) const { return base_ + static_cast<uint32_t>(i); }
  bool Contains(uint32_t ip) const { return ip - base_ < size(); }
  // The network as "a.b.c.d/n".
  std::string ToString() const;

 private:
  uint32_t base_ = 0;
  int prefix_ = 32;
};

// "a.b.c.d" <-> a host-order address.
std::string Ipv4String(uint32_t ip);
std::optional<uint32_t> ParseIpv4(std::string_view text);

}  // namespace tidepool::api
