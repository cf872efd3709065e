#include "apiserver/validation/apps.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

using testing::Case;
using ::testing::ElementsAreArray;
using testing::Messages;
using testing::Patched;
using testing::RunCases;

constexpr const char* kDeployment = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
           "template": {"metadata": {"labels": {"app": "web"}},
                        "spec": {"restartPolicy": "Always",
                                 "containers": [{"name": "c", "image": "nginx"}]}}}})";

TEST(DeploymentTest, RulesAndTexts) {
  const std::string kEmptySelector =
      "v1.LabelSelector{MatchLabels:map[string]string(nil), "
      "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}";
  RunCases(kDeployment, DefaultDeployment, ValidateDeployment,
      {
          {"a valid deployment", "", "", {}},
          {"negative replicas", R"({"spec": {"replicas": -5}})", "",
           {"spec.replicas: Invalid value: -5: must be greater than or equal to 0"}},
          {"no selector", R"({"spec": {"selector": null}})", "",
           {"spec.selector: Required value",
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: "
            "`selector` does not match template `labels`"}},
          {"a selector that does not match the template",
           R"({"spec": {"selector": {"matchLabels": {"app": "db"}}}})", "",
           {"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: "
            "`selector` does not match template `labels`"}},
          {"an empty selector", R"({"spec": {"selector": {"matchLabels": null}}})", "",
           {"spec.selector: Invalid value: " + kEmptySelector +
            ": empty selector is invalid for deployment"}},
          {"a selector with an unknown operator",
           R"({"spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "Is"}]}}})", "",
           {"spec.selector.matchExpressions[0].operator: Invalid value: \"Is\": not a valid "
            "selector operator",
            "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
            "\"web\"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{"
            "Key:\"app\", Operator:\"Is\", Values:[]string(nil)}}}: invalid label selector"}},
          {"restartPolicy Never", R"({"spec": {"template": {"spec": {"restartPolicy": "Never"}}}})",
           "",
           {"spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: "
            "\"Always\""}},
          {"activeDeadlineSeconds in the template",
           R"({"spec": {"template": {"spec": {"activeDeadlineSeconds": 5}}}})", "",
           {"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
            "ReplicaSet is not Supported"}},
          {"a container without an image",
           R"({"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}})", "",
           {"spec.template.spec.containers[0].image: Required value"}},
          {"no containers", R"({"spec": {"template": {"spec": {"containers": []}}}})", "",
           {"spec.template.spec.containers: Required value"}},
          {"a bad template label",
           R"({"spec": {"selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"bad key": "x"}}}}})",
           "",
           {"spec.template.labels: Invalid value: \"bad key\": name part must consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
          {"maxSurge and maxUnavailable both 0",
           R"({"spec": {"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}}})", "",
           {"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, "
            "IntVal:0, StrVal:\"\"}: may not be 0 when `maxSurge` is 0"}},
          {"maxUnavailable over 100%",
           R"({"spec": {"strategy": {"rollingUpdate": {"maxUnavailable": "120%"}}}})", "",
           {"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, "
            "IntVal:0, StrVal:\"120%\"}: must not be greater than 100%"}},
          {"maxSurge not a percentage",
           R"({"spec": {"strategy": {"rollingUpdate": {"maxSurge": "abc"}}}})", "",
           {"spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, "
            "IntVal:0, StrVal:\"abc\"}: a valid percent string must be a numeric string followed "
            "by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
          {"negative maxSurge",
           R"({"spec": {"strategy": {"rollingUpdate": {"maxSurge": -1}}}})", "",
           {"spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or "
            "equal to 0"}},
          {"Recreate with rollingUpdate",
           R"({"spec": {"strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}}})", "",
           {"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is "
            "'Recreate'"}},
          {"an unknown strategy", R"({"spec": {"strategy": {"type": "Canary"}}})", "",
           {"spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:\"Canary\", "
            "RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: \"Recreate\", "
            "\"RollingUpdate\""}},
          {"progressDeadlineSeconds not over minReadySeconds",
           R"({"spec": {"progressDeadlineSeconds": 5, "minReadySeconds": 10}})", "",
           {"spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds"}},
          {"negative revisionHistoryLimit", R"({"spec": {"revisionHistoryLimit": -1}})", "",
           {"spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"}},
          {"an update that scales", R"({"spec": {"replicas": 7}})", R"({})", {}},
          {"an update that changes the selector",
           R"({"spec": {"selector": {"matchLabels": {"app": "x"}},
                        "template": {"metadata": {"labels": {"app": "x"}}}}})",
           R"({})",
           {"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
            "\"x\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"}},
      });
}

TEST(DeploymentTest, DefaultsAsKubeApiserver) {
  json d = Patched(kDeployment, R"({"spec": {"replicas": null, "strategy": {"rollingUpdate":
                                   {"maxSurge": 1}}}})");
  DefaultDeployment(d);
  EXPECT_EQ(d["spec"]["replicas"], 1);
  EXPECT_EQ(d["spec"]["strategy"],
            json::parse(R"({"type": "RollingUpdate",
                            "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}})"));
  EXPECT_EQ(d["spec"]["revisionHistoryLimit"], 10);
  EXPECT_EQ(d["spec"]["progressDeadlineSeconds"], 600);
  json r = Patched(kDeployment, R"({"spec": {"strategy": {"type": "Recreate"}}})");
  DefaultDeployment(r);
  EXPECT_FALSE(r["spec"]["strategy"].contains("rollingUpdate"));
}

constexpr const char* kDaemonSet = R"({
  "apiVersion": "apps/v1", "kind": "DaemonSet",
  "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-operator"},
  "spec": {"selector": {"matchLabels": {"app": "nvidia-device-plugin-daemonset"}},
           "template": {"metadata": {"labels": {"app": "nvidia-device-plugin-daemonset"}},
                        "spec": {"restartPolicy": "Always",
                                 "nodeSelector": {"nvidia.com/gpu.deploy.device-plugin": "true"},
                                 "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                                  "effect": "NoSchedule"}],
                                 "priorityClassName": "system-node-critical",
                                 "containers": [{"name": "nvidia-device-plugin",
                                   "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}}}})";

TEST(DaemonSetTest, RulesAndTexts) {
  RunCases(kDaemonSet, DefaultDaemonSet, ValidateDaemonSet,
      {
          {"the emulated GPU operator's daemonset", "", "", {}},
          {"no selector", R"({"spec": {"selector": null}})", "",
           {"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"nvidia-"
            "device-plugin-daemonset\"}: `selector` does not match template `labels`"}},
          {"both maxSurge and maxUnavailable",
           R"({"spec": {"updateStrategy": {"rollingUpdate": {"maxSurge": 1}}}})", "",
           {"spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, "
            "IntVal:1, StrVal:\"\"}: may not be set when maxUnavailable is non-zero"}},
          {"neither maxSurge nor maxUnavailable",
           R"({"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": 0}}}})", "",
           {"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when "
            "maxSurge is 0"}},
          {"restartPolicy OnFailure",
           R"({"spec": {"template": {"spec": {"restartPolicy": "OnFailure"}}}})", "",
           {"spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported "
            "values: \"Always\""}},
          {"a selector change",
           R"({"spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}}})",
           R"({})",
           {"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
            "\"nvidia-device-plugin-daemonset\"}, MatchExpressions:[]v1.LabelSelectorRequirement{"
            "v1.LabelSelectorRequirement{Key:\"app\", Operator:\"Exists\", Values:[]string(nil)}}}: "
            "field is immutable"}},
      });
}

constexpr const char* kReplicaSet = R"({
  "apiVersion": "apps/v1", "kind": "ReplicaSet",
  "metadata": {"name": "web-1", "namespace": "default"},
  "spec": {"selector": {"matchLabels": {"app": "web"}},
           "template": {"metadata": {"labels": {"app": "web"}},
                        "spec": {"restartPolicy": "Always",
                                 "containers": [{"name": "c", "image": "nginx"}]}}}})";

TEST(ReplicaSetTest, RulesAndTexts) {
  RunCases(kReplicaSet, DefaultReplicaSet, ValidateReplicaSet,
      {
          {"a valid replicaset", "", "", {}},
          {"negative minReadySeconds", R"({"spec": {"minReadySeconds": -1}})", "",
           {"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"}},
          {"an empty selector says deployment, as kube-apiserver does",
           R"({"spec": {"selector": {"matchLabels": {"app": null}}}})", "",
           {"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, "
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
            "deployment"}},
      });
}

constexpr const char* kControllerRevision = R"({
  "apiVersion": "apps/v1", "kind": "ControllerRevision",
  "metadata": {"name": "web-6c5d8f7b9", "namespace": "default"},
  "data": {"spec": {"template": {"$patch": "replace"}}}, "revision": 1})";

TEST(ControllerRevisionTest, RulesAndTexts) {
  RunCases(kControllerRevision, testing::NoDefaults, ValidateControllerRevision,
           {
               {"a valid revision", "", "", {}},
               {"no data", R"({"data": null})", "", {"data: Required value: data is mandatory"}},
               {"a negative revision",
                R"({"revision": -1})",
                "",
                {"revision: Invalid value: -1: must be greater than or equal to 0"}},
               {"a name that is no DNS subdomain",
                R"({"metadata": {"name": "Web_1"}})",
                "",
                {"metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must "
                 "consist of "
                 "lower case alphanumeric characters, '-' or '.', and must start and end with an "
                 "alphanumeric character (e.g. 'example.com', regex used for validation is "
                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
               {"the revision number may change", R"({"revision": 3})", "{}", {}},
               {"data may not",
                R"({"data": {"spec": {"template": null}}})",
                "{}",
                {R"(data: Invalid value: {"spec":{}}: field is immutable)"}},
           });
}

constexpr const char* kStatefulSet = R"({
  "apiVersion": "apps/v1", "kind": "StatefulSet",
  "metadata": {"name": "db", "namespace": "default"},
  "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
           "template": {"metadata": {"labels": {"app": "db"}},
                        "spec": {"restartPolicy": "Always",
                                 "containers": [{"name": "c", "image": "postgres"}]}}}})";

TEST(StatefulSetTest, RulesAndTexts) {
  RunCases(kStatefulSet, DefaultStatefulSet, ValidateStatefulSet,
      {
          {"a valid statefulset", "", "", {}},
          {"a name that is not a DNS label", R"({"metadata": {"name": "db.main"}})", "",
           {"metadata.name: Invalid value: \"db.main\": a lowercase RFC 1123 label must consist "
            "of lower case alphanumeric characters or '-', and must start and end with an "
            "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
          {"an unknown podManagementPolicy", R"({"spec": {"podManagementPolicy": "Random"}})", "",
           {"spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or "
            "'Parallel'"}},
          {"a negative partition",
           R"({"spec": {"updateStrategy": {"rollingUpdate": {"partition": -1}}}})", "",
           {"spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than "
            "or equal to 0"}},
          {"a changed serviceName", R"({"spec": {"serviceName": "other"}})", R"({})",
           {"spec: Forbidden: updates to statefulset spec for fields other than 'replicas', "
            "'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
            "'minReadySeconds' are forbidden"}},
          {"scaling", R"({"spec": {"replicas": 3}})", R"({})", {}},
      });
}

}  // namespace
}  // namespace tidepool::apiserver::validation
