// File: fields_test.cc
//
// Tests for field selectors: apimachinery's fields.ParseSelector (splitting, escaping, error
// texts), kube-apiserver's field label conversion (Validate) and the registries' selectable
// fields (FieldValue, Matches), with the exact selectors kubectl 1.32 sends
// (kubectl-api.md §3.9-3.11, §3.17).
#include "apiserver/selectors/fields.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidepool::apiserver::selectors {
namespace {

using nlohmann::json;

constexpr FieldOperator kEq = FieldOperator::kEquals;
constexpr FieldOperator kNe = FieldOperator::kNotEquals;

TEST(FieldSelectorTest, Parses) {
  struct Case {
    std::string name;
    std::string in;
    std::vector<FieldRequirement> want;
  };
  const std::vector<Case> cases = {
      {"empty selects everything", "", {}},
      {"empty terms are dropped", ",,", {}},
      {"drain's pod list", "spec.nodeName=node-1", {{"spec.nodeName", kEq, "node-1"}}},
      {"describe node's pod list, terms sorted",
       "spec.nodeName=node-1,status.phase!=Succeeded,status.phase!=Failed",
       {{"spec.nodeName", kEq, "node-1"},
        {"status.phase", kNe, "Failed"},
        {"status.phase", kNe, "Succeeded"}}},
      {"describe pod's events",
       "involvedObject.name=gpu-pod,involvedObject.namespace=default,"
       "involvedObject.uid=6f1c2d3e-0000-4000-8000-000000000001",
       {{"involvedObject.name", kEq, "gpu-pod"},
        {"involvedObject.namespace", kEq, "default"},
        {"involvedObject.uid", kEq, "6f1c2d3e-0000-4000-8000-000000000001"}}},
      {"describe node's events, with an empty namespace",
       "involvedObject.name=node-1,involvedObject.namespace=,involvedObject.kind=Node,"
       "involvedObject.uid=node-1",
       {{"involvedObject.kind", kEq, "Node"},
        {"involvedObject.name", kEq, "node-1"},
        {"involvedObject.namespace", kEq, ""},
        {"involvedObject.uid", kEq, "node-1"}}},
      {"delete's wait", "metadata.name=gpu-pod", {{"metadata.name", kEq, "gpu-pod"}}},
      {"double equals is equals", "metadata.name==x", {{"metadata.name", kEq, "x"}}},
      {"not equals empty", "spec.nodeName!=", {{"spec.nodeName", kNe, ""}}},
      {"empty field", "=b", {{"", kEq, "b"}}},
      {"no trimming", " a = b ", {{" a ", kEq, " b "}}},
      {"escaped comma", R"(a=b\,c)", {{"a", kEq, "b,c"}}},
      {"escaped equals", R"(a=b\=c)", {{"a", kEq, "b=c"}}},
      {"escaped backslash", R"(a=b\\c)", {{"a", kEq, R"(b\c)"}}},
      {"an escaped comma does not split", R"(x=1\,2,a=b)", {{"a", kEq, "b"}, {"x", kEq, "1,2"}}},
      {"'!' needs no escape", "a=b!c", {{"a", kEq, "b!c"}}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto sel = FieldSelector::Parse(tc.in);
    ASSERT_TRUE(sel.ok()) << sel.status().ToString();
    EXPECT_EQ(sel->requirements(), tc.want);
    EXPECT_EQ(sel->Empty(), tc.want.empty());
  }
}

TEST(FieldSelectorTest, ParseErrorsHaveApimachineryTexts) {
  struct Case {
    std::string name;
    std::string in;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"no operator", "a", "invalid selector: 'a'; can't understand 'a'"},
      {"no operator in a later term, reported in sorted order", "x=y,a",
       "invalid selector: 'x=y,a'; can't understand 'a'"},
      {"'!' alone is no operator", "a!b", "invalid selector: 'a!b'; can't understand 'a!b'"},
      {"unescaped equals in the value", "a=b=c",
       "invalid field selector: unescaped character in value: 61"},
      {"unescaped equals after ==", "a==b=c",
       "invalid field selector: unescaped character in value: 61"},
      {"the first operator splits: \"a!==b\" is a != \"=b\"", "a!==b",
       "invalid field selector: unescaped character in value: 61"},
      {"unknown escape", R"(a=b\x)", R"(invalid field selector: invalid escape sequence: \x)"},
      {"unknown escape of '!'", R"(a=b\!)",
       R"(invalid field selector: invalid escape sequence: \!)"},
      {"unknown escape of a multi-byte character", "a=\\\xc3\xa9",
       "invalid field selector: invalid escape sequence: \\\xc3\xa9"},
      {"trailing backslash", R"(a=b\)", R"(invalid field selector: invalid escape sequence: \)"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto sel = FieldSelector::Parse(tc.in);
    ASSERT_FALSE(sel.ok()) << sel->String();
    EXPECT_EQ(sel.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(sel.status().message(), tc.want);
  }
}

TEST(FieldSelectorTest, Validate) {
  const std::string only_meta =
      R"( is not a known field selector: only "metadata.name", "metadata.namespace")";
  struct Case {
    std::string name;
    std::string group;
    std::string resource;
    std::string selector;
    std::string want;  // "" = OK
  };
  const std::vector<Case> cases = {
      {"pods: unknown field", "", "pods", "foo=bar", "field label not supported: foo"},
      {"pods: kubectl's fields", "", "pods",
       "spec.nodeName=node-1,status.phase!=Succeeded,metadata.name=a,metadata.namespace=b", ""},
      {"pods: every supported field", "", "pods",
       "spec.restartPolicy=Always,spec.schedulerName=s,spec.serviceAccountName=sa,"
       "spec.hostNetwork=true,status.podIP=1.2.3.4,status.podIPs=x,status.nominatedNodeName=n,"
       "spec.host=node-1",
       ""},
      {"pods: the first unsupported field in sorted order", "", "pods", "z=1,spec.nodeName=a,b=2",
       "field label not supported: b"},
      {"pods: field names are case-sensitive", "", "pods", "spec.nodename=a",
       "field label not supported: spec.nodename"},
      {"nodes: unschedulable", "", "nodes", "spec.unschedulable=false,metadata.name=n", ""},
      {"nodes: no metadata.namespace", "", "nodes",
       "metadata.namespace=", "field label not supported: metadata.namespace"},
      {"events: describe's fields", "", "events",
       "involvedObject.name=node-1,involvedObject.namespace=,involvedObject.kind=Node,"
       "involvedObject.uid=node-1",
       ""},
      {"events: every supported field", "", "events",
       "involvedObject.apiVersion=v1,involvedObject.resourceVersion=1,"
       "involvedObject.fieldPath=p,reason=r,reportingComponent=c,source=s,type=Normal,"
       "metadata.name=n,metadata.namespace=ns",
       ""},
      {"events: unknown field", "", "events", "message=x", "field label not supported: message"},
      {"namespaces: phase", "", "namespaces", "status.phase=Active,metadata.name=default", ""},
      {"namespaces: no metadata.namespace", "", "namespaces", "metadata.namespace=x",
       "field label not supported: metadata.namespace"},
      {"secrets: type", "", "secrets", "type=Opaque", ""},
      {"secrets: unknown field", "", "secrets", "data=x", "field label not supported: data"},
      {"replicationcontrollers: replicas", "", "replicationcontrollers", "status.replicas=1", ""},
      {"configmaps: default conversion", "", "configmaps", "metadata.name=a,metadata.namespace=b",
       ""},
      {"configmaps: unknown field", "", "configmaps", "data.x=1", "\"data.x\"" + only_meta},
      {"apps replicasets use the default conversion", "apps", "replicasets", "status.replicas=1",
       "\"status.replicas\"" + only_meta},
      {"default conversion quotes as Go", "", "configmaps", "a\"b=1", R"("a\"b")" + only_meta},
      {"batch jobs: successful", "batch", "jobs", "status.successful=1,metadata.name=j", ""},
      {"batch jobs: unknown field", "batch", "jobs", "status.failed=0",
       R"(field label "status.failed" not supported for batchv1.Job)"},
      {"events.k8s.io events: regarding fields", "events.k8s.io", "events",
       "regarding.name=p,regarding.kind=Pod,reportingController=c,source=s,reason=r,type=t", ""},
      {"events.k8s.io events: core names are not accepted", "events.k8s.io", "events",
       "involvedObject.name=p", "field label not supported: involvedObject.name"},
      {"empty selector", "", "pods", "", ""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto sel = FieldSelector::Parse(tc.selector);
    ASSERT_TRUE(sel.ok()) << sel.status().ToString();
    const Status s = sel->Validate(tc.group, tc.resource);
    if (tc.want.empty()) {
      EXPECT_TRUE(s.ok()) << s.ToString();
    } else {
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(s.message(), tc.want);
    }
  }
}

json PodOn(const std::string& name, const std::string& node, const std::string& phase) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array()}}},
              {"status", {{"phase", phase}}}};
  if (!node.empty()) {
    pod["spec"]["nodeName"] = node;
  }
  return pod;
}

TEST(FieldSelectorTest, Matches) {
  const json running = PodOn("gpu-pod", "node-1", "Running");
  const json pending = PodOn("new-pod", "", "Pending");
  const json succeeded = PodOn("done", "node-1", "Succeeded");
  const json pod_event = {
      {"metadata", {{"name", "gpu-pod.18ec915d0aaeb60f"}, {"namespace", "default"}}},
      {"involvedObject",
       {{"kind", "Pod"},
        {"namespace", "default"},
        {"name", "gpu-pod"},
        {"uid", "uid-1"},
        {"apiVersion", "v1"},
        {"resourceVersion", "12"},
        {"fieldPath", "spec.containers{cuda}"}}},
      {"reason", "Scheduled"},
      {"source", {{"component", "default-scheduler"}, {"host", "node-1"}}},
      {"type", "Normal"},
      {"reportingComponent", "default-scheduler"}};
  const json node_event = {
      {"metadata", {{"name", "node-1.1"}, {"namespace", "default"}}},
      {"involvedObject", {{"kind", "Node"}, {"name", "node-1"}, {"uid", "node-1"}}},
      {"reason", "NodeReady"},
      {"source", {{"component", "kubelet"}}}};
  const std::string describe_node_pods =
      "spec.nodeName=node-1,status.phase!=Succeeded,status.phase!=Failed";
  struct Case {
    std::string name;
    std::string resource;
    std::string selector;
    json object;
    bool want;
  };
  const std::vector<Case> cases = {
      {"describe node lists a running pod", "pods", describe_node_pods, running, true},
      {"describe node skips a succeeded pod", "pods", describe_node_pods, succeeded, false},
      {"describe node skips a pending pod", "pods", describe_node_pods, pending, false},
      {"a pending pod has spec.nodeName \"\"", "pods", "spec.nodeName=", pending, true},
      {"a bound pod has not", "pods", "spec.nodeName=", running, false},
      {"spec.host is spec.nodeName", "pods", "spec.host=node-1", running, true},
      {"delete's wait by name", "pods", "metadata.name=gpu-pod", running, true},
      {"another name", "pods", "metadata.name=other", running, false},
      {"namespace", "pods", "metadata.namespace=default", running, true},
      {"describe pod's events", "events",
       "involvedObject.name=gpu-pod,involvedObject.namespace=default,involvedObject.uid=uid-1",
       pod_event, true},
      {"another uid", "events", "involvedObject.name=gpu-pod,involvedObject.uid=uid-2", pod_event,
       false},
      {"describe node's events: the namespace is empty", "events",
       "involvedObject.name=node-1,involvedObject.namespace=,involvedObject.kind=Node,"
       "involvedObject.uid=node-1",
       node_event, true},
      {"a pod event is not a node event", "events",
       "involvedObject.namespace=,involvedObject.kind=Node", pod_event, false},
      {"not equals an absent value", "events", "type!=Warning", node_event, true},
      {"a field the resource does not support matches nothing", "pods", "foo!=bar", running, false},
      {"the empty selector matches", "pods", "", running, true},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto sel = FieldSelector::Parse(tc.selector);
    ASSERT_TRUE(sel.ok()) << sel.status().ToString();
    EXPECT_EQ(sel->Matches("", tc.resource, tc.object), tc.want);
  }
}

TEST(FieldSelectorTest, FieldValue) {
  const json pod = {{"metadata", {{"name", "p"}, {"namespace", "ml"}}},
                    {"spec",
                     {{"nodeName", "node-1"},
                      {"restartPolicy", "Always"},
                      {"schedulerName", "default-scheduler"},
                      {"serviceAccountName", "default"},
                      {"hostNetwork", true}}},
                    {"status",
                     {{"phase", "Running"},
                      {"podIP", "10.0.0.9"},
                      {"podIPs", json::array({{{"ip", "10.0.0.7"}}, {{"ip", "fd00::7"}}})},
                      {"nominatedNodeName", "node-2"}}}};
  const json bare_pod = {{"metadata", {{"name", "b"}}}, {"status", {{"podIP", "10.0.0.3"}}}};
  const json node = {{"metadata", {{"name", "node-1"}}}, {"spec", {{"unschedulable", true}}}};
  const json event_from_controller = {{"reportingComponent", "my-controller"},
                                      {"source", json::object()}};
  // An events.k8s.io Event as the store keeps it (core's form, conversion.h): its field labels
  // are read from the core fields.
  const json events_v1 = {{"metadata", {{"name", "e"}, {"namespace", "ml"}}},
                          {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}},
                          {"reportingComponent", "kubelet"},
                          {"source", {{"component", ""}}},
                          {"reason", "Started"},
                          {"type", "Normal"}};
  struct Case {
    std::string name;
    std::string group;
    std::string resource;
    json object;
    std::string field;
    std::optional<std::string> want;
  };
  const std::vector<Case> cases = {
      {"pod name", "", "pods", pod, "metadata.name", "p"},
      {"pod namespace", "", "pods", pod, "metadata.namespace", "ml"},
      {"pod node", "", "pods", pod, "spec.nodeName", "node-1"},
      {"pod restart policy", "", "pods", pod, "spec.restartPolicy", "Always"},
      {"pod scheduler", "", "pods", pod, "spec.schedulerName", "default-scheduler"},
      {"pod service account", "", "pods", pod, "spec.serviceAccountName", "default"},
      {"pod host network", "", "pods", pod, "spec.hostNetwork", "true"},
      {"pod host network defaults to false", "", "pods", bare_pod, "spec.hostNetwork", "false"},
      {"pod phase", "", "pods", pod, "status.phase", "Running"},
      {"pod IP is podIPs[0]", "", "pods", pod, "status.podIP", "10.0.0.7"},
      {"pod IP without podIPs", "", "pods", bare_pod, "status.podIP", "10.0.0.3"},
      {"podIPs has no value", "", "pods", pod, "status.podIPs", ""},
      {"nominated node", "", "pods", pod, "status.nominatedNodeName", "node-2"},
      {"missing strings are empty", "", "pods", bare_pod, "spec.nodeName", ""},
      {"unsupported pod field", "", "pods", pod, "spec.priority", std::nullopt},
      {"node unschedulable", "", "nodes", node, "spec.unschedulable", "true"},
      {"node unschedulable defaults to false", "", "nodes", json::object(), "spec.unschedulable",
       "false"},
      {"node namespace is not a field", "", "nodes", node, "metadata.namespace", std::nullopt},
      {"event source falls back to reportingComponent", "", "events", event_from_controller,
       "source", "my-controller"},
      {"event reportingComponent", "", "events", event_from_controller, "reportingComponent",
       "my-controller"},
      {"namespace phase", "", "namespaces", json{{"status", {{"phase", "Terminating"}}}},
       "status.phase", "Terminating"},
      {"secret type", "", "secrets", json{{"type", "kubernetes.io/tls"}}, "type",
       "kubernetes.io/tls"},
      {"rc replicas", "", "replicationcontrollers", json{{"status", {{"replicas", 3}}}},
       "status.replicas", "3"},
      {"rc replicas default to 0", "", "replicationcontrollers", json::object(), "status.replicas",
       "0"},
      {"job successful counts succeeded pods", "batch", "jobs",
       json{{"status", {{"succeeded", 2}}}}, "status.successful", "2"},
      {"job successful defaults to 0", "batch", "jobs", json::object(), "status.successful", "0"},
      {"events.k8s.io regarding", "events.k8s.io", "events", events_v1, "regarding.name", "p"},
      {"events.k8s.io source falls back to reportingController", "events.k8s.io", "events",
       events_v1, "source", "kubelet"},
      {"events.k8s.io reportingController", "events.k8s.io", "events", events_v1,
       "reportingController", "kubelet"},
      {"events.k8s.io has no involvedObject label", "events.k8s.io", "events", events_v1,
       "involvedObject.name", std::nullopt},
      {"default: name", "", "configmaps", json{{"metadata", {{"name", "c"}}}}, "metadata.name",
       "c"},
      {"default: namespace of a cluster-scoped object", "", "persistentvolumes",
       json{{"metadata", {{"name", "pv"}}}}, "metadata.namespace", ""},
      {"default: other fields", "apps", "daemonsets", json::object(), "spec.selector",
       std::nullopt},
      {"non-object JSON", "", "pods", json::array(), "metadata.name", ""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(FieldValue(tc.group, tc.resource, tc.object, tc.field), tc.want);
  }
}

TEST(FieldSelectorTest, String) {
  auto sel = FieldSelector::Parse(R"(b!=2,a=x\,y)");
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel->String(), "a=x,y,b!=2");
  EXPECT_TRUE(FieldSelector().Empty());
}

}  // namespace
}  // namespace tidepool::apiserver::selectors
