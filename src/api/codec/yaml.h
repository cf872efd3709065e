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
//   - Scalars mean what they mean to kubectl and kube-apiserver (sigs.k8s.io/yaml over go-yaml
//     v2: YAML 1.1's types, then encoding/json's text; yaml_scalar.h has the details):
//       null, Null, NULL, ~ and the empty scalar             -> null
//       true, yes, on, false, no, off (lower, Title, UPPER case), y, Y, n, N -> boolean
//       integers as Go's strconv.ParseInt(s, 0, 64) reads them once underscores are removed
//         ("0755" is 493, "0x1F" 31, "0b101" 5, "1_000" 1000), up to 2^64-1
//       floats ("1.5", ".5", "2.5e-3"); a whole one is an integer ("1e3" and "1.0" are 1000
//         and 1, as encoding/json writes them); .inf and .nan are errors
//       everything else, timestamps included                 -> string
//     Quoted and block (| and >) scalars are strings. The tags !!str, !!null, !!bool, !!int and
//     !!float type the text, which must fit; !!binary is base64; other tags, and tags on
//     collections, are ignored (the text stays a string).
//   - Mapping keys must be scalars (or aliases of scalars). A key is converted to a string as
//     sigs.k8s.io/yaml does: "yes: x" has the key "true", "0x10: x" the key "16", "1.0: x" the
//     key "1"; a null key, or an integer key above 2^63-1, is an error.
//   - Duplicate keys (equal once converted) are errors; kube-apiserver's strict decoding
//     reports them too (kubectl's own decoding keeps the last). Anchors and aliases are
//     resolved (an anchor may be redefined; an alias names the latest definition before it, in
//     the same document). Merge keys, as go-yaml v2 applies them: "<<" written plain (or tagged
//     !!merge) sets the keys of a mapping, or of a sequence of mappings (the earlier one
//     winning), at its place in the mapping: over keys written before it, under keys written
//     after it.
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
// opening quote); go-yaml prints "yaml: line L: <message>" with the same messages. Syntax
// errors carry libyaml's own problem text, which go-yaml prints with the same words (kubectl:
// "error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this
// context"): e.g. "mapping values are not allowed in this context", "found character that
// cannot start any token", "did not find expected key", "found unexpected end of stream".
// Others are go-yaml's ("unknown anchor 'x' referenced", "anchor 'x' value contains itself",
// "map merge requires map or sequence of maps as the value", "cannot decode !!str `abc` as a
// !!int", "exceeded max depth of 1000") or tidepool's ("duplicate key", "mapping keys must be
// scalars", "aliases nest deeper than 1000 levels"; without a position: "aliases expand to
// more than 1000000 nodes" / "... 67108864 bytes of text"). What JSON cannot hold is reported,
// without "yaml:" or a position, in the words kubectl prints after "error converting YAML to
// JSON: ", once the document has been read: "json: unsupported value: +Inf" (-Inf, NaN) and
// "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"x\"". Nothing is printed to
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
