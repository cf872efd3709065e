// File: fuzz_support.h
//
// Helpers shared by the libFuzzer targets of this folder (FUZZING.md). Header-only, included
// by the targets alone.
//
// What counts as a crash: anything that stops the process. An uncaught C++ exception
// (std::terminate -> abort), an ASan/UBSan report, a leak, a timeout, or an oracle of a target
// that fails through Check(): a documented property of the decoder that does not hold, e.g.
// "Parse(ToString(q)) == q". Check prints what failed and aborts, so libFuzzer writes the input
// as a crash reproducer.
//
// Text inputs made of parts use line separators that cannot occur inside JSON text:
//   Sections(text, "\n%%\n")  splits "a\n%%\nb" into {"a", "b"}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what` (and `detail`) when `ok` is false.
inline void Check(bool ok, std::string_view what, std::string_view detail = "") {
  if (ok) return;
  std::fprintf(stderr, "fuzz oracle failed: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Splits `text` at every occurrence of `sep`; at most `max_parts` parts (the last one keeps the
// rest of the text).
inline std::vector<std::string_view> Sections(std::string_view text, std::string_view sep,
                                              size_t max_parts = 64) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < max_parts) {
    const size_t at = text.find(sep);
    if (at == std::string_view::npos) break;
    out.push_back(text.substr(0, at));
    text.remove_prefix(at + sep.size());
  }
  out.push_back(text);
  return out;
}

// The first line (without its '\n' or "\r\n") and the rest after it.
inline std::string_view FirstLine(std::string_view text, std::string_view* rest) {
  const size_t nl = text.find('\n');
  std::string_view line = text.substr(0, nl);
  *rest = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// A request as text, the shape of an HTTP/1.1 request without its framing:
//   METHOD TARGET\n            e.g. "PATCH /api/v1/namespaces/default/pods/p?dryRun=All"
//   name: value\n              headers, any number (names lower-cased)
//   \n
//   body                       the rest, verbatim
struct TextRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

inline TextRequest ParseTextRequest(std::string_view text) {
  TextRequest r;
  std::string_view rest;
  std::string_view line = FirstLine(text, &rest);
  const size_t sp = line.find(' ');
  r.method = std::string(line.substr(0, sp));
  if (sp != std::string_view::npos) r.target = std::string(line.substr(sp + 1));
  while (!rest.empty()) {
    std::string_view after;
    std::string_view h = FirstLine(rest, &after);
    rest = after;
    if (h.empty()) break;
    const size_t colon = h.find(':');
    std::string name(h.substr(0, colon));
    for (char& c : name) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    std::string_view value =
        colon == std::string_view::npos ? std::string_view() : h.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    r.headers.emplace_back(std::move(name), std::string(value));
  }
  r.body = std::string(rest);
  return r;
}

}  // namespace tidepool::fuzz
