#include "controllers/replicaset/pod_ranking.h"

#include <gtest/gtest.h>

namespace tidepool::controllers::replicaset {
namespace {

const TimePoint kNow = TimePoint{} + std::chrono::hours(1000);

PodFacts Pod(std::string uid) {
  PodFacts p;
  p.uid = std::move(uid);
  p.name = p.uid;
  p.node_name = "n";
  p.phase = "Running";
  p.ready = true;
  p.ready_since = kNow - std::chrono::hours(1);
  p.created = kNow - std::chrono::hours(2);
  return p;
}

// Each case: two pods differing in one respect; `first` is the one deleted first.
TEST(PodRankingTest, DeletionOrderFollowsKcm) {
  struct Case {
    const char* name;
    std::function<void(PodFacts& first, PodFacts& second)> make;
    int first_rank = 0, second_rank = 0;
  };
  const std::vector<Case> cases = {
      {"unassigned first", [](PodFacts& a, PodFacts&) { a.node_name.clear(); }},
      {"pending before running", [](PodFacts& a, PodFacts&) { a.phase = "Pending"; }},
      {"unknown before running", [](PodFacts& a, PodFacts&) { a.phase = "Unknown"; }},
      {"pending before unknown", [](PodFacts& a, PodFacts& b) { a.phase = "Pending"; b.phase = "Unknown"; }},
      {"not ready first", [](PodFacts& a, PodFacts&) { a.ready = false; }},
      {"lower deletion cost first", [](PodFacts& a, PodFacts& b) { a.deletion_cost = -1; b.deletion_cost = 5; }},
      {"doubled-up first", [](PodFacts&, PodFacts&) {}, 3, 1},
      {"ready for less time first (other log2 bucket)",
       [](PodFacts& a, PodFacts&) { a.ready_since = kNow - std::chrono::minutes(1); }},
      {"more restarts first", [](PodFacts& a, PodFacts&) { a.restarts = 4; }},
      {"newer first", [](PodFacts& a, PodFacts&) { a.created = kNow - std::chrono::minutes(3); }},
      {"same buckets: uid order", [](PodFacts&, PodFacts&) {}},
  };
  for (const Case& c : cases) {
    PodFacts a = Pod("a"), b = Pod("b");
    c.make(a, b);
    // The order given never matters.
    for (bool swap : {false, true}) {
      std::vector<RankedPod> pods = {{&a, c.first_rank}, {&b, c.second_rank}};
      if (swap) std::swap(pods[0], pods[1]);
      SortForDeletion(pods, kNow);
      EXPECT_EQ(pods[0].pod, &a) << c.name << (swap ? " (swapped)" : "");
    }
  }
}

TEST(PodRankingTest, ReadyTimesInOneLog2BucketAreEqual) {
  // 70 s and 100 s are both in [64 s, 128 s): the restart count decides.
  PodFacts a = Pod("b"), b = Pod("a");
  a.ready_since = kNow - std::chrono::seconds(100);
  b.ready_since = kNow - std::chrono::seconds(70);
  a.restarts = 2;
  std::vector<RankedPod> pods = {{&b, 0}, {&a, 0}};
  SortForDeletion(pods, kNow);
  EXPECT_EQ(pods[0].pod, &a);
}

TEST(PodRankingTest, AvailableNeedsMinReadySeconds) {
  PodFacts p = Pod("a");
  p.ready_since = kNow - std::chrono::seconds(10);
  EXPECT_TRUE(p.Available(Duration::zero(), kNow));
  EXPECT_TRUE(p.Available(std::chrono::seconds(10), kNow));
  EXPECT_FALSE(p.Available(std::chrono::seconds(11), kNow));
  p.ready = false;
  EXPECT_FALSE(p.Available(Duration::zero(), kNow));
}

}  // namespace
}  // namespace tidepool::controllers::replicaset
