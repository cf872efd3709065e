#include "controllers/replicaset/replicaset_controller.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::replicaset {
namespace {

// A pod's binding to a node (what the scheduler posts; spec.nodeName is immutable otherwise).
nlohmann::json BindingTo(const std::string& pod, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata", {{"name", pod}}},
          {"target", {{"kind", "Node"}, {"name", node}}}};
}

using client::ResourcePath;
using nlohmann::json;

class RecordingRecorder : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& o, std::string_view type, std::string_view reason,
             std::string message) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(o.kind + " " + std::string(type) + " " + std::string(reason) + " " + message);
  }
  std::vector<std::string> events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

// A transport to `api` that refuses the pod creations from the `from`-th on (a quota of
// sorts), counting them in `creates`.
cluster::InProcessTransport RefusingPodCreates(apiserver::ApiServer& api, int from, int* creates) {
  return cluster::InProcessTransport([&api, from, creates](const apiserver::http::HttpRequest& req,
                                                           apiserver::http::ResponseWriter& w) {
    if (req.method == "POST" && req.target.find("/pods") != std::string::npos &&
        ++*creates >= from) {
      w.Send(
          403, "application/json",
          R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"web-x\" is forbidden: exceeded quota","reason":"Forbidden","code":403})");
      return;
    }
    api.Handle(req, w);
  });
}

class ReplicaSetControllerTest : public ::testing::Test {
 public:  // ReplicaSet() serves the executor tests too
  ReplicaSetControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)),
        controller_(client_, api_.clock(), {}, &recorder_) {}
  ~ReplicaSetControllerTest() override { controller_.Stop(); }

  static json ReplicaSet(int replicas) {
    return {{"apiVersion", "apps/v1"},
            {"kind", "ReplicaSet"},
            {"metadata", {{"name", "web"}, {"namespace", "default"}}},
            {"spec",
             {{"replicas", replicas},
              {"selector", {{"matchLabels", {{"app", "web"}}}}},
              {"template",
               {{"metadata", {{"labels", {{"app", "web"}, {"tier", "front"}}}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}}}}}};
  }

 protected:
  std::string RsPath(const std::string& sub = "") {
    return ResourcePath("apps", "v1", "replicasets", "default", "web", sub);
  }
  json Pods() {
    auto list = client_.List(ResourcePath("", "v1", "pods", "default"));
    return list.ok() ? (*list)["items"] : json::array();
  }
  // Waits (up to ~10 s) until `pred` holds.
  bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  json Status() {
    auto rs = client_.Get(RsPath());
    return rs.ok() && (*rs).contains("status") ? (*rs)["status"] : json::object();
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  RecordingRecorder recorder_;
  ReplicaSetController controller_;
};

TEST_F(ReplicaSetControllerTest, CreatesPodsFromTheTemplateWithAControllerRef) {
  controller_.Start();
  json rs = *client_.Create(ResourcePath("apps", "v1", "replicasets", "default"), ReplicaSet(3));
  ASSERT_TRUE(Eventually([&] { return Pods().size() == 3; }));
  for (const json& p : Pods()) {
    EXPECT_EQ(p["metadata"]["name"].get<std::string>().rfind("web-", 0), 0u);
    EXPECT_EQ(p["metadata"]["labels"], (json{{"app", "web"}, {"tier", "front"}}));
    const json& ref = p["metadata"]["ownerReferences"][0];
    EXPECT_EQ(ref["kind"], "ReplicaSet");
    EXPECT_EQ(ref["uid"], rs["metadata"]["uid"]);
    EXPECT_EQ(ref["controller"], true);
    EXPECT_EQ(ref["blockOwnerDeletion"], true);
  }
  ASSERT_TRUE(Eventually([&] { return Status().value("replicas", 0) == 3; }));
  EXPECT_EQ(Status()["fullyLabeledReplicas"], 3);
  EXPECT_EQ(Status()["observedGeneration"], 1);
  EXPECT_FALSE(Status().contains("readyReplicas"));
  int created = 0;
  for (const std::string& e : recorder_.events()) {
    if (e.rfind("ReplicaSet Normal SuccessfulCreate Created pod: web-", 0) == 0) ++created;
  }
  EXPECT_EQ(created, 3);
}

TEST_F(ReplicaSetControllerTest, ScalesDownUnassignedPodsFirstAndCountsReadiness) {
  controller_.Start();
  ASSERT_TRUE(client_.Create(ResourcePath("apps", "v1", "replicasets", "default"), ReplicaSet(3)).ok());
  ASSERT_TRUE(Eventually([&] { return Pods().size() == 3; }));
  // Two pods bound and ready; the third stays unassigned.
  std::vector<std::string> names;
  for (const json& p : Pods()) names.push_back(p["metadata"]["name"]);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "pods", "default", names[i], "binding"),
                               BindingTo(names[i], "n1"))
                    .ok());
    json st = {{"status", {{"phase", "Running"},
                           {"conditions", json::array({{{"type", "Ready"}, {"status", "True"},
                                                        {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})}}}};
    ASSERT_TRUE(client_.Patch(ResourcePath("", "v1", "pods", "default", names[i], "status"),
                              client::PatchType::kMerge, st)
                    .ok());
  }
  ASSERT_TRUE(Eventually([&] { return Status().value("readyReplicas", 0) == 2; }));
  EXPECT_EQ(Status()["availableReplicas"], 2);
  ASSERT_TRUE(client_.Patch(RsPath(), client::PatchType::kMerge, {{"spec", {{"replicas", 2}}}}).ok());
  ASSERT_TRUE(Eventually([&] {
    json pods = Pods();
    int live = 0;
    for (const json& p : pods) live += p["metadata"].contains("deletionTimestamp") ? 0 : 1;
    return live == 2;
  }));
  for (const json& p : Pods()) {
    if (p["metadata"].contains("deletionTimestamp")) continue;
    EXPECT_NE(p["metadata"]["name"], names[2]);  // the unassigned one went
  }
  ASSERT_TRUE(Eventually([&] { return Status().value("replicas", 0) == 2; }));
  EXPECT_EQ(Status()["observedGeneration"], 2);
}

TEST_F(ReplicaSetControllerTest, AdoptsMatchingOrphansInsteadOfCreating) {
  json orphan = {{"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata", {{"name", "stray"}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
                 {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
  ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "pods", "default"), orphan).ok());
  controller_.Start();
  json rs = *client_.Create(ResourcePath("apps", "v1", "replicasets", "default"), ReplicaSet(2));
  ASSERT_TRUE(Eventually([&] { return Status().value("replicas", 0) == 2; }));
  json pods = Pods();
  ASSERT_EQ(pods.size(), 2u);
  auto stray = client_.Get(ResourcePath("", "v1", "pods", "default", "stray"));
  ASSERT_TRUE(stray.ok());
  EXPECT_EQ((*stray)["metadata"]["ownerReferences"][0]["uid"], rs["metadata"]["uid"]);
  EXPECT_EQ(Status()["fullyLabeledReplicas"], 1);  // the orphan lacks tier=front
}

// What the tally keeps pod by pod follows relabelled pods, template changes and a ReplicaSet
// made again under the same name.
TEST_F(ReplicaSetControllerTest, CountsFollowReleasesTemplatesAndANewReplicaSetOfTheSameName) {
  controller_.Start();
  ASSERT_TRUE(
      client_.Create(ResourcePath("apps", "v1", "replicasets", "default"), ReplicaSet(2)).ok());
  ASSERT_TRUE(Eventually([&] { return Status().value("fullyLabeledReplicas", 0) == 2; }));
  // A pod relabelled out of the selector is released and replaced.
  const std::string moved = Pods()[0]["metadata"]["name"];
  ASSERT_TRUE(client_
                  .Patch(ResourcePath("", "v1", "pods", "default", moved),
                         client::PatchType::kMerge,
                         {{"metadata", {{"labels", {{"app", "other"}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    auto p = client_.Get(ResourcePath("", "v1", "pods", "default", moved));
    return p.ok() && (*p)["metadata"].value("ownerReferences", json::array()).empty() &&
           Pods().size() == 3;
  }));
  ASSERT_TRUE(Eventually([&] { return Status().value("replicas", 0) == 2; }));
  // A template label the pods lack: none is fully labeled any more.
  ASSERT_TRUE(
      client_
          .Patch(RsPath(), client::PatchType::kMerge,
                 {{"spec", {{"template", {{"metadata", {{"labels", {{"tier", "back"}}}}}}}}}})
          .ok());
  ASSERT_TRUE(Eventually([&] {
    const json st = Status();
    return st.value("observedGeneration", 0) == 2 && !st.contains("fullyLabeledReplicas");
  }));
  EXPECT_EQ(Status()["replicas"], 2);
  // The ReplicaSet deleted (no garbage collector here: its pods stay, owned by the old uid) and
  // made again: it counts only pods of its own.
  ASSERT_TRUE(client_.Delete(RsPath()).ok());
  ASSERT_TRUE(
      client_.Create(ResourcePath("apps", "v1", "replicasets", "default"), ReplicaSet(1)).ok());
  ASSERT_TRUE(Eventually([&] { return Pods().size() == 4 && Status().value("replicas", 0) == 1; }));
  EXPECT_EQ(Status()["fullyLabeledReplicas"], 1);
}

TEST_F(ReplicaSetControllerTest, CreatesInSlowStartBatchesAndStopsAtTheFirstFailure) {
  // A quota of sorts: pods named in the 3rd creation and later are refused.
  int creates = 0;
  cluster::InProcessTransport failing = RefusingPodCreates(api_.api(), 3, &creates);
  client::RestClient client(cluster::InProcessRestConfig(), api_.clock(),
                            cluster::InProcessRestOptions(failing));
  ReplicaSetControllerOptions options;
  options.retry_after = std::chrono::hours(1);  // one sync only
  ReplicaSetController c(client, api_.clock(), options, &recorder_);
  c.Start();
  ASSERT_TRUE(client_.Create(ResourcePath("apps", "v1", "replicasets", "default"), ReplicaSet(10)).ok());
  // Batches 1, 2, 4: the third creation (in the batch of 2) fails, so the batch of 4 never
  // runs; each later sync (the status write requeues it, as in kcm) tries a batch of 1.
  ASSERT_TRUE(Eventually([&] {
    json conds = Status().value("conditions", json::array());
    return !conds.empty();
  }));
  c.Stop();
  std::vector<std::string> events = recorder_.events();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[0].rfind("ReplicaSet Normal SuccessfulCreate", 0), 0u);
  EXPECT_EQ(events[1].rfind("ReplicaSet Normal SuccessfulCreate", 0), 0u);
  for (size_t i = 2; i < events.size(); ++i) {
    EXPECT_EQ(events[i], "ReplicaSet Warning FailedCreate Error creating: pods \"web-x\" is forbidden: exceeded quota");
  }
  EXPECT_EQ(creates, static_cast<int>(events.size()));
  EXPECT_EQ(Pods().size(), 2u);
  json cond = Status()["conditions"][0];
  EXPECT_EQ(cond["type"], "ReplicaFailure");
  EXPECT_EQ(cond["reason"], "FailedCreate");
  c.Stop();
}

// ---- With an executor: on an EventQueue, informers fed by hand (no thread of its own) ------

const std::string kReplicaSets = ResourcePath("apps", "v1", "replicasets", "default");
const std::string kPods = ResourcePath("", "v1", "pods", "default");

// What a run leaves, to compare two runs: every pod (name, node, deleting), the status, the
// events and the store's revision.
struct Transcript {
  std::vector<std::string> pods;
  json status;
  std::vector<std::string> events;
  int64_t revision = 0;
  bool operator==(const Transcript&) const = default;
};

Transcript Record(testing::DrivenCluster& c, const RecordingRecorder& recorder) {
  Transcript t;
  for (const json& p : c.List(kPods)) {
    t.pods.push_back(p["metadata"]["name"].get<std::string>() + " " +
                     p["spec"].value("nodeName", "-") +
                     (p["metadata"].contains("deletionTimestamp") ? " deleting" : ""));
  }
  t.status = c.List(kReplicaSets).at(0).value("status", json::object());
  t.events = recorder.events();
  t.revision = c.store.resource_version();
  return t;
}

int Live(const std::vector<json>& pods) {
  int n = 0;
  for (const json& p : pods) n += p["metadata"].contains("deletionTimestamp") ? 0 : 1;
  return n;
}

// A ReplicaSet of 3 made, two of its pods bound and ready, then scaled to 1.
Transcript ScaleUpAndDownOnAnEventQueue() {
  testing::DrivenCluster c;
  RecordingRecorder recorder;
  const int threads = testing::DrivenCluster::Threads();
  ReplicaSetController controller(c.client, c.events.clock(), {}, &recorder, nullptr, &c.informers,
                                  &c.events);
  controller.Start();
  EXPECT_FALSE(controller.HasSynced());  // nothing fed yet
  json rs = c.Create(kReplicaSets, ReplicaSetControllerTest::ReplicaSet(3));
  c.RunFor(std::chrono::seconds(5));
  EXPECT_TRUE(controller.HasSynced());
  EXPECT_EQ(testing::DrivenCluster::Threads(), threads);  // none of its own
  std::vector<json> pods = c.List(kPods);
  EXPECT_EQ(pods.size(), 3u);
  for (const json& p : pods) {
    EXPECT_EQ(p["metadata"]["ownerReferences"][0]["uid"], rs["metadata"]["uid"]);
  }
  json status = c.List(kReplicaSets).at(0)["status"];
  EXPECT_EQ(status.value("replicas", 0), 3);
  EXPECT_EQ(status.value("fullyLabeledReplicas", 0), 3);
  EXPECT_EQ(status.value("observedGeneration", 0), 1);
  EXPECT_EQ(recorder.events().size(), 3u);
  for (const std::string& e : recorder.events()) {
    EXPECT_EQ(e.rfind("ReplicaSet Normal SuccessfulCreate Created pod: web-", 0), 0u) << e;
  }

  // The kubelet's part for two of them: bound, Running and Ready.
  for (int i = 0; i < 2 && i < static_cast<int>(pods.size()); ++i) {
    const std::string name = pods[i]["metadata"]["name"];
    EXPECT_TRUE(c.client
                    .Create(ResourcePath("", "v1", "pods", "default", name, "binding"),
                            BindingTo(name, "n1"))
                    .ok());
    json st = {
        {"status",
         {{"phase", "Running"},
          {"conditions", json::array({{{"type", "Ready"},
                                       {"status", "True"},
                                       {"lastTransitionTime", FormatRfc3339(c.events.Now())}}})}}}};
    EXPECT_TRUE(c.client
                    .Patch(ResourcePath("", "v1", "pods", "default", name, "status"),
                           client::PatchType::kMerge, st)
                    .ok());
  }
  c.RunFor(std::chrono::seconds(5));
  status = c.List(kReplicaSets).at(0)["status"];
  EXPECT_EQ(status.value("readyReplicas", 0), 2);
  EXPECT_EQ(status.value("availableReplicas", 0), 2);

  EXPECT_TRUE(c.client
                  .Patch(ResourcePath("apps", "v1", "replicasets", "default", "web"),
                         client::PatchType::kMerge, {{"spec", {{"replicas", 1}}}})
                  .ok());
  c.RunFor(std::chrono::seconds(5));
  EXPECT_EQ(Live(c.List(kPods)), 1);
  status = c.List(kReplicaSets).at(0)["status"];
  EXPECT_EQ(status.value("replicas", 0), 1);
  EXPECT_EQ(status.value("observedGeneration", 0), 2);
  int deleted = 0;
  for (const std::string& e : recorder.events()) {
    deleted += e.rfind("ReplicaSet Normal SuccessfulDelete Deleted pod: web-", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(deleted, 2);
  Transcript t = Record(c, recorder);
  controller.Stop();
  return t;
}

TEST(ReplicaSetControllerExecutorTest, KeepsReplicasAndStatusOnAnEventQueue) {
  const Transcript first = ScaleUpAndDownOnAnEventQueue();
  // The pod left is a bound one (the unassigned one went first).
  int live_bound = 0;
  for (const std::string& p : first.pods)
    live_bound += p.find(" n1") != std::string::npos && p.find("deleting") == std::string::npos;
  EXPECT_EQ(live_bound, 1);
  // Deterministic: the same run again leaves the same pods, status, events and revision.
  EXPECT_TRUE(first == ScaleUpAndDownOnAnEventQueue());
}

TEST(ReplicaSetControllerExecutorTest, CreatesInSlowStartBatchesOnAnEventQueue) {
  testing::DrivenCluster c;
  // Pod creations from the 3rd on are refused.
  int creates = 0;
  cluster::InProcessTransport failing = RefusingPodCreates(c.api, 3, &creates);
  client::RestClient client(cluster::InProcessRestConfig(), c.events.clock(),
                            cluster::InProcessRestOptions(failing));
  RecordingRecorder recorder;
  ReplicaSetControllerOptions options;
  options.retry_after = std::chrono::seconds(10);
  ReplicaSetController controller(client, c.events.clock(), options, &recorder, nullptr,
                                  &c.informers, &c.events);
  controller.Start();
  c.Create(kReplicaSets, ReplicaSetControllerTest::ReplicaSet(10));
  c.RunFor(std::chrono::seconds(5));
  // The first sync: batches of 1 and 2, the 3rd creation fails, the batch of 4 never runs.
  const std::vector<std::string> events = recorder.events();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[0].rfind("ReplicaSet Normal SuccessfulCreate", 0), 0u);
  EXPECT_EQ(events[1].rfind("ReplicaSet Normal SuccessfulCreate", 0), 0u);
  for (size_t i = 2; i < events.size(); ++i) {
    EXPECT_EQ(events[i],
              "ReplicaSet Warning FailedCreate Error creating: pods \"web-x\" is forbidden: "
              "exceeded quota");
  }
  EXPECT_EQ(creates, static_cast<int>(events.size()));
  EXPECT_EQ(c.List(kPods).size(), 2u);
  const json status = c.List(kReplicaSets).at(0)["status"];
  EXPECT_EQ(status["conditions"][0]["reason"], "FailedCreate");
  EXPECT_EQ(status["replicas"], 2);
  // Retried every retry_after, a batch of one each time.
  const size_t before = events.size();
  c.RunFor(std::chrono::seconds(30));
  EXPECT_EQ(recorder.events().size(), before + 3);
  controller.Stop();
}

}  // namespace
}  // namespace tidepool::controllers::replicaset
