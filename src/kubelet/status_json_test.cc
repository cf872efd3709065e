#include "kubelet/status_json.h"

#include <gtest/gtest.h>

#include <vector>

namespace tidepool::kubelet {
namespace {

using nlohmann::json;
using State = ContainerStatus::State;

TimePoint At(int64_t s) { return TimePoint(std::chrono::seconds(1767225600 + s)); }

// What ContainerStatusJson writes, ContainerStatusesFromJson reads back: every state a kubelet
// keeps, restarts and the previous run included.
TEST(ContainerStatusesFromJsonTest, ReadsBackWhatTheKubeletWrites) {
  ContainerStatus creating{"a", State::kWaiting, "ContainerCreating"};
  ContainerStatus running{"b", State::kRunning};
  running.ready = true;
  running.started_at = At(10);
  ContainerStatus done{"c", State::kTerminated, "Completed"};
  done.started_at = At(10);
  done.finished_at = At(70);
  ContainerStatus crashing{"d", State::kWaiting, "CrashLoopBackOff"};
  crashing.message = "back-off 10s restarting failed container=d pod=p_default(u)";
  crashing.restart_count = 2;
  crashing.last_terminated = ContainerStatus::Terminated{1, "Error", At(20), At(25)};
  ContainerStatus failed{"e", State::kTerminated, "Error"};
  failed.exit_code = 3;
  failed.started_at = At(5);
  failed.finished_at = At(6);
  const std::vector<ContainerStatus> cases = {creating, running, done, crashing, failed};
  json statuses = json::array();
  for (const ContainerStatus& c : cases) {
    statuses.push_back(ContainerStatusJson(c, {{"image", "nginx:1.27"}}, "uid-1"));
  }
  const std::vector<ContainerStatus> read =
      ContainerStatusesFromJson({{"status", {{"containerStatuses", statuses}}}});
  ASSERT_EQ(read.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    EXPECT_EQ(read[i], cases[i]);
  }
}

TEST(ContainerStatusesFromJsonTest, AnythingMissingOrIllTypedReadsAsZero) {
  EXPECT_TRUE(ContainerStatusesFromJson(json()).empty());
  EXPECT_TRUE(ContainerStatusesFromJson({{"status", {{"containerStatuses", "x"}}}}).empty());
  const auto read = ContainerStatusesFromJson(
      {{"status",
        {{"containerStatuses",
          json::array({{{"name", 7},
                        {"ready", "yes"},
                        {"state", {{"running", {{"startedAt", "never"}}}}}}})}}}});
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].name, "");
  EXPECT_FALSE(read[0].ready);
  EXPECT_EQ(read[0].state, State::kRunning);
  EXPECT_FALSE(read[0].started_at.has_value());
}

}  // namespace
}  // namespace tidepool::kubelet
