// File: base64.h
//
// Base64 as Go's encoding/base64 writes and reads it, for the places Kubernetes and Google use
// it: StdEncoding (padded; kubeconfig *-data fields, basic auth, GKE's clusterCaCertificate)
// and RawURLEncoding (URL alphabet, no padding; JWTs).
//
// Decoding takes the text with or without its '=' padding, skips '\r' and '\n' (as Go's
// decoders do) and reports the first bad character in Go's words:
// `illegal base64 data at input byte 2` (InvalidArgument).
#pragma once

#include <string>
#include <string_view>

#include "common/status_or.h"

namespace tidepool {

enum class Base64Encoding {
  kStd,     // A-Z a-z 0-9 + /, padded with '='
  kRawUrl,  // A-Z a-z 0-9 - _, no padding
};

std::string Base64Encode(std::string_view data, Base64Encoding enc = Base64Encoding::kStd);
StatusOr<std::string> Base64Decode(std::string_view text,
                                   Base64Encoding enc = Base64Encoding::kStd);

}  // namespace tidepool
