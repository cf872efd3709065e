// File: yaml_scalar.h
//
// What a YAML scalar means to kubectl and kube-apiserver, whose YAML goes through
// sigs.k8s.io/yaml: go-yaml v2 types the scalar (resolve.go, YAML 1.1 rules), then
// sigs.k8s.io/yaml turns map keys into strings and encoding/json writes the value as JSON text,
// which the API server reads back. Internal to api/codec/yaml.cc (the tree builder); nothing
// else should include it.
//
// Typing (ResolveScalar) of a scalar that is plain and untagged, as go-yaml v2 does:
//   ""  ~  null Null NULL                                   -> null
//   y Y yes Yes YES  true True TRUE  on On ON               -> true
//   n N no No NO  false False FALSE  off Off OFF            -> false
//   .inf .Inf .INF +.inf ...  -.inf ...  .nan .NaN .NAN     -> +Inf, -Inf, NaN
//   starting with a digit, '+' or '-': underscores removed, then Go's strconv.ParseInt with
//     base 0 (0x.. hex, 0o.. or 0.. octal, 0b.. binary: "0755" is 493, "1_000" is 1000), then
//     ParseUint (up to 2^64-1), then a float matching [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)
//     ([eE][-+]?[0-9]+)? that does not overflow ("1e999" stays a string), then "0b" followed by
//     a signed binary number
//   starting with '.': a Go float literal (".5", ".5e3")
//   anything else (timestamps included)                     -> the string as written
// Quoted and block scalars are strings. Tags: !!str, !!null, !!bool, !!int, !!float type the
// text as above and must agree ("cannot decode !!str `abc` as a !!int"; an int is a valid
// !!float); !!binary is base64, decoded; the non-specific "!" and every other tag (!!timestamp
// included, unchecked) leave the text a string.
//
// JSON (ToJsonValue): what encoding/json writes and a JSON decoder reads back. Integers stay
// integers (int64, or uint64 above 2^63-1); a float that is a whole number below 1e21 in
// magnitude becomes an integer ("1e3", "1.0" and "!!float 1" are 1000, 1, 1: Go writes them
// without a fraction), unless beyond 64 bits; other floats stay doubles. Infinity and NaN are
// errors, with encoding/json's text "json: unsupported value: +Inf" (or "-Inf", "NaN").
// Strings that are not UTF-8 (only !!binary makes them) get U+FFFD per bad byte, as
// encoding/json writes them.
//
// Keys (ToJsonKey), as sigs.k8s.io/yaml converts them: strings as they are, booleans "true" and
// "false", integers in decimal ("0x10" is "16"), floats as strconv.FormatFloat(f, 'g', -1, 32)
// ("1.0" is "1", "1e6" is "1e+06", ".inf" is ".inf"). Null and integers above 2^63-1 cannot be
// keys: "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"x\"" (Go's %#v of the
// value; nested collections approximately).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "common/status_or.h"

namespace tidepool::api::codec::yaml_scalar {

// A scalar as go-yaml v2 decodes it into interface{}: null, boolean, int64, uint64, double
// (possibly infinite or NaN) or string. `tag` is the scalar's resolved tag ("" when none,
// "tag:yaml.org,2002:int" for !!int, "!" for the non-specific tag); `plain` is its style.
// InvalidArgument (the message without "yaml: " and position) when the text does not fit a
// core tag or !!binary is not base64.
StatusOr<nlohmann::json> ResolveScalar(std::string_view text, std::string_view tag, bool plain);

// The JSON value of a resolved scalar (above). InvalidArgument "json: unsupported value: ..."
// for infinity and NaN.
StatusOr<nlohmann::json> ToJsonValue(nlohmann::json resolved);

// The JSON object key of a resolved scalar key; `value` (the key's value, as JSON) only names
// the value in the error.
StatusOr<std::string> ToJsonKey(const nlohmann::json& resolved, const nlohmann::json& value);

}  // namespace tidepool::api::codec::yaml_scalar
