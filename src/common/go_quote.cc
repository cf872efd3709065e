// File: go_quote.cc
#include "common/go_quote.h"

#include <cstdint>

namespace tidepool {
namespace {

constexpr char kLowerHex[] = "0123456789abcdef";

// Decodes one UTF-8 sequence at s[i] as Go's utf8.DecodeRune does (no overlong forms, no
// surrogates, nothing above U+10FFFF). Returns the code point and sets `width`; an invalid
// sequence yields -1 with width 1.
std::int32_t DecodeRune(std::string_view s, std::size_t i, std::size_t* width) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  *width = 1;
  if (b0 < 0x80) return b0;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  std::int32_t r = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    r = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    r = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    r = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return -1;
  }
  if (i + n > s.size()) return -1;
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char b = byte(i + k);
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return -1;
    r = (r << 6) | (b & 0x3F);
  }
  *width = n;
  return r;
}

// Go's unicode.IsPrint for code points >= 0x80, except that code points unassigned in Go's
// tables count as printable here: false for C1 controls, spaces other than U+0020, format
// characters, line/paragraph separators, private use and noncharacters.
bool IsPrintNonAscii(std::int32_t r) {
  struct Range {
    std::int32_t lo, hi;
  };
  static constexpr Range kNotPrint[] = {
      {0x0080, 0x00A0},   {0x00AD, 0x00AD},    {0x0600, 0x0605},   {0x061C, 0x061C},
      {0x06DD, 0x06DD},   {0x070F, 0x070F},    {0x0890, 0x0891},   {0x08E2, 0x08E2},
      {0x1680, 0x1680},   {0x180E, 0x180E},    {0x2000, 0x200F},   {0x2028, 0x202F},
      {0x205F, 0x206F},   {0x3000, 0x3000},    {0xE000, 0xF8FF},   {0xFDD0, 0xFDEF},
      {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},    {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
      {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3},  {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
      {0xE0020, 0xE007F}, {0xF0000, 0x10FFFF},
  };
  if ((r & 0xFFFE) == 0xFFFE) return false;  // U+xxFFFE, U+xxFFFF: noncharacters
  for (const Range& range : kNotPrint) {
    if (r >= range.lo && r <= range.hi) return false;
  }
  return true;
}

void AppendHex(std::string& out, std::uint32_t value, int digits) {
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
    out += kLowerHex[(value >> shift) & 0xF];
}

}  // namespace

std::size_t Utf8SequenceLength(std::string_view s, std::size_t i) {
  std::size_t width = 1;
  return DecodeRune(s, i, &width) < 0 ? 0 : width;
}

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    std::size_t width = 1;
    const std::int32_t r = DecodeRune(s, i, &width);
    if (r < 0) {
      out += "\\x";
      AppendHex(out, static_cast<unsigned char>(s[i]), 2);
    } else if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (r >= 0x20 && r < 0x7F) {
      out += static_cast<char>(r);
    } else if (r >= 0x80 && IsPrintNonAscii(r)) {
      out.append(s.substr(i, width));
    } else {
      switch (r) {
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
        default:
          if (r < 0x20 || r == 0x7F) {
            out += "\\x";
            AppendHex(out, static_cast<std::uint32_t>(r), 2);
          } else if (r < 0x10000) {
            out += "\\u";
            AppendHex(out, static_cast<std::uint32_t>(r), 4);
          } else {
            out += "\\U";
            AppendHex(out, static_cast<std::uint32_t>(r), 8);
          }
      }
    }
    i += width;
  }
  out += '"';
  return out;
}

}  // namespace tidepool
