// UpdateManagedFields's shortcuts against the general path (UpdateManagedFieldsGeneral).
// The create shortcut:
// byte-identical results on every Kubernetes object in the repository's examples and
// end-to-end tests, on the benchmark's objects, on hand-written shapes that exercise every
// branch of the comparison (keyed lists, sets, atomic maps and lists, nil containers, lists
// whose items lack or repeat their keys), and on variants of all of these in which one value
// at a time is replaced by null, {}, [] or a scalar, or removed.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api/codec/yaml.h"
#include "apiserver/patch/server_side_apply.h"
#include "testing/repository_manifests.h"

namespace tidepool::apiserver::patch {
namespace {

using ::nlohmann::json;

const TimePoint kNow = TimePoint(std::chrono::seconds(1767225600));

std::vector<json> RepositoryObjects() {
  return testing::RepositoryManifests(std::filesystem::path(TIDEPOOL_SOURCE_DIR));
}

// The shapes of bench/apiserver_bench.cc's pod and node, after the server's defaulting, and
// objects for every comparison branch.
std::vector<json> HandWrittenObjects() {
  return {
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default",
        "labels":{"app":"web-1","team":"checkout","tier":"frontend"},
        "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"x\":1}\n"}},
        "spec":{"containers":[{"name":"web","image":"us-docker.pkg.dev/tidepool/apps/web:1.27.3",
          "args":["--port=8080","--log-level=info"],
          "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
          "env":[{"name":"APP_NAME","value":"web-1"},
                 {"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],
          "resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"cpu":"500m","memory":"512Mi"}},
          "readinessProbe":{"httpGet":{"path":"/healthz","port":"http","scheme":"HTTP"},"periodSeconds":10,
            "timeoutSeconds":1,"successThreshold":1,"failureThreshold":3},
          "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
          "imagePullPolicy":"IfNotPresent"}],
          "nodeSelector":{"cloud.google.com/gke-nodepool":"default-pool"},
          "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],
          "restartPolicy":"Always","dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler",
          "securityContext":{},"enableServiceLinks":true,"priority":0},
        "status":{"phase":"Pending","qosClass":"Burstable"}})"),
      json::parse(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n-1",
        "labels":{"kubernetes.io/hostname":"n-1","cloud.google.com/gke-nodepool":"gpu-pool"}},
        "spec":{"providerID":"gce://p/z/n-1","taints":[{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}],
          "podCIDRs":["10.0.0.0/24","fd00::/64"]},
        "status":{"capacity":{"cpu":"8"},"conditions":[{"type":"Ready","status":"True"}],
          "addresses":[{"type":"InternalIP","address":"10.0.0.1"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}})"),
      json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default",
        "finalizers":["a","b"],"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"u1"}]},
        "spec":{"replicas":2,"selector":{"matchLabels":{"app":"d"}},
          "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"a","image":"i",
            "ports":[{"containerPort":80},{"containerPort":80,"protocol":"UDP"}],
            "volumeMounts":[{"name":"v","mountPath":"/v"}]}],
            "volumes":[{"name":"v","emptyDir":{}}],"initContainers":[]}}}})"),
      json::parse(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
        "spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}],"restartPolicy":"Never"}}}})"),
      json::parse(R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},
        "spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"containers":null}}}}}})"),
      json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},
        "spec":{"ports":[{"port":80,"protocol":"TCP"},{"port":443}],"selector":{"a":"b"},"clusterIPs":["10.1.0.1"]}})"),
      json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{}},
        "data":{"a":"1","b":""},"binaryData":{}})"),
      // Keyed lists whose items lack their key, or repeat it: atomic.
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
        "spec":{"containers":[{"image":"no-name"},{"name":"x"}],"volumes":[{"name":"v"},{"name":"v"}],
          "readinessGates":[{"conditionType":"a"}]}})"),
      // Sets with duplicates or objects: atomic.
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","finalizers":["a","a"]},
        "spec":{"containers":[{"name":"c","image":"i"}]}})"),
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","finalizers":[{"x":1}]},"spec":{}})"),
      // Odd top levels.
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":"not-an-object","spec":[]})"),
      json::parse(R"({"apiVersion":"v1","kind":"Pod"})"),
      json::parse(R"({"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w"},"spec":{"a":{"b":[1,2]}},"status":{"x":1}})"),
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[],"generation":3,
        "uid":"u","resourceVersion":"9","creationTimestamp":"2026-01-01T00:00:00Z","selfLink":"/x"},"spec":null})"),
      json::object(),
  };
}

// Calls `fn` with every variant of `obj` in which one value (at any depth) is replaced by
// null, {}, [], 0 or "x", or removed.
void ForEachVariant(const json& obj, const std::function<void(const json&)>& fn) {
  const json replacements[] = {nullptr, json::object(), json::array(), 0, "x"};
  std::function<void(json&, json&)> walk = [&](json& root, json& node) {
    if (node.is_object()) {
      std::vector<std::string> keys;
      for (auto& [k, v] : node.items()) keys.push_back(k);
      for (const std::string& k : keys) {
        json saved = node[k];
        for (const json& r : replacements) {
          node[k] = r;
          fn(root);
        }
        node.erase(k);
        fn(root);
        node[k] = saved;
        walk(root, node[k]);
      }
    } else if (node.is_array()) {
      for (size_t i = 0; i < node.size(); ++i) {
        json saved = node[i];
        for (const json& r : replacements) {
          node[i] = r;
          fn(root);
        }
        node[i] = saved;
        walk(root, node[i]);
      }
    }
  };
  json copy = obj;
  walk(copy, copy);
}

// The shortcut against the general path, both ways: with the entry's FieldsV1 as a tree, and
// handed over as text (which must be exactly the tree's serialization).
size_t CompareOn(const json& obj) {
  const json want = UpdateManagedFieldsGeneral(json(), obj, "kubectl-client-side-apply", kNow);
  const json got = UpdateManagedFields(json(), obj, "kubectl-client-side-apply", kNow);
  EXPECT_EQ(got.dump(), want.dump()) << "object: " << obj.dump();
  std::string text = "not cleared";
  json with_text = UpdateManagedFields(json(), obj, "kubectl-client-side-apply", kNow, &text);
  const json* want_mf = want.contains("metadata") && want["metadata"].is_object() &&
                                want["metadata"].contains("managedFields")
                            ? &want["metadata"]["managedFields"]
                            : nullptr;
  if (want_mf == nullptr) {
    EXPECT_EQ(text, "");
    EXPECT_EQ(with_text.dump(), want.dump());
    return 1;
  }
  EXPECT_EQ(text, (*want_mf)[0]["fieldsV1"].dump()) << "object: " << obj.dump();
  EXPECT_EQ(with_text["metadata"]["managedFields"][0]["fieldsV1"], json::object());
  with_text["metadata"]["managedFields"][0]["fieldsV1"] = json::parse(text);
  EXPECT_EQ(with_text.dump(), want.dump());
  return 1;
}

TEST(ManagedFieldsCreateTest, RepositoryManifestsMatchTheGeneralPath) {
  const std::vector<json> objects = RepositoryObjects();
  ASSERT_GE(objects.size(), 10u);  // the examples alone have more
  size_t compared = 0;
  for (const json& o : objects) {
    SCOPED_TRACE(o.value("kind", "") + " " + o["metadata"].value("name", ""));
    compared += CompareOn(o);
    ForEachVariant(o, [&](const json& v) { compared += CompareOn(v); });
  }
  EXPECT_GT(compared, 1000u);
}

TEST(ManagedFieldsCreateTest, HandWrittenShapesMatchTheGeneralPath) {
  for (const json& o : HandWrittenObjects()) {
    SCOPED_TRACE(o.dump().substr(0, 120));
    CompareOn(o);
    ForEachVariant(o, [&](const json& v) { CompareOn(v); });
  }
}

TEST(ManagedFieldsCreateTest, FieldsV1OfABenchPod) {
  // The shortcut's result, spelled out once (the comparison tests show it equals kube's rules
  // as the general path implements them).
  const json pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",
    "labels":{"app":"a"}},"spec":{"containers":[{"name":"web","image":"i",
    "ports":[{"containerPort":8080,"protocol":"TCP"}]}],"tolerations":[{"operator":"Exists"}]},
    "status":{"phase":"Pending"}})");
  const json got = UpdateManagedFields(json(), pod, "kubectl-client-side-apply", kNow);
  EXPECT_EQ(got["metadata"]["managedFields"], json::parse(R"([{"apiVersion":"v1",
    "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},
    "f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},
    "f:containerPort":{},"f:protocol":{}}}}},"f:tolerations":{}}},
    "manager":"kubectl-client-side-apply","operation":"Update","time":"2026-01-01T00:00:00Z"}])"));
}

// The ownership shortcuts (an update that changes only status, managedFields, resourceVersion
// or generation keeps old's entries; one that only gives new values to scalars its writer alone
// owns changes only the writer's time): the same result as the general path on every
// repository object, for each of three writers (the creator, the manager of one label, one
// that owns nothing), for writes that take a shortcut and writes next to them that must not.
// The first string or number reached from `v` through maps only, or null.
json* FirstScalarInMaps(json& v) {
  if (v.is_string() || v.is_number()) return &v;
  if (!v.is_object()) return nullptr;
  for (auto& [k, child] : v.items()) {
    if (json* found = FirstScalarInMaps(child)) return found;
  }
  return nullptr;
}

json WithEntries(const json& object) {
  // A create by one manager, then a label by another: two entries in the store's form.
  json created = UpdateManagedFields(json(), object, "creator", kNow);
  if (created.contains("metadata") && created["metadata"].is_object()) {
    created["metadata"]["uid"] = "3f1c2e9a-0000-4000-8000-000000000001";
    created["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z";
  }
  json labelled = created;
  if (!labelled.contains("metadata") || !labelled["metadata"].is_object()) return created;
  labelled["metadata"]["labels"]["tidepool.dev/second"] = "x";
  labelled =
      UpdateManagedFields(created, labelled, "second-manager", kNow + std::chrono::seconds(5));
  // Then a status writer's conditions (a keyed list where the kind's schema says so).
  json reported = labelled;
  reported["status"]["conditions"] = json::parse(
      R"([{"type":"Ready","status":"False","lastHeartbeatTime":"2026-01-01T00:00:00Z"},
          {"type":"MemoryPressure","status":"False","lastHeartbeatTime":"2026-01-01T00:00:00Z"}])");
  return UpdateManagedFields(labelled, reported, "status-writer", kNow + std::chrono::seconds(6),
                             nullptr, "status");
}

TEST(ManagedFieldsUpdateTest, UnchangedOwnershipMatchesTheGeneralPath) {
  const TimePoint later = kNow + std::chrono::minutes(1);
  using Edit = std::function<void(json&)>;
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"status only", [](json& o) { o["status"]["phase"] = "Running"; }},
      {"status removed", [](json& o) { o.erase("status"); }},
      {"resourceVersion and generation",
       [](json& o) {
         o["metadata"]["resourceVersion"] = "99";
         o["metadata"]["generation"] = 7;
       }},
      {"managedFields dropped by the client",
       [](json& o) { o["metadata"].erase("managedFields"); }},
      {"managedFields emptied by the client",
       [](json& o) { o["metadata"]["managedFields"] = json::array(); }},
      {"managedFields rewritten by the client",
       [](json& o) {
         o["metadata"]["managedFields"] =
             json::array({{{"manager", "other"},
                           {"operation", "Update"},
                           {"apiVersion", "v1"},
                           {"fieldsType", "FieldsV1"},
                           {"fieldsV1", {{"f:metadata", {{"f:labels", json::object()}}}}}}});
       }},
      {"a label", [](json& o) { o["metadata"]["labels"]["new"] = "y"; }},
      {"a label removed", [](json& o) { o["metadata"]["labels"].erase("tidepool.dev/second"); }},
      {"an annotation and status",
       [](json& o) {
         o["metadata"]["annotations"]["n"] = "v";
         o["status"] = json::object();
       }},
      {"spec", [](json& o) { o["spec"]["tidepool-unknown"] = 1; }},
      {"apiVersion", [](json& o) { o["apiVersion"] = "tidepool.dev/v9"; }},
      {"metadata replaced by a scalar", [](json& o) { o["metadata"] = 5; }},
      {"structured resourceVersion",
       [](json& o) {
         o["metadata"]["resourceVersion"] = {{"a", 1}};
       }},
      {"the second manager's label value",
       [](json& o) { o["metadata"]["labels"]["tidepool.dev/second"] = "changed"; }},
      {"the second manager's label value and status",
       [](json& o) {
         o["metadata"]["labels"]["tidepool.dev/second"] = "changed";
         o["status"]["x"] = 1;
       }},
      {"the second manager's label to a number",
       [](json& o) { o["metadata"]["labels"]["tidepool.dev/second"] = 5; }},
      {"the second manager's label to null",
       [](json& o) { o["metadata"]["labels"]["tidepool.dev/second"] = nullptr; }},
      {"the first spec scalar",
       [](json& o) {
         if (json* v = FirstScalarInMaps(o["spec"])) {
           *v = v->is_string() ? json("tidepool-new") : json(987654);
         }
       }},
      {"the first spec scalar and a label value",
       [](json& o) {
         if (json* v = FirstScalarInMaps(o["spec"])) {
           *v = v->is_string() ? json("tidepool-new") : json(987654);
         }
         o["metadata"]["labels"]["tidepool.dev/second"] = "changed";
       }},
      {"the name", [](json& o) { o["metadata"]["name"] = "renamed"; }},
      {"server metadata left out",
       [](json& o) {
         o["metadata"].erase("creationTimestamp");
         o["metadata"].erase("uid");
         o["metadata"]["resourceVersion"] = "12";
       }},
      {"server metadata left out and the second manager's label value",
       [](json& o) {
         o["metadata"].erase("uid");
         o["metadata"]["labels"]["tidepool.dev/second"] = "changed";
       }},
      {"a structured uid",
       [](json& o) {
         o["metadata"]["uid"] = {{"x", "y"}};
       }},
      {"kind and apiVersion",
       [](json& o) {
         o["kind"] = "Other";
         o["apiVersion"] = "v2";
       }},
      {"a condition's heartbeat",
       [](json& o) { o["status"]["conditions"][0]["lastHeartbeatTime"] = "2026-01-01T00:01:00Z"; }},
      {"both conditions' heartbeats and a status",
       [](json& o) {
         for (json& c : o["status"]["conditions"]) c["lastHeartbeatTime"] = "2026-01-01T00:01:00Z";
         o["status"]["conditions"][1]["status"] = "True";
       }},
      {"a condition's status to a number", [](json& o) { o["status"]["conditions"][0]["status"] = 1; }},
      {"a condition's type", [](json& o) { o["status"]["conditions"][0]["type"] = "Other"; }},
      {"a condition added",
       [](json& o) { o["status"]["conditions"].push_back({{"type", "X"}, {"status", "True"}}); }},
      {"the conditions reordered",
       [](json& o) { std::swap(o["status"]["conditions"][0], o["status"]["conditions"][1]); }},
      {"a condition's new member",
       [](json& o) { o["status"]["conditions"][0]["reason"] = "KubeletReady"; }},
      {"the first container's image",
       [](json& o) {
         json* spec = o.contains("spec") ? &o["spec"] : nullptr;
         if (spec && spec->is_object() && spec->contains("containers") &&
             (*spec)["containers"].is_array() && !(*spec)["containers"].empty()) {
           (*spec)["containers"][0]["image"] = "tidepool/new:1";
         }
       }},
      {"the tolerations",
       [](json& o) { o["spec"]["tolerations"] = json::array({{{"operator", "Exists"}}}); }},
  };
  int compared = 0;
  for (const json& object : RepositoryObjects()) {
    if (!object.is_object() || !object.contains("metadata")) continue;
    const json old = WithEntries(object);
    for (const auto& [name, edit] : edits) {
      json updated = old;
      edit(updated);
      for (const char* writer : {"creator", "second-manager", "status-writer", "writer"}) {
        for (const char* subresource : {"", "status", "scale"}) {
          SCOPED_TRACE(name + " by " + writer + " to \"" + subresource + "\" on " +
                       object.dump().substr(0, 120));
          EXPECT_EQ(UpdateManagedFields(old, updated, writer, later, nullptr, subresource),
                    UpdateManagedFieldsGeneral(old, updated, writer, later, subresource));
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

// Entries not in the store's form (unsorted, an unknown member, an empty fieldsV1, no
// entries) are rewritten by the general path even on a status-only write.
TEST(ManagedFieldsUpdateTest, EntriesNotInTheStoresFormTakeTheGeneralPath) {
  const json entry_a = {{"manager", "a"},
                        {"operation", "Update"},
                        {"apiVersion", "v1"},
                        {"time", "2026-01-01T00:00:00Z"},
                        {"fieldsType", "FieldsV1"},
                        {"fieldsV1", {{"f:metadata", {{"f:labels", {{"f:x", json::object()}}}}}}}};
  json entry_b = entry_a;
  entry_b["manager"] = "b";
  entry_b["time"] = "2025-01-01T00:00:00Z";  // sorts before a
  json extra = entry_a;
  extra["extra"] = true;
  json empty_fields = entry_a;
  empty_fields["fieldsV1"] = json::object();
  json apply_unsorted = entry_a;
  apply_unsorted["operation"] = "Apply";
  const std::vector<std::pair<std::string, json>> lists = {
      {"unsorted", json::array({entry_a, entry_b})},
      {"unknown member", json::array({extra})},
      {"empty fieldsV1", json::array({empty_fields})},
      {"empty list", json::array()},
      {"not a list", json::object()},
      {"Update before Apply", json::array({entry_a, apply_unsorted})},
  };
  for (const auto& [name, list] : lists) {
    SCOPED_TRACE(name);
    json old = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", "p"}, {"labels", {{"x", "1"}}}, {"managedFields", list}}},
                {"spec", json::object()}};
    json updated = old;
    updated["metadata"].erase("managedFields");
    updated["status"]["phase"] = "Running";
    const json got = UpdateManagedFields(old, updated, "kubelet", kNow);
    EXPECT_EQ(got, UpdateManagedFieldsGeneral(old, updated, "kubelet", kNow));
  }
}

// A scalar that two entries own, or that nobody owns, or whose parent another entry owns whole:
// the writer's change must match the general path (which takes the field from the others, or
// gives it to the writer).
TEST(ManagedFieldsUpdateTest, SharedOrUnownedScalarsMatchTheGeneralPath) {
  auto entry = [](const char* manager, const char* op, const char* time, json fields) {
    return json{{"manager", manager}, {"operation", op},          {"apiVersion", "v1"},
                {"time", time},       {"fieldsType", "FieldsV1"}, {"fieldsV1", std::move(fields)}};
  };
  const json k_owned = {{"f:data", {{"f:k", json::object()}}}};
  const json other_owned = {{"f:data", {{"f:other", json::object()}}}};
  const json data_whole = {{"f:data", json::object()}};
  const std::vector<std::pair<std::string, json>> cases = {
      {"owned by the writer and an applier",
       json::array({entry("applier", "Apply", "2026-01-01T00:00:00Z", k_owned),
                    entry("writer", "Update", "2026-01-01T00:00:00Z", k_owned)})},
      {"owned by the writer and another writer",
       json::array({entry("a", "Update", "2026-01-01T00:00:00Z", k_owned),
                    entry("writer", "Update", "2026-01-02T00:00:00Z", k_owned)})},
      {"owned by nobody",
       json::array({entry("writer", "Update", "2026-01-01T00:00:00Z", other_owned)})},
      {"its map owned whole by another",
       json::array({entry("a", "Update", "2026-01-01T00:00:00Z", data_whole),
                    entry("writer", "Update", "2026-01-02T00:00:00Z", k_owned)})},
      {"owned by the writer alone, before another entry in time",
       json::array({entry("writer", "Update", "2026-01-01T00:00:00Z", k_owned),
                    entry("z", "Update", "2026-01-02T00:00:00Z", other_owned)})},
  };
  for (const auto& [name, entries] : cases) {
    SCOPED_TRACE(name);
    const json old = {{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", "c"}, {"managedFields", entries}}},
                      {"data", {{"k", "1"}, {"other", "2"}}}};
    json updated = old;
    updated["data"]["k"] = "changed";
    EXPECT_EQ(UpdateManagedFields(old, updated, "writer", kNow),
              UpdateManagedFieldsGeneral(old, updated, "writer", kNow));
  }
}

// With client-provided managedFields, or an existing object, UpdateManagedFields is the
// general path itself.
TEST(ManagedFieldsCreateTest, ProvidedEntriesAndUpdatesUseTheGeneralPath) {
  json pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"},
    "managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",
    "fieldsV1":{"f:metadata":{"f:labels":{"f:a":{}}}}}]},"spec":{}})");
  EXPECT_EQ(UpdateManagedFields(json(), pod, "x", kNow),
            UpdateManagedFieldsGeneral(json(), pod, "x", kNow));
  json next = pod;
  next["metadata"]["labels"]["c"] = "d";
  EXPECT_EQ(UpdateManagedFields(pod, next, "x", kNow),
            UpdateManagedFieldsGeneral(pod, next, "x", kNow));
}

}  // namespace
}  // namespace tidepool::apiserver::patch
