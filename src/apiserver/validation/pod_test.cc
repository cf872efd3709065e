// core/v1 Pod: what an update may change (ValidatePodUpdate).
#include "apiserver/validation/pod.h"

#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using testing::Case;
using testing::NoDefaults;
using testing::RunCases;

constexpr const char* kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "p", "namespace": "default", "uid": "u1", "resourceVersion": "1"},
  "spec": {"nodeName": "n1", "restartPolicy": "Always", "activeDeadlineSeconds": 60,
           "terminationGracePeriodSeconds": 30,
           "containers": [{"name": "c", "image": "nginx:1"}],
           "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoExecute",
                            "tolerationSeconds": 10}]}})";

constexpr const char* kSpecForbidden =
    "spec: Forbidden: pod updates may not change fields other than "
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "
    "negative)";

TEST(PodTest, WhatAnUpdateMayChange) {
  RunCases(
      kPod, NoDefaults, ValidatePod,
      {
          {"nothing changed", "", "{}", {}},
          {"an image",
           R"({"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}})",
           "{}",
           {}},
          {"activeDeadlineSeconds", R"({"spec": {"activeDeadlineSeconds": 30}})", "{}", {}},
          {"a toleration added",
           R"({"spec": {"tolerations": [{"key": "a", "operator": "Exists",
                   "effect": "NoExecute", "tolerationSeconds": 5}, {"key": "b",
                   "operator": "Exists"}]}})",
           "{}",
           {}},
          {"a toleration removed",
           R"({"spec": {"tolerations": []}})",
           "{}",
           {"spec.tolerations: Forbidden: existing toleration can not be modified except "
            "its tolerationSeconds"}},
          {"nodeName of a bound pod", R"({"spec": {"nodeName": "foo"}})", "{}", {kSpecForbidden}},
          {"nodeName cleared", R"({"spec": {"nodeName": null}})", "{}", {kSpecForbidden}},
          {"nodeName of an unbound pod",
           R"({"spec": {"nodeName": "foo"}})",
           R"({"spec": {"nodeName": null}})",
           {kSpecForbidden}},
          {"restartPolicy", R"({"spec": {"restartPolicy": "Never"}})", "{}", {kSpecForbidden}},
          // Stored by an earlier tidepool with a quantity as written, updated canonical.
          {"a quantity stored as written",
           R"({"spec": {"containers": [{"name": "c", "image": "nginx:1",
                   "resources": {"limits": {"cpu": "500m"}}}]}})",
           R"({"spec": {"containers": [{"name": "c", "image": "nginx:1",
                   "resources": {"limits": {"cpu": "0.5"}}}]}})",
           {}},
          {"a quantity changed",
           R"({"spec": {"containers": [{"name": "c", "image": "nginx:1",
                   "resources": {"limits": {"cpu": "600m"}}}]}})",
           R"({"spec": {"containers": [{"name": "c", "image": "nginx:1",
                   "resources": {"limits": {"cpu": "0.5"}}}]}})",
           {kSpecForbidden}},
      });
}

}  // namespace
}  // namespace tidepool::apiserver::validation
