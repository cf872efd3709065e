// File: go_quote.h
//
// How Go treats strings, for error texts that must match kube-apiserver's byte for byte.
//   - GoQuote(s) is Go's strconv.Quote, which fmt's %q applies to strings (`unknown field
//     "spec.foo"`, `Invalid value: "-x"`): ASCII is quoted as Go does (\a \b \f \n \r \t \v,
//     \" and \\, other control characters and DEL as \x00); each byte of invalid UTF-8
//     (overlong forms, surrogates, truncated sequences, > U+10FFFF) is \xff; valid non-ASCII
//     characters are kept when unicode.IsPrint holds and written \u00a0 / \U000f0000
//     otherwise. unicode.IsPrint is approximated: C1 controls, spaces other than U+0020, format
//     characters, line and paragraph separators, private use and noncharacters are not
//     printable; code points Go's tables leave unassigned count as printable.
//   - Utf8SequenceLength(s, i) tells how Go's range over a string splits it into runes.
// Nothing here throws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tidepool {

std::string GoQuote(std::string_view s);

// The length of the valid UTF-8 sequence starting at s[i] (1 for ASCII), or 0 if there is none
// (Go's range over a string then yields U+FFFD for the one byte s[i]). REQUIRES: i < s.size().
std::size_t Utf8SequenceLength(std::string_view s, std::size_t i);

}  // namespace tidepool
