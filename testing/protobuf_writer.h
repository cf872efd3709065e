// File: protobuf_writer.h
//
// A tiny protobuf writer for tests and fuzz seeds: expected bytes and request bodies built field
// by field from the published field numbers, so that a test does not trust the encoder it
// checks. Varint is the base-128 varint; Int a varint field (wire type 0); Bytes a
// length-delimited field (wire type 2); Entry a map entry (key 1, value 2); FromHex "6b 38 73 00"
// -> bytes (anything but 0-9 and a-f is ignored). Header-only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tidepool::testing {

inline std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}

inline std::string Int(uint32_t field, int64_t v) {
  return Varint(field << 3) + Varint(static_cast<uint64_t>(v));
}

inline std::string Bytes(uint32_t field, std::string_view s) {
  return Varint(field << 3 | 2) + Varint(s.size()) + std::string(s);
}

inline std::string Entry(uint32_t field, std::string_view k, std::string_view v) {
  return Bytes(field, Bytes(1, k) + Bytes(2, v));
}

inline std::string FromHex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      continue;
    }
    if (hi < 0) {
      hi = v;
    } else {
      out += static_cast<char>(hi << 4 | v);
      hi = -1;
    }
  }
  return out;
}

}  // namespace tidepool::testing
