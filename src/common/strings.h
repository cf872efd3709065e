// File: strings.h
//
// Small string helpers more than one module needs (each was written twice before).
//   SplitString  "a,b,,c" on ',' -> {"a", "b", "", "c"}: every field, empty ones included; an
//                empty input is one empty field.
//   XmlEscape    & < > " as entities, for XML and HTML text and attribute values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tidepool {

std::vector<std::string> SplitString(std::string_view s, char sep);
std::string XmlEscape(std::string_view s);
// `s` without leading and trailing ASCII whitespace (space, \t, \n, \v, \f, \r).
std::string TrimSpace(std::string_view s);

}  // namespace tidepool
