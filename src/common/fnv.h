// File: fnv.h
//
// FNV-1a, 64 bits: the one hash behind every name, id and address tidepool derives from a
// string (emulated IPs and container ids, image sizes, discovery's ETags). Stable across runs
// and platforms, unlike std::hash.
#pragma once

#include <cstdint>
#include <string_view>

namespace tidepool {

inline uint64_t Fnv1a64(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace tidepool
