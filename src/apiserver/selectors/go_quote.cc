// File: go_quote.cc
#include "apiserver/selectors/go_quote.h"

#include <cstdint>
#include <cstdio>

namespace tidepool::apiserver::selectors {
namespace {

// Decodes one UTF-8 sequence at s[i]; returns its length (0 if invalid) and the rune.
size_t DecodeRune(std::string_view s, size_t i, uint32_t& rune) {
  const auto b0 = static_cast<uint8_t>(s[i]);
  size_t n;
  uint32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    rune = b0 & 0x1F;
    min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    rune = b0 & 0x0F;
    min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    rune = b0 & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) {
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<uint8_t>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      return 0;
    }
    rune = rune << 6 | (b & 0x3F);
  }
  if (rune < min || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) {
    return 0;
  }
  return n;
}

bool IsUnicodeSpaceOrControl(uint32_t r) {
  return (r >= 0x80 && r <= 0xA0) || r == 0xAD || r == 0x1680 || (r >= 0x2000 && r <= 0x200F) ||
         (r >= 0x2028 && r <= 0x202F) || (r >= 0x205F && r <= 0x206F) || r == 0x3000 || r == 0xFEFF;
}

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  if (static_cast<uint8_t>(s[i]) < 0x80) {
    return 1;
  }
  uint32_t rune = 0;
  return DecodeRune(s, i, rune);
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  char buf[16];
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        default:
          if (c < 0x20 || c == 0x7F) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    uint32_t rune = 0;
    const size_t n = DecodeRune(s, i, rune);
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (IsUnicodeSpaceOrControl(rune)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(rune));
      out += buf;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
  return out;
}

}  // namespace tidepool::apiserver::selectors
