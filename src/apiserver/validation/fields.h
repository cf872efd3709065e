// File: fields.h
//
// What every validation file needs: reading a member of a decoded object that may be absent
// (nothing here throws, whatever the JSON types), and printing a bad value the way
// k8s.io/apimachinery's field.Error.ErrorBody does (kube-apiserver 1.32):
//   - numbers plainly (`-5`), strings quoted (FieldError::Invalid does that);
//   - maps and structs with Go's %#v of kube's Go types: `map[string]string{"app":"x"}`,
//     `map[string]string(nil)` for an absent map, `v1.LabelSelector{MatchLabels:...,
//     MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`,
//     `intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}`. Go prints a non-nil pointer
//     inside a struct as its address; GoPointer prints a fixed 0xc000010000-style address
//     there, so such texts match kube's except for the address digits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/field_error.h"
#include "api/meta.h"

namespace tidepool::apiserver::validation {

using nlohmann::json;

// obj[key] when `obj` is an object holding `key` with a non-null value; otherwise nullptr.
const json* Member(const json* obj, std::string_view key);
const json* Member(const json& obj, std::string_view key);
// The member reached through `keys`, or nullptr when any step is missing.
const json* At(const json& obj, std::initializer_list<std::string_view> keys);
// The string, or "" when `v` is null or not a string.
std::string_view Str(const json* v);
// The integer, or nullopt when `v` is null or not an integral number.
std::optional<int64_t> Int(const json* v);
// The strings of an array (other entries skipped); empty for null, absent or not an array.
std::vector<std::string> Strings(const json* v);
bool IsTrue(const json* v);
// String members of a string map (labels, annotations, matchLabels); others are skipped.
api::Labels StringMap(const json* v);

// Go's %#v of a map[string]string: map[string]string{"a":"b", "c":"d"} (keys sorted),
// map[string]string{} when empty, map[string]string(nil) when `v` is null.
std::string GoStringMap(const json* v);
// Go's %#v of []string: []string{"a", "b"}, []string(nil) when empty or absent.
std::string GoStringSlice(const std::vector<std::string>& v, bool nil_when_empty = true);
// Go's %#v of a metav1.LabelSelector value.
std::string GoLabelSelector(const json* selector);
// Go's %#v of an intstr.IntOrString (a number is Type:0, a string Type:1).
std::string GoIntOrString(const json& v);
// Go's %#v of a pointer field inside a struct: (*<type>)(nil), or (*<type>)(0xc000010000).
std::string GoPointer(std::string_view type, bool set);

// apimachinery's IsValidPortNum ("must be between 1 and 65535, inclusive") and IsValidPortName
// (an IANA_SVC_NAME: at most 15 of [-a-z0-9], a letter, no "--", no hyphen at either end):
// their messages, none when valid.
std::vector<std::string> PortNumErrors(int64_t port);
std::vector<std::string> PortNameErrors(std::string_view name);

// Whether `v` written as compact JSON takes more than `limit` bytes (escapes in strings are
// not counted, so a string full of control characters is counted short). Stops walking once
// over the limit; allocates nothing.
bool EncodedSizeOver(const json& v, size_t limit);

// ValidateNonnegativeField when `v` holds an integer: "<path>: Invalid value: -1: must be
// greater than or equal to 0".
void NonNegative(const json* v, const std::string& path, api::FieldErrors* errors);
// Appends `from`'s errors as they are.
void Append(api::FieldErrors from, api::FieldErrors* errors);
// Appends `from`'s errors with `prefix` put before each field path.
void AppendPrefixed(api::FieldErrors from, std::string_view prefix, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
