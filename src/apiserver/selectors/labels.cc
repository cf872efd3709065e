// File: labels.cc
//
// The lexer and the recursive-descent parser follow apimachinery's labels/selector.go token for
// token, so that every error text and every corner case ("(,", "!a=b", a NUL byte) comes out as
// kube-apiserver's does. Key and value validation are util/validation's IsQualifiedName and
// IsValidLabelValue (api/name_validation.h), reported as field.Invalid errors aggregated as
// utilerrors does.
#include "apiserver/selectors/labels.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include <nlohmann/json.hpp>

#include "api/name_validation.h"
#include "common/go_quote.h"

namespace tidepool::apiserver::selectors {
namespace {

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

// field.Invalid(path, value, detail).Error().
std::string InvalidValue(std::string_view path, std::string_view value, std::string_view detail) {
  return std::string(path) + ": Invalid value: " + GoQuote(value) + ": " + std::string(detail);
}

// utilerrors.NewAggregate(...).Error(), duplicates removed.
std::string Aggregate(const std::vector<std::string>& errs) {
  std::vector<std::string> unique;
  for (const std::string& e : errs) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) {
      unique.push_back(e);
    }
  }
  if (unique.size() == 1) {
    return unique[0];
  }
  return "[" + Join(unique, ", ") + "]";
}

// strconv.ParseInt(s, 10, 64).
bool ParseInt64(std::string_view s, int64_t& out) {
  size_t i = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) {
    return false;
  }
  uint64_t v = 0;
  const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return false;
    }
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (limit - d) / 10) {
      return false;
    }
    v = v * 10 + d;
  }
  out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// ---- lexer --------------------------------------------------------------------------------

enum class Token {
  kError,
  kEndOfString,
  kClosedPar,
  kComma,
  kDoesNotExist,
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct Item {
  Token tok;
  std::string literal;
};

// string2token; false for anything else (identifiers).
bool LiteralToken(std::string_view s, Token& tok) {
  static constexpr std::pair<std::string_view, Token> kTokens[] = {
      {")", Token::kClosedPar},     {",", Token::kComma},    {"!", Token::kDoesNotExist},
      {"==", Token::kDoubleEquals}, {"=", Token::kEquals},   {">", Token::kGreaterThan},
      {"in", Token::kIn},           {"<", Token::kLessThan}, {"!=", Token::kNotEquals},
      {"notin", Token::kNotIn},     {"(", Token::kOpenPar},
  };
  for (const auto& [lit, t] : kTokens) {
    if (lit == s) {
      tok = t;
      return true;
    }
  }
  return false;
}

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecialSymbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Item Lex() {
    char ch = Read();
    while (IsWhitespace(ch)) {
      ch = Read();
    }
    if (ch == 0) {
      return {Token::kEndOfString, ""};
    }
    Unread();
    return IsSpecialSymbol(ch) ? ScanSpecialSymbol() : ScanIdOrKeyword();
  }

 private:
  // 0 at the end, as in the Go lexer, whose read() also returns a NUL byte of the input as 0
  // (after moving past it): see the header's note on NUL.
  char Read() { return pos_ < s_.size() ? s_[pos_++] : '\0'; }
  void Unread() { --pos_; }

  Item ScanIdOrKeyword() {
    std::string buffer;
    while (true) {
      const char ch = Read();
      if (ch == 0) {
        break;
      }
      if (IsSpecialSymbol(ch) || IsWhitespace(ch)) {
        Unread();
        break;
      }
      buffer += ch;
    }
    Token tok;
    if (LiteralToken(buffer, tok)) {
      return {tok, buffer};
    }
    return {Token::kIdentifier, buffer};
  }

  Item ScanSpecialSymbol() {
    Item last{Token::kError, ""};
    bool have_last = false;
    std::string buffer;
    while (true) {
      const char ch = Read();
      if (ch == 0) {
        break;
      }
      if (!IsSpecialSymbol(ch)) {
        Unread();
        break;
      }
      buffer += ch;
      Token tok;
      if (LiteralToken(buffer, tok)) {
        last = {tok, buffer};
        have_last = true;
      } else if (have_last) {
        Unread();
        break;
      }
    }
    if (!have_last) {
      return {Token::kError, "error expected: keyword found '" + buffer + "'"};
    }
    return last;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// ---- parser -------------------------------------------------------------------------------

enum class Context { kKeyAndOperator, kValues };

class Parser {
 public:
  explicit Parser(std::string_view s) {
    Lexer l(s);
    while (true) {
      items_.push_back(l.Lex());
      if (items_.back().tok == Token::kEndOfString) {
        break;
      }
    }
  }

  StatusOr<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> reqs;
    while (true) {
      const Item it = Lookahead(Context::kValues);
      switch (it.tok) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          auto r = ParseRequirement();
          if (!r.ok()) {
            return InvalidArgumentError("unable to parse requirement: " +
                                        std::string(r.status().message()));
          }
          reqs.push_back(std::move(r).value());
          const Item next = Consume(Context::kValues);
          if (next.tok == Token::kEndOfString) {
            return reqs;
          }
          if (next.tok == Token::kComma) {
            const Item after = Lookahead(Context::kValues);
            if (after.tok != Token::kIdentifier && after.tok != Token::kDoesNotExist) {
              return InvalidArgumentError("found '" + after.literal +
                                          "', expected: identifier after ','");
            }
            break;
          }
          return InvalidArgumentError("found '" + next.literal +
                                      "', expected: ',' or 'end of string'");
        }
        case Token::kEndOfString:
          return reqs;
        default:
          return InvalidArgumentError("found '" + it.literal +
                                      "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  Item Lookahead(Context ctx) const {
    Item it = items_[std::min(pos_, items_.size() - 1)];
    if (ctx == Context::kValues && (it.tok == Token::kIn || it.tok == Token::kNotIn)) {
      it.tok = Token::kIdentifier;
    }
    return it;
  }

  Item Consume(Context ctx) {
    Item it = Lookahead(ctx);
    if (pos_ < items_.size() - 1) {
      ++pos_;
    }
    return it;
  }

  StatusOr<LabelRequirement> ParseRequirement() {
    LabelRequirement r;
    bool exists_inferred = false;
    Item it = Consume(Context::kValues);
    if (it.tok == Token::kDoesNotExist) {
      r.op = LabelOperator::kDoesNotExist;
      it = Consume(Context::kValues);
    }
    if (it.tok != Token::kIdentifier) {
      return InvalidArgumentError("found '" + it.literal + "', expected: identifier");
    }
    if (auto errs = api::IsQualifiedName(it.literal); !errs.empty()) {
      return InvalidArgumentError(InvalidValue("<nil>", it.literal, Join(errs, "; ")));
    }
    r.key = it.literal;
    const Token next = Lookahead(Context::kValues).tok;
    if (r.op != LabelOperator::kDoesNotExist &&
        (next == Token::kEndOfString || next == Token::kComma)) {
      exists_inferred = true;
      r.op = LabelOperator::kExists;
    }
    if (exists_inferred || r.op == LabelOperator::kDoesNotExist) {
      return NewRequirement(std::move(r));
    }

    const Item op = Consume(Context::kKeyAndOperator);
    switch (op.tok) {
      case Token::kIn:
        r.op = LabelOperator::kIn;
        break;
      case Token::kEquals:
        r.op = LabelOperator::kEquals;
        break;
      case Token::kDoubleEquals:
        r.op = LabelOperator::kDoubleEquals;
        break;
      case Token::kGreaterThan:
        r.op = LabelOperator::kGreaterThan;
        break;
      case Token::kLessThan:
        r.op = LabelOperator::kLessThan;
        break;
      case Token::kNotIn:
        r.op = LabelOperator::kNotIn;
        break;
      case Token::kNotEquals:
        r.op = LabelOperator::kNotEquals;
        break;
      default:
        return InvalidArgumentError("found '" + op.literal +
                                    "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::set<std::string> values;
    if (r.op == LabelOperator::kIn || r.op == LabelOperator::kNotIn) {
      TIDEPOOL_ASSIGN_OR_RETURN(values, ParseValues());
    } else {
      TIDEPOOL_ASSIGN_OR_RETURN(values, ParseExactValue());
    }
    r.values.assign(values.begin(), values.end());
    return NewRequirement(std::move(r));
  }

  // "(" values ")".
  StatusOr<std::set<std::string>> ParseValues() {
    const Item open = Consume(Context::kValues);
    if (open.tok != Token::kOpenPar) {
      return InvalidArgumentError("found '" + open.literal + "' expected: '('");
    }
    const Item it = Lookahead(Context::kValues);
    switch (it.tok) {
      case Token::kIdentifier:
      case Token::kComma: {
        TIDEPOOL_ASSIGN_OR_RETURN(std::set<std::string> s, ParseIdentifiersList());
        if (Consume(Context::kValues).tok != Token::kClosedPar) {
          return InvalidArgumentError("found '" + it.literal + "', expected: ')'");
        }
        return s;
      }
      case Token::kClosedPar:
        Consume(Context::kValues);
        return std::set<std::string>{""};
      default:
        return InvalidArgumentError("found '" + it.literal + "', expected: ',', ')' or identifier");
    }
  }

  // A possibly empty list of comma-separated, possibly empty identifiers, up to the ")".
  StatusOr<std::set<std::string>> ParseIdentifiersList() {
    std::set<std::string> s;
    while (true) {
      const Item it = Consume(Context::kValues);
      if (it.tok == Token::kIdentifier) {
        s.insert(it.literal);
        const Item next = Lookahead(Context::kValues);
        if (next.tok == Token::kComma) {
          continue;
        }
        if (next.tok == Token::kClosedPar) {
          return s;
        }
        return InvalidArgumentError("found '" + next.literal + "', expected: ',' or ')'");
      }
      if (it.tok == Token::kComma) {
        if (s.empty()) {
          s.insert("");  // "(,"
        }
        const Token next = Lookahead(Context::kValues).tok;
        if (next == Token::kClosedPar) {
          s.insert("");  // ",)"
          return s;
        }
        if (next == Token::kComma) {
          Consume(Context::kValues);
          s.insert("");  // ",,"
        }
        continue;
      }
      return InvalidArgumentError("found '" + it.literal + "', expected: ',', or identifier");
    }
  }

  StatusOr<std::set<std::string>> ParseExactValue() {
    const Token next = Lookahead(Context::kValues).tok;
    if (next == Token::kEndOfString || next == Token::kComma) {
      return std::set<std::string>{""};
    }
    const Item it = Consume(Context::kValues);
    if (it.tok == Token::kIdentifier) {
      return std::set<std::string>{it.literal};
    }
    return InvalidArgumentError("found '" + it.literal + "', expected: identifier");
  }

  // labels.NewRequirement's checks that a parsed requirement can fail: Gt / Lt values must be
  // integers, values must be label values. (The key was checked by the parser; the counts of
  // values are right by construction.)
  static StatusOr<LabelRequirement> NewRequirement(LabelRequirement r) {
    std::vector<std::string> errs;
    if (auto key_errs = api::IsQualifiedName(r.key); !key_errs.empty()) {
      errs.push_back(InvalidValue("key", r.key, Join(key_errs, "; ")));
    }
    if (r.op == LabelOperator::kGreaterThan || r.op == LabelOperator::kLessThan) {
      for (size_t i = 0; i < r.values.size(); ++i) {
        int64_t unused;
        if (!ParseInt64(r.values[i], unused)) {
          errs.push_back(InvalidValue("values[" + std::to_string(i) + "]", r.values[i],
                                      "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
    }
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (auto value_errs = api::IsValidLabelValue(r.values[i]); !value_errs.empty()) {
        errs.push_back(InvalidValue("values[" + std::to_string(i) + "][" + r.key + "]", r.values[i],
                                    Join(value_errs, "; ")));
      }
    }
    if (!errs.empty()) {
      return InvalidArgumentError(Aggregate(errs));
    }
    return r;
  }

  std::vector<Item> items_;
  size_t pos_ = 0;
};

// The label's value, or nullptr when absent (or not a string).
const std::string* Lookup(const nlohmann::json& labels, const std::string& key) {
  if (!labels.is_object()) {
    return nullptr;
  }
  const auto it = labels.find(key);
  if (it == labels.end() || !it->is_string()) {
    return nullptr;
  }
  return it->get_ptr<const std::string*>();
}

}  // namespace

bool LabelRequirement::Matches(const nlohmann::json& labels) const {
  const std::string* v = Lookup(labels, key);
  const auto has_value = [&](const std::string& s) {
    return std::find(values.begin(), values.end(), s) != values.end();
  };
  switch (op) {
    case LabelOperator::kIn:
    case LabelOperator::kEquals:
    case LabelOperator::kDoubleEquals:
      return v != nullptr && has_value(*v);
    case LabelOperator::kNotIn:
    case LabelOperator::kNotEquals:
      return v == nullptr || !has_value(*v);
    case LabelOperator::kExists:
      return v != nullptr;
    case LabelOperator::kDoesNotExist:
      return v == nullptr;
    case LabelOperator::kGreaterThan:
    case LabelOperator::kLessThan: {
      int64_t have;
      int64_t want;
      if (v == nullptr || values.size() != 1 || !ParseInt64(*v, have) ||
          !ParseInt64(values[0], want)) {
        return false;
      }
      return op == LabelOperator::kGreaterThan ? have > want : have < want;
    }
  }
  return false;
}

std::string LabelRequirement::String() const {
  std::string out = op == LabelOperator::kDoesNotExist ? "!" + key : key;
  switch (op) {
    case LabelOperator::kExists:
    case LabelOperator::kDoesNotExist:
      return out;
    case LabelOperator::kEquals:
      out += "=";
      break;
    case LabelOperator::kDoubleEquals:
      out += "==";
      break;
    case LabelOperator::kNotEquals:
      out += "!=";
      break;
    case LabelOperator::kIn:
      out += " in (";
      break;
    case LabelOperator::kNotIn:
      out += " notin (";
      break;
    case LabelOperator::kGreaterThan:
      out += ">";
      break;
    case LabelOperator::kLessThan:
      out += "<";
      break;
  }
  out += Join(values, ",");
  if (op == LabelOperator::kIn || op == LabelOperator::kNotIn) {
    out += ")";
  }
  return out;
}

StatusOr<LabelSelector> LabelSelector::Parse(std::string_view s) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<LabelRequirement> reqs, Parser(s).Parse());
  std::stable_sort(
      reqs.begin(), reqs.end(),
      [](const LabelRequirement& a, const LabelRequirement& b) { return a.key < b.key; });
  LabelSelector sel;
  sel.requirements_ = std::move(reqs);
  return sel;
}

bool LabelSelector::Matches(const nlohmann::json& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const LabelRequirement& r) { return r.Matches(labels); });
}

std::string LabelSelector::String() const {
  std::vector<std::string> parts;
  parts.reserve(requirements_.size());
  for (const LabelRequirement& r : requirements_) {
    parts.push_back(r.String());
  }
  return Join(parts, ",");
}

}  // namespace tidepool::apiserver::selectors
