#include "apiserver/patch/server_side_apply.h"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "apiserver/patch/field_set.h"
#include "apiserver/patch/go_format.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/strategic_merge_patch.h"

namespace tidepool::apiserver::patch {
namespace {

using ::nlohmann::json;

json J(std::string_view text) { return json::parse(text); }

constexpr int64_t k2026 = 1767225600;  // 2026-01-01T00:00:00Z
const TimePoint kT0 = TimePoint(std::chrono::seconds(k2026));
const TimePoint kT1 = kT0 + std::chrono::minutes(1);
const TimePoint kT2 = kT0 + std::chrono::minutes(2);

// pod.yaml as `kubectl apply --server-side` sends it (reference §3.8).
constexpr std::string_view kManifest = R"({
  "apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"gpu-pod","namespace":"default","labels":{"app":"gpu"}},
  "spec":{"containers":[{"name":"cuda","image":"nvidia/cuda:12.4.0-base-ubuntu22.04",
                         "command":["sleep","infinity"],
                         "resources":{"limits":{"nvidia.com/gpu":1}}}],
          "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}})";

constexpr std::string_view kManifestFields = R"({
  "f:metadata":{"f:labels":{"f:app":{}}},
  "f:spec":{"f:containers":{"k:{\"name\":\"cuda\"}":{".":{},"f:command":{},"f:image":{},"f:name":{},
                                                   "f:resources":{"f:limits":{"f:nvidia.com/gpu":{}}}}},
            "f:tolerations":{}}})";

json Manifest(std::string_view image = "nvidia/cuda:12.4.0-base-ubuntu22.04",
              std::string_view app = "gpu") {
  json m = J(kManifest);
  m["spec"]["containers"][0]["image"] = image;
  m["metadata"]["labels"]["app"] = app;
  return m;
}

json MustApply(const json& live, const json& cfg, std::string_view manager, TimePoint now,
               bool force = false) {
  auto got = ServerSideApply(live, cfg, manager, force, now, nullptr);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? *got : json();
}

json ManagedFields(const json& obj) {
  return obj.at("metadata").value("managedFields", json::array());
}

// The managedFields entry of (manager, operation), or null.
json EntryOf(const json& obj, std::string_view manager, std::string_view operation) {
  for (const auto& e : ManagedFields(obj)) {
    if (e.value("manager", "") == manager && e.value("operation", "") == operation) return e;
  }
  return nullptr;
}

json WithoutManagedFields(json obj) {
  obj["metadata"].erase("managedFields");
  return obj;
}

// What the API server stores for `kubectl apply -f pod.yaml` (client-side, create): the
// manifest, the last-applied annotation and server-set metadata, with the field manager's entry.
json CsaCreated() {
  json obj = Manifest();
  obj["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
      Manifest().dump() + "\n";
  obj["metadata"]["uid"] = "uid-1";
  obj["metadata"]["resourceVersion"] = "120";
  obj["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z";
  obj["status"] = J(R"({"phase":"Pending"})");
  return UpdateManagedFields(nullptr, obj, "kubectl-client-side-apply", kT0);
}

TEST(ServerSideApplyTest, CreateRecordsTheApplyEntry) {
  json got = MustApply(nullptr, Manifest(), "kubectl", kT0);
  EXPECT_EQ(WithoutManagedFields(got), Manifest());
  json want_entry = {{"manager", "kubectl"},   {"operation", "Apply"},
                     {"apiVersion", "v1"},     {"time", "2026-01-01T00:00:00Z"},
                     {"fieldsType", "FieldsV1"}, {"fieldsV1", J(kManifestFields)}};
  EXPECT_EQ(ManagedFields(got), json::array({want_entry})) << ManagedFields(got).dump();
}

TEST(ServerSideApplyTest, BriefExampleFieldsV1) {
  json cfg = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"x"}},
                   "spec":{"containers":[{"name":"cuda","image":"img"}]}})");
  json got = MustApply(nullptr, cfg, "kubectl", kT0);
  EXPECT_EQ(EntryOf(got, "kubectl", "Apply")["fieldsV1"],
            J(R"({"f:metadata":{"f:labels":{"f:app":{}}},
                  "f:spec":{"f:containers":{"k:{\"name\":\"cuda\"}":{".":{},"f:image":{},"f:name":{}}}}})"));
}

TEST(ServerSideApplyTest, ReapplySameConfigChangesNothing) {
  json first = MustApply(nullptr, Manifest(), "kubectl", kT0);
  json again = MustApply(first, Manifest(), "kubectl", kT1);
  EXPECT_EQ(again, first);  // including the entry's time: nothing changed.
}

TEST(ServerSideApplyTest, ReapplyChangedConfigUpdatesObjectAndTime) {
  json first = MustApply(nullptr, Manifest(), "kubectl", kT0);
  json got = MustApply(first, Manifest("nvidia/cuda:12.5.0-base-ubuntu22.04"), "kubectl", kT1);
  EXPECT_EQ(got["spec"]["containers"][0]["image"], "nvidia/cuda:12.5.0-base-ubuntu22.04");
  EXPECT_EQ(EntryOf(got, "kubectl", "Apply")["time"], "2026-01-01T00:01:00Z");
  EXPECT_EQ(EntryOf(got, "kubectl", "Apply")["fieldsV1"], J(kManifestFields));
}

TEST(ServerSideApplyTest, FieldDroppedFromConfigIsRemoved) {
  json cfg = Manifest();
  cfg["metadata"]["labels"]["tier"] = "gpu";
  cfg["spec"]["containers"][0]["env"] = J(R"([{"name":"A","value":"1"}])");
  json first = MustApply(nullptr, cfg, "kubectl", kT0);
  ASSERT_EQ(first["metadata"]["labels"]["tier"], "gpu");

  json got = MustApply(first, Manifest(), "kubectl", kT1);
  EXPECT_EQ(WithoutManagedFields(got), Manifest()) << got.dump();
  EXPECT_EQ(EntryOf(got, "kubectl", "Apply")["fieldsV1"], J(kManifestFields));
}

TEST(ServerSideApplyTest, FieldDroppedButOwnedByAnotherManagerStays) {
  json cfg = Manifest();
  cfg["metadata"]["labels"]["tier"] = "gpu";
  json first = MustApply(nullptr, cfg, "kubectl", kT0);
  // Another applier owns the same label with the same value: shared ownership, no conflict.
  json shared = MustApply(
      first, J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-pod","labels":{"tier":"gpu"}}})"),
      "helm", kT1);
  json got = MustApply(shared, Manifest(), "kubectl", kT2);
  EXPECT_EQ(got["metadata"]["labels"], J(R"({"app":"gpu","tier":"gpu"})"));
  EXPECT_EQ(EntryOf(got, "helm", "Apply")["fieldsV1"],
            J(R"({"f:metadata":{"f:labels":{"f:tier":{}}}})"));
}

TEST(ServerSideApplyTest, PartialApplyOfLastAppliedAnnotationKeepsSpec) {
  // kubectl apply --server-side onto an object created by client-side apply (reference §3.8):
  // step 4, the manifest as manager "kubectl"; step 5, only the annotation as
  // "kubectl-last-applied". Neither may wipe anything.
  json live = CsaCreated();
  json step4 = MustApply(live, Manifest(), "kubectl", kT1);
  EXPECT_EQ(step4["spec"], live["spec"]);
  EXPECT_EQ(step4["status"], live["status"]);
  const std::string annotation =
      live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"];
  json step5_cfg = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata",
                     {{"name", "gpu-pod"},
                      {"namespace", "default"},
                      {"annotations",
                       {{"kubectl.kubernetes.io/last-applied-configuration", annotation}}}}}};
  json step5 = MustApply(step4, step5_cfg, "kubectl-last-applied", kT2);
  EXPECT_EQ(WithoutManagedFields(step5), WithoutManagedFields(step4));
  json entry = EntryOf(step5, "kubectl-last-applied", "Apply");
  EXPECT_EQ(entry["fieldsV1"],
            J(R"({"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}})"));
  EXPECT_FALSE(entry.contains("time")) << "a no-op apply records no time, as kube";
  // The other entries are untouched.
  EXPECT_EQ(EntryOf(step5, "kubectl", "Apply"), EntryOf(step4, "kubectl", "Apply"));
  EXPECT_EQ(EntryOf(step5, "kubectl-client-side-apply", "Update"),
            EntryOf(live, "kubectl-client-side-apply", "Update"));
}

TEST(ServerSideApplyTest, PartialApplyAddsAnnotationOnly) {
  json live = MustApply(nullptr, Manifest(), "kubectl", kT0);
  json cfg = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-pod",
                   "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"}}})");
  json got = MustApply(live, cfg, "kubectl-last-applied", kT1);
  json want = WithoutManagedFields(live);
  want["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{}\n";
  EXPECT_EQ(WithoutManagedFields(got), want);
  EXPECT_EQ(EntryOf(got, "kubectl", "Apply"), EntryOf(live, "kubectl", "Apply"));
  EXPECT_EQ(EntryOf(got, "kubectl-last-applied", "Apply")["time"], "2026-01-01T00:01:00Z");
}

TEST(ServerSideApplyTest, ClientSideApplyCreateEntry) {
  json live = CsaCreated();
  json entry = EntryOf(live, "kubectl-client-side-apply", "Update");
  EXPECT_EQ(entry["apiVersion"], "v1");
  EXPECT_EQ(entry["time"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(entry["fieldsType"], "FieldsV1");
  // As kube writes it: "." on maps that did not exist before (labels, annotations, resources),
  // none on metadata and spec; no uid/resourceVersion/creationTimestamp, no status.
  EXPECT_EQ(entry["fieldsV1"], J(R"({
    "f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},
                  "f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:containers":{"k:{\"name\":\"cuda\"}":{".":{},"f:command":{},"f:image":{},"f:name":{},
                 "f:resources":{".":{},"f:limits":{".":{},"f:nvidia.com/gpu":{}}}}},
              "f:tolerations":{}}})"))
      << entry["fieldsV1"].dump();
}

TEST(ServerSideApplyTest, ServerSideApplyAfterClientSideApplySharesFields) {
  json live = CsaCreated();
  json got = MustApply(live, Manifest(), "kubectl", kT1);
  ASSERT_EQ(ManagedFields(got).size(), 2u);
  EXPECT_EQ(ManagedFields(got)[0]["manager"], "kubectl");  // Apply sorts before Update.
  EXPECT_EQ(ManagedFields(got)[1], EntryOf(live, "kubectl-client-side-apply", "Update"));
  EXPECT_EQ(EntryOf(got, "kubectl", "Apply")["fieldsV1"], J(kManifestFields));
}

struct ConflictCase {
  std::string name;
  std::string manager;
  json cfg;
  bool extra_applier;  // "helm" applied metadata.labels.team first
  std::string message;
  std::vector<std::pair<std::string, std::string>> causes;  // field, message
};

void PrintTo(const ConflictCase& c, std::ostream* os) { *os << c.name; }

class ApplyConflictTest : public ::testing::TestWithParam<ConflictCase> {};

TEST_P(ApplyConflictTest, ReportsKubeMessageAndCauses) {
  const ConflictCase& c = GetParam();
  json live = CsaCreated();
  // Without the last-applied annotation, kube's client-side-apply upgrade path (which lets
  // manager "kubectl" take fields that still hold their last-applied values) does not apply.
  live["metadata"].erase("annotations");
  if (c.extra_applier) {
    live = MustApply(live, J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-pod",
                                 "labels":{"team":"a"}}})"),
                     "helm", kT0);
  }
  std::vector<ApplyConflict> conflicts = {{"stale", "stale"}};
  auto got = ServerSideApply(live, c.cfg, c.manager, /*force=*/false, kT1, &conflicts);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kAborted);
  EXPECT_EQ(got.status().message(), c.message);
  std::vector<std::pair<std::string, std::string>> causes;
  for (const auto& x : conflicts) causes.emplace_back(x.field, x.message);
  EXPECT_EQ(causes, c.causes);

  // With force the apply succeeds and takes the fields over.
  auto forced = ServerSideApply(live, c.cfg, c.manager, /*force=*/true, kT1, &conflicts);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_TRUE(conflicts.empty());
  json csa = EntryOf(*forced, "kubectl-client-side-apply", "Update");
  ASSERT_TRUE(csa.is_object());
  EXPECT_FALSE(csa["fieldsV1"]["f:metadata"]["f:labels"].contains("f:app"));
  // .metadata.labels itself stays owned: a member without children is written {}.
  EXPECT_EQ(csa["fieldsV1"]["f:metadata"]["f:labels"], json::object());
  EXPECT_EQ((*forced)["metadata"]["labels"]["app"], c.cfg["metadata"]["labels"]["app"]);
}

json ManifestWithTeam(std::string_view app, std::string_view image, std::string_view team) {
  json m = Manifest(image, app);
  m["metadata"]["labels"]["team"] = team;
  return m;
}

INSTANTIATE_TEST_SUITE_P(
    Conflicts, ApplyConflictTest,
    ::testing::Values(
        ConflictCase{"one_label", "kubectl",
                     Manifest("nvidia/cuda:12.4.0-base-ubuntu22.04", "gpu2"),
                     false,
                     "Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" "
                     "using v1: .metadata.labels.app",
                     {{".metadata.labels.app", "conflict with \"kubectl-client-side-apply\" using v1"}}},
        ConflictCase{"label_and_image", "my-manager", Manifest("nvidia/cuda:12.5.0", "gpu2"), false,
                     "Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" "
                     "using v1:\n- .metadata.labels.app\n- .spec.containers[name=\"cuda\"].image",
                     {{".metadata.labels.app", "conflict with \"kubectl-client-side-apply\" using v1"},
                      {".spec.containers[name=\"cuda\"].image",
                       "conflict with \"kubectl-client-side-apply\" using v1"}}},
        ConflictCase{"two_managers", "kubectl", ManifestWithTeam("gpu2", "nvidia/cuda:12.4.0-base-ubuntu22.04", "b"),
                     true,
                     "Apply failed with 2 conflicts: conflicts with \"helm\":\n- "
                     ".metadata.labels.team\nconflicts with \"kubectl-client-side-apply\" using "
                     "v1:\n- .metadata.labels.app",
                     {{".metadata.labels.team", "conflict with \"helm\""},
                      {".metadata.labels.app", "conflict with \"kubectl-client-side-apply\" using v1"}}}),
    [](const auto& info) { return info.param.name; });

TEST(ServerSideApplyTest, KubectlUpgradesFromClientSideApplyWithoutConflicts) {
  // Fields still equal to the last-applied annotation may be taken by manager "kubectl"
  // (kube's lastAppliedManager), and the annotation follows the applied configuration.
  json live = CsaCreated();
  json cfg = Manifest("nvidia/cuda:12.5.0", "gpu2");
  std::vector<ApplyConflict> conflicts;
  auto got = ServerSideApply(live, cfg, "kubectl", /*force=*/false, kT1, &conflicts);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(conflicts.empty());
  EXPECT_EQ((*got)["metadata"]["labels"]["app"], "gpu2");
  EXPECT_EQ((*got)["spec"]["containers"][0]["image"], "nvidia/cuda:12.5.0");
  EXPECT_EQ((*got)["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
            cfg.dump() + "\n");
  json csa = EntryOf(*got, "kubectl-client-side-apply", "Update")["fieldsV1"];
  EXPECT_FALSE(csa["f:metadata"]["f:labels"].contains("f:app"));
  EXPECT_FALSE(csa["f:spec"]["f:containers"]["k:{\"name\":\"cuda\"}"].contains("f:image"));
  // Another manager does not get that exception.
  auto other = ServerSideApply(live, cfg, "my-manager", false, kT1, &conflicts);
  EXPECT_EQ(other.status().code(), StatusCode::kAborted);
  EXPECT_EQ(conflicts.size(), 2u);
}

TEST(ServerSideApplyTest, KubectlStillConflictsOnFieldsChangedSinceLastApplied) {
  json live = CsaCreated();
  json relabeled = UpdateManagedFields(
      live, *MergePatch(live, J(R"({"metadata":{"labels":{"app":"gpu3"}}})")), "kubectl-label",
      kT1);
  std::vector<ApplyConflict> conflicts;
  auto got = ServerSideApply(relabeled, Manifest("nvidia/cuda:12.5.0", "gpu2"), "kubectl", false,
                             kT2, &conflicts);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "Apply failed with 1 conflict: conflict with \"kubectl-label\" using v1: "
            ".metadata.labels.app");
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].field, ".metadata.labels.app");
}

TEST(ServerSideApplyTest, LastAppliedIsEncodedAsKubectlDoes) {
  EXPECT_EQ(internal::GoJsonEncode(J(R"({"b":"<&>","a":[1,2.5,null]})")),
            "{\"a\":[1,2.5,null],\"b\":\"\\u003c\\u0026\\u003e\"}\n");
}

TEST(ServerSideApplyTest, ForceRemovesFieldFromOtherApplier) {
  json live = MustApply(nullptr, Manifest(), "helm", kT0);
  auto got = ServerSideApply(live, Manifest("other"), "kubectl", true, kT1, nullptr);
  ASSERT_TRUE(got.ok());
  json helm = EntryOf(*got, "helm", "Apply");
  EXPECT_FALSE(helm["fieldsV1"]["f:spec"]["f:containers"]["k:{\"name\":\"cuda\"}"].contains(
      "f:image"));
  EXPECT_TRUE(EntryOf(*got, "kubectl", "Apply")["fieldsV1"]["f:spec"]["f:containers"]
                  ["k:{\"name\":\"cuda\"}"]
                      .contains("f:image"));
}

TEST(ServerSideApplyTest, KeyedListMergeKeepsOtherItems) {
  json live = CsaCreated();
  // Someone else added a sidecar (a strategic merge patch recorded as an Update).
  json patched = *StrategicMergePatch(
      live, J(R"({"spec":{"containers":[{"name":"sidecar","image":"envoy"}]}})"), "v1", "Pod");
  patched = UpdateManagedFields(live, patched, "kubectl-patch", kT1);
  json got = MustApply(patched, Manifest("nvidia/cuda:12.5.0"), "kubectl", kT2, /*force=*/true);
  ASSERT_EQ(got["spec"]["containers"].size(), 2u) << got["spec"].dump();
  EXPECT_EQ(got["spec"]["containers"][0]["name"], "sidecar");
  EXPECT_EQ(got["spec"]["containers"][1]["image"], "nvidia/cuda:12.5.0");
  EXPECT_EQ(EntryOf(got, "kubectl-patch", "Update")["fieldsV1"],
            J(R"({"f:spec":{"f:containers":{"k:{\"name\":\"sidecar\"}":{".":{},"f:image":{},"f:name":{}}}}})"));
}

TEST(ServerSideApplyTest, DroppedContainerIsRemoved) {
  json cfg = Manifest();
  cfg["spec"]["containers"].push_back(J(R"({"name":"helper","image":"busybox"})"));
  json first = MustApply(nullptr, cfg, "kubectl", kT0);
  json got = MustApply(first, Manifest(), "kubectl", kT1);
  EXPECT_EQ(got["spec"]["containers"].size(), 1u);
  EXPECT_EQ(got["spec"]["containers"][0]["name"], "cuda");
}

TEST(ServerSideApplyTest, PortKeyUsesProtocolDefault) {
  json cfg = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
                   "spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}})");
  json got = MustApply(nullptr, cfg, "kubectl", kT0);
  EXPECT_EQ(EntryOf(got, "kubectl", "Apply")["fieldsV1"],
            J(R"({"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},
                  "f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}})"));
}

TEST(ServerSideApplyTest, StatusAndServerFieldsAreIgnored) {
  json live = CsaCreated();
  json cfg = Manifest();
  cfg["status"] = J(R"({"phase":"Running"})");
  cfg["metadata"]["uid"] = "other";
  json got = MustApply(live, cfg, "kubectl", kT1);
  EXPECT_EQ(got["status"], live["status"]);
  EXPECT_EQ(got["metadata"]["uid"], "uid-1");
  EXPECT_FALSE(EntryOf(got, "kubectl", "Apply")["fieldsV1"].contains("f:status"));
}

TEST(ServerSideApplyTest, NullInConfigIsIgnored) {
  json live = MustApply(nullptr, Manifest(), "kubectl", kT0);
  json cfg = Manifest();
  cfg["spec"]["nodeName"] = nullptr;
  EXPECT_EQ(MustApply(live, cfg, "kubectl", kT1), live);
}

TEST(ServerSideApplyTest, Errors) {
  auto not_object = ServerSideApply(nullptr, json::array(), "kubectl", false, kT0, nullptr);
  EXPECT_EQ(not_object.status().code(), StatusCode::kInvalidArgument);
  auto no_manager = ServerSideApply(nullptr, Manifest(), "", false, kT0, nullptr);
  EXPECT_EQ(no_manager.status().message(), "fieldManager is required for apply requests");
  json with_mf = Manifest();
  with_mf["metadata"]["managedFields"] = J(R"([{"manager":"x"}])");
  auto mf = ServerSideApply(nullptr, with_mf, "kubectl", false, kT0, nullptr);
  EXPECT_EQ(mf.status().message(), "metadata.managedFields must be nil");
}

// ---- UpdateManagedFields --------------------------------------------------------------------

struct UpdateCase {
  std::string name;
  std::string manager;
  std::string merge_patch;  // applied to CsaCreated() with MergePatch
  std::string want_manager_fields;  // fieldsV1 of (manager, Update), "" = no entry
  std::string want_csa_fields;      // fieldsV1 of the client-side apply entry afterwards
};

void PrintTo(const UpdateCase& c, std::ostream* os) { *os << c.name; }

class UpdateManagedFieldsTest : public ::testing::TestWithParam<UpdateCase> {};

constexpr std::string_view kCsaFields = R"({
    "f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},
                  "f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:containers":{"k:{\"name\":\"cuda\"}":{".":{},"f:command":{},"f:image":{},"f:name":{},
                 "f:resources":{".":{},"f:limits":{".":{},"f:nvidia.com/gpu":{}}}}},
              "f:tolerations":{}}})";

TEST_P(UpdateManagedFieldsTest, RecordsTheWrite) {
  const UpdateCase& c = GetParam();
  json old = CsaCreated();
  json updated = *MergePatch(old, J(c.merge_patch));
  json got = UpdateManagedFields(old, updated, c.manager, kT1);
  json entry = EntryOf(got, c.manager, "Update");
  if (c.want_manager_fields.empty()) {
    EXPECT_TRUE(entry.is_null()) << entry.dump();
  } else {
    ASSERT_TRUE(entry.is_object()) << ManagedFields(got).dump();
    EXPECT_EQ(entry["fieldsV1"], J(c.want_manager_fields)) << entry["fieldsV1"].dump();
    EXPECT_EQ(entry["time"], "2026-01-01T00:01:00Z");
    EXPECT_EQ(entry["apiVersion"], "v1");
  }
  json csa = EntryOf(got, "kubectl-client-side-apply", "Update");
  EXPECT_EQ(csa["fieldsV1"], J(c.want_csa_fields)) << csa["fieldsV1"].dump();
  EXPECT_EQ(csa["time"], "2026-01-01T00:00:00Z");
}

// kCsaFields edited by a JSON patch, in canonical FieldsV1 form.
std::string CsaFieldsWith(const std::string& json_patch) {
  return FieldSet::FromFieldsV1(*JsonPatch(J(kCsaFields), J(json_patch)))->ToFieldsV1().dump();
}

INSTANTIATE_TEST_SUITE_P(
    Writes, UpdateManagedFieldsTest,
    ::testing::Values(
        UpdateCase{"label_added", "kubectl-label", R"({"metadata":{"labels":{"tier":"gpu"}}})",
                   R"({"f:metadata":{"f:labels":{"f:tier":{}}}})", std::string(kCsaFields)},
        UpdateCase{"label_changed_moves_ownership", "kubectl-label",
                   R"({"metadata":{"labels":{"app":"gpu2"}}})",
                   R"({"f:metadata":{"f:labels":{"f:app":{}}}})",
                   CsaFieldsWith(R"([{"op":"remove","path":"/f:metadata/f:labels/f:app"}])")},
        UpdateCase{"label_removed_leaves_every_set", "kubectl-label",
                   R"({"metadata":{"labels":{"app":null}}})", "",
                   CsaFieldsWith(R"([{"op":"remove","path":"/f:metadata/f:labels/f:app"}])")},
        UpdateCase{"no_change_no_entry", "kubectl-label", R"({"metadata":{"labels":{"app":"gpu"}}})",
                   "", std::string(kCsaFields)},
        UpdateCase{"status_not_recorded", "kubelet", R"({"status":{"phase":"Running"}})", "",
                   std::string(kCsaFields)},
        UpdateCase{"server_fields_not_recorded", "kubectl-edit",
                   R"({"metadata":{"resourceVersion":"121","generation":2}})", "",
                   std::string(kCsaFields)},
        UpdateCase{"cordon_like_spec_field", "kubectl-edit",
                   R"({"spec":{"nodeName":"node-1"}})", R"({"f:spec":{"f:nodeName":{}}})",
                   std::string(kCsaFields)}),
    [](const auto& info) { return info.param.name; });

TEST(UpdateManagedFieldsTest, EmptyManagerLeavesObjectAlone) {
  json old = CsaCreated();
  json updated = *MergePatch(old, J(R"({"metadata":{"labels":{"tier":"gpu"}}})"));
  EXPECT_EQ(UpdateManagedFields(old, updated, "", kT1), updated);
}

TEST(UpdateManagedFieldsTest, ProvidedManagedFieldsAreKept) {
  // kubectl's migration JSON patch rewrites managedFields (reference §3.8 step 6).
  json old = CsaCreated();
  json rewritten = J(R"([{"manager":"kubectl","operation":"Apply","apiVersion":"v1",
                          "time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1",
                          "fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}}}}])");
  json updated = *JsonPatch(
      old, json::array({{{"op", "replace"}, {"path", "/metadata/managedFields"}, {"value", rewritten}},
                        {{"op", "replace"}, {"path", "/metadata/resourceVersion"}, {"value", "120"}}}));
  json got = UpdateManagedFields(old, updated, "kubectl", kT1);
  EXPECT_EQ(ManagedFields(got), rewritten);
}

TEST(UpdateManagedFieldsTest, RepeatedWritesUnionAndRetime) {
  json old = CsaCreated();
  json a = UpdateManagedFields(old, *MergePatch(old, J(R"({"metadata":{"labels":{"x":"1"}}})")),
                               "kubectl-label", kT1);
  json b = UpdateManagedFields(a, *MergePatch(a, J(R"({"metadata":{"labels":{"y":"1"}}})")),
                               "kubectl-label", kT2);
  json entry = EntryOf(b, "kubectl-label", "Update");
  EXPECT_EQ(entry["fieldsV1"], J(R"({"f:metadata":{"f:labels":{"f:x":{},"f:y":{}}}})"));
  EXPECT_EQ(entry["time"], "2026-01-01T00:02:00Z");
  // Entries sort by operation, then time: the client-side apply entry (older) first.
  EXPECT_EQ(ManagedFields(b)[0]["manager"], "kubectl-client-side-apply");
}

TEST(UpdateManagedFieldsTest, CreateOfConfigMapMarksNewDataMap) {
  json cm = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"default"},
                  "data":{"k":"v"}})");
  json got = UpdateManagedFields(nullptr, cm, "kubectl-create", kT0);
  EXPECT_EQ(EntryOf(got, "kubectl-create", "Update")["fieldsV1"],
            J(R"({"f:data":{".":{},"f:k":{}}})"));
}

// ---- Subresources ------------------------------------------------------------------------

// The entry of (manager, operation, subresource), or null.
json EntryOf(const json& obj, std::string_view manager, std::string_view operation,
             std::string_view subresource) {
  for (const auto& e : ManagedFields(obj)) {
    if (e.value("manager", "") == manager && e.value("operation", "") == operation &&
        e.value("subresource", "") == subresource) {
      return e;
    }
  }
  return nullptr;
}

struct SubresourceCase {
  std::string name;
  std::string subresource;
  std::string merge_patch;      // applied to CsaCreated() with MergePatch
  std::string want_fields;      // fieldsV1 of ("writer", Update, subresource); "" = none
  std::string want_csa_fields;  // the client-side apply entry's afterwards
};

void PrintTo(const SubresourceCase& c, std::ostream* os) { *os << c.name; }

class SubresourceWriteTest : public ::testing::TestWithParam<SubresourceCase> {};

// A write to a subresource is an entry of its own, owning what that subresource may change;
// the shortcuts give what the general path gives.
TEST_P(SubresourceWriteTest, OwnsItsPart) {
  const SubresourceCase& c = GetParam();
  json old = CsaCreated();
  json updated = *MergePatch(old, J(c.merge_patch));
  json got = UpdateManagedFields(old, updated, "writer", kT1, nullptr, c.subresource);
  EXPECT_EQ(got, UpdateManagedFieldsGeneral(old, updated, "writer", kT1, c.subresource));
  json entry = EntryOf(got, "writer", "Update", c.subresource);
  if (c.want_fields.empty()) {
    EXPECT_TRUE(entry.is_null()) << ManagedFields(got).dump();
  } else {
    ASSERT_TRUE(entry.is_object()) << ManagedFields(got).dump();
    EXPECT_EQ(entry["fieldsV1"], J(c.want_fields)) << entry["fieldsV1"].dump();
    EXPECT_EQ(entry["subresource"], c.subresource);
    EXPECT_EQ(entry["time"], "2026-01-01T00:01:00Z");
  }
  EXPECT_TRUE(EntryOf(got, "writer", "Update", "").is_null());
  json csa = EntryOf(got, "kubectl-client-side-apply", "Update");
  EXPECT_EQ(csa["fieldsV1"], J(c.want_csa_fields)) << csa["fieldsV1"].dump();
}

INSTANTIATE_TEST_SUITE_P(
    Writes, SubresourceWriteTest,
    ::testing::Values(
        SubresourceCase{"status_scalar", "status", R"({"status":{"phase":"Running"}})",
                        R"({"f:status":{"f:phase":{}}})", std::string(kCsaFields)},
        SubresourceCase{"status_conditions", "status",
                        R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})",
                        R"({"f:status":{"f:conditions":{".":{},
                            "k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}}}}})",
                        std::string(kCsaFields)},
        SubresourceCase{"status_unchanged", "status", R"({"status":{"phase":"Pending"}})", "",
                        std::string(kCsaFields)},
        // The status strategy keeps the rest: had a status write changed it, it is not owned.
        SubresourceCase{"status_owns_no_label", "status", R"({"metadata":{"labels":{"tier":"x"}}})",
                        "", std::string(kCsaFields)},
        SubresourceCase{"approval_conditions", "approval",
                        R"({"status":{"conditions":[{"type":"Approved","status":"True"}]}})",
                        R"({"f:status":{"f:conditions":{".":{},
                            "k:{\"type\":\"Approved\"}":{".":{},"f:status":{},"f:type":{}}}}})",
                        std::string(kCsaFields)},
        SubresourceCase{"scale_takes_the_field", "scale", R"({"spec":{"nodeName":"n1"}})",
                        R"({"f:spec":{"f:nodeName":{}}})", std::string(kCsaFields)},
        SubresourceCase{"scale_moves_ownership", "scale", R"({"metadata":{"labels":{"app":"x"}}})",
                        R"({"f:metadata":{"f:labels":{"f:app":{}}}})",
                        CsaFieldsWith(R"([{"op":"remove","path":"/f:metadata/f:labels/f:app"}])")}),
    [](const auto& info) { return info.param.name; });

TEST(SubresourceWriteTest, StatusTwiceMovesOnlyTheTime) {
  json old = CsaCreated();
  json a = UpdateManagedFields(old, *MergePatch(old, J(R"({"status":{"phase":"Running"}})")),
                               "kubelet", kT1, nullptr, "status");
  json b = UpdateManagedFields(a, *MergePatch(a, J(R"({"status":{"phase":"Succeeded"}})")),
                               "kubelet", kT2, nullptr, "status");
  json entry = EntryOf(b, "kubelet", "Update", "status");
  EXPECT_EQ(entry["fieldsV1"], J(R"({"f:status":{"f:phase":{}}})"));
  EXPECT_EQ(entry["time"], "2026-01-01T00:02:00Z");
  // A write to the object itself by the same manager is another entry.
  json c = UpdateManagedFields(b, *MergePatch(b, J(R"({"metadata":{"labels":{"k":"v"}}})")),
                               "kubelet", kT2, nullptr, "");
  EXPECT_EQ(EntryOf(c, "kubelet", "Update", "")["fieldsV1"],
            J(R"({"f:metadata":{"f:labels":{"f:k":{}}}})"));
  EXPECT_EQ(EntryOf(c, "kubelet", "Update", "status")["fieldsV1"], entry["fieldsV1"]);
}

TEST(ServerSideApplyTest, ApplyToStatusAppliesStatusOnly) {
  json live = CsaCreated();
  json cfg =
      J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-pod","labels":{"app":"x"}},
                   "spec":{"nodeName":"elsewhere"},
                   "status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  auto got = ServerSideApply(live, cfg, "ctrl", false, kT1, nullptr, "status");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["spec"], live["spec"]);
  EXPECT_EQ((*got)["metadata"]["labels"], live["metadata"]["labels"]);
  EXPECT_EQ((*got)["status"],
            J(R"({"phase":"Pending","conditions":[{"type":"Ready","status":"True"}]})"));
  json entry = EntryOf(*got, "ctrl", "Apply", "status");
  EXPECT_EQ(entry["fieldsV1"], J(R"({"f:status":{"f:conditions":{
      "k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}}}}})"));
  EXPECT_EQ(entry["time"], "2026-01-01T00:01:00Z");
  EXPECT_EQ(EntryOf(*got, "kubectl-client-side-apply", "Update")["fieldsV1"], J(kCsaFields));

  // Dropping the condition from the next apply removes it; the phase nobody applied stays.
  json again = cfg;
  again["status"] = J(R"({"conditions":[]})");
  auto pruned = ServerSideApply(*got, again, "ctrl", false, kT2, nullptr, "status");
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_EQ((*pruned)["status"]["phase"], "Pending");
  EXPECT_TRUE((*pruned)["status"].value("conditions", json::array()).empty())
      << (*pruned)["status"].dump();
}

TEST(ServerSideApplyTest, ApplyToStatusConflictsWithTheStatusWriter) {
  json live = CsaCreated();
  live = UpdateManagedFields(live, *MergePatch(live, J(R"({"status":{"phase":"Running"}})")),
                             "kubelet", kT1, nullptr, "status");
  json cfg = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-pod"},
                   "status":{"phase":"Failed"}})");
  std::vector<ApplyConflict> conflicts;
  auto got = ServerSideApply(live, cfg, "ctrl", false, kT2, &conflicts, "status");
  ASSERT_EQ(got.status().code(), StatusCode::kAborted);
  EXPECT_EQ(got.status().message(),
            "Apply failed with 1 conflict: conflict with \"kubelet\" with subresource \"status\" "
            "using v1: .status.phase");
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].field, ".status.phase");
  // The same manager applying to the object itself does not meet the status writer.
  EXPECT_TRUE(ServerSideApply(live, Manifest(), "ctrl", false, kT2, nullptr, "").ok());
  auto forced = ServerSideApply(live, cfg, "ctrl", true, kT2, nullptr, "status");
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ((*forced)["status"]["phase"], "Failed");
  EXPECT_TRUE(EntryOf(*forced, "kubelet", "Update", "status").is_null());
}

TEST(ServerSideApplyTest, ApplyToStatusOfNothingIsNotFound) {
  auto got = ServerSideApply(nullptr, Manifest(), "ctrl", false, kT0, nullptr, "status");
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tidepool::apiserver::patch
