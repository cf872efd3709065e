// File: private_file.h
//
// Files that hold credentials and configuration (kubeconfigs, token files, AWS shared files).
//
// ReadFile: a whole file; NotFound / PermissionDenied / Unavailable with Go's os error text
// ("open /p: no such file or directory").
//
// WritePrivateFile: writes a file that holds a credential (a kubeconfig with a bearer token, a
// gcloud access-token file) so that only its owner can read it, whatever was there before:
// the content goes to a new sibling "<path>.tmp.<pid>" created with mode 0600 (O_EXCL, so an
// attacker's symlink or file there is refused, not followed), is flushed, and is renamed over
// `path` (atomic: a reader sees the old file or the new one, never a part). Missing parent
// folders are created (mode 0700 for the ones made here). Errors are Unavailable, naming the
// path and the OS's reason.
#pragma once

#include <string>
#include <string_view>

#include "common/status_or.h"

namespace tidepool {

[[nodiscard]] Status WritePrivateFile(const std::string& path, std::string_view content);

StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace tidepool
