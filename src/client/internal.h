// File: internal.h
//
// Helpers shared by client/'s .cc files. Not part of the public API.
#pragma once

#include <string>
#include <string_view>

#include "common/private_file.h"
#include "common/status_or.h"

namespace tidepool::client::internal {

// Reads a whole file (common/private_file.h).
using ::tidepool::ReadFile;
// Standard base64 (newlines ignored). InvalidArgument "illegal base64 data at input byte N".

}  // namespace tidepool::client::internal
