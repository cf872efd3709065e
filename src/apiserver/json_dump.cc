#include "apiserver/json_dump.h"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace tidepool::apiserver::json_text {
namespace {

using nlohmann::json;

// nlohmann's own text for `value` (floats, binary, strings that are not valid UTF-8).
void AppendNlohmann(const json& value, std::string* out) {
  *out += value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Whether s[i..] starts a valid UTF-8 sequence of a non-ASCII code point (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF, as nlohmann's decoder accepts); its length.
size_t Utf8Length(const unsigned char* s, size_t n, size_t i) {
  const unsigned char b = s[i];
  auto cont = [&](size_t k, unsigned char lo, unsigned char hi) {
    return i + k < n && s[i + k] >= lo && s[i + k] <= hi;
  };
  if (b >= 0xC2 && b <= 0xDF) return cont(1, 0x80, 0xBF) ? 2 : 0;
  if (b == 0xE0) return cont(1, 0xA0, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (b == 0xED) return cont(1, 0x80, 0x9F) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if (b == 0xF0) return cont(1, 0x90, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) {
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  }
  if (b == 0xF4) return cont(1, 0x80, 0x8F) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

// Bytes that a string copies as they are: printable ASCII other than `"` and `\`.
struct PlainTable {
  bool plain[256] = {};
  constexpr PlainTable() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr PlainTable kPlain;

// Appends `"s"` escaped as nlohmann does; false (and nothing appended) when `s` is not valid
// UTF-8, which the caller leaves to nlohmann's replacement rules.
bool AppendString(const std::string& s, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  const size_t mark = out->size();
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet appended
  size_t i = 0;
  while (i < n) {
    // Eight plain bytes at a time (no control, no `"`, no `\\`, no byte >= 0x80).
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
      const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
      const uint64_t special = ((w - kOnes * 0x20) & ~w) | w |
                               ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash);
      if ((special & kHigh) != 0) break;
      i += 8;
    }
    if (i >= n) break;
    if (kPlain.plain[p[i]]) {
      ++i;
      continue;
    }
    const unsigned char c = p[i];
    if (c >= 0x80) {
      const size_t len = Utf8Length(p, n, i);
      if (len == 0) {
        out->resize(mark);
        return false;
      }
      i += len;
      continue;
    }
    out->append(s, run, i - run);
    switch (c) {
      case '"':
        out->append("\\\"", 2);
        break;
      case '\\':
        out->append("\\\\", 2);
        break;
      case '\b':
        out->append("\\b", 2);
        break;
      case '\t':
        out->append("\\t", 2);
        break;
      case '\n':
        out->append("\\n", 2);
        break;
      case '\f':
        out->append("\\f", 2);
        break;
      case '\r':
        out->append("\\r", 2);
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out->append(esc, 6);
        break;
      }
    }
    ++i;
    run = i;
  }
  out->append(s, run, n - run);
  out->push_back('"');
  return true;
}

void AppendValue(const json& v, std::string* out, const json* mark, size_t* mark_at) {
  if (&v == mark) *mark_at = out->size();
  switch (v.type()) {
    case json::value_t::object: {
      const auto& obj = v.get_ref<const json::object_t&>();
      if (obj.empty()) {
        out->append("{}", 2);
        return;
      }
      out->push_back('{');
      bool first = true;
      for (const auto& [k, x] : obj) {
        if (!first) out->push_back(',');
        first = false;
        if (!AppendString(k, out)) AppendNlohmann(json(k), out);
        out->push_back(':');
        AppendValue(x, out, mark, mark_at);
      }
      out->push_back('}');
      return;
    }
    case json::value_t::array: {
      const auto& arr = v.get_ref<const json::array_t&>();
      if (arr.empty()) {
        out->append("[]", 2);
        return;
      }
      out->push_back('[');
      bool first = true;
      for (const json& x : arr) {
        if (!first) out->push_back(',');
        first = false;
        AppendValue(x, out, mark, mark_at);
      }
      out->push_back(']');
      return;
    }
    case json::value_t::string:
      if (!AppendString(v.get_ref<const std::string&>(), out)) AppendNlohmann(v, out);
      return;
    case json::value_t::boolean:
      if (v.get<bool>()) {
        out->append("true", 4);
      } else {
        out->append("false", 5);
      }
      return;
    case json::value_t::number_integer: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof(buf), v.get<std::int64_t>());
      out->append(buf, static_cast<size_t>(r.ptr - buf));
      return;
    }
    case json::value_t::number_unsigned: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof(buf), v.get<std::uint64_t>());
      out->append(buf, static_cast<size_t>(r.ptr - buf));
      return;
    }
    case json::value_t::null:
      out->append("null", 4);
      return;
    case json::value_t::number_float:
    case json::value_t::binary:
    case json::value_t::discarded:
    default:
      AppendNlohmann(v, out);
      return;
  }
}

}  // namespace

void AppendDump(const json& value, std::string* out, const json* mark, size_t* mark_at) {
  if (mark_at != nullptr) *mark_at = std::string::npos;
  AppendValue(value, out, mark_at != nullptr ? mark : nullptr, mark_at);
}

std::string Dump(const json& value) {
  std::string out;
  out.reserve(2048);
  AppendValue(value, &out, nullptr, nullptr);
  return out;
}

}  // namespace tidepool::apiserver::json_text
