#include "apiserver/api_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "apiserver/api_server_test_util.h"
#include "apiserver/discovery.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/printers/printers.h"
#include "apiserver/protobuf/decode.h"
#include "apiserver/protobuf/encode.h"
#include "apiserver/protobuf/wire.h"
#include "common/base64.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

constexpr char kGoodPod[] = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-test-pod"},
 "spec":{"restartPolicy":"Never","containers":[{"name":"cuda","image":"nvidia/cuda:11.4.2-base-ubuntu20.04",
 "resources":{"limits":{"nvidia.com/gpu":1}}}],
 "tolerations":[{"key":"nvidia.com/gpu","operator":"Equal","value":"present","effect":"NoSchedule"}]}})";

TEST_F(ApiServerTest, ComponentStatusesAreServedDeprecated) {
  const std::string warning = R"(299 - "v1 ComponentStatus is deprecated in v1.19+")";
  auto list = Do("GET", "/api/v1/componentstatuses");
  ASSERT_EQ(list.code, 200) << list.body;
  EXPECT_EQ(
      list.body,
      R"({"apiVersion":"v1","items":[)"
      R"({"apiVersion":"v1","conditions":[{"message":"ok","status":"True","type":"Healthy"}],"kind":"ComponentStatus","metadata":{"creationTimestamp":null,"name":"controller-manager"}},)"
      R"({"apiVersion":"v1","conditions":[{"message":"ok","status":"True","type":"Healthy"}],"kind":"ComponentStatus","metadata":{"creationTimestamp":null,"name":"etcd-0"}},)"
      R"({"apiVersion":"v1","conditions":[{"message":"ok","status":"True","type":"Healthy"}],"kind":"ComponentStatus","metadata":{"creationTimestamp":null,"name":"scheduler"}}],)"
      R"("kind":"ComponentStatusList","metadata":{}})");
  ASSERT_EQ(list.headers.size(), 1u);
  EXPECT_EQ(list.headers[0], std::make_pair(std::string("Warning"), warning));
  auto one = Do("GET", "/api/v1/componentstatuses/scheduler");
  EXPECT_EQ(one.code, 200);
  EXPECT_EQ(one.Json()["metadata"]["name"], "scheduler");
  auto missing = Do("GET", "/api/v1/componentstatuses/nope");
  EXPECT_EQ(missing.code, 500);
  EXPECT_EQ(missing.Json()["message"], "Component not found: nope");
  EXPECT_FALSE(missing.Json().contains("reason"));
  EXPECT_EQ(Do("GET", "/api/v1/componentstatuses?watch=true").code, 405);
  EXPECT_EQ(Do("DELETE", "/api/v1/componentstatuses/etcd-0").code, 405);
  // kubectl get cs: the server's table.
  auto table = Do("GET", "/api/v1/componentstatuses", "",
                  {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(table.code, 200) << table.body;
  const json t = table.Json();
  std::vector<std::string> columns;
  for (const json& col : t["columnDefinitions"]) columns.push_back(col["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Status", "Message", "Error"}));
  EXPECT_EQ(t["rows"][1]["cells"], json::parse(R"(["etcd-0", "Healthy", "ok", ""])"));
  // Discovery: get and list, short name cs, no storageVersionHash (never stored).
  bool found = false;
  const json core = Do("GET", "/api/v1").Json();
  for (const json& r : core["resources"]) {
    if (r["name"] != "componentstatuses") continue;
    found = true;
    EXPECT_EQ(r["verbs"], json::parse(R"(["get","list"])"));
    EXPECT_EQ(r["shortNames"], json::parse(R"(["cs"])"));
    EXPECT_FALSE(r.contains("storageVersionHash"));
  }
  EXPECT_TRUE(found);
}

TEST_F(ApiServerTest, VersionAndDiscovery) {
  auto v = Do("GET", "/version?timeout=5s");
  EXPECT_EQ(v.code, 200);
  EXPECT_EQ(v.Json()["minor"], "32");
  EXPECT_EQ(v.Json()["gitVersion"], "v1.32.4-gke.1106006");  // as GKE's control plane says
  auto agg = Do("GET", "/api", "",
                {{"accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"}});
  EXPECT_EQ(agg.type, kAggregatedDiscoveryType);
  EXPECT_EQ(agg.Json()["items"][0]["versions"][0]["resources"].size(), 16u);
  auto legacy = Do("GET", "/api/v1");
  ASSERT_EQ(legacy.code, 200) << legacy.body;
  bool eviction = false;
  const json legacy_list = legacy.Json();
  for (const json& r : legacy_list["resources"]) {
    if (r["name"] == "pods/eviction") {
      eviction = r["group"] == "policy" && r["version"] == "v1" && r["kind"] == "Eviction";
    }
  }
  EXPECT_TRUE(eviction);
  auto root = Do("GET", "/openapi/v3");
  const std::string url = root.Json()["paths"]["api/v1"]["serverRelativeURL"];
  auto doc = Do("GET", url);
  EXPECT_EQ(doc.code, 200);
  const json document = doc.Json();
  const json& patch = document["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"]["kind"], "Pod");
  EXPECT_FALSE(patch.contains("requestBody"));
}

// core/v1 and events.k8s.io/v1 Events are one resource, kept in core's form, as kube-apiserver
// keeps them: an Event written through either API is read, listed, selected and watched through
// both, with each API's field names and Go's encoding of its empty fields.
TEST_F(ApiServerTest, EventsOfBothApisAreOneResource) {
  const json v1 = json::parse(R"({"apiVersion": "events.k8s.io/v1", "kind": "Event",
    "metadata": {"name": "gpu-pod.1"},
    "eventTime": "2026-01-01T00:05:00.000000Z", "reportingController": "kueue-admission",
    "reportingInstance": "kueue-admission-0", "action": "Admit", "reason": "Admitted",
    "type": "Normal", "regarding": {"kind": "Pod", "namespace": "default", "name": "gpu-pod"},
    "note": "Admitted by ClusterQueue gpu"})");
  auto created = Do(
      "POST", "/apis/events.k8s.io/v1/namespaces/default/events?fieldManager=kueue", v1.dump());
  ASSERT_EQ(created.code, 201) << created.body;
  const json answer = created.Json();
  EXPECT_EQ(answer["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(answer["note"], "Admitted by ClusterQueue gpu");
  EXPECT_EQ(answer["deprecatedSource"], json::object());
  EXPECT_TRUE(answer["deprecatedFirstTimestamp"].is_null());
  EXPECT_FALSE(answer.contains("message"));

  const json core = Do("GET", "/api/v1/namespaces/default/events/gpu-pod.1").Json();
  EXPECT_EQ(core["apiVersion"], "v1");
  EXPECT_EQ(core["message"], "Admitted by ClusterQueue gpu");
  EXPECT_EQ(core["involvedObject"]["name"], "gpu-pod");
  EXPECT_EQ(core["reportingComponent"], "kueue-admission");
  EXPECT_EQ(core["reportingInstance"], "kueue-admission-0");
  EXPECT_EQ(core["source"], json::object());
  EXPECT_TRUE(core["firstTimestamp"].is_null());
  for (const char* k : {"note", "regarding", "reportingController", "deprecatedSource"}) {
    EXPECT_FALSE(core.contains(k)) << k;
  }
  // The pod's events as `kubectl describe pod` asks for them (core, by involvedObject).
  const json selected = Do("GET",
                           "/api/v1/namespaces/default/events?fieldSelector="
                           "involvedObject.name%3Dgpu-pod")
                            .Json();
  ASSERT_EQ(selected["items"].size(), 1u);

  // A core Event read through events.k8s.io.
  const json old_api = json::parse(R"({"apiVersion": "v1", "kind": "Event",
    "metadata": {"name": "gpu-pod.2"}, "reason": "Pulled", "type": "Normal", "count": 3,
    "message": "Container image pulled", "source": {"component": "kubelet", "host": "node-1"},
    "firstTimestamp": "2026-01-01T00:01:00Z", "lastTimestamp": "2026-01-01T00:04:00Z",
    "involvedObject": {"kind": "Pod", "namespace": "default", "name": "gpu-pod"}})");
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/events", old_api.dump()).code, 201);
  const json as_v1 = Do("GET", "/apis/events.k8s.io/v1/namespaces/default/events/gpu-pod.2").Json();
  EXPECT_EQ(as_v1["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(as_v1["note"], "Container image pulled");
  EXPECT_EQ(as_v1["deprecatedCount"], 3);
  EXPECT_EQ(as_v1["deprecatedSource"]["host"], "node-1");
  EXPECT_EQ(as_v1["deprecatedLastTimestamp"], "2026-01-01T00:04:00Z");
  EXPECT_TRUE(as_v1["eventTime"].is_null());
  EXPECT_FALSE(as_v1.contains("reportingController"));  // "" in core, omitted here
  // Both in either list, selected by either API's names.
  EXPECT_EQ(Do("GET", "/apis/events.k8s.io/v1/namespaces/default/events").Json()["items"].size(),
            2u);
  const json by_regarding = Do("GET",
                               "/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector="
                               "regarding.name%3Dgpu-pod,reportingController%3Dkueue-admission")
                                .Json();
  ASSERT_EQ(by_regarding["items"].size(), 1u);
  EXPECT_EQ(by_regarding["items"][0]["metadata"]["name"], "gpu-pod.1");
  EXPECT_EQ(by_regarding["items"][0]["apiVersion"], "events.k8s.io/v1");
  // A merge patch through events.k8s.io changes the one object.
  auto patched = Do("PATCH", "/apis/events.k8s.io/v1/namespaces/default/events/gpu-pod.2",
                    R"({"note": "pulled again", "deprecatedCount": 4})",
                    {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(patched.code, 200) << patched.body;
  const json after = Do("GET", "/api/v1/namespaces/default/events/gpu-pod.2").Json();
  EXPECT_EQ(after["message"], "pulled again");
  EXPECT_EQ(after["count"], 4);

  // What the request's version says: the creator's managedFields, a table row's object, the
  // NotFound's resource.
  ASSERT_EQ(answer["metadata"].value("managedFields", json()).size(), 1u) << answer.dump();
  const json entry = answer["metadata"]["managedFields"][0];
  EXPECT_EQ(entry["apiVersion"], "events.k8s.io/v1");
  EXPECT_TRUE(entry["fieldsV1"].contains("f:note")) << entry.dump();
  EXPECT_TRUE(entry["fieldsV1"].contains("f:regarding")) << entry.dump();
  auto table = Do("GET", "/apis/events.k8s.io/v1/namespaces/default/events?includeObject=Object",
                  "", {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  ASSERT_EQ(table.code, 200) << table.body;
  for (const json& row : table.Json()["rows"]) {
    EXPECT_EQ(row["object"]["apiVersion"], "events.k8s.io/v1");
    EXPECT_TRUE(row["object"].contains("note"));
  }
  auto missing = Do("GET", "/apis/events.k8s.io/v1/namespaces/default/events/nope");
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.Json()["message"], "events.events.k8s.io \"nope\" not found");
}

// autoscaling serves HorizontalPodAutoscalers in v2 (stored, preferred) and v1, one object for
// both, converted as kube-apiserver converts them (v1's CPU target is a v2 Resource metric; what
// v1 cannot say travels in annotations).
TEST_F(ApiServerTest, HorizontalPodAutoscalersInTwoVersions) {
  const json group = Do("GET", "/apis/autoscaling").Json();
  EXPECT_EQ(group["preferredVersion"]["version"], "v2");
  ASSERT_EQ(group["versions"].size(), 2u);
  EXPECT_EQ(group["versions"][1]["groupVersion"], "autoscaling/v1");

  const json v1 = json::parse(R"({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
             "maxReplicas": 4, "targetCPUUtilizationPercentage": 50}})");
  auto created =
      Do("POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", v1.dump());
  ASSERT_EQ(created.code, 201) << created.body;
  EXPECT_EQ(created.Json()["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(created.Json()["spec"]["minReplicas"], 1);
  EXPECT_EQ(created.Json()["spec"]["targetCPUUtilizationPercentage"], 50);
  EXPECT_EQ(created.Json()["status"],
            json::parse(R"({"currentReplicas": 0, "desiredReplicas": 0})"));
  const json as_v2 =
      Do("GET", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web").Json();
  EXPECT_EQ(as_v2["apiVersion"], "autoscaling/v2");
  EXPECT_EQ(as_v2["spec"]["metrics"], json::parse(R"([{"type": "Resource", "resource": {"name":
      "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}])"));
  EXPECT_FALSE(as_v2["metadata"].contains("annotations"));

  // A v2 object with what v1 cannot say: read in v1, it carries kube's round-trip annotations.
  const json v2 = json::parse(R"({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "gpu"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "infer"},
             "minReplicas": 2, "maxReplicas": 8,
             "metrics": [{"type": "Resource", "resource": {"name": "memory",
                          "target": {"type": "AverageValue", "averageValue": "2Gi"}}}],
             "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}})");
  ASSERT_EQ(
      Do("POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", v2.dump())
          .code,
      201);
  const std::string v1_path =
      "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/gpu";
  json got = Do("GET", v1_path).Json();
  EXPECT_FALSE(got["spec"].contains("targetCPUUtilizationPercentage"));
  EXPECT_EQ(got["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"],
            R"([{"type":"Resource","resource":{"name":"memory","targetAverageValue":"2Gi"}}])");
  EXPECT_TRUE(got["metadata"]["annotations"].contains("autoscaling.alpha.kubernetes.io/behavior"));
  // A v1 round trip (PUT of what was read) keeps the v2 metric and behavior.
  got["spec"]["maxReplicas"] = 9;
  auto put = Do("PUT", v1_path, got.dump());
  ASSERT_EQ(put.code, 200) << put.body;
  const json after =
      Do("GET", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/gpu").Json();
  EXPECT_EQ(after["spec"]["maxReplicas"], 9);
  EXPECT_EQ(after["spec"]["metrics"], v2["spec"]["metrics"]);
  EXPECT_EQ(after["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"], 60);
  EXPECT_FALSE(after["metadata"].contains("annotations"));
  // A v1 merge patch.
  auto patched = Do("PATCH", v1_path, R"({"spec": {"minReplicas": 3}})",
                    {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(patched.code, 200) << patched.body;
  EXPECT_EQ(patched.Json()["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(patched.Json()["spec"]["minReplicas"], 3);
  // Lists in either version hold both, each in that version.
  const json list =
      Do("GET", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers").Json();
  ASSERT_EQ(list["items"].size(), 2u);
  EXPECT_EQ(list["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(list["items"][0]["apiVersion"], "autoscaling/v1");
  // Validation happens in the storage version, with kube's texts.
  json bad = v1;
  bad["metadata"]["name"] = "bad";
  bad["spec"]["minReplicas"] = 5;
  auto refused =
      Do("POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", bad.dump());
  EXPECT_EQ(refused.code, 422);
  EXPECT_EQ(refused.Json()["message"],
            "HorizontalPodAutoscaler.autoscaling \"bad\" is invalid: spec.maxReplicas: Invalid "
            "value: 4: must be greater than or equal to `minReplicas`");
}

// kubectl auth can-i / whoami: reviews are answered (everything is allowed) and never stored.
TEST_F(ApiServerTest, ReviewsAreAnsweredNotStored) {
  auto ssar = Do("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                 R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1",
                     "metadata":{},"spec":{"resourceAttributes":{"namespace":"default",
                     "verb":"create","resource":"pods"}}})");
  ASSERT_EQ(ssar.code, 201) << ssar.body;
  EXPECT_EQ(ssar.Json()["status"], json::parse(R"({"allowed": true})"));
  EXPECT_TRUE(ssar.Json()["metadata"]["creationTimestamp"].is_null());
  auto none =
      Do("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
         R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":{}})");
  EXPECT_EQ(none.code, 422);
  EXPECT_EQ(
      none.Json()["message"],
      "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: "
      "Required value: exactly one of nonResourceAttributes or resourceAttributes must be "
      "specified");
  auto who = Do("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1"})");
  ASSERT_EQ(who.code, 201) << who.body;
  EXPECT_EQ(who.Json()["status"]["userInfo"]["username"], "system:anonymous");
  auto admin = Do("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                  R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1"})",
                  {{"authorization", "Bearer t0ken"}});
  EXPECT_EQ(admin.Json()["status"]["userInfo"], json::parse(R"({"username": "tidepool-admin",
      "groups": ["system:masters", "system:authenticated"]})"));
  auto rules = Do("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                  R"({"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1",
                      "spec":{"namespace":"default"}})");
  ASSERT_EQ(rules.code, 201) << rules.body;
  EXPECT_EQ(rules.Json()["status"]["resourceRules"][0]["verbs"][0], "*");
  EXPECT_EQ(Do("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews").code, 405);
  // Wrong types are the decoder's 400, not an internal error.
  for (
      const char* body :
      {R"({"kind":"LocalSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":"x"})",
       R"({"kind":"LocalSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":"x"})",
       R"({"kind":"LocalSubjectAccessReview","apiVersion":"authorization.k8s.io/v1",
            "spec":{"resourceAttributes":{"namespace":7}}})",
       R"({"kind":"LocalSubjectAccessReview","apiVersion":"authorization.k8s.io/v1",
            "spec":{"resourceAttributes":null,"user":"u"}})"}) {
    auto r = Do("POST",
                "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", body);
    EXPECT_TRUE(r.code == 400 || r.code == 422) << body << " -> " << r.body;
    EXPECT_NE(r.Json()["reason"], "InternalError") << body;
  }
}

// pods/log's options as the kubelet reads them: lines stamped when written, sinceSeconds /
// sinceTime, timestamps, limitBytes, tailLines; ValidatePodLogOptions' texts; previous.
TEST_F(ApiServerTest, PodLogOptions) {
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", kGoodPod).code, 201);
  const std::string pod = "/api/v1/namespaces/default/pods/gpu-test-pod";
  auto running = Do("PATCH", pod + "/status",
                    R"({"status":{"containerStatuses":[{"name":"cuda","ready":true,"restartCount":0,
                        "image":"x","imageID":"","state":{"running":{}}}]}})",
                    {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(running.code, 200) << running.body;
  const TimePoint t0 = clock_.Now();
  logs_.Append("default", "gpu-test-pod", "cuda", "one\ntwo\n");
  clock_.Advance(std::chrono::seconds(30));
  logs_.Append("default", "gpu-test-pod", "cuda", "three\n");
  clock_.Advance(std::chrono::milliseconds(1500));
  EXPECT_EQ(Do("GET", pod + "/log").body, "one\ntwo\nthree\n");
  EXPECT_EQ(Do("GET", pod + "/log?sinceSeconds=10").body, "three\n");
  EXPECT_EQ(Do("GET", pod + "/log?sinceTime=" + FormatRfc3339(t0 + std::chrono::seconds(1))).body,
            "three\n");
  EXPECT_EQ(Do("GET", pod + "/log?tailLines=2&limitBytes=6").body, "two\nth");
  EXPECT_EQ(Do("GET", pod + "/log?tailLines=1&timestamps=true").body,
            FormatRfc3339(t0 + std::chrono::seconds(30)) + " three\n");
  auto bad = Do("GET", pod + "/log?limitBytes=0&sinceSeconds=0");
  EXPECT_EQ(bad.code, 422);
  EXPECT_EQ(bad.Json()["message"],
            "PodLogOptions \"gpu-test-pod\" is invalid: [limitBytes: Invalid value: 0: must be "
            "greater than 0, sinceSeconds: Invalid value: 0: must be greater than 0]");
  for (const char* q : {"?sinceSeconds=abc", "?tailLines=1x", "?sinceTime=yesterday",
                        "?limitBytes=99999999999999999999"}) {
    EXPECT_EQ(Do("GET", pod + "/log" + q).code, 400) << q;
  }
  auto previous = Do("GET", pod + "/log?previous=true");
  EXPECT_EQ(previous.code, 400);
  EXPECT_EQ(previous.Json()["message"],
            "previous terminated container \"cuda\" in pod \"gpu-test-pod\" not found");
}

// metrics.k8s.io (kubectl top): running pods use what they request, or what they declare.
TEST_F(ApiServerTest, MetricsFromEmulatedUsage) {
  ASSERT_EQ(
      Do("POST", "/api/v1/nodes",
         R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"pool":"gpu"}}})")
          .code,
      201);
  auto pod = [&](const std::string& name, const std::string& annotations) {
    json p =
        json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","labels":{"app":"a"}},
      "spec":{"nodeName":"n1","containers":[{"name":"c","image":"i",
              "resources":{"requests":{"cpu":"250m","memory":"64Mi"}}}]}})");
    p["metadata"]["name"] = name;
    if (!annotations.empty()) p["metadata"]["annotations"] = json::parse(annotations);
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", p.dump()).code, 201);
    ASSERT_EQ(
        Do("PATCH", "/api/v1/namespaces/default/pods/" + name + "/status",
           R"({"status":{"phase":"Running"}})", {{"content-type", "application/merge-patch+json"}})
            .code,
        200);
  };
  pod("req", "");
  pod("declared", R"({"tidepool.dev/cpu-usage":"1500m","tidepool.dev/memory-usage":"1Gi"})");
  const json list = Do("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods").Json();
  EXPECT_EQ(list["kind"], "PodMetricsList");
  ASSERT_EQ(list["items"].size(), 2u);
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "declared");
  EXPECT_EQ(list["items"][0]["containers"][0]["usage"],
            json::parse(R"({"cpu":"1500000000n","memory":"1048576Ki"})"));
  EXPECT_EQ(list["items"][1]["containers"][0]["usage"],
            json::parse(R"({"cpu":"250000000n","memory":"65536Ki"})"));
  const json node = Do("GET", "/apis/metrics.k8s.io/v1beta1/nodes/n1").Json();
  EXPECT_EQ(node["kind"], "NodeMetrics");
  EXPECT_EQ(node["usage"], json::parse(R"({"cpu":"1750000000n","memory":"1114112Ki"})"));
  EXPECT_EQ(node["metadata"]["labels"]["pool"], "gpu");
  EXPECT_EQ(Do("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Db")
                .Json()["items"]
                .size(),
            0u);
  auto missing = Do("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope");
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.Json()["message"], "podmetrics.metrics.k8s.io \"default/nope\" not found");
}

TEST_F(ApiServerTest, StrictDecodingAndValidationErrors) {
  json bad = json::parse(kGoodPod);
  bad["spec"]["tolerations"][0].erase("key");
  bad["spec"]["tolerations"][0]["important"] = "nvidia.com/gpu";
  auto strict = Do("POST", "/api/v1/namespaces/default/pods?fieldManager=kubectl-client-side-apply&fieldValidation=Strict", bad.dump());
  EXPECT_EQ(strict.code, 400);
  EXPECT_EQ(strict.Json()["message"],
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.tolerations[0].important\"");
  EXPECT_EQ(strict.Json()["reason"], "BadRequest");
  auto ignore = Do("POST", "/api/v1/namespaces/default/pods?fieldValidation=Ignore", bad.dump());
  EXPECT_EQ(ignore.code, 422);
  const json st = ignore.Json();
  EXPECT_EQ(st["reason"], "Invalid");
  EXPECT_EQ(st["details"]["kind"], "Pod");
  EXPECT_EQ(st["details"]["causes"][0]["field"], "spec.tolerations[0].operator");
  EXPECT_EQ(st["details"]["causes"][0]["message"],
            "Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"");
  auto warn = Do("POST", "/api/v1/namespaces/default/pods?fieldValidation=Warn", bad.dump());
  ASSERT_FALSE(warn.headers.empty());
  EXPECT_EQ(warn.headers[0].second, "299 - \"unknown field \\\"spec.tolerations[0].important\\\"\"");
}

TEST_F(ApiServerTest, CreateGetTableAndDefaults) {
  auto c = Do("POST", "/api/v1/namespaces/default/pods?fieldManager=kubectl-client-side-apply&fieldValidation=Strict", kGoodPod);
  ASSERT_EQ(c.code, 201) << c.body;
  const json pod = c.Json();
  // Sent as the number 1: a quantity, stored as its canonical string.
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"], "1");
  // + not-ready, unreachable, and GKE's nvidia.com/gpu Exists (the sent one is Equal/present)
  EXPECT_EQ(pod["spec"]["tolerations"].size(), 4u);
  EXPECT_EQ(pod["status"]["phase"], "Pending");
  EXPECT_EQ(pod["metadata"]["managedFields"][0]["manager"], "kubectl-client-side-apply");
  // The entry's FieldsV1 is written by the store from its text: the same as the general
  // path computes for the object (the answer minus what the server added), and the same
  // bytes when read back.
  json sent = pod;
  sent["metadata"].erase("managedFields");
  const json want =
      patch::UpdateManagedFieldsGeneral(json(), sent, "kubectl-client-side-apply", TimePoint());
  EXPECT_EQ(pod["metadata"]["managedFields"][0]["fieldsV1"],
            want["metadata"]["managedFields"][0]["fieldsV1"]);
  EXPECT_TRUE(pod["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"].contains("f:containers"));
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/gpu-test-pod").body, c.body);
  auto t = Do("GET", "/api/v1/namespaces/default/pods?limit=500", "",
              {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
  const json table = t.Json();
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["rows"][0]["cells"][0], "gpu-test-pod");
  EXPECT_EQ(table["rows"][0]["cells"][2], "Pending");
  EXPECT_EQ(table["rows"][0]["object"]["metadata"]["namespace"], "default");
  auto nf = Do("GET", "/api/v1/namespaces/default/pods/nope");
  EXPECT_EQ(nf.code, 404);
  EXPECT_EQ(nf.Json()["details"]["kind"], "pods");
  auto nons = Do("POST", "/api/v1/namespaces/nope/configmaps",
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}})");
  EXPECT_EQ(nons.code, 404);
  EXPECT_EQ(nons.Json()["message"], "namespaces \"nope\" not found");
}

TEST_F(ApiServerTest, PatchesAndConflicts) {
  ASSERT_EQ(Do("POST", "/api/v1/nodes", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}})").code, 201);
  auto label = Do("PATCH", "/api/v1/nodes/n1?fieldManager=kubectl-label",
                  R"({"metadata":{"labels":{"accelerator":"h200"}}})",
                  {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(label.code, 200) << label.body;
  EXPECT_EQ(label.Json()["metadata"]["labels"]["accelerator"], "h200");
  auto cordon = Do("PATCH", "/api/v1/nodes/n1", R"({"spec":{"unschedulable":true}})",
                   {{"content-type", "application/strategic-merge-patch+json"}});
  EXPECT_EQ(cordon.Json()["spec"]["unschedulable"], true);
  auto uncordon = Do("PATCH", "/api/v1/nodes/n1", R"({"spec":{"unschedulable":null}})",
                     {{"content-type", "application/strategic-merge-patch+json"}});
  EXPECT_FALSE(uncordon.Json()["spec"].contains("unschedulable"));
  auto stale = Do("PUT", "/api/v1/nodes/n1",
                  R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","resourceVersion":"1"}})");
  EXPECT_EQ(stale.code, 409);
  EXPECT_EQ(stale.Json()["reason"], "Conflict");
  auto unsupported = Do("PATCH", "/api/v1/nodes/n1", "{}", {{"content-type", "text/plain"}});
  EXPECT_EQ(unsupported.code, 415);
  // Server-side apply creates, and a partial apply merges.
  auto ssa = Do("PATCH", "/api/v1/namespaces/default/configmaps/cm?fieldManager=kubectl&fieldValidation=Strict&force=false",
                R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})",
                {{"content-type", "application/apply-patch+yaml"}});
  ASSERT_EQ(ssa.code, 201) << ssa.body;
  auto partial = Do("PATCH", "/api/v1/namespaces/default/configmaps/cm?fieldManager=kubectl-last-applied",
                    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{"x":"y"}}})",
                    {{"content-type", "application/apply-patch+yaml"}});
  ASSERT_EQ(partial.code, 200) << partial.body;
  EXPECT_EQ(partial.Json()["data"]["a"], "1");
  EXPECT_EQ(partial.Json()["metadata"]["annotations"]["x"], "y");
}

// The Tables the server sends are written from the stored text (printers::BuildTableText);
// they must be byte for byte what the JSON-tree path (printers::BuildTable, then a dump) gives.
TEST_F(ApiServerTest, TablesEqualTheTreeBuiltTableOnASmallCluster) {
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods?fieldManager=kubectl-client-side-apply", kGoodPod).code, 201);
  for (int i = 0; i < 3; ++i) {
    json pod = json::parse(kGoodPod);
    pod["metadata"]["name"] = "web-" + std::to_string(i);
    pod["metadata"]["namespace"] = i == 0 ? "kube-system" : "default";
    pod["metadata"]["annotations"] = {{"x", "{\"metadata\":{\"name\":\"not-this\"}}"}};
    const std::string ns = pod["metadata"]["namespace"].get<std::string>();
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/" + ns + "/pods", pod.dump()).code, 201);
    // Label values kube-apiserver would refuse, written to the store directly: the Tables
    // must escape them alike on both paths.
    ASSERT_TRUE(store_
                    .Update(*FindResource("", "v1", "pods"), ns, pod["metadata"]["name"].get<std::string>(),
                            [](const StoredObject* cur) -> StatusOr<json> {
                              json next = cur->Parse();
                              next["metadata"]["labels"] = {{"app", "w\u00e9b"}, {"quote", "a\"b"}};
                              return next;
                            },
                            {"test", false})
                    .ok());
  }
  // A finished pod: its row carries conditions.
  auto done = store_.Update(*FindResource("", "v1", "pods"), "default", "web-1",
                            [](const StoredObject* cur) -> StatusOr<json> {
                              json next = cur->Parse();
                              next["status"]["phase"] = "Succeeded";
                              return next;
                            },
                            {"test", false});
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(Do("POST", "/api/v1/nodes", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"a":"b"}}})").code, 201);
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps",
               R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"}})").code, 201);
  const std::string kTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
  struct Case {
    std::string resource;  // core/v1
    std::string ns;        // "" for every namespace
    std::string include;   // includeObject
  };
  const std::vector<Case> cases = {
      {"pods", "", ""},           {"pods", "default", ""},    {"pods", "", "Object"},
      {"pods", "", "None"},       {"pods", "", "Metadata"},   {"nodes", "", ""},
      {"configmaps", "", ""},     {"namespaces", "", ""},     {"nodes", "", "Object"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.resource + " ns=" + tc.ns + " include=" + tc.include);
    const Resource& res = *FindResource("", "v1", tc.resource);
    std::string target = "/api/v1/" + (tc.ns.empty() ? "" : "namespaces/" + tc.ns + "/") + tc.resource;
    if (!tc.include.empty()) target += "?includeObject=" + tc.include;
    auto got = Do("GET", target, "", {{"accept", kTable}});
    ASSERT_EQ(got.code, 200) << got.body;
    auto list = store_.List(res, tc.ns);
    ASSERT_FALSE(list.items.empty());
    std::vector<json> parsed;
    for (const ObjectPtr& o : list.items) parsed.push_back(o->Parse());
    std::vector<const json*> objects;
    for (const json& o : parsed) objects.push_back(&o);
    const printers::IncludeObject include =
        tc.include == "Object" ? printers::IncludeObject::kObject
        : tc.include == "None" ? printers::IncludeObject::kNone
                               : printers::IncludeObject::kMetadata;
    const json want = printers::BuildTable(res.group, res.resource, objects,
                                           std::to_string(list.resource_version), clock_.Now(),
                                           include, true);
    EXPECT_EQ(got.body, want.dump(-1, ' ', false, json::error_handler_t::replace));
    // One object.
    const json& first = list.items[0]->Parse();
    const std::string ns = first["metadata"].value("namespace", "");
    auto one = Do("GET", "/api/v1/" + (ns.empty() ? "" : "namespaces/" + ns + "/") + tc.resource +
                             "/" + first["metadata"]["name"].get<std::string>() +
                             (tc.include.empty() ? "" : "?includeObject=" + tc.include),
                  "", {{"accept", kTable}});
    const json want_one = printers::BuildTable(
        res.group, res.resource, {&first}, std::to_string(list.items[0]->resource_version),
        clock_.Now(), include, true);
    EXPECT_EQ(one.body, want_one.dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

TEST_F(ApiServerTest, WatchWritesQueuedEventsAsOneChunkInOrder) {
  const std::string rv = std::to_string(store_.resource_version());
  for (int i = 0; i < 5; ++i) {
    json pod = json::parse(kGoodPod);
    pod["metadata"]["name"] = "p" + std::to_string(i);
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  }
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p0").code, 200);
  FakeWriter w;
  w.max_chunks = 1;  // the peer goes away after the first chunk
  http::HttpRequest req;
  req.method = "GET";
  req.path = "/api/v1/namespaces/default/pods";
  req.query = {{"watch", "true"}, {"resourceVersion", rv}};
  server_.Handle(req, w);
  std::vector<std::string> lines;
  for (size_t start = 0, nl; (nl = w.body.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(w.body.substr(start, nl - start));
  }
  ASSERT_EQ(lines.size(), 6u) << w.body;
  for (size_t i = 0; i < lines.size(); ++i) {
    const json e = json::parse(lines[i]);
    EXPECT_EQ(e["type"], i < 5 ? "ADDED" : "DELETED");
    EXPECT_EQ(e["object"]["metadata"]["resourceVersion"], std::to_string(std::stoll(rv) + 1 + static_cast<int64_t>(i)));
  }
  // Each line is {"type":…,"object":<the stored text>}.
  auto p1 = store_.Get(*FindResource("", "v1", "pods"), "default", "p1");
  ASSERT_TRUE(p1.ok());
  EXPECT_EQ(lines[1], "{\"type\":\"ADDED\",\"object\":" + (*p1)->text + "}");
}

// limit and continue as kube-apiserver pages a list: pages in key order, kube's token, the
// remaining count without selectors only, every page at the first one's revision (writes
// between pages are not seen), a token's revision gone from the history is 410 with a token
// that continues at the latest, resourceVersion "0" is the whole list, and kube's 400s.
TEST_F(ApiServerTest, ListsArePagedConsistentlyWithKubesContinueTokens) {
  for (const char* name : {"c1", "c2", "c3", "c4", "c5"}) {
    json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"labels", {{"app", "x"}}}}}};
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps", cm.dump()).code, 201);
  }
  const std::string list_rv = std::to_string(store_.resource_version());
  auto names = [](const json& list) {
    std::vector<std::string> out;
    for (const auto& i : list["items"]) out.push_back(i["metadata"]["name"]);
    return out;
  };
  const json first = json::parse(Do("GET", "/api/v1/namespaces/default/configmaps?limit=2").body);
  EXPECT_EQ(names(first), (std::vector<std::string>{"c1", "c2"}));
  EXPECT_EQ(first["metadata"]["resourceVersion"], list_rv);
  EXPECT_EQ(first["metadata"]["remainingItemCount"], 3);
  const std::string token = first["metadata"]["continue"];
  EXPECT_EQ(Base64Decode(token, Base64Encoding::kRawUrl).value(),
            R"({"v":"meta.k8s.io/v1","rv":)" + list_rv + R"(,"start":"default/c2\u0000"})");

  // Writes between pages: the next pages still show the list as it was.
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/configmaps/c3").code, 200);
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps",
               R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c35"}})")
                .code,
            201);
  ASSERT_EQ(Do("PATCH", "/api/v1/namespaces/default/configmaps/c4", R"({"data":{"k":"v"}})",
               {{"content-type", "application/merge-patch+json"}})
                .code,
            200);
  const json second = json::parse(
      Do("GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=" + token).body);
  EXPECT_EQ(names(second), (std::vector<std::string>{"c3", "c4"}));
  EXPECT_FALSE(second["items"][1].contains("data"));
  EXPECT_EQ(second["metadata"]["resourceVersion"], list_rv);
  const json third =
      json::parse(Do("GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=" +
                                second["metadata"]["continue"].get<std::string>())
                      .body);
  EXPECT_EQ(names(third), (std::vector<std::string>{"c5"}));
  EXPECT_FALSE(third["metadata"].contains("continue"));
  EXPECT_FALSE(third["metadata"].contains("remainingItemCount"));

  // A selector: pages of matching objects, no remaining count.
  const json selected = json::parse(
      Do("GET", "/api/v1/namespaces/default/configmaps?limit=1&labelSelector=app%3Dx").body);
  EXPECT_EQ(names(selected), (std::vector<std::string>{"c1"}));
  EXPECT_TRUE(selected["metadata"].contains("continue"));
  EXPECT_FALSE(selected["metadata"].contains("remainingItemCount"));
  // resourceVersion=0 is the watch cache's whole list; a Table page carries the token.
  EXPECT_EQ(
      names(json::parse(
                Do("GET", "/api/v1/namespaces/default/configmaps?limit=1&resourceVersion=0").body))
          .size(),
      5u);
  const json table = json::parse(Do("GET", "/api/v1/namespaces/default/configmaps?limit=4", "",
                                    {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}})
                                     .body);
  EXPECT_EQ(table["rows"].size(), 4u);
  EXPECT_EQ(table["metadata"]["remainingItemCount"], 1);
  EXPECT_TRUE(table["metadata"].contains("continue"));

  // kube's refusals.
  FakeWriter bad = Do("GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=abc");
  EXPECT_EQ(bad.code, 400);
  EXPECT_EQ(json::parse(bad.body)["message"],
            "invalid continue token: continue key is not valid: invalid character 'i' looking for "
            "beginning of value");
  FakeWriter with_rv = Do(
      "GET", "/api/v1/namespaces/default/configmaps?limit=2&resourceVersion=3&continue=" + token);
  EXPECT_EQ(with_rv.code, 400);
  EXPECT_EQ(json::parse(with_rv.body)["message"],
            "specifying resource version is not allowed when using continue");
}

TEST(ApiServerPagingTest, AContinueTokenPastTheHistoryIs410WithOneForTheLatest) {
  SimulatedClock clock;
  StoreOptions options;
  options.history_events = 2;  // the history forgets all but the last two writes
  ObjectStore store(clock, nullptr, options);
  PodLogs logs;
  ApiServer server(clock, store, logs, ApiServerOptions{"127.0.0.1:6443"});
  auto get = [&](const std::string& target) {
    http::HttpRequest req;
    req.method = "GET";
    req.target = target;
    http::SplitRequestTarget(req);
    FakeWriter w;
    server.Handle(req, w);
    return w;
  };
  const Resource& ns = *FindResource("", "v1", "namespaces");
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_TRUE(
        store
            .Create(ns,
                    {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}},
                    {})
            .ok());
  }
  const std::string token =
      json::parse(get("/api/v1/namespaces?limit=1").body)["metadata"]["continue"];
  for (const char* name : {"d", "e", "f"}) {
    ASSERT_TRUE(
        store
            .Create(ns,
                    {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}},
                    {})
            .ok());
  }
  FakeWriter expired = get("/api/v1/namespaces?limit=1&continue=" + token);
  ASSERT_EQ(expired.code, 410) << expired.body;
  const json status = json::parse(expired.body);
  EXPECT_EQ(status["reason"], "Expired");
  EXPECT_EQ(status["message"].get<std::string>().rfind(
                "The provided continue parameter is too old to display a consistent list result. "
                "You can start a new list without the continue parameter, or use the continue "
                "token in this response",
                0),
            0u);
  const std::string latest = status["metadata"]["continue"];
  EXPECT_EQ(Base64Decode(latest, Base64Encoding::kRawUrl).value(),
            R"({"v":"meta.k8s.io/v1","rv":-1,"start":"a\u0000"})");
  const json rest = json::parse(get("/api/v1/namespaces?continue=" + latest).body);
  std::vector<std::string> names;
  for (const auto& i : rest["items"]) names.push_back(i["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"b", "c", "d", "e", "f"}));
  // An exact list at a revision the history lost is 410 too; one beyond the store is kube's 504.
  EXPECT_EQ(get("/api/v1/namespaces?resourceVersion=1&resourceVersionMatch=Exact").code, 410);
  FakeWriter future = get("/api/v1/namespaces?resourceVersion=999&resourceVersionMatch=Exact");
  EXPECT_EQ(future.code, 504);
  EXPECT_EQ(json::parse(future.body)["message"],
            "Timeout: Too large resource version: 999, current: 6");
}

// A watch with a label selector sees an object that stops matching as DELETED with its previous
// state at the event's revision (kube-apiserver's cacher, convertToWatchEvent), and one that
// starts matching as ADDED.
TEST_F(ApiServerTest, AWatchSeesObjectsLeaveAndEnterItsSelection) {
  json pod = json::parse(kGoodPod);
  pod["metadata"]["labels"] = {{"app", "x"}};
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  const std::string rv = std::to_string(store_.resource_version());
  const std::string path = "/api/v1/namespaces/default/pods/gpu-test-pod";
  ASSERT_EQ(Do("PATCH", path, R"({"metadata":{"labels":{"app":"y"}}})",
               {{"content-type", "application/merge-patch+json"}})
                .code,
            200);
  ASSERT_EQ(Do("PATCH", path, R"({"metadata":{"labels":{"app":"x"}}})",
               {{"content-type", "application/merge-patch+json"}})
                .code,
            200);
  FakeWriter w;
  w.max_chunks = 1;
  http::HttpRequest req;
  req.method = "GET";
  req.path = "/api/v1/namespaces/default/pods";
  req.query = {{"watch", "true"}, {"resourceVersion", rv}, {"labelSelector", "app=x"}};
  server_.Handle(req, w);
  std::vector<json> events;
  for (size_t start = 0, nl; (nl = w.body.find('\n', start)) != std::string::npos; start = nl + 1) {
    events.push_back(json::parse(w.body.substr(start, nl - start)));
  }
  ASSERT_EQ(events.size(), 2u) << w.body;
  EXPECT_EQ(events[0]["type"], "DELETED");
  EXPECT_EQ(events[0]["object"]["metadata"]["labels"]["app"], "x");  // as it was
  EXPECT_EQ(events[0]["object"]["metadata"]["resourceVersion"], std::to_string(std::stoll(rv) + 1));
  EXPECT_EQ(events[1]["type"], "ADDED");
  EXPECT_EQ(events[1]["object"]["metadata"]["resourceVersion"], std::to_string(std::stoll(rv) + 2));
}

TEST_F(ApiServerTest, WatchSendsTableRowsAfterTheListRevision) {
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", kGoodPod).code, 201);
  const std::string rv = std::to_string(store_.resource_version());
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/gpu-test-pod").code, 200);
  FakeWriter w;
  w.max_chunks = 1;
  http::HttpRequest req;
  req.method = "GET";
  req.path = "/api/v1/namespaces/default/pods";
  req.query = {{"watch", "true"}, {"resourceVersion", rv}};
  req.headers = {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}};
  server_.Handle(req, w);
  const json e = json::parse(w.body);  // one event line
  EXPECT_EQ(e["type"], "DELETED");
  EXPECT_EQ(e["object"]["kind"], "Table");
  EXPECT_EQ(e["object"]["rows"].size(), 1u);
  EXPECT_FALSE(e["object"]["columnDefinitions"].is_null());
}

}  // namespace
TEST_F(ApiServerTest, DeleteAndEvictionDeleteABoundPodGracefully) {
  // A bound pod is not removed at once: it gets deletionTimestamp and
  // deletionGracePeriodSeconds (the request's grace period, else the pod's, else 30 s); a
  // shorter grace period shortens a deletion in progress, a longer one does not; grace 0 or an
  // unbound pod is removed at once. DELETE and eviction follow the same rules.
  auto make = [&](const std::string& name, bool bound, std::optional<int> pod_grace) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
    if (bound) pod["spec"]["nodeName"] = "n1";
    if (pod_grace) pod["spec"]["terminationGracePeriodSeconds"] = *pod_grace;
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  };
  auto del = [&](const std::string& name, bool evict, std::optional<int> grace) {
    json options = json::object();
    if (grace) options["gracePeriodSeconds"] = *grace;
    if (evict) {
      const json eviction = {{"apiVersion", "policy/v1"},
                             {"kind", "Eviction"},
                             {"metadata", {{"name", name}, {"namespace", "default"}}},
                             {"deleteOptions", options}};
      return Do("POST", "/api/v1/namespaces/default/pods/" + name + "/eviction", eviction.dump())
          .code;
    }
    return Do("DELETE", "/api/v1/namespaces/default/pods/" + name, options.dump()).code;
  };
  // The grace period the pod carries now, -1 when it is gone.
  auto grace_of = [&](const std::string& name) -> int64_t {
    FakeWriter g = Do("GET", "/api/v1/namespaces/default/pods/" + name);
    if (g.code == 404) return -1;
    return g.Json()["metadata"].value("deletionGracePeriodSeconds", int64_t{-2});
  };
  for (const bool evict : {false, true}) {
    SCOPED_TRACE(evict ? "eviction" : "DELETE");
    const std::string p = evict ? "e" : "d";
    make(p + "-default", true, std::nullopt);
    EXPECT_EQ(del(p + "-default", evict, std::nullopt), evict ? 201 : 200);
    EXPECT_EQ(grace_of(p + "-default"), 30);
    EXPECT_EQ(del(p + "-default", evict, 60), evict ? 201 : 200);  // longer: unchanged
    EXPECT_EQ(grace_of(p + "-default"), 30);
    EXPECT_EQ(del(p + "-default", evict, 5), evict ? 201 : 200);  // shorter: shortened
    EXPECT_EQ(grace_of(p + "-default"), 5);
    make(p + "-own", true, 12);
    del(p + "-own", evict, std::nullopt);
    EXPECT_EQ(grace_of(p + "-own"), 12);
    make(p + "-now", true, std::nullopt);
    del(p + "-now", evict, 0);
    EXPECT_EQ(grace_of(p + "-now"), -1);
    make(p + "-unbound", false, std::nullopt);
    del(p + "-unbound", evict, std::nullopt);
    EXPECT_EQ(grace_of(p + "-unbound"), -1);
  }
}

TEST_F(ApiServerTest, EvictionRespectsTheBudgetsWhoseSelectorsSelectThePod) {
  // Two ready pods labelled app=web; one budget over them (matchExpressions) that needs both.
  for (const char* name : {"web-1", "web-2"}) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"labels", {{"app", "web"}, {"tier", "front"}}}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
    json status = {{"status",
                    {{"phase", "Running"},
                     {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
    ASSERT_EQ(Do("PATCH", std::string("/api/v1/namespaces/default/pods/") + name + "/status",
                 status.dump(), {{"content-type", "application/merge-patch+json"}})
                  .code,
              200);
  }
  auto budget = [](const std::string& name, json selector) {
    return json{{"apiVersion", "policy/v1"},
                {"kind", "PodDisruptionBudget"},
                {"metadata", {{"name", name}}},
                {"spec", {{"minAvailable", 2}, {"selector", std::move(selector)}}}}
        .dump();
  };
  // A budget whose selector does not select the pods is no obstacle.
  ASSERT_EQ(Do("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
               budget("other", {{"matchLabels", {{"app", "db"}}}}))
                .code,
            201);
  const std::string eviction = json{{"apiVersion", "policy/v1"},
                                    {"kind", "Eviction"},
                                    {"metadata", {{"name", "web-1"}, {"namespace", "default"}}}}
                                   .dump();
  ASSERT_EQ(Do("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
               budget("web", {{"matchExpressions",
                               json::array({{{"key", "app"}, {"operator", "In"},
                                             {"values", json::array({"web", "api"})}},
                                            {{"key", "tier"}, {"operator", "Exists"}}})}}))
                .code,
            201);
  // The budget's status is the disruption controller's; until it has written one the budget
  // is "still being processed".
  FakeWriter refused = Do("POST", "/api/v1/namespaces/default/pods/web-1/eviction", eviction);
  EXPECT_EQ(refused.code, 429) << refused.body;
  EXPECT_NE(refused.body.find("The disruption budget web is still being processed by the server."),
            std::string::npos)
      << refused.body;
  const std::string web = "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web";
  auto set_status = [&](int allowed) {
    json status = {{"status",
                    {{"observedGeneration", 1},
                     {"currentHealthy", 2},
                     {"desiredHealthy", 2 - allowed},
                     {"expectedPods", 2},
                     {"disruptionsAllowed", allowed}}}};
    ASSERT_EQ(Do("PATCH", web + "/status", status.dump(),
                 {{"content-type", "application/merge-patch+json"}})
                  .code,
              200);
  };
  set_status(0);
  refused = Do("POST", "/api/v1/namespaces/default/pods/web-1/eviction", eviction);
  EXPECT_EQ(refused.code, 429) << refused.body;
  EXPECT_NE(refused.body.find("The disruption budget web needs 2 healthy pods and has 2 currently"),
            std::string::npos)
      << refused.body;
  // One disruption allowed: a dry run uses nothing; the eviction uses it and records the pod.
  set_status(1);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods/web-1/eviction?dryRun=All", eviction).code, 201);
  EXPECT_EQ(json::parse(Do("GET", web).body)["status"]["disruptionsAllowed"], 1);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods/web-1/eviction", eviction).code, 201);
  const json after = json::parse(Do("GET", web).body)["status"];
  EXPECT_EQ(after["disruptionsAllowed"], 0);
  EXPECT_TRUE(after["disruptedPods"].contains("web-1")) << after.dump();
  EXPECT_EQ(after["conditions"][0]["reason"], "InsufficientPods");
  json second = json::parse(eviction);
  second["metadata"]["name"] = "web-2";
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods/web-2/eviction", second.dump()).code, 429);
  // Two budgets over one pod: kube's 500.
  ASSERT_EQ(Do("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
               budget("web-too", {{"matchLabels", {{"app", "web"}}}}))
                .code,
            201);
  FakeWriter two = Do("POST", "/api/v1/namespaces/default/pods/web-2/eviction", second.dump());
  EXPECT_EQ(two.code, 500);
  EXPECT_NE(two.body.find("This pod has more than one PodDisruptionBudget, which the eviction "
                          "subresource does not support."),
            std::string::npos)
      << two.body;
  // Without budgets over it, the eviction goes through.
  ASSERT_EQ(Do("DELETE", web).code, 200);
  ASSERT_EQ(Do("DELETE", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web-too").code, 200);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods/web-2/eviction", second.dump()).code, 201);
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

TEST_F(ApiServerTest, ADryRunNeverWritesWhereverItIsAsked) {
  const json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "one"}}}};
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps", cm.dump()).code, 201);
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"nodeName", "n1"},
                        {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  const std::string cm_rv =
      json::parse(Do("GET", "/api/v1/namespaces/default/configmaps/one").body)["metadata"]["resourceVersion"];
  const std::string pod_rv =
      json::parse(Do("GET", "/api/v1/namespaces/default/pods/p").body)["metadata"]["resourceVersion"];
  const json dry = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"dryRun", json::array({"All"})}};
  const json eviction = {{"apiVersion", "policy/v1"},
                         {"kind", "Eviction"},
                         {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                         {"deleteOptions", dry}};
  struct Case {
    std::string name, method, target, body;
  };
  const std::vector<Case> cases = {
      {"DELETE with DeleteOptions.dryRun (kubectl delete --dry-run=server)", "DELETE",
       "/api/v1/namespaces/default/configmaps/one", dry.dump()},
      {"DELETE with ?dryRun=All", "DELETE", "/api/v1/namespaces/default/configmaps/one?dryRun=All", ""},
      {"deletecollection with DeleteOptions.dryRun", "DELETE", "/api/v1/namespaces/default/configmaps",
       dry.dump()},
      {"DELETE of a running pod with DeleteOptions.dryRun", "DELETE",
       "/api/v1/namespaces/default/pods/p", dry.dump()},
      {"an eviction whose deleteOptions ask a dry run (kubectl drain --dry-run=server)", "POST",
       "/api/v1/namespaces/default/pods/p/eviction", eviction.dump()},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeWriter out = Do(c.method, c.target, c.body);
    EXPECT_LT(out.code, 300) << out.body;
    FakeWriter cm_now = Do("GET", "/api/v1/namespaces/default/configmaps/one");
    ASSERT_EQ(cm_now.code, 200);
    EXPECT_EQ(json::parse(cm_now.body)["metadata"]["resourceVersion"], cm_rv);
    const json p = json::parse(Do("GET", "/api/v1/namespaces/default/pods/p").body);
    EXPECT_EQ(p["metadata"]["resourceVersion"], pod_rv);
    EXPECT_FALSE(p["metadata"].contains("deletionTimestamp"));
  }
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

TEST_F(ApiServerTest, ACreatedObjectsUidAndCreationTimestampAreTheServers) {
  const json client_meta = {{"creationTimestamp", "2018-08-30T14:10:58Z"},
                            {"uid", "11111111-2222-3333-4444-555555555555"},
                            {"deletionTimestamp", "2018-08-30T14:10:58Z"},
                            {"deletionGracePeriodSeconds", 30}};
  struct Case {
    std::string name, method, target, content_type;
  };
  const std::vector<Case> cases = {
      {"a", "POST", "/api/v1/namespaces/default/configmaps", "application/json"},
      {"b", "PATCH", "/api/v1/namespaces/default/configmaps/b?fieldManager=m",
       "application/apply-patch+yaml"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method);
    json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", client_meta}};
    cm["metadata"]["name"] = c.name;
    FakeWriter out = Do(c.method, c.target, cm.dump(), {{"content-type", c.content_type}});
    ASSERT_EQ(out.code, 201) << out.body;
    const json meta = json::parse(out.body)["metadata"];
    EXPECT_NE(meta["creationTimestamp"], "2018-08-30T14:10:58Z");
    EXPECT_NE(meta["uid"], "11111111-2222-3333-4444-555555555555");
    EXPECT_FALSE(meta.contains("deletionTimestamp"));
    EXPECT_FALSE(meta.contains("deletionGracePeriodSeconds"));
  }
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

TEST_F(ApiServerTest, AGpuPodToleratesItsResourcesTaintAsOnGke) {
  struct Case {
    std::string name;
    json tolerations;  // sent
    json resources;
    json want;  // the tolerations after the two node.kubernetes.io ones
  };
  const json gpu = {{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
  const std::vector<Case> cases = {
      {"limits only (requests default to them)", nullptr,
       {{"limits", {{"nvidia.com/gpu", 1}}}}, json::array({gpu})},
      {"two extended resources, in name order", nullptr,
       {{"limits", {{"nvidia.com/gpu", 1}, {"example.com/fpga", 1}, {"cpu", "1"}}}},
       json::array({{{"key", "example.com/fpga"}, {"operator", "Exists"}, {"effect", "NoSchedule"}},
                    gpu})},
      {"an equal toleration is replaced, not repeated",
       json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}),
       {{"limits", {{"nvidia.com/gpu", 1}}}}, json::array({gpu})},
      {"native and kubernetes.io resources are not extended", nullptr,
       {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}, {"example.kubernetes.io/x", 1}}}},
       json::array()},
  };
  int i = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", "g" + std::to_string(i++)}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"},
                                                        {"resources", c.resources}}})}}}};
    if (!c.tolerations.is_null()) pod["spec"]["tolerations"] = c.tolerations;
    FakeWriter out = Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
    ASSERT_EQ(out.code, 201) << out.body;
    json tol = json::parse(out.body)["spec"]["tolerations"];
    json extended = json::array();
    for (const json& t : tol) {
      if (t.value("key", "").rfind("node.kubernetes.io/", 0) != 0) extended.push_back(t);
    }
    EXPECT_EQ(extended, c.want) << tol.dump();
  }
}

// Quantities are decoded and encoded again, as kube-apiserver's resource.Quantity: stored and
// answered in their canonical form, so equal values are equal text (the QoS class compares
// them; a template's hash is of its text).
TEST_F(ApiServerTest, QuantitiesAreStoredCanonical) {
  json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "q"}}},
      {"spec",
       {{"containers",
         json::array(
             {{{"name", "c"},
               {"image", "nginx"},
               {"resources",
                {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}},
                 {"limits", {{"cpu", "0.5"}, {"memory", "1024Mi"}, {"nvidia.com/gpu", 1}}}}}}})}}}};
  FakeWriter out = Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
  ASSERT_EQ(out.code, 201) << out.body;
  const json limits = out.Json()["spec"]["containers"][0]["resources"]["limits"];
  EXPECT_EQ(limits, (json{{"cpu", "500m"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(out.Json()["status"]["qosClass"], "Guaranteed");
  // A patch and a stored read say the same.
  out = Do("PATCH", "/api/v1/namespaces/default/pods/q", R"({"spec":{"activeDeadlineSeconds":60}})",
           {{"content-type", "application/strategic-merge-patch+json"}});
  ASSERT_EQ(out.code, 200) << out.body;
  EXPECT_EQ(out.Json()["spec"]["containers"][0]["resources"]["limits"], limits);
  struct Case {
    json given;
    std::string want;
  };
  const std::vector<Case> cases = {
      {0.25, "250m"},  {"0.25", "250m"},   {"1000m", "1"}, {"1.5Gi", "1536Mi"}, {"1e3", "1e3"},
      {"1000M", "1G"}, {"100Mi", "100Mi"}, {2, "2"},       {"0.0001", "100u"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.given.dump());
    json cm = {{"apiVersion", "v1"},
               {"kind", "ResourceQuota"},
               {"metadata", {{"name", "rq"}}},
               {"spec", {{"hard", {{"cpu", c.given}}}}}};
    out = Do("POST", "/api/v1/namespaces/default/resourcequotas", cm.dump());
    ASSERT_EQ(out.code, 201) << out.body;
    EXPECT_EQ(out.Json()["spec"]["hard"]["cpu"], c.want);
    ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/resourcequotas/rq").code, 200);
  }
}

// The ServiceAccount admission plugin on a pod create: the account must exist ("default" is
// admitted before kcm makes it); the token, the root CA and the namespace are mounted in every
// container and init container from one kube-api-access-* volume unless automount is off (the
// pod's, else the account's) or the container mounts that path itself; the account's
// imagePullSecrets go to a pod without any. A server-side apply that creates a pod is admitted
// as a create; an update is not.
TEST_F(ApiServerTest, ServiceAccountAdmissionMountsTheTokenVolume) {
  const std::string mount = "/var/run/secrets/kubernetes.io/serviceaccount";
  auto sa = [](const std::string& name, const json& extra) {
    json o = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}};
    o.update(extra);
    return o.dump();
  };
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/serviceaccounts",
               sa("builder", {{"imagePullSecrets", json::array({{{"name", "regcred"}}})}}))
                .code,
            201);
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/serviceaccounts",
               sa("quiet", {{"automountServiceAccountToken", false}}))
                .code,
            201);
  const json container = {{"name", "c"}, {"image", "nginx"}};
  const json own_mount = {
      {"name", "c"},
      {"image", "nginx"},
      {"volumeMounts", json::array({{{"name", "mine"}, {"mountPath", mount}}})}};
  struct Case {
    std::string name;
    json spec;
    int code;
    int mounted;               // containers mounting the kube-api-access volume
    bool volume;               // the pod has it
    json pull_secrets;         // null: none
    std::string message = "";  // the 403's
  };
  const std::vector<Case> cases = {
      {"default account, created by kcm later",
       {{"containers", json::array({container})}},
       201,
       1,
       true,
       nullptr},
      {"init containers too",
       {{"initContainers", json::array({container})},
        {"containers", json::array({container, {{"name", "d"}, {"image", "nginx"}}})}},
       201,
       3,
       true,
       nullptr},
      {"the account's pull secrets",
       {{"serviceAccountName", "builder"}, {"containers", json::array({container})}},
       201,
       1,
       true,
       json::array({{{"name", "regcred"}}})},
      {"the pod's own pull secrets stay",
       {{"serviceAccountName", "builder"},
        {"imagePullSecrets", json::array({{{"name", "mine"}}})},
        {"containers", json::array({container})}},
       201,
       1,
       true,
       json::array({{{"name", "mine"}}})},
      {"the account opts out",
       {{"serviceAccountName", "quiet"}, {"containers", json::array({container})}},
       201,
       0,
       false,
       nullptr},
      {"the pod opts back in",
       {{"serviceAccountName", "quiet"},
        {"automountServiceAccountToken", true},
        {"containers", json::array({container})}},
       201,
       1,
       true,
       nullptr},
      {"the pod opts out",
       {{"automountServiceAccountToken", false}, {"containers", json::array({container})}},
       201,
       0,
       false,
       nullptr},
      {"a container mounting the path itself",
       {{"containers", json::array({own_mount})},
        {"volumes", json::array({{{"name", "mine"}, {"emptyDir", json::object()}}})}},
       201,
       0,
       false,
       nullptr},
      {"an unknown account",
       {{"serviceAccountName", "ghost"}, {"containers", json::array({container})}},
       403,
       0,
       false,
       nullptr,
       "pods \"p\" is forbidden: error looking up service account default/ghost: "
       "serviceaccount \"ghost\" not found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json pod = {
        {"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}, {"spec", c.spec}};
    FakeWriter out = Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
    ASSERT_EQ(out.code, c.code) << out.body;
    if (c.code != 201) {
      EXPECT_EQ(out.Json()["message"], c.message);
      continue;
    }
    const json spec = out.Json()["spec"];
    std::string volume;
    for (const json& v : spec.value("volumes", json::array())) {
      if (v["name"].get<std::string>().rfind("kube-api-access-", 0) == 0) volume = v["name"];
    }
    EXPECT_EQ(!volume.empty(), c.volume) << spec.dump();
    if (!volume.empty()) {
      EXPECT_EQ(volume.size(), std::string("kube-api-access-").size() + 5);
      const json want_sources = json::parse(R"([
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
                                    "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}])");
      for (const json& v : spec["volumes"]) {
        if (v["name"] != volume) continue;
        EXPECT_EQ(v["projected"]["sources"], want_sources);
        EXPECT_EQ(v["projected"]["defaultMode"], 420);
      }
    }
    int mounted = 0;
    for (const char* list : {"initContainers", "containers"}) {
      for (const json& k : spec.value(list, json::array())) {
        for (const json& m : k.value("volumeMounts", json::array())) {
          if (m["name"] == volume && m["mountPath"] == mount && m["readOnly"] == true) ++mounted;
        }
      }
    }
    EXPECT_EQ(mounted, c.mounted) << spec.dump();
    EXPECT_EQ(spec.contains("imagePullSecrets") ? spec["imagePullSecrets"] : json(),
              c.pull_secrets);
    ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0").code, 200);
  }

  // Server-side apply: a create is admitted (an unknown account refused), an update is not
  // touched again.
  const std::map<std::string, std::string> apply = {
      {"content-type", "application/apply-patch+yaml"}};
  json made = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "made"}}},
      {"spec", {{"serviceAccountName", "ghost"}, {"containers", json::array({container})}}}};
  FakeWriter out =
      Do("PATCH", "/api/v1/namespaces/default/pods/made?fieldManager=test", made.dump(), apply);
  ASSERT_EQ(out.code, 403) << out.body;
  made["spec"].erase("serviceAccountName");
  out = Do("PATCH", "/api/v1/namespaces/default/pods/made?fieldManager=test", made.dump(), apply);
  ASSERT_EQ(out.code, 201) << out.body;
  const json volumes = out.Json()["spec"]["volumes"];
  ASSERT_EQ(volumes.size(), 1u);
  made["metadata"]["labels"] = {{"x", "y"}};
  out = Do("PATCH", "/api/v1/namespaces/default/pods/made?fieldManager=test", made.dump(), apply);
  ASSERT_EQ(out.code, 200) << out.body;
  EXPECT_EQ(out.Json()["spec"]["volumes"], volumes);
  EXPECT_EQ(out.Json()["spec"]["containers"][0]["volumeMounts"].size(), 1u);
}

// serviceaccounts/<name>/token: kube's TokenRequest answers (malformed bodies are 400s and
// 422s, never a crash); the token authenticates as its account, also for a server-side apply
// that creates an object (authenticated before the store's lock), until the account goes.
TEST_F(ApiServerTest, TokenRequestsAndTheirTokens) {
  const std::string sa = R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"ci"}})";
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/serviceaccounts", sa).code, 201);
  const std::string token_path = "/api/v1/namespaces/default/serviceaccounts/ci/token";
  auto request = [](const std::string& spec) {
    return R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":)" + spec + "}";
  };
  const json other_pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "other"}}},
      {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "x"}}})}}}};
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", other_pod.dump()).code, 201);
  struct Case {
    std::string name;
    std::string path;
    std::string body;
    int code;
    std::string message;  // empty: not checked
  };
  const std::vector<Case> cases = {
      {"an unknown account", "/api/v1/namespaces/default/serviceaccounts/nope/token",
       request(R"({"expirationSeconds": 60})"), 404, "serviceaccounts \"nope\" not found"},
      {"too short", token_path, request(R"({"expirationSeconds": 60})"), 422,
       "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid "
       "value: 60: may not specify a duration less than 10 minutes"},
      {"too short, as a float", token_path, request(R"({"expirationSeconds": 60.0})"), 422, ""},
      {"a string", token_path, request(R"({"expirationSeconds": "3600"})"), 400, ""},
      {"a spec that is an array", token_path, request("[]"), 400, ""},
      {"another name", token_path,
       R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"name":"x"}})",
       422,
       "TokenRequest.authentication.k8s.io \"ci\" is invalid: metadata.name: Invalid value: "
       "\"x\": must match the service account name if specified"},
      {"a kind that does not bind", token_path,
       request(R"({"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "c"}})"),
       400, "cannot bind token to object of type /v1, Kind=ConfigMap"},
      {"a pod of another group", token_path,
       request(R"({"boundObjectRef": {"kind": "Pod", "apiVersion": "apps/v1", "name": "p"}})"), 400,
       "cannot bind token to object of type apps/v1, Kind=Pod"},
      {"a pod of another account", token_path,
       request(R"({"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "other"}})"), 400,
       "cannot bind token for serviceaccount \"ci\" to pod running with different serviceaccount "
       "name."},
      {"a bound object of another type", token_path, request(R"({"boundObjectRef": 7})"), 400, ""},
      {"defaults", token_path, request("{}"), 201, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeWriter out = Do("POST", c.path, c.body);
    ASSERT_EQ(out.code, c.code) << out.body;
    if (!c.message.empty()) EXPECT_EQ(out.Json()["message"], c.message);
  }
  FakeWriter made = Do("POST", token_path, request("{}"));
  ASSERT_EQ(made.code, 201) << made.body;
  EXPECT_EQ(made.Json()["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ(made.Json()["spec"]["audiences"],
            json::array({"https://kubernetes.default.svc.cluster.local"}));
  const std::string token = made.Json()["status"]["token"];
  const std::map<std::string, std::string> bearer = {{"authorization", "Bearer " + token}};
  const std::string review =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  FakeWriter who = Do("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", review, bearer);
  ASSERT_EQ(who.code, 201) << who.body;
  EXPECT_EQ(who.Json()["status"]["userInfo"]["username"], "system:serviceaccount:default:ci");
  // A server-side apply that creates, with the token: authenticated before the write.
  std::map<std::string, std::string> apply = bearer;
  apply["content-type"] = "application/apply-patch+yaml";
  FakeWriter created =
      Do("PATCH", "/api/v1/namespaces/default/configmaps/made?fieldManager=t",
         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"made"}})", apply);
  EXPECT_EQ(created.code, 201) << created.body;
  // A header whose members have other types is not this server's token (no throw).
  const std::string odd = "Bearer eyJhbGciOjEsImtpZCI6WyJ4Il19.e30.c2ln";
  EXPECT_EQ(
      Do("GET", "/api/v1/namespaces/default/configmaps/made", "", {{"authorization", odd}}).code,
      200);
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/serviceaccounts/ci").code, 200);
  FakeWriter gone = Do("GET", "/api/v1/namespaces/default/configmaps/made", "", bearer);
  EXPECT_EQ(gone.code, 401);
  EXPECT_EQ(gone.Json()["reason"], "Unauthorized");
}

// DefaultStorageClass and StorageObjectInUseProtection: a claim without a class gets the newest
// default class (by name among equals), an explicit "" or the beta annotation keeps it
// classless; every new claim and volume gets its protection finalizer, by create and by apply.
TEST_F(ApiServerTest, ClaimsGetTheDefaultClassAndFinalizers) {
  auto sc = [](const std::string& name, const char* is_default) {
    json o = {{"apiVersion", "storage.k8s.io/v1"},
              {"kind", "StorageClass"},
              {"metadata", {{"name", name}}},
              {"provisioner", "pd.csi.storage.gke.io"}};
    if (is_default != nullptr) {
      o["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] = is_default;
    }
    return o.dump();
  };
  auto claim = [](const std::string& name, const json& extra) {
    json o = {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", {{"name", name}}},
              {"spec",
               {{"accessModes", {"ReadWriteOnce"}},
                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
    o.merge_patch(extra);
    return o.dump();
  };
  const std::string pvcs = "/api/v1/namespaces/default/persistentvolumeclaims";
  auto class_of = [&](const std::string& name) {
    return json::parse(Do("GET", pvcs + "/" + name).body)["spec"].value("storageClassName",
                                                                        "<none>");
  };
  ASSERT_EQ(Do("POST", pvcs, claim("none", json::object())).code, 201);
  EXPECT_EQ(class_of("none"), "<none>") << "no default class yet";
  ASSERT_EQ(Do("POST", "/apis/storage.k8s.io/v1/storageclasses", sc("older", "true")).code, 201);
  ASSERT_EQ(Do("POST", "/apis/storage.k8s.io/v1/storageclasses", sc("not", "false")).code, 201);
  ASSERT_EQ(Do("POST", pvcs, claim("one", json::object())).code, 201);
  EXPECT_EQ(class_of("one"), "older");
  clock_.Advance(std::chrono::seconds(5));
  ASSERT_EQ(Do("POST", "/apis/storage.k8s.io/v1/storageclasses", sc("zeta", "true")).code, 201);
  ASSERT_EQ(Do("POST", "/apis/storage.k8s.io/v1/storageclasses", sc("alpha", "true")).code, 201);
  ASSERT_EQ(Do("POST", pvcs, claim("two", json::object())).code, 201);
  EXPECT_EQ(class_of("two"), "alpha") << "the newest, then the first by name";
  ASSERT_EQ(Do("POST", pvcs, claim("empty", {{"spec", {{"storageClassName", ""}}}})).code, 201);
  EXPECT_EQ(class_of("empty"), "");
  ASSERT_EQ(
      Do("POST", pvcs,
         claim("beta", {{"metadata",
                         {{"annotations", {{"volume.beta.kubernetes.io/storage-class", "x"}}}}}}))
          .code,
      201);
  EXPECT_EQ(class_of("beta"), "<none>");
  const json created = json::parse(Do("GET", pvcs + "/one").body);
  EXPECT_EQ(created["metadata"]["finalizers"], json::array({"kubernetes.io/pvc-protection"}));
  EXPECT_EQ(created["status"], json::parse(R"({"phase": "Pending"})"));
  EXPECT_EQ(created["spec"]["volumeMode"], "Filesystem");

  // Created by a server-side apply: the same admission.
  auto applied = Do("PATCH", pvcs + "/ssa?fieldManager=me", claim("ssa", json::object()),
                    {{"content-type", "application/apply-patch+yaml"}});
  ASSERT_EQ(applied.code, 201) << applied.body;
  const json ssa = json::parse(applied.body);
  EXPECT_EQ(ssa["spec"]["storageClassName"], "alpha");
  EXPECT_EQ(ssa["metadata"]["finalizers"], json::array({"kubernetes.io/pvc-protection"}));

  auto pv = Do("POST", "/api/v1/persistentvolumes",
               R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
                   "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                            "hostPath": {"path": "/d"}}})");
  ASSERT_EQ(pv.code, 201) << pv.body;
  EXPECT_EQ(json::parse(pv.body)["metadata"]["finalizers"],
            json::array({"kubernetes.io/pv-protection"}));
}

// The Priority admission plugin: a new pod's priority and preemptionPolicy come from its
// PriorityClass, or the globalDefault one, else 0; an update keeps them; a second globalDefault
// class is refused.
TEST_F(ApiServerTest, PriorityComesFromThePodsPriorityClass) {
  auto pc = [](const std::string& name, int value, bool global, const char* policy) {
    json o = {{"apiVersion", "scheduling.k8s.io/v1"},
              {"kind", "PriorityClass"},
              {"metadata", {{"name", name}}},
              {"value", value}};
    if (global) o["globalDefault"] = true;
    if (policy != nullptr) o["preemptionPolicy"] = policy;
    return o.dump();
  };
  ASSERT_EQ(
      Do("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", pc("high", 1000, false, "Never"))
          .code,
      201);
  struct Case {
    std::string name;
    json spec;  // besides the container
    int code;
    json want;  // {priorityClassName, priority, preemptionPolicy} or the error message
  };
  const std::string forbidden = "pods \"p\" is forbidden: ";
  const std::vector<Case> cases = {
      {"no class, no default", json::object(), 201, {nullptr, 0, "PreemptLowerPriority"}},
      {"its class", {{"priorityClassName", "high"}}, 201, {"high", 1000, "Never"}},
      {"the same priority may be given",
       {{"priorityClassName", "high"}, {"priority", 1000}},
       201,
       {"high", 1000, "Never"}},
      {"an unknown class",
       {{"priorityClassName", "nope"}},
       403,
       forbidden + "no PriorityClass with name nope was found"},
      {"another priority",
       {{"priorityClassName", "high"}, {"priority", 7}},
       403,
       forbidden + "the integer value of priority (7) must not be provided in pod spec; priority "
                   "admission controller computed 1000 from the given PriorityClass name"},
      {"another preemptionPolicy",
       {{"priorityClassName", "high"}, {"preemptionPolicy", "PreemptLowerPriority"}},
       403,
       forbidden + "the string value of PreemptionPolicy (PreemptLowerPriority) must not be "
                   "provided in pod spec; priority admission controller computed Never from the "
                   "given PriorityClass name"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json pod = {
        {"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}, {"spec", c.spec}};
    pod["spec"]["containers"] = json::array({{{"name", "c"}, {"image", "nginx"}}});
    FakeWriter out = Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
    ASSERT_EQ(out.code, c.code) << out.body;
    if (c.code != 201) {
      EXPECT_EQ(out.Json()["message"], c.want);
      EXPECT_EQ(out.Json()["reason"], "Forbidden");
      continue;
    }
    json spec = out.Json()["spec"];
    EXPECT_EQ(spec.value("priorityClassName", json()), c.want[0]);
    EXPECT_EQ(spec["priority"], c.want[1]);
    EXPECT_EQ(spec["preemptionPolicy"], c.want[2]);
    // An update that leaves them out keeps them.
    json put = out.Json();
    put["spec"].erase("priority");
    put["spec"].erase("preemptionPolicy");
    FakeWriter updated = Do("PUT", "/api/v1/namespaces/default/pods/p", put.dump());
    ASSERT_EQ(updated.code, 200) << updated.body;
    EXPECT_EQ(updated.Json()["spec"]["priority"], c.want[1]);
    EXPECT_EQ(updated.Json()["spec"]["preemptionPolicy"], c.want[2]);
    ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0").code, 200);
  }

  // A globalDefault class names itself on pods without one; only one may exist.
  ASSERT_EQ(
      Do("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", pc("batch", 100, true, nullptr))
          .code,
      201);
  FakeWriter second =
      Do("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", pc("other", 50, true, nullptr));
  ASSERT_EQ(second.code, 403) << second.body;
  EXPECT_EQ(second.Json()["message"],
            "priorityclasses.scheduling.k8s.io \"other\" is forbidden: PriorityClass batch is "
            "already marked as default. Only one default can exist");
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"generateName", "d-"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
  FakeWriter out = Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
  ASSERT_EQ(out.code, 201) << out.body;
  EXPECT_EQ(out.Json()["spec"]["priorityClassName"], "batch");
  EXPECT_EQ(out.Json()["spec"]["priority"], 100);
  EXPECT_EQ(out.Json()["spec"]["preemptionPolicy"], "PreemptLowerPriority");
  pod["spec"]["priorityClassName"] = "nope";
  out = Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
  EXPECT_EQ(out.Json()["message"],
            "pods \"d-\" is forbidden: no PriorityClass with name nope was found");

  // A pod made by server-side apply is admitted as a create (inside the store's write: the
  // classes were read before it). A PUT never creates a pod (404), as kube's pod strategy.
  const std::map<std::string, std::string> apply = {
      {"content-type", "application/apply-patch+yaml"}};
  json made = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "made"}}},
               {"spec", {{"priorityClassName", "high"},
                         {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
  out = Do("PATCH", "/api/v1/namespaces/default/pods/made?fieldManager=test", made.dump(), apply);
  ASSERT_EQ(out.code, 201) << out.body;
  EXPECT_EQ(out.Json()["spec"]["priority"], 1000);
  made["spec"]["priorityClassName"] = "nope";
  made["metadata"]["name"] = "refused";
  out = Do("PATCH", "/api/v1/namespaces/default/pods/refused?fieldManager=test", made.dump(),
           apply);
  EXPECT_EQ(out.code, 403) << out.body;
  EXPECT_EQ(Do("PUT", "/api/v1/namespaces/default/pods/refused", made.dump()).code, 404);
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

// Found by the apiserver_http fuzzer: a PUT whose body is not an object threw from the status
// path (json::value on an array) and ended the process.
TEST_F(ApiServerTest, APutWhoseBodyIsNotAnObjectIsA400) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  for (const std::string target : {"/api/v1/namespaces/default/pods/p/status",
                                   "/api/v1/namespaces/default/pods/p"}) {
    for (const std::string body : {R"([{"op":"test","path":"/metadata/name","value":"p"}])",
                                   "5", "\"x\"", "null"}) {
      SCOPED_TRACE(target + " " + body);
      FakeWriter out = Do("PUT", target, body);
      EXPECT_EQ(out.code, 400) << out.body;
    }
  }
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 200);
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

// Found by the apiserver_http fuzzer: a status PATCH whose result is not an object (a merge
// patch that is an array replaces the whole document) threw from the status path.
TEST_F(ApiServerTest, AStatusPatchWhoseResultIsNotAnObjectIsRefused) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  struct Case {
    std::string content_type, body;
  };
  const std::vector<Case> cases = {
      {"application/merge-patch+json", R"([{"status":{}}])"},
      {"application/merge-patch+json", "5"},
      {"application/json-patch+json", R"([{"op":"replace","path":"","value":[1]}])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.content_type + " " + c.body);
    FakeWriter out = Do("PATCH", "/api/v1/namespaces/default/pods/p/status", c.body,
                        {{"content-type", c.content_type}});
    EXPECT_GE(out.code, 400) << out.body;
    EXPECT_LT(out.code, 500) << out.body;
  }
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 200);
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

std::string ReadProtobufTestdata(const std::string& name) {
  std::ifstream in(std::string(TIDEPOOL_SOURCE_DIR) + "/src/apiserver/protobuf/testdata/" + name,
                   std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The body the real kubectl sent for `kubectl create deployment web --image=busybox --port=8080
// -- sleep 3600` (protobuf): created as a real cluster stores it, with the defaults of the
// JSON path (ContainerPort.protocol TCP among them); and a Secret without a type is Opaque.
TEST_F(ApiServerTest, AProtobufBodyFromKubectlIsStoredWithTheDefaults) {
  auto c = Do("POST",
              "/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&"
              "fieldValidation=Strict",
              ReadProtobufTestdata("create-deployment-command.pb"),
              {{"content-type", "application/vnd.kubernetes.protobuf"}});
  ASSERT_EQ(c.code, 201) << c.body;
  const json d = c.Json();
  EXPECT_EQ(d["spec"]["replicas"], 1);
  EXPECT_EQ(d["spec"]["strategy"]["type"], "RollingUpdate");
  const json& ctr = d["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(ctr["command"], json::parse(R"(["sleep","3600"])"));
  EXPECT_EQ(ctr["ports"], json::parse(R"([{"containerPort":8080,"protocol":"TCP"}])"));
  EXPECT_EQ(d["metadata"]["managedFields"][0]["manager"], "kubectl-create");

  auto s = Do("POST", "/api/v1/namespaces/default/secrets",
              R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"dg=="}})");
  ASSERT_EQ(s.code, 201) << s.body;
  EXPECT_EQ(s.Json()["type"], "Opaque");
}

// NamespaceLifecycle's immortal namespaces: default, kube-system and kube-public are never
// deleted (403, kube's text); any other namespace is.
TEST_F(ApiServerTest, TheImmortalNamespacesAreNeverDeleted) {
  for (const std::string ns : {"default", "kube-system", "kube-public", "kube-node-lease", "x"}) {
    Do("POST", "/api/v1/namespaces",
       R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})");
    auto d = Do("DELETE", "/api/v1/namespaces/" + ns);
    const bool immortal = ns == "default" || ns == "kube-system" || ns == "kube-public";
    EXPECT_EQ(d.code, immortal ? 403 : 200) << ns << " " << d.body;
    if (immortal) {
      EXPECT_EQ(d.Json()["message"],
                "namespaces \"" + ns + "\" is forbidden: this namespace may not be deleted");
      EXPECT_EQ(d.Json()["reason"], "Forbidden");
      EXPECT_EQ(Do("GET", "/api/v1/namespaces/" + ns).Json()["status"]["phase"], "Active");
    }
  }
}

// kube's GuaranteedUpdate checks a write's resourceVersion before the strategy validates it: a
// stale one is a 409 even when the change is also invalid (an immutable selector), and "0" is an
// unconditional update.
TEST_F(ApiServerTest, AStaleResourceVersionIsAConflictBeforeValidation) {
  const std::string dep = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
      "spec":{"selector":{"matchLabels":{"app":"SEL"}},
      "template":{"metadata":{"labels":{"app":"SEL"}},
                  "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})";
  auto with = [&](const std::string& sel, const std::string& rv) {
    json d = json::parse(std::regex_replace(dep, std::regex("SEL"), sel));
    if (!rv.empty()) d["metadata"]["resourceVersion"] = rv;
    return d.dump();
  };
  ASSERT_EQ(Do("POST", "/apis/apps/v1/namespaces/default/deployments", with("web", "")).code, 201);
  const std::string path = "/apis/apps/v1/namespaces/default/deployments/web";
  auto stale = Do("PUT", path, with("web2", "99"));
  EXPECT_EQ(stale.code, 409) << stale.body;
  EXPECT_EQ(stale.Json()["reason"], "Conflict");
  auto patched = Do("PATCH", path, R"({"metadata":{"resourceVersion":"99"},
      "spec":{"selector":{"matchLabels":{"app":"web2"}}}})",
                    {{"content-type", "application/merge-patch+json"}});
  EXPECT_EQ(patched.code, 409) << patched.body;
  auto invalid = Do("PUT", path, with("web2", ""));
  EXPECT_EQ(invalid.code, 422) << invalid.body;
  auto zero = Do("PUT", path, with("web", "0"));
  EXPECT_EQ(zero.code, 200) << zero.body;
}

// A Service's cluster IPs may not change once set (validateUpgradeDowngradeClusterIPs): an
// update that names another is 422 with kube's text (the headless one too: kubectl test-cmd's
// apply.sh), one that names none keeps the allocated IP.
TEST_F(ApiServerTest, AServicesClusterIPMayNotChangeOnceSet) {
  auto svc = [](const std::string& name, const std::string& ip) {
    json s = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", name}}},
              {"spec", {{"ports", {{{"port", 80}}}}}}};
    if (!ip.empty()) s["spec"]["clusterIP"] = ip;
    return s.dump();
  };
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/services", svc("web", "")).code, 201);
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/services", svc("headless", "None")).code, 201);
  const std::string ip =
      Do("GET", "/api/v1/namespaces/default/services/web").Json()["spec"]["clusterIP"];
  struct Case {
    std::string name, ip;
    int code;
    std::string message;
  };
  for (
      const Case& c : std::vector<Case>{
          {"web", "", 200, ""},
          {"web", ip, 200, ""},
          {"web", "34.118.224.99", 422,
           R"(Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"34.118.224.99"}: may not change once set)"},
          {"headless", "None", 200, ""},
          {"headless", "10.0.0.12", 422,
           R"(Service "headless" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.12"}: may not change once set)"}}) {
    auto w = Do("PUT", "/api/v1/namespaces/default/services/" + c.name, svc(c.name, c.ip));
    EXPECT_EQ(w.code, c.code) << c.name << " " << c.ip << " " << w.body;
    if (c.code == 200) {
      EXPECT_EQ(w.Json()["spec"]["clusterIP"], c.name == "web" ? ip : "None");
    } else {
      EXPECT_EQ(w.Json()["message"], c.message);
    }
  }
}

// A Secret's stringData is write-only (Convert_v1_Secret_To_core_Secret): each key overwrites
// data's, base64-encoded, on create and on update, and the field is never stored.
TEST_F(ApiServerTest, ASecretsStringDataIsMergedIntoDataAndNotStored) {
  auto c = Do("POST", "/api/v1/namespaces/default/secrets",
              R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},
                  "data":{"k1":"djE=","k2":""},"stringData":{"k2":"v2"}})");
  ASSERT_EQ(c.code, 201) << c.body;
  EXPECT_EQ(c.Json()["data"], json::parse(R"({"k1":"djE=","k2":"djI="})"));
  EXPECT_FALSE(c.Json().contains("stringData"));
  auto p = Do("PATCH", "/api/v1/namespaces/default/secrets/s", R"({"stringData":{"k3":"v3"}})",
              {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(p.code, 200) << p.body;
  EXPECT_EQ(p.Json()["data"], json::parse(R"({"k1":"djE=","k2":"djI=","k3":"djM="})"));
  EXPECT_FALSE(Do("GET", "/api/v1/namespaces/default/secrets/s").Json().contains("stringData"));
}

// /api/v1 and /apis/G/V as kube-apiserver writes them: the members in metav1.APIResource's
// order (clients grep the raw text), and each resource's storageVersionHash - base64 of the
// first 8 bytes of SHA-256("group/version/kind") of its storage version (values a 1.32 cluster
// publishes; autoscaling/v1 HPAs are stored as v2, events.k8s.io Events as core's).
TEST_F(ApiServerTest, DiscoveryListsResourcesInGoFieldOrderWithStorageVersionHashes) {
  const std::string core = Do("GET", "/api/v1").body;
  EXPECT_EQ(core.rfind(R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1",)", 0),
            0u)
      << core.substr(0, 100);
  EXPECT_NE(core.find(R"({"name":"configmaps","singularName":"configmap","namespaced":true,)"
                      R"("kind":"ConfigMap","verbs":["create","delete","deletecollection","get",)"
                      R"("list","patch","update","watch"],"shortNames":["cm"],)"
                      R"("storageVersionHash":"qFsyl6wFWjQ="})"),
            std::string::npos);
  EXPECT_NE(core.find(R"({"name":"pods/eviction","singularName":"","namespaced":true,)"
                      R"("group":"policy","version":"v1","kind":"Eviction","verbs":["create"]})"),
            std::string::npos);
  struct Case {
    std::string path, resource, hash;
  };
  for (const Case& c :
       std::vector<Case>{{"/api/v1", "pods", "xPOwRZ+Yhw8="},
                         {"/apis/apps/v1", "deployments", "8aSe+NMegvE="},
                         {"/api/v1", "events", "r2yiGXH7wu8="},
                         {"/apis/events.k8s.io/v1", "events", "r2yiGXH7wu8="},
                         {"/apis/autoscaling/v1", "horizontalpodautoscalers", "qwQve8ut294="}}) {
    std::string hash;
    const json list = Do("GET", c.path).Json();
    for (const json& r : list["resources"]) {
      if (r["name"] == c.resource) hash = r.value("storageVersionHash", "");
    }
    EXPECT_EQ(hash, c.hash) << c.path << " " << c.resource;
  }
  // `grep -o '"name":"pods"[^}]*}'` finds the pods' categories.
  EXPECT_NE(core.find(R"("name":"pods","singularName":"pod","namespaced":true,"kind":"Pod",)"),
            std::string::npos);
  EXPECT_NE(core.find(R"("shortNames":["po"],"categories":["all"],"storageVersionHash":)"),
            std::string::npos);
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

// deployments/scale as kube-apiserver serves it: discovery lists it (autoscaling/v1 Scale),
// GET makes the Scale, kubectl scale's merge patch and a PUT set spec.replicas, a stale
// resourceVersion is a conflict, a negative count a 422 on the Scale.
TEST_F(ApiServerTest, TheScaleSubresourceOfADeployment) {
  const json list = Do("GET", "/apis/apps/v1").Json();
  std::vector<std::string> scales;
  for (const json& r : list["resources"]) {
    if (r["name"].get<std::string>().ends_with("/scale")) {
      scales.push_back(r["name"].get<std::string>());
      EXPECT_EQ(r["group"], "autoscaling");
      EXPECT_EQ(r["version"], "v1");
      EXPECT_EQ(r["kind"], "Scale");
      EXPECT_EQ(r["verbs"], json::parse(R"(["get","patch","update"])"));
    }
  }
  EXPECT_EQ(scales, (std::vector<std::string>{"deployments/scale", "replicasets/scale",
                                                "statefulsets/scale"}));

  auto c = Do("POST", "/apis/apps/v1/namespaces/default/deployments",
              R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
                  "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
                  "template":{"metadata":{"labels":{"app":"web"}},
                              "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  ASSERT_EQ(c.code, 201) << c.body;
  const std::string path = "/apis/apps/v1/namespaces/default/deployments/web/scale";
  const json s = Do("GET", path).Json();
  EXPECT_EQ(s["kind"], "Scale");
  EXPECT_EQ(s["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(s["spec"], json::parse(R"({"replicas":2})"));
  EXPECT_EQ(s["status"], json::parse(R"({"replicas":0,"selector":"app=web"})"));
  EXPECT_EQ(s["metadata"]["uid"], c.Json()["metadata"]["uid"]);

  auto p = Do("PATCH", path, R"({"spec":{"replicas":6}})",
              {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(p.code, 200) << p.body;
  EXPECT_EQ(p.Json()["spec"]["replicas"], 6);
  const json d = Do("GET", "/apis/apps/v1/namespaces/default/deployments/web").Json();
  EXPECT_EQ(d["spec"]["replicas"], 6);
  EXPECT_EQ(d["metadata"]["generation"], 2);

  json put = p.Json();
  put["spec"]["replicas"] = 1;
  auto u = Do("PUT", path, put.dump());
  ASSERT_EQ(u.code, 200) << u.body;
  EXPECT_EQ(u.Json()["spec"]["replicas"], 1);
  auto stale = Do("PUT", path, put.dump());  // put's resourceVersion is now old
  EXPECT_EQ(stale.code, 409) << stale.body;
  EXPECT_EQ(stale.Json()["reason"], "Conflict");

  put = u.Json();
  put["spec"]["replicas"] = -1;
  auto neg = Do("PUT", path, put.dump());
  EXPECT_EQ(neg.code, 422) << neg.body;
  EXPECT_EQ(neg.Json()["message"],
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be "
            "greater than or equal to 0");
  EXPECT_EQ(neg.Json()["details"]["kind"], "Scale");
  EXPECT_EQ(Do("GET", "/apis/apps/v1/namespaces/default/deployments/nope/scale").code, 404);
  EXPECT_EQ(Do("GET", "/apis/apps/v1/namespaces/default/daemonsets/x/scale").code, 404);
  EXPECT_EQ(Do("DELETE", path).code, 405);
}

// kube-apiserver's deletion semantics (deletion.h): propagationPolicy / orphanDependents put
// the garbage collector's finalizers; an object with finalizers stays (deletionTimestamp,
// deletionGracePeriodSeconds 0) until an update empties them; pods too.
TEST_F(ApiServerTest, DeletionWithFinalizersAndPropagation) {
  const json containers = json::array({{{"name", "c"}, {"image", "nginx"}}});
  const json rs = {{"apiVersion", "apps/v1"},
                   {"kind", "ReplicaSet"},
                   {"metadata", {{"name", "x"}}},
                   {"spec",
                    {{"replicas", 0},
                     {"selector", {{"matchLabels", {{"app", "x"}}}}},
                     {"template",
                      {{"metadata", {{"labels", {{"app", "x"}}}}},
                       {"spec", {{"containers", containers}}}}}}}};
  const json job = {{"apiVersion", "batch/v1"},
                    {"kind", "Job"},
                    {"metadata", {{"name", "x"}}},
                    {"spec",
                     {{"template",
                       {{"spec", {{"restartPolicy", "Never"}, {"containers", containers}}}}}}}};
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}}};
  json kept_cm = cm;
  kept_cm["metadata"]["finalizers"] = {"example.com/keep"};
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "x"}, {"finalizers", {"example.com/keep"}}}},
              {"spec", {{"nodeName", "n1"}, {"containers", containers}}}};
  const json event = {{"apiVersion", "v1"},
                      {"kind", "Event"},
                      {"metadata", {{"name", "x"}}},
                      {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}}};
  const std::string rs_path = "/apis/apps/v1/namespaces/default/replicasets";
  const std::string job_path = "/apis/batch/v1/namespaces/default/jobs";
  const std::string cm_path = "/api/v1/namespaces/default/configmaps";
  const std::string pod_path = "/api/v1/namespaces/default/pods";
  const std::string ev_path = "/api/v1/namespaces/default/events";
  const std::string kMerge = "application/merge-patch+json";
  auto opts = [](json o) { return o.dump(); };
  const std::string drop_finalizers = R"({"metadata":{"finalizers":null}})";

  struct Step {
    std::string method, suffix, body, content_type;
    int code;
  };
  struct Case {
    std::string name;
    std::string collection;
    json object;
    std::vector<Step> steps;
    int get_code;  // the GET after the steps
    json finalizers = nullptr;  // expected metadata.finalizers (null: absent)
    int64_t grace = -1;         // expected deletionGracePeriodSeconds (-1: absent)
  };
  const std::vector<Case> cases = {
      {"background (kubectl's default) removes at once", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Background"}}), "", 200}}, 404},
      {"no options: DeleteDependents by default, removed at once", rs_path, rs,
       {{"DELETE", "/x", "", "", 200}}, 404},
      {"foreground puts foregroundDeletion and keeps the object", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Foreground"}}), "", 200}}, 200,
       {"foregroundDeletion"}, 0},
      {"foreground in the query", rs_path, rs,
       {{"DELETE", "/x?propagationPolicy=Foreground", "", "", 200}}, 200, {"foregroundDeletion"}, 0},
      {"orphan puts orphan", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Orphan"}}), "", 200}}, 200, {"orphan"}, 0},
      {"orphanDependents=true puts orphan", rs_path, rs,
       {{"DELETE", "/x", opts({{"orphanDependents", true}}), "", 200}}, 200, {"orphan"}, 0},
      {"orphanDependents=false on an object that stays is a 202", cm_path, kept_cm,
       {{"DELETE", "/x", opts({{"orphanDependents", false}}), "", 202}}, 200, {"example.com/keep"}, 0},
      {"a second DELETE may change the finalizers: foreground then orphan", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Foreground"}}), "", 200},
        {"DELETE", "/x", opts({{"propagationPolicy", "Orphan"}}), "", 200}},
       200, {"orphan"}, 0},
      {"a background DELETE after a foreground one removes it", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Foreground"}}), "", 200},
        {"DELETE", "/x", opts({{"propagationPolicy", "Background"}}), "", 200}},
       404},
      {"emptying the finalizers of an object being deleted removes it", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Foreground"}}), "", 200},
        {"PATCH", "/x", drop_finalizers, kMerge, 200}},
       404},
      {"batch/v1 Jobs orphan by default", job_path, job, {{"DELETE", "/x", "", "", 200}}, 200,
       {"orphan"}, 0},
      {"a Job deleted in the background goes", job_path, job,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Background"}}), "", 200}}, 404},
      {"another finalizer keeps an object with deletionTimestamp", cm_path, kept_cm,
       {{"DELETE", "/x", "", "", 200}, {"DELETE", "/x", "", "", 200}}, 200, {"example.com/keep"}, 0},
      {"its removal by a PUT removes the object", cm_path, kept_cm,
       {{"DELETE", "/x", "", "", 200},
        {"PUT", "/x", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default"}})", "", 200}},
       404},
      {"a plain update keeps it", cm_path, kept_cm,
       {{"DELETE", "/x", "", "", 200},
        {"PATCH", "/x", R"({"data":{"a":"b"}})", kMerge, 200}},
       200, {"example.com/keep"}, 0},
      {"Events support no propagation finalizers", ev_path, event,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Foreground"}}), "", 200}}, 404},
      {"a pod with a finalizer and grace 0 stays with deletionGracePeriodSeconds 0", pod_path, pod,
       {{"DELETE", "/x", opts({{"gracePeriodSeconds", 0}}), "", 200}}, 200, {"example.com/keep"}, 0},
      {"a pod with a finalizer whose grace period ran out stays", pod_path, pod,
       {{"DELETE", "/x", "", "", 200}, {"DELETE", "/x", opts({{"gracePeriodSeconds", 0}}), "", 200}},
       200, {"example.com/keep"}, 0},
      {"a terminating pod keeps its grace period and finalizers on a longer request", pod_path, pod,
       {{"DELETE", "/x", "", "", 200},
        {"DELETE", "/x", opts({{"propagationPolicy", "Foreground"}}), "", 200}},
       200, {"example.com/keep"}, 30},
      {"a pod whose finalizers go after its grace period ran out is removed", pod_path, pod,
       {{"DELETE", "/x", opts({{"gracePeriodSeconds", 0}}), "", 200},
        {"PATCH", "/x", drop_finalizers, kMerge, 200}},
       404},
      {"deletecollection takes the same options", rs_path, rs,
       {{"DELETE", "", opts({{"propagationPolicy", "Foreground"}}), "", 200}}, 200,
       {"foregroundDeletion"}, 0},
      {"an eviction deletes as DELETE does: a pod with a finalizer terminates", pod_path, pod,
       {{"POST", "/x/eviction",
         json{{"apiVersion", "policy/v1"},
              {"kind", "Eviction"},
              {"metadata", {{"name", "x"}, {"namespace", "default"}}},
              {"deleteOptions", {{"gracePeriodSeconds", 0}}}}
             .dump(),
         "", 201}},
       200, {"example.com/keep"}, 0},
      {"a dry run changes nothing", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Foreground"}, {"dryRun", {"All"}}}), "", 200}},
       200},
      {"preconditions are kept", rs_path, rs,
       {{"DELETE", "/x", opts({{"preconditions", {{"uid", "nope"}}}}), "", 409}}, 200},
      {"orphanDependents with propagationPolicy is invalid", rs_path, rs,
       {{"DELETE", "/x", opts({{"orphanDependents", true}, {"propagationPolicy", "Orphan"}}), "", 422}},
       200},
      {"an unknown propagationPolicy is invalid", rs_path, rs,
       {{"DELETE", "/x", opts({{"propagationPolicy", "Sideways"}}), "", 422}}, 200},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto created = Do("POST", c.collection, c.object.dump());
    ASSERT_EQ(created.code, 201) << created.body;
    for (const Step& s : c.steps) {
      std::map<std::string, std::string> headers;
      if (!s.content_type.empty()) headers["content-type"] = s.content_type;
      auto r = Do(s.method, c.collection + s.suffix, s.body, headers);
      EXPECT_EQ(r.code, s.code) << s.method << " " << s.suffix << " " << s.body << ": " << r.body;
    }
    auto got = Do("GET", c.collection + "/x");
    EXPECT_EQ(got.code, c.get_code) << got.body;
    if (got.code == 200) {
      const json meta = got.Json()["metadata"];
      EXPECT_EQ(meta.value("finalizers", json()), c.finalizers);
      EXPECT_EQ(meta.value("deletionGracePeriodSeconds", int64_t{-1}), c.grace);
      EXPECT_EQ(meta.contains("deletionTimestamp"), c.grace >= 0);
      // Leave nothing behind for the next case.
      Do("PATCH", c.collection + "/x", drop_finalizers, {{"content-type", kMerge}});
      Do("DELETE", c.collection + "/x", opts({{"gracePeriodSeconds", 0}}));
      ASSERT_EQ(Do("GET", c.collection + "/x").code, 404) << c.name;
    }
  }
}

// What a DELETE answers (the registry's finalizeDelete): the deleted object for the registries
// with ReturnDeletedObject, a Status naming it otherwise (its details' kind is the resource),
// dry run included; an object that stays (a finalizer) is answered itself.
TEST_F(ApiServerTest, DeleteAnswersAsTheRegistryDoes) {
  struct Case {
    std::string collection, body, query;
    std::string want_kind;  // "Status" or the object's kind
    std::string want_details_kind, want_group;
  };
  const std::vector<Case> cases = {
      {"/api/v1/namespaces/default/configmaps",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})", "", "Status",
       "configmaps", ""},
      {"/api/v1/namespaces/default/configmaps",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}})", "?dryRun=All",
       "Status", "configmaps", ""},
      {"/apis/apps/v1/namespaces/default/controllerrevisions",
       R"({"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"c"},"data":{},"revision":1})",
       "", "Status", "controllerrevisions", "apps"},
      {"/api/v1/namespaces/default/serviceaccounts",
       R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"d"}})", "",
       "ServiceAccount", "", ""},
      {"/api/v1/namespaces/default/pods", kGoodPod, "?gracePeriodSeconds=0", "Pod", "", ""},
      {"/api/v1/namespaces/default/configmaps",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"e","finalizers":["x/y"]}})",
       "", "ConfigMap", "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.collection + " " + c.query);
    auto created = Do("POST", c.collection, c.body);
    ASSERT_EQ(created.code, 201) << created.body;
    const json obj = created.Json();
    const std::string name = obj["metadata"]["name"];
    auto del = Do("DELETE", c.collection + "/" + name + c.query);
    ASSERT_EQ(del.code, 200) << del.body;
    const json answer = del.Json();
    EXPECT_EQ(answer["kind"], c.want_kind);
    if (c.want_kind != "Status") continue;
    EXPECT_EQ(del.body.rfind(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":")", 0), 0u) << del.body;
    EXPECT_EQ(answer["details"]["name"], name);
    EXPECT_EQ(answer["details"]["kind"], c.want_details_kind);
    EXPECT_EQ(answer["details"].value("group", ""), c.want_group);
    EXPECT_EQ(answer["details"]["uid"], obj["metadata"]["uid"]);
  }
  // The dry run deleted nothing.
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/configmaps/b").code, 200);
}

TEST_F(ApiServerTest, DeletionTextsAndGeneration) {
  const json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}}};
  ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps", cm.dump()).code, 201);
  auto conflict = Do("DELETE", "/api/v1/namespaces/default/configmaps/x",
                     json{{"preconditions", {{"uid", "nope"}}}}.dump());
  EXPECT_EQ(conflict.code, 409);
  const std::string uid =
      Do("GET", "/api/v1/namespaces/default/configmaps/x").Json()["metadata"]["uid"];
  EXPECT_EQ(conflict.Json()["message"],
            "Operation cannot be fulfilled on ConfigMap \"x\": the UID in the precondition (nope) "
            "does not match the UID in record (" + uid +
                "). The object might have been deleted and then recreated");
  auto invalid = Do("DELETE", "/api/v1/namespaces/default/configmaps/x",
                    json{{"propagationPolicy", "Sideways"}}.dump());
  EXPECT_EQ(invalid.code, 422);
  EXPECT_EQ(invalid.Json()["reason"], "Invalid");
  EXPECT_EQ(invalid.Json()["details"]["kind"], "DeleteOptions");
  const std::string msg = invalid.Json()["message"];
  EXPECT_EQ(msg.rfind("DeleteOptions.meta.k8s.io \"\" is invalid: : Invalid value: v1.DeleteOptions{", 0), 0u) << msg;
  EXPECT_NE(msg.find("DeletionPropagation need to be one of \"Foreground\", \"Background\", \"Orphan\" or nil"),
            std::string::npos) << msg;

  // A foreground deletion is a write: deletionTimestamp now, generation + 1, a MODIFIED event.
  const json rs = {{"apiVersion", "apps/v1"},
                   {"kind", "ReplicaSet"},
                   {"metadata", {{"name", "g"}}},
                   {"spec",
                    {{"replicas", 0},
                     {"selector", {{"matchLabels", {{"app", "g"}}}}},
                     {"template",
                      {{"metadata", {{"labels", {{"app", "g"}}}}},
                       {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}}}}}};
  ASSERT_EQ(Do("POST", "/apis/apps/v1/namespaces/default/replicasets", rs.dump()).code, 201);
  auto del = Do("DELETE", "/apis/apps/v1/namespaces/default/replicasets/g",
                json{{"propagationPolicy", "Foreground"}}.dump());
  ASSERT_EQ(del.code, 200);
  const json meta = del.Json()["metadata"];
  EXPECT_EQ(meta["generation"], 2);
  EXPECT_EQ(meta["deletionTimestamp"], FormatRfc3339(clock_.Now()));
  EXPECT_EQ(meta["finalizers"], json({"foregroundDeletion"}));
  // Watchers see the removal when the finalizer goes.
  auto watch = store_.OpenWatch(FindResource("apps", "v1", "replicasets"), "default",
                                store_.resource_version());
  ASSERT_TRUE(watch.ok());
  auto patched = Do("PATCH", "/apis/apps/v1/namespaces/default/replicasets/g",
                    R"({"metadata":{"finalizers":[]}})",
                    {{"content-type", "application/merge-patch+json"}});
  EXPECT_EQ(patched.code, 200) << patched.body;
  WatchEvent e;
  ASSERT_EQ((*watch)->Next(std::chrono::seconds(1), &e), Watch::Result::kEvent);
  EXPECT_EQ(e.type, EventType::kDeleted);
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {
namespace {

// What the Cluster Autoscaler's informers and kubectl's tests need besides the kinds above:
// core/v1 persistentvolumes and replicationcontrollers, storage.k8s.io/v1 storageclasses,
// csidrivers, csinodes and csistoragecapacities.
struct StorageKind {
  std::string group, resource;
  std::string collection;  // where it is created and listed
  std::string kind, api_version;
  std::string name;
  std::string body;  // a valid object
};

std::vector<StorageKind> StorageKinds() {
  return {
      {"", "persistentvolumes", "/api/v1/persistentvolumes", "PersistentVolume", "v1", "pv-1",
       R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOnce"],
                   "hostPath":{"path":"/data/pv-1"}}})"},
      {"", "replicationcontrollers", "/api/v1/namespaces/default/replicationcontrollers",
       "ReplicationController", "v1", "web",
       R"({"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"web"},
           "spec":{"template":{"metadata":{"labels":{"app":"web"}},
                               "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})"},
      {"storage.k8s.io", "storageclasses", "/apis/storage.k8s.io/v1/storageclasses", "StorageClass",
       "storage.k8s.io/v1", "standard-rwo",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
           "metadata":{"name":"standard-rwo"},"provisioner":"pd.csi.storage.gke.io"})"},
      {"storage.k8s.io", "csidrivers", "/apis/storage.k8s.io/v1/csidrivers", "CSIDriver",
       "storage.k8s.io/v1", "pd.csi.storage.gke.io",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver",
           "metadata":{"name":"pd.csi.storage.gke.io"},"spec":{}})"},
      {"storage.k8s.io", "csinodes", "/apis/storage.k8s.io/v1/csinodes", "CSINode",
       "storage.k8s.io/v1", "node-1",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"node-1"},
           "spec":{"drivers":[{"name":"pd.csi.storage.gke.io","nodeID":"node-1"}]}})"},
      {"storage.k8s.io", "csistoragecapacities",
       "/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities", "CSIStorageCapacity",
       "storage.k8s.io/v1", "cap-1",
       R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity",
           "metadata":{"name":"cap-1"},"storageClassName":"standard-rwo","capacity":"100Gi"})"},
  };
}

}  // namespace

// Discovery lists them as kube-apiserver 1.32 does: core's two with their short names,
// category and subresources, and the storage.k8s.io group (v1 preferred) in the aggregated
// and legacy group lists, between rbac.authorization.k8s.io and scheduling.k8s.io.
TEST_F(ApiServerTest, DiscoveryListsTheStorageKinds) {
  const std::string aggregated =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
  const json core = Do("GET", "/api", "", {{"accept", aggregated}}).Json();
  std::map<std::string, json> core_resources;
  for (const json& r : core["items"][0]["versions"][0]["resources"]) {
    core_resources[r["resource"].get<std::string>()] = r;
  }
  const json pv = core_resources["persistentvolumes"];
  EXPECT_EQ(pv["scope"], "Cluster");
  EXPECT_EQ(pv["shortNames"], json({"pv"}));
  EXPECT_EQ(pv["subresources"][0]["subresource"], "status");
  const json rc = core_resources["replicationcontrollers"];
  EXPECT_EQ(rc["scope"], "Namespaced");
  EXPECT_EQ(rc["shortNames"], json({"rc"}));
  EXPECT_EQ(rc["categories"], json({"all"}));
  EXPECT_EQ(rc["subresources"], json::parse(R"([
      {"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},
       "verbs":["get","patch","update"]},
      {"subresource":"status","responseKind":{"group":"","version":"v1",
       "kind":"ReplicationController"},"verbs":["get","patch","update"]}])"));

  const json groups = Do("GET", "/apis", "", {{"accept", aggregated}}).Json();
  std::vector<std::string> names;
  json storage;
  for (const json& g : groups["items"]) {
    names.push_back(g["metadata"]["name"]);
    if (names.back() == "storage.k8s.io") storage = g;
  }
  const auto at = [&](const std::string& g) { return std::find(names.begin(), names.end(), g); };
  ASSERT_NE(at("storage.k8s.io"), names.end());
  EXPECT_LT(at("rbac.authorization.k8s.io"), at("storage.k8s.io"));
  EXPECT_LT(at("storage.k8s.io"), at("scheduling.k8s.io"));
  ASSERT_EQ(storage["versions"].size(), 1u);
  EXPECT_EQ(storage["versions"][0]["version"], "v1");
  std::vector<std::string> resources;
  for (const json& r : storage["versions"][0]["resources"]) {
    resources.push_back(r["resource"]);
    EXPECT_EQ(r["scope"], r["resource"] == "csistoragecapacities" ? "Namespaced" : "Cluster");
    EXPECT_EQ(r["verbs"], json::parse(R"(["create","delete","deletecollection","get","list",
                                          "patch","update","watch"])"));
    if (r["resource"] == "storageclasses") {
      EXPECT_EQ(r["shortNames"], json({"sc"}));
    } else {
      EXPECT_FALSE(r.contains("shortNames"));
    }
  }
  EXPECT_EQ(resources, (std::vector<std::string>{"csidrivers", "csinodes", "csistoragecapacities",
                                                 "storageclasses"}));

  const json want_group = json::parse(R"({"name":"storage.k8s.io",
      "versions":[{"groupVersion":"storage.k8s.io/v1","version":"v1"}],
      "preferredVersion":{"groupVersion":"storage.k8s.io/v1","version":"v1"}})");
  bool listed = false;
  const json legacy = Do("GET", "/apis").Json();
  for (const json& g : legacy["groups"]) listed |= g == want_group;
  EXPECT_TRUE(listed);
  json group = Do("GET", "/apis/storage.k8s.io").Json();
  EXPECT_EQ(group["kind"], "APIGroup");
  EXPECT_EQ(group["preferredVersion"], want_group["preferredVersion"]);
  const json list = Do("GET", "/apis/storage.k8s.io/v1").Json();
  EXPECT_EQ(list["groupVersion"], "storage.k8s.io/v1");
  EXPECT_EQ(list["resources"].size(), 4u);
  EXPECT_TRUE(Do("GET", "/openapi/v3").Json()["paths"].contains("apis/storage.k8s.io/v1"));
  EXPECT_EQ(Do("GET", "/apis/storage.k8s.io/v1beta1").code, 404);
}

// Each kind answers list and watch when there is none, then create, watch, get, patch, delete
// and deletecollection as any served kind does.
TEST_F(ApiServerTest, TheStorageKindsListWatchAndWrite) {
  const auto watch = [&](const std::string& path, const std::string& rv, int max_chunks) {
    FakeWriter w;
    w.max_chunks = max_chunks;
    http::HttpRequest req;
    req.method = "GET";
    req.path = path;
    req.query = {{"watch", "true"}, {"resourceVersion", rv}};
    server_.Handle(req, w);
    return w;
  };
  const std::string table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
  for (const StorageKind& k : StorageKinds()) {
    SCOPED_TRACE(k.resource);
    auto empty = Do("GET", k.collection);
    ASSERT_EQ(empty.code, 200) << empty.body;
    const json list = empty.Json();
    EXPECT_EQ(list["kind"], k.kind + "List");
    EXPECT_EQ(list["apiVersion"], k.api_version);
    EXPECT_EQ(list["items"], json::array());
    auto rows = Do("GET", k.collection, "", {{"accept", table}});
    ASSERT_EQ(rows.code, 200);
    EXPECT_EQ(rows.Json()["rows"], json::array());
    EXPECT_EQ(rows.Json()["columnDefinitions"][0]["name"], "Name");
    const std::string rv = list["metadata"]["resourceVersion"];
    auto quiet = watch(k.collection, rv, 0);  // the peer leaves before anything happens
    EXPECT_EQ(quiet.code, 200);
    EXPECT_EQ(quiet.body, "");

    auto created = Do("POST", k.collection + "?fieldValidation=Strict", k.body);
    ASSERT_EQ(created.code, 201) << created.body;
    auto event = watch(k.collection, rv, 1);
    const json e = json::parse(event.body);
    EXPECT_EQ(e["type"], "ADDED");
    EXPECT_EQ(e["object"], created.Json());
    const std::string item = k.collection + "/" + k.name;
    EXPECT_EQ(Do("GET", k.collection).Json()["items"].size(), 1u);
    EXPECT_EQ(Do("GET", item).Json(), created.Json());
    auto patched = Do("PATCH", item, R"({"metadata":{"labels":{"team":"storage"}}})",
                      {{"content-type", "application/merge-patch+json"}});
    ASSERT_EQ(patched.code, 200) << patched.body;
    EXPECT_EQ(patched.Json()["metadata"]["labels"]["team"], "storage");
    // A PersistentVolume's pv-protection finalizer (admission's) is its controller's to take
    // off: here, by hand.
    const bool protected_kind = created.Json()["metadata"].contains("finalizers");
    EXPECT_EQ(protected_kind, k.resource == "persistentvolumes");
    auto unprotect = [&] {
      if (!protected_kind) return;
      ASSERT_EQ(Do("PATCH", item, R"({"metadata":{"finalizers":null}})",
                   {{"content-type", "application/merge-patch+json"}})
                    .code,
                200);
    };
    unprotect();
    ASSERT_EQ(Do("DELETE", item).code, 200);
    EXPECT_EQ(Do("GET", item).code, 404);
    ASSERT_EQ(Do("POST", k.collection, k.body).code, 201);
    unprotect();
    auto collection = Do("DELETE", k.collection);
    ASSERT_EQ(collection.code, 200) << collection.body;
    EXPECT_EQ(collection.Json()["items"].size(), 1u);
    EXPECT_EQ(Do("GET", k.collection).Json()["items"], json::array());
  }
}

// The defaults kube-apiserver applies, and what the strategies set on create.
// pkg/apis/core/v1's defaults below a pod spec (SetDefaults_Volume, the volume sources',
// SetDefaults_ObjectFieldSelector, SetDefaults_Probe/HTTPGetAction), in a pod and in a
// Deployment's template; values the client set are kept.
TEST_F(ApiServerTest, VolumesEnvAndProbesGetKubesDefaults) {
  const json spec = json::parse(R"({"containers":[{"name":"c","image":"busybox:1",
    "env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
           {"name":"B","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"spec.nodeName"}}},
           {"name":"C","value":"x"}],
    "livenessProbe":{"httpGet":{"port":8080}},
    "readinessProbe":{"exec":{"command":["true"]},"periodSeconds":5}}],
    "volumes":[{"name":"none"},
               {"name":"s","secret":{"secretName":"x"}},
               {"name":"cm","configMap":{"name":"x","defaultMode":256}},
               {"name":"d","downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}},
               {"name":"h","hostPath":{"path":"/tmp"}},
               {"name":"p","projected":{"sources":[
                 {"serviceAccountToken":{"path":"t"}},
                 {"downwardAPI":{"items":[{"path":"l","fieldRef":{"fieldPath":"metadata.labels"}}]}}]}}]})");
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}, {"spec", spec}};
  json deploy = {{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", {{"name", "d"}}},
                 {"spec",
                  {{"selector", {{"matchLabels", {{"app", "d"}}}}},
                   {"template", {{"metadata", {{"labels", {{"app", "d"}}}}}, {"spec", spec}}}}}};
  auto p = Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
  ASSERT_EQ(p.code, 201) << p.body;
  auto d = Do("POST", "/apis/apps/v1/namespaces/default/deployments", deploy.dump());
  ASSERT_EQ(d.code, 201) << d.body;
  for (const json& got : {p.Json()["spec"], d.Json()["spec"]["template"]["spec"]}) {
    const json& c = got["containers"][0];
    EXPECT_EQ(c["env"][0]["valueFrom"]["fieldRef"],
              json({{"apiVersion", "v1"}, {"fieldPath", "metadata.name"}}));
    EXPECT_EQ(c["env"][1]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
    EXPECT_EQ(c["env"][2], json({{"name", "C"}, {"value", "x"}}));
    EXPECT_EQ(c["livenessProbe"],
              json::parse(R"({"httpGet":{"port":8080,"path":"/","scheme":"HTTP"},
      "timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3})"));
    EXPECT_EQ(c["readinessProbe"]["periodSeconds"], 5);
    const json& v = got["volumes"];
    EXPECT_EQ(v[0], json::parse(R"({"name":"none","emptyDir":{}})"));
    EXPECT_EQ(v[1]["secret"]["defaultMode"], 420);
    EXPECT_EQ(v[2]["configMap"]["defaultMode"], 256);
    EXPECT_EQ(v[3]["downwardAPI"], json::parse(R"({"defaultMode":420,
      "items":[{"path":"n","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}]})"));
    EXPECT_EQ(v[4]["hostPath"], json::parse(R"({"path":"/tmp","type":""})"));
    EXPECT_EQ(v[5]["projected"], json::parse(R"({"defaultMode":420,"sources":[
      {"serviceAccountToken":{"path":"t","expirationSeconds":3600}},
      {"downwardAPI":{"items":[{"path":"l","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.labels"}}]}}]})"));
  }
}

// core/v1 PodTemplates as kube-apiserver serves them: discovery, the template's pod-spec
// defaults, ValidatePodTemplate's errors at "template...", kube's table columns.
TEST_F(ApiServerTest, PodTemplatesAreServedWithDefaultsValidationAndTable) {
  const json discovery = Do("GET", "/api/v1").Json();
  bool listed = false;
  for (const json& r : discovery["resources"]) listed |= r["name"] == "podtemplates";
  EXPECT_TRUE(listed);
  const json pt =
      json::parse(R"({"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"nginx"},
    "template":{"metadata":{"labels":{"name":"nginx","tier":"web"}},
                "spec":{"containers":[{"name":"nginx","image":"nginx"},{"name":"side","image":"busybox:1"}]}}})");
  auto created = Do("POST", "/api/v1/namespaces/default/podtemplates", pt.dump());
  ASSERT_EQ(created.code, 201) << created.body;
  const json created_pt = created.Json();
  const json& spec = created_pt["template"]["spec"];
  EXPECT_EQ(spec["restartPolicy"], "Always");
  EXPECT_EQ(spec["dnsPolicy"], "ClusterFirst");
  EXPECT_EQ(spec["containers"][0]["imagePullPolicy"], "Always");
  EXPECT_FALSE(spec.contains("serviceAccountName"));  // a pod's default, not a template's
  const json table = Do("GET", "/api/v1/namespaces/default/podtemplates", "",
                        {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}})
                         .Json();
  std::vector<std::string> columns;
  for (const json& c : table["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Containers", "Images", "Pod Labels"}));
  EXPECT_EQ(table["rows"][0]["cells"],
            json::array({"nginx", "nginx,side", "nginx,busybox:1", "name=nginx,tier=web"}));

  auto empty = Do("POST", "/api/v1/namespaces/default/podtemplates",
                  R"({"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"empty"}})");
  EXPECT_EQ(empty.code, 422);
  EXPECT_NE(
      empty.Json()["message"].get<std::string>().find("template.spec.containers: Required value"),
      std::string::npos)
      << empty.body;
}

// Every ObjectMeta embedded in a typed object comes back with creationTimestamp: null, as Go
// writes the struct's zero metav1.Time; a pod's own metadata gets the server's time instead.
TEST_F(ApiServerTest, EmbeddedObjectMetaIsServedWithANullCreationTimestamp) {
  const std::string pod_spec =
      R"({"containers":[{"name":"c","image":"nginx"}],
          "volumes":[{"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{
            "accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}]})";
  const std::string tmpl = R"({"metadata":{"labels":{"app":"x"}},"spec":)" + pod_spec + "}";
  const std::string sel = R"({"matchLabels":{"app":"x"}})";
  struct Case {
    std::string path, body;
    std::vector<std::vector<std::string>> metas;  // paths to the embedded metadata
  };
  const std::vector<Case> cases = {
      {"/api/v1/namespaces/default/pods",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":)" + pod_spec + "}",
       {{"spec", "volumes", "0", "ephemeral", "volumeClaimTemplate", "metadata"}}},
      {"/apis/apps/v1/namespaces/default/deployments",
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":)" +
           sel + R"(,"template":)" + tmpl + "}}",
       {{"spec", "template", "metadata"},
        {"spec", "template", "spec", "volumes", "0", "ephemeral", "volumeClaimTemplate",
         "metadata"}}},
      {"/apis/apps/v1/namespaces/default/statefulsets",
       R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},"spec":{"selector":)" +
           sel + R"(,"serviceName":"s","template":)" + tmpl +
           R"(,"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],
              "resources":{"requests":{"storage":"1Gi"}}}}]}})",
       {{"spec", "template", "metadata"}, {"spec", "volumeClaimTemplates", "0", "metadata"}}},
      {"/apis/batch/v1/namespaces/default/cronjobs",
       R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},"spec":{"schedule":"* * * * *",
          "jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}})",
       {{"spec", "jobTemplate", "metadata"},
        {"spec", "jobTemplate", "spec", "template", "metadata"}}},
      {"/api/v1/namespaces/default/podtemplates",
       R"({"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"pt"},"template":)" + tmpl +
           "}",
       {{"template", "metadata"}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    auto created = Do("POST", c.path, c.body);
    ASSERT_EQ(created.code, 201) << created.body;
    const json obj = created.Json();
    EXPECT_TRUE(obj["metadata"]["creationTimestamp"].is_string());
    for (const auto& path : c.metas) {
      const json* at = &obj;
      for (const std::string& k : path) {
        at = at->is_array() ? &(*at)[std::stoul(k)] : &(*at)[k];
      }
      ASSERT_TRUE(at->is_object()) << json(path).dump();
      EXPECT_TRUE(at->contains("creationTimestamp") && (*at)["creationTimestamp"].is_null())
          << json(path).dump() << " " << at->dump();
    }
  }
}

// A create or PUT body that does not decode is kube's transformDecodeError: the kind it must be,
// the decoder's error and the body's first 30 bytes (in hex unless they start with '{').
TEST_F(ApiServerTest, ABodyThatDoesNotDecodeIsUnrecognizedAsKubeSaysIt) {
  auto yaml_like = Do("POST", "/api/v1/namespaces", "apiVersion: v1\nkind: Pod\n");
  EXPECT_EQ(yaml_like.code, 400);
  EXPECT_EQ(yaml_like.Json()["message"],
            "the object provided is unrecognized (must be of type Namespace): couldn't get "
            "version/kind; json parse error: invalid character 'a' looking for beginning of value "
            "(61706956657273696f6e3a2076310a6b696e643a20506f640a)");
  auto truncated = Do("PUT", "/api/v1/namespaces/default/configmaps/x",
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":)");
  EXPECT_EQ(truncated.code, 400);
  EXPECT_EQ(truncated.Json()["message"],
            "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
            "version/kind; json parse error: unexpected end of JSON input "
            "({\"apiVersion\":\"v1\",\"kind\":\"Con ...)");
}

TEST_F(ApiServerTest, TheStorageKindsGetKubeApiserversDefaults) {
  std::map<std::string, json> created;
  for (const StorageKind& k : StorageKinds()) {
    auto c = Do("POST", k.collection, k.body);
    ASSERT_EQ(c.code, 201) << c.body;
    created[k.resource] = c.Json();
  }
  const std::string now = FormatRfc3339(clock_.Now());
  const json& pv = created["persistentvolumes"];
  EXPECT_EQ(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
  EXPECT_EQ(pv["spec"]["volumeMode"], "Filesystem");
  EXPECT_EQ(pv["spec"]["hostPath"]["type"], "");
  EXPECT_EQ(pv["status"], json({{"phase", "Pending"}, {"lastPhaseTransitionTime", now}}));
  EXPECT_FALSE(pv["metadata"].contains("generation"));

  const json& rc = created["replicationcontrollers"];
  EXPECT_EQ(rc["spec"]["replicas"], 1);
  EXPECT_EQ(rc["spec"]["selector"], json({{"app", "web"}}));
  EXPECT_EQ(rc["metadata"]["labels"], json({{"app", "web"}}));
  EXPECT_EQ(rc["metadata"]["generation"], 1);
  EXPECT_EQ(rc["status"], json({{"replicas", 0}}));
  const json& pod_spec = rc["spec"]["template"]["spec"];
  EXPECT_EQ(pod_spec["restartPolicy"], "Always");
  EXPECT_EQ(pod_spec["dnsPolicy"], "ClusterFirst");
  EXPECT_EQ(pod_spec["schedulerName"], "default-scheduler");
  EXPECT_EQ(pod_spec["terminationGracePeriodSeconds"], 30);
  EXPECT_EQ(pod_spec["containers"][0]["imagePullPolicy"], "Always");
  EXPECT_FALSE(pod_spec.contains("serviceAccountName"));  // a pod's default, not a template's

  EXPECT_EQ(created["storageclasses"]["reclaimPolicy"], "Delete");
  EXPECT_EQ(created["storageclasses"]["volumeBindingMode"], "Immediate");
  EXPECT_EQ(created["csidrivers"]["spec"], json::parse(R"({"attachRequired":true,
      "podInfoOnMount":false,"storageCapacity":false,"fsGroupPolicy":"ReadWriteOnceWithFSType",
      "volumeLifecycleModes":["Persistent"],"requiresRepublish":false,"seLinuxMount":false})"));

  // A status sent on create is the server's; a spec change bumps an RC's generation.
  json pv2 = json::parse(StorageKinds()[0].body);
  pv2["metadata"]["name"] = "pv-2";
  pv2["status"] = {{"phase", "Bound"}};
  EXPECT_EQ(Do("POST", "/api/v1/persistentvolumes", pv2.dump()).Json()["status"]["phase"],
            "Pending");
  auto scaled = Do("PATCH", "/api/v1/namespaces/default/replicationcontrollers/web",
                   R"({"spec":{"replicas":3}})",
                   {{"content-type", "application/strategic-merge-patch+json"}});
  ASSERT_EQ(scaled.code, 200) << scaled.body;
  EXPECT_EQ(scaled.Json()["metadata"]["generation"], 2);
}

TEST_F(ApiServerTest, TheStorageKindsValidationAndTables) {
  auto invalid = Do("POST", "/apis/storage.k8s.io/v1/storageclasses",
                    R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
                        "metadata":{"name":"nothing"}})");
  EXPECT_EQ(invalid.code, 422) << invalid.body;
  EXPECT_EQ(invalid.Json()["reason"], "Invalid");
  EXPECT_EQ(invalid.Json()["details"]["group"], "storage.k8s.io");
  EXPECT_EQ(invalid.Json()["details"]["kind"], "StorageClass");
  EXPECT_EQ(invalid.Json()["details"]["causes"], json::parse(R"([{"reason":"FieldValueRequired",
      "message":"Required value","field":"provisioner"}])"));
  auto no_template = Do("POST", "/api/v1/namespaces/default/replicationcontrollers",
                        R"({"apiVersion":"v1","kind":"ReplicationController",
                            "metadata":{"name":"x"},"spec":{"replicas":1}})");
  EXPECT_EQ(no_template.code, 422) << no_template.body;
  std::vector<std::string> fields;
  const json status = no_template.Json();
  for (const json& c : status["details"]["causes"]) fields.push_back(c["field"]);
  EXPECT_EQ(fields, (std::vector<std::string>{"spec.selector", "spec.template"}));

  json sc = json::parse(StorageKinds()[2].body);
  sc["metadata"]["annotations"] = {{"storageclass.kubernetes.io/is-default-class", "true"}};
  sc["volumeBindingMode"] = "WaitForFirstConsumer";
  sc["allowVolumeExpansion"] = true;
  ASSERT_EQ(Do("POST", "/apis/storage.k8s.io/v1/storageclasses", sc.dump()).code, 201);
  const json t = Do("GET", "/apis/storage.k8s.io/v1/storageclasses", "",
                    {{"accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}})
                     .Json();
  std::vector<std::string> columns;
  for (const json& c : t["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode",
                                      "AllowVolumeExpansion", "Age"}));
  EXPECT_EQ(t["rows"][0]["cells"], json::parse(R"j(["standard-rwo (default)",
      "pd.csi.storage.gke.io","Delete","WaitForFirstConsumer",true,"0s"])j"));
}

// replicationcontrollers/scale as kubectl scale uses it; the Scale's selector is the RC's map.
TEST_F(ApiServerTest, TheScaleSubresourceOfAReplicationController) {
  ASSERT_EQ(
      Do("POST", "/api/v1/namespaces/default/replicationcontrollers", StorageKinds()[1].body).code,
      201);
  const std::string path = "/api/v1/namespaces/default/replicationcontrollers/web/scale";
  const json s = Do("GET", path).Json();
  EXPECT_EQ(s["kind"], "Scale");
  EXPECT_EQ(s["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(s["spec"], json({{"replicas", 1}}));
  EXPECT_EQ(s["status"], json::parse(R"({"replicas":0,"selector":"app=web"})"));
  auto p = Do("PATCH", path, R"({"spec":{"replicas":4}})",
              {{"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(p.code, 200) << p.body;
  EXPECT_EQ(p.Json()["spec"]["replicas"], 4);
  const json rc = Do("GET", "/api/v1/namespaces/default/replicationcontrollers/web").Json();
  EXPECT_EQ(rc["spec"]["replicas"], 4);
  EXPECT_EQ(rc["metadata"]["generation"], 2);
  EXPECT_EQ(Do("GET", "/api/v1/persistentvolumes/x/scale").code, 404);
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

// What the Cluster Autoscaler writes in protobuf (client-go's default content type) besides
// Nodes and Events: its drain's pods/eviction, the DELETE of a pod with a DeleteOptions body,
// and its leader election's Lease, created and then renewed with a PUT.
TEST_F(ApiServerTest, ProtobufEvictionDeleteAndLeaseBodies) {
  const std::map<std::string, std::string> pb = {
      {"content-type", "application/vnd.kubernetes.protobuf"}};
  auto encode = [](const json& obj) {
    auto body = protobuf::EncodeObject(obj);
    EXPECT_TRUE(body.ok()) << body.status().ToString();
    return body.ok() ? *body : std::string();
  };
  for (const char* name : {"evicted", "deleted"}) {
    json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}}},
        {"spec",
         {{"nodeName", "n1"}, {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  }
  const json eviction = {{"apiVersion", "policy/v1"},
                         {"kind", "Eviction"},
                         {"metadata", {{"name", "evicted"}, {"namespace", "default"}}},
                         {"deleteOptions", {{"gracePeriodSeconds", 7}}}};
  auto e = Do("POST", "/api/v1/namespaces/default/pods/evicted/eviction", encode(eviction), pb);
  ASSERT_EQ(e.code, 201) << e.body;
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/evicted")
                .Json()["metadata"]["deletionGracePeriodSeconds"],
            7);
  const json options = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}};
  auto d = Do("DELETE", "/api/v1/namespaces/default/pods/deleted", encode(options), pb);
  ASSERT_EQ(d.code, 200) << d.body;
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/deleted").code, 404);

  json lease = json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
      "metadata":{"name":"cluster-autoscaler","namespace":"kube-system"},
      "spec":{"holderIdentity":"ca-1","leaseDurationSeconds":15,
              "acquireTime":"2026-11-29T22:50:00.000000Z",
              "renewTime":"2026-11-29T22:50:00.000000Z","leaseTransitions":0}})");
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  auto c = Do("POST", leases, encode(lease), pb);
  ASSERT_EQ(c.code, 201) << c.body;
  EXPECT_EQ(c.Json()["spec"], lease["spec"]);
  lease["metadata"]["resourceVersion"] = c.Json()["metadata"]["resourceVersion"];
  lease["spec"]["renewTime"] = "2026-11-29T22:50:02.500000Z";
  auto u = Do("PUT", leases + "/cluster-autoscaler", encode(lease), pb);
  ASSERT_EQ(u.code, 200) << u.body;
  EXPECT_EQ(Do("GET", leases + "/cluster-autoscaler").Json()["spec"]["renewTime"],
            "2026-11-29T22:50:02.500000Z");
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {

constexpr char kClientGoAccept[] = "application/vnd.kubernetes.protobuf,application/json";

// The WatchEvents of a protobuf watch stream (negotiation.h): each a 4-byte big-endian length,
// then {1: type, 2: RawExtension{1: the object's whole protobuf body}}; as (type, object JSON).
std::vector<std::pair<std::string, json>> ProtobufWatchEvents(std::string_view stream) {
  std::vector<std::pair<std::string, json>> out;
  while (stream.size() >= 4) {
    const auto* b = reinterpret_cast<const unsigned char*>(stream.data());
    const size_t n = size_t{b[0]} << 24 | size_t{b[1]} << 16 | size_t{b[2]} << 8 | b[3];
    EXPECT_LE(n + 4, stream.size());
    protobuf::Reader r(stream.substr(4, n), "WatchEvent");
    std::string type;
    json object;
    while (!r.Done()) {
      auto f = r.Next();
      if (!f.ok()) break;
      if (f->number == 1) type = std::string(f->bytes);
      if (f->number != 2) continue;
      protobuf::Reader raw(f->bytes, "RawExtension");
      auto g = raw.Next();
      if (!g.ok()) break;
      auto decoded = protobuf::DecodeObject(g->bytes);
      EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
      if (decoded.ok()) object = *decoded;
    }
    out.emplace_back(type, object);
    stream.remove_prefix(std::min(stream.size(), n + 4));
  }
  return out;
}

// A client that prefers protobuf (client-go's default Accept) gets the objects of GET, LIST,
// WATCH and of a write's answer in protobuf, each exactly the stored object's encoding; a Table,
// an Accept preferring JSON and an error stay JSON.
TEST_F(ApiServerTest, ProtobufResponsesWhenTheClientPrefersThem) {
  const std::map<std::string, std::string> pb = {{"accept", kClientGoAccept}};
  const std::string rv = std::to_string(store_.resource_version());
  for (const char* name : {"a", "b"}) {
    json pod = json::parse(kGoodPod);
    pod["metadata"]["name"] = name;
    ASSERT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 201);
  }
  const std::string path = "/api/v1/namespaces/default/pods/a";
  const json stored = Do("GET", path).Json();

  FakeWriter g = Do("GET", path, "", pb);
  ASSERT_EQ(g.code, 200);
  EXPECT_EQ(g.type, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(g.body, *protobuf::EncodeObject(stored));
  auto got = protobuf::DecodeObject(g.body);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["metadata"]["uid"], stored["metadata"]["uid"]);
  EXPECT_EQ((*got)["metadata"]["resourceVersion"], stored["metadata"]["resourceVersion"]);
  EXPECT_EQ((*got)["spec"]["containers"][0]["image"], "nvidia/cuda:11.4.2-base-ubuntu20.04");

  FakeWriter l = Do("GET", "/api/v1/namespaces/default/pods", "", pb);
  ASSERT_EQ(l.code, 200);
  EXPECT_EQ(l.type, "application/vnd.kubernetes.protobuf");
  auto list = protobuf::DecodeList(l.body);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ((*list)["kind"], "PodList");
  EXPECT_EQ((*list)["metadata"]["resourceVersion"], std::to_string(store_.resource_version()));
  ASSERT_EQ((*list)["items"].size(), 2u);
  EXPECT_EQ((*list)["items"][1]["metadata"]["name"], "b");

  // A write's answer: a merge patch.
  FakeWriter p =
      Do("PATCH", path, R"({"metadata":{"labels":{"x":"y"}}})",
         {{"accept", kClientGoAccept}, {"content-type", "application/merge-patch+json"}});
  ASSERT_EQ(p.code, 200) << p.body;
  EXPECT_EQ(p.type, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(protobuf::DecodeObject(p.body)->at("metadata")["labels"]["x"], "y");

  // JSON stays JSON: an Accept preferring it, a Table, an error.
  for (const std::string accept :
       {"application/json, application/vnd.kubernetes.protobuf", "",
        "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json"}) {
    SCOPED_TRACE(accept);
    FakeWriter j = Do("GET", path, "", {{"accept", accept}});
    EXPECT_EQ(j.type, "application/json");
    EXPECT_EQ(j.Json()["kind"], accept.find("Table") != std::string::npos ? "Table" : "Pod");
  }
  FakeWriter missing = Do("GET", "/api/v1/namespaces/default/pods/zz", "", pb);
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.type, "application/json");
  EXPECT_EQ(missing.Json()["reason"], "NotFound");

  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/b").code, 200);
  FakeWriter w;
  w.max_chunks = 1;
  http::HttpRequest req;
  req.method = "GET";
  req.path = "/api/v1/namespaces/default/pods";
  req.query = {{"watch", "true"}, {"resourceVersion", rv}};
  req.headers = pb;
  server_.Handle(req, w);
  EXPECT_EQ(w.type, "application/vnd.kubernetes.protobuf;stream=watch");
  const auto events = ProtobufWatchEvents(w.body);
  ASSERT_EQ(events.size(), 4u);
  const std::vector<std::string> types = {"ADDED", "ADDED", "MODIFIED", "DELETED"};
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].first, types[i]);
    EXPECT_EQ(events[i].second["kind"], "Pod");
    EXPECT_EQ(events[i].second["metadata"]["name"], i == 0 || i == 2 ? "a" : "b");
  }
}

}  // namespace tidepool::apiserver

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

// A POST of `body` to `target` on `server`.
FakeWriter PostTo(ApiServer& server, const std::string& target, const std::string& body) {
  http::HttpRequest req;
  req.method = "POST";
  req.target = target;
  http::SplitRequestTarget(req);
  req.headers["content-type"] = "application/json";
  req.body = body;
  FakeWriter w;
  server.Handle(req, w);
  return w;
}

TEST(ApiServerAuthnTest, ATokenReviewAuthenticatesTheTokenAsABearerToken) {
  SimulatedClock clock;
  ObjectStore store(clock, nullptr);
  PodLogs logs;
  ApiServerOptions options{"127.0.0.1:6443"};
  options.token_valid = [](std::string_view t) { return t == "good"; };
  ApiServer server(clock, store, logs, options);
  const std::string path = "/apis/authentication.k8s.io/v1/tokenreviews";
  auto review = [&](const std::string& token) {
    return PostTo(
        server, path,
        R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","spec":{"token":")" +
            token + R"("}})");
  };
  auto good = review("good");
  ASSERT_EQ(good.code, 201) << good.body;
  EXPECT_EQ(json::parse(good.body)["status"], json::parse(R"({"authenticated": true,
      "user": {"username": "tidepool-admin", "groups": ["system:masters", "system:authenticated"]}})"));
  auto bad = review("test-token");
  ASSERT_EQ(bad.code, 201) << bad.body;
  EXPECT_EQ(json::parse(bad.body)["status"],
            json::parse(R"({"user": {}, "error": "invalid bearer token"})"));
  auto none =
      PostTo(server, path, R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1"})");
  EXPECT_EQ(none.code, 400);
  EXPECT_EQ(json::parse(none.body)["message"],
            "token is required for TokenReview in authentication");
}

TEST(ApiServerAdmissionTest, ANewNodeIsTaintedNotReadyUnlessThePluginIsOff) {
  for (const bool plugin : {true, false}) {
    SCOPED_TRACE(plugin);
    SimulatedClock clock;
    ObjectStore store(clock, nullptr);
    PodLogs logs;
    ApiServerOptions options{"127.0.0.1:6443"};
    options.taint_nodes_by_condition = plugin;
    ApiServer server(clock, store, logs, options);
    auto w = PostTo(server, "/api/v1/nodes",
                    R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"},
                        "spec":{"taints":[{"key":"a","effect":"NoExecute"}]}})");
    ASSERT_EQ(w.code, 201) << w.body;
    const json taints = json::parse(w.body)["spec"]["taints"];
    if (plugin) {
      EXPECT_EQ(taints, json::parse(R"([{"key":"a","effect":"NoExecute"},
                                        {"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}])"));
    } else {
      EXPECT_EQ(taints.size(), 1u);
    }
  }
}

}  // namespace
}  // namespace tidepool::apiserver
