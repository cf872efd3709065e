// File: test_util.h
//
// Test helpers for the validation tests: objects written as JSON text, variations of them as
// RFC 7386 merge patches, and field errors as the strings kube-apiserver prints.
#pragma once

#include <string>
#include <vector>

#include "apiserver/validation/fields.h"

namespace tidepool::apiserver::validation::testing {

// `base` with `patch` merged in (null removes a member).
inline json Patched(const std::string& base, const std::string& patch) {
  json j = json::parse(base);
  if (!patch.empty()) j.merge_patch(json::parse(patch));
  return j;
}

inline std::vector<std::string> Messages(const api::FieldErrors& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

}  // namespace tidepool::apiserver::validation::testing
