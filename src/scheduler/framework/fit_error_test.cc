#include "scheduler/framework/fit_error.h"

#include <gtest/gtest.h>

namespace tidepool::scheduler {
namespace {

TEST(FitErrorMessageTest, FormatsLikeKubeScheduler132) {
  struct Case {
    std::string name;
    FitErrorParts parts;
    std::string want;
  };
  std::vector<Case> cases = {
      {"reasons are sorted as whole \"<count> <reason>\" strings",
       {3,
        {{"node(s) had untolerated taint {nvidia.com/gpu: present}", 1},
         {"Insufficient nvidia.com/gpu", 2}},
        "",
        ""},
       "0/3 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 "
       "Insufficient nvidia.com/gpu."},
      {"\"10 ...\" sorts before \"2 ...\"",
       {12, {{"Insufficient cpu", 10}, {"Insufficient memory", 2}}, "", ""},
       "0/12 nodes are available: 10 Insufficient cpu, 2 Insufficient memory."},
      {"a PreFilter message replaces the histogram",
       {4, {{"ignored", 4}}, "pod affinity terms conflict", ""},
       "0/4 nodes are available: pod affinity terms conflict."},
      {"the PostFilter message is appended with a space and no extra period",
       {1,
        {{"Insufficient cpu", 1}},
        "",
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
       "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No "
       "preemption victims found for incoming pod."},
      {"no nodes at all", {0, {}, "", ""}, "0/0 nodes are available:"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(FitErrorMessage(tc.parts), tc.want);
  }
}

}  // namespace
}  // namespace tidepool::scheduler
