#include "controllers/deployment/rollout.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tidepool::controllers::deployment {
namespace {

using nlohmann::json;

TEST(RolloutTest, ResolveFenceposts) {
  struct Case {
    json rolling;
    int32_t replicas;
    int32_t surge, unavailable;
  };
  const std::vector<Case> cases = {
      {nullptr, 3, 1, 0},                                        // 25%: up 0.75 -> 1, down -> 0
      {nullptr, 10, 3, 2},                                       // 2.5 -> 3 and 2
      {json{{"maxSurge", 0}, {"maxUnavailable", 0}}, 5, 0, 1},   // both 0: unavailable 1
      {json{{"maxSurge", "50%"}, {"maxUnavailable", 2}}, 5, 3, 2},
      {json{{"maxSurge", "0%"}, {"maxUnavailable", "0%"}}, 5, 0, 1},
      {nullptr, 0, 0, 1},
  };
  for (const Case& c : cases) {
    Fenceposts f = ResolveFenceposts(c.rolling, c.replicas);
    EXPECT_EQ(f.max_surge, c.surge) << c.rolling << " " << c.replicas;
    EXPECT_EQ(f.max_unavailable, c.unavailable) << c.rolling << " " << c.replicas;
  }
  EXPECT_FALSE(ScaledValue("abc", 10, true).ok());
  EXPECT_FALSE(ScaledValue(json::array(), 10, true).ok());
}

RsState Rs(std::string name, int32_t spec, int32_t available, int64_t created = 0) {
  RsState r;
  r.name = std::move(name);
  r.spec_replicas = spec;
  r.status_replicas = spec;
  r.available = available;
  r.created_seconds = created;
  return r;
}

TEST(RolloutTest, NewReplicaSetGrowsWithinMaxSurge) {
  const Fenceposts f{1, 0};
  // 3 old, new at 0: 3 + 1 surge - 3 = 1.
  EXPECT_EQ(NewRsNewReplicas(3, f, {Rs("old", 3, 3), Rs("new", 0, 0)}, Rs("new", 0, 0)), 1);
  // Already at the surge limit: stays.
  EXPECT_EQ(NewRsNewReplicas(3, f, {Rs("old", 3, 3), Rs("new", 1, 0)}, Rs("new", 1, 0)), 1);
  // Never above the desired count.
  EXPECT_EQ(NewRsNewReplicas(3, Fenceposts{10, 0}, {Rs("new", 0, 0)}, Rs("new", 0, 0)), 3);
}

TEST(RolloutTest, OldReplicaSetsShrinkKeepingMinimumAvailability) {
  // replicas 3, surge 1, unavailable 0: new at 1 not available yet: old cannot shrink.
  RsState fresh = Rs("new", 1, 0, 10);
  EXPECT_EQ(OldScaleDowns(3, {1, 0}, {Rs("old", 3, 3, 1)}, &fresh), std::vector<int32_t>{3});
  // The new pod available: 4 available, minimum 3: one old goes.
  fresh.available = 1;
  EXPECT_EQ(OldScaleDowns(3, {1, 0}, {Rs("old", 3, 3, 1)}, &fresh), std::vector<int32_t>{2});
  // Unhealthy old pods are cleaned up first, oldest ReplicaSet first.
  RsState fresh2 = Rs("new", 0, 0, 10);
  EXPECT_EQ(OldScaleDowns(4, {0, 2}, {Rs("b", 2, 1, 5), Rs("a", 2, 2, 1)}, &fresh2),
            (std::vector<int32_t>{1, 1}));
}

TEST(RolloutTest, ProportionalScalingSpreadsAChange) {
  // kcm's example: 10 replicas (surge 3 at 10), RSs of 5 and 5 annotated max 13 (10 + 3);
  // scaled to 20 (surge 5): 25 allowed, +15: each 5 * 25 / 13 = 9.6 -> 10, +5 each, leftover to
  // the first.
  RsState a = Rs("a", 5, 5, 1), b = Rs("b", 5, 0, 2);
  a.max_replicas_annotation = 13;
  b.max_replicas_annotation = 13;
  const std::vector<int32_t> to = Proportional(20, {5, 0}, {a, b}, 10);
  EXPECT_EQ(to[0] + to[1], 25);
  // Growing, equal sizes: the newer (b) first, so the rounding leftover (5) is b's.
  EXPECT_EQ(to[0], 10);
  EXPECT_EQ(to[1], 15);
  // Down to 0: every active ReplicaSet to 0.
  EXPECT_EQ(Proportional(0, {0, 1}, {a, b}, 10), (std::vector<int32_t>{0, 0}));
}

TEST(RolloutTest, PodTemplateHashIsStableAndSafe) {
  json t = {{"metadata", {{"labels", {{"app", "x"}}}}}, {"spec", {{"containers", json::array()}}}};
  const std::string h = PodTemplateHash(t, std::nullopt);
  EXPECT_EQ(h, PodTemplateHash(t, std::nullopt));
  EXPECT_NE(h, PodTemplateHash(t, 1));
  EXPECT_LE(h.size(), 10u);
  EXPECT_EQ(h.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos);
  json t2 = t;
  t2["spec"]["containers"] = json::array({{{"image", "nginx"}}});
  EXPECT_NE(h, PodTemplateHash(t2, std::nullopt));
}

}  // namespace
}  // namespace tidepool::controllers::deployment
