#include "scheduler/plugins/default_preemption/default_preemption.h"

#include <gtest/gtest.h>

#include "scheduler/scheduler.h"
#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST(DefaultPreemptionTest, ReprievesTheMostImportantPodsAndEvictsTheRest) {
  auto sched = Scheduler::Create();
  ASSERT_TRUE(sched.ok());
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(MakeNode("n").Capacity({{"cpu", "4"}, {"memory", "16Gi"}}).Ptr()).ok());
  // 3 of 4 cpus in use by pods below the preemptor's priority.
  ASSERT_TRUE(s.AddPod(MakePodInfo(MakePod("p-low").Priority(1).Req("cpu", "1").Ptr()), "n").ok());
  ASSERT_TRUE(s.AddPod(MakePodInfo(MakePod("p-mid").Priority(5).Req("cpu", "1").Ptr()), "n").ok());
  ASSERT_TRUE(
      s.AddPod(MakePodInfo(MakePod("p-high").Priority(9).Req("cpu", "1").Ptr()), "n").ok());
  ScheduleResult r =
      (*sched)->framework().Schedule(*MakePodInfo(MakePod("x").Priority(10).Req("cpu", "2").Ptr()), s);
  EXPECT_FALSE(r.Scheduled());
  EXPECT_EQ(r.nominated_node, "n");
  ASSERT_EQ(r.victims.size(), 1u);
  EXPECT_EQ(r.victims[0]->name(), "p-low");
  // The snapshot is left as it was.
  EXPECT_EQ(s.GetNodeInfo("n")->pods().size(), 3u);
  EXPECT_EQ(s.GetNodeInfo("n")->requested().milli_cpu, 3000);
}

TEST(DefaultPreemptionTest, EqualOrHigherPriorityPodsAreNeverVictims) {
  auto sched = Scheduler::Create();
  ASSERT_TRUE(sched.ok());
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(MakeNode("n").Capacity({{"cpu", "2"}, {"memory", "16Gi"}}).Ptr()).ok());
  ASSERT_TRUE(s.AddPod(MakePodInfo(MakePod("same").Priority(10).Req("cpu", "2").Ptr()), "n").ok());
  ScheduleResult r =
      (*sched)->framework().Schedule(*MakePodInfo(MakePod("x").Priority(10).Req("cpu", "1").Ptr()), s);
  EXPECT_TRUE(r.nominated_node.empty());
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");
}

TEST(DefaultPreemptionTest, ATerminatingVictimOnTheNominatedNodeMakesThePodWait) {
  auto sched = Scheduler::Create();
  ASSERT_TRUE(sched.ok());
  ClusterSnapshot s;
  ASSERT_TRUE(s.AddNode(MakeNode("n").Capacity({{"cpu", "2"}, {"memory", "16Gi"}}).Ptr()).ok());
  api::Pod victim = MakePod("going").Priority(0).Req("cpu", "2").Obj();
  victim.meta.deletion_timestamp = SimulatedClock::kDefaultStart;
  victim.status.conditions.push_back(api::PodCondition{
      "DisruptionTarget", api::ConditionStatus::kTrue, "PreemptionByScheduler", "", {}, {}});
  ASSERT_TRUE(s.AddPod(MakePodInfo(std::make_shared<const api::Pod>(victim)), "n").ok());
  api::Pod preemptor = MakePod("x").Priority(10).Req("cpu", "1").Obj();
  preemptor.status.nominated_node_name = "n";
  ScheduleResult r = (*sched)->framework().Schedule(
      *MakePodInfo(std::make_shared<const api::Pod>(preemptor)), s);
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a "
            "terminating pod on the nominated node.");
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
