#include "api/ipv4_cidr.h"

#include <arpa/inet.h>

#include <charconv>

namespace tidepool::api {

std::string Ipv4String(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
         std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

std::optional<uint32_t> ParseIpv4(std::string_view text) {
  in_addr a{};
  if (inet_pton(AF_INET, std::string(text).c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

StatusOr<Ipv4Cidr> Ipv4Cidr::Parse(std::string_view text) {
  const Status invalid = InvalidArgumentError("invalid CIDR address: " + std::string(text));
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return invalid;
  const std::optional<uint32_t> ip = ParseIpv4(text.substr(0, slash));
  const std::string_view bits = text.substr(slash + 1);
  int prefix = -1;
  auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
  // Go's dtoi: decimal digits only, no sign, no leading zeros beyond "0".
  if (!ip || ec != std::errc() || end != bits.data() + bits.size() || bits.empty() ||
      (bits.size() > 1 && bits[0] == '0') || prefix < 0 || prefix > 32) {
    return invalid;
  }
  Ipv4Cidr c;
  c.prefix_ = prefix;
  c.base_ = prefix == 0 ? 0 : *ip & ~((uint32_t{1} << (32 - prefix)) - 1);
  return c;
}

StatusOr<Ipv4Cidr> Ipv4Cidr::ParseServiceRange(std::string_view text) {
  TIDEPOOL_ASSIGN_OR_RETURN(Ipv4Cidr c, Parse(text));
  if (c.prefix_ < 12) {
    return InvalidArgumentError(
        "specified service range is too large; for 32-bit addresses, the mask must be >= 12");
  }
  if (c.prefix_ > 28) {
    // tidepool's own limit: GKE's kube-dns Service takes the range's tenth address.
    return InvalidArgumentError("specified service range is too small: the mask must be <= 28");
  }
  return c;
}

std::string Ipv4Cidr::ToString() const { return Ipv4String(base_) + "/" + std::to_string(prefix_); }

}  // namespace tidepool::api
