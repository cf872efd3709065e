// File: go_quote.h
//
// Internal to selectors/: how Go treats strings, for error texts and values that must match
// kube-apiserver's byte for byte.
//   - GoQuote is Go's strconv.Quote, which fmt's %q applies to strings (`"foo" is not a known
//     field selector`, `Invalid value: "-x"`). ASCII is quoted exactly as Go does (\a \b \f \n
//     \r \t \v, \" and \\, other control characters as \x00); invalid UTF-8 bytes are \xff as
//     in Go. Valid non-ASCII characters are kept, except C1 controls and the Unicode space and
//     format characters, written \u00a0 (unicode.IsPrint for the rest of Unicode is
//     approximated by "printable").
//   - Utf8SequenceLength tells how Go's range over a string splits it into runes.
#pragma once

#include <string>
#include <string_view>

namespace tidepool::apiserver::selectors {

std::string GoQuote(std::string_view s);

// The length of the valid UTF-8 sequence starting at s[i], or 0 if there is none (Go's range
// over a string then yields U+FFFD for the one byte s[i]). REQUIRES: i < s.size().
size_t Utf8SequenceLength(std::string_view s, size_t i);

}  // namespace tidepool::apiserver::selectors
