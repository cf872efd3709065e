#include "controllers/replicaset/replicaset_controller.h"

#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::replicaset {
namespace {

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

class ReplicaSetControllerTest : public ::testing::Test {
 protected:
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
    ASSERT_TRUE(client_.Patch(ResourcePath("", "v1", "pods", "default", names[i]),
                              client::PatchType::kMerge, {{"spec", {{"nodeName", "n1"}}}})
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

TEST_F(ReplicaSetControllerTest, CreatesInSlowStartBatchesAndStopsAtTheFirstFailure) {
  // A quota of sorts: pods named in the 3rd creation and later are refused.
  int creates = 0;
  cluster::InProcessTransport failing([&](const apiserver::http::HttpRequest& req,
                                          apiserver::http::ResponseWriter& w) {
    if (req.method == "POST" && req.target.find("/pods") != std::string::npos && ++creates >= 3) {
      w.Send(403, "application/json",
             R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"web-x\" is forbidden: exceeded quota","reason":"Forbidden","code":403})");
      return;
    }
    api_.api().Handle(req, w);
  });
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

}  // namespace
}  // namespace tidepool::controllers::replicaset
