#include "controllers/daemonset/daemon_pods.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"

namespace tidepool::controllers::daemonset {
namespace {

using nlohmann::json;

api::Node MakeNode(const json& labels, const json& taints, bool unschedulable = false) {
  json n = {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", "n1"}, {"labels", labels}}},
            {"spec", {{"taints", taints}, {"unschedulable", unschedulable}}}};
  StatusOr<api::Node> node = api::codec::NodeFromJson(n);
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  return *node;
}

json Ds(const json& pod_spec) {
  json spec = pod_spec;
  spec["containers"] = json::array({{{"name", "c"}, {"image", "busybox"}}});
  return {{"metadata", {{"name", "agent"}, {"namespace", "default"}, {"generation", 3}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
            {"template", {{"metadata", {{"labels", {{"app", "agent"}}}}}, {"spec", spec}}}}}};
}

struct PlacementCase {
  const char* name;
  json pod_spec;
  json node_labels;
  json node_taints;
  bool unschedulable;
  bool should_run;
  bool should_continue;
};

TEST(DaemonPodsTest, PlacementFollowsKcmsPredicates) {
  const json gpu_taint = json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}});
  const json tolerate_gpu = {{"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}})}};
  const std::vector<PlacementCase> cases = {
      {"no constraints", json::object(), json::object(), json::array(), false, true, true},
      {"nodeSelector matches", {{"nodeSelector", {{"pool", "gpu"}}}}, {{"pool", "gpu"}}, json::array(), false, true, true},
      {"nodeSelector does not match", {{"nodeSelector", {{"pool", "gpu"}}}}, {{"pool", "cpu"}}, json::array(), false, false, false},
      {"required node affinity does not match",
       {{"affinity", {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution",
          {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({{{"key", "pool"}, {"operator", "In"}, {"values", {"gpu"}}}})}}})}}}}}}}},
       {{"pool", "cpu"}}, json::array(), false, false, false},
      {"template nodeName is another node", {{"nodeName", "n2"}}, json::object(), json::array(), false, false, false},
      {"untolerated NoSchedule taint: no new pod, the old one stays", json::object(), json::object(), gpu_taint, false, false, true},
      {"tolerated NoSchedule taint", tolerate_gpu, json::object(), gpu_taint, false, true, true},
      {"untolerated NoExecute taint evicts",
       json::object(), json::object(), json::array({{{"key", "dedicated"}, {"value", "x"}, {"effect", "NoExecute"}}}), false, false, false},
      {"PreferNoSchedule is ignored",
       json::object(), json::object(), json::array({{{"key", "soft"}, {"effect", "PreferNoSchedule"}}}), false, true, true},
      {"cordoned node (unschedulable taint) is tolerated",
       json::object(), json::object(), json::array({{{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}}}), true, true, true},
      {"not-ready NoExecute is tolerated",
       json::object(), json::object(), json::array({{{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoExecute"}}}), false, true, true},
      {"unreachable NoExecute is tolerated",
       json::object(), json::object(), json::array({{{"key", "node.kubernetes.io/unreachable"}, {"effect", "NoExecute"}}}), false, true, true},
      {"memory pressure is tolerated",
       json::object(), json::object(), json::array({{{"key", "node.kubernetes.io/memory-pressure"}, {"effect", "NoSchedule"}}}), false, true, true},
      {"network-unavailable blocks a pod network pod",
       json::object(), json::object(), json::array({{{"key", "node.kubernetes.io/network-unavailable"}, {"effect", "NoSchedule"}}}), false, false, true},
      {"network-unavailable is tolerated with hostNetwork",
       {{"hostNetwork", true}}, json::object(), json::array({{{"key", "node.kubernetes.io/network-unavailable"}, {"effect", "NoSchedule"}}}), false, true, true},
  };
  for (const PlacementCase& c : cases) {
    const json tmpl = DaemonPodTemplate(Ds(c.pod_spec), "h", "1");
    const Placement p = ShouldRun(tmpl, MakeNode(c.node_labels, c.node_taints, c.unschedulable));
    EXPECT_EQ(p.should_run, c.should_run) << c.name;
    EXPECT_EQ(p.should_continue_running, c.should_continue) << c.name;
  }
}

TEST(DaemonPodsTest, TemplateGetsTheDaemonTolerationsAndLabels) {
  const json tmpl = DaemonPodTemplate(Ds({{"hostNetwork", true}}), "abc", "3");
  EXPECT_EQ(tmpl["metadata"]["labels"],
            (json{{"app", "agent"}, {"controller-revision-hash", "abc"}, {"pod-template-generation", "3"}}));
  std::vector<std::string> got;
  for (const json& t : tmpl["spec"]["tolerations"]) {
    EXPECT_EQ(t["operator"], "Exists");
    got.push_back(t["key"].get<std::string>() + ":" + t["effect"].get<std::string>());
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute",
                     "node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
                     "node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule",
                     "node.kubernetes.io/network-unavailable:NoSchedule"}));
  // Already there: not added twice.
  const json again = DaemonPodTemplate({{"spec", {{"template", tmpl}}}}, "abc", "3");
  EXPECT_EQ(again["spec"]["tolerations"].size(), 7u);
}

TEST(DaemonPodsTest, PinsByNodeAffinityAndFindsTheTargetNode) {
  json tmpl = DaemonPodTemplate(Ds({{"affinity", {{"nodeAffinity", {
      {"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({{{"key", "a"}, {"operator", "Exists"}}})}}})}}},
      {"preferredDuringSchedulingIgnoredDuringExecution", json::array({{{"weight", 1}, {"preference", {{"matchExpressions", json::array({{{"key", "b"}, {"operator", "Exists"}}})}}}}})}}}}}}), "h", "1");
  const json pod = PinToNode(tmpl, "node-7");
  const json& na = pod["spec"]["affinity"]["nodeAffinity"];
  EXPECT_EQ(na["requiredDuringSchedulingIgnoredDuringExecution"],
            (json{{"nodeSelectorTerms", json::array({{{"matchFields", json::array({{{"key", "metadata.name"}, {"operator", "In"}, {"values", {"node-7"}}}})}}})}}));
  EXPECT_EQ(na["preferredDuringSchedulingIgnoredDuringExecution"].size(), 1u);  // kept
  EXPECT_FALSE(pod["spec"].contains("nodeName"));
  EXPECT_EQ(TargetNode(pod), "node-7");
  json bound = pod;
  bound["spec"]["nodeName"] = "node-8";
  EXPECT_EQ(TargetNode(bound), "node-8");
  EXPECT_EQ(TargetNode(json{{"spec", json::object()}}), "");
}

TEST(DaemonPodsTest, UpdatedByGenerationOrHashAndScaledValues) {
  EXPECT_TRUE(IsUpdated({{"pod-template-generation", "2"}}, "2", "h"));
  EXPECT_TRUE(IsUpdated({{"controller-revision-hash", "h"}}, "3", "h"));
  EXPECT_FALSE(IsUpdated({{"pod-template-generation", "2"}, {"controller-revision-hash", "g"}}, "3", "h"));
  EXPECT_EQ(ScaledValue(json(), 10, 1), 1);
  EXPECT_EQ(ScaledValue(2, 10, 1), 2);
  EXPECT_EQ(ScaledValue("25%", 10, 1), 3);  // rounded up
  EXPECT_EQ(ScaledValue("0%", 10, 1), 0);
  EXPECT_EQ(ScaledValue("x", 10, 1), -1);
  const json a = Ds(json::object());
  json b = a;
  b["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:2";
  EXPECT_EQ(TemplateHash(a), TemplateHash(a));
  EXPECT_NE(TemplateHash(a), TemplateHash(b));
  for (char c : TemplateHash(a)) EXPECT_NE(std::string("bcdfghjklmnpqrstvwxz2456789").find(c), std::string::npos);
  EXPECT_EQ(TemplateGeneration(a), "3");
  json annotated = a;
  annotated["metadata"]["annotations"] = {{"deprecated.daemonset.template.generation", "5"}};
  EXPECT_EQ(TemplateGeneration(annotated), "5");
}

}  // namespace
}  // namespace tidepool::controllers::daemonset
