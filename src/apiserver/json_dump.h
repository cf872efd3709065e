// File: json_dump.h
//
// A faster compact serializer for nlohmann::json, byte for byte what
// `value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)` writes (nlohmann_json
// 3.11's serializer: members in the object's (sorted) order, `"k":v` separated by `,`, strings
// escaped as \" \\ \b \f \n \r \t and \u00xx (lower-case hex) for the other control
// characters, everything else, DEL and valid UTF-8 included, written as it is). The object
// store writes every object's text with it (one dump per write), and nlohmann's serializer is
// the larger part of a create's serialization cost (it decodes every string byte through its
// UTF-8 state machine and appends character by character).
//
// Strings with bytes that are not valid UTF-8, floating-point numbers and binary values are
// written by nlohmann's own serializer (their rules: U+FFFD replacement, shortest round-trip
// floats), so the output is the same for every value. json_dump_test.cc compares the two on
// every manifest of the repository and on generated values. Pure; nothing throws.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tidepool::apiserver::json_text {

// Appends the compact text of `value` to `out`. With `mark` (a value inside `value`, by
// address), `*mark_at` is set to where mark's text starts in `out` (npos when not reached).
void AppendDump(const nlohmann::json& value, std::string* out,
                const nlohmann::json* mark = nullptr, size_t* mark_at = nullptr);

// The compact text of `value`.
std::string Dump(const nlohmann::json& value);

}  // namespace tidepool::apiserver::json_text
