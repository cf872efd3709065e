#include "runtime/schedule_command.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace tidepool::runtime {
namespace {

std::string Example(const std::string& name) {
  return std::string(TIDEPOOL_SOURCE_DIR) + "/examples/seed/" + name;
}

// The main job's story, step by step, with the API server's and kube-scheduler's exact texts.
TEST(ScheduleCommandTest, RunsTheSeedWalkthroughScheduling) {
  std::ostringstream out, err;
  int rc = RunSchedule({{Example("01-cluster.yaml"), Example("02-typo-manifest.yaml"),
                         Example("03-gpu-test-pod.yaml"), Example("04-gpu-node-joins.yaml")}},
                       out, err);
  ASSERT_EQ(rc, 0) << err.str();
  const std::string o = out.str();
  const std::string expected_lines[] = {
      "node/gke-tidepool-default-pool-8d3f0a1b-0 created",
      "pod/kube-dns-6f9d4c7b5-x2k8p created",
      // LeastAllocated: node -2 runs only kube-proxy, the least of the three.
      "Normal   Scheduled         pod/web-7d4b9c6f8-abcde   Successfully assigned "
      "default/web-7d4b9c6f8-abcde to gke-tidepool-default-pool-8d3f4e5f-2",
      // The seed's typo: an empty toleration key needs operator Exists.
      "The Pod \"gpu-test-pod\" is invalid: spec.tolerations[0].operator: Invalid value: "
      "\"Equal\": operator must be Exists when `key` is empty, which means \"match all values "
      "and all keys\"",
      "Warning  FailedScheduling  pod/gpu-test-pod   0/3 nodes are available: 3 Insufficient "
      "nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for "
      "incoming pod.",
      "node/gke-tidepool-gpu-pool-5b2e9a71-0 created",
      "Normal   Scheduled         pod/gpu-test-pod   Successfully assigned default/gpu-test-pod "
      "to gke-tidepool-gpu-pool-5b2e9a71-0",
  };
  size_t pos = 0;
  for (const std::string& line : expected_lines) {
    size_t at = o.find(line, pos);
    ASSERT_NE(at, std::string::npos) << "missing, or out of order: " << line << "\n--- output:\n"
                                     << o;
    pos = at + line.size();
  }
  EXPECT_EQ(o.find("pending: pod/"), std::string::npos) << o;
}

TEST(ScheduleCommandTest, UnreadableInputIsAClearError) {
  std::ostringstream out, err;
  EXPECT_EQ(RunSchedule({{"/nonexistent/cluster.yaml"}}, out, err), 1);
  EXPECT_EQ(err.str(), "error: the path \"/nonexistent/cluster.yaml\" does not exist\n");
}

}  // namespace
}  // namespace tidepool::runtime
