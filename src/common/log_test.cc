#include "common/log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool::log {
namespace {

TEST(LoggerTest, TimestampsComeFromTheInjectedClock) {
  SimulatedClock clock(SimulatedClock::kDefaultStart + std::chrono::microseconds(1500));
  Logger logger("test", clock, /*to_stderr=*/false);
  std::vector<std::string> lines;
  logger.AddSink([&](std::string_view l) { lines.emplace_back(l); });
  logger.Info("Scale-up: setting group gpu-pool size to 1");
  clock.Advance(std::chrono::hours(25));
  logger.Warning("Pod is unschedulable", {{"pod", "default/gpu-test-pod"}});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].starts_with("I0101 00:00:00.001500 ")) << lines[0];
  EXPECT_TRUE(lines[0].ends_with("] Scale-up: setting group gpu-pool size to 1")) << lines[0];
  EXPECT_NE(lines[0].find("log_test.cc:"), std::string::npos) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("W0102 01:00:00.001500 ")) << lines[1];
  EXPECT_TRUE(lines[1].ends_with("] \"Pod is unschedulable\" pod=\"default/gpu-test-pod\""))
      << lines[1];
}

TEST(LoggerTest, VerbosityGatesVLines) {
  SimulatedClock clock;
  Logger logger("test", clock, false);
  int n = 0;
  logger.AddSink([&](std::string_view) { ++n; });
  logger.V(4, "hidden");
  logger.SetVerbosity(4);
  logger.V(4, "shown");
  logger.V(5, "hidden");
  EXPECT_EQ(n, 1);
}

TEST(FormatStructuredTest, QuotesAndEscapes) {
  EXPECT_EQ(FormatStructured("a \"b\"", {{"k", "v\n"}}), "\"a \\\"b\\\"\" k=\"v\\n\"");
}

}  // namespace
}  // namespace tidepool::log
