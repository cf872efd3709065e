#include "sim/store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::sim {
namespace {

using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;

// Records every notification as a line.
class Recorder final : public StoreObserver {
 public:
  void OnNodeChange(const NodeChange& c) override {
    lines.push_back(std::string(ChangeTypeName(c.type)) + " node/" + c.node->meta.name);
  }
  void OnPodChange(const PodChange& c) override {
    lines.push_back(std::string(ChangeTypeName(c.type)) + " pod/" + c.pod.pod->meta.name);
  }
  void OnEvent(const EventChange& c) override {
    lines.push_back("EVENT " + c.event.reason + " x" + std::to_string(c.event.count));
  }
  std::vector<std::string> lines;
};

api::Taint T(const std::string& s) { return *api::Taint::Parse(s); }

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() : store_(clock_) { store_.AddObserver(&rec_); }
  SimulatedClock clock_;
  Store store_;
  Recorder rec_;
};

TEST_F(StoreTest, CreatePodAssignsIdentityAndRefusesDuplicates) {
  api::Pod p = MakePod("p", "").Obj();
  auto created = store_.CreatePod(p);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ((*created)->meta.namespace_, "default");
  EXPECT_FALSE((*created)->meta.uid.empty());
  EXPECT_EQ((*created)->meta.resource_version, "1");
  EXPECT_EQ((*created)->meta.creation_timestamp, clock_.Now());
  auto again = store_.CreatePod(p);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().message(), "pods \"p\" already exists");
  EXPECT_EQ(rec_.lines, (std::vector<std::string>{"ADDED pod/p"}));
}

TEST_F(StoreTest, ResourceVersionsGrowWithEveryWrite) {
  ASSERT_TRUE(store_.UpsertNode(MakeNode("n1").Ready().Obj()).ok());
  ASSERT_TRUE(store_.CreatePod(MakePod("p").Obj()).ok());
  EXPECT_EQ(store_.resource_version(), 2);
  EXPECT_EQ(store_.GetNode("n1")->meta.resource_version, "1");
  EXPECT_EQ(store_.GetPod("default/p")->pod->meta.resource_version, "2");
}

TEST_F(StoreTest, NodeUpsertMergesAsTheNodeSinkContractSays) {
  api::Node reg = MakeNode("n1").Label("pool", "gpu").Ready(false).Obj();
  reg.spec.taints = {T("nvidia.com/gpu=present:NoSchedule"),
                     T("node.kubernetes.io/not-ready:NoSchedule")};
  reg.meta.creation_timestamp = clock_.Now() - seconds(5);  // the registration time hint
  ASSERT_TRUE(store_.UpsertNode(reg).ok());
  const std::string uid = store_.GetNode("n1")->meta.uid;

  // Someone else (cluster-autoscaler) taints the node.
  ASSERT_TRUE(store_.AddNodeTaint("n1", T("ToBeDeletedByClusterAutoscaler=123:NoSchedule")).ok());

  // The cloud publishes Ready: the not-ready taint is gone, a label is added.
  clock_.Advance(seconds(30));
  api::Node ready = MakeNode("n1").Label("nvidia.com/gpu.present", "true").Ready(true).Obj();
  ready.spec.taints = {T("nvidia.com/gpu=present:NoSchedule")};
  ready.meta.creation_timestamp = clock_.Now();
  ASSERT_TRUE(store_.UpsertNode(ready).ok());

  api::NodeConstSharedPtr n = store_.GetNode("n1");
  EXPECT_EQ(n->meta.uid, uid);
  EXPECT_EQ(n->meta.creation_timestamp, clock_.Now() - seconds(35));
  EXPECT_TRUE(n->IsReady());
  EXPECT_EQ(n->meta.labels.at("pool"), "gpu");
  EXPECT_EQ(n->meta.labels.at("nvidia.com/gpu.present"), "true");
  ASSERT_EQ(n->spec.taints.size(), 2u);
  EXPECT_EQ(n->spec.taints[0].ToString(), "nvidia.com/gpu=present:NoSchedule");
  EXPECT_EQ(n->spec.taints[1].ToString(), "ToBeDeletedByClusterAutoscaler=123:NoSchedule");

  // Removing the taint through the ClusterWriter; a second removal writes nothing.
  ASSERT_TRUE(store_.RemoveNodeTaint("n1", "ToBeDeletedByClusterAutoscaler").ok());
  ASSERT_TRUE(store_.RemoveNodeTaint("n1", "ToBeDeletedByClusterAutoscaler").ok());
  EXPECT_EQ(store_.GetNode("n1")->spec.taints.size(), 1u);
  EXPECT_EQ(rec_.lines, (std::vector<std::string>{"ADDED node/n1", "MODIFIED node/n1",
                                                  "MODIFIED node/n1", "MODIFIED node/n1"}));
}

TEST_F(StoreTest, AnIdenticalUpsertWritesNothing) {
  api::Node n = MakeNode("n1").Ready().Obj();
  ASSERT_TRUE(store_.UpsertNode(n).ok());
  ASSERT_TRUE(store_.UpsertNode(n).ok());
  EXPECT_EQ(rec_.lines.size(), 1u);
  EXPECT_EQ(store_.resource_version(), 1);
}

TEST_F(StoreTest, TaintsOnMissingNodesAreNotFound) {
  EXPECT_EQ(store_.AddNodeTaint("nope", T("a=b:NoSchedule")).message(), "nodes \"nope\" not found");
  EXPECT_EQ(store_.DeleteNode("nope").code(), StatusCode::kNotFound);
}

TEST_F(StoreTest, DeletingFollowsTheApiServersGracefulDeletion) {
  ASSERT_TRUE(store_.UpsertNode(MakeNode("n1").Ready().Obj()).ok());
  ASSERT_TRUE(store_.CreatePod(MakePod("pending").Obj()).ok());
  ASSERT_TRUE(store_.CreatePod(MakePod("bound").Obj()).ok());
  ASSERT_TRUE(store_.CreatePod(MakePod("done").Obj()).ok());
  ASSERT_TRUE(store_.BindPod("default/bound", "n1").ok());
  ASSERT_TRUE(store_.BindPod("default/done", "n1").ok());
  api::PodStatus succeeded = store_.GetPod("default/done")->pod->status;
  succeeded.phase = api::PodPhase::kSucceeded;
  ASSERT_TRUE(store_.UpdatePodStatus("default/done", succeeded, {}).ok());

  // Not bound: gone at once.
  ASSERT_TRUE(store_.DeletePod("default", "pending").ok());
  EXPECT_EQ(store_.GetPod("default/pending"), nullptr);
  // Terminal: gone at once.
  ASSERT_TRUE(store_.DeletePod("default", "done").ok());
  EXPECT_EQ(store_.GetPod("default/done"), nullptr);
  // Bound and running: terminating for the grace period, until the kubelet removes it.
  ASSERT_TRUE(store_.EvictPod("default", "bound").ok());
  const PodRecord* b = store_.GetPod("default/bound");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->pod->meta.deletion_timestamp, clock_.Now() + seconds(30));
  ASSERT_TRUE(store_.RemovePod("default/bound").ok());
  EXPECT_EQ(store_.NumPods(), 0u);
  EXPECT_EQ(store_.DeletePod("default", "bound").message(), "pods \"bound\" not found");
}

TEST_F(StoreTest, BindingSetsNodeNameAndPodScheduled) {
  ASSERT_TRUE(store_.UpsertNode(MakeNode("n1").Ready().Obj()).ok());
  ASSERT_TRUE(store_.CreatePod(MakePod("p").Obj()).ok());
  api::PodCondition unsched;
  unsched.type = "PodScheduled";
  unsched.status = api::ConditionStatus::kFalse;
  unsched.reason = "Unschedulable";
  unsched.message = "0/1 nodes are available";
  ASSERT_TRUE(store_.SetPodCondition("default/p", unsched).ok());
  const int64_t rv = store_.resource_version();
  ASSERT_TRUE(store_.SetPodCondition("default/p", unsched).ok());  // unchanged: no write
  EXPECT_EQ(store_.resource_version(), rv);

  ASSERT_TRUE(store_.BindPod("default/p", "n1").ok());
  const api::Pod& p = *store_.GetPod("default/p")->pod;
  EXPECT_EQ(p.spec.node_name, "n1");
  ASSERT_NE(p.FindCondition("PodScheduled"), nullptr);
  EXPECT_EQ(p.FindCondition("PodScheduled")->status, api::ConditionStatus::kTrue);
  EXPECT_EQ(store_.BindPod("default/p", "n1").code(), StatusCode::kAborted);
  EXPECT_EQ(store_.BindPod("default/nope", "n1").code(), StatusCode::kNotFound);
}

TEST_F(StoreTest, IdenticalEventsAreAggregated) {
  api::Pod p = MakePod("p").Obj();
  const auto ref = RefOf(p);
  store_.RecordEvent(ref, "Warning", "FailedScheduling", "no fit", {"default-scheduler", ""});
  clock_.Advance(seconds(10));
  store_.RecordEvent(ref, "Warning", "FailedScheduling", "no fit", {"default-scheduler", ""});
  store_.RecordEvent(ref, "Warning", "FailedScheduling", "other", {"default-scheduler", ""});
  store_.Event(ref, "Normal", "TriggeredScaleUp", "pod triggered scale-up");
  ASSERT_EQ(store_.events().size(), 3u);
  const EventRecord& e = store_.events()[0];
  EXPECT_EQ(e.count, 2);
  EXPECT_EQ(e.last_timestamp - e.first_timestamp, seconds(10));
  EXPECT_EQ(e.source.component, "default-scheduler");
  EXPECT_EQ(store_.events()[2].source.component, "cluster-autoscaler");
  EXPECT_EQ(rec_.lines,
            (std::vector<std::string>{"EVENT FailedScheduling x1", "EVENT FailedScheduling x2",
                                      "EVENT FailedScheduling x1", "EVENT TriggeredScaleUp x1"}));
}

TEST_F(StoreTest, WithoutATtlEventsAreKept) {
  api::Pod p = MakePod("p").Obj();
  store_.RecordEvent(RefOf(p), "Warning", "FailedScheduling", "no fit", {"default-scheduler", ""});
  clock_.Advance(std::chrono::hours(24 * 365));
  store_.RecordEvent(RefOf(p), "Warning", "FailedScheduling", "no fit", {"default-scheduler", ""});
  ASSERT_EQ(store_.events().size(), 1u);
  EXPECT_EQ(store_.events()[0].count, 2);
}

// An observer that writes while being notified.
class Writer final : public StoreObserver {
 public:
  explicit Writer(Store& s) : store(s) {}
  void OnPodChange(const PodChange& c) override {
    if (c.type == ChangeType::kAdded && c.pod.pod->meta.name == "a") {
      (void)store.CreatePod(MakePod("b").Obj());
    }
  }
  Store& store;
};

TEST_F(StoreTest, WritesFromObserversAreDeliveredInOrder) {
  Store store(clock_);
  Recorder first;
  Writer writer(store);
  Recorder last;
  store.AddObserver(&first);
  store.AddObserver(&writer);
  store.AddObserver(&last);
  ASSERT_TRUE(store.CreatePod(MakePod("a").Obj()).ok());
  // Every observer sees "a" before "b", although "b" was written while "a" was delivered.
  EXPECT_EQ(first.lines, (std::vector<std::string>{"ADDED pod/a", "ADDED pod/b"}));
  EXPECT_EQ(last.lines, (std::vector<std::string>{"ADDED pod/a", "ADDED pod/b"}));
}

}  // namespace
}  // namespace tidepool::sim
