// The seed walkthrough end to end (examples/seed-walkthrough.yaml), with the real autoscaler:
// the sequence a person following shared/seed/walkthrough-en.md sees.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace tidepool::sim {
namespace {

using std::chrono::minutes;

const std::string kExample = std::string(TIDEPOOL_SOURCE_DIR) + "/examples/seed-walkthrough.yaml";

int Find(const Timeline& t, std::string_view needle, int from = 0) {
  return t.Find(needle, from);
}

class SeedWalkthroughTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sc = LoadScenario(kExample);
    ASSERT_TRUE(sc.ok()) << sc.status().ToString();
    scenario_ = *sc;
    auto w = RunScenario(scenario_);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    world_ = std::move(*w);
  }
  Scenario scenario_;
  std::unique_ptr<World> world_;
};

TEST_F(SeedWalkthroughTest, ScalesFromZeroRunsThePodAndScalesBackToZero) {
  const Timeline& t = world_->timeline();
  SCOPED_TRACE(t.ToText());
  const auto at = [&](int i) { return t.entries()[i].elapsed; };

  const int failed = Find(t,
                          "FailedScheduling  pod/gpu-test-pod  default-scheduler  0/3 nodes are "
                          "available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are "
                          "available: 3 No preemption victims found for incoming pod.");
  ASSERT_GE(failed, 0);
  const int triggered = Find(t,
                             "TriggeredScaleUp  pod/gpu-test-pod  cluster-autoscaler  pod "
                             "triggered scale-up: [{gpu-pool 0->1 (max: 5)}]",
                             failed);
  ASSERT_GT(triggered, failed);
  const int up = Find(t, "pool    gpu-pool  0 -> 1", failed);
  ASSERT_GT(up, failed);
  const int not_ready = Find(t, "NotReady  <none>", up);
  ASSERT_GT(not_ready, up);
  const std::string node = t.entries()[not_ready].object;  // "node/<name>"
  const std::string name = node.substr(5);
  const int ready = Find(t, "node    " + name + "  Ready", not_ready);
  ASSERT_GT(ready, not_ready);
  const int gpu = Find(t, "node    " + name + "  Ready     <none>", ready + 1);
  ASSERT_GT(gpu, ready);
  EXPECT_NE(t.entries()[gpu].text.find("nvidia.com/gpu: 1"), std::string::npos);
  const int scheduled = Find(t, "Successfully assigned default/gpu-test-pod to " + name, gpu);
  ASSERT_GT(scheduled, gpu);
  const int running = Find(t, "1/1  Running", scheduled);
  ASSERT_GT(running, scheduled);

  // Step 5: the pod is deleted at 10m; the node goes only after 10 unneeded minutes.
  const int deleted = Find(t, "pod     gpu-test-pod    deleted", running);
  ASSERT_GT(deleted, running);
  EXPECT_GE(at(deleted), minutes(10));
  const int taint =
      Find(t, "node    " + name + "  taint added ToBeDeletedByClusterAutoscaler", deleted);
  ASSERT_GT(taint, deleted);
  EXPECT_GE(at(taint) - at(deleted), minutes(10));
  const int down = Find(t, "pool    gpu-pool  1 -> 0", taint);
  ASSERT_GE(down, taint);
  const int removed = Find(t, "node    " + name + "  deleted", down);
  ASSERT_GT(removed, down);
  EXPECT_LT(at(removed), minutes(35));

  // gpu-pool is back at 0, and exactly one node was ever created for the one pod.
  EXPECT_EQ(*world_->cloud().TargetSize("gpu-pool"), 0);
  EXPECT_EQ(world_->recorder().nodes_created().at("gpu-pool"), 1);
  EXPECT_EQ(Find(t, "pool    gpu-pool  1 -> 2"), -1);
  int triggered_events = 0;
  for (const EventRecord& e : world_->store().events()) {
    triggered_events += e.reason == "TriggeredScaleUp" ? e.count : 0;
  }
  EXPECT_EQ(triggered_events, 1);
  EXPECT_EQ(world_->store().ListNodes().size(), 3u);
}

TEST_F(SeedWalkthroughTest, TheSameSeedGivesTheSameBytes) {
  auto again = RunScenario(scenario_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(world_->timeline().ToText(), (*again)->timeline().ToText());
  EXPECT_EQ(world_->timeline().ToJson(), (*again)->timeline().ToJson());
}

}  // namespace
}  // namespace tidepool::sim
