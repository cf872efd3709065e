#include "apiserver/json_parse.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace tidepool::apiserver::json_text {
namespace {

using nlohmann::json;

class Parser {
 public:
  explicit Parser(std::string_view text)
      : p_(reinterpret_cast<const unsigned char*>(text.data())), n_(text.size()) {}

  enum class Result { kOk, kError, kTooDeep };

  Result Document(json* out) {
    if (n_ >= 3 && p_[0] == 0xEF && p_[1] == 0xBB && p_[2] == 0xBF) i_ = 3;
    SkipSpace();
    if (!Value(out, 0)) return too_deep_ ? Result::kTooDeep : Result::kError;
    SkipSpace();
    // nlohmann's lexer reads a NUL byte between tokens as the end of the input (it stops there).
    return i_ == n_ || p_[i_] == '\0' ? Result::kOk : Result::kError;
  }

 private:
  void SkipSpace() {
    while (i_ < n_ && (p_[i_] == ' ' || p_[i_] == '\n' || p_[i_] == '\r' || p_[i_] == '\t')) ++i_;
  }

  bool Literal(const char* word, size_t len) {
    if (n_ - i_ < len || std::memcmp(p_ + i_, word, len) != 0) return false;
    i_ += len;
    return true;
  }

  bool Value(json* out, int depth) {
    if (i_ >= n_) return false;
    switch (p_[i_]) {
      case '{':
        return Object(out, depth + 1);
      case '[':
        return Array(out, depth + 1);
      case '"': {
        std::string s;
        if (!String(&s)) return false;
        *out = std::move(s);
        return true;
      }
      case 't':
        if (!Literal("true", 4)) return false;
        *out = true;
        return true;
      case 'f':
        if (!Literal("false", 5)) return false;
        *out = false;
        return true;
      case 'n':
        if (!Literal("null", 4)) return false;
        *out = nullptr;
        return true;
      default:
        return Number(out);
    }
  }

  bool Object(json* out, int depth) {
    if (depth > kMaxFastDepth) {
      too_deep_ = true;
      return false;
    }
    ++i_;  // '{'
    *out = json::object();
    auto& members = out->get_ref<json::object_t&>();
    SkipSpace();
    if (i_ < n_ && p_[i_] == '}') {
      ++i_;
      return true;
    }
    while (true) {
      if (i_ >= n_ || p_[i_] != '"') return false;
      std::string key;
      if (!String(&key)) return false;
      SkipSpace();
      if (i_ >= n_ || p_[i_] != ':') return false;
      ++i_;
      SkipSpace();
      json value;
      if (!Value(&value, depth)) return false;
      // The last of repeated keys wins, as in nlohmann's DOM parser. Keys usually arrive
      // sorted (Go's encoders sort them), so the end is the right hint.
      members.insert_or_assign(members.end(), std::move(key), std::move(value));
      SkipSpace();
      if (i_ >= n_) return false;
      if (p_[i_] == ',') {
        ++i_;
        SkipSpace();
        continue;
      }
      if (p_[i_] == '}') {
        ++i_;
        return true;
      }
      return false;
    }
  }

  bool Array(json* out, int depth) {
    if (depth > kMaxFastDepth) {
      too_deep_ = true;
      return false;
    }
    ++i_;  // '['
    *out = json::array();
    auto& items = out->get_ref<json::array_t&>();
    SkipSpace();
    if (i_ < n_ && p_[i_] == ']') {
      ++i_;
      return true;
    }
    while (true) {
      items.emplace_back();
      if (!Value(&items.back(), depth)) return false;
      SkipSpace();
      if (i_ >= n_) return false;
      if (p_[i_] == ',') {
        ++i_;
        SkipSpace();
        continue;
      }
      if (p_[i_] == ']') {
        ++i_;
        return true;
      }
      return false;
    }
  }

  // The length of the valid UTF-8 sequence of a non-ASCII code point at i, or 0.
  size_t Utf8Length(size_t i) const {
    const unsigned char b = p_[i];
    auto cont = [&](size_t k, unsigned char lo, unsigned char hi) {
      return i + k < n_ && p_[i + k] >= lo && p_[i + k] <= hi;
    };
    if (b >= 0xC2 && b <= 0xDF) return cont(1, 0x80, 0xBF) ? 2 : 0;
    if (b == 0xE0) return cont(1, 0xA0, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
    if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
      return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
    }
    if (b == 0xED) return cont(1, 0x80, 0x9F) && cont(2, 0x80, 0xBF) ? 3 : 0;
    if (b == 0xF0) {
      return cont(1, 0x90, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
    }
    if (b >= 0xF1 && b <= 0xF3) {
      return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
    }
    if (b == 0xF4) {
      return cont(1, 0x80, 0x8F) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
    }
    return 0;
  }

  int Hex4(size_t i) const {
    if (n_ - i < 4) return -1;
    int v = 0;
    for (size_t k = 0; k < 4; ++k) {
      const unsigned char c = p_[i + k];
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return -1;
      }
      v = v * 16 + d;
    }
    return v;
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // At p_[i_] == '"'.
  bool String(std::string* out) {
    ++i_;
    size_t run = i_;  // start of the bytes not yet copied
    while (true) {
      // Eight plain bytes at a time (no control, no `"`, no `\`, no byte >= 0x80).
      while (i_ + 8 <= n_) {
        uint64_t w;
        std::memcpy(&w, p_ + i_, 8);
        constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
        const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
        const uint64_t special = ((w - kOnes * 0x20) & ~w) | w | ((quote - kOnes) & ~quote) |
                                 ((backslash - kOnes) & ~backslash);
        if ((special & kHigh) != 0) break;
        i_ += 8;
      }
      if (i_ >= n_) return false;
      const unsigned char c = p_[i_];
      if (c == '"') {
        out->append(reinterpret_cast<const char*>(p_ + run), i_ - run);
        ++i_;
        return true;
      }
      if (c < 0x20) return false;  // control characters must be escaped
      if (c >= 0x80) {
        const size_t len = Utf8Length(i_);
        if (len == 0) return false;
        i_ += len;
        continue;
      }
      if (c != '\\') {
        ++i_;
        continue;
      }
      out->append(reinterpret_cast<const char*>(p_ + run), i_ - run);
      if (i_ + 1 >= n_) return false;
      const unsigned char e = p_[i_ + 1];
      i_ += 2;
      switch (e) {
        case '"':
          out->push_back('"');
          break;
        case '\\':
          out->push_back('\\');
          break;
        case '/':
          out->push_back('/');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          const int hi = Hex4(i_);
          if (hi < 0) return false;
          i_ += 4;
          uint32_t cp = static_cast<uint32_t>(hi);
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (n_ - i_ < 2 || p_[i_] != '\\' || p_[i_ + 1] != 'u') return false;
            const int lo = Hex4(i_ + 2);
            if (lo < 0xDC00 || lo > 0xDFFF) return false;
            i_ += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(lo) - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return false;
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return false;
      }
      run = i_;
    }
  }

  bool Number(json* out) {
    const size_t start = i_;
    const bool negative = p_[i_] == '-';
    if (negative) ++i_;
    if (i_ >= n_ || p_[i_] < '0' || p_[i_] > '9') return false;
    // Integer part: 0 or [1-9][0-9]*, accumulated while it fits.
    uint64_t magnitude = 0;
    bool overflow = false;
    if (p_[i_] == '0') {
      ++i_;
    } else {
      while (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') {
        const uint64_t d = p_[i_] - '0';
        if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) overflow = true;
        magnitude = magnitude * 10 + d;
        ++i_;
      }
    }
    bool is_float = false;
    if (i_ < n_ && p_[i_] == '.') {
      ++i_;
      if (i_ >= n_ || p_[i_] < '0' || p_[i_] > '9') return false;
      while (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') ++i_;
      is_float = true;
    }
    if (i_ < n_ && (p_[i_] == 'e' || p_[i_] == 'E')) {
      ++i_;
      if (i_ < n_ && (p_[i_] == '+' || p_[i_] == '-')) ++i_;
      if (i_ >= n_ || p_[i_] < '0' || p_[i_] > '9') return false;
      while (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') ++i_;
      is_float = true;
    }
    if (!is_float && !overflow) {
      if (!negative) {
        *out = magnitude;
        return true;
      }
      // -2^63 is the smallest int64.
      constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;
      if (magnitude <= kMinMagnitude) {
        *out = magnitude == kMinMagnitude ? std::numeric_limits<int64_t>::min()
                                          : -static_cast<int64_t>(magnitude);
        return true;
      }
    }
    // A double, as nlohmann's lexer converts it (strtod of the token).
    const std::string token(reinterpret_cast<const char*>(p_ + start), i_ - start);
    const double d = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(d)) return false;
    *out = d;
    return true;
  }

  const unsigned char* p_;
  size_t n_;
  size_t i_ = 0;
  bool too_deep_ = false;
};

}  // namespace

json Parse(std::string_view text) {
  json out;
  switch (Parser(text).Document(&out)) {
    case Parser::Result::kOk:
      return out;
    case Parser::Result::kTooDeep:
      return json::parse(text, nullptr, /*allow_exceptions=*/false);
    case Parser::Result::kError:
    default:
      return json(json::value_t::discarded);
  }
}

}  // namespace tidepool::apiserver::json_text
