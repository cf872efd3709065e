// File: yaml.h
//
// YAML input, converted to JSON documents (libyaml underneath, Debian's libyaml-dev: the C
// library go-yaml, and so kubectl's and kube-apiserver's sigs.k8s.io/yaml, was ported from;
// this header does not expose it). Everything downstream (decoding into api objects,
// validation, the API server) sees only nlohmann::json, so a manifest means the same thing
// whether it was written in YAML or JSON.
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
//     !!bool, !!int and !!float are honoured, on keys too (a value that does not fit its tag is
//     an error); other tags, and tags on collections, are ignored.
//   - Mapping keys must be scalars (or aliases of scalars); a key is the scalar's text ("1: x"
//     has the key "1").
//   - Duplicate keys are errors. Anchors and aliases are resolved (an anchor may be redefined; an
//     alias names the latest definition before it, in the same document). Merge keys: "<<"
//     written plain (or tagged !!merge) merges a mapping or a sequence of mappings; keys the
//     mapping writes itself win wherever "<<" stands, and an earlier merged mapping wins over a
//     later one.
//   - No document nests deeper than 1000 collections, as written or with its aliases expanded
//     (the JSON decoder's limit). Expanding aliases may add at most 1,000,000 nodes and 64 MiB
//     of scalar text to a stream (a guard against "billion laughs" inputs).
//   - A JSON text is YAML, so JSON input is accepted too, except that YAML has no UTF-16
//     surrogate pairs: "\ud83d\ude00" in a string is an error ("found invalid Unicode character
//     escape code"), as in go-yaml, which kube-apiserver decodes apply-patch+yaml bodies with.
//   - libyaml's (and go-yaml's) YAML 1.1 scanner refuses a tab after a block sequence's "- "
//     ("-\tx": "found character that cannot start any token"), which YAML 1.2 allows.
//   - The stream must be UTF-8; an invalid sequence is an error with go-yaml's texts ("invalid
//     leading UTF-8 octet", "incomplete UTF-8 octet sequence", "invalid trailing UTF-8 octet",
//     "invalid length of a UTF-8 sequence", "invalid Unicode character") at its position.
//     Control characters other than tab, LF and CR are errors too ("control characters are not
//     allowed"), as in go-yaml.
//
// Errors are InvalidArgument "yaml: line L, column C: <message>", with 1-based line and column
// of the problem (of a node: its first character, i.e. its tag or anchor, or a quoted scalar's
// opening quote). Syntax errors carry libyaml's own problem text, which go-yaml prints with the
// same words (kubectl: "error converting YAML to JSON: yaml: line 3: mapping values are not
// allowed in this context"): e.g. "mapping values are not allowed in this context", "found
// character that cannot start any token", "did not find expected key", "found unexpected end of
// stream". The others are tidepool's or go-yaml's: "duplicate key", "mapping keys must be
// scalars", "cannot decode \"abc\" as !!int", "unknown anchor 'x' referenced", "anchor 'x' value
// contains itself", "map merge requires map or sequence of maps as the value", "exceeded max
// depth of 1000", "aliases nest deeper than 1000 levels", and (without a position) "aliases
// expand to more than 1000000 nodes" / "... 67108864 bytes of text". Nothing is printed to
// stderr. Thread-safe: every call uses its own parser.
//
// History: until issue 14 this was libfyaml (Debian's 0.7.12), whose messages differed
// ("invalid indentation in mapping", "invalid alias", "cyclic reference detected", ...), whose
// parser alone limited nesting to 64 levels, and which crashed (SEGV) or leaked on some
// malformed input the fuzz target found (FUZZING.md).
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::api::codec {

// Parses a (multi-document) YAML stream into JSON documents, skipping empty and null ones.
StatusOr<std::vector<nlohmann::json>> ParseYamlDocuments(std::string_view text);

}  // namespace tidepool::api::codec
