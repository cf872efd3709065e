#include "scheduler/scheduler.h"

#include <gtest/gtest.h>

#include "testing/builders.h"

namespace tidepool::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST(SchedulerTest, ScheduleOneBindsIntoTheSnapshotUntilTheGpusRunOut) {
  auto sched = Scheduler::Create();
  ASSERT_TRUE(sched.ok());
  ClusterSnapshot s;
  for (const char* name : {"gpu-b", "gpu-a"}) {
    ASSERT_TRUE(s.AddNode(MakeNode(name)
                              .Capacity({{"cpu", "48"}, {"memory", "180Gi"}, {"nvidia.com/gpu", "4"}})
                              .Taint("nvidia.com/gpu", "present")
                              .Ptr())
                    .ok());
  }
  std::vector<std::string> placed;
  for (int i = 0; i < 9; ++i) {
    auto pod = MakePodInfo(MakePod("train-" + std::to_string(i))
                               .Req("nvidia.com/gpu", "1")
                               .Req("cpu", "1")
                               .TolerationExists("nvidia.com/gpu", api::TaintEffect::kNoSchedule)
                               .Ptr());
    ScheduleResult r = (*sched)->ScheduleOne(pod, s);
    placed.push_back(r.Scheduled() ? r.node : r.message);
  }
  // LeastAllocated spreads: a, b, a, b, ... ; the ninth finds no GPU.
  EXPECT_EQ(placed[0], "gpu-a");
  EXPECT_EQ(placed[1], "gpu-b");
  EXPECT_EQ(placed[2], "gpu-a");
  EXPECT_EQ(placed[7], "gpu-b");
  EXPECT_EQ(placed[8],
            "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are "
            "available: 2 No preemption victims found for incoming pod.");
  EXPECT_EQ(s.GetNodeInfo("gpu-a")->requested().Scalar("nvidia.com/gpu"), 4);
  EXPECT_EQ(s.GetNodeInfo("gpu-b")->requested().Scalar("nvidia.com/gpu"), 4);
}

}  // namespace
}  // namespace tidepool::scheduler
