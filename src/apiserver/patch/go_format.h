// File: go_format.h
//
// Internal helpers of the patch library: the few Go formatting verbs that kube-apiserver's
// patch errors put into their messages, so that our messages read the same.
//   - GoValue(v) is fmt's "%v" of the value encoding/json decodes `v` into (interface{}):
//     null -> "<nil>", strings raw (no quotes), integers in decimal, other numbers as JSON
//     writes them, arrays "[a b]", objects "map[k1:v1 k2:v2]" with keys sorted (as fmt sorts
//     map keys).
//   - GoQuote(s) is fmt's "%q" (strconv.Quote): common/go_quote.h's tidepool::GoQuote, named
//     here too for the library's callers.
//   - GoJsonEncode(v) is what runtime.Encode(unstructured.UnstructuredJSONScheme, obj) writes.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "common/go_quote.h"

namespace tidepool::apiserver::patch::internal {

std::string GoValue(const nlohmann::json& v);
using ::tidepool::GoQuote;
// encoding/json's Encoder output for `v`: compact, keys sorted, "<", ">", "&", U+2028 and
// U+2029 escaped as \u003c \u003e \u0026 \u2028 \u2029 (HTML-safe, the default), and a
// trailing newline. Invalid UTF-8 is replaced by U+FFFD.
std::string GoJsonEncode(const nlohmann::json& v);

}  // namespace tidepool::apiserver::patch::internal
