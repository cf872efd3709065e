// File: defaults.h
//
// Small helpers for the Default* functions: setting a member that is absent or null, as Go's
// defaulting sets a nil pointer or an empty string. Nothing throws on wrong JSON types: a
// member that is present with another type is left alone.
#pragma once

#include <string_view>

#include "apiserver/validation/fields.h"

namespace tidepool::apiserver::validation {

// obj[key] when it is an object; made {} when absent or null; nullptr when `obj` is not an
// object or the member has another type.
json* ObjectMember(json* obj, std::string_view key);

// Sets obj[key] = value when `obj` is an object whose member is absent or null.
void SetDefault(json* obj, std::string_view key, json value);

// The string member, "" when absent (as Go's zero value).
inline std::string_view StrOf(const json* obj, std::string_view key) {
  return Str(Member(obj, key));
}

}  // namespace tidepool::apiserver::validation
