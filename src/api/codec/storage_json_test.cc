// The storage rules on JSON objects (storage_json.h), as Kubernetes 1.32's helpers read them.
#include "api/codec/storage_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tidepool::api::codec {
namespace {

using nlohmann::json;

TEST(StorageJsonTest, ClassOfAClaimOrVolume) {
  struct Case {
    const char* name;
    const char* obj;
    std::string class_name;
    bool has_class;
  };
  const std::vector<Case> cases = {
      {"nothing", R"({"spec": {}})", "", false},
      {"a class", R"({"spec": {"storageClassName": "fast"}})", "fast", true},
      {"an explicit empty class", R"({"spec": {"storageClassName": ""}})", "", true},
      {"a null class is none", R"({"spec": {"storageClassName": null}})", "", false},
      {"the beta annotation first",
       R"({"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "old"}},
           "spec": {"storageClassName": "fast"}})",
       "old", true},
      {"not an object", R"([1, 2])", "", false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const json obj = json::parse(tc.obj);
    EXPECT_EQ(ClassNameOf(obj), tc.class_name);
    EXPECT_EQ(ClaimHasClass(obj), tc.has_class);
  }
}

TEST(StorageJsonTest, DefaultClassIsTheNewestThenFirstByName) {
  auto sc = [](const char* name, const char* created, const char* key, const char* value) {
    json o = {{"metadata", {{"name", name}, {"creationTimestamp", created}}}};
    if (key != nullptr) o["metadata"]["annotations"][key] = value;
    return o;
  };
  const char* kGa = "storageclass.kubernetes.io/is-default-class";
  const char* kBeta = "storageclass.beta.kubernetes.io/is-default-class";
  const std::vector<json> all = {
      sc("plain", "2026-01-03T00:00:00Z", nullptr, nullptr),
      sc("not", "2026-01-03T00:00:00Z", kGa, "false"),
      sc("old", "2026-01-01T00:00:00Z", kGa, "true"),
      sc("zeta", "2026-01-02T00:00:00Z", kBeta, "true"),
      sc("alpha", "2026-01-02T00:00:00Z", kGa, "true"),
  };
  auto pick = [&](size_t n) {
    std::vector<const json*> classes;
    for (size_t i = 0; i < n; ++i) classes.push_back(&all[i]);
    return DefaultStorageClassName(classes);
  };
  EXPECT_EQ(pick(2), "");
  EXPECT_EQ(pick(3), "old");
  EXPECT_EQ(pick(4), "zeta") << "the newest, by the beta key too";
  EXPECT_EQ(pick(5), "alpha") << "equally new: the first by name";
}

}  // namespace
}  // namespace tidepool::api::codec
