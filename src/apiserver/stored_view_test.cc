// StoredView against the whole object: Tables (every printer's cells, row conditions and
// PartialObjectMetadata) and field selector values are identical on the view and on the
// object, for every manifest of the repository (examples/, tests/e2e/), pods in every state
// the pod printer distinguishes, and variants of all of them in which one value at a time is
// replaced by null, {}, [], 0 or "x", or removed.

#include "apiserver/stored_view.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "api/codec/yaml.h"
#include "apiserver/printers/printers.h"
#include "apiserver/resources.h"
#include "apiserver/selectors/fields.h"
#include "testing/pod_json.h"
#include "testing/repository_manifests.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

const TimePoint kNow = TimePoint(std::chrono::seconds(1767225600));

std::vector<json> RepositoryObjects() {
  return testing::RepositoryManifests(std::filesystem::path(TIDEPOOL_SOURCE_DIR));
}

json Pod(std::string_view spec, std::string_view status, std::string_view extra_meta = "") {
  std::string meta = R"("name":"p","namespace":"d","creationTimestamp":"2025-12-31T23:00:00Z",)"
                     R"("labels":{"app":"a"},"annotations":{)"
                     R"("kubectl.kubernetes.io/last-applied-configuration":"{}","other":"x"},)"
                     R"("managedFields":[{"manager":"m","operation":"Update"}])";
  meta += extra_meta;
  return testing::PodJson(meta, spec, status);
}

// Pods in the states printPod tells apart.
std::vector<json> Pods() {
  const std::string one =
      R"({"containers":[{"name":"app","image":"i","resources":{"requests":{"cpu":"1"}}}],)"
      R"("nodeName":"n1","restartPolicy":"Always","schedulerName":"default-scheduler",)"
      R"("serviceAccountName":"sa","hostNetwork":true,"terminationGracePeriodSeconds":30,)"
      R"("tolerations":[{"key":"k","operator":"Exists"}]})";
  const std::string sidecar =
      R"({"initContainers":[{"name":"init","image":"i"},{"name":"proxy","image":"i",)"
      R"("restartPolicy":"Always"}],"containers":[{"name":"a","image":"i"},{"name":"b"}],)"
      R"("readinessGates":[{"conditionType":"g1"},{"conditionType":"g2"}]})";
  return {
      Pod(one, R"({"phase":"Pending"})"),
      Pod(one, R"({"phase":"Running","podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.1"}],)"
               R"("nominatedNodeName":"n2","conditions":[{"type":"Ready","status":"True"}],)"
               R"("containerStatuses":[{"name":"app","ready":true,"restartCount":3,)"
               R"("state":{"running":{}},"lastState":{"terminated":{"exitCode":1,)"
               R"("finishedAt":"2025-12-31T23:50:00Z"}}}]})"),
      Pod(sidecar,
          R"({"phase":"Pending","conditions":[{"type":"g1","status":"True"}],)"
          R"("initContainerStatuses":[{"name":"init","state":{"terminated":{"exitCode":0}}},)"
          R"({"name":"proxy","started":true,"ready":true,"restartCount":2,"state":{"running":{}}}],)"
          R"("containerStatuses":[{"name":"a","state":{"waiting":{"reason":"CrashLoopBackOff"}}},)"
          R"({"name":"b","ready":true,"state":{"running":{}}}]})"),
      Pod(sidecar, R"({"phase":"Pending","initContainerStatuses":[{"name":"init","state":)"
                   R"({"waiting":{"reason":"ErrImagePull"}}}]})"),
      Pod(sidecar, R"({"phase":"Pending","initContainerStatuses":[{"name":"init","state":)"
                   R"({"terminated":{"exitCode":2,"signal":9}}}]})"),
      Pod(one, R"({"phase":"Succeeded","containerStatuses":[{"name":"app","state":)"
               R"({"terminated":{"exitCode":0,"reason":"Completed"}}}]})"),
      Pod(one, R"({"phase":"Failed","reason":"NodeLost"})",
          R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")"),
      Pod(one, R"({"phase":"Running","reason":"NodeLost"})",
          R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")"),
      Pod(R"({"containers":{"not":"an array"},"initContainers":[1,"x",null]})",
          R"({"phase":"Running"})"),
      Pod(R"([])", R"(null)"),
  };
}

// Every variant of `j` with one value replaced or removed, depth-first.
void Variants(const json& j, const std::function<void(const json&)>& f) {
  std::function<void(json&, json&)> walk = [&](json& root, json& node) {
    if (!node.is_object() && !node.is_array()) return;
    for (auto it = node.begin(); it != node.end(); ++it) {
      json saved = *it;
      for (const json& repl : {json(), json::object(), json::array(), json(0), json("x")}) {
        *it = repl;
        f(root);
      }
      *it = saved;
      walk(root, *it);
    }
    if (node.is_object()) {
      std::vector<std::string> keys;
      for (auto it = node.begin(); it != node.end(); ++it) keys.push_back(it.key());
      for (const std::string& k : keys) {
        json saved = node[k];
        node.erase(k);
        f(root);
        node[k] = saved;
      }
    }
  };
  json copy = j;
  walk(copy, copy);
}

const std::vector<std::string>& PodFields() {
  static const std::vector<std::string> f = {
      "metadata.name", "metadata.namespace", "spec.nodeName", "spec.host",
      "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
      "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"};
  return f;
}

// The view answers every printer and selector as the object does.
void ExpectSame(const Resource& r, const json& object) {
  const json view = StoredView(r, object);
  // The overload that takes the object apart (the store's create path) builds the same view.
  json taken = object;
  const json moved_view = StoredView(r, std::move(taken));
  ASSERT_EQ(moved_view.dump(), view.dump());
  const std::string text = object.dump(-1, ' ', false, json::error_handler_t::replace);
  for (auto include : {printers::IncludeObject::kMetadata, printers::IncludeObject::kNone,
                       printers::IncludeObject::kObject}) {
    const std::string want =
        printers::BuildTable(r.group, r.resource, {&object}, "7", kNow, include, true)
            .dump(-1, ' ', false, json::error_handler_t::replace);
    ASSERT_EQ(printers::BuildTableText(r.group, r.resource, {{&view, text}}, "7", kNow, include,
                                       true),
              want)
        << r.resource << " " << text;
  }
  std::vector<std::string> fields = {"metadata.name", "metadata.namespace"};
  if (r.group.empty() && r.resource == "pods") fields = PodFields();
  if (r.group.empty() && r.resource == "nodes") fields.push_back("spec.unschedulable");
  for (const std::string& f : fields) {
    ASSERT_EQ(selectors::FieldValue(r.group, r.resource, view, f),
              selectors::FieldValue(r.group, r.resource, object, f))
        << f << " " << text;
  }
  const json* labels = object.is_object() && object.contains("metadata") &&
                               object["metadata"].is_object() &&
                               object["metadata"].contains("labels")
                           ? &object["metadata"]["labels"]
                           : nullptr;
  if (labels != nullptr) {
    ASSERT_EQ(view["metadata"]["labels"], *labels);
  }
}

TEST(StoredViewTest, DropsManagedFieldsLastAppliedAndPodSpecDetails) {
  const Resource& pods = *FindResource("", "v1", "pods");
  const json pod = Pods()[1];
  const json view = StoredView(pods, pod);
  EXPECT_FALSE(view["metadata"].contains("managedFields"));
  EXPECT_EQ(view["metadata"]["annotations"], json({{"other", "x"}}));
  EXPECT_EQ(view["spec"], json::parse(R"({"containers":[{}],"nodeName":"n1",)"
                                      R"("restartPolicy":"Always","schedulerName":)"
                                      R"("default-scheduler","serviceAccountName":"sa",)"
                                      R"("hostNetwork":true})"));
  EXPECT_EQ(view["status"], pod["status"]);
  json only_last_applied = pod;
  only_last_applied["metadata"]["annotations"].erase("other");
  EXPECT_FALSE(StoredView(pods, only_last_applied)["metadata"].contains("annotations"));
  // Other kinds keep their spec.
  const Resource& deployments = *FindResource("apps", "v1", "deployments");
  json d = {{"metadata", {{"name", "d"}, {"managedFields", json::array()}}},
            {"spec", {{"replicas", 2}, {"template", {{"spec", {{"containers", json::array()}}}}}}}};
  EXPECT_EQ(StoredView(deployments, d),
            json({{"metadata", {{"name", "d"}}}, {"spec", d["spec"]}}));
}

TEST(StoredViewTest, PodsAndVariantsPrintAndSelectAlike) {
  const Resource& pods = *FindResource("", "v1", "pods");
  size_t n = 0;
  for (const json& pod : Pods()) {
    ExpectSame(pods, pod);
    Variants(pod, [&](const json& v) {
      ++n;
      ExpectSame(pods, v);
    });
  }
  EXPECT_GT(n, 1000u);
}

TEST(StoredViewTest, RepositoryObjectsAndVariantsPrintAndSelectAlike) {
  size_t objects = 0;
  for (const json& o : RepositoryObjects()) {
    const Resource* r =
        FindResourceByKind(o.value("apiVersion", ""), o.value("kind", ""));
    if (r == nullptr) continue;
    ++objects;
    json stored = o;
    stored["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}}});
    stored["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
        o.dump();
    ExpectSame(*r, stored);
    Variants(stored, [&](const json& v) { ExpectSame(*r, v); });
  }
  EXPECT_GE(objects, 10u);
}

}  // namespace
}  // namespace tidepool::apiserver
