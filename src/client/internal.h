// File: internal.h
//
// Helpers shared by client/'s .cc files. Not part of the public API.
#pragma once

#include <string>
#include <string_view>

#include "common/status_or.h"

namespace tidepool::client::internal {

// Reads a whole file. NotFound / PermissionDenied / Unavailable with Go's os error text
// ("open /p: no such file or directory").
StatusOr<std::string> ReadFile(const std::string& path);
// Standard base64 (newlines ignored). InvalidArgument "illegal base64 data at input byte N".

}  // namespace tidepool::client::internal
