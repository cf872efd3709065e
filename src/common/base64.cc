#include "common/base64.h"

#include <cstdint>

namespace tidepool {
namespace {

constexpr char kStd[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int Value(char c, Base64Encoding enc) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == (enc == Base64Encoding::kStd ? '+' : '-')) return 62;
  if (c == (enc == Base64Encoding::kStd ? '/' : '_')) return 63;
  return -1;
}

}  // namespace

std::string Base64Encode(std::string_view data, Base64Encoding enc) {
  const char* alphabet = enc == Base64Encoding::kStd ? kStd : kUrl;
  const bool pad = enc == Base64Encoding::kStd;
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (size_t i = 0; i < data.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(data[i])) << 16;
    if (i + 1 < data.size()) v |= static_cast<uint32_t>(static_cast<uint8_t>(data[i + 1])) << 8;
    if (i + 2 < data.size()) v |= static_cast<uint8_t>(data[i + 2]);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    if (i + 1 < data.size()) {
      out += alphabet[(v >> 6) & 63];
    } else if (pad) {
      out += '=';
    }
    if (i + 2 < data.size()) {
      out += alphabet[v & 63];
    } else if (pad) {
      out += '=';
    }
  }
  return out;
}

StatusOr<std::string> Base64Decode(std::string_view text, Base64Encoding enc) {
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    const int v = Value(c, enc);
    if (v < 0 || padding) {
      return InvalidArgumentError("illegal base64 data at input byte " + std::to_string(i));
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace tidepool
