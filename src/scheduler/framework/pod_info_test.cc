#include "scheduler/framework/pod_info.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler {
namespace {

using testing::MakePod;

api::Pod ReplicaPod(const std::string& name, const std::string& node) {
  api::Pod p = MakePod(name).OwnedBy("ReplicaSet", "web").Req("cpu", "500m").NodeName(node).Obj();
  p.meta.uid = "uid-" + name;
  p.meta.labels["app"] = "web";
  p.meta.resource_version = name;
  p.meta.creation_timestamp = TimePoint(std::chrono::seconds(100));
  p.status.phase = api::PodPhase::kRunning;
  p.status.start_time = TimePoint(std::chrono::seconds(101));
  return p;
}

TEST(PodInfoTest, PodsOfOneClassShareItAndKeepTheirOwnIdentity) {
  PodInfoConstSharedPtr a = MakePodInfo(ReplicaPod("web-a", "n1"));
  PodInfoConstSharedPtr b = MakePodInfo(ReplicaPod("web-b", "n2"));
  EXPECT_EQ(a->pod_class(), b->pod_class());
  EXPECT_EQ(a->name(), "web-a");
  EXPECT_EQ(b->name(), "web-b");
  EXPECT_EQ(a->uid(), "uid-web-a");
  EXPECT_EQ(a->node_name(), "n1");
  EXPECT_EQ(b->node_name(), "n2");
  EXPECT_EQ(a->Key(), "default/web-a");
  EXPECT_TRUE(a->spec().node_name.empty());
  EXPECT_EQ(a->request().milli_cpu, 500);
  EXPECT_EQ(a->phase(), api::PodPhase::kRunning);
  EXPECT_EQ(a->start_time(), TimePoint(std::chrono::seconds(101)));
  EXPECT_FALSE(a->deletion_timestamp().has_value());
  EXPECT_EQ(a->fingerprint(), api::SchedulingFingerprintWithNodeName(ReplicaPod("x", "n1"), ""));
}

// Fields the fingerprint does not cover still split classes: the full key is compared on a hit.
TEST(PodInfoTest, EqualFingerprintsWithOtherSharedFieldsAreDifferentClasses) {
  struct Case {
    std::string name;
    void (*edit)(api::Pod&);
  };
  const std::vector<Case> cases = {
      {"namespace", [](api::Pod& p) { p.meta.namespace_ = "other"; }},
      {"annotation", [](api::Pod& p) { p.meta.annotations["a"] = "b"; }},
      {"owner", [](api::Pod& p) { p.meta.owner_references[0].uid = "other"; }},
      {"generateName", [](api::Pod& p) { p.meta.generate_name = "web-"; }},
  };
  PodInfoConstSharedPtr base = MakePodInfo(ReplicaPod("web-a", "n1"));
  for (const Case& c : cases) {
    api::Pod p = ReplicaPod("web-b", "n1");
    c.edit(p);
    PodInfoConstSharedPtr other = MakePodInfo(p);
    EXPECT_EQ(other->fingerprint(), base->fingerprint()) << c.name;
    EXPECT_NE(other->pod_class(), base->pod_class()) << c.name;
    EXPECT_EQ(other->ToPod().meta.namespace_, p.meta.namespace_) << c.name;
    EXPECT_EQ(other->annotations(), p.meta.annotations) << c.name;
    EXPECT_EQ(other->owner_references(), p.meta.owner_references) << c.name;
  }
}

TEST(PodInfoTest, ClassesLiveAsLongAsTheirPods) {
  const size_t before = PodInfo::NumLiveClasses();
  api::Pod p = ReplicaPod("solo", "n1");
  p.meta.labels["unique"] = "ClassesLiveAsLongAsTheirPods";
  PodInfoConstSharedPtr a = MakePodInfo(p);
  EXPECT_EQ(PodInfo::NumLiveClasses(), before + 1);
  PodInfoConstSharedPtr unbound = a->WithNodeName("");
  EXPECT_EQ(unbound->pod_class(), a->pod_class());
  EXPECT_EQ(unbound->node_name(), "");
  EXPECT_EQ(unbound->name(), "solo");
  a.reset();
  EXPECT_EQ(PodInfo::NumLiveClasses(), before + 1);
  unbound.reset();
  EXPECT_EQ(PodInfo::NumLiveClasses(), before);
}

TEST(PodInfoTest, ConditionsTheEngineReads) {
  api::Pod p = ReplicaPod("pending", "");
  p.status.phase = api::PodPhase::kPending;
  p.status.nominated_node_name = "n9";
  p.status.conditions.push_back(
      {.type = "PodScheduled", .status = api::ConditionStatus::kFalse, .reason = "Unschedulable"});
  PodInfoConstSharedPtr info = MakePodInfo(p);
  EXPECT_TRUE(info->marked_unschedulable());
  EXPECT_FALSE(info->disruption_target_by_preemption());
  EXPECT_EQ(info->nominated_node_name(), "n9");
  api::Pod back = info->ToPod();
  EXPECT_EQ(back.meta.name, "pending");
  EXPECT_EQ(back.status.nominated_node_name, "n9");
  ASSERT_NE(back.FindCondition("PodScheduled"), nullptr);
  EXPECT_EQ(back.FindCondition("PodScheduled")->reason, "Unschedulable");

  p.status.conditions[0].reason = "SchedulerError";
  EXPECT_FALSE(MakePodInfo(p)->marked_unschedulable());
  p.status.conditions.push_back({.type = "DisruptionTarget",
                                 .status = api::ConditionStatus::kTrue,
                                 .reason = "PreemptionByScheduler"});
  EXPECT_TRUE(MakePodInfo(p)->disruption_target_by_preemption());
}

}  // namespace
}  // namespace tidepool::scheduler
