#include "apiserver/patch/json_patch.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tidepool::apiserver::patch {
namespace {

using ::nlohmann::json;

json J(std::string_view text) { return json::parse(text); }

struct Case {
  std::string name;
  std::string target;
  std::string patch;
  std::string want;   // expected document, when ok
  std::string error;  // expected InvalidArgument message, when not ok
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// ---- RFC 7386 -----------------------------------------------------------------------------

class MergePatchTest : public ::testing::TestWithParam<Case> {};

TEST_P(MergePatchTest, Applies) {
  const Case& c = GetParam();
  auto got = MergePatch(J(c.target), J(c.patch));
  if (c.error.empty()) {
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, J(c.want)) << got->dump();
  } else {
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), c.error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rfc7386AndKubectl, MergePatchTest,
    ::testing::Values(
        // RFC 7386 Appendix A.
        Case{"replace_member", R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})", ""},
        Case{"add_member", R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})", ""},
        Case{"delete_member", R"({"a":"b"})", R"({"a":null})", R"({})", ""},
        Case{"delete_one_of_two", R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})", ""},
        Case{"array_by_string", R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})", ""},
        Case{"string_by_array", R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})", ""},
        Case{"nested", R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})",
             ""},
        Case{"array_replaced", R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})", ""},
        Case{"array_target_array_patch", R"(["a","b"])", R"(["c","d"])", R"(["c","d"])", ""},
        Case{"object_target_array_patch", R"({"a":"b"})", R"(["c"])", R"(["c"])", ""},
        Case{"null_kept_in_target", R"({"e":null})", R"({"a":1})", R"({"a":1,"e":null})", ""},
        Case{"array_target_object_patch", R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})",
             ""},
        Case{"nulls_pruned_in_new_value", R"({})", R"({"a":{"bb":{"ccc":null}}})",
             R"({"a":{"bb":{}}})", ""},
        // evanphx/json-patch v4 (kube) rejects non-object, non-array patches.
        Case{"null_patch", R"({"a":"foo"})", "null", "", "Invalid JSON Patch"},
        Case{"string_patch", R"({"a":"foo"})", R"("bar")", "", "Invalid JSON Patch"},
        Case{"null_target", "null", R"({"a":1})", "", "Invalid JSON Document"},
        // kubectl label nodes node-1 accelerator=h200 / tier-.
        Case{"kubectl_label_add", R"({"metadata":{"name":"node-1","labels":{"tier":"gpu"}}})",
             R"({"metadata":{"labels":{"accelerator":"h200"}}})",
             R"({"metadata":{"name":"node-1","labels":{"tier":"gpu","accelerator":"h200"}}})",
             ""},
        Case{"kubectl_label_remove", R"({"metadata":{"name":"p","labels":{"tier":"gpu"}}})",
             R"({"metadata":{"labels":{"tier":null}}})", R"({"metadata":{"name":"p","labels":{}}})",
             ""},
        Case{"label_on_object_without_labels", R"({"metadata":{"name":"p"}})",
             R"({"metadata":{"labels":{"a":"1","b":null}}})",
             R"({"metadata":{"name":"p","labels":{"a":"1"}}})", ""}),
    [](const auto& info) { return info.param.name; });

// ---- RFC 6902 -----------------------------------------------------------------------------

class JsonPatchTest : public ::testing::TestWithParam<Case> {};

TEST_P(JsonPatchTest, Applies) {
  const Case& c = GetParam();
  auto got = JsonPatch(J(c.target), J(c.patch));
  if (c.error.empty()) {
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, J(c.want)) << got->dump();
  } else {
    ASSERT_FALSE(got.ok()) << got->dump();
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), c.error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rfc6902Examples, JsonPatchTest,
    ::testing::Values(
        // RFC 6902 Appendix A.
        Case{"A1_add_member", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
             R"({"baz":"qux","foo":"bar"})", ""},
        Case{"A2_add_element", R"({"foo":["bar","baz"]})",
             R"([{"op":"add","path":"/foo/1","value":"qux"}])", R"({"foo":["bar","qux","baz"]})",
             ""},
        Case{"A3_remove_member", R"({"baz":"qux","foo":"bar"})",
             R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})", ""},
        Case{"A4_remove_element", R"({"foo":["bar","qux","baz"]})",
             R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})", ""},
        Case{"A5_replace", R"({"baz":"qux","foo":"bar"})",
             R"([{"op":"replace","path":"/baz","value":"boo"}])", R"({"baz":"boo","foo":"bar"})",
             ""},
        Case{"A6_move_member", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
             R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
             R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})", ""},
        Case{"A7_move_element", R"({"foo":["all","grass","cows","eat"]})",
             R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
             R"({"foo":["all","cows","eat","grass"]})", ""},
        Case{"A8_test_ok", R"({"baz":"qux","foo":["a",2,"c"]})",
             R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
             R"({"baz":"qux","foo":["a",2,"c"]})", ""},
        Case{"A9_test_fails", R"({"baz":"qux"})",
             R"([{"op":"test","path":"/baz","value":"bar"}])", "",
             "testing value /baz failed: test failed"},
        Case{"A10_add_nested", R"({"foo":"bar"})",
             R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
             R"({"foo":"bar","child":{"grandchild":{}}})", ""},
        Case{"A11_ignores_unknown_members", R"({"foo":"bar"})",
             R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
             R"({"foo":"bar","baz":"qux"})", ""},
        Case{"A12_add_to_missing_parent", R"({"foo":"bar"})",
             R"([{"op":"add","path":"/baz/bat","value":"qux"}])", "",
             "add operation does not apply: doc is missing path: \"/baz/bat\": missing value"},
        Case{"A14_escapes", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])",
             R"({"/":9,"~1":10})", ""},
        Case{"A14_escape_slash", R"({"/":9})", R"([{"op":"replace","path":"/~1","value":1}])",
             R"({"/":1})", ""},
        Case{"A15_string_is_not_number", R"({"/":9,"~1":10})",
             R"([{"op":"test","path":"/~01","value":"10"}])", "",
             "testing value /~01 failed: test failed"},
        Case{"A16_add_array_value", R"({"foo":["bar"]})",
             R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
             R"({"foo":["bar",["abc","def"]]})", ""},
        Case{"copy", R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])",
             R"({"a":{"b":1},"c":{"b":1}})", ""},
        Case{"ops_in_order", R"({"a":1})",
             R"([{"op":"add","path":"/b","value":2},{"op":"remove","path":"/a"},
                 {"op":"test","path":"/b","value":2}])",
             R"({"b":2})", ""},
        // evanphx/json-patch v4 particularities kube-apiserver inherits.
        Case{"replace_missing_member_adds_it", R"({"a":1})",
             R"([{"op":"replace","path":"/b","value":2}])", R"({"a":1,"b":2})", ""},
        Case{"negative_index", R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/-1"}])",
             R"({"l":[1,2]})", ""},
        Case{"test_missing_is_null", R"({"a":1})", R"([{"op":"test","path":"/b","value":null}])",
             R"({"a":1})", ""},
        Case{"replace_whole_document", R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])",
             R"({"b":2})", ""},
        // kubectl apply --server-side migration step (reference §3.8 step 6).
        Case{"kubectl_managed_fields_rewrite",
             R"({"metadata":{"name":"gpu-pod","resourceVersion":"122","managedFields":[{"manager":"kubectl-client-side-apply"}]}})",
             R"([{"op":"replace","path":"/metadata/managedFields","value":[{"manager":"kubectl","operation":"Apply"}]},
                 {"op":"replace","path":"/metadata/resourceVersion","value":"122"}])",
             R"({"metadata":{"name":"gpu-pod","resourceVersion":"122","managedFields":[{"manager":"kubectl","operation":"Apply"}]}})",
             ""}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Errors, JsonPatchTest,
    ::testing::Values(
        Case{"remove_missing_key", R"({"a":1})", R"([{"op":"remove","path":"/x"}])", "",
             "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value"},
        Case{"remove_missing_parent", R"({"a":1})", R"([{"op":"remove","path":"/x/y"}])", "",
             "remove operation does not apply: doc is missing path: \"/x/y\": missing value"},
        Case{"replace_bad_index", R"({"l":[1]})", R"([{"op":"replace","path":"/l/3","value":0}])",
             "", "replace operation does not apply: doc is missing key: /l/3: missing value"},
        Case{"replace_missing_parent", R"({})", R"([{"op":"replace","path":"/a/b","value":0}])",
             "", "replace operation does not apply: doc is missing path: /a/b: missing value"},
        Case{"add_index_out_of_range", R"({"l":[1]})",
             R"([{"op":"add","path":"/l/9","value":0}])", "",
             "error in add for path: '/l/9': Unable to access invalid index: 9: invalid index "
             "referenced"},
        Case{"add_not_an_index", R"({"l":[1]})", R"([{"op":"add","path":"/l/x","value":0}])", "",
             "error in add for path: '/l/x': value was not a proper array index: 'x': "
             "strconv.Atoi: parsing \"x\": invalid syntax"},
        Case{"add_without_path", R"({})", R"([{"op":"add","value":0}])", "",
             "add operation failed to decode path: missing value"},
        Case{"move_missing_from", R"({"a":1})", R"([{"op":"move","from":"/b","path":"/c"}])", "",
             "error in move for path: 'b': Unable to remove nonexistent key: b: missing value"},
        Case{"copy_missing_destination", R"({"a":1})",
             R"([{"op":"copy","from":"/a","path":"/x/y"}])", "",
             "copy operation does not apply: doc is missing destination path: /x/y: missing "
             "value"},
        Case{"test_missing_parent", R"({})", R"([{"op":"test","path":"/a/b","value":1}])", "",
             "test operation does not apply: is missing path: /a/b: missing value"},
        Case{"unknown_op", R"({})", R"([{"op":"frob","path":"/a"}])", "", "Unexpected kind: frob"},
        Case{"missing_op", R"({})", R"([{"path":"/a"}])", "", "Unexpected kind: unknown"},
        Case{"failing_op_discards_earlier_ones", R"({"a":1})",
             R"([{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}])", "",
             "testing value /a failed: test failed"},
        Case{"not_an_array", R"({})", R"({"op":"add"})", "",
             "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
        Case{"not_objects", R"({})", R"(["add"])", "",
             "json: cannot unmarshal string into Go value of type jsonpatch.Operation"}),
    [](const auto& info) { return info.param.name; });

TEST(JsonPatchTest, InputsAreNotModified) {
  const json target = J(R"({"a":[1,2]})");
  const json ops = J(R"([{"op":"remove","path":"/a/0"}])");
  auto got = JsonPatch(target, ops);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, J(R"({"a":[2]})"));
  EXPECT_EQ(target, J(R"({"a":[1,2]})"));
}

}  // namespace
}  // namespace tidepool::apiserver::patch
