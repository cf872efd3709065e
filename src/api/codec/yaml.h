// File: yaml.h
//
// YAML input, converted to JSON documents (libfyaml underneath; this header does not expose it).
// Everything downstream (decoding into api objects, validation, the API server) sees only
// nlohmann::json, so a manifest means the same thing whether it was written in YAML or JSON.
//
// Semantics:
//   - A stream may hold several documents separated by "---" (and ended by "..."). Documents
//     that are empty or whose root is null ("---" followed by nothing, a trailing "---", "~")
//     are skipped, as kubectl does.
//   - Scalars follow the YAML 1.2 core schema, not YAML 1.1: "yes", "on", "no" stay strings and
//     "0755" is the integer 755. Only plain (unquoted) scalars are typed:
//       null, Null, NULL, ~ and the empty scalar          -> null
//       true, True, TRUE, false, False, FALSE             -> boolean
//       [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+             -> integer (an integer beyond the
//                                                            int64/uint64 range becomes a double,
//                                                            as nlohmann's JSON parser does)
//       [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? -> double
//       everything else (including .inf and .nan, which JSON cannot represent) -> string
//     Quoted and block (| and >) scalars are always strings. The explicit tags !!str, !!null,
//     !!bool, !!int and !!float are honoured (a value that does not fit its tag is an error);
//     other tags are ignored.
//   - Mapping keys must be scalars; a key is the scalar's text ("1: x" has the key "1").
//   - Duplicate keys are errors. Anchors, aliases and merge keys ("<<: *base", where keys
//     written in the mapping override merged ones) are resolved.
//   - Nesting is limited to 64 levels by the parser; expanding aliases may add at most
//     1,000,000 nodes to a stream and may not nest deeper than 1000 levels (a guard against
//     "billion laughs" inputs).
//   - A JSON text is YAML, so JSON input is accepted too.
//   - The stream must be UTF-8; an invalid sequence is an error with go-yaml's texts ("invalid
//     leading UTF-8 octet", "incomplete UTF-8 octet sequence", "invalid trailing UTF-8 octet",
//     "invalid length of a UTF-8 sequence", "invalid Unicode character") at its position.
//
// Errors are InvalidArgument "yaml: line L, column C: <libfyaml's message>", with 1-based line
// and column (e.g. "yaml: line 4, column 3: duplicate key"). Nothing is printed to stderr.
// Thread-safe: every call uses its own parser.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::api::codec {

// Parses a (multi-document) YAML stream into JSON documents, skipping empty and null ones.
StatusOr<std::vector<nlohmann::json>> ParseYamlDocuments(std::string_view text);

}  // namespace tidepool::api::codec
