// File: taint_test.cc
//
// Tests for taints and tolerations against k8s.io/api/core/v1 (Toleration.ToleratesTaint,
// Taint.ToString), component-helpers (TolerationsTolerateTaint, FindMatchingUntoleratedTaint)
// and kubectl taint's parseTaint.
#include "api/taint.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace tidepool::api {
namespace {

constexpr TaintEffect kNone = TaintEffect::kNone;
constexpr TaintEffect kNoSchedule = TaintEffect::kNoSchedule;
constexpr TaintEffect kPreferNoSchedule = TaintEffect::kPreferNoSchedule;
constexpr TaintEffect kNoExecute = TaintEffect::kNoExecute;
constexpr TolerationOperator kEqual = TolerationOperator::kEqual;
constexpr TolerationOperator kExists = TolerationOperator::kExists;

Toleration Tol(std::string key, TolerationOperator op, std::string value, TaintEffect effect) {
  return Toleration{std::move(key), op, std::move(value), effect, std::nullopt};
}

Taint T(std::string key, std::string value, TaintEffect effect) {
  return Taint{std::move(key), std::move(value), effect, std::nullopt};
}

TEST(TolerationTest, ToleratesTaint) {
  struct Case {
    std::string name;
    Toleration toleration;
    Taint taint;
    bool want;
  };
  const Taint gpu = T("nvidia.com/gpu", "present", kNoSchedule);
  const std::vector<Case> cases = {
      {"equal key, value and effect tolerate",
       Tol("nvidia.com/gpu", kEqual, "present", kNoSchedule), gpu, true},
      {"an empty toleration effect matches NoSchedule",
       Tol("nvidia.com/gpu", kEqual, "present", kNone), gpu, true},
      {"an empty toleration effect matches PreferNoSchedule", Tol("k", kEqual, "v", kNone),
       T("k", "v", kPreferNoSchedule), true},
      {"an empty toleration effect matches NoExecute", Tol("k", kEqual, "v", kNone),
       T("k", "v", kNoExecute), true},
      {"a NoExecute toleration does not match a NoSchedule taint",
       Tol("nvidia.com/gpu", kEqual, "present", kNoExecute), gpu, false},
      {"a NoSchedule toleration does not match a PreferNoSchedule taint",
       Tol("k", kExists, "", kNoSchedule), T("k", "v", kPreferNoSchedule), false},
      {"a PreferNoSchedule toleration matches a PreferNoSchedule taint",
       Tol("k", kExists, "", kPreferNoSchedule), T("k", "v", kPreferNoSchedule), true},
      {"a NoExecute toleration matches a NoExecute taint", Tol("k", kEqual, "v", kNoExecute),
       T("k", "v", kNoExecute), true},
      {"an empty key with Exists tolerates any key and value", Tol("", kExists, "", kNone), gpu,
       true},
      {"an empty key with Exists tolerates a NoExecute taint", Tol("", kExists, "", kNone),
       T("node.kubernetes.io/not-ready", "", kNoExecute), true},
      {"an empty key with Exists still honours its effect", Tol("", kExists, "", kNoExecute), gpu,
       false},
      {"an empty key with Equal still compares the values (equal)",
       Tol("", kEqual, "present", kNone), gpu, true},
      {"an empty key with Equal still compares the values (different)",
       Tol("", kEqual, "absent", kNone), gpu, false},
      {"an empty key with Equal and no value matches only an empty taint value",
       Tol("", kEqual, "", kNone), gpu, false},
      {"an empty key with Equal and no value matches an empty taint value",
       Tol("", kEqual, "", kNone), T("k", "", kNoSchedule), true},
      {"Exists ignores the taint's value", Tol("nvidia.com/gpu", kExists, "", kNoSchedule), gpu,
       true},
      {"Exists ignores a value set on the toleration",
       Tol("nvidia.com/gpu", kExists, "something-else", kNoSchedule), gpu, true},
      {"Equal requires the same value", Tol("nvidia.com/gpu", kEqual, "absent", kNoSchedule), gpu,
       false},
      {"Equal with an empty value does not match a non-empty taint value",
       Tol("nvidia.com/gpu", kEqual, "", kNoSchedule), gpu, false},
      {"Equal with an empty value matches an empty taint value",
       Tol("node.kubernetes.io/unschedulable", kEqual, "", kNoSchedule),
       T("node.kubernetes.io/unschedulable", "", kNoSchedule), true},
      {"values are compared case-sensitively",
       Tol("nvidia.com/gpu", kEqual, "Present", kNoSchedule), gpu, false},
      {"a different key does not match", Tol("amd.com/gpu", kExists, "", kNone), gpu, false},
      {"a key prefix does not match", Tol("nvidia.com", kExists, "", kNone), gpu, false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.toleration.ToleratesTaint(tc.taint), tc.want);
  }
}

TEST(TolerationTest, TolerationsTolerateTaint) {
  struct Case {
    std::string name;
    std::vector<Toleration> tolerations;
    bool want;
  };
  const Taint taint = T("dedicated", "gpu", kNoSchedule);
  const std::vector<Case> cases = {
      {"no tolerations tolerate nothing", {}, false},
      {"one matching toleration is enough",
       {Tol("other", kExists, "", kNone), Tol("dedicated", kEqual, "gpu", kNone)},
       true},
      {"none of several tolerations matches",
       {Tol("other", kExists, "", kNone), Tol("dedicated", kEqual, "cpu", kNone),
        Tol("dedicated", kEqual, "gpu", kNoExecute)},
       false},
      {"a match-all toleration tolerates", {Tol("", kExists, "", kNone)}, true},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(TolerationsTolerateTaint(tc.tolerations, taint), tc.want);
  }
}

TEST(TolerationTest, FindMatchingUntoleratedTaint) {
  auto no_schedule_or_execute = [](const Taint& t) {
    return t.effect == kNoSchedule || t.effect == kNoExecute;
  };
  struct Case {
    std::string name;
    std::vector<Taint> taints;
    std::vector<Toleration> tolerations;
    // Index into taints of the expected result, or nullopt.
    std::optional<size_t> want;
  };
  const std::vector<Case> cases = {
      {"no taints", {}, {}, std::nullopt},
      {"the only taint is untolerated", {T("a", "1", kNoSchedule)}, {}, 0},
      {"the first of two untolerated taints is returned",
       {T("a", "1", kNoSchedule), T("b", "2", kNoExecute)},
       {},
       0},
      {"node order decides, not the key",
       {T("z", "1", kNoSchedule), T("a", "2", kNoSchedule)},
       {},
       0},
      {"a tolerated first taint is skipped",
       {T("a", "1", kNoSchedule), T("b", "2", kNoExecute)},
       {Tol("a", kExists, "", kNone)},
       1},
      {"a taint rejected by the filter is skipped",
       {T("soft", "1", kPreferNoSchedule), T("hard", "2", kNoSchedule)},
       {},
       1},
      {"only filtered-out taints are untolerated",
       {T("soft", "1", kPreferNoSchedule)},
       {},
       std::nullopt},
      {"every taint is tolerated",
       {T("a", "1", kNoSchedule), T("b", "2", kNoExecute)},
       {Tol("", kExists, "", kNone)},
       std::nullopt},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const Taint* got =
        FindMatchingUntoleratedTaint(tc.taints, tc.tolerations, no_schedule_or_execute);
    if (!tc.want.has_value()) {
      EXPECT_EQ(got, nullptr);
    } else {
      ASSERT_NE(got, nullptr);
      EXPECT_EQ(got, &tc.taints[*tc.want]);
    }
    // The same filter, named.
    EXPECT_EQ(UntoleratedDoNotScheduleTaint(tc.taints, tc.tolerations), got);
  }
}

TEST(TaintEffectTest, NamesRoundTrip) {
  struct Case {
    std::string name;
    TaintEffect effect;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"no effect is the empty string", kNone, ""},
      {"NoSchedule", kNoSchedule, "NoSchedule"},
      {"PreferNoSchedule", kPreferNoSchedule, "PreferNoSchedule"},
      {"NoExecute", kNoExecute, "NoExecute"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(TaintEffectName(tc.effect), tc.text);
    StatusOr<TaintEffect> parsed = ParseTaintEffect(tc.text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, tc.effect);
  }
}

TEST(TaintEffectTest, ParseRejectsUnknownEffects) {
  for (std::string s : {"noschedule", "NoScheduleX", "Never", " NoSchedule"}) {
    SCOPED_TRACE(s);
    StatusOr<TaintEffect> parsed = ParseTaintEffect(s);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), "unsupported taint effect \"" + s + "\"");
  }
}

TEST(TaintTest, ParseAndToString) {
  struct Case {
    std::string name;
    std::string spec;
    Taint want;
  };
  const std::vector<Case> cases = {
      {"key, value and effect", "nvidia.com/gpu=present:NoSchedule",
       T("nvidia.com/gpu", "present", kNoSchedule)},
      {"key and effect without a value", "k:NoExecute", T("k", "", kNoExecute)},
      {"PreferNoSchedule", "dedicated=batch:PreferNoSchedule",
       T("dedicated", "batch", kPreferNoSchedule)},
      {"a prefixed well-known key", "node.kubernetes.io/unschedulable:NoSchedule",
       T("node.kubernetes.io/unschedulable", "", kNoSchedule)},
      {"a value with dots, dashes and underscores", "team=ml_infra-v1.2:NoSchedule",
       T("team", "ml_infra-v1.2", kNoSchedule)},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    StatusOr<Taint> got = Taint::Parse(tc.spec);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, tc.want);
    EXPECT_EQ(got->key, tc.want.key);
    EXPECT_EQ(got->value, tc.want.value);
    EXPECT_EQ(got->effect, tc.want.effect);
    EXPECT_EQ(got->ToString(), tc.spec);
  }
}

TEST(TaintTest, ToStringOmitsAnEmptyValue) {
  EXPECT_EQ(T("nvidia.com/gpu", "present", kNoSchedule).ToString(),
            "nvidia.com/gpu=present:NoSchedule");
  EXPECT_EQ(T("k", "", kNoExecute).ToString(), "k:NoExecute");
}

TEST(TaintTest, ParseRejectsInvalidSpecs) {
  struct Case {
    std::string name;
    std::string spec;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no effect separator", "nvidia.com/gpu=present",
       "invalid taint spec: nvidia.com/gpu=present"},
      {"an empty effect", "k=v:", "invalid taint spec: k=v:"},
      {"an unknown effect", "k=v:Sometimes",
       "invalid taint spec: k=v:Sometimes, unsupported taint effect \"Sometimes\""},
      {"a lower-case effect", "k:noschedule",
       "invalid taint spec: k:noschedule, unsupported taint effect \"noschedule\""},
      {"an empty key", "=v:NoSchedule",
       "invalid taint spec: =v:NoSchedule, the key must be a qualified name"},
      {"only an effect", ":NoSchedule",
       "invalid taint spec: :NoSchedule, the key must be a qualified name"},
      {"two colons", "a:b:NoSchedule", "invalid taint spec: a:b:NoSchedule"},
      {"two equals signs", "k=v=w:NoSchedule", "invalid taint spec: k=v=w:NoSchedule"},
      {"a key with a space", "bad key:NoSchedule",
       "invalid taint spec: bad key:NoSchedule, the key must be a qualified name"},
      {"a key with two slashes", "a/b/c:NoSchedule",
       "invalid taint spec: a/b/c:NoSchedule, the key must be a qualified name"},
      {"an upper-case key prefix", "Example.com/k:NoSchedule",
       "invalid taint spec: Example.com/k:NoSchedule, the key must be a qualified name"},
      {"a value that ends with a dash", "k=v-:NoSchedule",
       "invalid taint spec: k=v-:NoSchedule, the value must be a valid label value"},
      {"a bad value is reported before a bad key", "bad key=v-:NoSchedule",
       "invalid taint spec: bad key=v-:NoSchedule, the value must be a valid label value"},
      {"a bad effect is reported before anything else", "bad key=v-:Soon",
       "invalid taint spec: bad key=v-:Soon, unsupported taint effect \"Soon\""},
      {"a value longer than 63 characters", "k=" + std::string(64, 'a') + ":NoSchedule",
       "invalid taint spec: k=" + std::string(64, 'a') +
           ":NoSchedule, the value must be a valid label value"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    StatusOr<Taint> got = Taint::Parse(tc.spec);
    ASSERT_FALSE(got.ok()) << got->ToString();
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), tc.message);
  }
}

TEST(TaintTest, MatchTaintComparesKeyAndEffectOnly) {
  struct Case {
    std::string name;
    Taint a, b;
    bool want_match;
    bool want_equal;
  };
  const std::vector<Case> cases = {
      {"same key and effect, different value", T("k", "1", kNoSchedule), T("k", "2", kNoSchedule),
       true, false},
      {"same key, different effect", T("k", "1", kNoSchedule), T("k", "1", kNoExecute), false,
       false},
      {"identical taints", T("k", "1", kNoSchedule), T("k", "1", kNoSchedule), true, true},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.a.MatchTaint(tc.b), tc.want_match);
    EXPECT_EQ(tc.a == tc.b, tc.want_equal);
  }
}

}  // namespace
}  // namespace tidepool::api
