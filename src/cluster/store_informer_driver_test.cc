#include "cluster/store_informer_driver.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "apiserver/storage/backend.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "cluster/in_process_transport.h"
#include "common/event_queue.h"

namespace tidepool::cluster {
namespace {

using client::ResourcePath;
using nlohmann::json;

// An API server on an event queue's clock, clients over the in-process transport, and informers
// driven from its store: what `tidepool simulate` wires.
class StoreInformerDriverTest : public ::testing::Test {
 protected:
  StoreInformerDriverTest()
      : store_(queue_.clock(), apiserver::storage::NewMemoryBackend()),
        api_(queue_.clock(), store_, logs_, {}),
        transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.Handle(req, w); }),
        client_(InProcessRestConfig(), queue_.clock(), InProcessRestOptions(transport_, "test")),
        factory_(client_, queue_.clock()),
        driver_(store_, queue_) {
    factory_.SetDriver(&driver_);
    for (const char* ns : {"default", "other"}) {
      EXPECT_TRUE(
          client_
              .Create("/api/v1/namespaces",
                      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
              .ok());
    }
  }

  // An informer of `path` whose handlers append "<TYPE> <name>" to `log`.
  std::shared_ptr<client::Informer> Watched(const std::string& path, std::vector<std::string>* log,
                                            const std::string& label_selector = "",
                                            const std::string& field_selector = "") {
    client::InformerOptions o;
    o.path = path;
    o.label_selector = label_selector;
    o.field_selector = field_selector;
    auto informer = factory_.InformerFor(o);
    auto name = [](const client::ObjectRef& obj) { return (*obj)["metadata"].value("name", ""); };
    informer->AddEventHandlers({
        [log, name](const client::ObjectRef& obj, bool initial) {
          log->push_back(std::string(initial ? "LISTED " : "ADDED ") + name(obj));
        },
        [log, name](const client::ObjectRef&, const client::ObjectRef& obj) {
          log->push_back("MODIFIED " + name(obj));
        },
        [log, name](const client::ObjectRef& obj, bool) { log->push_back("DELETED " + name(obj)); },
    });
    return informer;
  }

  json Pod(const std::string& name, const std::string& app, const std::string& node = "") {
    json spec = {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}};
    if (!node.empty()) spec["nodeName"] = node;
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
            {"spec", spec}};
  }
  void CreatePod(const std::string& ns, const json& pod) {
    auto r = client_.Create(ResourcePath("", "v1", "pods", ns), pod);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void Relabel(const std::string& name, const std::string& app) {
    auto r =
        client_.Patch(ResourcePath("", "v1", "pods", "default", name), client::PatchType::kMerge,
                      json{{"metadata", {{"labels", {{"app", app}}}}}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  EventQueue queue_;
  apiserver::ObjectStore store_;
  apiserver::PodLogs logs_;
  apiserver::ApiServer api_;
  InProcessTransport transport_;
  client::RestClient client_;
  client::SharedInformerFactory factory_;
  StoreInformerDriver driver_;
};

TEST_F(StoreInformerDriverTest, ListsOnTheQueueThenDeliversEveryWriteInOrder) {
  CreatePod("default", Pod("a", "x"));
  std::vector<std::string> log;
  auto pods = Watched("/api/v1/pods", &log);
  factory_.Start();
  EXPECT_FALSE(pods->HasSynced());  // the list is a callback of the queue
  queue_.RunUntilIdle(100);
  EXPECT_TRUE(pods->HasSynced());
  EXPECT_EQ(log, std::vector<std::string>{"LISTED a"});

  CreatePod("default", Pod("b", "x"));
  Relabel("a", "y");
  ASSERT_TRUE(
      client_
          .Delete(ResourcePath("", "v1", "pods", "default", "b"), json{{"gracePeriodSeconds", 0}})
          .ok());
  EXPECT_EQ(log.size(), 1u);  // nothing is delivered inside a write
  queue_.RunUntilIdle(100);
  EXPECT_EQ(log, (std::vector<std::string>{"LISTED a", "ADDED b", "MODIFIED a", "DELETED b"}));
  ASSERT_NE(pods->Get("default/a"), nullptr);
  EXPECT_EQ((*pods->Get("default/a"))["metadata"]["labels"]["app"], "y");
  EXPECT_EQ(pods->Get("default/b"), nullptr);
  EXPECT_EQ(pods->stats().last_resource_version, std::to_string(store_.resource_version()));
}

TEST_F(StoreInformerDriverTest, SelectorsFilterAndObjectsMoveInAndOutOfThem) {
  std::vector<std::string> by_label, by_node, in_other;
  auto labelled = Watched("/api/v1/pods", &by_label, "app=x");
  auto on_n1 = Watched("/api/v1/pods", &by_node, "", "spec.nodeName=n1");
  auto other = Watched("/api/v1/namespaces/other/pods", &in_other);
  factory_.Start();
  queue_.RunUntilIdle(100);
  CreatePod("default", Pod("a", "x", "n1"));
  CreatePod("default", Pod("b", "z", "n2"));
  CreatePod("other", Pod("c", "x"));
  Relabel("a", "y");  // leaves app=x
  Relabel("b", "x");  // enters it
  queue_.RunUntilIdle(100);
  EXPECT_EQ(by_label, (std::vector<std::string>{"ADDED a", "ADDED c", "DELETED a", "ADDED b"}));
  EXPECT_EQ(by_node, (std::vector<std::string>{"ADDED a", "MODIFIED a"}));
  EXPECT_EQ(in_other, (std::vector<std::string>{"ADDED c"}));
  EXPECT_EQ(labelled->Size(), 2u);  // b and c
  EXPECT_EQ(other->Size(), 1u);
}

TEST_F(StoreInformerDriverTest, ResourcesInterleaveInRevisionOrder) {
  std::vector<std::string> log;  // one log for both informers
  Watched("/api/v1/pods", &log);
  Watched("/api/v1/configmaps", &log);
  factory_.Start();
  queue_.RunUntilIdle(100);
  auto cm = [&](const std::string& name) {
    ASSERT_TRUE(
        client_
            .Create(ResourcePath("", "v1", "configmaps", "default"),
                    {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}})
            .ok());
  };
  CreatePod("default", Pod("p1", "x"));
  cm("c1");
  CreatePod("default", Pod("p2", "x"));
  cm("c2");
  queue_.RunUntilIdle(100);
  EXPECT_EQ(log, (std::vector<std::string>{"ADDED p1", "ADDED c1", "ADDED p2", "ADDED c2"}));
}

TEST_F(StoreInformerDriverTest, AnInformerStartedLaterGetsEachObjectOnce) {
  std::vector<std::string> first, later;
  Watched("/api/v1/pods", &first);
  factory_.Start();
  queue_.RunUntilIdle(100);
  CreatePod("default", Pod("a", "x"));
  // b is written after late_pods started but before its list ran: b is in the list and its
  // event, delivered after the list, is not delivered to it again.
  auto late = Watched("/api/v1/configmaps", &later);  // another resource: not shared
  client::InformerOptions o;
  o.path = "/api/v1/pods";
  o.name = "late pods";
  o.transform = [](json&& j) { return std::move(j); };  // unnamed transform: not shared
  auto late_pods = factory_.InformerFor(o);
  late_pods->AddEventHandlers({[&later](const client::ObjectRef& obj, bool initial) {
                                 later.push_back(std::string(initial ? "LISTED " : "ADDED ") +
                                                 (*obj)["metadata"].value("name", ""));
                               },
                               [&later](const client::ObjectRef&, const client::ObjectRef& obj) {
                                 later.push_back("MODIFIED " +
                                                 (*obj)["metadata"].value("name", ""));
                               },
                               {}});
  late->Start();
  queue_.RunUntilIdle(100);  // a delivered to the first informer
  late_pods->Start();
  CreatePod("default", Pod("b", "x"));  // its delivery runs after late_pods' list
  queue_.RunUntilIdle(100);
  EXPECT_EQ(first, (std::vector<std::string>{"ADDED a", "ADDED b"}));
  EXPECT_EQ(later, (std::vector<std::string>{"LISTED a", "LISTED b"}));
  CreatePod("default", Pod("c", "x"));
  queue_.RunUntilIdle(100);
  EXPECT_EQ(later, (std::vector<std::string>{"LISTED a", "LISTED b", "ADDED c"}));
}

TEST_F(StoreInformerDriverTest, AVersionStoredAsAnotherIsFedItsWritesInItsOwnVersion) {
  // events.k8s.io/v1 Events are core/v1 Events in the store (one resource, two APIs).
  std::vector<std::string> core_log, v1_log;
  auto core = Watched("/api/v1/events", &core_log);
  auto events = Watched("/apis/events.k8s.io/v1/events", &v1_log, "",
                        "regarding.name=p1");  // the events API's own field name
  auto regarding = [](const std::string& name) {
    return json{{"kind", "Pod"}, {"namespace", "default"}, {"name", name}, {"apiVersion", "v1"}};
  };
  ASSERT_TRUE(
      client_
          .Create(ResourcePath("", "v1", "events", "default"), {{"apiVersion", "v1"},
                                                                {"kind", "Event"},
                                                                {"metadata", {{"name", "before"}}},
                                                                {"involvedObject", regarding("p1")},
                                                                {"reason", "Old"},
                                                                {"message", "listed"}})
          .ok());
  factory_.Start();
  queue_.RunUntilIdle(100);
  ASSERT_TRUE(client_
                  .Create(ResourcePath("events.k8s.io", "v1", "events", "default"),
                          {{"apiVersion", "events.k8s.io/v1"},
                           {"kind", "Event"},
                           {"metadata", {{"name", "after"}}},
                           {"regarding", regarding("p1")},
                           {"reason", "New"},
                           {"note", "watched"},
                           {"action", "Start"},
                           {"type", "Normal"},
                           {"eventTime", "2026-12-07T10:00:00.000000Z"},
                           {"reportingController", "test"},
                           {"reportingInstance", "test-1"}})
                  .ok());
  ASSERT_TRUE(client_
                  .Create(ResourcePath("", "v1", "events", "default"),
                          {{"apiVersion", "v1"},
                           {"kind", "Event"},
                           {"metadata", {{"name", "elsewhere"}}},
                           {"involvedObject", regarding("p2")},
                           {"reason", "Other"}})
                  .ok());
  queue_.RunUntilIdle(100);
  EXPECT_EQ(core_log,
            (std::vector<std::string>{"LISTED before", "ADDED after", "ADDED elsewhere"}));
  EXPECT_EQ(v1_log, (std::vector<std::string>{"LISTED before", "ADDED after"}));
  const client::ObjectRef listed = events->Get("default/before");
  ASSERT_NE(listed, nullptr);
  EXPECT_EQ((*listed)["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ((*listed)["note"], "listed");
  EXPECT_EQ((*listed)["regarding"]["name"], "p1");
  const client::ObjectRef watched = core->Get("default/after");
  ASSERT_NE(watched, nullptr);
  EXPECT_EQ((*watched)["apiVersion"], "v1");
  EXPECT_EQ((*watched)["message"], "watched");
  EXPECT_EQ((*watched)["involvedObject"]["name"], "p1");
  const client::ObjectRef also = events->Get("default/after");
  ASSERT_NE(also, nullptr);
  EXPECT_EQ((*also)["note"], "watched");
  EXPECT_FALSE(also->contains("involvedObject"));
}

TEST_F(StoreInformerDriverTest, APathTheApiDoesNotServeNeverSyncs) {
  std::vector<std::string> log;
  auto bad = Watched("/apis/nope.example.com/v1/widgets", &log);
  auto odd = Watched("/api/v1/namespaces/default", &log);
  factory_.Start();
  queue_.RunUntilIdle(100);
  EXPECT_FALSE(bad->HasSynced());
  EXPECT_FALSE(odd->HasSynced());
  EXPECT_TRUE(log.empty());
}

TEST_F(StoreInformerDriverTest, StoppedInformersAndAStoppedDriverFeedNothing) {
  std::vector<std::string> log;
  auto pods = Watched("/api/v1/pods", &log);
  factory_.Start();
  queue_.RunUntilIdle(100);
  pods->Stop();
  CreatePod("default", Pod("a", "x"));
  queue_.RunUntilIdle(100);
  EXPECT_TRUE(log.empty());
  driver_.Stop();
  CreatePod("default", Pod("b", "x"));
  EXPECT_EQ(queue_.RunUntilIdle(100), 0u);
}

}  // namespace
}  // namespace tidepool::cluster
