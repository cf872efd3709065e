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

TEST(PodTest, ContainerPorts) {
  auto ports = [](const char* list) {
    return std::string(R"({"spec": {"containers": [{"name": "c", "image": "nginx:1", "ports": )") +
           list + "}]}}";
  };
  const std::string p0 = "spec.containers[0].ports[0]";
  const std::string p1 = "spec.containers[0].ports[1]";
  RunCases(
      kPod, NoDefaults, ValidatePod,
      {
          {"valid",
           ports(R"([{"name": "http", "containerPort": 80, "protocol": "TCP"},
                                   {"name": "metrics", "containerPort": 9090, "hostPort": 9090,
                                    "protocol": "UDP"}])"),
           "",
           {}},
          // kubectl run p --image=nginx --port=99999
          {"containerPort out of range",
           ports(R"([{"containerPort": 99999, "protocol": "TCP"}])"),
           "",
           {p0 + ".containerPort: Invalid value: 99999: must be between 1 and 65535, inclusive"}},
          {"containerPort missing",
           ports(R"([{"protocol": "TCP"}])"),
           "",
           {p0 + ".containerPort: Required value"}},
          {"hostPort out of range",
           ports(R"([{"containerPort": 80, "hostPort": -1, "protocol": "TCP"}])"),
           "",
           {p0 + ".hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"}},
          {"protocol",
           ports(R"([{"containerPort": 80, "protocol": "HTTP"}])"),
           "",
           {p0 +
            R"(.protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP")"}},
          {"name",
           ports(R"([{"name": "HTTP--", "containerPort": 80, "protocol": "TCP"}])"),
           "",
           {p0 +
                R"(.name: Invalid value: "HTTP--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-))",
            p0 + R"(.name: Invalid value: "HTTP--": must contain at least one letter (a-z))",
            p0 + R"(.name: Invalid value: "HTTP--": must not contain consecutive hyphens)",
            p0 + R"(.name: Invalid value: "HTTP--": must not begin or end with a hyphen)"}},
          {"name too long",
           ports(R"([{"name": "a-very-long-port-name", "containerPort": 80, "protocol": "TCP"}])"),
           "",
           {p0 +
            R"(.name: Invalid value: "a-very-long-port-name": must be no more than 15 characters)"}},
          {"an init container's port",
           R"({"spec": {"initContainers": [{"name": "i", "image": "busybox",
               "ports": [{"containerPort": 0, "protocol": "TCP"}]}]}})",
           "",
           {"spec.initContainers[0].ports[0].containerPort: Required value"}},
          {"an init container's image",
           R"({"spec": {"initContainers": [{"name": "i"}]}})",
           "",
           {"spec.initContainers[0].image: Required value"}},
          {"duplicate name",
           ports(R"([{"name": "web", "containerPort": 80, "protocol": "TCP"},
                          {"name": "web", "containerPort": 81, "protocol": "TCP"}])"),
           "",
           {p1 + R"(.name: Duplicate value: "web")"}},
      });
}

}  // namespace
}  // namespace tidepool::apiserver::validation
