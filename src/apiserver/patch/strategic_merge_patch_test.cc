#include "apiserver/patch/strategic_merge_patch.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "apiserver/patch/patch_schema.h"

namespace tidepool::apiserver::patch {
namespace {

using ::nlohmann::json;

json J(std::string_view text) { return json::parse(text); }

struct Case {
  std::string name;
  std::string api_version;
  std::string kind;
  std::string target;
  std::string patch;
  std::string want;   // expected object, when ok
  std::string error;  // expected InvalidArgument message, when not ok
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class StrategicMergePatchTest : public ::testing::TestWithParam<Case> {};

TEST_P(StrategicMergePatchTest, Applies) {
  const Case& c = GetParam();
  const json target = J(c.target);
  auto got = StrategicMergePatch(target, J(c.patch), c.api_version, c.kind);
  if (c.error.empty()) {
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, J(c.want)) << got->dump();
    // Lists are compared in order: dump both to see the order on failure.
    EXPECT_EQ(got->dump(), J(c.want).dump());
  } else {
    ASSERT_FALSE(got.ok()) << got->dump();
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), c.error);
  }
  EXPECT_EQ(target, J(c.target)) << "the target must not be modified";
}

constexpr std::string_view kNode = R"({
  "apiVersion":"v1","kind":"Node",
  "metadata":{"name":"node-1","labels":{"kubernetes.io/hostname":"node-1"}},
  "spec":{"podCIDR":"10.0.0.0/24","podCIDRs":["10.0.0.0/24"],
          "taints":[{"effect":"NoExecute","key":"dedicated","value":"ml"}]},
  "status":{"addresses":[{"type":"InternalIP","address":"10.1.0.1"},{"type":"Hostname","address":"node-1"}],
            "conditions":[{"type":"Ready","status":"True"},{"type":"DiskPressure","status":"False"}]}})";

constexpr std::string_view kPod = R"({
  "apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"gpu-pod","namespace":"default","labels":{"app":"gpu"},
              "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"},
              "finalizers":["a","b"],
              "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1"}]},
  "spec":{"containers":[{"name":"cuda","image":"nvidia/cuda:12.4.0-base-ubuntu22.04",
                         "command":["sleep","infinity"],
                         "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
                         "ports":[{"containerPort":80,"protocol":"TCP"}]}],
          "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],
          "volumes":[{"name":"data","emptyDir":{}}]}})";

INSTANTIATE_TEST_SUITE_P(
    KubectlPatches, StrategicMergePatchTest,
    ::testing::Values(
        // kubectl taint nodes node-1 nvidia.com/gpu=present:NoSchedule: the whole list.
        Case{"taint_add_replaces_list", "v1", "Node", std::string(kNode),
             R"({"spec":{"taints":[{"effect":"NoExecute","key":"dedicated","value":"ml"},
                                   {"effect":"NoSchedule","key":"nvidia.com/gpu","value":"present"}]}})",
             R"({"apiVersion":"v1","kind":"Node",
                 "metadata":{"name":"node-1","labels":{"kubernetes.io/hostname":"node-1"}},
                 "spec":{"podCIDR":"10.0.0.0/24","podCIDRs":["10.0.0.0/24"],
                         "taints":[{"effect":"NoExecute","key":"dedicated","value":"ml"},
                                   {"effect":"NoSchedule","key":"nvidia.com/gpu","value":"present"}]},
                 "status":{"addresses":[{"type":"InternalIP","address":"10.1.0.1"},{"type":"Hostname","address":"node-1"}],
                           "conditions":[{"type":"Ready","status":"True"},{"type":"DiskPressure","status":"False"}]}})",
             ""},
        // kubectl taint nodes node-1 dedicated:NoExecute-: the remaining list (here empty).
        Case{"taint_remove_sends_rest", "v1", "Node", std::string(kNode),
             R"({"spec":{"taints":[]}})",
             R"({"apiVersion":"v1","kind":"Node",
                 "metadata":{"name":"node-1","labels":{"kubernetes.io/hostname":"node-1"}},
                 "spec":{"podCIDR":"10.0.0.0/24","podCIDRs":["10.0.0.0/24"],"taints":[]},
                 "status":{"addresses":[{"type":"InternalIP","address":"10.1.0.1"},{"type":"Hostname","address":"node-1"}],
                           "conditions":[{"type":"Ready","status":"True"},{"type":"DiskPressure","status":"False"}]}})",
             ""},
        // kubectl cordon / uncordon.
        Case{"cordon", "v1", "Node", R"({"metadata":{"name":"n"},"spec":{"podCIDR":"x"}})",
             R"({"spec":{"unschedulable":true}})",
             R"({"metadata":{"name":"n"},"spec":{"podCIDR":"x","unschedulable":true}})", ""},
        Case{"uncordon", "v1", "Node",
             R"({"metadata":{"name":"n"},"spec":{"podCIDR":"x","unschedulable":true}})",
             R"({"spec":{"unschedulable":null}})", R"({"metadata":{"name":"n"},"spec":{"podCIDR":"x"}})",
             ""},
        Case{"uncordon_when_not_cordoned", "v1", "Node", R"({"metadata":{"name":"n"},"spec":{}})",
             R"({"spec":{"unschedulable":null}})", R"({"metadata":{"name":"n"},"spec":{}})", ""},
        // Node status lists merge by type.
        Case{"node_conditions_merge_by_type", "v1", "Node",
             R"({"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"DiskPressure","status":"False"}]}})",
             R"({"status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletDown"}]}})",
             R"({"status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletDown"},{"type":"DiskPressure","status":"False"}]}})",
             ""},
        Case{"node_addresses_merge_by_type", "v1", "Node",
             R"({"status":{"addresses":[{"type":"InternalIP","address":"10.1.0.1"}]}})",
             R"({"status":{"addresses":[{"type":"InternalIP","address":"10.1.0.2"}]}})",
             R"({"status":{"addresses":[{"type":"InternalIP","address":"10.1.0.2"}]}})", ""},
        // kubectl apply (client-side) onto an existing pod: image change, command removed,
        // tolerations sent whole, $setElementOrder (reference §3.7).
        Case{"csa_image_change", "v1", "Pod", std::string(kPod),
             R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"new\":1}\n"}},
                 "spec":{"$setElementOrder/containers":[{"name":"cuda"}],
                         "containers":[{"command":null,"image":"nvidia/cuda:12.5.0-base-ubuntu22.04","name":"cuda"}],
                         "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},
                                        {"key":"dedicated","operator":"Equal","value":"ml","effect":"NoSchedule"}]}})",
             R"({"apiVersion":"v1","kind":"Pod",
                 "metadata":{"name":"gpu-pod","namespace":"default","labels":{"app":"gpu"},
                             "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"new\":1}\n"},
                             "finalizers":["a","b"],
                             "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1"}]},
                 "spec":{"containers":[{"name":"cuda","image":"nvidia/cuda:12.5.0-base-ubuntu22.04",
                                        "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
                                        "ports":[{"containerPort":80,"protocol":"TCP"}]}],
                         "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},
                                        {"key":"dedicated","operator":"Equal","value":"ml","effect":"NoSchedule"}],
                         "volumes":[{"name":"data","emptyDir":{}}]}})",
             ""},
        // kubectl apply changing a label (reference §3.7, first example).
        Case{"csa_label_change", "v1", "Pod",
             R"({"metadata":{"name":"p","labels":{"app":"gpu","tier":"x"},"annotations":{"k":"v"}}})",
             R"({"metadata":{"annotations":{"k":"w"},"labels":{"app":"gpu2"}}})",
             R"({"metadata":{"name":"p","labels":{"app":"gpu2","tier":"x"},"annotations":{"k":"w"}}})",
             ""}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    ListsAndDirectives, StrategicMergePatchTest,
    ::testing::Values(
        Case{"container_added_without_order_goes_first", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}})",
             R"({"spec":{"containers":[{"name":"c","image":"3"}]}})",
             R"({"spec":{"containers":[{"name":"c","image":"3"},{"name":"a","image":"1"},{"name":"b","image":"2"}]}})",
             ""},
        Case{"container_added_with_set_element_order", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}})",
             R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"c"}],
                         "containers":[{"name":"c","image":"3"}]}})",
             R"({"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"},{"name":"c","image":"3"}]}})",
             ""},
        Case{"set_element_order_reorders", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
             R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}})",
             R"({"spec":{"containers":[{"name":"b"},{"name":"a"}]}})", ""},
        Case{"merged_item_keeps_position", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"},{"name":"c","image":"3"}]}})",
             R"({"spec":{"containers":[{"name":"b","image":"20"}]}})",
             R"({"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"20"},{"name":"c","image":"3"}]}})",
             ""},
        Case{"env_merge_by_name", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}]}})",
             R"({"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"3"}]}]}})",
             R"({"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"3"}]}]}})",
             ""},
        Case{"ports_merge_by_container_port", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}})",
             R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"hostPort":8080}]}]}})",
             R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http","hostPort":8080}]}]}})",
             ""},
        Case{"volume_mounts_merge_by_mount_path", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","volumeMounts":[{"mountPath":"/d","name":"d"}]}]}})",
             R"({"spec":{"containers":[{"name":"a","volumeMounts":[{"mountPath":"/d","readOnly":true}]}]}})",
             R"({"spec":{"containers":[{"name":"a","volumeMounts":[{"mountPath":"/d","name":"d","readOnly":true}]}]}})",
             ""},
        Case{"delete_list_item", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
             R"({"spec":{"containers":[{"$patch":"delete","name":"a"}]}})",
             R"({"spec":{"containers":[{"name":"b"}]}})", ""},
        Case{"replace_list", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","image":"1"},{"name":"b"}]}})",
             R"({"spec":{"containers":[{"$patch":"replace"},{"name":"c"}]}})",
             R"({"spec":{"containers":[{"name":"c"}]}})", ""},
        Case{"replace_map", "v1", "Pod",
             R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
             R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})",
             R"({"metadata":{"labels":{"c":"3"}}})", ""},
        Case{"delete_map", "v1", "Pod", R"({"metadata":{"labels":{"a":"1"}}})",
             R"({"metadata":{"labels":{"$patch":"delete"}}})", R"({"metadata":{"labels":{}}})",
             ""},
        Case{"retain_keys", "v1", "Pod",
             R"({"spec":{"volumes":[{"name":"d","emptyDir":{},"hostPath":null}]}})",
             R"({"spec":{"volumes":[{"name":"d","$retainKeys":["hostPath","name"],"hostPath":{"path":"/x"}}]}})",
             R"({"spec":{"volumes":[{"name":"d","hostPath":{"path":"/x"}}]}})", ""},
        Case{"deployment_strategy_retain_keys", "apps/v1", "Deployment",
             R"({"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})",
             R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
             R"({"spec":{"strategy":{"type":"Recreate"}}})", ""},
        Case{"finalizers_union", "v1", "ConfigMap", R"({"metadata":{"finalizers":["a","b"]}})",
             R"({"metadata":{"finalizers":["c","a"]}})",
             R"({"metadata":{"finalizers":["c","a","b"]}})", ""},
        Case{"delete_from_primitive_list", "v1", "Pod",
             R"({"metadata":{"finalizers":["a","b","c"]}})",
             R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})",
             R"({"metadata":{"finalizers":["a","c"]}})", ""},
        Case{"primitive_set_element_order", "v1", "Pod",
             R"({"metadata":{"finalizers":["a","b"]}})",
             R"({"metadata":{"$setElementOrder/finalizers":["b","c","a"],"finalizers":["c"]}})",
             R"({"metadata":{"finalizers":["b","c","a"]}})", ""},
        Case{"owner_references_by_uid", "v1", "Pod",
             R"({"metadata":{"ownerReferences":[{"uid":"u1","name":"a"}]}})",
             R"({"metadata":{"ownerReferences":[{"uid":"u1","controller":true},{"uid":"u2","name":"b"}]}})",
             R"({"metadata":{"ownerReferences":[{"uid":"u1","name":"a","controller":true},{"uid":"u2","name":"b"}]}})",
             ""},
        Case{"pod_conditions_by_type", "v1", "Pod",
             R"({"status":{"conditions":[{"type":"PodScheduled","status":"True"}]}})",
             R"({"status":{"conditions":[{"type":"Ready","status":"False"}]}})",
             R"({"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"PodScheduled","status":"True"}]}})",
             ""},
        Case{"deployment_template_containers_merge", "apps/v1", "Deployment",
             R"({"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}}}})",
             R"({"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"b","image":"3"}]}}}})",
             R"({"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"3"}]}}}})",
             ""},
        Case{"command_and_args_replaced", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a","command":["x","y"],"args":["1"]}]}})",
             R"({"spec":{"containers":[{"name":"a","command":["z"]}]}})",
             R"({"spec":{"containers":[{"name":"a","command":["z"],"args":["1"]}]}})", ""},
        Case{"unknown_kind_lists_replaced_metadata_merged", "example.com/v1", "Widget",
             R"({"metadata":{"finalizers":["a"]},"spec":{"items":[{"name":"x"}],"m":{"a":1}}})",
             R"({"metadata":{"finalizers":["b"]},"spec":{"items":[{"name":"y"}],"m":{"b":2}}})",
             R"({"metadata":{"finalizers":["b","a"]},"spec":{"items":[{"name":"y"}],"m":{"a":1,"b":2}}})",
             ""},
        Case{"new_value_is_cleaned", "v1", "Pod", R"({"metadata":{"name":"p"}})",
             R"({"metadata":{"labels":{"a":"1","b":null}}})",
             R"({"metadata":{"name":"p","labels":{"a":"1"}}})", ""},
        Case{"type_change_replaces", "v1", "Pod", R"({"spec":{"x":{"a":1}}})",
             R"({"spec":{"x":"s"}})", R"({"spec":{"x":"s"}})", ""},
        Case{"null_patch_is_noop", "v1", "Pod", R"({"a":1})", "null", R"({"a":1})", ""},
        // kubectl apply of a ReplicationController: its template's containers merge by name.
        Case{"replication_controller_template", "v1", "ReplicationController",
             R"({"spec":{"selector":{"app":"web"},"template":{"spec":{"containers":[
                 {"name":"web","image":"nginx:1.26"},{"name":"log","image":"busybox"}]}}}})",
             R"({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"1.27"}]}}}})",
             R"({"spec":{"selector":{"app":"web"},"template":{"spec":{"containers":[
                 {"name":"web","image":"1.27"},{"name":"log","image":"busybox"}]}}}})",
             ""},
        Case{"csinode_drivers_merge_by_name", "storage.k8s.io/v1", "CSINode",
             R"({"spec":{"drivers":[{"name":"a","nodeID":"n"}]}})",
             R"({"spec":{"drivers":[{"name":"b","nodeID":"n"}]}})",
             R"({"spec":{"drivers":[{"name":"b","nodeID":"n"},{"name":"a","nodeID":"n"}]}})",
             ""}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Errors, StrategicMergePatchTest,
    ::testing::Values(
        Case{"missing_merge_key", "v1", "Pod", R"({"spec":{"containers":[{"name":"a"}]}})",
             R"({"spec":{"containers":[{"image":"x"}]}})", "",
             "map: map[image:x] does not contain declared merge key: name"},
        Case{"patch_merge_in_list", "v1", "Pod", R"({"spec":{"containers":[{"name":"a"}]}})",
             R"({"spec":{"containers":[{"$patch":"merge","name":"a"}]}})", "",
             "merging lists cannot yet be specified in the patch"},
        Case{"unknown_map_directive", "v1", "Pod", R"({"metadata":{"labels":{}}})",
             R"({"metadata":{"labels":{"$patch":"merge","a":"1"}}})", "",
             "unknown patch type: merge in map: map[$patch:merge a:1]"},
        Case{"retain_keys_mismatch", "v1", "Pod", R"({"spec":{}})",
             R"({"spec":{"$retainKeys":["a"],"b":1}})", "",
             "patch content doesn't match retainKeys list"},
        Case{"retain_keys_not_a_list", "v1", "Pod", R"({"spec":{}})",
             R"({"spec":{"$retainKeys":"a"}})", "", "invalid patch format of retainKeys"},
        Case{"set_element_order_mismatch", "v1", "Pod",
             R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
             R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b","image":"x"}]}})",
             "",
             "The order in patch list:\n[map[image:x name:b]]\n doesn't match $setElementOrder "
             "list:\n[map[name:a]]\n"},
        Case{"lists_of_lists", "v1", "Pod", R"({"metadata":{"finalizers":["a"]}})",
             R"({"metadata":{"finalizers":[["b"]]}})", "", "lists of lists are not supported"},
        Case{"array_patch", "v1", "Pod", R"({})", R"([1])", "",
             "json: cannot unmarshal array into Go value of type map[string]interface {}"}),
    [](const auto& info) { return info.param.name; });

TEST(PatchSchemaTest, TagsOfTheTable) {
  const schema::Field& containers = schema::LookupField("PodSpec", "containers");
  EXPECT_EQ(containers.patch_strategy, "merge");
  EXPECT_EQ(containers.patch_merge_key, "name");
  EXPECT_EQ(containers.type, "Container");
  EXPECT_TRUE(containers.MergeList());
  const schema::Field& volumes = schema::LookupField("PodSpec", "volumes");
  EXPECT_EQ(volumes.patch_strategy, "merge,retainKeys");
  EXPECT_TRUE(volumes.MergeList());
  EXPECT_FALSE(schema::LookupField("WorkloadSpec", "strategy").MergeList());
  EXPECT_FALSE(schema::LookupField("PodSpec", "tolerations").MergeList());
  EXPECT_FALSE(schema::LookupField("NodeSpec", "taints").MergeList());
  const schema::Field& ports = schema::LookupField("Container", "ports");
  ASSERT_EQ(ports.keys.size(), 2u);
  EXPECT_EQ(ports.keys[1].name, "protocol");
  EXPECT_EQ(ports.keys[1].default_json, "\"TCP\"");
  EXPECT_EQ(schema::RootType("v1", "Pod"), "Pod");
  EXPECT_EQ(schema::RootType("apps/v1", "DaemonSet"), "Workload");
  EXPECT_EQ(schema::RootType("v1", "ConfigMap"), "Object");
  EXPECT_EQ(schema::RootType("v1", "ReplicationController"), "ReplicationController");
  EXPECT_EQ(schema::LookupField("ReplicationControllerSpec", "selector").shape,
            schema::Shape::kAtomic);
  EXPECT_EQ(schema::ZeroObjectJson(schema::RootType("storage.k8s.io/v1", "StorageClass")),
            R"({"metadata":{},"provisioner":""})");
  EXPECT_EQ(schema::LookupField("", "x").type, "");
}

}  // namespace
}  // namespace tidepool::apiserver::patch
