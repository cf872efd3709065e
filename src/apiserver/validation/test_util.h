// File: test_util.h
//
// Test helpers for the validation tests: objects written as JSON text, variations of them as
// RFC 7386 merge patches, and field errors as the strings kube-apiserver prints.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

// One validation case: the base object with `patch` merged in (and, for an update, the base
// with `old_patch` as the old object) gives exactly the errors `want`.
struct Case {
  std::string name;
  std::string patch;      // merge patch applied to the base object
  std::string old_patch;  // non-empty: an update from the base with this patch
  std::vector<std::string> want;
};

using Defaulter = void (*)(json&);
using Validator = Status (*)(const json&, const json*, api::FieldErrors*);

inline void NoDefaults(json&) {}

// Runs `cases` on `base`: each object (and old object) defaulted, then validated.
inline void RunCases(const char* base, Defaulter defaults, Validator validate,
                     const std::vector<Case>& cases) {
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    json object = Patched(base, tc.patch);
    defaults(object);
    json old;
    if (!tc.old_patch.empty()) {
      old = Patched(base, tc.old_patch);
      defaults(old);
    }
    api::FieldErrors errors;
    ASSERT_TRUE(validate(object, tc.old_patch.empty() ? nullptr : &old, &errors).ok());
    EXPECT_THAT(Messages(errors), ::testing::ElementsAreArray(tc.want));
  }
}

}  // namespace tidepool::apiserver::validation::testing
