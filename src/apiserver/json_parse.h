// File: json_parse.h
//
// A faster JSON parser into nlohmann::json, giving the same tree as
// `nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false)` (nlohmann_json 3.11) and
// refusing the same texts (a discarded value): RFC 8259 with nlohmann's choices, i.e.
//   - a UTF-8 byte order mark at the start is skipped; whitespace is space, \t, \n, \r; no
//     comments; nothing but whitespace after the value, up to the end or a NUL byte (which
//     nlohmann's lexer takes for the end of the input);
//   - strings must be valid UTF-8 (no overlong forms, surrogates or code points above
//     U+10FFFF) without raw control characters (< 0x20); escapes \" \\ \/ \b \f \n \r \t and
//     \uXXXX, a high surrogate escape only followed by a low one;
//   - a number without fraction or exponent is an int64 when negative and in range, a uint64
//     when non-negative and in range ("-0" is the integer 0), otherwise a double (strtod); a
//     double that is not finite (1e400) is an error;
//   - a repeated object key keeps the last value.
// Request bodies of creates and updates, and stored objects read back, are parsed with it:
// nlohmann's lexer copies every byte into a token buffer and appends strings character by
// character, most of a body's parse time. Documents nested deeper than kMaxFastDepth are handed
// to nlohmann's parser (same result, no deep recursion here). json_parse_test.cc compares the
// two on every repository manifest, generated documents and thousands of corrupted ones.
// Pure; nothing throws.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace tidepool::apiserver::json_text {

inline constexpr int kMaxFastDepth = 200;

// The parsed document, or a discarded value (is_discarded()) when `text` is not JSON.
nlohmann::json Parse(std::string_view text);

}  // namespace tidepool::apiserver::json_text
