// File: go_json_syntax.cc
//
// json_io::GoSyntaxError: the first syntax error of a text as Go's encoding/json scanner
// (scanner.go) reports it, for the messages of refused request bodies. A recursive reading
// that stops where the scanner's state machine stops, with the scanner's words for the state it
// was in. It builds nothing: the parse itself is json_io::Parse's.
#include <cstddef>
#include <string>
#include <string_view>

#include "apiserver/json_io.h"
#include "common/go_quote.h"

namespace tidepool::apiserver::json_io {

namespace {

// Go's quoteChar: the byte as a one-character Go literal in single quotes.
std::string QuoteChar(unsigned char c) {
  if (c == '\'') return "'\\''";
  if (c == '"') return "'\"'";
  // string(c) in Go converts the byte to the rune of that value (Latin-1), then %q.
  std::string utf8;
  if (c < 0x80) {
    utf8 = std::string(1, static_cast<char>(c));
  } else {
    utf8 += static_cast<char>(0xC0 | (c >> 6));
    utf8 += static_cast<char>(0x80 | (c & 0x3F));
  }
  const std::string q = GoQuote(utf8);
  return "'" + q.substr(1, q.size() - 2) + "'";
}

class GoScanner {
 public:
  explicit GoScanner(std::string_view text) : t_(text) {}

  std::string Run() {
    if (!Value("looking for beginning of value")) return error_;
    SkipSpace();
    if (i_ < t_.size()) Fail("after top-level value");
    return error_;
  }

 private:
  static constexpr int kMaxDepth = 10000;

  bool AtEnd() {
    if (i_ < t_.size()) return false;
    error_ = "unexpected end of JSON input";
    return true;
  }
  bool Fail(std::string_view context) {
    error_ = "invalid character " + QuoteChar(static_cast<unsigned char>(t_[i_])) + " " +
             std::string(context);
    return false;
  }
  void SkipSpace() {
    while (i_ < t_.size() &&
           (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\r' || t_[i_] == '\n')) {
      ++i_;
    }
  }

  // A value, after optional whitespace; `context` names the scanner's state when it must begin.
  bool Value(std::string_view context) {
    SkipSpace();
    if (AtEnd()) return false;
    const char c = t_[i_];
    if (c == '{' || c == '[') {
      if (++depth_ > kMaxDepth) {
        error_ = "exceeded max depth";
        return false;
      }
      ++i_;
      const bool ok = c == '{' ? Object() : Array();
      --depth_;
      return ok;
    }
    if (c == '"') return String();
    if (c == '-' || (c >= '0' && c <= '9')) return Number();
    if (c == 't') return Literal("true");
    if (c == 'f') return Literal("false");
    if (c == 'n') return Literal("null");
    return Fail(context);
  }

  bool Object() {
    SkipSpace();
    if (AtEnd()) return false;
    if (t_[i_] == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      if (t_[i_] != '"') return Fail("looking for beginning of object key string");
      if (!String()) return false;
      SkipSpace();
      if (AtEnd()) return false;
      if (t_[i_] != ':') return Fail("after object key");
      ++i_;
      if (!Value("looking for beginning of value")) return false;
      SkipSpace();
      if (AtEnd()) return false;
      if (t_[i_] == '}') {
        ++i_;
        return true;
      }
      if (t_[i_] != ',') return Fail("after object key:value pair");
      ++i_;
      SkipSpace();
      if (AtEnd()) return false;
    }
  }

  bool Array() {
    SkipSpace();
    if (AtEnd()) return false;
    if (t_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      if (!Value("looking for beginning of value")) return false;
      SkipSpace();
      if (AtEnd()) return false;
      if (t_[i_] == ']') {
        ++i_;
        return true;
      }
      if (t_[i_] != ',') return Fail("after array element");
      ++i_;
    }
  }

  static bool IsHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  bool String() {
    ++i_;  // the opening quote
    for (;;) {
      if (AtEnd()) return false;
      const unsigned char c = static_cast<unsigned char>(t_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return Fail("in string literal");
      ++i_;
      if (c != '\\') continue;
      if (AtEnd()) return false;
      const char e = t_[i_];
      if (e == 'u') {
        ++i_;
        for (int k = 0; k < 4; ++k, ++i_) {
          if (AtEnd()) return false;
          if (!IsHex(t_[i_])) return Fail("in \\u hexadecimal character escape");
        }
        continue;
      }
      if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return Fail("in string escape code");
      }
      ++i_;
    }
  }

  bool Digits() {
    while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
    return true;
  }

  // Go's number states: stateNeg, state0/state1, stateDot, stateE, stateESign. The number ends
  // at the first byte that continues none of them (the caller's state judges that byte).
  bool Number() {
    if (t_[i_] == '-') {
      ++i_;
      if (AtEnd()) return false;
      if (t_[i_] < '0' || t_[i_] > '9') return Fail("in numeric literal");
    }
    if (t_[i_] == '0') {
      ++i_;
    } else {
      Digits();
    }
    if (i_ < t_.size() && t_[i_] == '.') {
      ++i_;
      if (AtEnd()) return false;
      if (t_[i_] < '0' || t_[i_] > '9') return Fail("after decimal point in numeric literal");
      Digits();
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      if (AtEnd()) return false;
      if (t_[i_] == '+' || t_[i_] == '-') {
        ++i_;
        if (AtEnd()) return false;
      }
      if (t_[i_] < '0' || t_[i_] > '9') return Fail("in exponent of numeric literal");
      Digits();
    }
    return true;
  }

  bool Literal(std::string_view word) {
    ++i_;
    for (size_t k = 1; k < word.size(); ++k, ++i_) {
      if (AtEnd()) return false;
      if (t_[i_] != word[k]) {
        return Fail("in literal " + std::string(word) + " (expecting " + QuoteChar(word[k]) +
                    ")");
      }
    }
    return true;
  }

  std::string_view t_;
  size_t i_ = 0;
  int depth_ = 0;
  std::string error_;
};

}  // namespace

std::string GoSyntaxError(std::string_view text) { return GoScanner(text).Run(); }

}  // namespace tidepool::apiserver::json_io
