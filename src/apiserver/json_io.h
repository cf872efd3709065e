// File: json_io.h
//
// JSON text into and out of nlohmann trees on the API server's hot paths (a create parses its
// body once and serializes the stored object once), and for the REST client's decoding of
// answers and watch events (client/rest_client.cc). nlohmann's own lexer reads a byte at a time
// through an input adapter and its serializer decodes every string byte as UTF-8 before
// writing it; here the text is read by Boost.JSON's parser (its SAX interface,
// boost::json::basic_parser) and strings are written by Boost.JSON's serializer, both from the
// Boost 1.81 package, into and out of the same nlohmann trees the rest of the server uses.
// Results are the same as nlohmann's, byte for byte (json_io_test.cc compares them):
//   Parse(t)  == nlohmann::json::parse(t): the same tree (non-negative integers unsigned,
//                negative ones signed, others double; a repeated key keeps its last value), and
//                an error wherever nlohmann refuses the text.
//                One difference: nlohmann takes a NUL byte as the end of the input
//                ("1\0x" is 1); here, as in Go's encoding/json, it is an error ("extra
//                data").
//   Dump(v)   == v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).
//   ParseWithoutManagedFields(t) == Parse(t) minus the managedFields of its ObjectMetas.
// Nothing throws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::apiserver::json_io {

// Nesting deeper than this is refused (Go's encoding/json, which kube-apiserver decodes with,
// stops at 10,000 levels too).
inline constexpr size_t kMaxDepth = 10000;

// Parses one JSON document (surrounding whitespace allowed). InvalidArgument with Boost.JSON's
// description and the byte offset when the text is not JSON.
StatusOr<nlohmann::json> Parse(std::string_view text);
// The same, also appending to *duplicate_paths the path of every key an object repeats
// ("metadata.name", "spec.containers[0].name": the strict decoder's form, schema.h) - what
// kube-apiserver reports as `duplicate field "metadata.name"` under fieldValidation Strict.
StatusOr<nlohmann::json> Parse(std::string_view text, std::vector<std::string>* duplicate_paths);
// Parse without the document's ObjectMetas' managedFields: the "managedFields" member of the
// "metadata" object of the root, of the root's "object" (a watch event's) and of each element
// of the root's "items" (a list's) is read past and never built; a template's metadata inside
// them, or any other "managedFields", stays. For readers that would strip them anyway (the
// client's informers, client/informer.h); everything else, errors included, is Parse's.
StatusOr<nlohmann::json> ParseWithoutManagedFields(std::string_view text);

// What Go's encoding/json says about text that is not JSON, the error kube-apiserver's decoder
// prints: "invalid character 'x' looking for beginning of value", "invalid character '}'
// after object key", "unexpected end of JSON input"... (encoding/json's scanner, state by
// state). Empty when Go would accept the text (which Parse may still refuse: nesting deeper
// than kMaxDepth, numbers beyond a double).
std::string GoSyntaxError(std::string_view text);

// Appends the compact serialization of `value` to *out. When `mark` points at a node inside
// `value`, *mark_at is set to the offset in *out where that node's text starts (npos when it
// is not met).
void Dump(const nlohmann::json& value, std::string* out, const nlohmann::json* mark = nullptr,
          size_t* mark_at = nullptr);

// Dump, with the node `raw` (inside `value`) written as `raw_text` instead of its own text:
// a member whose JSON text was produced directly (a create's FieldsV1). `raw_text` must be
// one JSON value as Dump writes it.
struct RawNode {
  const nlohmann::json* node = nullptr;
  std::string_view text;
};
void Dump(const nlohmann::json& value, std::string* out, const nlohmann::json* mark,
          size_t* mark_at, RawNode raw);

// Appends `s` as a JSON string (quoted and escaped), as Dump writes strings.
void AppendString(std::string_view s, std::string* out);

// Dump into a new string.
std::string Dump(const nlohmann::json& value);

// What Go's json.Marshal writes for `value` decoded into an interface{} (maps with sorted keys,
// as nlohmann::json keeps them): Dump's text with "<", ">", "&", U+2028 and U+2029 escaped as
// \u003c \u003e \u0026 \u2028 \u2029 (encoding/json's HTML-safe default). Numbers are
// Dump's (Go writes a float64 with exponents from 1e21 on). No trailing newline.
std::string GoMarshal(const nlohmann::json& value);

}  // namespace tidepool::apiserver::json_io
