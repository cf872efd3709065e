#include "autoscaler/flags.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tidepool::autoscaler {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

TEST(FlagsTest, CommandLineStringsSetTheOptions) {
  AutoscalingOptions o;
  struct Case {
    const char* name;
    const char* value;
  };
  const Case cases[] = {
      {"--scan-interval", "1s"},
      {"scale-down-unneeded-time", "1m30s"},
      {"--max-nodes-total", "42"},
      {"--scale-down-enabled", "false"},
      {"--skip-nodes-with-system-pods", "F"},
      {"--scale-down-utilization-threshold", "0.25"},
      {"--cores-total", "2:64"},
      {"--gpu-total", "nvidia-tesla-t4:0:4,nvidia-l4:1:8"},
      {"--expander", "price"},
      {"--unschedulable-pod-with-gpu-time-buffer", "0s"},
      {"--unremovable-node-recheck-timeout", "30s"},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(SetAutoscalerFlagFromString(o, c.name, c.value).ok()) << c.name;
  }
  EXPECT_EQ(o.scan_interval, seconds(1));
  EXPECT_EQ(o.scale_down_unneeded_time, seconds(90));
  EXPECT_EQ(o.max_nodes_total, 42);
  EXPECT_FALSE(o.scale_down_enabled);
  EXPECT_FALSE(o.skip_nodes_with_system_pods);
  EXPECT_DOUBLE_EQ(o.scale_down_utilization_threshold, 0.25);
  EXPECT_EQ(o.cores_total.min, 2);
  EXPECT_EQ(o.cores_total.max, 64);
  ASSERT_EQ(o.gpu_total.size(), 2u);
  EXPECT_EQ(o.gpu_total.at("nvidia-l4").max, 8);
  EXPECT_EQ(o.gpu_total.at("nvidia-tesla-t4").min, 0);
  EXPECT_EQ(o.expander, "price");
  EXPECT_EQ(o.unschedulable_pod_with_gpu_time_buffer, seconds(0));
  EXPECT_EQ(o.unremovable_node_recheck_timeout, seconds(30));
  // Untouched flags keep CA's defaults.
  EXPECT_EQ(o.scale_down_delay_after_add, minutes(10));
}

TEST(FlagsTest, BadCommandLineValuesAreSpecificErrors) {
  struct Case {
    const char* name;
    const char* value;
    const char* error;
  };
  const Case cases[] = {
      {"--scan-interval", "10", "--scan-interval: time: missing unit in duration \"10\""},
      {"--max-nodes-total", "ten", "--max-nodes-total: invalid value \"ten\": expected an integer"},
      {"--scale-down-enabled", "yes",
       "--scale-down-enabled: invalid value \"yes\": expected true or false"},
      {"--scale-down-utilization-threshold", "1.5",
       "--scale-down-utilization-threshold: must be between 0 and 1"},
      {"--cores-total", "64", "--cores-total: expected \"<min>:<max>\", got \"64\""},
      {"--memory-total", "9:3", "--memory-total: need 0 <= min <= max, got \"9:3\""},
      {"--gpu-total", ":1:2", "--gpu-total: expected \"<gpu type>:<min>:<max>\", got \":1:2\""},
      {"--no-such-flag", "1", "unknown flag: --no-such-flag"},
  };
  for (const Case& c : cases) {
    AutoscalingOptions o;
    Status s = SetAutoscalerFlagFromString(o, c.name, c.value);
    EXPECT_EQ(s.message(), c.error) << c.name;
  }
}

TEST(FlagsTest, ConfigValuesAreTyped) {
  AutoscalingOptions o;
  EXPECT_TRUE(SetAutoscalerFlag(o, "max-nodes-total", nlohmann::json(7), "a.max-nodes-total").ok());
  EXPECT_EQ(o.max_nodes_total, 7);
  Status s = SetAutoscalerFlag(o, "scan-interval", nlohmann::json(5), "a.scan-interval");
  EXPECT_EQ(s.message(),
            "a.scan-interval: expected a duration such as \"30s\" or \"10m\", got integer 5");
  EXPECT_EQ(SetAutoscalerFlag(o, "nope", nlohmann::json(1), "a.nope").code(),
            StatusCode::kNotFound);
}

TEST(FlagsTest, EveryFlagHasHelpAndIsSettable) {
  for (const FlagInfo& f : AutoscalerFlags()) {
    EXPECT_FALSE(f.help.empty()) << f.name;
    AutoscalingOptions o;
    // A wrong-typed value is refused with the flag's own path, never "unknown flag".
    Status s = SetAutoscalerFlag(o, f.name, nlohmann::json::object(), "x");
    EXPECT_NE(s.code(), StatusCode::kNotFound) << f.name;
  }
}

}  // namespace
}  // namespace tidepool::autoscaler
