#include "controllers/tainteviction/taint_eviction_controller.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::tainteviction {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::DrivenCluster;
using testing::RecordedEvents;

constexpr char kNodes[] = "/api/v1/nodes";
constexpr char kPods[] = "/api/v1/namespaces/default/pods";

json Node(const std::string& name, const json& taints) {
  json n = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}};
  if (!taints.empty()) n["spec"]["taints"] = taints;
  return n;
}

json Taint(const std::string& key, const char* effect = "NoExecute") {
  return {{"key", key}, {"value", "v"}, {"effect", effect}};
}

// A toleration of `key`'s NoExecute taints (every key when empty), for `seconds` if given.
json Tolerate(const std::string& key, std::optional<int64_t> secs = std::nullopt) {
  json t = {{"operator", "Exists"}, {"effect", "NoExecute"}};
  if (!key.empty()) t["key"] = key;
  if (secs.has_value()) t["tolerationSeconds"] = *secs;
  return t;
}

json Pod(const std::string& name, const std::string& node, const json& tolerations) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"nodeName", node}, {"containers", json::array({{{"name", "c"}, {"image", "x"}}})}}}};
  if (!tolerations.empty()) p["spec"]["tolerations"] = tolerations;
  return p;
}

class TaintEvictionControllerTest : public ::testing::Test {
 protected:
  void Start() {
    controller_ = std::make_unique<TaintEvictionController>(
        c_.client, c_.events.clock(), TaintEvictionControllerOptions{}, &events_, nullptr,
        &c_.informers, &c_.events);
    controller_->Start();
  }
  // Whether the pod is being deleted (bound, so deleted gracefully: no kubelet finishes it
  // here), with the taint manager's condition.
  bool Deleting(const std::string& name) {
    auto p = c_.client.Get(std::string(kPods) + "/" + name);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    if (!p.ok() || !(*p)["metadata"].contains("deletionTimestamp")) return false;
    for (const json& c : (*p)["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "DisruptionTarget") {
        EXPECT_EQ(c.value("status", ""), "True");
        EXPECT_EQ(c.value("reason", ""), "DeletionByTaintManager");
        EXPECT_EQ(c.value("message", ""), "Taint manager: deleting due to NoExecute taint");
        return true;
      }
    }
    ADD_FAILURE() << name << " deleted without the DisruptionTarget condition";
    return true;
  }
  void SetTaints(const std::string& node, const json& taints) {
    ASSERT_TRUE(c_.client
                    .Patch(std::string(kNodes) + "/" + node, client::PatchType::kMerge,
                           {{"spec", {{"taints", taints}}}})
                    .ok());
  }

  DrivenCluster c_;
  RecordedEvents events_;
  std::unique_ptr<TaintEvictionController> controller_;
};

struct Case {
  const char* name;
  json taints;
  json tolerations;                    // [] : none (the API adds its 300 s defaults)
  std::optional<int> deleted_after_s;  // nullopt: never
};

TEST_F(TaintEvictionControllerTest, DeletesAPodWhenItsTolerationsRunOut) {
  const std::vector<Case> cases = {
      {"no toleration: at once", json::array({Taint("foo")}), json::array(), 0},
      {"tolerated for ever", json::array({Taint("foo")}), json::array({Tolerate("foo")}),
       std::nullopt},
      {"an empty key with Exists tolerates every taint", json::array({Taint("foo")}),
       json::array({Tolerate("")}), std::nullopt},
      {"tolerationSeconds", json::array({Taint("foo")}), json::array({Tolerate("foo", 30)}), 30},
      {"the smallest time of the matching tolerations", json::array({Taint("foo"), Taint("bar")}),
       json::array({Tolerate("foo", 100), Tolerate("bar", 20), Tolerate("baz", 5)}), 20},
      {"one taint not tolerated: at once", json::array({Taint("foo"), Taint("bar")}),
       json::array({Tolerate("foo")}), 0},
      {"a toleration of 0 or less: at once", json::array({Taint("foo")}),
       json::array({Tolerate("foo", -5)}), 0},
      {"a NoSchedule taint is not its business", json::array({Taint("foo", "NoSchedule")}),
       json::array(), std::nullopt},
      {"the API's default toleration of unreachable: 300 s",
       json::array({Taint("node.kubernetes.io/unreachable")}), json::array(), 300},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    DrivenCluster c;
    RecordedEvents events;
    const TimePoint t0 = c.events.Now();
    c.Create(kNodes, Node("n1", tc.taints));
    c.Create(kNodes, Node("n2", json::array()));
    c.Create(kPods, Pod("p", "n1", tc.tolerations));
    c.Create(kPods, Pod("elsewhere", "n2", json::array()));
    TaintEvictionController controller(c.client, c.events.clock(), {}, &events, nullptr,
                                       &c.informers, &c.events);
    controller.Start();
    auto deleting = [&c](const char* name) {
      auto p = c.client.Get(std::string(kPods) + "/" + name);
      return p.ok() && (*p)["metadata"].contains("deletionTimestamp");
    };
    if (tc.deleted_after_s.has_value()) {
      if (*tc.deleted_after_s > 0) {
        c.RunUntil(t0 + seconds(*tc.deleted_after_s - 1));
        EXPECT_FALSE(deleting("p"));
      }
      c.RunUntil(t0 + seconds(*tc.deleted_after_s + 1));
      EXPECT_TRUE(deleting("p"));
      EXPECT_EQ(controller.deleted(), 1u);
      EXPECT_EQ(events.Lines(),
                std::vector<std::string>{"Pod default/p Normal TaintManagerEviction Marking for "
                                         "deletion Pod default/p"});
    } else {
      c.RunUntil(t0 + seconds(400));
      EXPECT_FALSE(deleting("p"));
      EXPECT_TRUE(events.entries.empty());
    }
    EXPECT_FALSE(deleting("elsewhere"));
  }
}

TEST_F(TaintEvictionControllerTest, TaintsThatGoCancelAndTaintsThatComeSchedule) {
  const TimePoint t0 = c_.events.Now();
  c_.Create(kNodes, Node("n1", json::array()));
  c_.Create(kPods, Pod("p30", "n1", json::array({Tolerate("foo", 30)})));
  c_.Create(kPods, Pod("p60", "n1", json::array({Tolerate("foo", 60)})));
  Start();
  c_.RunFor(seconds(10));
  SetTaints("n1", json::array({Taint("foo")}));
  c_.RunUntil(t0 + seconds(39));
  EXPECT_FALSE(Deleting("p30"));
  c_.RunUntil(t0 + seconds(41));
  EXPECT_TRUE(Deleting("p30"));
  EXPECT_FALSE(Deleting("p60"));
  // The taint goes at 50 s: p60's deletion (due at 70 s) is cancelled.
  c_.RunUntil(t0 + seconds(50));
  SetTaints("n1", json::array());
  c_.RunUntil(t0 + seconds(200));
  EXPECT_FALSE(Deleting("p60"));
  EXPECT_EQ(events_.Lines(),
            (std::vector<std::string>{
                "Pod default/p30 Normal TaintManagerEviction Marking for deletion Pod default/p30",
                "Pod default/p60 Normal TaintManagerEviction Cancelling deletion of Pod "
                "default/p60"}));
  // A new pod, bound to n1 once it is tainted again: its own deletion, counted from then.
  SetTaints("n1", json::array({Taint("foo")}));
  c_.RunFor(seconds(1));
  const TimePoint t1 = c_.events.Now();
  c_.Create(kPods, Pod("late", "n1", json::array({Tolerate("foo", 20)})));
  c_.RunUntil(t1 + seconds(19));
  EXPECT_FALSE(Deleting("late"));
  c_.RunUntil(t1 + seconds(21));
  EXPECT_TRUE(Deleting("late"));
  // p60 again, 60 s after the taint came back; p30, still there (terminating, as no kubelet
  // finishes it here), once more 30 s after it: kcm forgets a done deletion when the taints go.
  EXPECT_FALSE(Deleting("p60"));
  c_.RunUntil(t0 + seconds(262));
  EXPECT_TRUE(Deleting("p60"));
  EXPECT_EQ(controller_->deleted(), 4u);
}

TEST_F(TaintEvictionControllerTest, APodThatGoesCancelsItsDeletion) {
  c_.Create(kNodes, Node("n1", json::array({Taint("foo")})));
  c_.Create(kPods, Pod("p", "n1", json::array({Tolerate("foo", 60)})));
  Start();
  c_.RunFor(seconds(10));
  ASSERT_TRUE(
      c_.client
          .Delete(std::string(kPods) + "/p",
                  {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}})
          .ok());
  c_.RunFor(seconds(100));
  EXPECT_EQ(events_.Lines(), std::vector<std::string>{"Pod default/p Normal TaintManagerEviction "
                                                      "Cancelling deletion of Pod default/p"});
  EXPECT_EQ(controller_->deleted(), 0u);
}

}  // namespace
}  // namespace tidepool::controllers::tainteviction
