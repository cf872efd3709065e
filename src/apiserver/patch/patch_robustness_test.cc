// Seeded random inputs full of directives and kube-shaped keys: every entry point of the patch
// library must return (a value or a Status) without throwing or crashing.
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/patch/strategic_merge_patch.h"

namespace tidepool::apiserver::patch {
namespace {

using ::nlohmann::json;

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  json Value(int depth) {
    switch (Pick(depth <= 0 ? 4 : 7)) {
      case 0:
        return nullptr;
      case 1:
        return Pick(2) == 0;
      case 2:
        return static_cast<int>(Pick(5)) - 1;
      case 3:
        return kStrings[Pick(kStrings.size())];
      case 4:
      case 5: {
        json obj = json::object();
        const size_t n = Pick(4);
        for (size_t i = 0; i < n; ++i) obj[kKeys[Pick(kKeys.size())]] = Value(depth - 1);
        return obj;
      }
      default: {
        json arr = json::array();
        const size_t n = Pick(4);
        for (size_t i = 0; i < n; ++i) arr.push_back(Value(depth - 1));
        return arr;
      }
    }
  }

  json Operations() {
    json ops = json::array();
    const size_t n = Pick(4);
    for (size_t i = 0; i < n; ++i) {
      json op = {{"op", kOps[Pick(kOps.size())]}, {"path", kPaths[Pick(kPaths.size())]}};
      if (Pick(2) == 0) op["from"] = kPaths[Pick(kPaths.size())];
      if (Pick(3) != 0) op["value"] = Value(2);
      ops.push_back(std::move(op));
    }
    return ops;
  }

  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  std::mt19937 rng_;
  const std::vector<std::string> kKeys = {
      "$patch", "$retainKeys", "$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers",
      "$setElementOrder/finalizers", "metadata", "spec", "status", "containers", "name", "image",
      "finalizers", "labels", "annotations", "managedFields", "manager", "operation",
      "fieldsType", "fieldsV1", "f:a", ".", "apiVersion", "kind", "ports", "containerPort",
      "kubectl.kubernetes.io/last-applied-configuration", "env", "taints"};
  const std::vector<std::string> kStrings = {
      "delete", "replace", "merge", "a", "v1", "Pod", "Apply", "Update", "FieldsV1", "name",
      "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"a\":\"b\"}}}", "kubectl"};
  const std::vector<std::string> kOps = {"add", "remove", "replace", "move", "copy", "test", "x"};
  const std::vector<std::string> kPaths = {
      "", "/", "/a", "/metadata/labels/a", "/spec/containers/0", "/spec/containers/-",
      "/spec/containers/-1", "/x/y", "/a~1b", "/0", "/metadata/managedFields"};
};

TEST(PatchRobustnessTest, RandomInputsNeverThrow) {
  Generator gen(20260101);
  const TimePoint now = TimePoint(std::chrono::seconds(1767225600));
  for (int i = 0; i < 3000; ++i) {
    json target = gen.Value(4);
    if (gen.Pick(2) == 0) {
      target = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", gen.Value(3)},
                {"spec", gen.Value(3)}};
    }
    const json patch = gen.Value(4);
    SCOPED_TRACE("target " + target.dump() + " patch " + patch.dump());
    EXPECT_NO_THROW({
      (void)MergePatch(target, patch);
      (void)JsonPatch(target, gen.Operations());
      (void)StrategicMergePatch(target, patch, "v1", "Pod");
      std::vector<ApplyConflict> conflicts;
      auto applied = ServerSideApply(target.is_object() ? target : json(nullptr), patch,
                                     "kubectl", gen.Pick(2) == 0, now, &conflicts);
      if (applied.ok()) {
        EXPECT_TRUE(applied->is_object());
        (void)ServerSideApply(*applied, target, "other", false, now, &conflicts);
      }
      json updated = UpdateManagedFields(target, patch, "m", now);
      (void)UpdateManagedFields(nullptr, updated, "m", now);
    });
  }
}

}  // namespace
}  // namespace tidepool::apiserver::patch
