#include "kubelet/api_node_sink.h"

#include <gtest/gtest.h>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "common/event_queue.h"
#include "kubelet/node_status.h"

namespace tidepool::kubelet {
namespace {

using client::ResourcePath;
using nlohmann::json;

api::Node Reported(bool ready) {
  api::Node n;
  n.meta.name = "gke-gpu-1";
  n.meta.labels = {{"cloud.google.com/gke-nodepool", "gpu"}};
  n.spec.provider_id = "gce://p/us-central1-a/gke-gpu-1";
  n.spec.taints = {{"nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule, std::nullopt}};
  n.status.capacity["cpu"] = api::Quantity::FromInt(4, api::QuantityFormat::kDecimalSI);
  n.status.allocatable["cpu"] = api::Quantity::FromInt(4, api::QuantityFormat::kDecimalSI);
  api::NodeCondition c;
  c.type = "Ready";
  c.status = ready ? api::ConditionStatus::kTrue : api::ConditionStatus::kFalse;
  n.status.conditions.push_back(c);
  return n;
}

class ApiNodeSinkTest : public ::testing::Test {
 protected:
  ApiNodeSinkTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_, "kubelet/v1.32.4")),
        sink_(client_, nullptr) {}

  // What the cloud does, then waits for the writer.
  void Upsert(api::Node n, ApiNodeSink* sink = nullptr) {
    if (sink == nullptr) sink = &sink_;
    ASSERT_TRUE(sink->UpsertNode(std::move(n)).ok());
    sink->Flush();
  }
  json Node() {
    auto n = client_.Get(ResourcePath("", "v1", "nodes", "", "gke-gpu-1"));
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : json();
  }
  std::vector<std::string> Taints() {
    std::vector<std::string> out;
    for (const json& t : Node()["spec"].value("taints", json::array())) {
      out.push_back(t.value("key", "") + ":" + t.value("effect", ""));
    }
    return out;
  }

  // A real API server's admission: a new node gets the not-ready taint.
  client::testing::TestApiServer api_{{}, std::chrono::seconds(30), /*taint_nodes_by_condition=*/true};
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  ApiNodeSink sink_;
};

TEST_F(ApiNodeSinkTest, RegistersWithTheKubeletsFields) {
  Upsert(Reported(false));
  const json n = Node();
  EXPECT_EQ(n["spec"]["providerID"], "gce://p/us-central1-a/gke-gpu-1");
  EXPECT_EQ(Taints(), (std::vector<std::string>{"nvidia.com/gpu:NoSchedule",
                                                "node.kubernetes.io/not-ready:NoSchedule"}));
  EXPECT_EQ(n["status"]["addresses"][1],
            json::parse(R"({"type":"Hostname","address":"gke-gpu-1"})"));
  EXPECT_EQ(n["status"]["nodeInfo"]["kubeletVersion"], kKubeletVersion);
  EXPECT_EQ(n["status"]["conditions"][0]["status"], "False");
  EXPECT_FALSE(n["metadata"].value("uid", "").empty());
}

TEST_F(ApiNodeSinkTest, KeepsWhatOthersSetTheNotReadyTaintIncluded) {
  Upsert(Reported(false));
  // A user cordons the node and labels it; CA taints it.
  json n = Node();
  n["spec"]["unschedulable"] = true;
  n["metadata"]["labels"]["team"] = "ml";
  n["spec"]["taints"].push_back({{"key", "ToBeDeletedByClusterAutoscaler"},
                                 {"value", "1700000000"},
                                 {"effect", "NoSchedule"}});
  ASSERT_TRUE(client_.Update(ResourcePath("", "v1", "nodes", "", "gke-gpu-1"), n).ok());
  Upsert(Reported(true));
  n = Node();
  EXPECT_TRUE(n["spec"].value("unschedulable", false));
  EXPECT_EQ(n["metadata"]["labels"]["team"], "ml");
  EXPECT_EQ(n["metadata"]["labels"]["cloud.google.com/gke-nodepool"], "gpu");
  // The API server's not-ready taint is the node lifecycle controller's to remove.
  EXPECT_EQ(Taints(), (std::vector<std::string>{"nvidia.com/gpu:NoSchedule",
                                                "node.kubernetes.io/not-ready:NoSchedule",
                                                "ToBeDeletedByClusterAutoscaler:NoSchedule"}));
  EXPECT_EQ(n["status"]["conditions"][0]["status"], "True");
}

TEST_F(ApiNodeSinkTest, ANodeOfAnEarlierRunKeepsItsTaintsWhenReady) {
  ApiNodeSink earlier(client_, nullptr);
  Upsert(Reported(false), &earlier);
  // This process has not written the node: the taints it reports now are its own.
  api::Node ready = Reported(true);
  ready.spec.taints.push_back({"example.com/pool", "a", api::TaintEffect::kNoSchedule, std::nullopt});
  Upsert(ready);
  EXPECT_EQ(Taints(), (std::vector<std::string>{"nvidia.com/gpu:NoSchedule",
                                                "example.com/pool:NoSchedule",
                                                "node.kubernetes.io/not-ready:NoSchedule"}));
  EXPECT_EQ(Node()["status"]["conditions"][0]["status"], "True");
}

TEST_F(ApiNodeSinkTest, DeleteRemovesTheNode) {
  Upsert(Reported(true));
  ASSERT_TRUE(sink_.DeleteNode("gke-gpu-1").ok());
  sink_.Flush();
  EXPECT_EQ(client_.Get(ResourcePath("", "v1", "nodes", "", "gke-gpu-1")).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(sink_.RemoveNode("gke-gpu-1").code(), StatusCode::kNotFound);
}

TEST_F(ApiNodeSinkTest, OnlyEachNodesLatestQueuedChangeIsWritten) {
  // Queued together: the later upsert replaces the earlier one, a delete replaces both.
  ASSERT_TRUE(sink_.UpsertNode(Reported(false)).ok());
  ASSERT_TRUE(sink_.UpsertNode(Reported(true)).ok());
  sink_.Flush();
  EXPECT_EQ(Node()["status"]["conditions"][0]["status"], "True");
  api::Node other = Reported(true);
  other.meta.name = "gke-gpu-2";
  ASSERT_TRUE(sink_.UpsertNode(other).ok());
  ASSERT_TRUE(sink_.DeleteNode("gke-gpu-2").ok());
  sink_.Flush();
  EXPECT_EQ(client_.Get(ResourcePath("", "v1", "nodes", "", "gke-gpu-2")).status().code(),
            StatusCode::kNotFound);
}

TEST_F(ApiNodeSinkTest, OnAnExecutorTheWritesAreItsCallbacksInTheOrderQueued) {
  EventQueue queue;
  {
    ApiNodeSink sink(client_, nullptr, &queue);
    api::Node other = Reported(true);
    other.meta.name = "gke-gpu-2";
    ASSERT_TRUE(sink.UpsertNode(other).ok());
    ASSERT_TRUE(sink.UpsertNode(Reported(false)).ok());
    ASSERT_TRUE(sink.UpsertNode(Reported(true)).ok());  // replaces the queued one
    sink.Flush();                                       // returns at once: the executor has not run
    EXPECT_EQ(client_.Get(ResourcePath("", "v1", "nodes", "", "gke-gpu-1")).status().code(),
              StatusCode::kNotFound);
    EXPECT_EQ(queue.Size(), 2u);  // one write per node
    ASSERT_TRUE(queue.Step());
    EXPECT_TRUE(client_.Get(ResourcePath("", "v1", "nodes", "", "gke-gpu-2")).ok());
    EXPECT_EQ(client_.Get(ResourcePath("", "v1", "nodes", "", "gke-gpu-1")).status().code(),
              StatusCode::kNotFound);
    ASSERT_TRUE(queue.Step());
    EXPECT_EQ(Node()["status"]["conditions"][0]["status"], "True");
    // Queued and not run when the sink goes: dropped, nothing left on the executor.
    ASSERT_TRUE(sink.DeleteNode("gke-gpu-1").ok());
  }
  EXPECT_TRUE(queue.Empty());
  EXPECT_EQ(Node()["status"]["conditions"][0]["status"], "True");
}

}  // namespace
}  // namespace tidepool::kubelet
